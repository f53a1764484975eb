//! `eᵀ p_frame(q(t)) = eᵀ p*` along chosen world axes at one time: a frame's origin placed.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch, TimedFrame, point_velocity_column};
use crate::dynamics::frame_jacobian;
use crate::problem::{PathConstraint, TrajectoryProblem};
use crate::spatial::Vec3;
use crate::transcription::common::{Points, frame_origin};

struct FramePosition {
    frame: TimedFrame,
    position: Vec3,
    axes: Vec<Vec3>,
}

/// Adds one term per frame-position constraint.
pub(super) fn add(prob: &TrajectoryProblem, points: &Points, terms: &mut Vec<Box<dyn PointTerm>>) {
    for c in &prob.constraints {
        if let PathConstraint::FramePosition {
            point,
            position,
            axes,
            time,
            ..
        } = c
        {
            terms.push(Box::new(FramePosition {
                frame: TimedFrame::new(prob, points, *point, *time),
                position: *position,
                axes: axes.clone(),
            }));
        }
    }
}

impl PointTerm for FramePosition {
    fn rows(&self, p: &PointInfo) -> usize {
        self.frame.rows(p, self.axes.len())
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
        let d = frame_origin(&scratch.kin, &f.point) - self.position;
        for (r, e) in self.axes.iter().enumerate() {
            rows[r] = e.dot(&d);
        }
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
            for e in &self.axes {
                for &j in &f.chain {
                    jv[k] = e.dot(&point_velocity_column(fj, j));
                    k += 1;
                }
            }
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        self.frame.hessian_pattern(p, ix, out);
    }

    fn label(&self) -> &'static str {
        "frame_position"
    }
}
