//! The O(s²n²) linearization of one stage: Algorithm 2 (second derivatives of the kinetic
//! energy), Algorithm 3 (Hessian of the gravitational potential) and the chain rule through
//! Eqs. 2, 4 and 5.

use super::del::{Detail, evaluate, point_wrench, wrench_stiffness};
use super::galerkin::MAX_STAGE_ORDER;
use super::{Galerkin, Stage, StageWorkspace};
use crate::model::Model;
use crate::spatial::{Inertia, Vec3, Vec6, ad_mul, ad_transpose_mul, hat, lower, upper};
use nalgebra::{DMatrix, DVector};

/// Per-body vectors of Algorithms 2 and 3 at every control point (index `i·(s+1) + α`),
/// preallocated.
#[derive(Clone, Debug)]
pub(crate) struct LinearizeBuffers {
    /// `M̄ᴬ_i = M̄ᶜ_i S̄_i`.
    pub(crate) ma: Vec<Vec6>,
    /// `M̄ᴮ_i = M̄ᶜ_i Ṡ̄_i − ad^D_{μ̄_i} S̄_i`.
    pub(crate) mb: Vec<Vec6>,
    /// `σ_i = ĝ (m_i S̄_i,v − ĥ_i S̄_i,ω)` of the subtree's mass `m_i` and first moment `h_i`.
    pub(crate) sigma: Vec<Vec3>,
    /// Composite inertias of one control point.
    pub(crate) composite: Vec<Inertia>,
}

impl LinearizeBuffers {
    pub(crate) fn new(n: usize, s: usize) -> Self {
        Self {
            ma: vec![Vec6::zeros(); n * (s + 1)],
            mb: vec![Vec6::zeros(); n * (s + 1)],
            sigma: vec![Vec3::zeros(); n * (s + 1)],
            composite: vec![Inertia::zero(); n],
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
/// `q̇^β = Σ_γ b^{βγ} q^γ / Δt` then gives every block. The per-body vectors are computed once
/// per control point in O(n); each related pair `(i, j)` then costs the five products above at
/// every control point and writes its entries of all `(s+1)²` blocks directly, so no `n×n`
/// intermediate is formed: O(s²n·d) for a tree of depth `d`.
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
    evaluate(model, gal, ws, stage, Detail::Residual);
    for i in 0..n {
        for al in 0..m {
            jac.value[al * n + i] = ws.r[ws.idx(i, al)];
        }
    }
    for al in 0..m {
        body_vectors(model, ws, al);
    }
    let dt = stage.dt;
    if !ws.tree.is_chain() {
        jac.dq.fill(0.0);
    }
    match m {
        2 => related_pairs::<2>(gal, ws, dt, jac),
        3 => related_pairs::<3>(gal, ws, dt, jac),
        4 => related_pairs::<4>(gal, ws, dt, jac),
        5 => related_pairs::<5>(gal, ws, dt, jac),
        6 => related_pairs::<6>(gal, ws, dt, jac),
        _ => related_pairs::<{ MAX_STAGE_ORDER + 1 }>(gal, ws, dt, jac),
    }
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
        for (l, load) in stage.loads.iter().enumerate() {
            let f0 = (al * nl + l) * 3;
            let f = Vec3::new(stage.forces[f0], stage.forces[f0 + 1], stage.forces[f0 + 2]);
            load_stiffness(ws, al, wdt, load.body, &load.offset, &f, &mut jac.dq);
        }
    }
    for al in 0..m {
        for (i, drives) in ws.drives.iter().enumerate() {
            for &(c, _) in drives {
                jac.du[(al * n + i, al * ws.n_u + c)] = 0.0;
            }
        }
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
            for &jn in ws.tree.path(load.body) {
                let sj = &ws.sb[ws.idx(jn, al)];
                let col = lower(sj) + upper(sj).cross(&p);
                for d in 0..3 {
                    jac.dforce[(al * n + jn, (al * nl + l) * 3 + d)] = wdt * col[d];
                }
            }
        }
    }
}

/// The per-body vectors of Algorithms 2 and 3 at control point `al`, from the leaves to the
/// root with the composite inertias in compact form.
pub(crate) fn body_vectors(model: &Model, ws: &mut StageWorkspace, al: usize) {
    let n = model.dof();
    let m = ws.s + 1;
    let gh = hat(&model.gravity());
    for i in 0..n {
        ws.lin.composite[i] = ws.frames[i].inertia.transformed(&ws.g[i * m + al]);
    }
    for i in (0..n).rev() {
        let k = i * m + al;
        let ic = ws.lin.composite[i];
        let (sb, sd) = (ws.sb[k], ws.sd[k]);
        ws.lin.ma[k] = ic.mul_twist(&sb);
        ws.lin.mb[k] = ic.mul_twist(&sd) - ad_transpose_mul(&sb, &ws.mu[k]);
        ws.lin.sigma[k] = gh * (ic.mass * lower(&sb) - ic.moment.cross(&upper(&sb)));
        if let Some(p) = model.parent(i) {
            ws.lin.composite[p] += ic;
        }
    }
}

/// Writes the entries of every related pair `(i, j)`, `j ∈ anc(i) ∪ {i}`, into all blocks of
/// `jac.dq`, for `M = s + 1` control points, with the per-point second derivatives
/// `A = S̄_j·M̄ᴬ_i = ∂²K/∂q̇_i∂q̇_j`, `P = Ṡ̄_j·M̄ᴬ_i = ∂/∂q_j ∂K/∂q̇_i`,
/// `Q = S̄_j·M̄ᴮ_i = ∂/∂q_i ∂K/∂q̇_j` and `D = Ṡ̄_j·M̄ᴮ_i − ∂²V/∂q_i∂q_j` and the
/// coefficients of [`BlockCoefficients::linearization`].
fn related_pairs<const M: usize>(
    gal: &Galerkin,
    ws: &StageWorkspace,
    dt: f64,
    jac: &mut StageJacobian,
) {
    let n = ws.n;
    let coef = BlockCoefficients::<M>::linearization(gal, dt);
    let out = jac.dq.as_mut_slice();
    let lb = &ws.lin;
    for i in 0..n {
        let ki = i * M;
        let (ma, mb, sigma) = (
            &lb.ma[ki..ki + M],
            &lb.mb[ki..ki + M],
            &lb.sigma[ki..ki + M],
        );
        for &j in ws.tree.path(i) {
            let kj = j * M;
            let (sj, sdj) = (&ws.sb[kj..kj + M], &ws.sd[kj..kj + M]);
            let mut v = PairValues::<M>::default();
            for be in 0..M {
                v.a[be] = sj[be].dot(&ma[be]);
                v.p[be] = sdj[be].dot(&ma[be]);
                v.q[be] = sj[be].dot(&mb[be]);
                v.d[be] = sdj[be].dot(&mb[be]) - upper(&sj[be]).dot(&sigma[be]);
            }
            coef.write(out, n, i, j, &v);
        }
    }
}

/// The four second derivatives of a related pair `(i, j)`, `j ∈ anc(i) ∪ {i}`, of a function of
/// `(q, q̇)` at each of `M` control points, as [`BlockCoefficients::write`] combines them: `a`
/// the `q̇_i q̇_j` entry, `p` the `q̇_i q_j` entry, `q` the `q_i q̇_j` entry and `d` the `q_i q_j`
/// entry (`p = q` when `i = j`).
pub(crate) struct PairValues<const M: usize> {
    pub a: [f64; M],
    pub p: [f64; M],
    pub q: [f64; M],
    pub d: [f64; M],
}

impl<const M: usize> Default for PairValues<M> {
    fn default() -> Self {
        Self {
            a: [0.0; M],
            p: [0.0; M],
            q: [0.0; M],
            d: [0.0; M],
        }
    }
}

/// How per-control-point second derivatives in `(q^β, q̇^β)` combine into the `(α, γ)` block of
/// a stage matrix over the control points, `q̇^β = Σ_γ b^{βγ} q^γ / Δt`:
///
/// ```text
/// block(α, γ)[i][j] = own^{αγ} P^γ + cross^{αγ} Q^α + δ_αγ diag^α D^α + Σ_β mass^{αγβ} A^β
/// block(α, γ)[j][i] = own^{αγ} Q^γ + cross^{αγ} P^α + δ_αγ diag^α D^α + Σ_β mass^{αγβ} A^β
/// ```
///
/// The stage Jacobian and the stage Hessian differ only in these coefficients.
pub(crate) struct BlockCoefficients<const M: usize> {
    own: [[f64; M]; M],
    cross: [[f64; M]; M],
    diag: [f64; M],
    mass: [[[f64; M]; M]; M],
}

impl<const M: usize> BlockCoefficients<M> {
    /// The DEL Jacobian `∂r^α/∂q^γ` through `D_{α+1}L_d = w^α Δt ∂L/∂q(α) + Σ_β a^{αβ} ∂L/∂q̇(β)`:
    /// `own = a^{αγ}`, `cross = w^α b^{αγ}`, `diag = w^α Δt`, `mass = a^{αβ} b^{βγ} / Δt`.
    pub(crate) fn linearization(gal: &Galerkin, dt: f64) -> Self {
        let mut c = Self::zero();
        for al in 0..M {
            c.diag[al] = gal.w(al) * dt;
            for ga in 0..M {
                c.own[al][ga] = gal.a(al, ga);
                c.cross[al][ga] = gal.w(al) * gal.b(al, ga);
                for be in 0..M {
                    c.mass[al][ga][be] = gal.a(al, be) * gal.b(be, ga) / dt;
                }
            }
        }
        c
    }

    /// The Hessian `∂²Φ/∂q^α∂q^γ` of `Φ = Σ_β φ_β(q^β, q̇^β)`: `own = b^{γα}/Δt`,
    /// `cross = b^{αγ}/Δt`, `diag = 1`, `mass = b^{βα} b^{βγ} / Δt²`.
    pub(crate) fn hessian(gal: &Galerkin, dt: f64) -> Self {
        let mut c = Self::zero();
        for al in 0..M {
            c.diag[al] = 1.0;
            for ga in 0..M {
                c.own[al][ga] = gal.b(ga, al) / dt;
                c.cross[al][ga] = gal.b(al, ga) / dt;
                for be in 0..M {
                    c.mass[al][ga][be] = gal.b(be, al) * gal.b(be, ga) / (dt * dt);
                }
            }
        }
        c
    }

    fn zero() -> Self {
        Self {
            own: [[0.0; M]; M],
            cross: [[0.0; M]; M],
            diag: [0.0; M],
            mass: [[[0.0; M]; M]; M],
        }
    }

    /// Writes the entries of the pair `(i, j)` into every block of the column-major `(M·n)²`
    /// matrix `out`.
    #[inline]
    pub(crate) fn write(&self, out: &mut [f64], n: usize, i: usize, j: usize, v: &PairValues<M>) {
        let rows = M * n;
        for ga in 0..M {
            let (col_j, col_i) = ((ga * n + j) * rows, (ga * n + i) * rows);
            for al in 0..M {
                let mut common: f64 = (0..M).map(|be| self.mass[al][ga][be] * v.a[be]).sum();
                if al == ga {
                    common += self.diag[al] * v.d[al];
                }
                out[col_j + al * n + i] =
                    common + self.own[al][ga] * v.p[ga] + self.cross[al][ga] * v.q[al];
                if i != j {
                    out[col_i + al * n + j] =
                        common + self.own[al][ga] * v.q[ga] + self.cross[al][ga] * v.p[al];
                }
            }
        }
    }
}

/// Adds to the diagonal block `α` of `dq` the derivative of the generalized force
/// `Q_j = S̄_jᵀ F̄` of a world force `f` at a point of `body`, `F̄ = (p × f, f)`, times `w^α Δt`:
/// for `j, k ∈ anc(body) ∪ {body}`, `∂Q_j/∂q_k = F̄ᵀ ad_{S̄_k} S̄_j [k ∈ anc(j)] + S̄_jᵀ D₁F̄ S̄_k`
/// (Eqs. J.7a and J.3).
fn load_stiffness(
    ws: &StageWorkspace,
    al: usize,
    wdt: f64,
    body: usize,
    offset: &Vec3,
    f: &Vec3,
    dq: &mut DMatrix<f64>,
) {
    let (n, m) = (ws.n, ws.s + 1);
    let p = ws.g[body * m + al].transform_point(offset);
    let fbar = point_wrench(&p, f);
    let d1f = wrench_stiffness(&(hat(f) * hat(&p)), f);
    let path = ws.tree.path(body);
    for (a, &j) in path.iter().enumerate() {
        let sj: Vec6 = ws.sb[j * m + al];
        let row = d1f.tr_mul(&sj);
        for (b, &k) in path.iter().enumerate() {
            let sk = ws.sb[k * m + al];
            let mut v = row.dot(&sk);
            // Path entries run from `body` to the root: k is a strict ancestor of j if b > a.
            if b > a {
                v += fbar.dot(&ad_mul(&sk, &sj));
            }
            dq[(al * n + j, al * n + k)] += wdt * v;
        }
    }
}
