//! The CSV exporter: a sweep's rows (one per cell, every column), or a single run's main
//! table.

use anyhow::Result;
use serde::Serialize;

use super::document::Table;

/// Rows of a typed record as CSV, a header from the first.
pub(crate) fn rows<T: Serialize>(rows: &[T]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    Ok(w.into_inner()?)
}

/// A table as CSV.
pub(crate) fn table(t: &Table) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&t.header)?;
    for r in &t.rows {
        w.write_record(r)?;
    }
    Ok(w.into_inner()?)
}
