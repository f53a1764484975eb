//! Algorithm 1: recursive O(sn) evaluation of the DEL equations (Proposition 1, Eq. 7).

use super::{Galerkin, Stage, StageWorkspace};
use crate::model::Model;
use crate::spatial::{
    Mat6, Vec3, Vec6, ad_mul, ad_transpose_mul, exp_twist, hat, stack, transform_inertia,
};

/// Evaluates the DEL residuals `r^{k,α}` (α = 0..s−1, written to `r[α·n + i]`) and the next
/// momentum `p^{k+1}` of one stage (Eqs. 7a–7c):
///
/// ```text
/// r_i^{k,α} = δ_{α0} p_i^k + S̄_i^{αᵀ} Ω̄_i^α + Σ_β a^{αβ} S̄_i^{βᵀ} μ̄_i^β + Q_i^α
/// Ω̄_i^α     = w^α Δt ad_{v̄_i^α}ᵀ μ̄_i^α + Γ̄_i^α
/// ```
///
/// with the articulated momenta `μ̄` (Definition 1) and impulses `Γ̄` (Definition 2, gravity
/// and point loads), and discrete joint forces `Q_i^α = w^α Δt (u_i + τ_spring + τ_damper)`.
///
/// # Panics
/// If the buffers or the stage do not match the model and integrator.
pub fn del_residual(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    stage: &Stage,
    r: &mut [f64],
    p_next: &mut [f64],
) {
    let (n, s) = (model.dof(), gal.s());
    assert_eq!(r.len(), s * n, "r must have s·n entries");
    assert_eq!(p_next.len(), n, "p_next must have n entries");
    evaluate(model, gal, ws, stage);
    for i in 0..n {
        for al in 0..s {
            r[al * n + i] = ws.r[ws.idx(i, al)];
        }
        p_next[i] = ws.r[ws.idx(i, s)];
    }
}

/// Runs Algorithm 1, leaving every intermediate quantity in the workspace and
/// `ws.r[idx(i, α)]` = `r_i^α` for α < s, `p_i^{k+1}` for α = s.
pub(crate) fn evaluate(model: &Model, gal: &Galerkin, ws: &mut StageWorkspace, stage: &Stage) {
    ws.check(model, gal);
    stage.check(model, gal, ws.n_u);
    let (n, s) = (model.dof(), gal.s());
    let m = s + 1;
    let dt = stage.dt;
    let gravity = model.gravity();
    // Forward pass (lines 2–8).
    for (i, j) in model.joints().iter().enumerate() {
        for al in 0..m {
            let k = ws.idx(i, al);
            let qi = stage.q[al * n + i];
            let local = j.placement.compose(&exp_twist(&j.twist, qi));
            let (g, vpar) = match j.parent {
                Some(p) => {
                    let kp = ws.idx(p, al);
                    (ws.g[kp].compose(&local), ws.v[kp])
                }
                None => (local, Vec6::zeros()),
            };
            let sb = g.act_twist(&j.twist);
            let qd: f64 = (0..m)
                .map(|be| gal.b(al, be) * stage.q[be * n + i])
                .sum::<f64>()
                / dt;
            let v = vpar + sb * qd;
            let mb = transform_inertia(&g, &j.inertia);
            let wdt = gal.w(al) * dt;
            let (fb, d1f) = point_force(&g.transform_point(&j.com), &(gravity * j.mass));
            ws.g[k] = g;
            ws.sb[k] = sb;
            ws.mb[k] = mb;
            ws.qd[k] = qd;
            ws.v[k] = v;
            ws.sd[k] = ad_mul(&v, &sb);
            ws.mu[k] = mb * v;
            ws.fb[k] = fb * wdt;
            ws.d1f[k] = d1f * wdt;
        }
    }
    for al in 0..m {
        let wdt = gal.w(al) * dt;
        for (l, load) in stage.loads.iter().enumerate() {
            let k = ws.idx(load.body, al);
            let f0 = (al * stage.loads.len() + l) * 3;
            let f = Vec3::new(stage.forces[f0], stage.forces[f0 + 1], stage.forces[f0 + 2]);
            let (fb, d1f) = point_force(&ws.g[k].transform_point(&load.offset), &f);
            ws.fb[k] += fb * wdt;
            ws.d1f[k] += d1f * wdt;
        }
    }
    // Backward pass (lines 9–20).
    for k in 0..n * m {
        ws.gam[k] = ws.fb[k];
    }
    for i in (0..n).rev() {
        if let Some(p) = model.parent(i) {
            for al in 0..m {
                let (kc, kp) = (ws.idx(i, al), ws.idx(p, al));
                let (mu, gam) = (ws.mu[kc], ws.gam[kc]);
                ws.mu[kp] += mu;
                ws.gam[kp] += gam;
            }
        }
    }
    for i in 0..n {
        for al in 0..m {
            let k = ws.idx(i, al);
            let wdt = gal.w(al) * dt;
            let omega = ad_transpose_mul(&ws.v[k], &ws.mu[k]) * wdt + ws.gam[k];
            let mut r = ws.sb[k].dot(&omega);
            for be in 0..m {
                let kb = ws.idx(i, be);
                r += gal.a(al, be) * ws.sb[kb].dot(&ws.mu[kb]);
            }
            let u: f64 = ws.drives[i]
                .iter()
                .map(|&(c, f)| f * stage.u[al * ws.n_u + c])
                .sum();
            r += wdt * (u + model.passive_force(i, stage.q[al * n + i], ws.qd[k]));
            if al == 0 {
                r += stage.p[i];
            }
            ws.r[k] = r;
        }
    }
}

/// The spatial wrench `F̄ = (p × f, f)` of a world force `f` at the world point `p`, and its
/// derivative `D₁F̄ = [[f̂ p̂, −f̂], [0, 0]]` along a spatial variation `η̄` of the body carrying the
/// point (`δp = η̄_ω × p + η̄_v`, Definition J.3).
pub(crate) fn point_force(p: &Vec3, f: &Vec3) -> (Vec6, Mat6) {
    let fh = hat(f);
    let mut d = Mat6::zeros();
    d.fixed_view_mut::<3, 3>(0, 0).copy_from(&(fh * hat(p)));
    d.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-fh));
    (stack(&p.cross(f), f), d)
}
