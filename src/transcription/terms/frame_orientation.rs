//! `½ vee(R*ᵀR − RᵀR*) = 0` at one time: a frame's world orientation equals `R*` (up to a half
//! turn).

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch, TimedFrame};
use crate::dynamics::frame_jacobian;
use crate::problem::{PathConstraint, TrajectoryProblem};
use crate::spatial::{Mat3, Vec3, hat, vee};
use crate::transcription::common::{Points, frame_rotation};

struct FrameOrientation {
    frame: TimedFrame,
    rotation: Mat3,
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
                frame: TimedFrame::new(prob, points, *point, *time),
                rotation: *rotation,
            }));
        }
    }
}

impl PointTerm for FrameOrientation {
    fn rows(&self, p: &PointInfo) -> usize {
        self.frame.rows(p, 3)
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        self.frame.jacobian_pattern(self.rows(p), ix, out);
    }

    fn evaluate(
        &self,
        p: &PointInfo,
        local: &Local,
        scratch: &mut Scratch,
        rows: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        let f = &self.frame;
        if !f.applies(p) {
            return;
        }
        let target = &self.rotation;
        let rm = frame_rotation(&scratch.kin, &f.point);
        rows[..3].copy_from_slice(orientation_error(target, &rm).as_slice());
        if let Some(jv) = jac {
            let fj = &mut scratch.frame_jacobian;
            frame_jacobian(
                local.model,
                &scratch.kin,
                f.point.body,
                &f.point.placement,
                fj,
            );
            let mut k = 0;
            for comp in 0..3 {
                for &j in &f.chain {
                    let w = Vec3::new(fj[(0, j)], fj[(1, j)], fj[(2, j)]);
                    jv[k] = orientation_error_rate(target, &rm, &w)[comp];
                    k += 1;
                }
            }
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        self.frame.hessian_pattern(p, ix, out);
    }

    fn label(&self) -> &'static str {
        "frame_orientation"
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
