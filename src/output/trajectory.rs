//! CSV files of simulated trajectories.

use super::{OutputError, write_csv};
use crate::vi::simulate::Trajectory;
use std::path::Path;

/// The columns and rows of a simulated trajectory's CSV file: `t, q_<joint>…, v_<joint>…,
/// energy`, one row per knot; with contact also, per contact point `P`, `fn_P` (normal force,
/// N), `f_P_x`, `f_P_y`, `f_P_z` (world force, N) and `gap_P` (m).
pub fn simulation_table(traj: &Trajectory) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut header = vec!["t".to_string()];
    header.extend(traj.joint_names.iter().map(|j| format!("q_{j}")));
    header.extend(traj.joint_names.iter().map(|j| format!("v_{j}")));
    header.push("energy".into());
    if let Some(c) = &traj.contact {
        for name in &c.names {
            header.extend([
                format!("fn_{name}"),
                format!("f_{name}_x"),
                format!("f_{name}_y"),
                format!("f_{name}_z"),
                format!("gap_{name}"),
            ]);
        }
    }
    let rows: Vec<Vec<f64>> = (0..traj.time.len())
        .map(|k| {
            let mut row = vec![traj.time[k]];
            row.extend(&traj.q[k]);
            row.extend(&traj.v[k]);
            row.push(traj.energy[k]);
            if let Some(c) = &traj.contact {
                for l in 0..c.names.len() {
                    let f = c.forces[k][l];
                    row.extend([c.normal[k][l], f.x, f.y, f.z, c.gaps[k][l]]);
                }
            }
            row
        })
        .collect();
    (header, rows)
}

/// Writes the [`simulation_table`] of `traj` with full precision.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_simulation_csv(path: &Path, traj: &Trajectory) -> Result<(), OutputError> {
    let (header, rows) = simulation_table(traj);
    write_csv(path, &header, &rows)
}
