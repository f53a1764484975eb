//! Articulated-body algorithm for forward dynamics, in world coordinates.

use super::{Workspace, check_len, forward_kinematics, forward_velocities};
use crate::model::Model;
use crate::spatial::{Vec3, ad_transpose_mul, stack};

/// Forward dynamics `q̈ = M(q)⁻¹ (τ − C(q, q̇) q̇ − g(q))` in O(n) by Featherstone's
/// articulated-body algorithm, every quantity in the world frame:
///
/// 1. `c̄_i = Ṡ̄_i q̇_i`, bias wrench `p̄_i = −ad_{v̄_i}ᵀ M̄_i v̄_i`, `Iᴬ_i = M̄_i`, `pᴬ_i = p̄_i`;
/// 2. leaves to root: `U_i = Iᴬ_i S̄_i`, `D_i = S̄_iᵀ U_i`, `u_i = τ_i − S̄_iᵀ pᴬ_i`, and the parent
///    receives `Iᵃ = Iᴬ_i − U_i U_iᵀ / D_i` and `pᵃ = pᴬ_i + Iᵃ c̄_i + U_i u_i / D_i`;
/// 3. root to leaves with `ā_0 = (0, −g)`: `a' = ā_par + c̄_i`, `q̈_i = (u_i − U_iᵀ a') / D_i`,
///    `ā_i = a' + S̄_i q̈_i`.
///
/// # Panics
/// If a vector does not have length `model.dof()`.
pub fn forward_dynamics(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
    qdd: &mut [f64],
) {
    let n = model.dof();
    check_len("tau", tau, n);
    check_len("qdd", qdd, n);
    forward_kinematics(model, ws, q);
    forward_velocities(model, ws, v);
    for (i, &qd) in v.iter().enumerate() {
        // a_bar holds c̄_i during the sweeps.
        ws.a_bar[i] = ws.s_dot[i] * qd;
        ws.art_inertia[i] = ws.m_bar[i];
        let h = ws.m_bar[i] * ws.v_bar[i];
        ws.art_bias[i] = -ad_transpose_mul(&ws.v_bar[i], &h);
    }
    for i in (0..n).rev() {
        let ia = ws.art_inertia[i];
        let ui = ia * ws.s_bar[i];
        let di = ws.s_bar[i].dot(&ui);
        let u = tau[i] - ws.s_bar[i].dot(&ws.art_bias[i]);
        ws.u_vec[i] = ui;
        ws.d[i] = di;
        ws.u[i] = u;
        if let Some(p) = model.parent(i) {
            let ia_child = ia - ui * ui.transpose() / di;
            let pa = ws.art_bias[i] + ia_child * ws.a_bar[i] + ui * (u / di);
            ws.art_inertia[p] += ia_child;
            ws.art_bias[p] += pa;
        }
    }
    let base_acc = stack(&Vec3::zeros(), &(-model.gravity()));
    for (i, j) in model.joints().iter().enumerate() {
        let parent = j.parent.map_or(base_acc, |p| ws.a_bar[p]);
        let a_prime = parent + ws.a_bar[i];
        let acc = (ws.u[i] - ws.u_vec[i].dot(&a_prime)) / ws.d[i];
        qdd[i] = acc;
        ws.a_bar[i] = a_prime + ws.s_bar[i] * acc;
    }
}
