//! CSV files of simulated trajectories.

use super::{OutputError, write_atomic};
use crate::vi::simulate::Trajectory;
use std::path::Path;

/// Writes `t, q_<joint>…, v_<joint>…, energy`, one row per knot, with full precision.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_simulation_csv(path: &Path, traj: &Trajectory) -> Result<(), OutputError> {
    let csv_err = |e: csv::Error| OutputError::Csv {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["t".to_string()];
    header.extend(traj.joint_names.iter().map(|j| format!("q_{j}")));
    header.extend(traj.joint_names.iter().map(|j| format!("v_{j}")));
    header.push("energy".into());
    w.write_record(&header).map_err(csv_err)?;
    for k in 0..traj.time.len() {
        let mut row = Vec::with_capacity(header.len());
        row.push(traj.time[k].to_string());
        row.extend(traj.q[k].iter().map(f64::to_string));
        row.extend(traj.v[k].iter().map(f64::to_string));
        row.push(traj.energy[k].to_string());
        w.write_record(&row).map_err(csv_err)?;
    }
    let bytes = w.into_inner().map_err(|e| OutputError::Csv {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    write_atomic(path, &bytes).map_err(|source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    })
}
