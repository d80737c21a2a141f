//! The CSV exporter: a sweep's rows (one per cell, every column), or a single run's main
//! table.

use anyhow::Result;
use serde::Serialize;

/// Rows of a typed record as CSV, a header from the first.
pub(crate) fn rows<T: Serialize>(rows: &[T]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    Ok(w.into_inner()?)
}

/// A report that is not a table of cells as CSV: `field,value`, one row per value of its
/// JSON form (`measured.speedup`, `fractions_by_level[0]`), numbers as numbers in the units
/// their names give — never the display strings of the tables for people (`173.750 ms`).
pub(crate) fn fields(body: &serde_json::Value) -> Result<Vec<u8>> {
    fn walk(path: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        use serde_json::Value;
        match v {
            Value::Null => {}
            Value::Bool(b) => out.push((path.to_string(), b.to_string())),
            Value::Number(n) => out.push((path.to_string(), n.to_string())),
            Value::String(s) => out.push((path.to_string(), s.clone())),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(&format!("{path}[{i}]"), item, out);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&p, item, out);
                }
            }
        }
    }
    let mut rows = Vec::new();
    walk("", body, &mut rows);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["field", "value"])?;
    for (field, value) in rows {
        w.write_record([field, value])?;
    }
    Ok(w.into_inner()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_numbers_with_their_paths() {
        let v = serde_json::json!({
            "makespan_s": 0.17375,
            "measured": {"speedup": 2.5, "label": "x"},
            "levels": [0.25, 0.75],
            "none": null
        });
        let text = String::from_utf8(fields(&v).unwrap()).unwrap();
        assert_eq!(
            text,
            "field,value\nlevels[0],0.25\nlevels[1],0.75\nmakespan_s,0.17375\n\
             measured.label,x\nmeasured.speedup,2.5\n"
        );
    }
}
