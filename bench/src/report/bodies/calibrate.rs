//! `calibrate`: this host's costs.

use anyhow::Result;
use multicomputer_runtime::MachineProfile;
use serde::Serialize;

use crate::plan::wait_name;
use crate::plot::{ErrorBar, LineChart, Point, Scale, Ticks};
use crate::report::{Block, Body, Figure, Section, Table};
use crate::units::human_ns;

/// The host's profile (its keys at the top level, as `calibrate --json` always printed).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CalibrateReport {
    /// The profile.
    #[serde(flatten)]
    pub(crate) profile: MachineProfile,
    /// Whether this run measured the profile's one-way time between MPI ranks (else it is
    /// the earlier calibration's, or none).
    #[serde(skip)]
    pub(crate) measured_crossing: bool,
}

impl CalibrateReport {
    /// The two tables: costs, and occupy errors by strategy.
    pub(crate) fn tables(&self) -> Vec<Block> {
        let p = &self.profile;
        let mut t = Table::new(&["quantity", "value"]);
        for (name, v) in [
            ("clock read (Instant::now)", p.clock_read_ns),
            ("thread CPU-time read", p.cpu_time_read_ns),
            ("message one-way, spinning", p.message_spin_ns),
            ("message one-way, receiver parked", p.message_parked_ns),
            ("wake-up lateness of a 1 ms sleep", p.wakeup_ns),
            ("CPU time of one sleep/wake cycle", p.wake_cpu_ns),
            ("busy loop, per iteration", p.loop_ns_per_iteration),
            ("coroutine switch (virtual time)", p.coroutine_switch_ns),
        ] {
            t.row(vec![name.into(), human_ns(v)]);
        }
        for (unit, ns) in &p.unit_costs {
            t.row(vec![format!("work unit: {unit}"), format!("{ns:.3} ns")]);
        }
        t.rows.insert(
            0,
            vec!["host".into(), format!("{} ({} cores)", p.host, p.cores)],
        );
        if let Some(l) = &p.link {
            t.row(vec![
                "link start-up α per message (native, fitted)".into(),
                format!(
                    "{} ± {}",
                    human_ns(l.alpha_ns),
                    human_ns(l.fit.intercept_se)
                ),
            ]);
            t.row(vec![
                "link time β per byte (native, fitted)".into(),
                format!("{:.4} ns ± {:.4} ns", l.beta_ns_per_byte, l.fit.slope_se),
            ]);
        }
        t.row(vec![
            "message one-way between MPI ranks (cut-link post)".into(),
            self.crossing_text(),
        ]);
        let mut o = Table::new(&["strategy", "target", "median error", "p99 error"]);
        for e in &p.occupy {
            o.row(vec![
                wait_name(e.strategy).into(),
                human_ns(e.target_ns as f64),
                human_ns(e.median_error_ns),
                human_ns(e.p99_error_ns),
            ]);
        }
        let mut blocks = vec![Block::Table(t), Block::Table(o)];
        blocks.extend(self.link_table());
        blocks
    }

    /// The one-way time between ranks: the median ± half the interquartile range, and
    /// whether this run measured it; or how to measure it.
    fn crossing_text(&self) -> String {
        let Some(c) = &self.profile.rank_crossing else {
            return "not measured (calibrate ran in one process): after this, run \
                    `mpirun -np 2 multicomputer calibrate` with a multicomputer built with \
                    `--features mpi`; `--mode dilated` without `--dilation` over ranks needs it"
                .into();
        };
        let when = if self.measured_crossing {
            format!(
                "{} ranks, measured alone by this run under mpirun; the other figures are the \
                 profile's, from calibrate in one process",
                c.ranks
            )
        } else {
            format!(
                "kept from an earlier calibration under mpirun ({} ranks, Unix time {} s); \
                 not measured by this run, which ran in one process",
                c.ranks, c.measured_unix_s
            )
        };
        format!(
            "{} ± {} ({} B notes, {} round trips; {when})",
            human_ns(c.one_way_ns),
            human_ns(c.spread_ns),
            c.bytes,
            c.samples
        )
    }

    /// The link's sizes: the median one-way time of each, its spread, and the fit's
    /// `α + β·m` beside it.
    fn link_table(&self) -> Option<Block> {
        let l = self.profile.link.as_ref()?;
        let mut t = Table::new(&["message", "one-way (median)", "± (half IQR)", "α + β·m"]);
        for point in &l.points {
            t.row(vec![
                format!("{} B", point.bytes),
                human_ns(point.one_way_ns),
                human_ns(point.spread_ns),
                human_ns(l.alpha_ns + l.beta_ns_per_byte * point.bytes as f64),
            ]);
        }
        Some(Block::Table(t))
    }

    /// How late each wait strategy ends a timed wait, against the wait's length: the median
    /// lateness of the samples, the bar up to their 99th percentile; log–log, since a spin
    /// is late by nanoseconds and a sleep by tens of microseconds.
    fn lateness_figure(&self) -> Result<Figure> {
        let p = &self.profile;
        let mut strategies = Vec::new();
        for e in &p.occupy {
            if !strategies.contains(&e.strategy) {
                strategies.push(e.strategy);
            }
        }
        let targets = || p.occupy.iter().map(|e| e.target_ns as f64 / 1e3);
        let mut chart = LineChart::new(
            "Lateness of timed waits by strategy: median, bar to the 99th percentile",
            "wait length (µs)",
            "lateness: actual − requested (µs)",
        )
        .x_scale(Scale::Log10)
        .x_ticks(Ticks::at_few(targets()))
        .y_scale(Scale::Log10);
        for s in strategies {
            let points = p.occupy.iter().filter(|e| e.strategy == s).map(|e| {
                let (median, p99) = (e.median_error_ns / 1e3, e.p99_error_ns / 1e3);
                Point::with_error(
                    e.target_ns as f64 / 1e3,
                    median,
                    ErrorBar::Range {
                        low: median,
                        high: p99,
                    },
                )
            });
            chart = chart.pair(wait_name(s), points, []);
        }
        Ok(Figure {
            file: "wait-lateness.svg".into(),
            caption: "How late this host ends a timed wait, by strategy and length: the \
                      median of the samples (marker) and their 99th percentile (bar's top). \
                      A wait that ended early or on time has no place on the log axis and is \
                      counted in a footnote."
                .into(),
            svg: chart.to_svg(960, 560)?,
        })
    }
}

impl Body for CalibrateReport {
    fn title(&self) -> String {
        format!("Costs of host {}", self.profile.host)
    }

    fn results(&self) -> Vec<Section> {
        vec![Section::results("Costs of this host", self.tables())]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        Ok(vec![self.lateness_figure()?])
    }
}

#[cfg(test)]
mod tests {
    use multicomputer_runtime::{CalibrateOptions, OccupyError, WaitStrategy, calibrate};

    use super::*;
    use crate::plot::svg_check::{assert_svg, attr, coloured, has_text, texts};

    #[test]
    fn the_lateness_plot_has_every_strategy_and_length_with_its_spread() {
        let mut profile = calibrate(CalibrateOptions { samples: 1 });
        profile.occupy = [
            (WaitStrategy::Spin, 0.1, 0.4),
            (WaitStrategy::Sleep, 60.0, 200.0),
            (WaitStrategy::Hybrid, 1.0, 3.0),
        ]
        .into_iter()
        .flat_map(|(strategy, median_us, p99_us)| {
            [100_000u64, 1_000_000].map(|target_ns| OccupyError {
                strategy,
                target_ns,
                median_error_ns: median_us * 1e3,
                p99_error_ns: p99_us * 1e3,
            })
        })
        .collect();
        let f = CalibrateReport {
            profile,
            measured_crossing: false,
        }
        .lateness_figure()
        .unwrap();
        assert_svg(&f.svg);
        for t in ["spin", "sleep", "hybrid", "wait length (µs)", "100", "1000"] {
            assert!(has_text(&f.svg, t), "no {t:?} in {:?}", texts(&f.svg));
        }
        // Two lengths a strategy, each a marker and a bar (stem and two caps): the blue
        // (spin) circles are the legend's and two.
        assert_eq!(coloured(&f.svg, "circle", "fill", "#1F77B4").len(), 1 + 2);
        let stems = coloured(&f.svg, "polyline", "stroke", "#1F77B4")
            .into_iter()
            .filter_map(|e| attr(e, "points"))
            .filter(|p| {
                let xs: Vec<&str> = p
                    .split_whitespace()
                    .filter_map(|q| q.split(',').next())
                    .collect();
                xs.len() == 2 && xs[0] == xs[1]
            })
            .count();
        assert_eq!(stems, 2);
    }

    #[test]
    fn the_one_way_time_between_ranks_says_whether_and_how_it_was_measured() {
        let mut profile = calibrate(CalibrateOptions { samples: 1 });
        profile.rank_crossing = None;
        let report = |profile, measured_crossing| {
            CalibrateReport {
                profile,
                measured_crossing,
            }
            .crossing_text()
        };
        let none = report(profile.clone(), false);
        assert!(
            none.contains("not measured") && none.contains("mpirun -np 2"),
            "{none}"
        );
        profile.rank_crossing = Some(multicomputer_runtime::RankCrossing {
            ranks: 2,
            bytes: 180,
            one_way_ns: 45_000.0,
            spread_ns: 5_000.0,
            samples: 200,
            measured_unix_s: 1_700_000_000,
        });
        let now = report(profile.clone(), true);
        assert!(
            now.starts_with("45.00 µs ± 5.00 µs") && now.contains("2 ranks"),
            "{now}"
        );
        assert!(!now.contains("earlier"), "{now}");
        let kept = report(profile, false);
        assert!(kept.contains("kept from an earlier calibration"), "{kept}");
    }
}
