//! Order of accuracy of the Galerkin variational integrators on the 12-link pendulum of
//! `problems/sim_pendulum12.yaml` (T = 2 s, v0 = 0), against an independent reference: classical
//! Runge–Kutta 4 on the articulated-body forward dynamics with a step of 25 µs.
//!
//! Run `cargo test --release --test convergence -- --nocapture` to print the table.

use std::path::Path;
use vito::bench::loglog_slope;
use vito::dynamics::{Workspace, forward_dynamics};
use vito::model::Model;
use vito::problem::{SimulationOverrides, load_simulation};
use vito::vi::Galerkin;
use vito::vi::simulate::{SimulationOptions, simulate};

const T: f64 = 2.0;

/// RK4 on (q, v) with q̈ = ABA(q, v, 0), sampled every `every` steps.
fn reference(model: &Model, q0: &[f64], h: f64, steps: usize, every: usize) -> Vec<Vec<f64>> {
    let n = model.dof();
    let mut ws = Workspace::new(model);
    let zero = vec![0.0; n];
    let mut acc = |q: &[f64], v: &[f64]| {
        let mut a = vec![0.0; n];
        forward_dynamics(model, &mut ws, q, v, &zero, &mut a);
        a
    };
    let (mut q, mut v) = (q0.to_vec(), vec![0.0; n]);
    let mut out = vec![q.clone()];
    let axpy = |x: &[f64], a: f64, y: &[f64]| -> Vec<f64> {
        x.iter().zip(y).map(|(x, y)| x + a * y).collect()
    };
    for k in 1..=steps {
        let a1 = acc(&q, &v);
        let (q2, v2) = (axpy(&q, h / 2.0, &v), axpy(&v, h / 2.0, &a1));
        let a2 = acc(&q2, &v2);
        let (q3, v3) = (axpy(&q, h / 2.0, &v2), axpy(&v, h / 2.0, &a2));
        let a3 = acc(&q3, &v3);
        let (q4, v4) = (axpy(&q, h, &v3), axpy(&v, h, &a3));
        let a4 = acc(&q4, &v4);
        for i in 0..n {
            q[i] += h / 6.0 * (v[i] + 2.0 * v2[i] + 2.0 * v3[i] + v4[i]);
            v[i] += h / 6.0 * (a1[i] + 2.0 * a2[i] + 2.0 * a3[i] + a4[i]);
        }
        if k % every == 0 {
            out.push(q.clone());
        }
    }
    out
}

/// Largest joint-angle error over the knots.
fn error(model: &Model, q0: &[f64], s: usize, dt: f64, reference: &[Vec<f64>], ref_dt: f64) -> f64 {
    let steps = (T / dt).round() as usize;
    let opts = SimulationOptions {
        dt,
        steps,
        tolerance: 1e-14,
        max_iterations: 50,
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
    let reference = reference(
        &prob.model,
        &prob.q0,
        ref_dt,
        (T / ref_dt).round() as usize,
        1,
    );
    let cases: [(usize, &str, [f64; 4], (f64, f64)); 3] = [
        (1, "trapezoid", [0.01, 0.005, 0.0025, 0.00125], (1.8, 2.2)),
        (2, "simpson", [0.01, 0.005, 0.0025, 0.00125], (3.7, 4.3)),
        (3, "galerkin:3", [0.02, 0.01, 0.005, 0.0025], (5.6, 6.5)),
    ];
    println!("\n| integrator | dt (s) | max |q − q_ref| (rad) |\n|---|---|---|");
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
