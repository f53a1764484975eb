//! The generalized momentum `p = ∂K/∂q̇ = M(q) q̇` and its configuration derivative — the
//! Legendre transform used for boundary conditions on the discrete momentum.

use super::{Workspace, check_len, forward_kinematics, forward_velocities};
use crate::model::Model;
use crate::spatial::ad_dual;
use nalgebra::DMatrix;

/// Writes `p = M(q) q̇` (Eq. K.8: `p_i = S̄_iᵀ μ̄_i` with the articulated momenta `μ̄`) and
/// `∂p/∂q` (Algorithm 2 of seed 000: for `j ∈ anc(i) ∪ {i}`, `∂p_i/∂q_j = Ṡ̄_jᵀ M̄ᶜ_i S̄_i` and
/// `∂p_j/∂q_i = S̄_jᵀ (M̄ᶜ_i Ṡ̄_i − ad^D_{μ̄_i} S̄_i)`), in O(n·depth).
///
/// # Panics
/// If the sizes do not match `model.dof()`.
pub fn generalized_momentum(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    p: &mut [f64],
    dp_dq: &mut DMatrix<f64>,
) {
    let n = model.dof();
    check_len("p", p, n);
    assert_eq!(dp_dq.shape(), (n, n), "dp_dq has the wrong shape");
    forward_kinematics(model, ws, q);
    forward_velocities(model, ws, v);
    for i in 0..n {
        ws.composite[i] = ws.m_bar[i];
        ws.f_bar[i] = ws.m_bar[i] * ws.v_bar[i];
    }
    dp_dq.fill(0.0);
    for i in (0..n).rev() {
        let (ic, mu) = (ws.composite[i], ws.f_bar[i]);
        let (si, sdi) = (ws.s_bar[i], ws.s_dot[i]);
        p[i] = si.dot(&mu);
        let ma = ic * si;
        let mb = ic * sdi - ad_dual(&mu) * si;
        for j in model.ancestors_inclusive(i) {
            dp_dq[(i, j)] = ws.s_dot[j].dot(&ma);
            dp_dq[(j, i)] = ws.s_bar[j].dot(&mb);
        }
        if let Some(par) = model.parent(i) {
            ws.composite[par] += ic;
            ws.f_bar[par] += mu;
        }
    }
}
