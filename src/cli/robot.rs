//! `vito robot pendulum --links N`: writes the N-link pendulum URDF.

use super::print_stdout;
use anyhow::Context;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use vito::model::{PendulumSpec, pendulum_urdf};
use vito::output::write_atomic;

#[derive(Args, Debug)]
pub struct RobotArgs {
    #[command(subcommand)]
    kind: RobotKind,
}

#[derive(Subcommand, Debug)]
enum RobotKind {
    /// An N-link planar pendulum of uniform thin rods (swinging about y, hanging along −z).
    Pendulum {
        /// Number of links.
        #[arg(long, default_value_t = 1)]
        links: usize,
        /// Mass of each rod in kg.
        #[arg(long, default_value_t = 1.0)]
        mass: f64,
        /// Length of each rod in m.
        #[arg(long, default_value_t = 0.5)]
        length: f64,
        /// Write to this file instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Replace the output file if it exists.
        #[arg(long)]
        force: bool,
    },
}

pub fn run(args: RobotArgs) -> anyhow::Result<ExitCode> {
    match args.kind {
        RobotKind::Pendulum {
            links,
            mass,
            length,
            output,
            force,
        } => {
            let urdf = pendulum_urdf(&PendulumSpec {
                links,
                mass,
                length,
            })
            .map_err(anyhow::Error::msg)?;
            match output {
                Some(path) if path.exists() && !force => {
                    anyhow::bail!("{} exists; add --force to replace it", path.display())
                }
                Some(path) => write_atomic(&path, urdf.as_bytes())
                    .with_context(|| format!("writing {}", path.display()))?,
                None => print_stdout(&urdf)?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
