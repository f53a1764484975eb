//! Reading a result directory back: the parts of `report.json` the pictures need and the
//! motion in `trajectory.csv`, matched column by column against the robot.

use super::OutputError;
use super::recorded::{RobotRecord, TargetRecord};
use super::scene::Motion;
use crate::contact::Terrain;
use crate::model::Model;
use crate::spatial::Vec3;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

/// What the pictures read from `report.json` of a solve or a simulation (older reports lack
/// the robot file, base, targets and terrain).
#[derive(Clone, Debug, Deserialize)]
pub struct RecordedReport {
    /// `solve` or `simulation` (absent: a solve).
    #[serde(default)]
    pub kind: Option<String>,
    /// Problem or simulation name.
    #[serde(default)]
    pub problem: String,
    /// The robot.
    #[serde(flatten)]
    pub robot: RobotRecord,
    /// Transcription of a solve.
    #[serde(default)]
    pub transcription: Option<String>,
    /// Integrator of a simulation.
    #[serde(default)]
    pub integrator: Option<String>,
    /// Time step of a simulation (s).
    #[serde(default)]
    pub dt: Option<f64>,
    /// Outcome.
    #[serde(default)]
    pub status: Option<String>,
    /// Final objective of a solve.
    #[serde(default)]
    pub objective: Option<f64>,
    /// Frame-position targets.
    #[serde(default)]
    pub targets: Vec<TargetRecord>,
    /// Terrain.
    #[serde(default)]
    pub terrain: Option<Terrain>,
}

impl RecordedReport {
    /// What the motion is called in a comparison: the transcription or the integrator.
    pub fn label(&self) -> String {
        self.transcription
            .clone()
            .or_else(|| self.integrator.clone())
            .unwrap_or_else(|| "motion".into())
    }

    /// Lines of facts about the result.
    pub fn info(&self) -> Vec<String> {
        let mut lines = Vec::new();
        match self.kind.as_deref() {
            Some("simulation") => lines.push(format!(
                "simulation, {} integrator{}",
                self.integrator.as_deref().unwrap_or("?"),
                self.dt
                    .map_or_else(String::new, |dt| format!(", dt = {dt} s"))
            )),
            _ => lines.push(format!(
                "solve, {}",
                self.transcription.as_deref().unwrap_or("?")
            )),
        }
        if let Some(s) = &self.status {
            lines.push(match self.objective {
                Some(o) => format!("{s}, objective {o:.6e}"),
                None => s.clone(),
            });
        }
        lines
    }
}

/// Reads `report.json`.
///
/// # Errors
/// [`OutputError::Read`] naming the file when it is missing or is not a vito report.
pub fn read_report(path: &Path) -> Result<RecordedReport, OutputError> {
    let text = std::fs::read_to_string(path).map_err(|e| OutputError::Read {
        path: path.to_path_buf(),
        message: format!("cannot read: {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| OutputError::Read {
        path: path.to_path_buf(),
        message: format!("not a vito report: {e}"),
    })
}

/// Column names listed in a message: the first few and how many more.
fn listed(names: &[&str]) -> String {
    const SHOWN: usize = 6;
    let mut s = names
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

/// Reads the motion of `model` from the CSV file at `path`: `t`, a `q_<joint>` column for
/// every joint and no other `q_` column, and for the named contact points (`contacts`, in
/// scene order) the world force `f_<point>_x`, `f_<point>_y`, `f_<point>_z` or, without them,
/// the normal force `fn_<point>` along +z. Other columns are ignored.
///
/// # Errors
/// [`OutputError::Read`] naming the file, and the column or line, when a column is missing,
/// names no joint or contact point of the robot, or a value is not a number.
pub fn read_motion(
    path: &Path,
    model: &Model,
    contacts: &[String],
    label: &str,
) -> Result<Motion, OutputError> {
    let err = |message: String| OutputError::Read {
        path: path.to_path_buf(),
        message,
    };
    let mut reader = csv::Reader::from_path(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| err(e.to_string()))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let column: HashMap<&str, usize> = header
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), i))
        .collect();
    let robot = model.name();
    let Some(&t_col) = column.get("t") else {
        return Err(err(format!(
            "no column t (the columns are {})",
            listed(&header.iter().map(String::as_str).collect::<Vec<_>>())
        )));
    };
    let names = model.joint_names();
    if let Some(extra) = header
        .iter()
        .filter_map(|h| h.strip_prefix("q_"))
        .find(|j| !names.iter().any(|n| n == j))
    {
        return Err(err(format!(
            "column q_{extra} is not a joint of robot '{robot}' (its {} joints are {}): \
             is this the robot of the result?",
            names.len(),
            listed(&names.iter().map(String::as_str).collect::<Vec<_>>())
        )));
    }
    let q_cols =
        names
            .iter()
            .map(|j| {
                column.get(format!("q_{j}").as_str()).copied().ok_or_else(|| {
                err(format!(
                    "no column q_{j} for joint '{j}' of robot '{robot}': is this the robot of \
                     the result?"
                ))
            })
            })
            .collect::<Result<Vec<usize>, _>>()?;
    for h in &header {
        let point = h.strip_prefix("fn_").or_else(|| {
            h.strip_prefix("f_").and_then(|r| {
                r.strip_suffix("_x")
                    .or(r.strip_suffix("_y"))
                    .or(r.strip_suffix("_z"))
            })
        });
        if point.is_some_and(|p| !contacts.iter().any(|c| c == p)) {
            return Err(err(format!(
                "column {h} names no contact point of robot '{robot}' (it has {}): is this \
                 the robot of the result?",
                if contacts.is_empty() {
                    "none".to_string()
                } else {
                    listed(&contacts.iter().map(String::as_str).collect::<Vec<_>>())
                }
            )));
        }
    }
    // Each contact point with a force: its index and the columns of (x, y, z), or of the
    // normal force alone.
    enum ForceColumns {
        World([usize; 3]),
        Normal(usize),
    }
    let force_cols: Vec<(usize, ForceColumns)> = contacts
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let get = |name: String| column.get(name.as_str()).copied();
            match (
                get(format!("f_{c}_x")),
                get(format!("f_{c}_y")),
                get(format!("f_{c}_z")),
            ) {
                (Some(x), Some(y), Some(z)) => Some((i, ForceColumns::World([x, y, z]))),
                _ => get(format!("fn_{c}")).map(|n| (i, ForceColumns::Normal(n))),
            }
        })
        .collect();
    let mut motion = Motion {
        label: label.to_string(),
        forces: force_cols.iter().map(|(i, _)| (*i, Vec::new())).collect(),
        ..Motion::default()
    };
    for (row, record) in reader.records().enumerate() {
        let line = row + 2;
        let record = record.map_err(|e| err(format!("line {line}: {e}")))?;
        let value = |c: usize| -> Result<f64, OutputError> {
            let text = record.get(c).unwrap_or("").trim();
            text.parse::<f64>().map_err(|_| {
                err(format!(
                    "line {line}, column {}: '{text}' is not a number",
                    header[c]
                ))
            })
        };
        motion.times.push(value(t_col)?);
        motion
            .q
            .push(q_cols.iter().map(|&c| value(c)).collect::<Result<_, _>>()?);
        for ((_, cols), (_, series)) in force_cols.iter().zip(&mut motion.forces) {
            series.push(match cols {
                ForceColumns::World([x, y, z]) => Vec3::new(value(*x)?, value(*y)?, value(*z)?),
                ForceColumns::Normal(n) => Vec3::new(0.0, 0.0, value(*n)?),
            });
        }
    }
    if motion.times.is_empty() {
        return Err(err("has a header but no rows".into()));
    }
    Ok(motion)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BaseKind, PendulumSpec, parse_urdf, pendulum_urdf};
    use crate::output::plot::tests::temp_dir;

    fn pendulum(links: usize) -> Model {
        let urdf = pendulum_urdf(&PendulumSpec {
            links,
            ..PendulumSpec::default()
        })
        .unwrap();
        parse_urdf(&urdf, "p", BaseKind::Fixed).unwrap()
    }

    fn read(text: &str, model: &Model, contacts: &[String]) -> Result<Motion, String> {
        // One directory per call: the tests run in parallel.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = temp_dir(&format!("result-dir-{call}"));
        let path = dir.join("trajectory.csv");
        std::fs::write(&path, text).unwrap();
        let r = read_motion(&path, model, contacts, "m").map_err(|e| e.to_string());
        std::fs::remove_dir_all(&dir).unwrap();
        r
    }

    #[test]
    fn columns_are_matched_by_name() {
        let m = read(
            "t,v_joint1,q_joint2,q_joint1,u_joint1\n0,9,0.5,0.25,1\n0.1,9,0.75,-1e-3,1\n",
            &pendulum(2),
            &[],
        )
        .unwrap();
        assert_eq!(m.times, vec![0.0, 0.1]);
        assert_eq!(m.q, vec![vec![0.25, 0.5], vec![-1e-3, 0.75]]);
    }

    #[test]
    fn forces_come_from_world_or_normal_columns() {
        let contacts = ["a".to_string(), "b".to_string(), "c".to_string()];
        let m = read(
            "t,q_joint1,fn_a,f_a_x,f_a_y,f_a_z,fn_b\n0,0,5,1,2,3,7\n",
            &pendulum(1),
            &contacts,
        )
        .unwrap();
        assert_eq!(
            m.forces,
            vec![
                (0, vec![Vec3::new(1.0, 2.0, 3.0)]),
                (1, vec![Vec3::new(0.0, 0.0, 7.0)])
            ]
        );
    }

    #[test]
    fn mismatched_columns_are_one_line_errors_naming_the_file() {
        let p2 = pendulum(2);
        for (text, contacts, says) in [
            (
                "t,q_joint1\n0,0\n",
                &[][..],
                "no column q_joint2 for joint 'joint2'",
            ),
            (
                "t,q_joint1,q_joint2,q_joint3\n0,0,0,0\n",
                &[],
                "q_joint3 is not a joint",
            ),
            ("time,q_joint1,q_joint2\n0,0,0\n", &[], "no column t"),
            (
                "t,q_joint1,q_joint2\n0,x,0\n",
                &[],
                "line 2, column q_joint1: 'x'",
            ),
            ("t,q_joint1,q_joint2\n0,0\n", &[], "line 2"),
            ("t,q_joint1,q_joint2\n", &[], "no rows"),
            (
                "t,q_joint1,q_joint2,fn_toe\n0,0,0,1\n",
                &[],
                "fn_toe names no contact",
            ),
        ] {
            let e = read(text, &p2, contacts).unwrap_err();
            assert!(e.contains("trajectory.csv") && e.contains(says), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
