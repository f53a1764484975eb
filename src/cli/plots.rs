//! The pictures of a solve (filled in when the plotting module lands).

use std::path::{Path, PathBuf};
use vito::problem::TrajectoryProblem;
use vito::transcription::Outcome;

/// Writes the plots and filmstrip of a solve; returns the files written.
pub fn solve_plots(
    _dir: &Path,
    _prob: &TrajectoryProblem,
    _outcome: &Outcome,
) -> anyhow::Result<Vec<PathBuf>> {
    Ok(Vec::new())
}
