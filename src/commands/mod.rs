//! What `vito solve`, `vito compare` and `vito simulate` do between loading their file and
//! choosing an exit code, shared by the binary (`src/cli`) and the Python bindings (`python/`):
//! each returns what it computed and, given an output directory, writes the result files of the
//! command (with the library's writers in [`crate::output`]). With `echo` set, each prints on
//! stderr what the command prints: the solver's log as it comes and the summary lines.

mod compare;
mod simulate;
mod solve;
mod sweep;

pub use compare::{ComparedRun, Comparison, compare};
pub use simulate::{Simulated, simulate};
pub use solve::{Solved, solve};
pub use sweep::{
    ERROR_STATUS, Sweep, SweepOptions, SweepRow, SweepSource, solve_sweep_instance, sweep,
    write_sweep_table,
};

use crate::output::OutputError;
use crate::problem::ProblemError;
use crate::transcription::SolveError;
use std::io::Write;

/// Why a command could not finish. A solve that does not converge and a simulation that stops
/// early are not errors: their results carry the status.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The problem file could not be read or is not valid.
    #[error(transparent)]
    Problem(#[from] ProblemError),
    /// The problem could not be solved at all.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A result file could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The request cannot be carried out as asked (says why).
    #[error("{0}")]
    Request(String),
}

/// The solver's log: keeps everything written to it (for `solver.log`) and, when it echoes,
/// also writes it to stderr as it comes.
pub struct SolverLog {
    bytes: Vec<u8>,
    echo: bool,
}

impl SolverLog {
    /// An empty log that echoes to stderr when `echo` is set.
    pub fn new(echo: bool) -> Self {
        Self {
            bytes: Vec::new(),
            echo,
        }
    }

    /// Everything written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

impl Write for SolverLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        if self.echo {
            // A closed stderr must not stop the solve: the copy is what counts.
            let _ = std::io::stderr().write_all(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.echo {
            std::io::stderr().flush()
        } else {
            Ok(())
        }
    }
}

/// `path: cause` for a file that could not be written.
fn io_error(path: std::path::PathBuf, source: std::io::Error) -> OutputError {
    OutputError::Io { path, source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Formats;
    use crate::problem::{ProblemOverrides, load_problem};
    use std::path::Path;

    #[test]
    fn a_solve_gives_the_same_report_with_and_without_files() {
        let prob = load_problem(
            Path::new("problems/pendulum_swingup_1.yaml"),
            &ProblemOverrides::default(),
        )
        .unwrap();
        let bare = solve(&prob, None, Formats::default(), false).unwrap();
        assert!(bare.files.is_empty());
        assert!(!bare.log.is_empty());
        let dir = std::env::temp_dir().join(format!("vito-commands-{}", std::process::id()));
        let written = solve(&prob, Some(&dir), Formats::default(), false).unwrap();
        assert_eq!(written.report.objective, bare.report.objective);
        assert_eq!(written.report.status, bare.report.status);
        for name in [
            "report.json",
            "trajectory.csv",
            "knots.csv",
            "solver.log",
            "view.html",
        ] {
            assert!(written.files.contains(&dir.join(name)), "{name} not listed");
            assert!(dir.join(name).is_file(), "{name} not written");
        }
        assert_eq!(std::fs::read(dir.join("solver.log")).unwrap(), written.log);
        let _ = std::fs::remove_dir_all(&dir);
        let e = compare(&prob, None, true, Formats::default(), false)
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("output directory")));
    }
}
