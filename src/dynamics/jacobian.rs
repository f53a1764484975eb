//! Point and frame Jacobians in the world frame.

use super::Workspace;
use crate::model::Model;
use crate::spatial::{Transform, Vec3, lower, upper};
use nalgebra::DMatrix;

/// Jacobian `J` (3×n) of the world-frame velocity of a point fixed on `body` at `offset`
/// (body frame): `ṗ = J q̇`, column `j = n̄_j + s̄_j × p` for `j ∈ anc(body) ∪ {body}`, zero
/// otherwise (Eq. K.52). Uses the poses and twists of the last
/// [`forward_kinematics`](super::forward_kinematics).
///
/// # Panics
/// If `out` is not 3×n.
pub fn point_jacobian(
    model: &Model,
    ws: &Workspace,
    body: usize,
    offset: &Vec3,
    out: &mut DMatrix<f64>,
) {
    assert_eq!(
        out.shape(),
        (3, model.dof()),
        "point Jacobian buffer has the wrong shape"
    );
    let p = ws.pose[body].transform_point(offset);
    out.fill(0.0);
    for j in model.ancestors_inclusive(body) {
        let s = &ws.s_bar[j];
        let col = lower(s) + upper(s).cross(&p);
        out.fixed_view_mut::<3, 1>(0, j).copy_from(&col);
    }
}

/// Jacobian `J` (6×n) of a frame fixed on `body` at `placement`: rows 0–2 map `q̇` to the frame's
/// world-frame angular velocity, rows 3–5 to the world-frame velocity of its origin (column
/// `j = (s̄_j, n̄_j + s̄_j × p)` for `j ∈ anc(body) ∪ {body}`). Uses the last
/// [`forward_kinematics`](super::forward_kinematics).
///
/// # Panics
/// If `out` is not 6×n.
pub fn frame_jacobian(
    model: &Model,
    ws: &Workspace,
    body: usize,
    placement: &Transform,
    out: &mut DMatrix<f64>,
) {
    assert_eq!(
        out.shape(),
        (6, model.dof()),
        "frame Jacobian buffer has the wrong shape"
    );
    let p = ws.pose[body].transform_point(&placement.translation);
    out.fill(0.0);
    for j in model.ancestors_inclusive(body) {
        let s = &ws.s_bar[j];
        let w = upper(s);
        out.fixed_view_mut::<3, 1>(0, j).copy_from(&w);
        out.fixed_view_mut::<3, 1>(3, j)
            .copy_from(&(lower(s) + w.cross(&p)));
    }
}

/// `∂(J(q)ᵀ f)/∂q` (n×n, symmetric) for a world force `f` held fixed at a point fixed on
/// `body` at `offset`: the stiffness of a point load. With the point-velocity columns
/// `c_j = n̄_j + s̄_j × p`, the second derivatives of the point are
/// `∂c_j/∂q_k = s̄_a × c_b`, `a = min(j, k)`, `b = max(j, k)` along the body's path to the root
/// (from `∂S̄_j/∂q_k = ad_{S̄_k} S̄_j` for an ancestor `k` of `j` and `∂p/∂q_k = c_k`), so entry
/// `(j, k)` is `(s̄_a × c_b)·f`. Uses the last [`forward_kinematics`](super::forward_kinematics).
///
/// # Panics
/// If `out` is not n×n.
pub fn point_force_derivative(
    model: &Model,
    ws: &Workspace,
    body: usize,
    offset: &Vec3,
    force: &Vec3,
    out: &mut DMatrix<f64>,
) {
    let n = model.dof();
    assert_eq!(out.shape(), (n, n), "stiffness buffer has the wrong shape");
    let p = ws.pose[body].transform_point(offset);
    out.fill(0.0);
    for b in model.ancestors_inclusive(body) {
        let cb = lower(&ws.s_bar[b]) + upper(&ws.s_bar[b]).cross(&p);
        for a in model.ancestors_inclusive(b) {
            let value = upper(&ws.s_bar[a]).cross(&cb).dot(force);
            out[(a, b)] = value;
            out[(b, a)] = value;
        }
    }
}

/// `∂(J(q) v)/∂q` (3×n) for joint velocities `v` held fixed: how the world velocity of a point
/// fixed on `body` at `offset` changes with the configuration, column `k` being
/// `Σ_j v_j s̄_{min(j,k)} × c_{max(j,k)}` (see [`point_force_derivative`]). Uses the last
/// [`forward_kinematics`](super::forward_kinematics).
///
/// # Panics
/// If `out` is not 3×n or `v` does not have n entries.
pub fn point_velocity_derivative(
    model: &Model,
    ws: &Workspace,
    body: usize,
    offset: &Vec3,
    v: &[f64],
    out: &mut DMatrix<f64>,
) {
    let n = model.dof();
    assert_eq!(
        out.shape(),
        (3, n),
        "velocity-derivative buffer has the wrong shape"
    );
    assert_eq!(v.len(), n, "v must have n entries");
    let p = ws.pose[body].transform_point(offset);
    out.fill(0.0);
    for b in model.ancestors_inclusive(body) {
        let cb = lower(&ws.s_bar[b]) + upper(&ws.s_bar[b]).cross(&p);
        for a in model.ancestors_inclusive(b) {
            let term = upper(&ws.s_bar[a]).cross(&cb);
            // Entry (j, k) = (a, b) and (b, a): column b gains v_a·term, column a gains v_b·term.
            let mut col = out.fixed_view_mut::<3, 1>(0, b);
            col += term * v[a];
            if a != b {
                let mut col = out.fixed_view_mut::<3, 1>(0, a);
                col += term * v[b];
            }
        }
    }
}
