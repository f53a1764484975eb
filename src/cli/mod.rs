//! Subcommands of the `vito` binary, one file each.

mod balance;
mod bench;
mod compare;
mod model;
mod robot;
mod simulate;
mod solve;
mod sweep;
mod view;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// vito: dynamically exact trajectory optimization with higher-order variational integrators.
#[derive(Parser, Debug)]
#[command(name = "vito", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// The problem `vito` solves when run without a command.
pub const DEFAULT_PROBLEM: &str = "problems/pendulum_swingup_2.yaml";

#[derive(Subcommand, Debug)]
enum Command {
    /// Solve a motion problem and write its trajectory, report and plots.
    Solve(solve::SolveArgs),
    /// Solve a problem with the Simpson VI and with Hermite–Simpson collocation, side by side.
    Compare(compare::CompareArgs),
    /// Summarize a URDF robot, or evaluate its dynamics at a state.
    Model(model::ModelArgs),
    /// Write one of the built-in robot descriptions.
    Robot(robot::RobotArgs),
    /// Find the static balance at a motion problem's start (pose, torques, stance wrenches).
    Balance(balance::BalanceArgs),
    /// Simulate a robot with the variational integrator.
    Simulate(simulate::SimulateArgs),
    /// Solve a family of variants of one problem in parallel and write one table of them.
    Sweep(sweep::SweepArgs),
    /// Time the integrator's stage algorithms against the paths they replace.
    Bench(bench::BenchArgs),
    /// Draw the 3-D viewer page and the animation of a result directory again.
    View(view::ViewArgs),
}

/// The `--raster` option of the commands that draw figures.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct RasterArg {
    /// Also write every figure as PNG and the side view as animation.gif (slower: for a small
    /// problem the rasters take longer than the solve). SVG figures and view.html are always
    /// written.
    #[arg(long)]
    raster: bool,
}

impl RasterArg {
    fn formats(self) -> vito::output::Formats {
        vito::output::Formats {
            raster: self.raster,
        }
    }
}

/// Prints the model's load warnings on stderr, one line each.
fn print_model_warnings(model: &vito::model::Model) {
    for w in &model.report().warnings {
        eprintln!("warning: {}: {w}", model.name());
    }
}

/// Writes to standard output; a closed pipe (`vito model .. | head`) is not an error.
fn print_stdout(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// An error and its causes on one line, each said once: vito's errors spell out their source
/// in their own message (`{path}: cannot read: {source}`, as they are shown without the
/// chain too), so a cause that the line already holds is not repeated.
pub fn error_message(e: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let command = cli.command.unwrap_or_else(|| {
        eprintln!(
            "no command given: solving the bundled example {DEFAULT_PROBLEM} (see vito --help)"
        );
        Command::Solve(solve::SolveArgs {
            file: DEFAULT_PROBLEM.into(),
            output: None,
            method: None,
            qp: None,
            transcription: None,
            images: RasterArg::default(),
        })
    });
    match command {
        Command::Solve(a) => solve::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Model(a) => model::run(a),
        Command::Robot(a) => robot::run(a),
        Command::Balance(a) => balance::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Bench(a) => bench::run(a),
        Command::View(a) => view::run(a),
    }
}
