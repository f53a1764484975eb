//! Numeric CSV tables.

use super::{OutputError, write_atomic};
use std::path::Path;

/// Writes a CSV file with `header` and one row per entry of `rows`, numbers in full precision
/// (shortest round-trip representation).
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_csv(path: &Path, header: &[String], rows: &[Vec<f64>]) -> Result<(), OutputError> {
    let csv_err = |message: String| OutputError::Csv {
        path: path.to_path_buf(),
        message,
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).map_err(|e| csv_err(e.to_string()))?;
    for row in rows {
        w.write_record(row.iter().map(f64::to_string))
            .map_err(|e| csv_err(e.to_string()))?;
    }
    let bytes = w.into_inner().map_err(|e| csv_err(e.to_string()))?;
    write_atomic(path, &bytes).map_err(|source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    })
}
