//! YAML input files: their serde schemas and validation into ready-to-run problems.
//!
//! Unknown keys are refused. Every error names the file and the field path (`torques.times[2]`)
//! and, where the YAML parser gives it, the line and column, and says what is allowed.

mod optimization;
mod simulation;
mod stance;
mod terrain;

pub use optimization::{
    BodyPoint, ComplementarityMethod, Costs, DEFAULT_PENALTY_WEIGHT, DEFAULT_SMOOTHING_START,
    FrameTarget, InitialGuess, PathConstraint, ProblemOverrides, Ranges, Terminal, TimeSpec,
    Tracking, TrajectoryProblem, TranscriptionKind, load_problem,
};
pub use simulation::{
    Integrator, Interpolation, SimulationOverrides, SimulationProblem, TorqueSchedule,
    load_simulation,
};
pub use stance::Stance;

use crate::model::{Model, UrdfError};
use crate::spatial::Vec3;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An input file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProblemError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The YAML does not parse or does not fit the schema (message has the field path, line and
    /// column).
    #[error("{path}: {message}")]
    Yaml {
        /// The file.
        path: String,
        /// The parser's message.
        message: String,
    },
    /// A field has a value that is not allowed.
    #[error("{path}: {field}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The field path.
        field: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// The robot file named by the problem could not be loaded.
    #[error("{path}: robot: {source}")]
    Robot {
        /// The problem file.
        path: String,
        /// The URDF error.
        source: UrdfError,
    },
}

/// Reads and parses a YAML file into `T`.
pub(crate) fn read_yaml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ProblemError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ProblemError::Read {
        path: shown.clone(),
        source,
    })?;
    serde_yaml_ng::from_str(&text).map_err(|e| ProblemError::Yaml {
        path: shown,
        message: e.to_string(),
    })
}

/// A path in a problem file, relative to the file's directory.
pub(crate) fn relative_to(file: &Path, target: &str) -> PathBuf {
    let t = Path::new(target);
    if t.is_absolute() {
        t.to_path_buf()
    } else {
        file.parent().unwrap_or_else(|| Path::new(".")).join(t)
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
