//! Order of accuracy of the Galerkin variational integrators on the 12-link pendulum of
//! `problems/sim_pendulum12.yaml` (T = 2 s, v0 = 0), against an independent reference: classical
//! Runge–Kutta 4 on the articulated-body forward dynamics with a step of 25 µs.
//!
//! Run `cargo test --release --test convergence -- --nocapture` to print the table.

use std::path::Path;
use vito::bench::loglog_slope;
use vito::dynamics::simulate_rk4;
use vito::model::Model;
use vito::problem::{SimulationOverrides, load_simulation};
use vito::vi::Galerkin;
use vito::vi::simulate::{SimulationOptions, simulate};

const T: f64 = 2.0;

/// RK4 on the articulated-body dynamics, unforced.
fn reference(model: &Model, q0: &[f64], h: f64, steps: usize) -> Vec<Vec<f64>> {
    let v0 = vec![0.0; q0.len()];
    simulate_rk4(model, q0, &v0, &mut |_, u| u.fill(0.0), h, steps, 1)
        .into_iter()
        .map(|(_, q, _)| q)
        .collect()
}

/// Largest joint-angle error over the knots.
fn error(model: &Model, q0: &[f64], s: usize, dt: f64, reference: &[Vec<f64>], ref_dt: f64) -> f64 {
    let steps = (T / dt).round() as usize;
    let opts = SimulationOptions {
        dt,
        steps,
        tolerance: 1e-14,
        max_iterations: 50,
        ..SimulationOptions::default()
    };
    let sim = simulate(
        model,
        &Galerkin::new(s).unwrap(),
        q0,
        &vec![0.0; q0.len()],
        &mut |_, u| u.fill(0.0),
        &[],
        &opts,
    );
    assert!(sim.failure.is_none(), "{:?}", sim.failure);
    let stride = (dt / ref_dt).round() as usize;
    let mut worst: f64 = 0.0;
    for (k, q) in sim.trajectory.q.iter().enumerate() {
        let r = &reference[k * stride];
        for (a, b) in q.iter().zip(r) {
            worst = worst.max((a - b).abs());
        }
    }
    worst
}

#[test]
fn galerkin_integrators_converge_at_order_2s() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/sim_pendulum12.yaml");
    let prob = load_simulation(&file, &SimulationOverrides::default()).unwrap();
    let ref_dt = 2.5e-5;
    let reference = reference(&prob.model, &prob.q0, ref_dt, (T / ref_dt).round() as usize);
    // (s, name, step sizes, accepted range of the fitted order)
    type Case<'a> = (usize, &'a str, [f64; 4], (f64, f64));
    let cases: [Case; 3] = [
        (1, "trapezoid", [0.01, 0.005, 0.0025, 0.00125], (1.8, 2.2)),
        (2, "simpson", [0.01, 0.005, 0.0025, 0.00125], (3.7, 4.3)),
        (3, "galerkin:3", [0.02, 0.01, 0.005, 0.0025], (5.6, 6.5)),
    ];
    println!("\n| integrator | dt (s) | largest joint-angle error (rad) |\n|---|---|---|");
    for (s, name, dts, (lo, hi)) in cases {
        let errs: Vec<f64> = dts
            .iter()
            .map(|&dt| error(&prob.model, &prob.q0, s, dt, &reference, ref_dt))
            .collect();
        for (dt, e) in dts.iter().zip(&errs) {
            println!("| {name} | {dt} | {e:.3e} |");
        }
        let p = loglog_slope(&dts, &errs);
        println!("| {name} | fitted order | **{p:.2}** |");
        assert!(p > lo && p < hi, "{name}: order {p:.2}, expected {}", 2 * s);
    }
}
