//! Algorithms I.1/I.2 (seed 000, appendix §I): the exact Newton direction for the control points
//! `q^{k,1..=s}` of one stage in O(s³n), for any tree.
//!
//! The backward pass expresses, body by body, the spatial variations of the articulated momenta
//! and impulses through the parent's variations (Eqs. K.14, K.15, K.31, K.32):
//!
//! ```text
//! δ̄μ̄_i^α = Σ_ρ D_i^{αρ} δ̄v̄_i^ρ + Σ_ν G_i^{αν} η̄_i^ν + l_i^α
//! δ̄Γ̄_i^α = Σ_ρ Π_i^{αρ} δ̄v̄_i^ρ + Σ_ν Ψ_i^{αν} η̄_i^ν + ζ_i^α
//! δq_i^γ  = Σ_ρ X_i^{γρ} δ̄v̄_par^ρ + Σ_ν Y_i^{γν} η̄_par^ν + y_i^γ      (K.26)
//! ```
//!
//! and the forward pass recovers `δq` root to leaves. Everything but `l, ζ, y` is independent of
//! the right-hand side, so [`NewtonBuffers`] keeps the factorization and solves any number of
//! right-hand sides in O(s²n) each (used by the constrained variant of §3.3).

use super::del::{Detail, evaluate};
use super::{Galerkin, Stage, StageWorkspace};
use crate::model::Model;
use crate::spatial::{Mat6, Vec6, ad_dual};

/// Factorization and solve buffers of Algorithm I.2 for one stage.
#[derive(Clone, Debug)]
pub(crate) struct NewtonBuffers {
    s: usize,
    d: Vec<Mat6>,
    g: Vec<Mat6>,
    pi: Vec<Mat6>,
    psi: Vec<Mat6>,
    h: Vec<Vec6>,
    phi: Vec<Vec6>,
    x: Vec<Vec6>,
    y_mat: Vec<Vec6>,
    lam_inv: Vec<Mat6>,
    c_mu: Vec<Vec6>,
    c_gam: Vec<Vec6>,
    l: Vec<Vec6>,
    zeta: Vec<Vec6>,
    y: Vec<f64>,
    eta: Vec<Vec6>,
    dv: Vec<Vec6>,
    theta: Vec<Vec6>,
    xi: Vec<Vec6>,
}

impl NewtonBuffers {
    pub(crate) fn new(n: usize, s: usize) -> Self {
        let m = s + 1;
        Self {
            s,
            d: vec![Mat6::zeros(); n * m * m],
            g: vec![Mat6::zeros(); n * m * s],
            pi: vec![Mat6::zeros(); n * s * m],
            psi: vec![Mat6::zeros(); n * s * s],
            h: vec![Vec6::zeros(); n * m * s],
            phi: vec![Vec6::zeros(); n * s * s],
            x: vec![Vec6::zeros(); n * s * m],
            y_mat: vec![Vec6::zeros(); n * s * s],
            lam_inv: vec![Mat6::zeros(); n],
            c_mu: vec![Vec6::zeros(); n * m],
            c_gam: vec![Vec6::zeros(); n * m],
            l: vec![Vec6::zeros(); n * m],
            zeta: vec![Vec6::zeros(); n * s],
            y: vec![0.0; n * s],
            eta: vec![Vec6::zeros(); n * s],
            dv: vec![Vec6::zeros(); n * m],
            theta: vec![Vec6::zeros(); s * m],
            xi: vec![Vec6::zeros(); s * s],
        }
    }

    // Index helpers: α, ρ ∈ 0..=s; β ∈ 0..s (equation rows); γ, ν ∈ 1..=s (unknown points).
    fn dm(&self, i: usize, a: usize, r: usize) -> usize {
        (i * (self.s + 1) + a) * (self.s + 1) + r
    }
    fn gm(&self, i: usize, a: usize, nu: usize) -> usize {
        (i * (self.s + 1) + a) * self.s + nu - 1
    }
    fn pm(&self, i: usize, a: usize, r: usize) -> usize {
        (i * self.s + a) * (self.s + 1) + r
    }
    fn qm(&self, i: usize, a: usize, nu: usize) -> usize {
        (i * self.s + a) * self.s + nu - 1
    }
    fn xm(&self, i: usize, gamma: usize, r: usize) -> usize {
        (i * self.s + gamma - 1) * (self.s + 1) + r
    }
    fn ym(&self, i: usize, gamma: usize, nu: usize) -> usize {
        (i * self.s + gamma - 1) * self.s + nu - 1
    }
    fn am(&self, i: usize, a: usize) -> usize {
        i * (self.s + 1) + a
    }
    fn sm(&self, i: usize, a: usize) -> usize {
        i * self.s + a
    }
}

/// The Newton direction `δq̄ = −J⁻¹ r` for the unknown control points `q^{k,1..=s}` of a stage,
/// written to `dq[(γ−1)·n + i]`; `J` is the Jacobian of `r^{k,0..s−1}` (Eqs. 5a–5b) with respect
/// to `q^{k,1..=s}`, with `p^k`, `q^{k,0}`, `u` and the load forces held fixed. Returns the
/// residual's largest magnitude `‖r‖_∞` at the given point.
///
/// # Errors
/// [`SingularJacobian`] when the stage Jacobian has no inverse.
///
/// Cost O(s³n): one evaluation of Algorithm 1, the backward pass of Algorithm I.2 with one s×s
/// inverse per body, and the forward pass of Algorithm I.1.
///
/// # Panics
/// If the buffers or the stage do not match the model and integrator, or `dq` is not `s·n`.
pub fn newton_direction(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    stage: &Stage,
    dq: &mut [f64],
) -> Result<f64, SingularJacobian> {
    let (n, s) = (model.dof(), gal.s());
    assert_eq!(dq.len(), s * n, "dq must have s·n entries");
    evaluate(model, gal, ws, stage, Detail::Newton);
    if let Err(i) = factor(model, gal, ws, stage.dt) {
        return Err(SingularJacobian {
            joint: model.joint(i).name.clone(),
        });
    }
    let rhs = std::mem::take(&mut ws.r);
    let mut rmax: f64 = 0.0;
    for i in 0..n {
        for a in 0..s {
            rmax = rmax.max(rhs[i * (s + 1) + a].abs());
        }
    }
    solve(model, gal, ws, stage.dt, &rhs, dq);
    ws.r = rhs;
    Ok(rmax)
}

/// The stage Jacobian is singular: the `s×s` block `Λ_i` of joint `joint` has no inverse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the DEL Jacobian is singular at joint '{joint}'")]
pub struct SingularJacobian {
    /// Name of the joint whose block is singular.
    pub joint: String,
}

/// Backward pass of Algorithm I.2 for everything independent of the right-hand side; fails with
/// the index of a joint whose `Λ_i` is singular.
pub(crate) fn factor(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    dt: f64,
) -> Result<(), usize> {
    let (n, s) = (model.dof(), gal.s());
    let m = s + 1;
    let nb = &mut ws.newton;
    // Local terms (Eqs. I.1a, I.3a, I.4a with D₂F̄ = 0: loads do not depend on velocity).
    for i in 0..n {
        for a in 0..m {
            let k = i * m + a;
            for r in 0..m {
                let id = nb.dm(i, a, r);
                nb.d[id] = if a == r { ws.mb[k] } else { Mat6::zeros() };
            }
            for nu in 1..=s {
                let id = nb.gm(i, a, nu);
                nb.g[id] = Mat6::zeros();
            }
            nb.c_mu[k] = ad_dual(&ws.mu[k]) * ws.sb[k];
            nb.c_gam[k] = ad_dual(&ws.gam[k]) * ws.sb[k];
        }
        for a in 0..s {
            for r in 0..m {
                let id = nb.pm(i, a, r);
                nb.pi[id] = Mat6::zeros();
            }
            for nu in 1..=s {
                let id = nb.qm(i, a, nu);
                let k = i * m + a;
                nb.psi[id] = if a == nu {
                    ws.d1f[k] + ad_dual(&ws.fb[k])
                } else {
                    Mat6::zeros()
                };
            }
        }
    }
    let mut lambda = Mat6::identity();
    for i in (0..n).rev() {
        let k0 = i * m;
        // Step 3: H_i^{αγ}.
        for a in 0..m {
            for ga in 1..=s {
                let mut h =
                    nb.d[nb.dm(i, a, ga)] * ws.sd[k0 + ga] + nb.g[nb.gm(i, a, ga)] * ws.sb[k0 + ga];
                for r in 0..m {
                    h += nb.d[nb.dm(i, a, r)] * ws.sb[k0 + r] * (gal.b(r, ga) / dt);
                }
                let id = nb.gm(i, a, ga);
                nb.h[id] = h;
            }
        }
        // Step 4: Φ_i^{αγ}.
        for a in 0..s {
            for ga in 1..=s {
                let mut ph = nb.pi[nb.pm(i, a, ga)] * ws.sd[k0 + ga]
                    + nb.psi[nb.qm(i, a, ga)] * ws.sb[k0 + ga];
                for r in 0..m {
                    ph += nb.pi[nb.pm(i, a, r)] * ws.sb[k0 + r] * (gal.b(r, ga) / dt);
                }
                let id = nb.qm(i, a, ga);
                nb.phi[id] = ph;
            }
        }
        // Steps 5–6: Θ̄ (rows as 6-vectors) and Ξ̄.
        for a in 0..s {
            let wdt = gal.w(a) * dt;
            let (sb_a, sd_a) = (ws.sb[k0 + a], ws.sd[k0 + a]);
            for r in 0..m {
                let mut t =
                    nb.d[nb.dm(i, a, r)].tr_mul(&sd_a) * wdt + nb.pi[nb.pm(i, a, r)].tr_mul(&sb_a);
                if a == r {
                    t += ad_dual(&ws.mu[k0 + a]).tr_mul(&sb_a) * wdt;
                }
                for be in 0..m {
                    t += nb.d[nb.dm(i, be, r)].tr_mul(&ws.sb[k0 + be]) * gal.a(a, be);
                }
                nb.theta[a * m + r] = t;
            }
            for nu in 1..=s {
                let mut t = nb.g[nb.gm(i, a, nu)].tr_mul(&sd_a) * wdt
                    + nb.psi[nb.qm(i, a, nu)].tr_mul(&sb_a);
                for be in 0..m {
                    t += nb.g[nb.gm(i, be, nu)].tr_mul(&ws.sb[k0 + be]) * gal.a(a, be);
                }
                nb.xi[a * s + nu - 1] = t;
            }
        }
        // Step 7: Λ_i (s×s, padded with the identity to 6×6).
        let joint = model.joint(i);
        let stiffness = joint.spring.map_or(0.0, |sp| sp.stiffness);
        for a in 0..s {
            let wdt = gal.w(a) * dt;
            let (sb_a, sd_a) = (ws.sb[k0 + a], ws.sd[k0 + a]);
            for ga in 1..=s {
                let mut v =
                    wdt * sd_a.dot(&nb.h[nb.gm(i, a, ga)]) + sb_a.dot(&nb.phi[nb.qm(i, a, ga)]);
                for be in 0..m {
                    v += gal.a(a, be) * ws.sb[k0 + be].dot(&nb.h[nb.gm(i, be, ga)]);
                }
                if a == ga {
                    v += -wdt * stiffness + wdt * sb_a.dot(&(ad_dual(&ws.mu[k0 + a]) * sd_a));
                }
                v += gal.b(a, ga) / dt * (-wdt * joint.damping);
                lambda[(a, ga - 1)] = v;
            }
        }
        // Step 8.
        let inv = lambda.try_inverse().ok_or(i)?;
        nb.lam_inv[i] = inv;
        // Step 9: X and Y.
        for ga in 1..=s {
            for r in 0..m {
                let mut x = Vec6::zeros();
                for rr in 0..s {
                    x -= nb.theta[rr * m + r] * inv[(ga - 1, rr)];
                }
                let id = nb.xm(i, ga, r);
                nb.x[id] = x;
            }
            for nu in 1..=s {
                let mut y = Vec6::zeros();
                for rr in 0..s {
                    y -= nb.xi[rr * s + nu - 1] * inv[(ga - 1, rr)];
                }
                let id = nb.ym(i, ga, nu);
                nb.y_mat[id] = y;
            }
        }
        // Contributions to the parent (the sums over children in I.1a, I.1b, I.3a, I.4a).
        let Some(p) = model.parent(i) else { continue };
        for a in 0..m {
            for r in 0..m {
                let mut c = nb.d[nb.dm(i, a, r)];
                for ga in 1..=s {
                    c += nb.h[nb.gm(i, a, ga)] * nb.x[nb.xm(i, ga, r)].transpose();
                }
                if a > 0 {
                    c -= nb.c_mu[k0 + a] * nb.x[nb.xm(i, a, r)].transpose();
                }
                let id = nb.dm(p, a, r);
                nb.d[id] += c;
            }
            for nu in 1..=s {
                let mut c = nb.g[nb.gm(i, a, nu)];
                for ga in 1..=s {
                    c += nb.h[nb.gm(i, a, ga)] * nb.y_mat[nb.ym(i, ga, nu)].transpose();
                }
                if a > 0 {
                    c -= nb.c_mu[k0 + a] * nb.y_mat[nb.ym(i, a, nu)].transpose();
                }
                let id = nb.gm(p, a, nu);
                nb.g[id] += c;
            }
        }
        for a in 0..s {
            for r in 0..m {
                let mut c = nb.pi[nb.pm(i, a, r)];
                for ga in 1..=s {
                    c += nb.phi[nb.qm(i, a, ga)] * nb.x[nb.xm(i, ga, r)].transpose();
                }
                if a > 0 {
                    c -= nb.c_gam[k0 + a] * nb.x[nb.xm(i, a, r)].transpose();
                }
                let id = nb.pm(p, a, r);
                nb.pi[id] += c;
            }
            for nu in 1..=s {
                let mut c = nb.psi[nb.qm(i, a, nu)];
                for ga in 1..=s {
                    c += nb.phi[nb.qm(i, a, ga)] * nb.y_mat[nb.ym(i, ga, nu)].transpose();
                }
                if a > 0 {
                    c -= nb.c_gam[k0 + a] * nb.y_mat[nb.ym(i, a, nu)].transpose();
                }
                let id = nb.qm(p, a, nu);
                nb.psi[id] += c;
            }
        }
    }
    Ok(())
}

/// Solves `J δq̄ = −rhs` with the factorization of [`factor`]; `rhs[i·(s+1) + α]` holds the
/// equation-α entry of joint `i` (α < s). Writes `dq[(γ−1)·n + i]`.
pub(crate) fn solve(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    dt: f64,
    rhs: &[f64],
    dq: &mut [f64],
) {
    let (n, s) = (model.dof(), gal.s());
    let m = s + 1;
    let nb = &mut ws.newton;
    nb.l.fill(Vec6::zeros());
    nb.zeta.fill(Vec6::zeros());
    // Backward pass for l, ζ, ξ̄ and y.
    for i in (0..n).rev() {
        let k0 = i * m;
        let mut xi_bar = [0.0; 6];
        for (a, xb) in xi_bar.iter_mut().enumerate().take(s) {
            let wdt = gal.w(a) * dt;
            let mut v = wdt * ws.sd[k0 + a].dot(&nb.l[nb.am(i, a)])
                + ws.sb[k0 + a].dot(&nb.zeta[nb.sm(i, a)]);
            for be in 0..m {
                v += gal.a(a, be) * ws.sb[k0 + be].dot(&nb.l[nb.am(i, be)]);
            }
            *xb = v + rhs[k0 + a];
        }
        let inv = nb.lam_inv[i];
        for ga in 1..=s {
            let mut y = 0.0;
            for (rr, xb) in xi_bar.iter().enumerate().take(s) {
                y -= inv[(ga - 1, rr)] * xb;
            }
            let id = nb.sm(i, ga - 1);
            nb.y[id] = y;
        }
        let Some(p) = model.parent(i) else { continue };
        for a in 0..m {
            let mut c = nb.l[nb.am(i, a)];
            for ga in 1..=s {
                c += nb.h[nb.gm(i, a, ga)] * nb.y[nb.sm(i, ga - 1)];
            }
            if a > 0 {
                c -= nb.c_mu[k0 + a] * nb.y[nb.sm(i, a - 1)];
            }
            let id = nb.am(p, a);
            nb.l[id] += c;
        }
        for a in 0..s {
            let mut c = nb.zeta[nb.sm(i, a)];
            for ga in 1..=s {
                c += nb.phi[nb.qm(i, a, ga)] * nb.y[nb.sm(i, ga - 1)];
            }
            if a > 0 {
                c -= nb.c_gam[k0 + a] * nb.y[nb.sm(i, a - 1)];
            }
            let id = nb.sm(p, a);
            nb.zeta[id] += c;
        }
    }
    // Forward pass (Algorithm I.1, lines 13–25).
    for (i, j) in model.joints().iter().enumerate() {
        let k0 = i * m;
        let mut dqi = [0.0; 7];
        for ga in 1..=s {
            let mut v = nb.y[nb.sm(i, ga - 1)];
            if let Some(p) = j.parent {
                for r in 0..m {
                    v += nb.x[nb.xm(i, ga, r)].dot(&nb.dv[nb.am(p, r)]);
                }
                for nu in 1..=s {
                    v += nb.y_mat[nb.ym(i, ga, nu)].dot(&nb.eta[nb.sm(p, nu - 1)]);
                }
            }
            dqi[ga] = v;
            dq[(ga - 1) * n + i] = v;
        }
        for (nu, &dq_nu) in dqi.iter().enumerate().take(s + 1).skip(1) {
            let par = j
                .parent
                .map_or_else(Vec6::zeros, |p| nb.eta[nb.sm(p, nu - 1)]);
            let id = nb.sm(i, nu - 1);
            nb.eta[id] = par + ws.sb[k0 + nu] * dq_nu;
        }
        for r in 0..m {
            let dqd: f64 = (1..=s).map(|ga| gal.b(r, ga) * dqi[ga]).sum::<f64>() / dt;
            let par = j.parent.map_or_else(Vec6::zeros, |p| nb.dv[nb.am(p, r)]);
            let id = nb.am(i, r);
            nb.dv[id] = par + ws.sd[k0 + r] * dqi[r] + ws.sb[k0 + r] * dqd;
        }
    }
}
