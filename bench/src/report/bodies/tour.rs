//! The tour: this host's costs, a small farm sweep, an emulation of more processors than
//! cores.

use anyhow::Result;
use serde::Serialize;

use super::{CalibrateReport, EmulateReport, SweepReport};
use crate::report::{Block, Body, Figure, Section};

/// What the tour reports (its three steps' reports, keyed as `tour --json` prints them).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TourReport {
    /// Step 1: the host's profile.
    pub(crate) profile: CalibrateReport,
    /// Step 2: the farm sweep's rows.
    pub(crate) farm: SweepReport,
    /// Step 3: the emulation.
    pub(crate) emulate: EmulateReport,
    /// Where step 2's files went.
    pub(crate) farm_folder: String,
}

impl Body for TourReport {
    fn title(&self) -> String {
        "multicomputer tour".into()
    }

    fn results(&self) -> Vec<Section> {
        let mut calibrate = vec![Block::Text(
            "1. This host's own message, wake-up and wait costs (saved as its machine profile):"
                .into(),
        )];
        calibrate.extend(self.profile.tables());
        let mut farm = vec![Block::Text(
            "2. Processor farms (the farm paper): M = 300 tasks of T_e = 1 ms, β_e = 50 µs, \
             β_f = 100 µs, on chains of 1–6 processors and binary trees of 1–3 levels, \
             measured beside the model:"
                .into(),
        )];
        farm.extend(self.farm.results().into_iter().flat_map(|s| s.blocks));
        farm.push(Block::Text(format!(
            "   files: {} (CSV, JSON, plots, an HTML report)",
            self.farm_folder
        )));
        let emulate = vec![
            Block::Text(
                "3. 64 emulated processors on this host's cores, each occupying 2 ms × 50 rounds:"
                    .into(),
            ),
            Block::Table(self.emulate.table()),
            Block::Text(
                "Next: `multicomputer --help`; `multicomputer farm --help`; \
                 `multicomputer sweep farm --topologies chain:1-16 --te 1ms,10ms`."
                    .into(),
            ),
        ];
        vec![
            Section::results("1. This host", calibrate),
            Section::results("2. Processor farms", farm),
            Section::results("3. More processors than cores", emulate),
        ]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        self.farm.figures()
    }
}
