//! The Hessian of `λᵀ r` of one stage with respect to its control points in O(s²n·d) for a tree
//! of depth `d` (O(n²) for a chain): the analytic Jacobian of [`super::del_gradient`].
//!
//! In the notation of [`super::del_gradient`], `λᵀ r = Σ_β φ_β(q^β, q̇^β) + …` with
//! `∇φ_β = ∇²L c^β + ∇(c_1^β·Q)`, so `∇²φ_β = D³L[c^β] + ∇²(c_1^β·Q)`: the derivative of the
//! Lagrangian's Hessian along the one direction `c^β`. The springs and dampers are linear and
//! drop out. The Lagrangian's Hessian is what Algorithms 2 and 3 compute pair by pair,
//!
//! ```text
//! ∂²L/∂q̇_i∂q̇_j = S̄_j·M̄ᴬ_i   ∂²L/∂q̇_i∂q_j = Ṡ̄_j·M̄ᴬ_i   ∂²L/∂q_i∂q̇_j = S̄_j·M̄ᴮ_i
//! ∂²L/∂q_i∂q_j = Ṡ̄_j·M̄ᴮ_i − ∂²V/∂q_i∂q_j                              (j ∈ anc(i) ∪ {i})
//! ```
//!
//! and these are identities in `(q, q̇)`, so their derivatives along `c^β` are the same products
//! with one factor varied at a time, from [`super::tangent`] (`δS̄`, `δṠ̄`, `δM̄ᴬ`, `δM̄ᴮ`, `δσ`):
//! eight 6-vector products per pair and control point. The chain rule through
//! `q̇^β = Σ_γ b^{βγ} q^γ / Δt` combines the points exactly as in the stage Jacobian, with
//! other coefficients ([`BlockCoefficients::hessian`]).
//!
//! The loads' generalized forces `c_1·Σ_l J_l(q)ᵀ f_l` are not a gradient field; their
//! curvature at fixed forces is taken by central differences of their O(d) gradient
//! ([`super::load_gradient`]) along the coordinates of their paths, node by node.

use super::del::{Detail, evaluate};
use super::del_gradient::{direction, load_gradient};
use super::galerkin::MAX_STAGE_ORDER;
use super::linearize::{BlockCoefficients, PairValues, body_vectors};
use super::tangent::vary;
use super::{Galerkin, Stage, StageWorkspace};
use crate::model::Model;
use crate::spatial::upper;
use nalgebra::DMatrix;

/// Relative step of the central differences of the loads' gradient.
pub const LOAD_DIFFERENCE_STEP: f64 = 1e-6;

/// The Hessian `∇²_q (λᵀ r)` over the stage's control points (row and column `γ·n + j`) at
/// fixed load forces, into the symmetric `(s+1)n × (s+1)n` matrix `out`; `lambda[α·n + i]`
/// multiplies output `α` (α = s: `p^{k+1}`) of joint `i`. The torques and the load forces enter
/// `r` linearly: `∂²(λᵀr)/∂q∂f` is the derivative of [`super::StageGradient::dforce`], and there
/// is no other curvature.
///
/// # Panics
/// If the buffers, the stage, `lambda` or `out` do not match the model and integrator.
pub fn del_hessian(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    stage: &Stage,
    lambda: &[f64],
    out: &mut DMatrix<f64>,
) {
    let (n, s) = (model.dof(), gal.s());
    let m = s + 1;
    assert_eq!(lambda.len(), m * n, "lambda must hold s+1 outputs");
    assert_eq!(
        out.shape(),
        (m * n, m * n),
        "Hessian built for another model"
    );
    evaluate(model, gal, ws, stage, Detail::Residual);
    for be in 0..m {
        direction(gal, stage.dt, be, lambda, n, &mut ws.c1, &mut ws.c2);
        body_vectors(model, ws, be);
        let (c1, c2) = (std::mem::take(&mut ws.c1), std::mem::take(&mut ws.c2));
        vary(model, ws, be, &c1, &c2, true);
        (ws.c1, ws.c2) = (c1, c2);
    }
    if !ws.tree.is_chain() {
        out.fill(0.0);
    }
    match m {
        2 => related_pairs::<2>(gal, ws, stage.dt, out),
        3 => related_pairs::<3>(gal, ws, stage.dt, out),
        4 => related_pairs::<4>(gal, ws, stage.dt, out),
        5 => related_pairs::<5>(gal, ws, stage.dt, out),
        6 => related_pairs::<6>(gal, ws, stage.dt, out),
        _ => related_pairs::<{ MAX_STAGE_ORDER + 1 }>(gal, ws, stage.dt, out),
    }
    if !stage.loads.is_empty() {
        load_curvature(model, gal, ws, stage, lambda, out);
    }
}

/// The derivatives along `c^β` of the pair products of Algorithms 2 and 3, combined into the
/// stage Hessian.
fn related_pairs<const M: usize>(
    gal: &Galerkin,
    ws: &StageWorkspace,
    dt: f64,
    out: &mut DMatrix<f64>,
) {
    let n = ws.n;
    let coef = BlockCoefficients::<M>::hessian(gal, dt);
    let out = out.as_mut_slice();
    for i in 0..n {
        for &j in ws.tree.path(i) {
            coef.write(out, n, i, j, &curvature_pair::<M>(ws, i, j));
        }
    }
}

/// The derivatives along the direction last varied ([`vary`]) of the pair products of
/// Algorithms 2 and 3 of the related pair `(i, j)`, `j ∈ anc(i) ∪ {i}`, at the `M = s + 1`
/// control points of `ws`: `δA = δS̄_j·M̄ᴬ_i + S̄_j·δM̄ᴬ_i`, `δP = δṠ̄_j·M̄ᴬ_i + Ṡ̄_j·δM̄ᴬ_i`,
/// `δQ = δS̄_j·M̄ᴮ_i + S̄_j·δM̄ᴮ_i`, `δD = δṠ̄_j·M̄ᴮ_i + Ṡ̄_j·δM̄ᴮ_i − δS̄_{j,ω}·σ_i − S̄_{j,ω}·δσ_i`.
#[inline]
pub(crate) fn curvature_pair<const M: usize>(
    ws: &StageWorkspace,
    i: usize,
    j: usize,
) -> PairValues<M> {
    let (lb, t) = (&ws.lin, &ws.tangent);
    let (ri, rj) = (i * M..(i + 1) * M, j * M..(j + 1) * M);
    let (ma, mb, sigma) = (
        &lb.ma[ri.clone()],
        &lb.mb[ri.clone()],
        &lb.sigma[ri.clone()],
    );
    let (dma, dmb, dsigma) = (&t.dma[ri.clone()], &t.dmb[ri.clone()], &t.dsigma[ri]);
    let (sj, sdj) = (&ws.sb[rj.clone()], &ws.sd[rj.clone()]);
    let (dsj, dsdj) = (&t.dsb[rj.clone()], &t.dsd[rj]);
    let mut v = PairValues::<M>::default();
    for be in 0..M {
        v.a[be] = dsj[be].dot(&ma[be]) + sj[be].dot(&dma[be]);
        v.p[be] = dsdj[be].dot(&ma[be]) + sdj[be].dot(&dma[be]);
        v.q[be] = dsj[be].dot(&mb[be]) + sj[be].dot(&dmb[be]);
        v.d[be] = dsdj[be].dot(&mb[be]) + sdj[be].dot(&dmb[be])
            - upper(&dsj[be]).dot(&sigma[be])
            - upper(&sj[be]).dot(&dsigma[be]);
    }
    v
}

/// Adds the loads' curvature at fixed forces, node by node: central differences of
/// [`load_gradient`] along the coordinates of the loads' paths, symmetrized.
fn load_curvature(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    stage: &Stage,
    lambda: &[f64],
    out: &mut DMatrix<f64>,
) {
    let n = model.dof();
    let nl = stage.loads.len();
    let mut lc = std::mem::take(&mut ws.load_curvature);
    lc.dforce.resize(nl * 3, 0.0);
    lc.on_path.fill(false);
    for load in stage.loads {
        for &j in ws.tree.path(load.body) {
            lc.on_path[j] = true;
        }
    }
    for be in 0..=gal.s() {
        direction(gal, stage.dt, be, lambda, n, &mut ws.c1, &mut ws.c2);
        let c1 = std::mem::take(&mut ws.c1);
        let forces = &stage.forces[be * nl * 3..(be + 1) * nl * 3];
        lc.q.copy_from_slice(&stage.q[be * n..(be + 1) * n]);
        lc.block.fill(0.0);
        for j in (0..n).filter(|&j| lc.on_path[j]) {
            let q0 = lc.q[j];
            let h = LOAD_DIFFERENCE_STEP * q0.abs().max(1.0);
            for (side, e) in [h, -h].into_iter().enumerate() {
                lc.q[j] = q0 + e;
                let g = &mut lc.gradient[side];
                g.fill(0.0);
                load_gradient(
                    model,
                    &mut ws.loads,
                    &lc.q,
                    stage.loads,
                    forces,
                    &c1,
                    g,
                    &mut lc.dforce,
                );
            }
            lc.q[j] = q0;
            for i in 0..n {
                lc.block[(i, j)] = (lc.gradient[0][i] - lc.gradient[1][i]) / (2.0 * h);
            }
        }
        for j in 0..n {
            for i in 0..n {
                out[(be * n + i, be * n + j)] += 0.5 * (lc.block[(i, j)] + lc.block[(j, i)]);
            }
        }
        ws.c1 = c1;
    }
    ws.load_curvature = lc;
}

/// Scratch of [`load_curvature`].
#[derive(Clone, Debug, Default)]
pub(crate) struct LoadCurvatureBuffers {
    on_path: Vec<bool>,
    q: Vec<f64>,
    gradient: [Vec<f64>; 2],
    dforce: Vec<f64>,
    block: DMatrix<f64>,
}

impl LoadCurvatureBuffers {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            on_path: vec![false; n],
            q: vec![0.0; n],
            gradient: [vec![0.0; n], vec![0.0; n]],
            dforce: Vec::new(),
            block: DMatrix::zeros(n, n),
        }
    }
}
