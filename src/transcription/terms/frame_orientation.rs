//! `½ vee(R*ᵀR − RᵀR*) = 0` at one time: a frame's world orientation equals `R*` (up to a half
//! turn).

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch, chain, chain_pattern};
use crate::dynamics::frame_jacobian;
use crate::problem::{BodyPoint, PathConstraint, TrajectoryProblem};
use crate::spatial::{Mat3, Vec3, hat, vee};
use crate::transcription::common::{Points, frame_rotation};

struct FrameOrientation {
    point: BodyPoint,
    rotation: Mat3,
    at: usize,
    chain: Vec<usize>,
}

/// Adds one term per frame-orientation constraint.
pub(super) fn add(prob: &TrajectoryProblem, points: &Points, terms: &mut Vec<Box<dyn PointTerm>>) {
    for c in &prob.constraints {
        if let PathConstraint::FrameOrientation {
            point,
            rotation,
            time,
            ..
        } = c
        {
            terms.push(Box::new(FrameOrientation {
                point: *point,
                rotation: *rotation,
                at: points.at(*time, prob.duration),
                chain: chain(&prob.model, point.body),
            }));
        }
    }
}

impl PointTerm for FrameOrientation {
    fn rows(&self, p: &PointInfo) -> usize {
        if p.index == self.at { 3 } else { 0 }
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for r in 0..self.rows(p) {
            out.extend(self.chain.iter().map(|&j| (r, ix.q(j))));
        }
    }

    fn evaluate(
        &self,
        p: &PointInfo,
        local: &Local,
        scratch: &mut Scratch,
        rows: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        if p.index != self.at {
            return;
        }
        let target = &self.rotation;
        let rm = frame_rotation(&scratch.kin, &self.point);
        rows[..3].copy_from_slice(orientation_error(target, &rm).as_slice());
        if let Some(jv) = jac {
            let fj = &mut scratch.frame_jacobian;
            frame_jacobian(
                local.model,
                &scratch.kin,
                self.point.body,
                &self.point.placement,
                fj,
            );
            let mut k = 0;
            for comp in 0..3 {
                for &j in &self.chain {
                    let w = Vec3::new(fj[(0, j)], fj[(1, j)], fj[(2, j)]);
                    jv[k] = orientation_error_rate(target, &rm, &w)[comp];
                    k += 1;
                }
            }
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if p.index == self.at {
            chain_pattern(&self.chain, ix, out);
        }
    }
}

/// `½ vee(R*ᵀR − RᵀR*)`: zero when the orientation `R` equals the target `R*` (or is a half turn
/// from it); for `R = R* exp(φ̂)` it is `φ` to first order (the rotation from `R*` to `R` in
/// `R*`'s axes).
pub(super) fn orientation_error(target: &Mat3, rm: &Mat3) -> Vec3 {
    0.5 * vee(&(target.transpose() * rm - rm.transpose() * target))
}

/// The rate of [`orientation_error`] when `R` turns at the world angular velocity `ω`
/// (`Ṙ = ω̂ R`): `½ vee(R*ᵀ ω̂ R + Rᵀ ω̂ R*)`.
pub(super) fn orientation_error_rate(target: &Mat3, rm: &Mat3, omega: &Vec3) -> Vec3 {
    let w = hat(omega);
    0.5 * vee(&(target.transpose() * w * rm + rm.transpose() * w * target))
}
