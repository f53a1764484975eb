//! The pictures of a result directory: `view.html` (the 3-D viewer) and, with
//! [`Formats::raster`], `animation.gif` (the side view), drawn from the directory's
//! `report.json` and `trajectory.csv` alone, so that
//! `vito solve`, `vito simulate`, `vito compare` and `vito view` draw exactly the same thing.
//! A comparison directory (with `compare.json`) shows its solutions together.

use super::animation::write_animation;
use super::meshes::MeshPaths;
use super::recorded::RobotRecord;
use super::result_dir::{RecordedReport, read_motion, read_report};
use super::scene::{Scene, SceneInput};
use super::viewer::write_viewer;
use super::{Formats, OutputError};
use crate::model::{BaseKind, Model};
use crate::spatial::Vec3;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Where the robot comes from and where the pictures go, when not from the result itself.
#[derive(Clone, Debug, Default)]
pub struct ViewOptions {
    /// The URDF (instead of the report's `robot_file`).
    pub robot_file: Option<PathBuf>,
    /// The base (instead of the report's `base`; `fixed` when neither says).
    pub base: Option<BaseKind>,
    /// Output directory (instead of the result directory).
    pub output: Option<PathBuf>,
    /// Whether the side-view `animation.gif` is drawn too.
    pub formats: Formats,
    /// Folders that hold the ROS packages of the robot's meshes (`package://PKG/x` is looked
    /// for as `DIR/PKG/x` and `DIR/x`; relative names as `DIR/name`), looked in after the
    /// URDF's folder and the folders above it.
    pub package_path: Vec<PathBuf>,
}

#[derive(Deserialize)]
struct CompareEntry {
    transcription: String,
}

/// One solve or simulation read back.
struct Recorded {
    dir: PathBuf,
    report: RecordedReport,
}

fn read_recorded(dir: &Path) -> Result<Recorded, OutputError> {
    if !dir.is_dir() {
        return Err(OutputError::Read {
            path: dir.to_path_buf(),
            message: "no such directory".into(),
        });
    }
    let path = dir.join("report.json");
    if !path.is_file() {
        return Err(OutputError::Read {
            path,
            message: "missing: this is not a result directory (vito view takes a directory \
                      written by vito solve, simulate or compare)"
                .into(),
        });
    }
    Ok(Recorded {
        dir: dir.to_path_buf(),
        report: read_report(&path)?,
    })
}

/// The URDF of a result: the option's, else the report's (relative to the result directory).
fn robot_file(rec: &Recorded, opts: &ViewOptions) -> Result<PathBuf, OutputError> {
    if let Some(f) = &opts.robot_file {
        return Ok(f.clone());
    }
    match &rec.report.robot.robot_file {
        Some(f) => Ok(rec.dir.join(f)),
        None => Err(OutputError::Read {
            path: rec.dir.join("report.json"),
            message: format!(
                "records no robot_file (written by an older vito): name the URDF of robot '{}' \
                 with --robot FILE [--base fixed|planar|floating]",
                rec.report.robot.robot
            ),
        }),
    }
}

/// The contact points of the result: those its report records (placed on the model's bodies
/// by link name), else the model's own.
fn contacts(model: &Model, record: &RobotRecord) -> Vec<(String, usize, Vec3)> {
    let recorded: Option<Vec<_>> = record
        .contact_points
        .iter()
        .map(|c| {
            let body = model.joints().iter().position(|j| j.body == c.body)?;
            Some((c.name.clone(), body, Vec3::from(c.offset)))
        })
        .collect();
    match recorded {
        Some(r) if !r.is_empty() => r,
        _ => model
            .contact_points()
            .iter()
            .map(|c| (c.name.clone(), c.body, c.offset))
            .collect(),
    }
}

/// Removes `file` if it is older than any of `sources` (a picture of a motion since rewritten),
/// so that a result directory never shows a motion it does not hold.
fn remove_if_older(file: &Path, sources: &[PathBuf]) -> Result<(), OutputError> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(made) = modified(file) else {
        return Ok(());
    };
    if sources
        .iter()
        .any(|s| modified(s).is_some_and(|t| t > made))
    {
        std::fs::remove_file(file).map_err(|source| OutputError::Io {
            path: file.to_path_buf(),
            source,
        })?;
    }
    Ok(())
}

/// Writes `view.html`, and with `opts.formats.raster` `animation.gif`, for the result in `dir`
/// and returns their paths.
/// `model` is the robot when the caller has it (a solve or simulation just run); otherwise it
/// is loaded from the report's `robot_file` and `base` or from `opts`.
///
/// # Errors
/// An [`OutputError`] naming the file at fault: no result in `dir`, an unreadable report or
/// robot, CSV columns that do not match the robot, or a file that cannot be written.
pub fn write_views(
    dir: &Path,
    model: Option<&Model>,
    opts: &ViewOptions,
) -> Result<Vec<PathBuf>, OutputError> {
    let compare = dir.join("compare.json");
    let (records, title) = if compare.is_file() {
        let text = std::fs::read_to_string(&compare).map_err(|e| OutputError::Read {
            path: compare.clone(),
            message: format!("cannot read: {e}"),
        })?;
        let entries: Vec<CompareEntry> =
            serde_json::from_str(&text).map_err(|e| OutputError::Read {
                path: compare.clone(),
                message: format!("not a vito comparison: {e}"),
            })?;
        let records = entries
            .iter()
            .map(|e| read_recorded(&dir.join(&e.transcription)))
            .collect::<Result<Vec<_>, _>>()?;
        let labels: Vec<String> = records.iter().map(|r| r.report.label()).collect();
        let name = records.first().map_or("", |r| r.report.problem.as_str());
        let title = format!("{name}: {}", labels.join(" vs "));
        (records, title)
    } else {
        let rec = read_recorded(dir)?;
        let title = rec.report.problem.clone();
        (vec![rec], title)
    };
    let Some(first) = records.first() else {
        return Err(OutputError::Read {
            path: compare,
            message: "lists no solution".into(),
        });
    };
    let loaded;
    let (model, urdf_path) = match model {
        Some(m) => (m, robot_file(first, opts).ok()),
        None => {
            let path = robot_file(first, opts)?;
            let base = opts
                .base
                .or(first.report.robot.base)
                .unwrap_or(BaseKind::Fixed);
            loaded = first.report.robot.model(&path, base)?;
            (&loaded, Some(path))
        }
    };
    let urdf = urdf_path
        .as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let mesh_paths = MeshPaths {
        urdf_dir: urdf_path
            .as_ref()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf),
        package_path: opts.package_path.clone(),
    };
    let contacts = contacts(model, &first.report.robot);
    let names: Vec<String> = contacts.iter().map(|c| c.0.clone()).collect();
    let motions = records
        .iter()
        .map(|r| {
            read_motion(
                &r.dir.join("trajectory.csv"),
                model,
                &names,
                &r.report.label(),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let info = if records.len() == 1 {
        first.report.info()
    } else {
        records
            .iter()
            .map(|r| format!("{}: {}", r.report.label(), r.report.info().join(", ")))
            .collect()
    };
    let scene = Scene::new(SceneInput {
        title,
        info,
        model,
        urdf: &urdf,
        mesh_paths: &mesh_paths,
        contacts,
        motions,
        targets: first.report.targets.clone(),
        terrain: first.report.terrain.clone(),
    });
    if let Some(robot) = &urdf_path {
        for line in &scene.missing_meshes {
            eprintln!("warning: {}: {line}; not drawn", robot.display());
        }
        if scene.meshes_not_found > 0 {
            eprintln!(
                "hint: `vito view {} --package-path DIR` draws the page again with the meshes \
                 found in DIR (DIR/PKG/... for package://PKG/...)",
                dir.display()
            );
        }
    }
    let out = opts.output.clone().unwrap_or_else(|| dir.to_path_buf());
    let html = out.join("view.html");
    let gif = out.join("animation.gif");
    if !opts.formats.raster {
        write_viewer(&html, &scene)?;
        let shown: Vec<PathBuf> = records
            .iter()
            .map(|r| r.dir.join("trajectory.csv"))
            .collect();
        remove_if_older(&gif, &shown)?;
        return Ok(vec![html]);
    }
    let (a, b) = rayon::join(
        || write_viewer(&html, &scene),
        || write_animation(&gif, &scene),
    );
    a?;
    b?;
    Ok(vec![html, gif])
}
