//! The gradient of `λᵀ r` of one stage with respect to its control points in O(sn): one
//! directional derivative of the Lagrangian's gradient per control point.
//!
//! With multipliers `λ^α` of the stage outputs `r^α` (α = 0..=s, `r^s = p^{k+1}`), Eqs. 5a–5c
//! give `λᵀ r = λ^0·p^k + Σ_β φ_β(q^β, q̇^β) + (linear in u)` with
//!
//! ```text
//! φ_β(q, q̇) = c_1^β·(∂L/∂q + Q)(q, q̇) + c_2^β·∂L/∂q̇(q, q̇),   c_1^β = w^β Δt λ^β,   c_2^β = Σ_α a^{αβ} λ^α
//! ```
//!
//! (`Q` the joint springs and dampers and the loads' generalized forces). So `∇φ_β = ∇²L c^β +
//! ∇(c_1^β·Q)` is a Hessian-vector product of the Lagrangian along `c^β = (c_1^β, c_2^β)`: the
//! derivative of `∂L/∂q̇_i = S̄_i·μ̄_i` and `∂L/∂q_i = Ṡ̄_i·μ̄_i + S̄_i·Γ̄_i` (Algorithm 1) along
//! `c^β`, which [`super::tangent`] gives in one pass. The chain rule through
//! `q̇^β = Σ_γ b^{βγ} q^γ / Δt` then sums the points:
//! `∂(λᵀr)/∂q^γ = Σ_β (δ_βγ ∂φ_β/∂q + b^{βγ}/Δt ∂φ_β/∂q̇)`.

use super::del::{Detail, evaluate, point_wrench, wrench_stiffness};
use super::linearize::body_vectors;
use super::tangent::vary;
use super::{Galerkin, Paths, PointLoad, Stage, StageWorkspace};
use crate::dynamics::JointFrame;
use crate::model::Model;
use crate::spatial::{Transform, Vec3, Vec6, ad_mul, hat, lower, stack, upper};

/// `∂(λᵀ r)/∂q` and `∂(λᵀ r)/∂f` of one stage.
#[derive(Clone, Debug)]
pub struct StageGradient {
    /// `∂/∂q^{k,γ}_j` at `γ·n + j`, γ = 0..=s.
    pub dq: Vec<f64>,
    /// `∂/∂f^{k,γ}_l` at `(γ·L + l)·3 + d`: `w^γ Δt J_l(q^γ) λ^γ`, the velocity of the load's
    /// point under the joint velocity `c_1^γ`.
    pub dforce: Vec<f64>,
}

impl StageGradient {
    /// Zeroed storage for `model` under `gal` with `loads` point loads.
    pub fn new(model: &Model, gal: &Galerkin, loads: usize) -> Self {
        let m = gal.s() + 1;
        Self {
            dq: vec![0.0; m * model.dof()],
            dforce: vec![0.0; m * loads * 3],
        }
    }
}

/// Buffers for [`load_gradient`]: the joints' constants and the kinematics of one path.
#[derive(Clone, Debug)]
pub struct LoadWorkspace {
    frames: Vec<JointFrame>,
    tree: Paths,
    pose: Vec<Transform>,
    twist: Vec<Vec6>,
}

impl LoadWorkspace {
    /// Buffers for `model`.
    pub fn new(model: &Model) -> Self {
        let n = model.dof();
        Self {
            frames: model.joints().iter().map(JointFrame::new).collect(),
            tree: Paths::new(model),
            pose: vec![Transform::identity(); n],
            twist: vec![Vec6::zeros(); n],
        }
    }
}

/// The gradient of `λᵀ r` over the stage's control points at fixed load forces, and over those
/// forces; `lambda[α·n + i]` multiplies output `α` (α = s: `p^{k+1}`) of joint `i`.
///
/// Cost O(sn): Algorithm 1, then per control point one tangent pass, the contraction
///
/// ```text
/// ∂φ/∂q̇_i = δS̄_i·μ̄_i + S̄_i·δμ̄_i − d_i c_1,i
/// ∂φ/∂q_i  = δṠ̄_i·μ̄_i + Ṡ̄_i·δμ̄_i + δS̄_i·Γ̄_i + S̄_i·δΓ̄_i − k_i c_1,i      Γ̄_i = (h_i × g, m_i g)
/// ```
///
/// (`δΓ̄_i = (δh_i × g, 0)` of gravity on the subtree, `k`, `d` the spring and damper) and the
/// loads of [`load_gradient`].
///
/// # Panics
/// If the buffers, the stage, `lambda` or `out` do not match the model and integrator.
pub fn del_gradient(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    stage: &Stage,
    lambda: &[f64],
    out: &mut StageGradient,
) {
    let (n, s) = (model.dof(), gal.s());
    let m = s + 1;
    let nl = stage.loads.len();
    assert_eq!(lambda.len(), m * n, "lambda must hold s+1 outputs");
    assert_eq!(out.dq.len(), m * n, "StageGradient built for another model");
    assert_eq!(
        out.dforce.len(),
        m * nl * 3,
        "StageGradient built for another load count"
    );
    evaluate(model, gal, ws, stage, Detail::Residual);
    out.dq.fill(0.0);
    let dt = stage.dt;
    let gravity = model.gravity();
    for be in 0..m {
        direction(gal, dt, be, lambda, n, &mut ws.c1, &mut ws.c2);
        body_vectors(model, ws, be);
        let (c1, c2) = (std::mem::take(&mut ws.c1), std::mem::take(&mut ws.c2));
        vary(model, ws, be, &c1, &c2, false);
        let t = &ws.tangent;
        for (i, j) in model.joints().iter().enumerate() {
            let k = ws.idx(i, be);
            let (mu, dmu) = (ws.mu[k], t.dmu[k]);
            let comp = &ws.lin.composite[i];
            let gam = stack(&comp.moment.cross(&gravity), &(gravity * comp.mass));
            let dgam = stack(&t.dmoment(i).cross(&gravity), &Vec3::zeros());
            let stiffness = j.spring.map_or(0.0, |sp| sp.stiffness);
            let gv = t.dsb[k].dot(&mu) + ws.sb[k].dot(&dmu) - j.damping * c1[i];
            let gq =
                t.dsd[k].dot(&mu) + ws.sd[k].dot(&dmu) + t.dsb[k].dot(&gam) + ws.sb[k].dot(&dgam)
                    - stiffness * c1[i];
            for ga in 0..m {
                let mut v = gal.b(be, ga) / dt * gv;
                if ga == be {
                    v += gq;
                }
                out.dq[ga * n + i] += v;
            }
        }
        if nl > 0 {
            let f = &stage.forces[be * nl * 3..(be + 1) * nl * 3];
            let q = &stage.q[be * n..(be + 1) * n];
            let dforce = &mut out.dforce[be * nl * 3..(be + 1) * nl * 3];
            let dq = &mut out.dq[be * n..(be + 1) * n];
            load_gradient(model, &mut ws.loads, q, stage.loads, f, &c1, dq, dforce);
        }
        (ws.c1, ws.c2) = (c1, c2);
    }
}

/// The direction `c^β = (c_1^β, c_2^β)` of control point `β`: `c_1 = w^β Δt λ^β`,
/// `c_2 = Σ_α a^{αβ} λ^α`.
pub(crate) fn direction(
    gal: &Galerkin,
    dt: f64,
    be: usize,
    lambda: &[f64],
    n: usize,
    c1: &mut [f64],
    c2: &mut [f64],
) {
    let wdt = gal.w(be) * dt;
    for i in 0..n {
        c1[i] = wdt * lambda[be * n + i];
        c2[i] = (0..=gal.s())
            .map(|al| gal.a(al, be) * lambda[al * n + i])
            .sum();
    }
}

/// The loads' part of the gradient at one configuration: adds
/// `∂/∂q (c·Σ_l J_l(q)ᵀ f_l)` at fixed forces to `dq` (n) and writes `J_l(q) c`, the velocity
/// of load `l`'s point under the joint velocity `c`, to `dforce[3l..3l+3]`. Cost O(d) per load
/// for a tree of depth `d`, kinematics included.
///
/// With `η̄ = Σ_{k ⪯ b} S̄_k c_k` the twist of the load's body `b` and `F̄ = (p × f, f)`,
/// `c·Jᵀf = η̄·F̄`, whose derivative along `q_j` (j on the path of `b`) is
/// `F̄·ad_{S̄_j} E_j + η̄·D₁F̄ S̄_j` with `E_j = Σ_{j ⪯ k ⪯ b} S̄_k c_k` (Eqs. J.3, J.7a).
///
/// # Panics
/// If a slice does not match the model or the loads.
#[allow(clippy::too_many_arguments)]
pub fn load_gradient(
    model: &Model,
    lw: &mut LoadWorkspace,
    q: &[f64],
    loads: &[PointLoad],
    forces: &[f64],
    c: &[f64],
    dq: &mut [f64],
    dforce: &mut [f64],
) {
    let n = model.dof();
    assert!(
        q.len() == n && c.len() == n && dq.len() == n,
        "q, c and dq need n entries"
    );
    assert!(
        forces.len() == loads.len() * 3 && dforce.len() == loads.len() * 3,
        "forces and dforce need 3 entries per load"
    );
    assert_eq!(lw.frames.len(), n, "load workspace built for another model");
    let LoadWorkspace {
        frames,
        tree,
        pose,
        twist,
    } = lw;
    for (l, load) in loads.iter().enumerate() {
        let path = tree.path(load.body);
        let len = path.len();
        for t in (0..len).rev() {
            let k = path[t];
            let parent = (t + 1 < len).then(|| pose[t + 1]);
            pose[t] = frames[k].pose(parent.as_ref(), q[k]);
            twist[t] = frames[k].twist(&pose[t]);
        }
        let f = Vec3::new(forces[3 * l], forces[3 * l + 1], forces[3 * l + 2]);
        let p = pose[0].transform_point(&load.offset);
        let wrench = point_wrench(&p, &f);
        let stiffness = wrench_stiffness(&(hat(&f) * hat(&p)), &f);
        let eta: Vec6 = (0..len).map(|t| twist[t] * c[path[t]]).sum();
        let w = lower(&eta) + upper(&eta).cross(&p);
        dforce[3 * l..3 * l + 3].copy_from_slice(w.as_slice());
        let d_eta = stiffness.tr_mul(&eta);
        let mut e = Vec6::zeros();
        for t in 0..len {
            let sj = twist[t];
            e += sj * c[path[t]];
            dq[path[t]] += wrench.dot(&ad_mul(&sj, &e)) + d_eta.dot(&sj);
        }
    }
}
