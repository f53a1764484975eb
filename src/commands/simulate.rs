//! `vito simulate`'s work: simulate with the variational integrator and write the results.

use super::CommandError;
use crate::output::{
    Formats, SimulationReport, ViewOptions, write_simulation_csv, write_simulation_figures,
    write_simulation_report, write_views,
};
use crate::problem::SimulationProblem;
use crate::vi::contact_simulation::simulate_with_contact;
use crate::vi::simulate::Simulation;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A finished simulation, complete or stopped at a step that did not converge.
pub struct Simulated {
    /// The knots reached and, if it stopped early, why.
    pub simulation: Simulation,
    /// The content of `report.json` (written or not).
    pub report: SimulationReport,
    /// `trajectory.csv`, `report.json`, the figures and the viewer files, in the order
    /// `vito simulate` lists them (none without an output directory).
    pub files: Vec<PathBuf>,
}

/// Simulates `prob` (with its terrain: [`simulate_with_contact`], without:
/// [`crate::vi::simulate::simulate`]) under its torque schedule (zero without one) and, with an
/// `output` directory, writes `vito simulate`'s files there: `trajectory.csv`
/// ([`write_simulation_csv`]), `report.json`, the figures in `formats` and the viewer. Without
/// one the report is made as if written to `prob.output`. With `echo` `vito simulate`'s
/// summary goes to stderr.
///
/// # Errors
/// A [`CommandError`] when a file cannot be written.
pub fn simulate(
    prob: &SimulationProblem,
    output: Option<&Path>,
    formats: Formats,
    echo: bool,
) -> Result<Simulated, CommandError> {
    let gal = prob.galerkin();
    if echo {
        eprintln!(
            "simulating '{}' ({} DoF) with the {} integrator (order {}), dt = {} s, {} steps",
            prob.name,
            prob.model.dof(),
            prob.integrator,
            gal.order(),
            prob.options.dt,
            prob.options.steps
        );
    }
    let started = Instant::now();
    let mut controls = |t: f64, u: &mut [f64]| match &prob.torques {
        Some(s) => s.sample(t, u),
        None => u.fill(0.0),
    };
    let simulation = match &prob.contact {
        Some(contact) => simulate_with_contact(
            &prob.model,
            &gal,
            &prob.q0,
            &prob.v0,
            &mut controls,
            contact,
            &prob.options,
        ),
        None => crate::vi::simulate::simulate(
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
    let traj = &simulation.trajectory;
    if echo {
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
    }
    let Some(dir) = output else {
        return Ok(Simulated {
            report: SimulationReport::new(prob, &simulation, elapsed, &prob.output),
            simulation,
            files: Vec::new(),
        });
    };
    let writing = Instant::now();
    let csv = dir.join("trajectory.csv");
    write_simulation_csv(&csv, traj)?;
    let report = SimulationReport::new(prob, &simulation, elapsed, dir);
    let report_path = write_simulation_report(dir, &report)?;
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
    let mut files = vec![csv, report_path];
    files.extend(figures?);
    files.extend(views?);
    if echo {
        let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "wrote {} in {:.3} s",
            names.join(", "),
            writing.elapsed().as_secs_f64()
        );
    }
    Ok(Simulated {
        simulation,
        report,
        files,
    })
}
