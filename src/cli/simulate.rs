//! `vito simulate FILE.yaml`: simulates a robot with the variational integrator and writes the
//! trajectory and its plots.

use super::RasterArg;
use anyhow::bail;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use vito::problem::{Integrator, SimulationOverrides, load_simulation};

#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The simulation file (YAML).
    file: PathBuf,
    /// Integrator: trapezoid, simpson or galerkin:S (S = 1..6); overrides the file.
    #[arg(long)]
    integrator: Option<Integrator>,
    /// Time step in seconds; overrides the file.
    #[arg(long, allow_negative_numbers = true)]
    dt: Option<f64>,
    /// Simulated time in seconds; overrides the file.
    #[arg(long, allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Output directory (default: the file's `output`, else results/<name>).
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[command(flatten)]
    images: RasterArg,
}

pub fn run(args: SimulateArgs) -> anyhow::Result<ExitCode> {
    let overrides = SimulationOverrides {
        integrator: args.integrator,
        dt: args.dt,
        duration: args.duration,
        output: args.output,
    };
    let prob = load_simulation(&args.file, &overrides)?;
    super::print_model_warnings(&prob.model);
    let dir = &prob.output;
    let simulated = vito::commands::simulate(&prob, Some(dir), args.images.formats(), true)?;
    if let Some(f) = &simulated.simulation.failure {
        bail!(
            "{f}; the trajectory up to that time is in {}",
            dir.join("trajectory.csv").display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
