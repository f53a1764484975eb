//! The variation of one control point's kinematics and momenta along a direction `(δq, δq̇)` of
//! its configuration and velocity: one forward and one backward pass, O(n).
//!
//! Moving the joints by `δq` moves body `i` by the spatial twist `η̄_i = Σ_{j ⪯ i} S̄_j δq_j`,
//! so every world-frame quantity attached to a body varies by the adjoint action of `η̄`:
//! `δS̄_i = ad_{η̄_i} S̄_i`, `δM̄_k = −ad_{η̄_k}ᵀ M̄_k − M̄_k ad_{η̄_k}`, `δc̄_k = η̄_ω × c̄_k + η̄_v`.
//! The velocity varies by `δv̄_i = ξ_i − ad_{v̄_i} η̄_i` with the recursion
//!
//! ```text
//! ξ_i = ξ_par + S̄_i δq̇_i + Ṡ̄_i δq_i          (the body velocity's variation, in world axes)
//! δṠ̄_i = ad_{ξ_i} S̄_i + ad_{η̄_i} Ṡ̄_i        (Jacobi's identity)
//! δ(M̄_k v̄_k) = M̄_k ξ_k − ad_{η̄_k}ᵀ M̄_k v̄_k
//! ```
//!
//! and the articulated momenta `μ̄_i`, composite inertias `M̄ᶜ_i` and subtree first moments
//! `h_i` vary by the subtree sums of their bodies' variations. These are the derivatives of the
//! quantities of Algorithms 1–3 along the direction; [`super::del_gradient`] and
//! [`super::del_hessian`] contract them.

use super::StageWorkspace;
use crate::model::Model;
use crate::spatial::{Inertia, Vec3, Vec6, ad_mul, ad_transpose_mul, hat, lower, upper};

/// The variations at every control point (index `i·(s+1) + α`) and the per-point scratch.
#[derive(Clone, Debug)]
pub(crate) struct TangentBuffers {
    /// `η̄_i`.
    pub eta: Vec<Vec6>,
    /// `ξ_i`.
    pub xi: Vec<Vec6>,
    /// `δS̄_i`.
    pub dsb: Vec<Vec6>,
    /// `δṠ̄_i`.
    pub dsd: Vec<Vec6>,
    /// `δμ̄_i`, the articulated momentum's variation.
    pub dmu: Vec<Vec6>,
    /// `δM̄ᴬ_i = δ(M̄ᶜ_i S̄_i)` (only with the composite variations).
    pub dma: Vec<Vec6>,
    /// `δM̄ᴮ_i = δ(M̄ᶜ_i Ṡ̄_i − ad^D_{μ̄_i} S̄_i)`.
    pub dmb: Vec<Vec6>,
    /// `δσ_i` of Algorithm 3's `σ_i = ĝ (m_i S̄_i,v − ĥ_i S̄_i,ω)`.
    pub dsigma: Vec<Vec3>,
    /// Per body of one point: the subtree's inertia variation `δM̄ᶜ_i` (its moment is `δh_i`).
    dcomposite: Vec<Inertia>,
}

impl TangentBuffers {
    pub(crate) fn new(n: usize, s: usize) -> Self {
        let v = || vec![Vec6::zeros(); n * (s + 1)];
        Self {
            eta: v(),
            xi: v(),
            dsb: v(),
            dsd: v(),
            dmu: v(),
            dma: v(),
            dmb: v(),
            dsigma: vec![Vec3::zeros(); n * (s + 1)],
            dcomposite: vec![Inertia::zero(); n],
        }
    }

    /// The subtree first moment's variation `δh_i` at the point last varied.
    pub(crate) fn dmoment(&self, i: usize) -> Vec3 {
        self.dcomposite[i].moment
    }
}

/// Varies control point `al` of the stage last evaluated in `ws` along `(dq, dqd)` (n each);
/// the composite inertias of this point must be in `ws.lin`. With `composites`, also the
/// variations `δM̄ᴬ`, `δM̄ᴮ`, `δσ` of the vectors of Algorithms 2 and 3.
pub(crate) fn vary(
    model: &Model,
    ws: &mut StageWorkspace,
    al: usize,
    dq: &[f64],
    dqd: &[f64],
    composites: bool,
) {
    let n = model.dof();
    let m = ws.s + 1;
    let t = &mut ws.tangent;
    for (i, j) in model.joints().iter().enumerate() {
        let k = i * m + al;
        let (sb, sd) = (ws.sb[k], ws.sd[k]);
        let (eta_p, xi_p) = j.parent.map_or((Vec6::zeros(), Vec6::zeros()), |p| {
            (t.eta[p * m + al], t.xi[p * m + al])
        });
        let eta = eta_p + sb * dq[i];
        let xi = xi_p + sb * dqd[i] + sd * dq[i];
        t.eta[k] = eta;
        t.xi[k] = xi;
        t.dsb[k] = ad_mul(&eta, &sb);
        t.dsd[k] = ad_mul(&xi, &sb) + ad_mul(&eta, &sd);
        let inertia = ws.frames[i].inertia.transformed(&ws.g[k]);
        let h = inertia.mul_twist(&ws.v[k]);
        t.dmu[k] = inertia.mul_twist(&xi) - ad_transpose_mul(&eta, &h);
        t.dcomposite[i] = inertia.variation(&eta);
    }
    for i in (0..n).rev() {
        if let Some(p) = model.parent(i) {
            let (kc, kp) = (i * m + al, p * m + al);
            let dmu = t.dmu[kc];
            t.dmu[kp] += dmu;
            let dc = t.dcomposite[i];
            t.dcomposite[p] += dc;
        }
    }
    if !composites {
        return;
    }
    let gh = hat(&model.gravity());
    for i in 0..n {
        let k = i * m + al;
        let (sb, sd, dsb, dsd) = (ws.sb[k], ws.sd[k], t.dsb[k], t.dsd[k]);
        let (ic, dic) = (&ws.lin.composite[i], &t.dcomposite[i]);
        t.dma[k] = dic.mul_twist(&sb) + ic.mul_twist(&dsb);
        t.dmb[k] = dic.mul_twist(&sd) + ic.mul_twist(&dsd)
            - ad_transpose_mul(&dsb, &ws.mu[k])
            - ad_transpose_mul(&sb, &t.dmu[k]);
        t.dsigma[k] = gh
            * (ic.mass * lower(&dsb)
                - dic.moment.cross(&upper(&sb))
                - ic.moment.cross(&upper(&dsb)));
    }
}
