//! The gradient of `λᵀ τ(q, q̇, q̈)` of inverse dynamics in O(n): the products of
//! [`inverse_dynamics_derivatives`](super::inverse_dynamics_derivatives) contracted with `λ`
//! before they are formed.

use super::rnea_derivatives::forward_pass;
use super::{Workspace, check_len};
use crate::model::Model;
use crate::spatial::{Vec6, ad_transpose_mul};

/// `∂(λᵀτ)/∂q`, `∂(λᵀτ)/∂q̇` and `∂(λᵀτ)/∂q̈ = M(q) λ` of `τ = RNEA(q, q̇, q̈)` (gravity included,
/// no springs or dampers), into `out[0..n]`, `out[n..2n]` and `out[2n..3n]`, in O(n).
///
/// The IDSVA derivatives (see [`inverse_dynamics_derivatives`](super::inverse_dynamics_derivatives))
/// are, for `j ⪯ i`, `∂τ_i/∂q_j = S̄_iᵀ(Cᶜ_i Ψ̇_j + M̄ᶜ_i Ψ̈_j)` and for `i ≺ j`,
/// `∂τ_i/∂q_j = S̄_iᵀ(−ad_{S̄_j}ᵀ F_j + Cᶜ_j Ψ̇_j + M̄ᶜ_j Ψ̈_j)` (likewise for `q̇` and `q̈`).
/// Summed against `λ`, the first kind collects the subtree sums `Y_j = Σ_{i ⪰ j} λ_i Cᶜ_iᵀ S̄_i`
/// and `Z_j = Σ_{i ⪰ j} λ_i M̄ᶜ_i S̄_i`, the second the ancestors' `Λ̄_j = Σ_{i ≺ j} λ_i S̄_i`:
///
/// ```text
/// ∂(λᵀτ)/∂q_j = Y_j·Ψ̇_j + Z_j·Ψ̈_j + Λ̄_j·(−ad_{S̄_j}ᵀ F_j + Cᶜ_j Ψ̇_j + M̄ᶜ_j Ψ̈_j)
/// ∂(λᵀτ)/∂q̇_j = Y_j·S̄_j + 2 Z_j·Ψ̇_j + Λ̄_j·(Cᶜ_j S̄_j + 2 M̄ᶜ_j Ψ̇_j)
/// ∂(λᵀτ)/∂q̈_j = Z_j·S̄_j + Λ̄_j·M̄ᶜ_j S̄_j
/// ```
///
/// one forward pass for `Λ̄` and the RNEA quantities, one backward pass for the composites,
/// `Y`, `Z` and the gradient.
///
/// # Panics
/// If a vector does not have length `model.dof()` (`out`: `3·model.dof()`), or the workspace
/// belongs to another model.
pub fn inverse_dynamics_gradient(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    lambda: &[f64],
    out: &mut [f64],
) {
    let n = model.dof();
    check_len("a", a, n);
    check_len("lambda", lambda, n);
    assert_eq!(out.len(), 3 * n, "out must hold 3n entries");
    forward_pass(model, ws, q, v, a);
    for (i, j) in model.joints().iter().enumerate() {
        ws.lam_bar[i] = j
            .parent
            .map_or(Vec6::zeros(), |p| ws.lam_bar[p] + ws.s_bar[p] * lambda[p]);
        ws.y_sum[i] = Vec6::zeros();
        ws.z_sum[i] = Vec6::zeros();
    }
    for i in (0..n).rev() {
        // Composites and subtree sums of body i are complete: its descendants come later.
        let (s, f, mc, cc) = (ws.s_bar[i], ws.f_bar[i], ws.composite[i], ws.coriolis[i]);
        let (pd, pdd, lam) = (ws.s_dot[i], ws.psi_ddot[i], ws.lam_bar[i]);
        let mc_s = mc * s;
        let y = ws.y_sum[i] + cc.tr_mul(&s) * lambda[i];
        let z = ws.z_sum[i] + mc_s * lambda[i];
        let mc_pd = mc * pd;
        out[i] =
            y.dot(&pd) + z.dot(&pdd) + lam.dot(&(-ad_transpose_mul(&s, &f) + cc * pd + mc * pdd));
        out[n + i] = y.dot(&s) + 2.0 * z.dot(&pd) + lam.dot(&(cc * s + 2.0 * mc_pd));
        out[2 * n + i] = z.dot(&s) + lam.dot(&mc_s);
        if let Some(p) = model.parent(i) {
            ws.f_bar[p] += f;
            ws.composite[p] += mc;
            ws.coriolis[p] += cc;
            ws.y_sum[p] += y;
            ws.z_sum[p] += z;
        }
    }
}
