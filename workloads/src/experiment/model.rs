//! A user's model: named cost parameters with their values, and a closure that predicts a
//! run's makespan from the machine and the parameters.

use multicomputer_runtime::Machine;
use serde::Serialize;

use super::ExperimentError;

/// A named cost parameter of a model and its value (seconds, seconds per byte, …: the name
/// says the unit, as `alpha_s`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// Its value: what the model predicts with, and where a fit starts.
    pub value: f64,
}

/// The predicting closure: the machine of one point (its topology gives P, its spec the link
/// costs and the time mode) and the parameters' values, in the order they were named →
/// the predicted makespan in seconds.
type Predict<'a> = dyn Fn(&Machine, &[f64]) -> f64 + 'a;

/// A program's model: named cost parameters and a pure function predicting the makespan.
///
/// The closure must be a pure function of its arguments: a fit calls it many times with
/// other parameter values.
pub struct Model<'a> {
    parameters: Vec<Parameter>,
    predict: Box<Predict<'a>>,
}

impl std::fmt::Debug for Model<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("parameters", &self.parameters)
            .finish_non_exhaustive()
    }
}

impl<'a> Model<'a> {
    /// A model with `parameters` (name, value) and its prediction `predict(machine, θ)`,
    /// where `θ[i]` is the value of parameter `i`. Names must be distinct and not empty,
    /// values finite.
    pub fn new(
        parameters: &[(&str, f64)],
        predict: impl Fn(&Machine, &[f64]) -> f64 + 'a,
    ) -> Result<Self, ExperimentError> {
        for (i, (name, value)) in parameters.iter().enumerate() {
            if name.is_empty() || parameters[..i].iter().any(|(n, _)| n == name) {
                return Err(ExperimentError::ParameterName((*name).to_string()));
            }
            if !value.is_finite() {
                return Err(ExperimentError::ParameterValue {
                    name: (*name).to_string(),
                    value: *value,
                });
            }
        }
        Ok(Self {
            parameters: parameters
                .iter()
                .map(|(name, value)| Parameter {
                    name: (*name).to_string(),
                    value: *value,
                })
                .collect(),
            predict: Box::new(predict),
        })
    }

    /// The parameters, with the values the model predicts with.
    pub fn parameters(&self) -> &[Parameter] {
        &self.parameters
    }

    /// The parameters' values, in order.
    pub fn values(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.value).collect()
    }

    /// The predicted makespan on `machine` with parameter values `theta`, seconds.
    pub fn predict_s(&self, machine: &Machine, theta: &[f64]) -> f64 {
        (self.predict)(machine, theta)
    }
}
