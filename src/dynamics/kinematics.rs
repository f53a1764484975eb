//! Forward kinematics: body poses, world-frame joint twists, inertias and velocities
//! (seed 000 §2.3, Algorithm 1 lines 2–8).

use super::{Workspace, check_len};
use crate::model::Model;
use crate::spatial::{Transform, Vec6, ad_mul};
use std::sync::atomic::{AtomicU64, Ordering};

/// The next [`Workspace::kinematics_stamp`].
static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

/// Computes `g_i = g_par(i) g_par(i),i(0) exp(Ŝ_i q_i)`, `S̄_i = Ad_{g_i} S_i` and
/// `M̄_i = Ad_{g_i}^{-T} M_i Ad_{g_i}^{-1}` for every body, and gives the workspace a new
/// [`Workspace::kinematics_stamp`].
///
/// # Panics
/// If `q` does not have length `model.dof()` or the workspace belongs to another model.
pub fn forward_kinematics(model: &Model, ws: &mut Workspace, q: &[f64]) {
    kinematics(model, ws, q, true);
}

/// The poses `g_i` and world-frame twists `S̄_i` of [`forward_kinematics`] alone, with a new
/// [`Workspace::kinematics_stamp`]; the world-frame inertias `M̄_i` are left as they were. For
/// workspaces that serve kinematics only (positions, frames, Jacobians: the terms' scratch),
/// where the inertias' transformation was a tenth of a contact problem's Hessian.
///
/// # Panics
/// As [`forward_kinematics`].
pub fn forward_poses(model: &Model, ws: &mut Workspace, q: &[f64]) {
    kinematics(model, ws, q, false);
}

fn kinematics(model: &Model, ws: &mut Workspace, q: &[f64], inertias: bool) {
    ws.check(model);
    check_len("q", q, model.dof());
    for (i, j) in model.joints().iter().enumerate() {
        let frame = &ws.frames[i];
        let g = frame.pose(j.parent.map(|p| &ws.pose[p]), q[i]);
        ws.s_bar[i] = frame.twist(&g);
        if inertias {
            ws.m_bar[i] = frame.inertia.transformed(&g).matrix();
        }
        ws.pose[i] = g;
    }
    ws.stamp = NEXT_STAMP.fetch_add(1, Ordering::Relaxed);
}

/// Computes `v̄_i = v̄_par(i) + S̄_i q̇_i` and `Ṡ̄_i = ad_{v̄_i} S̄_i` (Eqs. J.8, J.12) from the
/// twists of the last [`forward_kinematics`].
///
/// # Panics
/// If `v` does not have length `model.dof()`.
pub fn forward_velocities(model: &Model, ws: &mut Workspace, v: &[f64]) {
    ws.check(model);
    check_len("v", v, model.dof());
    for (i, j) in model.joints().iter().enumerate() {
        let parent = j.parent.map_or_else(Vec6::zeros, |p| ws.v_bar[p]);
        let vi = parent + ws.s_bar[i] * v[i];
        ws.v_bar[i] = vi;
        ws.s_dot[i] = ad_mul(&vi, &ws.s_bar[i]);
    }
}

/// The pose of a point or frame fixed on `body` at `placement` (body frame), from the last
/// [`forward_kinematics`].
pub fn frame_pose(ws: &Workspace, body: usize, placement: &Transform) -> Transform {
    ws.pose[body].compose(placement)
}
