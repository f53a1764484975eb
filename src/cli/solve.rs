//! `vito solve FILE.yaml`: transcribes and solves a motion problem and writes its results.

use super::RasterArg;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use vito::nlp::{Method, QpBackend, Status};
use vito::problem::{ProblemOverrides, TranscriptionKind, load_problem};

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The problem file (YAML).
    pub file: PathBuf,
    /// Output directory (default: the file's `output`, else results/<name>).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// The solver: auto (the problem's `solver.method`, by default the interior-point method,
    /// the SQP for complementarity pairs and where it fails), interior_point or sqp.
    #[arg(long)]
    pub method: Option<Method>,
    /// QP backend for the SQP subproblems: clarabel or osqp (implies the SQP).
    #[arg(long)]
    pub qp: Option<QpBackend>,
    /// Transcription: simpson_vi, trapezoid_vi, galerkin:S or hermite_simpson.
    #[arg(long)]
    pub transcription: Option<TranscriptionKind>,
    #[command(flatten)]
    pub images: RasterArg,
}

/// Exit code for a finished solve: success only when converged.
pub fn exit_for(status: Status) -> ExitCode {
    if status == Status::Converged {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: the solve ended {status:?}, not Converged; its results were written anyway"
        );
        ExitCode::from(2)
    }
}

pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let overrides = ProblemOverrides {
        output: args.output,
        qp: args.qp,
        method: args.method,
        transcription: args.transcription,
    };
    let prob = load_problem(&args.file, &overrides)?;
    super::print_model_warnings(&prob.model);
    let solved = vito::commands::solve(&prob, Some(&prob.output), args.images.formats(), true)?;
    Ok(exit_for(solved.outcome.result.status))
}
