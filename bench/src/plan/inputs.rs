//! Every input of a run, as `name = value` strings a report shows and saves.

use std::time::Duration;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::units::human_ns;

/// The inputs of a plan, in the order a person reads them (flags' names without dashes).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Inputs(pub(crate) Vec<(String, String)>);

impl Inputs {
    /// No inputs yet.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds one.
    pub(crate) fn add(&mut self, name: &str, value: impl ToString) -> &mut Self {
        self.0.push((name.to_string(), value.to_string()));
        self
    }

    /// Adds a duration, with its unit.
    pub(crate) fn duration(&mut self, name: &str, d: Duration) -> &mut Self {
        self.add(name, human_ns(d.as_nanos() as f64))
    }

    /// Adds every input of `other`.
    pub(crate) fn extend(&mut self, other: Inputs) -> &mut Self {
        self.0.extend(other.0);
        self
    }
}

impl Serialize for Inputs {
    /// A JSON object, in order.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}
