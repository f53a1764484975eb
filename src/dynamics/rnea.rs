//! Recursive Newton–Euler inverse dynamics in world coordinates.

use super::{Workspace, check_len, forward_kinematics, forward_velocities};
use crate::model::Model;
use crate::spatial::{Vec3, Vec6, ad_transpose_mul, stack};

/// Inverse dynamics `τ = M(q) q̈ + C(q, q̇) q̇ + g(q)` by the recursive Newton–Euler algorithm.
///
/// Forward pass: `ā_i = ā_par + S̄_i q̈_i + Ṡ̄_i q̇_i` with `ā_0 = (0, −g)` so that gravity acts as
/// a base acceleration; body wrench `f̄_i = M̄_i ā_i − ad_{v̄_i}ᵀ M̄_i v̄_i` (the rate of change of
/// the body's spatial momentum, Eq. J.13). Backward pass: `f̄_par += f̄_i`, `τ_i = S̄_iᵀ f̄_i`.
///
/// # Panics
/// If a vector does not have length `model.dof()`.
pub fn inverse_dynamics(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    tau: &mut [f64],
) {
    check_len("a", a, model.dof());
    newton_euler(model, ws, q, v, Some(a), tau);
}

/// Bias forces `C(q, q̇) q̇ + g(q)`: inverse dynamics at zero acceleration.
///
/// # Panics
/// If a vector does not have length `model.dof()`.
pub fn bias_forces(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64], out: &mut [f64]) {
    newton_euler(model, ws, q, v, None, out);
}

fn newton_euler(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    a: Option<&[f64]>,
    tau: &mut [f64],
) {
    check_len("tau", tau, model.dof());
    forward_kinematics(model, ws, q);
    forward_velocities(model, ws, v);
    let base_acc = stack(&Vec3::zeros(), &(-model.gravity()));
    for (i, j) in model.joints().iter().enumerate() {
        let parent = j.parent.map_or(base_acc, |p| ws.a_bar[p]);
        let qdd = a.map_or(0.0, |a| a[i]);
        let ai = parent + ws.s_bar[i] * qdd + ws.s_dot[i] * v[i];
        ws.a_bar[i] = ai;
        let h = ws.m_bar[i] * ws.v_bar[i];
        ws.f_bar[i] = ws.m_bar[i] * ai - ad_transpose_mul(&ws.v_bar[i], &h);
    }
    for i in (0..model.dof()).rev() {
        let fi: Vec6 = ws.f_bar[i];
        tau[i] = ws.s_bar[i].dot(&fi);
        if let Some(p) = model.parent(i) {
            ws.f_bar[p] += fi;
        }
    }
}
