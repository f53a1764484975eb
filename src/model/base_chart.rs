//! Charts of a floating base's orientation that move with the body.
//!
//! The floating base's coordinates `yaw, pitch, roll` describe the root orientation
//! `R = R₀ Rz(yaw) Ry(pitch) Rx(roll)` about a reference `R₀`, the identity in the model as
//! loaded. Each chart is singular at `pitch = ±π/2` ([`Model::base_lock_distance`]); a chart
//! centred on the body's current orientation (`R₀ = R`, angles zero) is a quarter turn from
//! its own singularity. A simulation that changes charts at a knot carries its state across
//! as a point transformation: the configuration keeps its pose, a velocity keeps the body's
//! angular velocity (a tangent vector, `ȧ' = E(a')⁻¹ E(a) ȧ`), and a momentum keeps its
//! pairing with every velocity (a covector, `p' = (∂a/∂a')ᵀ p = (E(a)⁻¹ E(a'))ᵀ p`), where
//! `E(a)` maps the angle rates to the body-frame angular velocity `Rᵀ Ṙ`. The change is a
//! cotangent lift, hence canonical, so the variational integrator's momentum matching at the
//! knot holds exactly across it.

use super::{BaseKind, Model};
use crate::spatial::{Mat3, Vec3};
use nalgebra::Rotation3;
use std::f64::consts::{PI, TAU};

/// Index of `base_yaw` in the coordinates (then `base_pitch`, `base_roll`).
const YAW: usize = 3;

/// `cos(pitch)` below which the yaw and roll of a rotation are taken as undetermined and only
/// their combination is read.
const LOCKED_COS: f64 = 1e-9;

/// Singular values of `E(a)` below this are taken as zero when a velocity is written in a
/// chart at its singularity (the least-norm rates).
const RATE_RANK_TOLERANCE: f64 = 1e-12;

/// A chart of the floating base's orientation: the reference `R₀`.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseChart {
    reference: Mat3,
}

/// `Rz(yaw) Ry(pitch) Rx(roll)`.
fn rotation(a: &[f64]) -> Mat3 {
    *(Rotation3::from_axis_angle(&Vec3::z_axis(), a[0])
        * Rotation3::from_axis_angle(&Vec3::y_axis(), a[1])
        * Rotation3::from_axis_angle(&Vec3::x_axis(), a[2]))
    .matrix()
}

/// `E(a)`: the body-frame angular velocity `Rᵀ Ṙ = E(a) (ẏaw, ṗitch, ṙoll)`; its determinant
/// is `−cos(pitch)`.
fn rates_to_body(a: &[f64]) -> Mat3 {
    let (sp, cp) = a[1].sin_cos();
    let (sr, cr) = a[2].sin_cos();
    Mat3::new(-sp, 0.0, 1.0, sr * cp, cr, 0.0, cr * cp, -sr, 0.0)
}

/// `x + 2πk` nearest to `near`.
fn unwrap(x: f64, near: f64) -> f64 {
    x + TAU * ((near - x) / TAU).round()
}

/// The angles `(yaw, pitch, roll)` of `r`, of the two solutions (and their turns by 2π) the one
/// nearest `near`. At the singularity only `roll − yaw` (pitch `π/2`) or `roll + yaw` (pitch
/// `−π/2`) is determined, and yaw is kept at `near`'s.
fn angles(r: &Mat3, near: &[f64; 3]) -> [f64; 3] {
    let pitch = (-r[(2, 0)]).atan2(r[(0, 0)].hypot(r[(1, 0)]));
    if pitch.cos() < LOCKED_COS {
        let yaw = near[0];
        let roll = if pitch > 0.0 {
            yaw + r[(0, 1)].atan2(r[(0, 2)])
        } else {
            (-r[(0, 1)]).atan2(-r[(0, 2)]) - yaw
        };
        let pitch = unwrap(pitch, near[1]);
        return [yaw, pitch, unwrap(roll, near[2])];
    }
    let (yaw, roll) = (r[(1, 0)].atan2(r[(0, 0)]), r[(2, 1)].atan2(r[(2, 2)]));
    let candidates = [[yaw, pitch, roll], [yaw + PI, PI - pitch, roll + PI]];
    let mut best = [0.0; 3];
    let mut best_distance = f64::INFINITY;
    for c in candidates {
        let w = [
            unwrap(c[0], near[0]),
            unwrap(c[1], near[1]),
            unwrap(c[2], near[2]),
        ];
        let d: f64 = (0..3).map(|i| (w[i] - near[i]).powi(2)).sum();
        if d < best_distance {
            best_distance = d;
            best = w;
        }
    }
    best
}

impl Default for BaseChart {
    fn default() -> Self {
        Self::identity()
    }
}

impl BaseChart {
    /// The model's own chart, `R₀ = I`.
    pub fn identity() -> Self {
        Self {
            reference: Mat3::identity(),
        }
    }

    /// Whether this is the model's own chart.
    pub fn is_identity(&self) -> bool {
        self.reference == Mat3::identity()
    }

    /// `model` with its base coordinates in this chart: the yaw joint placed at `R₀`. `model`
    /// must have the identity chart (as loaded).
    pub fn model(&self, model: &Model) -> Model {
        let mut out = model.clone();
        if model.base() == BaseKind::Floating {
            out.joints[YAW].placement.rotation = self.reference;
        }
        out
    }

    /// The chart centred on the orientation of `q`, in which `q`'s angles are zero.
    pub fn centred_at(&self, q: &[f64]) -> Self {
        Self {
            reference: self.reference * rotation(&q[YAW..YAW + 3]),
        }
    }

    /// Writes the base coordinates of `q`, the velocities `tangents` and the momenta
    /// `covectors` (all of them in this chart, at `q`) in the chart `to`, whose angles are
    /// taken nearest to `near` (the last angles written in `to`). Only the angle entries
    /// change. Where `to` is at its singularity the velocities are the least-norm rates.
    pub fn convert(
        &self,
        to: &BaseChart,
        near: &[f64; 3],
        q: &mut [f64],
        tangents: &mut [&mut [f64]],
        covectors: &mut [&mut [f64]],
    ) {
        let a = [q[YAW], q[YAW + 1], q[YAW + 2]];
        let r = to.reference.transpose() * self.reference * rotation(&a);
        let b = angles(&r, near);
        q[YAW..YAW + 3].copy_from_slice(&b);
        let (e_from, e_to) = (rates_to_body(&a), rates_to_body(&b));
        for v in tangents.iter_mut() {
            let omega = e_from * Vec3::new(v[YAW], v[YAW + 1], v[YAW + 2]);
            let rates = e_to
                .svd(true, true)
                .solve(&omega, RATE_RANK_TOLERANCE)
                .unwrap_or_else(|_| Vec3::from_element(f64::NAN));
            v[YAW..YAW + 3].copy_from_slice(rates.as_slice());
        }
        if covectors.is_empty() {
            return;
        }
        // `∂a/∂b = E(a)⁻¹ E(b)`; the source chart is never at its singularity here.
        let jacobian = e_from
            .try_inverse()
            .map_or_else(|| Mat3::from_element(f64::NAN), |inv| inv * e_to);
        for p in covectors.iter_mut() {
            let pb = jacobian.transpose() * Vec3::new(p[YAW], p[YAW + 1], p[YAW + 2]);
            p[YAW..YAW + 3].copy_from_slice(pb.as_slice());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Angles read back from their rotation, away from and at the singularity, and the branch
    /// nearest a given guess.
    #[test]
    fn angles_invert_the_rotation() {
        for a in [
            [0.3, -0.4, 1.2],
            [-2.5, 1.2, 0.1],
            [1.0, std::f64::consts::FRAC_PI_2, 0.4],
            [0.2, -std::f64::consts::FRAC_PI_2, -0.7],
        ] {
            let r = rotation(&a);
            let b = angles(&r, &a);
            assert!((rotation(&b) - r).amax() < 1e-12, "{a:?} → {b:?}");
            assert!((0..3).all(|i| (a[i] - b[i]).abs() < 1e-9), "{a:?} → {b:?}");
        }
        // The other branch, (yaw + π, π − pitch, roll + π), when the guess lies nearer it.
        let a = [0.3, 1.4, 0.2];
        let near = [0.3 + PI, PI - 1.4, 0.2 - PI];
        let b = angles(&rotation(&a), &near);
        assert!((0..3).all(|i| (b[i] - near[i]).abs() < 1e-9), "{b:?}");
    }

    /// `E(a)` against central differences of `Rᵀ Ṙ`.
    #[test]
    fn rates_to_body_matches_finite_differences() {
        let a = [0.7, -0.3, 1.1];
        let rate = [0.4, -1.3, 0.9];
        let e = 1e-6;
        let at = |t: f64| rotation(&[a[0] + t * rate[0], a[1] + t * rate[1], a[2] + t * rate[2]]);
        let rdot = (at(e) - at(-e)) / (2.0 * e);
        let skew = rotation(&a).transpose() * rdot;
        let omega = Vec3::new(skew[(2, 1)], skew[(0, 2)], skew[(1, 0)]);
        let analytic = rates_to_body(&a) * Vec3::new(rate[0], rate[1], rate[2]);
        assert!(
            (omega - analytic).amax() < 1e-8,
            "{omega} against {analytic}"
        );
    }
}
