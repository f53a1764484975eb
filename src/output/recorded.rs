//! What a result's `report.json` records for the pictures to be drawn again from the result
//! directory alone (`vito view`): the robot file and base, the contact points, the targets,
//! and the terrain when the problem has one.

use super::OutputError;
use crate::model::{BaseKind, LockReason, Model, load_urdf};
use crate::problem::{TimeSpec, TrajectoryProblem};
use crate::spatial::Vec3;
use crate::terms::Target;
use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};

/// A contact point as recorded: the body's link, the offset in its frame and the radius.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactRecord {
    /// Point name (the `fn_<name>` and `f_<name>_x` columns).
    pub name: String,
    /// The link of the body it is fixed on.
    pub body: String,
    /// Position in that body's frame (m).
    pub offset: [f64; 3],
    /// Radius of its sphere (m).
    #[serde(default)]
    pub radius: f64,
}

/// What a result records of its robot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobotRecord {
    /// Robot name (from the URDF).
    pub robot: String,
    /// The URDF file, relative to the result directory (or absolute).
    #[serde(default)]
    pub robot_file: Option<String>,
    /// How the root is attached.
    #[serde(default)]
    pub base: Option<BaseKind>,
    /// The contact points.
    #[serde(default)]
    pub contact_points: Vec<ContactRecord>,
    /// The joints the problem locked (`lock:`), with their values: the result's model is the
    /// URDF's reduced by them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locked: Vec<(String, f64)>,
}

impl RobotRecord {
    /// The record of `model`, read from `robot_file`, for a result written to `dir`.
    pub fn new(model: &Model, robot_file: &Path, dir: &Path) -> Self {
        Self {
            robot: model.name().to_string(),
            robot_file: Some(path_from(dir, robot_file).display().to_string()),
            base: Some(model.base()),
            contact_points: model
                .contact_points()
                .iter()
                .map(|c| ContactRecord {
                    name: c.name.clone(),
                    body: model.joint(c.body).body.clone(),
                    offset: c.offset.into(),
                    radius: c.radius,
                })
                .collect(),
            locked: model
                .report()
                .locked
                .iter()
                .filter(|l| l.reason == LockReason::Requested)
                .map(|l| (l.joint.clone(), l.value))
                .collect(),
        }
    }

    /// The result's model from its URDF `path` and `base`: reduced by the recorded locks,
    /// with the recorded contact points the URDF lacks (a problem's `contact_points:`).
    ///
    /// # Errors
    /// [`OutputError::Robot`] naming the file, when it cannot be read or the record does not
    /// fit it.
    pub fn model(&self, path: &Path, base: BaseKind) -> Result<Model, OutputError> {
        let fault = |what: String| OutputError::Robot(format!("{}: {what}", path.display()));
        let urdf = load_urdf(path, base).map_err(|e| OutputError::Robot(e.to_string()))?;
        let locks: Vec<(String, Option<f64>)> = self
            .locked
            .iter()
            .map(|(joint, value)| (joint.clone(), Some(*value)))
            .collect();
        let mut model = if locks.is_empty() {
            urdf
        } else {
            urdf.locked(&locks)
                .map_err(|e| fault(format!("the result's lock: {e}")))?
        };
        for c in &self.contact_points {
            if !model.contact_points().iter().any(|p| p.name == c.name) {
                model = model
                    .with_contact_point(&c.name, &c.body, Vec3::from(c.offset), c.radius)
                    .map_err(|e| fault(format!("the result's contact point '{}': {e}", c.name)))?;
            }
        }
        Ok(model)
    }
}

/// Whether a target is a cost or a constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// A frame-position cost (`costs.targets`).
    Cost,
    /// A frame-position constraint.
    Constraint,
}

/// A frame-position target of a problem.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetRecord {
    /// The frame (or contact point) it applies to.
    pub frame: String,
    /// Cost or constraint.
    pub kind: TargetKind,
    /// Target world position (m).
    pub position: [f64; 3],
    /// Constrained world axes (`None`: all three).
    #[serde(default)]
    pub axes: Option<Vec<[f64; 3]>>,
    /// When (s); `None`: along the whole path.
    #[serde(default)]
    pub time: Option<f64>,
}

/// The frame-position costs and constraints of `prob`, with times snapped to the nearest of
/// `point_times` (where the transcription applies them).
pub fn targets(prob: &TrajectoryProblem, point_times: &[f64]) -> Vec<TargetRecord> {
    let at = |time: TimeSpec| {
        let nearest = time.nearest(point_times, prob.duration);
        point_times
            .get(nearest)
            .copied()
            .unwrap_or(time.seconds(prob.duration))
    };
    let record = |kind: TargetKind| {
        move |t: Target| TargetRecord {
            frame: t.frame,
            kind,
            position: t.position.into(),
            axes: (t.axes.len() < 3).then(|| t.axes.iter().map(|a| (*a).into()).collect()),
            time: t.time.map(at),
        }
    };
    let costs = prob
        .costs
        .iter()
        .flat_map(|c| c.targets())
        .map(record(TargetKind::Cost));
    let constraints = prob
        .constraints
        .iter()
        .flat_map(|c| c.targets())
        .map(record(TargetKind::Constraint));
    costs.chain(constraints).collect()
}

/// `file` as seen from `dir`: a relative path when both lie under one directory, else
/// absolute (a path that cannot be resolved is returned as it is).
pub fn path_from(dir: &Path, file: &Path) -> PathBuf {
    let (Ok(dir), Ok(file)) = (absolute(dir), absolute(file)) else {
        return file.to_path_buf();
    };
    let d: Vec<Component> = dir.components().collect();
    let f: Vec<Component> = file.components().collect();
    let common = d.iter().zip(&f).take_while(|(a, b)| a == b).count();
    if common <= 1 {
        return file;
    }
    let mut rel = PathBuf::new();
    for _ in common..d.len() {
        rel.push("..");
    }
    for c in &f[common..] {
        rel.push(c);
    }
    rel
}

/// `p` absolute and without `.` or `..` (symbolic links of existing parts resolved).
fn absolute(p: &Path) -> std::io::Result<PathBuf> {
    let p = std::path::absolute(p)?;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out = out.canonicalize().unwrap_or(out);
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Ok(out.canonicalize().unwrap_or(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robot_paths_are_kept_relative_to_the_result() {
        let root = std::env::temp_dir().join(format!("vito-recorded-{}", std::process::id()));
        let robots = root.join("robots");
        let results = root.join("results").join("x");
        std::fs::create_dir_all(&robots).unwrap();
        std::fs::create_dir_all(&results).unwrap();
        let urdf = robots.join("r.urdf");
        std::fs::write(&urdf, "<robot/>").unwrap();
        let via = root
            .join("problems")
            .join("..")
            .join("robots")
            .join("r.urdf");
        let rel = path_from(&results, &via);
        assert_eq!(rel, Path::new("../../robots/r.urdf"));
        assert_eq!(
            results.join(&rel).canonicalize().unwrap(),
            urdf.canonicalize().unwrap()
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn terrain_reads_the_contact_format() {
        let t: crate::contact::Terrain = serde_json::from_str(
            r#"{"friction": 0.8, "ground": 0.0, "edge_radius": 0.01,
                "boxes": [{"x": [0.5, 0.8], "y": null, "top": 0.1}],
                "gaps": [{"x": [1.0, 1.2], "y": [-0.5, 0.5], "depth": 0.3}]}"#,
        )
        .unwrap();
        assert_eq!(t.boxes[0].y, None);
        assert_eq!(t.gaps[0].y, Some([-0.5, 0.5]));
        assert_eq!(t.friction, 0.8);
    }
}
