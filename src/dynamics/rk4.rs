//! An explicit reference integrator: classical Runge–Kutta 4 on the articulated-body forward
//! dynamics (or, with frames held fixed, on [`held_forward_dynamics`]). Independent of the
//! variational integrator, it re-simulates optimized controls and serves as the reference of
//! the convergence tests.

use super::held::{HeldFrame, HeldWorkspace, held_forward_dynamics};
use super::{Workspace, forward_dynamics};
use crate::model::Model;

/// Integrates `q̈ = ABA(q, q̇, τ)` with `τ = B u(t) + τ_passive(q, q̇)` from `(q0, v0)` for
/// `steps` steps of `h`, and returns `(t, q, v)` every `every` steps (the start included).
/// `controls(t, u)` fills the actuator torques (`model.actuated_joints()` order).
///
/// # Panics
/// If `q0`/`v0` do not have `model.dof()` entries or `every` is 0.
pub fn simulate_rk4(
    model: &Model,
    q0: &[f64],
    v0: &[f64],
    controls: &mut dyn FnMut(f64, &mut [f64]),
    h: f64,
    steps: usize,
    every: usize,
) -> Vec<(f64, Vec<f64>, Vec<f64>)> {
    simulate_rk4_with_loads(model, q0, v0, controls, &mut |_, _, _| {}, h, steps, every)
}

/// External generalized forces: `loads(t, q, τ)` adds them to `τ`.
pub type Loads<'a> = dyn FnMut(f64, &[f64], &mut [f64]) + 'a;

/// [`simulate_rk4`] with external loads: `loads(t, q, τ)` adds their generalized forces at
/// time `t` and configuration `q` to `τ` (for example contact forces `Σ J_l(q)ᵀ f_l(t)`).
///
/// # Panics
/// As [`simulate_rk4`].
#[allow(clippy::too_many_arguments)]
pub fn simulate_rk4_with_loads(
    model: &Model,
    q0: &[f64],
    v0: &[f64],
    controls: &mut dyn FnMut(f64, &mut [f64]),
    loads: &mut Loads,
    h: f64,
    steps: usize,
    every: usize,
) -> Vec<(f64, Vec<f64>, Vec<f64>)> {
    let n = model.dof();
    assert!(q0.len() == n && v0.len() == n && every > 0);
    let mut ws = Workspace::new(model);
    let mut forces = JointForces::new(model);
    let mut accel = |t: f64, q: &[f64], v: &[f64], a: &mut [f64]| {
        let tau = forces.at(model, controls, loads, t, q, v);
        forward_dynamics(model, &mut ws, q, v, tau, a);
    };
    integrate(q0, v0, &mut accel, h, steps, every)
}

/// [`simulate_rk4_with_loads`] with `frames` held fixed in the world (their twists kept at
/// their initial values) by the constraint forces of [`held_forward_dynamics`]. A step whose
/// constraint system is singular leaves the accelerations at zero.
///
/// # Panics
/// As [`simulate_rk4`].
#[allow(clippy::too_many_arguments)]
pub fn simulate_rk4_held(
    model: &Model,
    q0: &[f64],
    v0: &[f64],
    controls: &mut dyn FnMut(f64, &mut [f64]),
    loads: &mut Loads,
    frames: &[HeldFrame],
    h: f64,
    steps: usize,
    every: usize,
) -> Vec<(f64, Vec<f64>, Vec<f64>)> {
    let n = model.dof();
    assert!(q0.len() == n && v0.len() == n && every > 0);
    let mut ws = Workspace::new(model);
    let mut hw = HeldWorkspace::new(model, frames.len());
    let mut forces = JointForces::new(model);
    let mut accel = |t: f64, q: &[f64], v: &[f64], a: &mut [f64]| {
        let tau = forces.at(model, controls, loads, t, q, v);
        if !held_forward_dynamics(model, &mut ws, &mut hw, frames, q, v, tau, a) {
            a.fill(0.0);
        }
    };
    integrate(q0, v0, &mut accel, h, steps, every)
}

/// The joint forces `τ = B u(t) + τ_passive(q, q̇) + loads(t, q)`, with their buffers.
struct JointForces {
    actuated: Vec<usize>,
    u: Vec<f64>,
    tau: Vec<f64>,
}

impl JointForces {
    fn new(model: &Model) -> Self {
        let actuated = model.actuated_joints();
        Self {
            u: vec![0.0; actuated.len()],
            tau: vec![0.0; model.dof()],
            actuated,
        }
    }

    fn at(
        &mut self,
        model: &Model,
        controls: &mut dyn FnMut(f64, &mut [f64]),
        loads: &mut Loads,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> &[f64] {
        controls(t, &mut self.u);
        model.passive_forces(q, v, &mut self.tau);
        for (c, &i) in self.actuated.iter().enumerate() {
            self.tau[i] += self.u[c];
        }
        loads(t, q, &mut self.tau);
        &self.tau
    }
}

/// Accelerations `accel(t, q, v, a)`.
type Accelerations<'a> = dyn FnMut(f64, &[f64], &[f64], &mut [f64]) + 'a;

/// Classical RK4 on `q̇ = v`, `v̇ = accel(t, q, v)` from `(q0, v0)`.
fn integrate(
    q0: &[f64],
    v0: &[f64],
    accel: &mut Accelerations,
    h: f64,
    steps: usize,
    every: usize,
) -> Vec<(f64, Vec<f64>, Vec<f64>)> {
    let n = q0.len();
    let (mut q, mut v) = (q0.to_vec(), v0.to_vec());
    let mut stage_q = vec![vec![0.0; n]; 3];
    let mut stage_v = vec![vec![0.0; n]; 3];
    let mut a = vec![vec![0.0; n]; 4];
    let mut out = vec![(0.0, q.clone(), v.clone())];
    for k in 0..steps {
        let t = k as f64 * h;
        accel(t, &q, &v, &mut a[0]);
        for i in 0..n {
            stage_q[0][i] = q[i] + 0.5 * h * v[i];
            stage_v[0][i] = v[i] + 0.5 * h * a[0][i];
        }
        accel(t + 0.5 * h, &stage_q[0], &stage_v[0], &mut a[1]);
        for i in 0..n {
            stage_q[1][i] = q[i] + 0.5 * h * stage_v[0][i];
            stage_v[1][i] = v[i] + 0.5 * h * a[1][i];
        }
        accel(t + 0.5 * h, &stage_q[1], &stage_v[1], &mut a[2]);
        for i in 0..n {
            stage_q[2][i] = q[i] + h * stage_v[1][i];
            stage_v[2][i] = v[i] + h * a[2][i];
        }
        accel(t + h, &stage_q[2], &stage_v[2], &mut a[3]);
        for i in 0..n {
            q[i] += h / 6.0 * (v[i] + 2.0 * stage_v[0][i] + 2.0 * stage_v[1][i] + stage_v[2][i]);
            v[i] += h / 6.0 * (a[0][i] + 2.0 * a[1][i] + 2.0 * a[2][i] + a[3][i]);
        }
        if (k + 1) % every == 0 {
            out.push(((k + 1) as f64 * h, q.clone(), v.clone()));
        }
    }
    out
}
