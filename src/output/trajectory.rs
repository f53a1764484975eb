//! CSV files of simulated trajectories.

use super::{OutputError, write_csv};
use crate::vi::simulate::Trajectory;
use std::path::Path;

/// Writes `t, q_<joint>…, v_<joint>…, energy`, one row per knot, with full precision.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_simulation_csv(path: &Path, traj: &Trajectory) -> Result<(), OutputError> {
    let mut header = vec!["t".to_string()];
    header.extend(traj.joint_names.iter().map(|j| format!("q_{j}")));
    header.extend(traj.joint_names.iter().map(|j| format!("v_{j}")));
    header.push("energy".into());
    let rows: Vec<Vec<f64>> = (0..traj.time.len())
        .map(|k| {
            let mut row = vec![traj.time[k]];
            row.extend(&traj.q[k]);
            row.extend(&traj.v[k]);
            row.push(traj.energy[k]);
            row
        })
        .collect();
    write_csv(path, &header, &rows)
}
