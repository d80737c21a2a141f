//! `sweep collective`: an operation's algorithms over networks and message sizes, each cell
//! measured beside its α–β–γ model; time against bytes on log–log axes, one measured and one
//! modelled curve per algorithm; and where one algorithm overtakes another, predicted beside
//! measured.

use anyhow::Result;
use multicomputer_workloads::collectives::CollectiveComparison;
use multicomputer_workloads::repetitions::Summary;
use serde::Serialize;

use crate::exec::Runs;
use crate::plan::SweepCollectivePlan;
use crate::plot::{LineChart, Point, Scale};
use crate::report::{
    Block, Body, Figure, FolderFiles, Meta, ProfileUse, Report, Section, Table, csv, worst,
};
use crate::units::{human_bytes, human_s};

/// One cell: an algorithm on a network at one size.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CollectiveRow {
    pub(crate) topology: String,
    pub(crate) processors: usize,
    pub(crate) algorithm: String,
    /// Bytes of each processor's vector.
    pub(crate) bytes: usize,
    pub(crate) switching: String,
    /// Measured runs of the cell.
    pub(crate) runs: usize,
    /// The mean over the runs.
    pub(crate) measured_makespan_s: f64,
    /// Standard deviation over the runs (empty for one run).
    pub(crate) measured_makespan_sd_s: Option<f64>,
    pub(crate) predicted_makespan_s: f64,
    /// (mean measured − predicted)/predicted, percent.
    pub(crate) error_pct: f64,
    /// The last run's measured − predicted, ns (in virtual time, link contention, or partners
    /// of one step nearer than the farthest that the model charges).
    pub(crate) excess_ns: i64,
    /// The run's dilation (empty: virtual time).
    pub(crate) dilation: Option<f64>,
    pub(crate) wall_s: f64,
}

/// Where algorithm `a`'s time minus `b`'s changes sign between two neighbouring sizes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Crossing {
    /// The size below, bytes.
    pub(crate) below_bytes: usize,
    /// The size above, bytes.
    pub(crate) above_bytes: usize,
    /// Where the difference of the two times, interpolated linearly in bytes between the two
    /// sizes, is zero (exact for times affine in the bytes, as the α–β–γ models are).
    pub(crate) at_bytes: f64,
    /// Whether `a` is the faster above it (it overtakes `b`).
    pub(crate) a_faster_above: bool,
}

/// The first crossing of two algorithms' times `(bytes, a, b)`, sizes ascending: the first
/// pair of neighbouring sizes between which a − b goes from one sign to zero or the other.
pub(crate) fn first_crossing(points: &[(usize, f64, f64)]) -> Option<Crossing> {
    points.windows(2).find_map(|w| {
        let ((x0, a0, b0), (x1, a1, b1)) = (w[0], w[1]);
        let (d0, d1) = (a0 - b0, a1 - b1);
        if d0 == 0.0 || d0.signum() == d1.signum() && d1 != 0.0 {
            return None;
        }
        let at = x0 as f64 + (x1 - x0) as f64 * d0 / (d0 - d1);
        Some(Crossing {
            below_bytes: x0,
            above_bytes: x1,
            at_bytes: at,
            a_faster_above: d0 > 0.0,
        })
    })
}

/// Two algorithms on one network: where one overtakes the other, by the models and by the
/// measurements.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Crossover {
    pub(crate) topology: String,
    pub(crate) processors: usize,
    pub(crate) a: String,
    pub(crate) b: String,
    /// By the models.
    pub(crate) predicted: Option<Crossing>,
    /// By the measurements.
    pub(crate) measured: Option<Crossing>,
}

impl Crossover {
    /// Every pair of algorithms on each network whose models or measurements cross.
    pub(crate) fn of(rows: &[CollectiveRow]) -> Vec<Self> {
        let mut out = Vec::new();
        for topology in distinct(rows.iter().map(|r| r.topology.clone())) {
            let on: Vec<&CollectiveRow> = rows.iter().filter(|r| r.topology == topology).collect();
            let algorithms = distinct(on.iter().map(|r| r.algorithm.clone()));
            for (i, a) in algorithms.iter().enumerate() {
                for b in &algorithms[i + 1..] {
                    let points = |time: fn(&CollectiveRow) -> f64| -> Vec<(usize, f64, f64)> {
                        let mut p: Vec<(usize, f64, f64)> = on
                            .iter()
                            .filter(|r| &r.algorithm == a)
                            .filter_map(|ra| {
                                on.iter()
                                    .find(|rb| &rb.algorithm == b && rb.bytes == ra.bytes)
                                    .map(|rb| (ra.bytes, time(ra), time(rb)))
                            })
                            .collect();
                        p.sort_by_key(|t| t.0);
                        p
                    };
                    let predicted = first_crossing(&points(|r| r.predicted_makespan_s));
                    let measured = first_crossing(&points(|r| r.measured_makespan_s));
                    if predicted.is_some() || measured.is_some() {
                        out.push(Crossover {
                            topology: topology.clone(),
                            processors: on[0].processors,
                            a: a.clone(),
                            b: b.clone(),
                            predicted,
                            measured,
                        });
                    }
                }
            }
        }
        out
    }

    /// One crossing in words: "ring overtakes recursive-doubling at 61.4 KiB (between 32.0
    /// KiB and 64.0 KiB)".
    fn words(&self, c: Option<Crossing>) -> String {
        match c {
            None => "no crossing in the sizes swept".into(),
            Some(c) => {
                let (fast, slow) = if c.a_faster_above {
                    (&self.a, &self.b)
                } else {
                    (&self.b, &self.a)
                };
                format!(
                    "{fast} overtakes {slow} at {} (between {} and {})",
                    human_bytes(c.at_bytes),
                    human_bytes(c.below_bytes as f64),
                    human_bytes(c.above_bytes as f64)
                )
            }
        }
    }

    /// The sentence the report shows.
    pub(crate) fn sentence(&self) -> String {
        format!(
            "On {} ({} processors), predicted: {}; measured: {}.",
            self.topology,
            self.processors,
            self.words(self.predicted),
            self.words(self.measured)
        )
    }
}

/// The distinct values of `items`, in the order they first appear.
fn distinct(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// What `sweep collective` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SweepCollectiveReport {
    /// The operation.
    pub(crate) operation: String,
    /// One row per cell.
    pub(crate) rows: Vec<CollectiveRow>,
    /// Where algorithms overtake one another (the first crossing of each pair on each
    /// network, sizes interpolated linearly in bytes between those swept).
    pub(crate) crossovers: Vec<Crossover>,
}

/// The rows of a collective sweep: each cell's mean measurement beside its model.
fn rows(runs: &[Runs<CollectiveComparison>]) -> Vec<CollectiveRow> {
    runs.iter()
        .filter_map(|r| {
            let last = r.runs.last()?;
            let times: Vec<f64> = r.runs.iter().map(|c| c.measured.makespan_s).collect();
            let s = Summary::of(&times)?;
            let predicted = last.predicted.makespan_s;
            // The error from whole nanoseconds, so that a cell equal to its model reads 0.
            let predicted_ns = last.predicted.makespan_ns as f64;
            let measured_ns = r
                .runs
                .iter()
                .map(|c| predicted_ns + c.excess_ns as f64)
                .sum::<f64>()
                / r.runs.len() as f64;
            Some(CollectiveRow {
                topology: last.topology.clone(),
                processors: last.processors,
                algorithm: last.spec.algorithm.name().into(),
                bytes: last.bytes,
                switching: last.switching.into(),
                runs: r.runs.len(),
                measured_makespan_s: s.mean,
                measured_makespan_sd_s: s.sd,
                predicted_makespan_s: predicted,
                error_pct: if predicted_ns > 0.0 {
                    100.0 * (measured_ns - predicted_ns) / predicted_ns
                } else {
                    0.0
                },
                excess_ns: last.excess_ns,
                dilation: last.report.time.dilation(),
                wall_s: last.report.wall_s(),
            })
        })
        .collect()
}

/// The report of a collective sweep, with its table (`rows.csv`).
pub(crate) fn sweep_collective_report(
    plan: &SweepCollectivePlan,
    cells: &[Runs<CollectiveComparison>],
) -> Result<(Report<SweepCollectiveReport>, FolderFiles)> {
    let profile = ProfileUse::Read(plan.machine.profile.as_ref());
    let meta = Meta::new("sweep collective", plan.inputs(), profile)
        .cells(&plan.machine, cells.iter().map(|c| &c.ran))
        .fidelity(worst(cells.iter().flat_map(|c| &c.runs))?);
    let rows = rows(cells);
    let table = csv::rows(&rows)?;
    let operation = plan
        .cells
        .first()
        .map_or("", |c| c.experiment.spec.operation.name())
        .to_string();
    let body = SweepCollectiveReport {
        operation,
        crossovers: Crossover::of(&rows),
        rows,
    };
    Ok((Report::new(meta, body), vec![("rows.csv".into(), table)]))
}

impl SweepCollectiveReport {
    /// The table people read.
    fn table(&self) -> Table {
        let mut t = Table::new(&[
            "topology",
            "P",
            "algorithm",
            "bytes",
            "measured",
            "model",
            "error",
        ]);
        for r in &self.rows {
            t.row(vec![
                r.topology.clone(),
                r.processors.to_string(),
                r.algorithm.clone(),
                human_bytes(r.bytes as f64),
                match r.measured_makespan_sd_s {
                    Some(sd) => format!("{} ± {}", human_s(r.measured_makespan_s), human_s(sd)),
                    None => human_s(r.measured_makespan_s),
                },
                human_s(r.predicted_makespan_s),
                format!("{:+.3} %", r.error_pct),
            ]);
        }
        t
    }

    /// Time against bytes on one network, log–log: a measured/model pair per algorithm, the
    /// predicted crossovers marked.
    fn chart(&self, topology: &str) -> Result<String> {
        let on: Vec<&CollectiveRow> = self
            .rows
            .iter()
            .filter(|r| r.topology == topology)
            .collect();
        let processors = on.first().map_or(0, |r| r.processors);
        let mut chart = LineChart::new(
            format!(
                "{} on {topology} ({processors} processors): time against bytes",
                self.operation
            ),
            "bytes per processor",
            "makespan (µs)",
        )
        .x_scale(Scale::Log10)
        .y_scale(Scale::Log10)
        .key("measured", "model");
        for alg in distinct(on.iter().map(|r| r.algorithm.clone())) {
            let mut mine: Vec<&&CollectiveRow> = on.iter().filter(|r| r.algorithm == alg).collect();
            mine.sort_by_key(|r| r.bytes);
            let measured = mine
                .iter()
                .map(|r| Point::new(r.bytes as f64, r.measured_makespan_s * 1e6));
            let model: Vec<(f64, f64)> = mine
                .iter()
                .map(|r| (r.bytes as f64, r.predicted_makespan_s * 1e6))
                .collect();
            chart = chart.pair(alg, measured, model);
        }
        for c in self.crossovers.iter().filter(|c| c.topology == topology) {
            if let Some(p) = c.predicted {
                // The model's time there, interpolated as the crossing was.
                let y = on
                    .iter()
                    .find(|r| r.algorithm == c.a && r.bytes == p.below_bytes)
                    .zip(
                        on.iter()
                            .find(|r| r.algorithm == c.a && r.bytes == p.above_bytes),
                    )
                    .map(|(lo, hi)| {
                        let f = (p.at_bytes - lo.bytes as f64) / (hi.bytes - lo.bytes) as f64;
                        1e6 * (lo.predicted_makespan_s
                            + f * (hi.predicted_makespan_s - lo.predicted_makespan_s))
                    });
                if let Some(y) = y {
                    chart = chart.mark(
                        p.at_bytes,
                        y,
                        format!("model crossover ≈ {}", human_bytes(p.at_bytes)),
                    );
                }
            }
        }
        chart.to_svg(960, 600)
    }
}

impl Body for SweepCollectiveReport {
    fn title(&self) -> String {
        format!(
            "sweep collective: {} by {} algorithm(s), {} cells measured beside the model",
            self.operation,
            distinct(self.rows.iter().map(|r| r.algorithm.clone())).len(),
            self.rows.len()
        )
    }

    fn results(&self) -> Vec<Section> {
        let exact = self
            .rows
            .iter()
            .filter(|r| r.dilation.is_none() && r.excess_ns == 0)
            .count();
        let mut blocks = vec![Block::Table(self.table())];
        blocks.push(Block::Text(format!(
            "{} cells; {exact} equal their model to the nanosecond in virtual time. Where a \
             measurement exceeds its model, messages queued on links their routes share \
             (contention, which the model leaves out); where it is below, partners of a step \
             were nearer than the farthest pair the model charges.",
            self.rows.len()
        )));
        let mut crossing = Vec::new();
        for c in &self.crossovers {
            crossing.push(Block::Text(c.sentence()));
        }
        if crossing.is_empty() {
            crossing.push(Block::Text(
                "No two algorithms cross, by the models or the measurements, in the sizes swept."
                    .into(),
            ));
        }
        crossing.push(Block::Text(
            "Each crossing is the first between neighbouring sizes swept, interpolated linearly \
             in bytes between them: exact for the models, whose times are affine in the bytes; \
             an estimate for the measurements, which are known only at the sizes swept."
                .into(),
        ));
        vec![
            Section::results("Crossovers", crossing),
            Section::results("Cells", blocks),
        ]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let topologies = distinct(self.rows.iter().map(|r| r.topology.clone()));
        topologies
            .iter()
            .map(|t| {
                Ok(Figure {
                    file: format!("time-{}.svg", t.replace([':', '/'], "-")),
                    caption: format!(
                        "{} on {t}: makespan against bytes per processor, log–log; each \
                         algorithm's measured points against its model's dashed line in one \
                         colour, the models' crossovers marked.",
                        self.operation
                    ),
                    svg: self.chart(t)?,
                })
            })
            .collect()
    }

    fn plots_first(&self) -> bool {
        true
    }

    fn csv(&self) -> Result<Option<Vec<u8>>> {
        csv::rows(&self.rows).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crossing_is_interpolated_linearly_in_bytes() {
        // a − b: +100 at 1000 B, −300 at 2000 B: zero a quarter of the way, at 1250 B.
        let c = first_crossing(&[
            (500, 900.0, 500.0),
            (1000, 1000.0, 900.0),
            (2000, 1200.0, 1500.0),
        ])
        .unwrap();
        assert_eq!(
            c,
            Crossing {
                below_bytes: 1000,
                above_bytes: 2000,
                at_bytes: 1250.0,
                a_faster_above: true
            }
        );
        // b overtakes a: a − b from −60 to +20, zero at 3/4 of 64..128.
        let c = first_crossing(&[(64, 40.0, 100.0), (128, 120.0, 100.0)]).unwrap();
        assert_eq!(c.at_bytes, 112.0);
        assert!(!c.a_faster_above);
        // Reaching equality counts, at the size where it does; equal from the start does not.
        assert_eq!(
            first_crossing(&[(8, 3.0, 1.0), (16, 2.0, 2.0)]).map(|c| c.at_bytes),
            Some(16.0)
        );
        assert_eq!(first_crossing(&[(8, 1.0, 1.0), (16, 2.0, 3.0)]), None);
        assert_eq!(first_crossing(&[(8, 1.0, 2.0), (16, 2.0, 3.0)]), None);
        assert_eq!(first_crossing(&[(8, 1.0, 2.0)]), None);
    }

    #[test]
    fn ring_against_recursive_doubling_crosses_where_the_affine_models_meet() {
        // On a hypercube of p = 16 with α = 11.5 µs, β = 1 ns/B, γ = 1 ns/B the models are
        // ring 2(p−1)α + (2(p−1)/p)·m·β + ((p−1)/p)·m·γ = 345 µs + 2.8125·m ns and recursive
        // doubling lg p·(α + m·β + m·γ) = 46 µs + 8·m ns: equal at m = 299 000/5.1875 B.
        let ring = |m: f64| 345_000.0 + 2.8125 * m;
        let rd = |m: f64| 46_000.0 + 8.0 * m;
        let points: Vec<(usize, f64, f64)> = [8_192usize, 32_768, 65_536, 131_072]
            .iter()
            .map(|&m| (m, ring(m as f64), rd(m as f64)))
            .collect();
        let c = first_crossing(&points).unwrap();
        assert_eq!((c.below_bytes, c.above_bytes), (32_768, 65_536));
        assert!((c.at_bytes - 299_000.0 / 5.1875).abs() < 1e-6, "{c:?}");
        assert!(c.a_faster_above);
    }
}
