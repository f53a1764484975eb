//! `vito compare FILE.yaml`: the same problem with the Simpson VI and with Hermite–Simpson
//! collocation, side by side, with the dynamic accuracy of each solution.

use super::RasterArg;
use super::solve::exit_for;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use vito::nlp::{Method, QpBackend};
use vito::problem::{ProblemOverrides, load_problem};

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The problem file (YAML).
    file: PathBuf,
    /// Output directory (default: results/<name>/compare).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// The solver for both solves: auto, interior_point or sqp.
    #[arg(long)]
    method: Option<Method>,
    /// QP backend for both solves (implies the SQP).
    #[arg(long)]
    qp: Option<QpBackend>,
    /// Start Hermite–Simpson from the Simpson VI's solution (its `trajectory.csv`) instead of
    /// the problem's initial guess.
    #[arg(long)]
    warm_start: bool,
    #[command(flatten)]
    images: RasterArg,
}

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let base = load_problem(
        &args.file,
        &ProblemOverrides {
            qp: args.qp,
            method: args.method,
            ..ProblemOverrides::default()
        },
    )?;
    super::print_model_warnings(&base.model);
    let dir = args.output.unwrap_or_else(|| base.output.join("compare"));
    let comparison = vito::commands::compare(
        &base,
        Some(&dir),
        args.warm_start,
        args.images.formats(),
        true,
    )?;
    Ok(exit_for(comparison.worst_status()))
}
