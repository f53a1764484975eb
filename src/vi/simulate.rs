//! Simulation with the variational integrator: each stage's DEL equations are solved by Newton's
//! method with the O(n) direction of Algorithms I.1/I.2 (or the constrained variant of §3.3) and a
//! backtracking line search.

use super::constrained::{
    ConstraintWorkspace, PointConstraint, constrained_newton_direction, constrained_residual,
};
use super::{Galerkin, Stage, StageWorkspace, del_residual, newton_direction};
use crate::dynamics::{Workspace, forward_dynamics, mass_matrix, potential_energy, spring_energy};
use crate::model::{BaseChart, Model};
use nalgebra::{DMatrix, DVector};

/// How far above the tolerance the residual may stay when Newton stops at the round-off floor
/// (the line search cannot decrease it, or a full iteration no longer halves it).
const ROUNDOFF_FLOOR: f64 = 1e4;
/// A Newton iteration that leaves more than this fraction of the residual makes no quadratic
/// progress: below [`ROUNDOFF_FLOOR`] times the tolerance that is round-off, not a bad step.
const STAGNATION: f64 = 0.5;

/// How many times a step that cannot be solved is halved before the simulation stops (the
/// shortest step is `Δt/2^STEP_SPLITS`). A step can be out of Newton's reach: on a 128-link
/// chain at `Δt` = 0.01 s the stage's DEL Jacobian grows singular along Newton's path
/// (smallest singular value from 0.2 to 10⁻³) and no damping of the exact direction reaches a
/// root, while every link turns by less than 0.1 rad in the step; the halves are solvable, and the
/// variational integrator stays one (the knot between steps of different lengths matches the
/// momenta of both, Eq. 5c and 5a).
pub(crate) const STEP_SPLITS: u32 = 4;

/// Step size, horizon and Newton settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimulationOptions {
    /// Time step `Δt` (s).
    pub dt: f64,
    /// Number of steps.
    pub steps: usize,
    /// Newton stops when `‖r‖_∞ ≤ tolerance · max(1, ‖p^k‖_∞)` and every constraint
    /// `|h| ≤ tolerance` (m).
    pub tolerance: f64,
    /// Newton iterations allowed per step.
    pub max_iterations: usize,
    /// A floating base whose orientation comes closer than this (rad) to its coordinates'
    /// gimbal lock at a knot ([`Model::base_lock_distance`]) continues in a chart centred on
    /// its orientation there ([`BaseChart`]); the trajectory is written in the model's chart.
    pub chart_margin: f64,
    /// The smoothing `μ` a contact step is solved at, in the transcription's units (gaps in m,
    /// forces in weight shares, speeds in m/s): every pair then has `a·b = μ²`, the conditions
    /// of an optimized trajectory's last smoothing level (`tests/contact_replay.rs`). `None`
    /// solves the exact conditions (to `10⁻⁶` in the step's own units).
    pub contact_smoothing: Option<f64>,
}

impl Default for SimulationOptions {
    fn default() -> Self {
        Self {
            dt: 0.01,
            steps: 100,
            tolerance: 1e-11,
            max_iterations: 30,
            chart_margin: std::f64::consts::FRAC_PI_4,
            contact_smoothing: None,
        }
    }
}

/// A simulated motion sampled at the knots `t_k = kΔt`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trajectory {
    /// Joint names (columns of `q`, `v`, `p`).
    pub joint_names: Vec<String>,
    /// Knot times.
    pub time: Vec<f64>,
    /// Configurations `q^{k,0}`.
    pub q: Vec<Vec<f64>>,
    /// Velocities `M(q^k)⁻¹ p^k` from the discrete momentum (order 2s accurate at the knots).
    pub v: Vec<Vec<f64>>,
    /// Discrete momenta `p^k`.
    pub p: Vec<Vec<f64>>,
    /// Total energy `½ pᵀM⁻¹p + V_gravity + V_springs` at each knot.
    pub energy: Vec<f64>,
    /// Newton iterations of each step.
    pub iterations: Vec<usize>,
    /// Contact forces and gaps at the knots, for a simulation with terrain.
    pub contact: Option<super::contact_simulation::KnotContacts>,
}

/// Why a simulation stopped early.
#[derive(Clone, Debug, PartialEq)]
pub struct StepFailure {
    /// The step that failed (0-based), i.e. the stage from `t = step·Δt`.
    pub step: usize,
    /// Its start time.
    pub time: f64,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for StepFailure {
    /// `step N (t = T s) did not converge: …`, with `T` rounded to the nanosecond (a split
    /// step's start is a sum of halved steps).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "step {} (t = {} s) did not converge: {}",
            self.step,
            (self.time * 1e9).round() / 1e9,
            self.message
        )
    }
}

/// The result of [`simulate`]: the trajectory up to the end or to the failing step.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// The knots reached.
    pub trajectory: Trajectory,
    /// `Some` if a step did not converge.
    pub failure: Option<StepFailure>,
}

/// Simulates `model` from `(q0, v0)` with the Galerkin integrator `gal`.
///
/// The initial momentum is the Legendre transform `p⁰ = M(q0) v0`. Each stage predicts
/// `q^{k,1..=s}` by a Taylor step with the forward-dynamics acceleration, then runs Newton's method on
/// Eqs. 5a–5b (6a, 6b, 6d with constraints) with the exact direction and a backtracking line
/// search on `‖r‖²`; `p^{k+1}` follows from Eq. 5c. A step Newton cannot solve is split in
/// halves, down to `Δt/2^STEP_SPLITS`, and every knot reached is recorded (the grid `kΔt`
/// among them). `controls(t, u)` fills the actuator torques
/// (in `model.actuated_joints()` order) at time `t`; it is sampled at the control points.
///
/// # Panics
/// If `q0`/`v0` do not have `model.dof()` entries or `opts.dt ≤ 0`.
pub fn simulate(
    model: &Model,
    gal: &Galerkin,
    q0: &[f64],
    v0: &[f64],
    controls: &mut dyn FnMut(f64, &mut [f64]),
    constraints: &[PointConstraint],
    opts: &SimulationOptions,
) -> Simulation {
    let n = model.dof();
    let s = gal.s();
    let m = s + 1;
    assert!(q0.len() == n && v0.len() == n && opts.dt > 0.0);
    let dt = opts.dt;
    let nc = ConstraintWorkspace::new(model, gal, constraints).len();
    let n_u = StageWorkspace::new(model, gal).n_u();
    let mut p = EnergyMeter::new(model).momentum(q0, v0);
    let mut q = vec![0.0; m * n];
    let actuated = model.actuated_joints();
    let mut tau = vec![0.0; n];
    let mut qdd = vec![0.0; n];
    let mut lambda = vec![0.0; s * nc];
    let mut u = vec![0.0; m * n_u];
    let (mut dq, mut dl) = (vec![0.0; s * n], vec![0.0; s * nc]);
    let (mut q_trial, mut l_trial) = (q.clone(), lambda.clone());
    let mut p_next = vec![0.0; n];
    let mut r_buf = vec![0.0; s * n];

    let mut traj = Trajectory {
        joint_names: model.joint_names(),
        ..Trajectory::default()
    };
    traj.push_knot(&mut EnergyMeter::new(model), 0.0, q0, &p);
    q[..n].copy_from_slice(q0);

    let mut charts = Charts::new(model, q0);
    // March over the grid `kΔt`; a step that cannot be solved is split in halves, down to
    // Δt/2^STEP_SPLITS, and every knot reached is recorded.
    let end = opts.steps as f64 * dt;
    let shortest = dt / f64::from(1u32 << STEP_SPLITS);
    let mut t0 = 0.0;
    let mut h = dt;
    let mut l_saved = lambda.clone();
    let failure = 'charts: loop {
        let chart_model = charts.model(model);
        let model = &chart_model;
        let mut ws = StageWorkspace::new(model, gal);
        let mut cws = ConstraintWorkspace::new(model, gal, constraints);
        let mut energy = EnergyMeter::new(model);
        while t0 < end {
            if charts.recentre(model, opts, &mut q[..n], &mut [], &mut [&mut p], &mut traj) {
                continue 'charts;
            }
            let step = (t0 / dt + 1e-9).floor() as usize;
            let grid_next = ((step + 1) as f64 * dt).min(end);
            h = h.min(grid_next - t0);
            for (al, &node) in gal.nodes().iter().enumerate() {
                controls(t0 + node * h, &mut u[al * n_u..(al + 1) * n_u]);
            }
            l_saved.copy_from_slice(&lambda);
            // Predict q^{k,1..=s} by a second-order Taylor step from the knot, with the velocity
            // M⁻¹p^k and the acceleration of the articulated-body algorithm (constraints ignored).
            {
                let (qk, rest) = q.split_at_mut(n);
                let v = &traj.v[traj.v.len() - 1];
                model.passive_forces(qk, v, &mut tau);
                for (c, &i) in actuated.iter().enumerate() {
                    tau[i] += u[c];
                }
                forward_dynamics(model, &mut energy.ws, qk, v, &tau, &mut qdd);
                for (al, &node) in gal.nodes().iter().enumerate().skip(1) {
                    let ta = node * h;
                    for i in 0..n {
                        rest[(al - 1) * n + i] = qk[i] + ta * v[i] + 0.5 * ta * ta * qdd[i];
                    }
                }
            }
            let scale = p.iter().fold(1.0f64, |a, x| a.max(x.abs()));
            let tol_r = opts.tolerance * scale;
            let tol_h = opts.tolerance;
            let mut converged = false;
            let mut iterations = 0;
            let mut failure = String::new();
            let mut previous = f64::INFINITY;
            for it in 0..opts.max_iterations {
                iterations = it + 1;
                let stage = Stage {
                    dt: h,
                    p: &p,
                    q: &q,
                    u: &u,
                    loads: &[],
                    forces: &[],
                };
                let dir = if nc == 0 {
                    newton_direction(model, gal, &mut ws, &stage, &mut dq).map(|r| (r, 0.0))
                } else {
                    constrained_newton_direction(
                        model, gal, &mut ws, &mut cws, &stage, &lambda, &mut dq, &mut dl,
                    )
                };
                let (rn, hn) = match dir {
                    Ok(norms) => norms,
                    Err(e) => {
                        failure = e.to_string();
                        break;
                    }
                };
                if rn <= tol_r && hn <= tol_h {
                    converged = true;
                    break;
                }
                let level = (rn / tol_r).max(hn / tol_h);
                let at_floor = level <= ROUNDOFF_FLOOR;
                if at_floor && level > STAGNATION * previous {
                    converged = true;
                    break;
                }
                previous = level;
                let merit = |r: f64, h: f64| (r / scale).powi(2) + h.powi(2);
                let m0 = merit(rn, hn);
                let mut t = 1.0;
                let accepted = loop {
                    for a in 1..m {
                        for i in 0..n {
                            q_trial[a * n + i] = q[a * n + i] + t * dq[(a - 1) * n + i];
                        }
                    }
                    q_trial[..n].copy_from_slice(&q[..n]);
                    for (lt, (l, d)) in l_trial.iter_mut().zip(lambda.iter().zip(&dl)) {
                        *lt = l + t * d;
                    }
                    let trial = Stage {
                        dt: h,
                        p: &p,
                        q: &q_trial,
                        u: &u,
                        loads: &[],
                        forces: &[],
                    };
                    let (rt, ht) = if nc == 0 {
                        del_residual(model, gal, &mut ws, &trial, &mut r_buf, &mut p_next);
                        (r_buf.iter().fold(0.0f64, |a, x| a.max(x.abs())), 0.0)
                    } else {
                        constrained_residual(model, gal, &mut ws, &mut cws, &trial, &l_trial, None)
                    };
                    if rt.is_finite() && ht.is_finite() && merit(rt, ht) <= (1.0 - 1e-4 * t) * m0 {
                        break true;
                    }
                    t *= 0.5;
                    if t < 1e-6 {
                        break false;
                    }
                };
                if !accepted {
                    // At the round-off floor the merit cannot decrease any more.
                    if at_floor {
                        converged = true;
                    } else {
                        failure = format!(
                            "line search failed with residual {rn:.3e} (tolerance {tol_r:.1e})"
                        );
                    }
                    break;
                }
                std::mem::swap(&mut q, &mut q_trial);
                std::mem::swap(&mut lambda, &mut l_trial);
            }
            if !converged {
                if h > shortest {
                    lambda.copy_from_slice(&l_saved);
                    h *= 0.5;
                    continue;
                }
                if failure.is_empty() {
                    failure = format!(
                        "Newton did not converge in {} iterations",
                        opts.max_iterations
                    );
                }
                break 'charts Some(StepFailure {
                    step,
                    time: t0,
                    message: failure,
                });
            }
            // p^{k+1} by Eq. 5c at the solution.
            let stage = Stage {
                dt: h,
                p: &p,
                q: &q,
                u: &u,
                loads: &[],
                forces: &[],
            };
            if nc == 0 {
                del_residual(model, gal, &mut ws, &stage, &mut r_buf, &mut p_next);
            } else {
                constrained_residual(
                    model,
                    gal,
                    &mut ws,
                    &mut cws,
                    &stage,
                    &lambda,
                    Some(&mut p_next),
                );
            }
            p.copy_from_slice(&p_next);
            t0 += h;
            if (grid_next - t0).abs() < 1e-12 * dt {
                t0 = grid_next;
            }
            traj.iterations.push(iterations);
            traj.push_knot(&mut energy, t0, &q[s * n..], &p);
            q.copy_within(s * n.., 0);
            // Back to whole steps once the grid is reached again.
            if t0 == grid_next {
                h = dt;
            }
        }
        break None;
    };
    charts.finish(&mut traj);
    Simulation {
        trajectory: traj,
        failure,
    }
}

impl Trajectory {
    /// Records the knot `(t, q, p)` with its velocity and energy.
    pub(crate) fn push_knot(&mut self, energy: &mut EnergyMeter, t: f64, q: &[f64], p: &[f64]) {
        let (v, e) = energy.velocity_and_energy(q, p);
        self.time.push(t);
        self.q.push(q.to_vec());
        self.v.push(v);
        self.p.push(p.to_vec());
        self.energy.push(e);
    }
}

/// The charts of a simulation's floating base ([`BaseChart`]): which chart the knots from
/// each recorded index on were written in, while the simulation runs in the newest one.
pub(crate) struct Charts {
    /// `(first knot, chart)`, the first from knot 0 in the model's own chart.
    segments: Vec<(usize, BaseChart)>,
    /// The initial angles, for the branch the first converted knot is written in.
    start: [f64; 3],
}

impl Charts {
    /// The model's own chart, for a simulation from `q0`.
    pub(crate) fn new(model: &Model, q0: &[f64]) -> Self {
        let start = match model.base_lock_distance(q0) {
            Some(_) => [q0[3], q0[4], q0[5]],
            None => [0.0; 3],
        };
        Self {
            segments: vec![(0, BaseChart::identity())],
            start,
        }
    }

    /// `model` in the current chart.
    pub(crate) fn model(&self, model: &Model) -> Model {
        self.current().model(model)
    }

    fn current(&self) -> &BaseChart {
        &self.segments[self.segments.len() - 1].1
    }

    /// At a knot `q` (in the current chart, `model` the model in it) whose floating base is
    /// within `opts.chart_margin` of the chart's lock: changes to the chart centred there,
    /// writing `q`, the velocities `tangents`, the momenta `covectors` and the last recorded
    /// knot of `traj` (which is `q`) in it. Whether it changed.
    pub(crate) fn recentre(
        &mut self,
        model: &Model,
        opts: &SimulationOptions,
        q: &mut [f64],
        tangents: &mut [&mut [f64]],
        covectors: &mut [&mut [f64]],
        traj: &mut Trajectory,
    ) -> bool {
        if model
            .base_lock_distance(q)
            .is_none_or(|d| d >= opts.chart_margin)
        {
            return false;
        }
        let next = self.current().centred_at(q);
        let centre = [0.0; 3];
        self.current()
            .convert(&next, &centre, q, tangents, covectors);
        let last = traj.q.len() - 1;
        self.current().convert(
            &next,
            &centre,
            &mut traj.q[last],
            &mut [&mut traj.v[last]],
            &mut [&mut traj.p[last]],
        );
        if self.segments[self.segments.len() - 1].0 == last {
            self.segments.pop();
        }
        self.segments.push((last, next));
        true
    }

    /// Writes every knot of `traj` in the model's own chart, each knot's angles on the branch
    /// nearest the knot before.
    pub(crate) fn finish(&self, traj: &mut Trajectory) {
        if self.segments.iter().all(|(_, chart)| chart.is_identity()) {
            return;
        }
        let identity = BaseChart::identity();
        let mut near = self.start;
        for (i, (first, chart)) in self.segments.iter().enumerate() {
            let end = self.segments.get(i + 1).map_or(traj.q.len(), |s| s.0);
            for k in *first..end.min(traj.q.len()) {
                if !chart.is_identity() {
                    chart.convert(
                        &identity,
                        &near,
                        &mut traj.q[k],
                        &mut [&mut traj.v[k]],
                        &mut [&mut traj.p[k]],
                    );
                }
                near = [traj.q[k][3], traj.q[k][4], traj.q[k][5]];
            }
        }
    }
}

/// Momentum, velocity and energy at the knots.
pub(crate) struct EnergyMeter<'a> {
    model: &'a Model,
    ws: Workspace,
    mass: DMatrix<f64>,
}

impl<'a> EnergyMeter<'a> {
    pub(crate) fn new(model: &'a Model) -> Self {
        Self {
            model,
            ws: Workspace::new(model),
            mass: DMatrix::zeros(model.dof(), model.dof()),
        }
    }

    /// `p = M(q) v`.
    pub(crate) fn momentum(&mut self, q: &[f64], v: &[f64]) -> Vec<f64> {
        mass_matrix(self.model, &mut self.ws, q, &mut self.mass);
        (&self.mass * DVector::from_column_slice(v))
            .as_slice()
            .to_vec()
    }

    /// `v = M(q)⁻¹ p` and `½ pᵀv + V(q)`.
    pub(crate) fn velocity_and_energy(&mut self, q: &[f64], p: &[f64]) -> (Vec<f64>, f64) {
        mass_matrix(self.model, &mut self.ws, q, &mut self.mass);
        let pv = DVector::from_column_slice(p);
        let v = self.mass.clone().cholesky().map_or_else(
            || DVector::from_element(p.len(), f64::NAN),
            |c| c.solve(&pv),
        );
        let e = 0.5 * pv.dot(&v)
            + potential_energy(self.model, &mut self.ws, q)
            + spring_energy(self.model, q);
        (v.as_slice().to_vec(), e)
    }
}
