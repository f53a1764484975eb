//! Algorithm 1: recursive O(sn) evaluation of the DEL equations (Proposition 1, Eq. 7).

use super::{Galerkin, Stage, StageWorkspace};
use crate::model::Model;
use crate::spatial::{Mat3, Mat6, Vec3, Vec6, ad_mul, ad_transpose_mul, hat, stack};

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
    evaluate(model, gal, ws, stage, Detail::Residual);
    for i in 0..n {
        for al in 0..s {
            r[al * n + i] = ws.r[ws.idx(i, al)];
        }
        p_next[i] = ws.r[ws.idx(i, s)];
    }
}

/// How much of the stage's intermediate quantities [`evaluate`] leaves in the workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Detail {
    /// What the residual needs: poses, twists, velocities, momenta, impulses.
    Residual,
    /// Also the world inertias `M̄` and the impulses' stiffness `D₁F̄` the Newton factorization
    /// reads.
    Newton,
}

/// Runs Algorithm 1, leaving every intermediate quantity `detail` asks for in the workspace and
/// `ws.r[idx(i, α)]` = `r_i^α` for α < s, `p_i^{k+1}` for α = s.
pub(crate) fn evaluate(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    stage: &Stage,
    detail: Detail,
) {
    ws.check(model, gal);
    stage.check(model, gal, ws.n_u);
    let (n, s) = (model.dof(), gal.s());
    let m = s + 1;
    let dt = stage.dt;
    let gravity = model.gravity();
    let newton = detail == Detail::Newton;
    // Forward pass (lines 2–8).
    for i in 0..n {
        for al in 0..m {
            let k = ws.idx(i, al);
            let qd: f64 = (0..m)
                .map(|be| gal.b(al, be) * stage.q[be * n + i])
                .sum::<f64>()
                / dt;
            body_motion(model, ws, i, al, stage.q[al * n + i], qd);
            let (frame, g) = (&ws.frames[i], &ws.g[k]);
            let wdt = gal.w(al) * dt;
            // Gravity's wrench at the centre of mass c̄: (c̄ × m g, m g) = (m c̄ × g, m g).
            let h = frame.world_moment(g);
            let mass = frame.inertia.mass;
            ws.fb[k] = stack(&h.cross(&gravity), &(gravity * mass)) * wdt;
            if newton {
                ws.mb[k] = frame.inertia.transformed(g).matrix();
                ws.d1f[k] = wrench_stiffness(&(hat(&gravity) * hat(&h)), &(gravity * mass)) * wdt;
            }
        }
    }
    for al in 0..m {
        let wdt = gal.w(al) * dt;
        for (l, load) in stage.loads.iter().enumerate() {
            let k = ws.idx(load.body, al);
            let f0 = (al * stage.loads.len() + l) * 3;
            let f = Vec3::new(stage.forces[f0], stage.forces[f0 + 1], stage.forces[f0 + 2]);
            let p = ws.g[k].transform_point(&load.offset);
            ws.fb[k] += point_wrench(&p, &f) * wdt;
            if newton {
                ws.d1f[k] += wrench_stiffness(&(hat(&f) * hat(&p)), &f) * wdt;
            }
        }
    }
    // Backward pass (lines 9–20).
    ws.gam.copy_from_slice(&ws.fb);
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
    let mut smu = [0.0; super::galerkin::MAX_STAGE_ORDER + 1];
    for i in 0..n {
        for (be, v) in smu.iter_mut().enumerate().take(m) {
            let k = ws.idx(i, be);
            *v = ws.sb[k].dot(&ws.mu[k]);
        }
        for al in 0..m {
            let k = ws.idx(i, al);
            let wdt = gal.w(al) * dt;
            let omega = ad_transpose_mul(&ws.v[k], &ws.mu[k]) * wdt + ws.gam[k];
            let mut r = ws.sb[k].dot(&omega);
            for (be, v) in smu.iter().enumerate().take(m) {
                r += gal.a(al, be) * v;
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

/// The motion of body `i` at control point `al` from its joint's position `qi` and speed `qd`
/// and its parent's entries: pose `g`, twist `S̄`, velocity `v̄ = v̄_par + S̄ q̇`, `Ṡ̄ = ad_v̄ S̄` and
/// the body's own momentum `M̄ v̄` in `ws.mu` (Algorithm 1, lines 3–6).
#[inline]
pub(crate) fn body_motion(
    model: &Model,
    ws: &mut StageWorkspace,
    i: usize,
    al: usize,
    qi: f64,
    qd: f64,
) {
    let k = ws.idx(i, al);
    let frame = &ws.frames[i];
    let (g, vpar) = match model.parent(i) {
        Some(p) => {
            let kp = ws.idx(p, al);
            (frame.pose(Some(&ws.g[kp]), qi), ws.v[kp])
        }
        None => (frame.pose(None, qi), Vec6::zeros()),
    };
    let sb = frame.twist(&g);
    let v = vpar + sb * qd;
    ws.mu[k] = frame.momentum(&g, &v);
    ws.g[k] = g;
    ws.sb[k] = sb;
    ws.qd[k] = qd;
    ws.v[k] = v;
    ws.sd[k] = ad_mul(&v, &sb);
}

/// The spatial wrench `F̄ = (p × f, f)` of a world force `f` at the world point `p`.
#[inline]
pub(crate) fn point_wrench(p: &Vec3, f: &Vec3) -> Vec6 {
    stack(&p.cross(f), f)
}

/// `D₁F̄ = [[f̂ p̂, −f̂], [0, 0]]`, the derivative of the wrench of [`point_wrench`] along a spatial
/// variation `η̄` of the body carrying the point (`δp = η̄_ω × p + η̄_v`, Definition J.3), from
/// its blocks `f̂ p̂` and `f`.
#[inline]
pub(crate) fn wrench_stiffness(fp: &Mat3, f: &Vec3) -> Mat6 {
    let mut d = Mat6::zeros();
    d.fixed_view_mut::<3, 3>(0, 0).copy_from(fp);
    d.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-hat(f)));
    d
}
