//! Benchmark workloads for `vito bench` and the criterion benches: one Simpson stage of an N-link
//! pendulum, and the straightforward paths the fast algorithms replace — a dense Newton step
//! (finite-difference Jacobian of Algorithm 1 and a dense LU solve), a finite-difference
//! linearization of Algorithm 1 and the dynamics Hessian by differences of linearizations;
//! whole transcriptions of bundled robots at their starting points; and whole SQP solves of the
//! bundled problems ([`sqp_run`], for `vito bench --sqp`).

use crate::dynamics::{
    InverseDynamicsDerivatives, Workspace, inverse_dynamics, inverse_dynamics_derivatives,
};
use crate::model::{BaseKind, Model, PendulumSpec, parse_urdf, pendulum_urdf};
use crate::nlp::{Method, Nlp, QpBackend};
use crate::problem::{ProblemOverrides, TrajectoryProblem, TranscriptionKind, load_problem};
use crate::transcription::{CollocationNlp, VariationalNlp, central_difference};
use crate::vi::{
    Galerkin, Stage, StageGradient, StageJacobian, StageWorkspace, del_gradient, del_hessian,
    del_residual, linearize, newton_direction,
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
    /// Multipliers of the stage outputs `[r^{k,0}; …; r^{k,s−1}; p^{k+1}]`.
    lambda: Vec<f64>,
    hess: DMatrix<f64>,
    grad: [Vec<f64>; 2],
    gradient: StageGradient,
    /// A joint state `(q, q̇, q̈)` for the rigid-body kernels, with their buffers.
    state: [Vec<f64>; 3],
    dyn_ws: Workspace,
    tau: Vec<f64>,
    derivatives: InverseDynamicsDerivatives,
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
        let lambda = (0..m * n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let a = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let ws = StageWorkspace::new(&model, &gal);
        let jac = StageJacobian::new(&model, &gal, 0);
        Self {
            u: vec![0.0; m * ws.n_u()],
            r: vec![0.0; gal.s() * n],
            p_next: vec![0.0; n],
            dq: vec![0.0; gal.s() * n],
            fd: DMatrix::zeros(m * n, m * n),
            lambda,
            hess: DMatrix::zeros(m * n, m * n),
            grad: [vec![0.0; m * n], vec![0.0; m * n]],
            gradient: StageGradient::new(&model, &gal, 0),
            state: [q0, v0, a],
            dyn_ws: Workspace::new(&model),
            tau: vec![0.0; n],
            derivatives: InverseDynamicsDerivatives::new(&model),
            model,
            gal,
            ws,
            jac,
            dt,
            p,
            q,
        }
    }

    /// The number of links.
    pub fn links(&self) -> usize {
        self.model.dof()
    }

    /// The recursive Newton–Euler inverse dynamics at a joint state: the reference kernel of
    /// the DEL evaluation's cost.
    pub fn rnea(&mut self) -> f64 {
        let [q, v, a] = &self.state;
        inverse_dynamics(&self.model, &mut self.dyn_ws, q, v, a, &mut self.tau);
        self.tau[0]
    }

    /// Inverse dynamics with its derivatives (IDSVA): the reference kernel of the
    /// linearization's cost.
    pub fn rnea_derivatives(&mut self) -> f64 {
        let [q, v, a] = &self.state;
        inverse_dynamics_derivatives(
            &self.model,
            &mut self.dyn_ws,
            q,
            v,
            a,
            &mut self.derivatives,
        );
        self.derivatives.dtau_dq[(0, 0)]
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

    /// The O(n) gradient `∇_q (λᵀ r)` of the stage.
    pub fn gradient(&mut self) -> f64 {
        let st = stage(self.dt, &self.p, &self.q, &self.u);
        del_gradient(
            &self.model,
            &self.gal,
            &mut self.ws,
            &st,
            &self.lambda,
            &mut self.gradient,
        );
        self.gradient.dq[0]
    }

    /// The analytic dynamics Hessian `∇²_q (λᵀ r)` of the stage, O(n²) for the chain.
    pub fn hessian(&mut self) -> f64 {
        let st = stage(self.dt, &self.p, &self.q, &self.u);
        del_hessian(
            &self.model,
            &self.gal,
            &mut self.ws,
            &st,
            &self.lambda,
            &mut self.hess,
        );
        self.hess[(0, 0)]
    }

    /// The dynamics Hessian `∇²_q (λᵀ r)` of the stage by central differences of `λᵀ J` over
    /// the `(s+1)n` control-point coordinates: `2(s+1)n` linearizations.
    pub fn hessian_by_differences(&mut self) -> f64 {
        let mut q = self.q.clone();
        for c in 0..q.len() {
            let step = central_difference(
                &mut q[..],
                |q| &mut q[c],
                |q, side| {
                    let st = stage(self.dt, &self.p, q, &self.u);
                    linearize(&self.model, &self.gal, &mut self.ws, &st, &mut self.jac);
                    for (j, g) in self.grad[side].iter_mut().enumerate() {
                        *g = self
                            .jac
                            .dq
                            .column(j)
                            .dot(&DVector::from_column_slice(&self.lambda));
                    }
                },
            );
            for r in 0..q.len() {
                self.hess[(r, c)] = step.quotient(self.grad[0][r], self.grad[1][r]);
            }
        }
        self.hess[(0, 0)]
    }
}

/// The bundled robots' problems the transcription benches use.
pub struct ProblemCase {
    /// What it is, for the tables.
    pub name: &'static str,
    /// The problem.
    pub problem: TrajectoryProblem,
}

impl ProblemCase {
    /// `problems/pendulum12_reconfigure.yaml` (12-link pendulum, both ends at rest, speed
    /// limits) with `stages` stages.
    ///
    /// # Errors
    /// If the problem cannot be written to or read from the temporary directory.
    pub fn pendulum12(stages: usize) -> Result<Self, String> {
        let spec = PendulumSpec {
            links: 12,
            ..PendulumSpec::default()
        };
        let urdf = pendulum_urdf(&spec)?;
        let zeros = format!("[{}]", ["0"; 12].join(", "));
        let yaml = format!(
            "name: pendulum12_bench\nrobot: robot.urdf\nduration: 2.0\nstages: {stages}\n\
             initial: {{q: {zeros}, v: {zeros}}}\n\
             final: {{q: [0.3, -0.25, 0.2, -0.15, 0.15, -0.15, 0.15, -0.15, 0.15, -0.15, 0.15, -0.15], v: {zeros}}}\n\
             bounds: {{u: [-100, 100], v: [-2, 2]}}\ncosts: {{effort: 1.0}}\n"
        );
        Ok(Self {
            name: "pendulum12",
            problem: load_from_text(&urdf, &yaml)?,
        })
    }

    /// `robots/humanoid.urdf` (30 DoF, floating base) over 1.3 s in `stages` stages, at rest at
    /// both ends, from standing to a crouch reaching left and down, effort cost.
    ///
    /// # Errors
    /// If the problem cannot be written to or read from the temporary directory.
    pub fn humanoid(stages: usize) -> Result<Self, String> {
        let zeros = format!("[{}]", ["0"; 30].join(", "));
        let yaml = format!(
            "name: humanoid_bench\nrobot: robot.urdf\nbase: floating\nduration: 1.3\n\
             stages: {stages}\ninitial: {{q: {{base_z: 0.94}}, v: {zeros}}}\n\
             final: {{q: {{base_z: 0.85, back_bky: 0.3, l_arm_shx: 0.6, l_arm_ely: 0.8, \
             l_leg_hpy: -0.5, l_leg_kny: 1.0, l_leg_aky: -0.5, r_leg_hpy: -0.5, \
             r_leg_kny: 1.0, r_leg_aky: -0.5}}, v: {zeros}}}\ncosts: {{effort: 0.01}}\n"
        );
        Ok(Self {
            name: "humanoid",
            problem: load_from_text(include_str!("../robots/humanoid.urdf"), &yaml)?,
        })
    }
}

/// Loads a problem whose `robot` is `robot.urdf` from a fresh temporary directory.
fn load_from_text(urdf: &str, yaml: &str) -> Result<TrajectoryProblem, String> {
    let dir = std::env::temp_dir().join(format!("vito-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join("problem.yaml");
    let written = std::fs::write(dir.join("robot.urdf"), urdf)
        .and_then(|()| std::fs::write(&file, yaml))
        .map_err(|e| format!("{}: {e}", dir.display()));
    let loaded = written.and_then(|()| {
        load_problem(&file, &ProblemOverrides::default()).map_err(|e| e.to_string())
    });
    let _ = std::fs::remove_dir_all(&dir);
    loaded
}

/// Which transcription a [`TranscriptionCase`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transcription {
    /// The Simpson variational integrator.
    SimpsonVi,
    /// Hermite–Simpson collocation.
    HermiteSimpson,
}

impl Transcription {
    /// The name used in problem files.
    pub fn name(self) -> &'static str {
        match self {
            Transcription::SimpsonVi => "simpson_vi",
            Transcription::HermiteSimpson => "hermite_simpson",
        }
    }
}

/// A transcribed problem at its starting point with fixed multipliers, and its buffers.
pub struct TranscriptionCase<'a> {
    nlp: Transcribed<'a>,
    x: Vec<f64>,
    lambda: Vec<f64>,
    grad: Vec<f64>,
    cons: Vec<f64>,
    jac: Vec<f64>,
    hess: Vec<f64>,
}

enum Transcribed<'a> {
    Vi(Box<VariationalNlp<'a>>),
    Hs(Box<CollocationNlp<'a>>),
}

impl Transcribed<'_> {
    fn nlp(&mut self) -> &mut dyn Nlp {
        match self {
            Transcribed::Vi(n) => n.as_mut(),
            Transcribed::Hs(n) => n.as_mut(),
        }
    }
}

impl<'a> TranscriptionCase<'a> {
    /// Transcribes `problem`; the multipliers are `cos(1.3 r)` for row `r`.
    ///
    /// # Errors
    /// If the transcription cannot be built.
    pub fn new(problem: &'a TrajectoryProblem, kind: Transcription) -> Result<Self, String> {
        let mut nlp = match kind {
            Transcription::SimpsonVi => Transcribed::Vi(Box::new(VariationalNlp::new(problem, 2)?)),
            Transcription::HermiteSimpson => {
                Transcribed::Hs(Box::new(CollocationNlp::new(problem)?))
            }
        };
        let n = nlp.nlp();
        let mut x = vec![0.0; n.num_variables()];
        n.initial_point(&mut x);
        let m = n.num_constraints();
        let jac = vec![0.0; n.jacobian_structure().len()];
        let hess = vec![0.0; n.hessian_structure().map_or(0, |s| s.len())];
        Ok(Self {
            lambda: (0..m).map(|r| (r as f64 * 1.3).cos()).collect(),
            grad: vec![0.0; x.len()],
            cons: vec![0.0; m],
            x,
            nlp,
            jac,
            hess,
        })
    }

    /// Number of decision variables.
    pub fn variables(&self) -> usize {
        self.x.len()
    }

    /// The Hessian of the Lagrangian. Returns one of its values.
    pub fn hessian(&mut self) -> f64 {
        let ok = self
            .nlp
            .nlp()
            .hessian_values(&self.x, 1.0, &self.lambda, &mut self.hess);
        ok.map_or(f64::NAN, |()| self.hess.first().copied().unwrap_or(0.0))
    }

    /// The Hessian of the Lagrangian by the route the analytic dynamics curvature replaced
    /// (central differences of exact stage or point derivatives). Returns one of its values.
    pub fn hessian_by_differences(&mut self) -> f64 {
        let (x, l, h) = (&self.x, &self.lambda, &mut self.hess);
        let ok = match &mut self.nlp {
            Transcribed::Vi(n) => n.hessian_values_by_differences(x, 1.0, l, h),
            Transcribed::Hs(n) => n.hessian_values_by_differences(x, 1.0, l, h),
        };
        ok.map_or(f64::NAN, |()| self.hess.first().copied().unwrap_or(0.0))
    }

    /// Everything an SQP iteration evaluates: objective, gradient, constraints, Jacobian and
    /// Hessian. Returns the objective.
    pub fn evaluation(&mut self) -> f64 {
        let nlp = self.nlp.nlp();
        let f = nlp.objective(&self.x).unwrap_or(f64::NAN);
        let ok = nlp
            .gradient(&self.x, &mut self.grad)
            .and_then(|()| nlp.constraints(&self.x, &mut self.cons))
            .and_then(|()| nlp.jacobian_values(&self.x, &mut self.jac));
        self.hessian();
        ok.map_or(f64::NAN, |()| f)
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
    /// The method that ran (`interior_point` or `sqp`).
    pub method: String,
    /// The QP backend (of the SQP).
    pub qp: String,
    /// The solver's status, formatted.
    pub status: String,
    /// The final objective.
    pub objective: f64,
    /// SQP iterations.
    pub iterations: usize,
    /// Wall time of the whole solve, in seconds.
    pub total_s: f64,
    /// Time spent in linear algebra (QP solves, Newton systems), in seconds.
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
    method: Option<Method>,
    qp: Option<QpBackend>,
) -> Result<SqpRun, String> {
    let file = dir.join(format!("{name}.yaml"));
    let overrides = ProblemOverrides {
        qp,
        method,
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
        method: r.method.name().to_string(),
        qp: format!("{:?}", prob.solver.qp).to_lowercase(),
        status: format!("{:?}", r.status),
        objective: r.objective,
        iterations: r.iterations,
        total_s: r.timing.total.as_secs_f64(),
        qp_s: r.timing.linear.as_secs_f64(),
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
