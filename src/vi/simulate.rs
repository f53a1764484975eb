//! Simulation with the variational integrator: each stage's DEL equations are solved by Newton's
//! method with the O(n) direction of Algorithms I.1/I.2 (or the constrained variant of §3.3) and a
//! backtracking line search.

use super::constrained::{
    ConstraintWorkspace, PointConstraint, constrained_newton_direction, constrained_residual,
};
use super::{Galerkin, Stage, StageWorkspace, del_residual, newton_direction};
use crate::dynamics::{Workspace, forward_dynamics, mass_matrix, potential_energy, spring_energy};
use crate::model::Model;
use nalgebra::{DMatrix, DVector};

/// How far above the tolerance the residual may stay when Newton stops at the round-off floor
/// (the line search cannot decrease it, or a full iteration no longer halves it).
const ROUNDOFF_FLOOR: f64 = 1e4;
/// A Newton iteration that leaves more than this fraction of the residual makes no quadratic
/// progress: below [`ROUNDOFF_FLOOR`] times the tolerance that is round-off, not a bad step.
const STAGNATION: f64 = 0.5;

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
    /// A step that fails with a floating base closer than this (rad) to the gimbal lock of its
    /// yaw–pitch–roll coordinates ([`Model::base_lock_distance`]) says so in its error.
    pub lock_margin: f64,
}

impl Default for SimulationOptions {
    fn default() -> Self {
        Self {
            dt: 0.01,
            steps: 100,
            tolerance: 1e-11,
            max_iterations: 30,
            lock_margin: 0.05,
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

impl StepFailure {
    /// The failure of step `step` from `time`, whose start knot is `q`; when a floating base
    /// there is within `opts.lock_margin` of its coordinates' gimbal lock, the message says
    /// that this is the reason the step has no well-determined solution.
    pub(crate) fn new(
        model: &Model,
        step: usize,
        time: f64,
        q: &[f64],
        message: String,
        opts: &SimulationOptions,
    ) -> Self {
        let message = match model.base_lock_distance(q) {
            Some(d) if d < opts.lock_margin => format!(
                "{message}; the floating base's pitch is {:.4} rad, {d:.1e} rad from ±π/2, the \
                 gimbal lock of its yaw–pitch–roll coordinates, where yaw and roll turn about \
                 the same axis and its mass matrix is singular (the root link's x axis is \
                 vertical: these coordinates cannot follow the body resting or spinning there)",
                q[4]
            ),
            _ => message,
        };
        Self {
            step,
            time,
            message,
        }
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
/// search on `‖r‖²`; `p^{k+1}` follows from Eq. 5c. `controls(t, u)` fills the actuator torques
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
    let mut ws = StageWorkspace::new(model, gal);
    let mut cws = ConstraintWorkspace::new(model, gal, constraints);
    let nc = cws.len();
    let n_u = ws.n_u();
    let mut energy = EnergyMeter::new(model);

    let mut p = energy.momentum(q0, v0);
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
    let record = |traj: &mut Trajectory, t: f64, q: &[f64], p: &[f64], e: &mut EnergyMeter| {
        let (v, h) = e.velocity_and_energy(q, p);
        traj.time.push(t);
        traj.q.push(q.to_vec());
        traj.v.push(v);
        traj.p.push(p.to_vec());
        traj.energy.push(h);
    };
    record(&mut traj, 0.0, q0, &p, &mut energy);
    q[..n].copy_from_slice(q0);

    for k in 0..opts.steps {
        let t0 = k as f64 * dt;
        for (al, &node) in gal.nodes().iter().enumerate() {
            controls(t0 + node * dt, &mut u[al * n_u..(al + 1) * n_u]);
        }
        // Predict q^{k,1..=s} by a second-order Taylor step from the knot, with the velocity
        // M⁻¹p^k and the acceleration of the articulated-body algorithm (constraints ignored).
        {
            let (qk, rest) = q.split_at_mut(n);
            let v = &traj.v[k];
            model.passive_forces(qk, v, &mut tau);
            for (c, &i) in actuated.iter().enumerate() {
                tau[i] += u[c];
            }
            forward_dynamics(model, &mut energy.ws, qk, v, &tau, &mut qdd);
            for (al, &node) in gal.nodes().iter().enumerate().skip(1) {
                let h = node * dt;
                for i in 0..n {
                    rest[(al - 1) * n + i] = qk[i] + h * v[i] + 0.5 * h * h * qdd[i];
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
                dt,
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
                    dt,
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
            if failure.is_empty() {
                failure = format!(
                    "Newton did not converge in {} iterations",
                    opts.max_iterations
                );
            }
            return Simulation {
                trajectory: traj,
                failure: Some(StepFailure::new(model, k, t0, &q[..n], failure, opts)),
            };
        }
        // p^{k+1} by Eq. 5c at the solution.
        let stage = Stage {
            dt,
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
        traj.iterations.push(iterations);
        record(&mut traj, (k + 1) as f64 * dt, &q[s * n..], &p, &mut energy);
        q.copy_within(s * n.., 0);
    }
    Simulation {
        trajectory: traj,
        failure: None,
    }
}

/// Momentum, velocity and energy at the knots.
pub(crate) struct EnergyMeter<'a> {
    model: &'a Model,
    ws: Workspace,
    mass: DMatrix<f64>,
}

/// Singular values of `M(q)` below this fraction of the largest are taken as zero when `M(q)`
/// is singular (a floating base at its coordinates' gimbal lock).
const MASS_RANK_TOLERANCE: f64 = 1e-12;

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

    /// `v = M(q)⁻¹ p` and `½ pᵀv + V(q)`. Where `M(q)` is singular (a floating base at its
    /// gimbal lock, where `p` still lies in its range) `v` is the least-norm velocity with
    /// `M(q) v = p`: one of the coordinate velocities of the same motion.
    pub(crate) fn velocity_and_energy(&mut self, q: &[f64], p: &[f64]) -> (Vec<f64>, f64) {
        mass_matrix(self.model, &mut self.ws, q, &mut self.mass);
        let pv = DVector::from_column_slice(p);
        let v = match self.mass.clone().cholesky() {
            Some(c) => c.solve(&pv),
            None => {
                let svd = self.mass.clone().svd(true, true);
                let cut = MASS_RANK_TOLERANCE * svd.singular_values.max();
                svd.solve(&pv, cut)
                    .unwrap_or_else(|_| DVector::from_element(p.len(), f64::NAN))
            }
        };
        let e = 0.5 * pv.dot(&v)
            + potential_energy(self.model, &mut self.ws, q)
            + spring_energy(self.model, q);
        (v.as_slice().to_vec(), e)
    }
}
