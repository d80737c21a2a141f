//! A user's CSV table read as named columns of numbers. Column names are matched ignoring
//! case and surrounding spaces; a name given twice, a missing column or a cell that is not a
//! number is an error naming the row (as a spreadsheet numbers it: the header is row 1) and
//! the column. A UTF-8 byte-order mark is ignored.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// Why a table could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ColumnsError(pub(crate) String);

impl fmt::Display for ColumnsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ColumnsError {}

/// A CSV table with a header row.
pub(crate) struct Columns {
    /// Lower-cased, trimmed column name → index.
    headers: HashMap<String, usize>,
    /// The names as written, in order.
    names: Vec<String>,
    rows: Vec<csv::StringRecord>,
}

fn key(name: &str) -> String {
    name.trim().to_lowercase()
}

impl Columns {
    /// Reads a CSV file of at most [`super::read::MAX_FILE_BYTES`].
    pub(crate) fn read(path: &Path) -> Result<Self, ColumnsError> {
        let bytes =
            super::read::read_limited(path, super::read::MAX_FILE_BYTES).map_err(ColumnsError)?;
        Self::parse(&bytes)
    }

    /// Parses CSV text.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, ColumnsError> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let mut r = csv::Reader::from_reader(bytes);
        let err = |e: csv::Error| ColumnsError(e.to_string());
        let names: Vec<String> = r
            .headers()
            .map_err(err)?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        let mut headers = HashMap::new();
        for (i, h) in names.iter().enumerate() {
            if headers.insert(key(h), i).is_some() {
                return Err(ColumnsError(format!(
                    "column '{h}' appears twice in the header (names are matched ignoring case)"
                )));
            }
        }
        let rows = r.records().collect::<Result<Vec<_>, _>>().map_err(err)?;
        if rows.is_empty() {
            return Err(ColumnsError("no data rows".into()));
        }
        Ok(Self {
            headers,
            names,
            rows,
        })
    }

    /// Whether a column exists.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.headers.contains_key(&key(name))
    }

    /// The first of `names` that exists.
    pub(crate) fn first_of<'a>(&self, names: &[&'a str]) -> Option<&'a str> {
        names.iter().copied().find(|n| self.has(n))
    }

    /// A column's cells as text, trimmed; `None` for a missing column.
    pub(crate) fn texts(&self, name: &str) -> Option<Vec<&str>> {
        let &i = self.headers.get(&key(name))?;
        Some(
            self.rows
                .iter()
                .map(|rec| rec.get(i).unwrap_or("").trim())
                .collect(),
        )
    }

    /// A column of numbers; a missing column or a cell that is not a number names itself.
    pub(crate) fn numbers(&self, name: &str) -> Result<Vec<f64>, ColumnsError> {
        let Some(&i) = self.headers.get(&key(name)) else {
            return Err(ColumnsError(format!(
                "missing column '{name}' (columns: {})",
                self.names.join(", ")
            )));
        };
        self.rows
            .iter()
            .enumerate()
            .map(|(r, rec)| {
                let cell = rec.get(i).unwrap_or("").trim();
                cell.parse::<f64>().map_err(|_| {
                    ColumnsError(format!(
                        "row {} column '{name}': '{cell}' is not a number",
                        r + 2
                    ))
                })
            })
            .collect()
    }

    /// A column of whole numbers in `range` (counts, sizes, loop counts): a fraction, a
    /// negative number, NaN or a value out of range names its row and column.
    pub(crate) fn whole(
        &self,
        name: &str,
        range: std::ops::RangeInclusive<u64>,
    ) -> Result<Vec<u64>, ColumnsError> {
        let (lo, hi) = (*range.start(), *range.end());
        self.numbers(name)?
            .into_iter()
            .enumerate()
            .map(|(r, v)| {
                if v.is_finite() && v.fract() == 0.0 && v >= lo as f64 && v <= hi as f64 {
                    Ok(v as u64)
                } else {
                    Err(ColumnsError(format!(
                        "row {} column '{name}': {v} is not a whole number in {lo}..={hi}",
                        r + 2
                    )))
                }
            })
            .collect()
    }

    /// A column of times ≥ 0 (finite numbers); a cell that is not names its row and column.
    pub(crate) fn times(&self, name: &str) -> Result<Vec<f64>, ColumnsError> {
        let v = self.numbers(name)?;
        match v.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
            Some(i) => Err(ColumnsError(format!(
                "row {} column '{name}': {} is not a time ≥ 0",
                i + 2,
                v[i]
            ))),
            None => Ok(v),
        }
    }

    /// The mean of a column of times ≥ 0, if the table has the column.
    pub(crate) fn mean_time(&self, name: &str) -> Result<Option<f64>, ColumnsError> {
        if !self.has(name) {
            return Ok(None);
        }
        let v = self.times(name)?;
        Ok(Some(v.iter().sum::<f64>() / v.len() as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_ignoring_case_and_spaces() {
        let t = Columns::parse(b"\xEF\xBB\xBFP, Time_S \n2,1.5\n4,2.5\n").unwrap();
        assert_eq!(t.numbers("p").unwrap(), vec![2.0, 4.0]);
        assert_eq!(t.numbers("TIME_s").unwrap(), vec![1.5, 2.5]);
        assert!(t.has("time_s") && !t.has("ideal_s"));
        assert_eq!(t.first_of(&["ideal_s", "time_s"]), Some("time_s"));
    }

    #[test]
    fn errors_name_the_row_and_column() {
        let t = Columns::parse(b"a,b\n1,x\n").unwrap();
        let e = t.numbers("b").unwrap_err().0;
        assert_eq!(e, "row 2 column 'b': 'x' is not a number");
        let e = t.numbers("c").unwrap_err().0;
        assert!(e.starts_with("missing column 'c' (columns: a, b)"), "{e}");
        let e = Columns::parse(b"k,K\n1,2\n").err().unwrap().0;
        assert!(e.contains("appears twice"), "{e}");
        assert!(Columns::parse(b"a,b\n").is_err());
        let t = Columns::parse(b"a,b\n1,2\n3,-1\n").unwrap();
        assert_eq!(t.mean_time("a").unwrap(), Some(2.0));
        assert_eq!(t.mean_time("c").unwrap(), None);
        let e = t.times("b").unwrap_err().0;
        assert_eq!(e, "row 3 column 'b': -1 is not a time ≥ 0");
        let t = Columns::parse(b"k\n2\n2.5\n").unwrap();
        let e = t.whole("k", 1..=10).unwrap_err().0;
        assert_eq!(e, "row 3 column 'k': 2.5 is not a whole number in 1..=10");
        let t = Columns::parse(b"k\n2\n-1\n").unwrap();
        assert!(t.whole("k", 0..=10).unwrap_err().0.contains("row 3"));
        assert_eq!(
            Columns::parse(b"k\n2\n0\n")
                .unwrap()
                .whole("k", 0..=2)
                .unwrap(),
            vec![2, 0]
        );
    }
}
