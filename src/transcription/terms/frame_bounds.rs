//! `lower ≤ eᵀ p_frame(q) ≤ upper` along chosen world axes at every point: a frame kept in a
//! region (a swing foot above the ground, a hand away from the body).

use super::{
    Local, LocalIndex, PointInfo, PointTerm, Scratch, chain, chain_pattern, point_velocity_column,
};
use crate::dynamics::frame_jacobian;
use crate::problem::{BodyPoint, PathConstraint, TrajectoryProblem};
use crate::spatial::Vec3;
use crate::transcription::common::frame_origin;

struct FrameBounds {
    point: BodyPoint,
    axes: Vec<(Vec3, f64, f64)>,
    chain: Vec<usize>,
}

/// Adds one term per frame-bounds constraint.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    for c in &prob.constraints {
        if let PathConstraint::FrameBounds { point, axes, .. } = c {
            terms.push(Box::new(FrameBounds {
                point: *point,
                axes: axes.clone(),
                chain: chain(&prob.model, point.body),
            }));
        }
    }
}

impl PointTerm for FrameBounds {
    fn rows(&self, p: &PointInfo) -> usize {
        if p.fixed_configuration {
            0
        } else {
            self.axes.len()
        }
    }

    fn row_bounds(&self, _p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        // Empty where the configuration is fixed.
        for ((l, u), &(_, lo, hi)) in lower.iter_mut().zip(upper.iter_mut()).zip(&self.axes) {
            *l = lo;
            *u = hi;
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
        if p.fixed_configuration {
            return;
        }
        let p = frame_origin(&scratch.kin, &self.point);
        for (r, (e, _, _)) in self.axes.iter().enumerate() {
            rows[r] = e.dot(&p);
        }
        let Some(jv) = jac else { return };
        let fj = &mut scratch.frame_jacobian;
        frame_jacobian(
            local.model,
            &scratch.kin,
            self.point.body,
            &self.point.placement,
            fj,
        );
        let mut k = 0;
        for (e, _, _) in &self.axes {
            for &j in &self.chain {
                jv[k] = e.dot(&point_velocity_column(fj, j));
                k += 1;
            }
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if !p.fixed_configuration {
            chain_pattern(&self.chain, ix, out);
        }
    }

    fn label(&self) -> &'static str {
        "frame_bounds"
    }
}
