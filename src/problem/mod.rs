//! YAML input files: their serde schemas and validation into ready-to-run problems.
//!
//! Unknown keys are refused. Every error names the file and the field path (`torques.times[2]`)
//! and, where the YAML parser gives it, the line and column, and says what is allowed.

mod optimization;
mod recording;
mod simulation;
mod stance;
pub mod sweep;
mod terrain;

pub(crate) use optimization::fnv1a;
pub use optimization::{
    ComplementarityMethod, DEFAULT_PENALTY_WEIGHT, DEFAULT_SMOOTHING_START, InitialGuess,
    ProblemOverrides, SolvedVariables, TrajectoryProblem, TranscriptionKind, anchor_paths,
    load_problem, load_problem_str,
};
pub use recording::Recording;
pub use simulation::{
    Integrator, Interpolation, SimulationOverrides, SimulationProblem, TorqueSchedule,
    load_simulation, load_simulation_str,
};
pub use stance::Stance;

use crate::model::Model;
pub use crate::schema::{BodyPoint, ProblemError, Ranges, TimeSpec};
use crate::spatial::Vec3;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reads a text file; the error names it.
pub(crate) fn read_text(path: &Path) -> Result<String, ProblemError> {
    std::fs::read_to_string(path).map_err(|source| ProblemError::Read {
        path: path.display().to_string(),
        source,
    })
}

/// Parses YAML text into `T`; errors name the file `shown` it came from.
pub(crate) fn parse_yaml<T: serde::de::DeserializeOwned>(
    text: &str,
    shown: &str,
) -> Result<T, ProblemError> {
    serde_yaml_ng::from_str(text).map_err(|e| ProblemError::Yaml {
        path: shown.to_string(),
        message: e.to_string(),
    })
}

/// The directory a file's relative paths start from: its parent (`.` for none).
pub(crate) fn base_dir_of(file: &Path) -> &Path {
    file.parent().unwrap_or_else(|| Path::new("."))
}

/// A path in a problem file, relative to `base_dir` (the file's directory).
pub(crate) fn relative_to(base_dir: &Path, target: &str) -> PathBuf {
    let t = Path::new(target);
    if t.is_absolute() {
        t.to_path_buf()
    } else {
        base_dir.join(t)
    }
}

/// `contact_points: [{name, frame, offset, radius}]`: a contact point declared by the problem.
#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContactPointFile {
    name: String,
    frame: String,
    #[serde(default)]
    offset: [f64; 3],
    #[serde(default)]
    radius: f64,
}

/// The model edits a problem or simulation file may ask for, in the order they are applied:
/// `lock: {joint: value}` (a null value: the default), `uncouple: [mimic joints]` and
/// `contact_points`.
pub(crate) struct ModelEdits<'a> {
    pub lock: &'a BTreeMap<String, Option<f64>>,
    pub uncouple: &'a [String],
    pub contact_points: &'a [ContactPointFile],
}

impl ModelEdits<'_> {
    /// Applies the edits to `model`; errors name the file `path` and the field.
    pub fn apply(&self, model: Model, path: &str) -> Result<Model, ProblemError> {
        let invalid = |field: String, message: String| ProblemError::Invalid {
            path: path.to_string(),
            field,
            message,
        };
        let locks: Vec<(String, Option<f64>)> =
            self.lock.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let mut model = if locks.is_empty() {
            model
        } else {
            model
                .locked(&locks)
                .map_err(|m| invalid("lock".into(), m))?
        };
        model = model
            .uncoupled(self.uncouple)
            .map_err(|m| invalid("uncouple".into(), m))?;
        for (k, c) in self.contact_points.iter().enumerate() {
            model = model
                .with_contact_point(&c.name, &c.frame, Vec3::from(c.offset), c.radius)
                .map_err(|m| invalid(format!("contact_points[{k}]"), m))?;
        }
        Ok(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROBLEM: &str = "problems/pendulum_swingup_2.yaml";

    #[test]
    fn a_problem_from_text_is_the_problem_from_its_file() {
        let file = load_problem(Path::new(PROBLEM), &ProblemOverrides::default()).unwrap();
        let text = std::fs::read_to_string(PROBLEM).unwrap();
        let from_text = load_problem_str(
            &text,
            Path::new("problems"),
            PROBLEM,
            &ProblemOverrides::default(),
        )
        .unwrap();
        assert_eq!(from_text.hash, file.hash);
        assert_eq!(from_text.robot_file, file.robot_file);
        assert_eq!(
            from_text.robot_file,
            Path::new("problems/../robots/pendulum2.urdf")
        );
        assert_eq!(
            (from_text.stages, from_text.duration),
            (file.stages, file.duration)
        );
        assert_eq!(from_text.cost_kinds(), file.cost_kinds());
        // JSON is YAML too, and the robot path starts from the base directory given.
        let json = r#"{"name": "p", "robot": "pendulum2.urdf", "duration": 1.5, "stages": 5,
            "bounds": {"q": [-.inf, .inf]}}"#;
        let p = load_problem_str(
            json,
            Path::new("robots"),
            "<text>",
            &ProblemOverrides::default(),
        )
        .unwrap();
        assert_eq!(p.robot_file, Path::new("robots/pendulum2.urdf"));
        assert_eq!(p.duration, 1.5);
        assert_eq!(p.q_bounds.upper, vec![f64::INFINITY; 2]);
        let e = load_problem_str(json, Path::new("."), "<text>", &ProblemOverrides::default())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("<text>: robot: "), "{e}");
        let e = load_problem_str(
            "name: [",
            Path::new("."),
            "<text>",
            &ProblemOverrides::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("<text>: "), "{e}");
    }

    #[test]
    fn a_simulation_from_text_is_named_after_its_shown_file() {
        let text = "robot: pendulum2.urdf\ndt: 0.01\nduration: 0.5\nq0: [0.1, 0.2]\n";
        let sim = load_simulation_str(
            text,
            Path::new("robots"),
            "somewhere/swing.yaml",
            &SimulationOverrides::default(),
        )
        .unwrap();
        assert_eq!(sim.name, "swing");
        assert_eq!(sim.robot_file, Path::new("robots/pendulum2.urdf"));
        assert_eq!(sim.options.steps, 50);
        let e = load_simulation_str(
            &text.replace("0.01", "-1"),
            Path::new("robots"),
            "swing.yaml",
            &SimulationOverrides::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("swing.yaml: dt: "), "{e}");
    }
}
