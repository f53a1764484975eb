//! `eᵀ p_frame(q(t)) = eᵀ p*` along chosen world axes at one time: a frame's origin placed.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch, chain, chain_pattern};
use crate::dynamics::frame_jacobian;
use crate::problem::{BodyPoint, PathConstraint, TrajectoryProblem};
use crate::spatial::Vec3;
use crate::transcription::common::{Points, frame_origin};

struct FramePosition {
    point: BodyPoint,
    position: Vec3,
    axes: Vec<Vec3>,
    at: usize,
    chain: Vec<usize>,
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
                point: *point,
                position: *position,
                axes: axes.clone(),
                at: points.at(*time, prob.duration),
                chain: chain(&prob.model, point.body),
            }));
        }
    }
}

impl PointTerm for FramePosition {
    fn rows(&self, p: &PointInfo) -> usize {
        if p.index == self.at {
            self.axes.len()
        } else {
            0
        }
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
        let d = frame_origin(&scratch.kin, &self.point) - self.position;
        for (r, e) in self.axes.iter().enumerate() {
            rows[r] = e.dot(&d);
        }
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
            for e in &self.axes {
                for &j in &self.chain {
                    jv[k] = e.dot(&Vec3::new(fj[(3, j)], fj[(4, j)], fj[(5, j)]));
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
