//! Benchmark workloads for `vito bench` and the criterion benches: one Simpson stage of an N-link
//! pendulum, and the straightforward paths the fast algorithms replace — a dense Newton step
//! (finite-difference Jacobian of Algorithm 1 and a dense LU solve) and a finite-difference
//! linearization of Algorithm 1; and whole SQP solves of the bundled problems
//! ([`sqp_run`], for `vito bench --sqp`).

use crate::model::{BaseKind, Model, PendulumSpec, parse_urdf, pendulum_urdf};
use crate::problem::{ProblemOverrides, TranscriptionKind, load_problem};
use crate::sqp::QpBackend;
use crate::vi::{
    Galerkin, Stage, StageJacobian, StageWorkspace, del_residual, linearize, newton_direction,
};
use nalgebra::{DMatrix, DVector};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::path::Path;

/// One stage of the Simpson integrator on an N-link pendulum with its buffers.
pub struct StageCase {
    /// The robot.
    pub model: Model,
    /// The integrator.
    pub gal: Galerkin,
    ws: StageWorkspace,
    jac: StageJacobian,
    dt: f64,
    p: Vec<f64>,
    q: Vec<f64>,
    u: Vec<f64>,
    r: Vec<f64>,
    p_next: Vec<f64>,
    dq: Vec<f64>,
    fd: DMatrix<f64>,
}

impl StageCase {
    /// An N-link pendulum (1 kg, 0.5 m rods) with joint angles and velocities drawn uniformly
    /// from [−π/2, π/2] (seed 000 §5.2) and control points a Taylor step apart.
    ///
    /// # Panics
    /// If `links` is 0.
    pub fn pendulum(links: usize, seed: u64) -> Self {
        let spec = PendulumSpec {
            links,
            ..PendulumSpec::default()
        };
        let urdf = pendulum_urdf(&spec).unwrap_or_else(|e| panic!("{e}"));
        let model =
            parse_urdf(&urdf, "pendulum", BaseKind::Fixed).unwrap_or_else(|e| panic!("{e}"));
        let gal = Galerkin::simpson();
        let n = model.dof();
        let m = gal.s() + 1;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let half_pi = std::f64::consts::FRAC_PI_2;
        let q0: Vec<f64> = (0..n)
            .map(|_| rng.random_range(-half_pi..half_pi))
            .collect();
        let v0: Vec<f64> = (0..n)
            .map(|_| rng.random_range(-half_pi..half_pi))
            .collect();
        let dt = 0.01;
        let q = (0..m * n)
            .map(|k| q0[k % n] + gal.nodes()[k / n] * dt * v0[k % n])
            .collect();
        let p = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let ws = StageWorkspace::new(&model, &gal);
        let jac = StageJacobian::new(&model, &gal, 0);
        Self {
            u: vec![0.0; m * ws.n_u()],
            r: vec![0.0; gal.s() * n],
            p_next: vec![0.0; n],
            dq: vec![0.0; gal.s() * n],
            fd: DMatrix::zeros(m * n, m * n),
            model,
            gal,
            ws,
            jac,
            dt,
            p,
            q,
        }
    }

    /// Algorithm 1: the DEL residual. Returns `‖r‖_∞` (so the work is not optimized away).
    pub fn del(&mut self) -> f64 {
        let st = stage(self.dt, &self.p, &self.q, &self.u);
        del_residual(
            &self.model,
            &self.gal,
            &mut self.ws,
            &st,
            &mut self.r,
            &mut self.p_next,
        );
        self.r.iter().fold(0.0, |a, x| a.max(x.abs()))
    }

    /// Algorithms I.1/I.2: the O(n) Newton direction.
    pub fn newton(&mut self) -> f64 {
        let st = stage(self.dt, &self.p, &self.q, &self.u);
        let _ = newton_direction(&self.model, &self.gal, &mut self.ws, &st, &mut self.dq);
        self.dq[0]
    }

    /// Algorithms 2, 3 and the chain rule: the O(n²) stage linearization.
    pub fn linearize(&mut self) -> f64 {
        let st = stage(self.dt, &self.p, &self.q, &self.u);
        linearize(&self.model, &self.gal, &mut self.ws, &st, &mut self.jac);
        self.jac.dq[(0, 0)]
    }

    /// Central differences of Algorithm 1 over the control points `first..` (all `(s+1)n`
    /// columns, or the `sn` unknowns when `first = n`), into `self.fd`.
    fn finite_differences(&mut self, first: usize) -> usize {
        let cols = self.q.len() - first;
        let h = 1e-6;
        let mut q = self.q.clone();
        for c in 0..cols {
            let k = first + c;
            let mut col = [Vec::new(), Vec::new()];
            for (side, e) in [h, -h].into_iter().enumerate() {
                q[k] = self.q[k] + e;
                let st = stage(self.dt, &self.p, &q, &self.u);
                del_residual(
                    &self.model,
                    &self.gal,
                    &mut self.ws,
                    &st,
                    &mut self.r,
                    &mut self.p_next,
                );
                let mut out = self.r.clone();
                out.extend_from_slice(&self.p_next);
                col[side] = out;
            }
            q[k] = self.q[k];
            for (row, (plus, minus)) in col[0].iter().zip(&col[1]).enumerate() {
                self.fd[(row, c)] = (plus - minus) / (2.0 * h);
            }
        }
        cols
    }

    /// The path the O(n) Newton direction replaces: a finite-difference Jacobian of Algorithm 1
    /// with respect to `q^{k,1..=s}` and a dense LU solve.
    pub fn newton_dense(&mut self) -> f64 {
        let n = self.model.dof();
        let sn = self.gal.s() * n;
        self.finite_differences(n);
        self.del();
        let j = self.fd.view((0, 0), (sn, sn)).into_owned();
        let rhs = -DVector::from_column_slice(&self.r);
        j.lu().solve(&rhs).map_or(f64::NAN, |x| x[0])
    }

    /// The path the O(n²) linearization replaces: central differences of Algorithm 1.
    pub fn linearize_fd(&mut self) -> f64 {
        self.finite_differences(0);
        self.fd[(0, 0)]
    }
}

fn stage<'a>(dt: f64, p: &'a [f64], q: &'a [f64], u: &'a [f64]) -> Stage<'a> {
    Stage {
        dt,
        p,
        q,
        u,
        loads: &[],
        forces: &[],
    }
}

/// The bundled problems `vito bench --sqp` solves, in order.
pub const SQP_PROBLEMS: [&str; 6] = [
    "pendulum_swingup_1",
    "pendulum_swingup_2",
    "pendulum_swingup_3",
    "acrobot_swingup",
    "arm_reach",
    "pendulum12_reconfigure",
];

/// What one SQP solve of a bundled problem cost.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SqpRun {
    /// The problem's name (file stem).
    pub problem: String,
    /// The transcription, as written in problem files.
    pub transcription: String,
    /// The QP backend.
    pub qp: String,
    /// The solver's status, formatted.
    pub status: String,
    /// The final objective.
    pub objective: f64,
    /// SQP iterations.
    pub iterations: usize,
    /// Wall time of the whole solve, in seconds.
    pub total_s: f64,
    /// Time spent in QP solves, in seconds.
    pub qp_s: f64,
    /// Median wall time of one SQP iteration, in milliseconds.
    pub median_iteration_ms: f64,
    /// Numeric sparse factorizations per iteration, averaged over the solve.
    pub factorizations_per_iteration: f64,
    /// Median numeric sparse factorizations of one iteration.
    pub median_factorizations: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len() / 2;
    if v.len() % 2 == 1 {
        v[k]
    } else {
        0.5 * (v[k - 1] + v[k])
    }
}

/// Solves `problems/<name>.yaml` under `dir` with `transcription` and `qp` (no log) and
/// reports what it cost.
///
/// # Errors
/// A message naming the file when the problem cannot be loaded or solved at all.
pub fn sqp_run(
    dir: &Path,
    name: &str,
    transcription: TranscriptionKind,
    qp: QpBackend,
) -> Result<SqpRun, String> {
    let file = dir.join(format!("{name}.yaml"));
    let overrides = ProblemOverrides {
        qp: Some(qp),
        transcription: Some(transcription),
        ..ProblemOverrides::default()
    };
    let mut prob = load_problem(&file, &overrides).map_err(|e| e.to_string())?;
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    let outcome = crate::transcription::solve(&prob, &mut std::io::sink())
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let r = &outcome.result;
    let steps = r.history.get(1..).unwrap_or_default();
    Ok(SqpRun {
        problem: name.to_string(),
        transcription: transcription.to_string(),
        qp: format!("{qp:?}").to_lowercase(),
        status: format!("{:?}", r.status),
        objective: r.objective,
        iterations: r.iterations,
        total_s: r.timing.total.as_secs_f64(),
        qp_s: r.timing.qp.as_secs_f64(),
        median_iteration_ms: 1e3 * median(steps.iter().map(|h| h.step_time_s).collect()),
        factorizations_per_iteration: steps.iter().map(|h| h.factorizations).sum::<usize>() as f64
            / steps.len().max(1) as f64,
        median_factorizations: median(steps.iter().map(|h| h.factorizations as f64).collect()),
    })
}

/// Least-squares slope of `log y` against `log x`: the scaling exponent.
pub fn loglog_slope(x: &[f64], y: &[f64]) -> f64 {
    let lx: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let ly: Vec<f64> = y.iter().map(|v| v.ln()).collect();
    let k = lx.len() as f64;
    let (mx, my) = (lx.iter().sum::<f64>() / k, ly.iter().sum::<f64>() / k);
    let num: f64 = lx.iter().zip(&ly).map(|(a, b)| (a - mx) * (b - my)).sum();
    let den: f64 = lx.iter().map(|a| (a - mx).powi(2)).sum();
    num / den
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_agree_with_the_fast_algorithms() {
        let mut c = StageCase::pendulum(6, 3);
        c.newton();
        let fast = c.dq[0];
        let dense = c.newton_dense();
        assert!((fast - dense).abs() < 1e-6 * fast.abs().max(1.0));
        c.linearize();
        c.linearize_fd();
        let e = (&c.jac.dq - &c.fd).norm() / c.jac.dq.norm();
        assert!(e < 1e-6, "{e:e}");
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(Vec::new()).is_nan());
    }

    #[test]
    fn slope_of_a_power_law() {
        let x = [2.0, 4.0, 8.0];
        let y: Vec<f64> = x.iter().map(|v: &f64| 3.0 * v.powf(1.5)).collect();
        assert!((loglog_slope(&x, &y) - 1.5).abs() < 1e-12);
    }
}
