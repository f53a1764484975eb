//! The contact frame at a point of the terrain and the polyhedral friction cone's directions.
//!
//! The normal is `n̂ = ∇φ/|∇φ|`; the first tangent is `t̂₁ = (e_y × n̂)/|e_y × n̂|` (along +x on
//! level ground, and in the x–z plane wherever `n̂` is, so planar robots need only `±t̂₁`), the
//! second `t̂₂ = n̂ × t̂₁` (+y on level ground). The frame is smooth wherever `n̂ ≠ ±e_y`, that
//! is everywhere except on walls facing ±y. The friction cone is approximated by the pyramid
//! spanned by `n̂ + μ d̂_j` over the directions `d̂_j`: `±t̂₁` for planar robots (exact in the
//! plane), `±t̂₁, ±t̂₂` for spatial ones (the inscribed-square pyramid of Stewart and Trinkle).

use super::distance::Distance;
use crate::spatial::{Mat3, Vec3, hat};

/// The unit normal and tangents at a point, with their derivatives along the point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactFrame {
    /// Unit normal `n̂`.
    pub normal: Vec3,
    /// `∂n̂/∂p`.
    pub normal_derivative: Mat3,
    /// Unit tangents `t̂₁, t̂₂`.
    pub tangents: [Vec3; 2],
    /// `∂t̂₁/∂p`, `∂t̂₂/∂p`.
    pub tangent_derivatives: [Mat3; 2],
}

impl ContactFrame {
    /// The frame of the distance field at a point.
    pub fn new(d: &Distance) -> Self {
        let g = d.gradient;
        let norm = g.norm();
        let normal = g / norm;
        let normal_derivative = (Mat3::identity() - normal * normal.transpose()) * d.hessian / norm;
        let ey = hat(&Vec3::y());
        let w = ey * normal;
        let wn = w.norm();
        let t1 = w / wn;
        let dt1_dn = (Mat3::identity() - t1 * t1.transpose()) * ey / wn;
        let t2 = normal.cross(&t1);
        let dt2_dn = -hat(&t1) + hat(&normal) * dt1_dn;
        Self {
            normal,
            normal_derivative,
            tangents: [t1, t2],
            tangent_derivatives: [dt1_dn * normal_derivative, dt2_dn * normal_derivative],
        }
    }

    /// Friction direction `j` of a cone with `directions` (2 or 4) directions: `+t̂₁, −t̂₁`,
    /// then `+t̂₂, −t̂₂`; with its derivative along the point.
    pub fn direction(&self, j: usize) -> (Vec3, Mat3) {
        let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
        let k = j / 2;
        (self.tangents[k] * sign, self.tangent_derivatives[k] * sign)
    }
}
