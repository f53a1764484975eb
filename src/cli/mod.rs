//! Subcommands of the `vito` binary, one file each.

mod bench;
mod model;
mod robot;
mod simulate;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// vito: dynamically exact trajectory optimization with higher-order variational integrators.
#[derive(Parser, Debug)]
#[command(name = "vito", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Summarize a URDF robot, or evaluate its dynamics at a state.
    Model(model::ModelArgs),
    /// Write one of the built-in robot descriptions.
    Robot(robot::RobotArgs),
    /// Simulate a robot with the variational integrator.
    Simulate(simulate::SimulateArgs),
    /// Time the integrator's stage algorithms against the paths they replace.
    Bench(bench::BenchArgs),
}

/// Writes to standard output; a closed pipe (`vito model .. | head`) is not an error.
fn print_stdout(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Model(a) => model::run(a),
        Command::Robot(a) => robot::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Bench(a) => bench::run(a),
    }
}
