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
