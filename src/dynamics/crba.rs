//! Composite-rigid-body algorithm for the joint-space mass matrix.

use super::{Workspace, forward_kinematics};
use crate::model::Model;
use nalgebra::DMatrix;

/// The mass matrix `M(q)`: with composite inertias `M̄ᶜ_i = M̄_i + Σ_{j∈chd(i)} M̄ᶜ_j`,
/// `M_ij = M_ji = S̄_jᵀ M̄ᶜ_i S̄_i` for `j ∈ anc(i) ∪ {i}` and zero otherwise (Algorithm 2,
/// line 12 of seed 000: `∂²K/∂q̇_i∂q̇_j`).
///
/// # Panics
/// If `q` or `out` do not match `model.dof()`.
pub fn mass_matrix(model: &Model, ws: &mut Workspace, q: &[f64], out: &mut DMatrix<f64>) {
    let n = model.dof();
    assert_eq!(
        out.shape(),
        (n, n),
        "mass matrix buffer has the wrong shape"
    );
    forward_kinematics(model, ws, q);
    ws.composite.copy_from_slice(&ws.m_bar);
    out.fill(0.0);
    for i in (0..n).rev() {
        let f = ws.composite[i] * ws.s_bar[i];
        for j in model.ancestors_inclusive(i) {
            let mij = ws.s_bar[j].dot(&f);
            out[(i, j)] = mij;
            out[(j, i)] = mij;
        }
        if let Some(p) = model.parent(i) {
            let c = ws.composite[i];
            ws.composite[p] += c;
        }
    }
}
