//! `report.json` of a simulation: what was simulated, how far it got, and the robot it moved.

use super::recorded::RobotRecord;
use super::{OutputError, write_atomic};
use crate::problem::SimulationProblem;
use crate::vi::simulate::Simulation;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The machine-readable summary of a simulation.
#[derive(Serialize)]
pub struct SimulationReport {
    /// `"simulation"`.
    pub kind: &'static str,
    /// Simulation name.
    pub problem: String,
    /// vito's version.
    pub vito_version: &'static str,
    /// The robot: name, file, base and contact points.
    #[serde(flatten)]
    pub robot: RobotRecord,
    /// Degrees of freedom.
    pub dof: usize,
    /// Integrator name.
    pub integrator: String,
    /// Its order of accuracy.
    pub order: usize,
    /// Time step (s).
    pub dt: f64,
    /// Steps asked for.
    pub steps: usize,
    /// Steps taken.
    pub steps_done: usize,
    /// Simulated time reached (s).
    pub duration: f64,
    /// `Completed`, or `StepFailed` when a step's Newton iteration did not converge.
    pub status: String,
    /// What happened.
    pub message: String,
    /// Wall time of the simulation (s).
    pub wall_time_s: f64,
    /// Mean Newton iterations per step.
    pub newton_iterations_per_step: f64,
    /// Largest |E(t) − E(0)| (J).
    pub energy_drift: f64,
    /// The terrain, for a simulation with contact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terrain: Option<crate::contact::Terrain>,
}

impl SimulationReport {
    /// The report of `sim` (run in `wall_time_s` seconds) of `prob`, written to `dir`.
    pub fn new(prob: &SimulationProblem, sim: &Simulation, wall_time_s: f64, dir: &Path) -> Self {
        let traj = &sim.trajectory;
        let steps_done = traj.time.len().saturating_sub(1);
        let e0 = traj.energy.first().copied().unwrap_or(0.0);
        let (status, message) = match &sim.failure {
            None => ("Completed", format!("{steps_done} steps")),
            Some(f) => ("StepFailed", f.to_string()),
        };
        Self {
            kind: "simulation",
            problem: prob.name.clone(),
            vito_version: env!("CARGO_PKG_VERSION"),
            robot: RobotRecord::new(&prob.model, &prob.robot_file, dir),
            dof: prob.model.dof(),
            integrator: prob.integrator.to_string(),
            order: prob.galerkin().order(),
            dt: prob.options.dt,
            steps: prob.options.steps,
            steps_done,
            duration: traj.time.last().copied().unwrap_or(0.0),
            status: status.into(),
            message,
            wall_time_s,
            newton_iterations_per_step: traj.iterations.iter().sum::<usize>() as f64
                / steps_done.max(1) as f64,
            energy_drift: traj
                .energy
                .iter()
                .map(|e| (e - e0).abs())
                .fold(0.0, f64::max),
            terrain: prob.contact.as_ref().map(|c| c.terrain.clone()),
        }
    }
}

/// Writes `report` to `<dir>/report.json`; returns the path.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_simulation_report(
    dir: &Path,
    report: &SimulationReport,
) -> Result<PathBuf, OutputError> {
    let path = dir.join("report.json");
    let json = serde_json::to_string_pretty(report).map_err(|e| OutputError::Csv {
        path: path.clone(),
        message: e.to_string(),
    })?;
    write_atomic(&path, json.as_bytes()).map_err(|source| OutputError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}
