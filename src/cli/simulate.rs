//! `vito simulate FILE.yaml`: simulates a robot with the variational integrator and writes the
//! trajectory and its plots.

use super::RasterArg;
use anyhow::{Context, bail};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use vito::output::{
    SimulationReport, ViewOptions, write_simulation_csv, write_simulation_figures,
    write_simulation_report, write_views,
};
use vito::problem::{Integrator, SimulationOverrides, load_simulation};
use vito::vi::contact_simulation::simulate_with_contact;
use vito::vi::simulate::simulate;

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
    let gal = prob.galerkin();
    eprintln!(
        "simulating '{}' ({} DoF) with the {} integrator (order {}), dt = {} s, {} steps",
        prob.name,
        prob.model.dof(),
        prob.integrator,
        gal.order(),
        prob.options.dt,
        prob.options.steps
    );
    let started = Instant::now();
    let mut controls = |t: f64, u: &mut [f64]| match &prob.torques {
        Some(s) => s.sample(t, u),
        None => u.fill(0.0),
    };
    let sim = match &prob.contact {
        Some(contact) => simulate_with_contact(
            &prob.model,
            &gal,
            &prob.q0,
            &prob.v0,
            &mut controls,
            contact,
            &prob.options,
        ),
        None => simulate(
            &prob.model,
            &gal,
            &prob.q0,
            &prob.v0,
            &mut controls,
            &prob.constraints,
            &prob.options,
        ),
    };
    let elapsed = started.elapsed().as_secs_f64();
    let traj = &sim.trajectory;
    let writing = Instant::now();
    let dir = &prob.output;
    let csv = dir.join("trajectory.csv");
    write_simulation_csv(&csv, traj).with_context(|| "writing the trajectory")?;
    let report = write_simulation_report(dir, &SimulationReport::new(&prob, &sim, elapsed, dir))?;
    let steps_done = traj.time.len() - 1;
    let iters = traj.iterations.iter().sum::<usize>() as f64 / steps_done.max(1) as f64;
    let e0 = traj.energy[0];
    let drift = traj
        .energy
        .iter()
        .map(|e| (e - e0).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "{steps_done} steps in {elapsed:.3} s ({:.1} µs/step, {iters:.2} Newton iterations/step); \
         largest energy change {drift:.3e} J (from {e0:.6} J)",
        1e6 * elapsed / steps_done.max(1) as f64
    );
    let formats = args.images.formats();
    let (figures, views) = rayon::join(
        || {
            write_simulation_figures(
                dir,
                &prob.name,
                &prob.model,
                traj,
                prob.contact.as_ref().map(|c| &c.terrain),
                formats,
            )
        },
        || {
            let opts = ViewOptions {
                formats,
                ..ViewOptions::default()
            };
            write_views(dir, Some(&prob.model), &opts)
        },
    );
    let (figures, views) = (figures?, views?);
    let mut names = vec![csv.display().to_string(), report.display().to_string()];
    names.extend(
        figures
            .iter()
            .chain(&views)
            .map(|p| p.display().to_string()),
    );
    eprintln!(
        "wrote {} in {:.3} s",
        names.join(", "),
        writing.elapsed().as_secs_f64()
    );
    if let Some(f) = &sim.failure {
        bail!(
            "{f}; the trajectory up to that time is in {}",
            csv.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
