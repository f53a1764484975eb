//! Analytic first-order derivatives of inverse dynamics in world (ground) coordinates: the
//! single-DoF IDSVA algorithm of seed 004 (Singh, Russell, Wensing), which is also the pattern of
//! Pinocchio's `computeRNEADerivatives`.

use super::{Workspace, check_len, forward_kinematics, forward_velocities};
use crate::model::Model;
use crate::spatial::{Vec3, Vec6, ad, ad_dual, ad_mul, ad_transpose_mul, stack};
use nalgebra::DMatrix;

/// `τ = RNEA(q, q̇, q̈)` together with its partial derivatives, preallocated for one model.
///
/// Entry `(i, j)` of each matrix is the derivative of `τ_i` with respect to the `j`-th
/// coordinate; it is zero unless joints `i` and `j` lie on one path to the root (one is an
/// ancestor of the other, or `i = j`).
#[derive(Clone, Debug)]
pub struct InverseDynamicsDerivatives {
    /// `τ = M(q) q̈ + C(q, q̇) q̇ + g(q)` (n); springs and dampers are not included.
    pub tau: Vec<f64>,
    /// `∂τ/∂q` (n×n).
    pub dtau_dq: DMatrix<f64>,
    /// `∂τ/∂q̇` (n×n).
    pub dtau_dv: DMatrix<f64>,
    /// `∂τ/∂q̈ = M(q)`, the joint-space mass matrix (n×n, symmetric).
    pub dtau_da: DMatrix<f64>,
}

impl InverseDynamicsDerivatives {
    /// Zeroed storage for `model`.
    pub fn new(model: &Model) -> Self {
        let n = model.dof();
        Self {
            tau: vec![0.0; n],
            dtau_dq: DMatrix::zeros(n, n),
            dtau_dv: DMatrix::zeros(n, n),
            dtau_da: DMatrix::zeros(n, n),
        }
    }
}

/// Inverse dynamics `τ = RNEA(q, q̇, q̈)` (gravity included, no springs or dampers) and its exact
/// partial derivatives `∂τ/∂q`, `∂τ/∂q̇` and `∂τ/∂q̈ = M(q)`, in O(n·d) for a tree of depth `d`.
///
/// Every spatial quantity is in the world frame. The forward pass is the RNEA of
/// [`inverse_dynamics`](super::inverse_dynamics) (`v̄_i`, `ā_i` with `ā_0 = (0, −g)`, body
/// wrenches `f̄_i = M̄_i ā_i − ad_{v̄_i}ᵀ M̄_i v̄_i`) plus, for every joint `j` with parent `λ(j)`,
///
/// ```text
/// Ψ̇_j = ad_{v̄_λ(j)} S̄_j  (= Ṡ̄_j for a 1-DoF joint),   Ψ̈_j = ad_{ā_λ(j)} S̄_j + ad_{v̄_λ(j)} Ψ̇_j,
/// C_k = ∂f̄_k/∂v̄_k − M̄_k ad_{v̄_k} = −ad^D_{M̄_k v̄_k} − ad_{v̄_k}ᵀ M̄_k − M̄_k ad_{v̄_k}.
/// ```
///
/// Moving `q_j` moves the subtree of `j` rigidly along `S̄_j`; the body wrench is covariant under
/// that motion except for the velocity and acceleration of `λ(j)`, which stay put, so for `k` in
/// the subtree of `j`: `∂f̄_k/∂q_j = −ad_{S̄_j}ᵀ f̄_k + C_k Ψ̇_j + M̄_k Ψ̈_j` and
/// `∂f̄_k/∂q̇_j = C_k S̄_j + 2 M̄_k Ψ̇_j`. The backward pass accumulates subtree composites
/// `F_i = Σ f̄_k`, `M̄ᶜ_i = Σ M̄_k`, `Cᶜ_i = Σ C_k` and gives, with `τ_i = S̄_iᵀ F_i`:
///
/// ```text
/// j ⪯ i (j = i or an ancestor):  ∂τ_i/∂q_j = S̄_iᵀ (Cᶜ_i Ψ̇_j + M̄ᶜ_i Ψ̈_j)
///                                ∂τ_i/∂q̇_j = S̄_iᵀ (Cᶜ_i S̄_j + 2 M̄ᶜ_i Ψ̇_j)
///                                M_ij = M_ji = S̄_iᵀ M̄ᶜ_i S̄_j
/// i ≺ j (i a strict ancestor):   ∂τ_i/∂q_j = S̄_iᵀ (−ad_{S̄_j}ᵀ F_j + Cᶜ_j Ψ̇_j + M̄ᶜ_j Ψ̈_j)
///                                ∂τ_i/∂q̇_j = S̄_iᵀ (Cᶜ_j S̄_j + 2 M̄ᶜ_j Ψ̇_j)
/// ```
///
/// (for `j ⪯ i` the term `(ad_{S̄_j} S̄_i)ᵀ F_i` from `∂S̄_i/∂q_j` cancels `−S̄_iᵀ ad_{S̄_j}ᵀ F_i`).
/// Pairs of joints on different branches get zero. Nothing is allocated.
///
/// # Panics
/// If a vector does not have length `model.dof()`, or the workspace or `out` belong to another
/// model.
pub fn inverse_dynamics_derivatives(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    out: &mut InverseDynamicsDerivatives,
) {
    let n = model.dof();
    check_len("a", a, n);
    check_len("tau", &out.tau, n);
    for m in [&out.dtau_dq, &out.dtau_dv, &out.dtau_da] {
        assert_eq!(
            m.shape(),
            (n, n),
            "derivative buffers built for another model"
        );
    }
    forward_pass(model, ws, q, v, a);
    out.dtau_dq.fill(0.0);
    out.dtau_dv.fill(0.0);
    out.dtau_da.fill(0.0);
    for i in (0..n).rev() {
        // Composites of body i are complete: its descendants have larger indices.
        let (s, f, mc, cc) = (ws.s_bar[i], ws.f_bar[i], ws.composite[i], ws.coriolis[i]);
        out.tau[i] = s.dot(&f);
        let mc_s = mc * s;
        let cc_t_s = cc.transpose() * s;
        for j in model.ancestors_inclusive(i) {
            let (sj, pd, pdd) = (ws.s_bar[j], ws.s_dot[j], ws.psi_ddot[j]);
            out.dtau_dq[(i, j)] = cc_t_s.dot(&pd) + mc_s.dot(&pdd);
            out.dtau_dv[(i, j)] = cc_t_s.dot(&sj) + 2.0 * mc_s.dot(&pd);
            let mij = mc_s.dot(&sj);
            out.dtau_da[(i, j)] = mij;
            out.dtau_da[(j, i)] = mij;
        }
        let (pd, pdd) = (ws.s_dot[i], ws.psi_ddot[i]);
        let col_q = -ad_transpose_mul(&s, &f) + cc * pd + mc * pdd;
        let col_v = cc * s + 2.0 * (mc * pd);
        for k in model.ancestors_inclusive(i).skip(1) {
            out.dtau_dq[(k, i)] = ws.s_bar[k].dot(&col_q);
            out.dtau_dv[(k, i)] = ws.s_bar[k].dot(&col_v);
        }
        if let Some(p) = model.parent(i) {
            ws.f_bar[p] += f;
            ws.composite[p] += mc;
            ws.coriolis[p] += cc;
        }
    }
}

/// The forward pass of the derivatives: kinematics, velocities, `ā_i`, `Ψ̈_i`, the body wrenches
/// `f̄_i`, and the composites' starting values `M̄_i` and `C_i` (see
/// [`inverse_dynamics_derivatives`]).
pub(super) fn forward_pass(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64], a: &[f64]) {
    forward_kinematics(model, ws, q);
    forward_velocities(model, ws, v);
    let base_acc = stack(&Vec3::zeros(), &(-model.gravity()));
    for (i, j) in model.joints().iter().enumerate() {
        let (v_parent, a_parent) = j
            .parent
            .map_or((Vec6::zeros(), base_acc), |p| (ws.v_bar[p], ws.a_bar[p]));
        let s = ws.s_bar[i];
        // For a 1-DoF joint Ψ̇_i = ad_{v̄_λ(i)} S̄_i = ad_{v̄_i} S̄_i = Ṡ̄_i.
        let psi_dot = ws.s_dot[i];
        ws.psi_ddot[i] = ad_mul(&a_parent, &s) + ad_mul(&v_parent, &psi_dot);
        let ai = a_parent + s * a[i] + psi_dot * v[i];
        ws.a_bar[i] = ai;
        let (mb, vb) = (ws.m_bar[i], ws.v_bar[i]);
        let h = mb * vb;
        ws.f_bar[i] = mb * ai - ad_transpose_mul(&vb, &h);
        ws.composite[i] = mb;
        let m_ad = mb * ad(&vb);
        ws.coriolis[i] = -ad_dual(&h) - m_ad.transpose() - m_ad;
    }
}
