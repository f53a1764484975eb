//! The files of `vito balance`: `balance.json` (status, pose, torques, stance wrenches, centres
//! of pressure and of mass), `balance.yaml` (the pose as the `initial:` block of a motion
//! problem) and `balance` (the pose from the side and the front, SVG and PNG).

use super::{FilmstripOptions, Formats, OutputError, StanceReport, write_atomic, write_filmstrip};
use crate::problem::TrajectoryProblem;
use crate::transcription::Balance;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One stance foot at the balance.
#[derive(Serialize)]
struct FootState {
    frame: String,
    /// Wrench at the sole centre in the frame's axes: `[f_x, f_y, f_z]` (N).
    force: [f64; 3],
    /// `[τ_x, τ_y, τ_z]` (N·m).
    torque: [f64; 3],
    /// Centre of pressure in the frame (m).
    centre_of_pressure: Option<[f64; 2]>,
    /// The centre of mass in the frame (m).
    centre_of_mass: [f64; 3],
}

#[derive(Serialize)]
struct BalanceFile<'a> {
    problem: &'a str,
    robot: &'a str,
    status: String,
    message: &'a str,
    iterations: usize,
    objective: f64,
    primal_infeasibility: f64,
    dual_infeasibility: f64,
    solve_time_s: f64,
    q: BTreeMap<&'a str, f64>,
    u: BTreeMap<&'a str, f64>,
    /// World centre of mass (m).
    centre_of_mass: [f64; 3],
    total_mass: f64,
    feet: Vec<FootState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stance: Option<StanceReport>,
}

/// Writes `balance.json`, `balance.yaml` and the `balance` figure of `bal` (SVG, and with
/// `formats.raster` PNG) into `dir`; returns the files written.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_balance(
    dir: &Path,
    prob: &TrajectoryProblem,
    bal: &Balance,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    let model = &prob.model;
    let names = model.joint_names();
    let actuated: Vec<String> = model
        .actuated_joints()
        .iter()
        .map(|&i| model.joint(i).name.clone())
        .collect();
    let r = &bal.result;
    let feet = bal.stance.as_ref().map_or_else(Vec::new, |st| {
        st.feet
            .iter()
            .map(|f| FootState {
                frame: f.name.clone(),
                force: [f.wrench[0][0], f.wrench[0][1], f.wrench[0][2]],
                torque: [f.wrench[0][3], f.wrench[0][4], f.wrench[0][5]],
                centre_of_pressure: f.cop[0].map(|(x, y)| [x, y]),
                centre_of_mass: f.com[0].into(),
            })
            .collect()
    });
    let file = BalanceFile {
        problem: &prob.name,
        robot: model.name(),
        status: format!("{:?}", r.status),
        message: &r.message,
        iterations: r.iterations,
        objective: r.objective,
        primal_infeasibility: r.residuals.primal_infeasibility,
        dual_infeasibility: r.residuals.dual_infeasibility,
        solve_time_s: r.timing.total.as_secs_f64(),
        q: names
            .iter()
            .map(String::as_str)
            .zip(bal.q.iter().copied())
            .collect(),
        u: actuated
            .iter()
            .map(String::as_str)
            .zip(bal.u.iter().copied())
            .collect(),
        centre_of_mass: bal.com.into(),
        total_mass: model.total_mass(),
        feet,
        stance: bal.stance.as_ref().map(StanceReport::new),
    };
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| OutputError::Io { path, source }
    };
    let json_path = dir.join("balance.json");
    let json = serde_json::to_string_pretty(&file).map_err(|e| OutputError::Csv {
        path: json_path.clone(),
        message: e.to_string(),
    })?;
    write_atomic(&json_path, json.as_bytes()).map_err(io(&json_path))?;
    let yaml_path = dir.join("balance.yaml");
    write_atomic(&yaml_path, pose_yaml(prob, bal, &names).as_bytes()).map_err(io(&yaml_path))?;
    let forces = bal.stance.as_ref().map_or_else(Vec::new, |st| {
        vec![(
            0.0,
            st.feet.iter().filter_map(|f| f.world_force(0)).collect(),
        )]
    });
    let figure = write_filmstrip(
        &dir.join("balance"),
        model,
        &[(0.0, bal.q.clone())],
        &FilmstripOptions {
            frames: 1,
            title: format!("{} — static balance ({:?})", prob.name, r.status),
            ground_height: Some(0.0),
            terrain: None,
            forces,
        },
        formats,
    )?;
    Ok([json_path, yaml_path].into_iter().chain(figure).collect())
}

/// The pose as the `initial:` block of a motion problem: every joint at its value (shortest
/// round-trip digits), at rest.
fn pose_yaml(prob: &TrajectoryProblem, bal: &Balance, names: &[String]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# The static balance of '{}' found by `vito balance` ({:?}, {} iterations).",
        prob.name, bal.result.status, bal.result.iterations
    );
    let _ = writeln!(s, "initial:\n  q:");
    for (name, q) in names.iter().zip(&bal.q) {
        let _ = writeln!(s, "    {name}: {q:?}");
    }
    let zeros = vec!["0"; names.len()].join(", ");
    let _ = writeln!(s, "  v: [{zeros}]");
    s
}
