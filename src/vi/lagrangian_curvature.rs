//! The Hessian of `φ(q, q̇) = c_1·∂L/∂q + c_2·∂L/∂q̇` at one state, `D³L(q, q̇)[c]`, in O(n·d)
//! for a tree of depth `d`: the single-state form of [`super::del_hessian`] (its tangent pass
//! and pair products at one point, without the chain rule over control points).
//!
//! `L = K − V` is the robot's Lagrangian (gravity included; no springs, dampers or loads). With
//! `c = (0, λ)`, `φ = λᵀ M(q) q̇` is a generalized momentum weighted by `λ`; with `c = (λ, 0)`,
//! `φ = λ·∂L/∂q`. The transcriptions build the curvature of their momentum rows and of inverse
//! dynamics from these.

use super::StageWorkspace;
use super::del::body_motion;
use super::del_hessian::curvature_pair;
use super::linearize::body_vectors;
use super::tangent::vary;
use crate::model::Model;
use nalgebra::DMatrix;

/// Buffers for [`lagrangian_curvature`] (a stage workspace of one control point).
#[derive(Clone, Debug)]
pub struct PointWorkspace {
    ws: StageWorkspace,
}

impl PointWorkspace {
    /// Buffers for `model`.
    pub fn new(model: &Model) -> Self {
        Self {
            ws: StageWorkspace::point(model),
        }
    }
}

/// The blocks of `∇²φ` over `(q, q̇)`.
#[derive(Clone, Debug)]
pub struct LagrangianCurvature {
    /// `∂²φ/∂q_i∂q_j`.
    pub qq: DMatrix<f64>,
    /// `∂²φ/∂q_i∂q̇_j`.
    pub qv: DMatrix<f64>,
    /// `∂²φ/∂q̇_i∂q̇_j`.
    pub vv: DMatrix<f64>,
}

impl LagrangianCurvature {
    /// Zeroed storage for `model`.
    pub fn new(model: &Model) -> Self {
        let n = model.dof();
        Self {
            qq: DMatrix::zeros(n, n),
            qv: DMatrix::zeros(n, n),
            vv: DMatrix::zeros(n, n),
        }
    }
}

/// `∇²_{(q,q̇)} (c_1·∂L/∂q + c_2·∂L/∂q̇)` at `(q, qd)` into `out`.
///
/// # Panics
/// If a vector does not have `model.dof()` entries, or the buffers belong to another model.
pub fn lagrangian_curvature(
    model: &Model,
    pw: &mut PointWorkspace,
    q: &[f64],
    qd: &[f64],
    c1: &[f64],
    c2: &[f64],
    out: &mut LagrangianCurvature,
) {
    let n = model.dof();
    let ws = &mut pw.ws;
    assert_eq!(ws.n, n, "point workspace built for another model");
    for (name, v) in [("q", q), ("qd", qd), ("c1", c1), ("c2", c2)] {
        assert_eq!(v.len(), n, "{name} must have n entries");
    }
    assert_eq!(out.qq.shape(), (n, n), "curvature built for another model");
    for i in 0..n {
        body_motion(model, ws, i, 0, q[i], qd[i]);
    }
    for i in (0..n).rev() {
        if let Some(p) = model.parent(i) {
            let mu = ws.mu[i];
            ws.mu[p] += mu;
        }
    }
    body_vectors(model, ws, 0);
    vary(model, ws, 0, c1, c2, true);
    if !ws.tree.is_chain() {
        out.qq.fill(0.0);
        out.qv.fill(0.0);
        out.vv.fill(0.0);
    }
    for i in 0..n {
        for &j in ws.tree.path(i) {
            // One control point: a = q̇_i q̇_j, p = q̇_i q_j, q = q_i q̇_j, d = q_i q_j.
            let v = curvature_pair::<1>(ws, i, j);
            out.vv[(i, j)] = v.a[0];
            out.vv[(j, i)] = v.a[0];
            out.qv[(i, j)] = v.q[0];
            out.qv[(j, i)] = v.p[0];
            out.qq[(i, j)] = v.d[0];
            out.qq[(j, i)] = v.d[0];
        }
    }
}
