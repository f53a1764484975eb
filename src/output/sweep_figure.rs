//! The summary figure of a family of solves (`vito sweep`): for each varied value, the solve
//! time of every instance over that value, one colour per status, so that where the family
//! fails and where it is slow read off the same panels.

use super::{Formats, LinePlot, OutputError, Series, write_line_plot};
use std::path::{Path, PathBuf};

/// One instance of a family: its varied values, its status and its solve time.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    /// The value of each varied key.
    pub values: Vec<f64>,
    /// `Converged`, another solver status, or `Error`.
    pub status: String,
    /// Solve time (s).
    pub solve_s: f64,
}

/// Writes one figure per key of `keys`, `<stem>-<key>.svg` (and `.png` with `formats.raster`):
/// solve time over that key's value, the instances of each status as dots of one colour
/// (statuses in order of first appearance, `Converged` first), titled `title`. Returns the
/// files written.
///
/// # Errors
/// As [`write_line_plot`].
pub fn write_sweep_figure(
    stem: &Path,
    title: &str,
    keys: &[String],
    points: &[SweepPoint],
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    let mut statuses: Vec<&str> = Vec::new();
    if points.iter().any(|p| p.status == "Converged") {
        statuses.push("Converged");
    }
    for p in points {
        if !statuses.contains(&p.status.as_str()) {
            statuses.push(&p.status);
        }
    }
    let mut files = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        let series: Vec<Series> = statuses
            .iter()
            .map(|&status| {
                let members: Vec<&SweepPoint> =
                    points.iter().filter(|p| p.status == status).collect();
                Series {
                    label: format!("{status} ({})", members.len()),
                    // A point between two non-finite ones is drawn as a dot.
                    points: members
                        .iter()
                        .flat_map(|p| [(p.values[k], p.solve_s), (f64::NAN, f64::NAN)])
                        .collect(),
                }
            })
            .collect();
        let plot = LinePlot {
            title,
            x_label: key,
            y_label: "solve time (s)",
            series: &series,
            log_y: false,
        };
        let name = format!(
            "{}-{key}",
            stem.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        );
        files.extend(write_line_plot(&stem.with_file_name(name), &plot, formats)?);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_status_is_one_series_of_dots() {
        let dir = std::env::temp_dir().join(format!("vito-sweep-figure-{}", std::process::id()));
        let point = |x: f64, status: &str, t: f64| SweepPoint {
            values: vec![x, -x],
            status: status.into(),
            solve_s: t,
        };
        let points = [
            point(0.1, "MaxIterations", 9.0),
            point(0.2, "Converged", 2.0),
            point(0.3, "Converged", 3.0),
            point(0.4, "Error", 0.0),
        ];
        let keys = ["a.b".to_string(), "c".to_string()];
        let files = write_sweep_figure(
            &dir.join("sweep"),
            "family",
            &keys,
            &points,
            Formats::default(),
        )
        .unwrap();
        assert_eq!(
            files,
            vec![dir.join("sweep-a.b.svg"), dir.join("sweep-c.svg")]
        );
        for (file, key) in files.iter().zip(&keys) {
            let svg = std::fs::read_to_string(file).unwrap();
            for label in [
                "Converged (2)",
                "MaxIterations (1)",
                "Error (1)",
                "solve time (s)",
                key.as_str(),
            ] {
                assert!(svg.contains(label), "{label} missing");
            }
            assert!(
                svg.find("Converged (2)") < svg.find("MaxIterations (1)"),
                "Converged comes first"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
