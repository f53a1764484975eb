//! The O(s²n²) linearization of one stage: Algorithm 2 (second derivatives of the kinetic
//! energy), Algorithm 3 (Hessian of the gravitational potential) and the chain rule through
//! Eqs. 2, 4 and 5.

use super::{Galerkin, Stage, StageWorkspace, del::evaluate};
use crate::model::Model;
use crate::spatial::{Mat6, Vec3, Vec6, ad_dual, ad_mul, hat, lower, upper};
use nalgebra::{DMatrix, DVector};

/// Per-control-point second derivatives, preallocated.
#[derive(Clone, Debug)]
pub(crate) struct LinearizeBuffers {
    /// `∂²K/∂q̇∂q̇` at each control point.
    kvv: Vec<DMatrix<f64>>,
    /// `[i][j] = ∂/∂q_j (∂K/∂q̇_i)`.
    kvq: Vec<DMatrix<f64>>,
    /// `∂²K/∂q∂q`.
    kqq: Vec<DMatrix<f64>>,
    /// `∂²V/∂q∂q` plus minus the derivative of the load forces: the stiffness of the
    /// position-dependent generalized forces, sign as it enters `−∂V/∂q + Jᵀf`.
    fq: Vec<DMatrix<f64>>,
    composite: Vec<Mat6>,
    mass: Vec<f64>,
    moment: Vec<Vec3>,
}

impl LinearizeBuffers {
    pub(crate) fn new(n: usize, s: usize) -> Self {
        let mats = || vec![DMatrix::zeros(n, n); s + 1];
        Self {
            kvv: mats(),
            kvq: mats(),
            kqq: mats(),
            fq: mats(),
            composite: vec![Mat6::zeros(); n],
            mass: vec![0.0; n],
            moment: vec![Vec3::zeros(); n],
        }
    }
}

/// The linearization of one stage. Rows are the stage outputs `[r^{k,0}; …; r^{k,s−1}; p^{k+1}]`
/// (row `α·n + i`); `∂r^{k,0}/∂p^k = I` and nothing else depends on `p^k`.
#[derive(Clone, Debug)]
pub struct StageJacobian {
    /// The outputs themselves.
    pub value: DVector<f64>,
    /// `∂/∂q^{k,γ}` (column `γ·n + j`, γ = 0..=s).
    pub dq: DMatrix<f64>,
    /// `∂/∂u^{k,γ}` (column `γ·n_u + c`); block diagonal with `w^α Δt` times the factors of
    /// [`Model::drives`](crate::model::Model::drives).
    pub du: DMatrix<f64>,
    /// `∂/∂f^{k,γ}_l` for the load forces (column `(γ·L + l)·3 + d`); block diagonal with
    /// `w^α Δt J_lᵀ`, `J_l` the point Jacobian of load `l`.
    pub dforce: DMatrix<f64>,
}

impl StageJacobian {
    /// Zeroed storage for `model` under `gal` with `loads` point loads.
    pub fn new(model: &Model, gal: &Galerkin, loads: usize) -> Self {
        let (n, m) = (model.dof(), gal.s() + 1);
        let n_u = model.actuated_joints().len();
        Self {
            value: DVector::zeros(m * n),
            dq: DMatrix::zeros(m * n, m * n),
            du: DMatrix::zeros(m * n, m * n_u),
            dforce: DMatrix::zeros(m * n, m * loads * 3),
        }
    }
}

/// Linearizes the stage: fills `jac` with the outputs and their exact derivatives.
///
/// At each control point Algorithm 2 gives, with composite inertias `M̄ᶜ_i`, `M̄ᴬ_i = M̄ᶜ_i S̄_i`
/// and `M̄ᴮ_i = M̄ᶜ_i Ṡ̄_i − ad^D_{μ̄_i} S̄_i`, for `j ∈ anc(i) ∪ {i}`:
/// `∂²K/∂q̇_i∂q̇_j = S̄_jᵀM̄ᴬ_i`, `∂/∂q_j ∂K/∂q̇_i = Ṡ̄_jᵀM̄ᴬ_i`, `∂/∂q_i ∂K/∂q̇_j = S̄_jᵀM̄ᴮ_i`,
/// `∂²K/∂q_i∂q_j = Ṡ̄_jᵀM̄ᴮ_i`; Algorithm 3 gives `∂²V/∂q_i∂q_j = s̄_jᵀ ĝ(σ_m n̄_i − σ̂_p s̄_i)`.
/// The chain rule through `D_{α+1}L_d = w^α Δt ∂L/∂q(α) + Σ_β a^{αβ} ∂L/∂q̇(β)` and
/// `q̇^β = Σ_γ b^{βγ} q^γ / Δt` then gives every block in O(s²n²) (plus O(s³n²) for the sums over
/// β, s being a small constant).
///
/// # Panics
/// If the buffers, the stage or `jac` do not match the model and integrator.
pub fn linearize(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    stage: &Stage,
    jac: &mut StageJacobian,
) {
    let (n, s) = (model.dof(), gal.s());
    let m = s + 1;
    let nl = stage.loads.len();
    assert_eq!(
        jac.dq.shape(),
        (m * n, m * n),
        "StageJacobian built for another model"
    );
    assert_eq!(
        jac.dforce.ncols(),
        m * nl * 3,
        "StageJacobian built for another load count"
    );
    evaluate(model, gal, ws, stage);
    for i in 0..n {
        for al in 0..m {
            jac.value[al * n + i] = ws.r[ws.idx(i, al)];
        }
    }
    for al in 0..m {
        kinetic_hessians(model, ws, al);
        potential_hessian(model, ws, al);
        for (l, load) in stage.loads.iter().enumerate() {
            let f0 = (al * nl + l) * 3;
            let f = Vec3::new(stage.forces[f0], stage.forces[f0 + 1], stage.forces[f0 + 2]);
            load_stiffness(model, ws, al, load.body, &load.offset, &f);
        }
    }
    let dt = stage.dt;
    jac.dq.fill(0.0);
    for al in 0..m {
        let wdt = gal.w(al) * dt;
        // Diagonal joint terms of springs (∂Q/∂q) and dampers (∂Q/∂q̇).
        for (i, j) in model.joints().iter().enumerate() {
            let k = j.spring.map_or(0.0, |sp| sp.stiffness);
            jac.dq[(al * n + i, al * n + i)] -= wdt * k;
            for ga in 0..m {
                jac.dq[(al * n + i, ga * n + i)] -= wdt * j.damping * gal.b(al, ga) / dt;
            }
        }
        for ga in 0..m {
            // ∂r^α/∂q^γ = w^α Δt [δ_αγ (∂²K/∂q² − ∂²V/∂q² + ∂Q_load/∂q) + b^{αγ}/Δt (∂/∂q̇ ∂K/∂q)]
            //           + Σ_β a^{αβ} [δ_βγ ∂/∂q ∂K/∂q̇ (β) + b^{βγ}/Δt ∂²K/∂q̇² (β)]
            let c_own = gal.a(al, ga);
            let c_cross = gal.w(al) * gal.b(al, ga);
            let lb = &ws.lin;
            let (own, cross) = (lb.kvq[ga].as_slice(), lb.kvq[al].as_slice());
            let (kqq, fq) = (lb.kqq[al].as_slice(), lb.fq[al].as_slice());
            let mut coef = [0.0; 7];
            for (be, c) in coef.iter_mut().enumerate().take(m) {
                *c = gal.a(al, be) * gal.b(be, ga) / dt;
            }
            let rows = jac.dq.nrows();
            let out = jac.dq.as_mut_slice();
            for j in 0..n {
                let col = (ga * n + j) * rows + al * n;
                for i in 0..n {
                    let ij = j * n + i;
                    let mut v = c_own * own[ij] + c_cross * cross[i * n + j];
                    if al == ga {
                        v += wdt * (kqq[ij] + fq[ij]);
                    }
                    for (be, c) in coef.iter().enumerate().take(m) {
                        v += c * lb.kvv[be].as_slice()[ij];
                    }
                    out[col + i] += v;
                }
            }
        }
    }
    jac.du.fill(0.0);
    for al in 0..m {
        let wdt = gal.w(al) * dt;
        for (i, drives) in ws.drives.iter().enumerate() {
            for &(c, f) in drives {
                jac.du[(al * n + i, al * ws.n_u + c)] += wdt * f;
            }
        }
    }
    jac.dforce.fill(0.0);
    for al in 0..m {
        let wdt = gal.w(al) * dt;
        for (l, load) in stage.loads.iter().enumerate() {
            let kb = ws.idx(load.body, al);
            let p = ws.g[kb].transform_point(&load.offset);
            for jn in model.ancestors_inclusive(load.body) {
                let sj = &ws.sb[ws.idx(jn, al)];
                let col = lower(sj) + upper(sj).cross(&p);
                for d in 0..3 {
                    jac.dforce[(al * n + jn, (al * nl + l) * 3 + d)] = wdt * col[d];
                }
            }
        }
    }
}

/// Algorithm 2 at control point `al`: fills `kvv`, `kvq`, `kqq` in O(n·depth).
fn kinetic_hessians(model: &Model, ws: &mut StageWorkspace, al: usize) {
    let n = model.dof();
    let m = ws.s + 1;
    for i in 0..n {
        ws.lin.composite[i] = ws.mb[i * m + al];
    }
    let lb = &mut ws.lin;
    let (kvv, kvq, kqq) = (&mut lb.kvv[al], &mut lb.kvq[al], &mut lb.kqq[al]);
    kvv.fill(0.0);
    kvq.fill(0.0);
    kqq.fill(0.0);
    for i in (0..n).rev() {
        let ki = i * m + al;
        let ic = lb.composite[i];
        let ma = ic * ws.sb[ki];
        let mb = ic * ws.sd[ki] - ad_dual(&ws.mu[ki]) * ws.sb[ki];
        for j in model.ancestors_inclusive(i) {
            let kj = j * m + al;
            let (sj, sdj) = (ws.sb[kj], ws.sd[kj]);
            let a = sj.dot(&ma);
            kvv[(i, j)] = a;
            kvv[(j, i)] = a;
            kvq[(i, j)] = sdj.dot(&ma);
            kvq[(j, i)] = sj.dot(&mb);
            let c = sdj.dot(&mb);
            kqq[(i, j)] = c;
            kqq[(j, i)] = c;
        }
        if let Some(p) = model.parent(i) {
            lb.composite[p] += ic;
        }
    }
}

/// Algorithm 3 at control point `al`: `fq = −∂²V/∂q²` in O(n·depth), with the world-frame
/// centres of mass standing for the paper's frame origins `p_i`.
fn potential_hessian(model: &Model, ws: &mut StageWorkspace, al: usize) {
    let n = model.dof();
    let m = ws.s + 1;
    let gh = hat(&model.gravity());
    let lb = &mut ws.lin;
    for (i, j) in model.joints().iter().enumerate() {
        lb.mass[i] = j.mass;
        lb.moment[i] = j.mass * ws.g[i * m + al].transform_point(&j.com);
    }
    let fq = &mut lb.fq[al];
    fq.fill(0.0);
    for i in (0..n).rev() {
        let si = ws.sb[i * m + al];
        let sigma = gh * (lb.mass[i] * lower(&si) - hat(&lb.moment[i]) * upper(&si));
        for j in model.ancestors_inclusive(i) {
            let v = -upper(&ws.sb[j * m + al]).dot(&sigma);
            fq[(i, j)] = v;
            fq[(j, i)] = v;
        }
        if let Some(p) = model.parent(i) {
            let (mi, pi) = (lb.mass[i], lb.moment[i]);
            lb.mass[p] += mi;
            lb.moment[p] += pi;
        }
    }
}

/// Adds to `fq` the derivative of the generalized force `Q_j = S̄_jᵀ F̄` of a world force `f` at a
/// point of `body`, `F̄ = (p × f, f)`: for `j, k ∈ anc(body) ∪ {body}`,
/// `∂Q_j/∂q_k = F̄ᵀ ad_{S̄_k} S̄_j [k ∈ anc(j)] + S̄_jᵀ D₁F̄ S̄_k` (Eqs. J.7a and J.3).
fn load_stiffness(
    model: &Model,
    ws: &mut StageWorkspace,
    al: usize,
    body: usize,
    offset: &Vec3,
    f: &Vec3,
) {
    let m = ws.s + 1;
    let p = ws.g[body * m + al].transform_point(offset);
    let (fbar, d1f) = super::del::point_force(&p, f);
    let fq = &mut ws.lin.fq[al];
    for j in model.ancestors_inclusive(body) {
        let sj: Vec6 = ws.sb[j * m + al];
        let row = d1f.tr_mul(&sj);
        for k in model.ancestors_inclusive(body) {
            let sk = ws.sb[k * m + al];
            let mut v = row.dot(&sk);
            if k < j && model.is_ancestor_or_self(k, j) {
                v += fbar.dot(&ad_mul(&sk, &sj));
            }
            fq[(j, k)] += v;
        }
    }
}
