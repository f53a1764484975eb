//! `vito balance FILE.yaml`: the static balance at a motion problem's start — the pose, torques
//! and stance wrenches that hold the robot at rest — and its files.

use super::RasterArg;
use super::solve::exit_for;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use vito::commands::SolverLog;
use vito::output::{write_atomic, write_balance};
use vito::problem::{ProblemOverrides, load_problem};
use vito::transcription::balance;

#[derive(Args, Debug)]
pub struct BalanceArgs {
    /// The problem file (YAML).
    pub file: PathBuf,
    /// Output directory (default: the file's `output`, else results/<name>).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub images: RasterArg,
}

pub fn run(args: BalanceArgs) -> anyhow::Result<ExitCode> {
    let prob = load_problem(
        &args.file,
        &ProblemOverrides {
            output: args.output,
            ..ProblemOverrides::default()
        },
    )?;
    super::print_model_warnings(&prob.model);
    eprintln!(
        "balancing '{}': robot '{}' ({} DoF, {} actuated), {} stance(s), QP {:?}",
        prob.name,
        prob.model.name(),
        prob.model.dof(),
        prob.model.actuated_joints().len(),
        prob.stances.len(),
        prob.solver.qp
    );
    let mut log = SolverLog::new(true);
    let bal = balance(&prob, &mut log)?;
    let dir = &prob.output;
    write_atomic(&dir.join("balance.log"), &log.into_bytes()).context("writing balance.log")?;
    let files = write_balance(dir, &prob, &bal, args.images.formats())?;
    let r = &bal.result;
    eprintln!(
        "{:?} after {} iterations in {:.3} s: objective {:.6e}, constraint violation {:.1e}, \
         dual infeasibility {:.1e}",
        r.status,
        r.iterations,
        r.timing.total.as_secs_f64(),
        r.objective,
        r.residuals.primal_infeasibility,
        r.residuals.dual_infeasibility
    );
    let mut names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    names.push(dir.join("balance.log").display().to_string());
    eprintln!("wrote {}", names.join(", "));
    Ok(exit_for(r.status))
}
