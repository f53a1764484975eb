//! `w ‖p_frame(q) − p*‖²`: pulling a frame's origin to a world position, at one time or
//! integrated over the horizon.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch, chain, chain_pattern};
use crate::dynamics::frame_jacobian;
use crate::problem::{FrameTarget, TrajectoryProblem};
use crate::transcription::common::{Points, frame_origin};

struct Target {
    target: FrameTarget,
    chain: Vec<usize>,
    /// The point of a timed target, or `None` for a path integral.
    point: Option<usize>,
}

/// Adds one term per frame target.
pub(super) fn add(prob: &TrajectoryProblem, points: &Points, terms: &mut Vec<Box<dyn PointTerm>>) {
    for t in &prob.costs.targets {
        terms.push(Box::new(Target {
            target: t.clone(),
            chain: chain(&prob.model, t.point.body),
            point: t.time.map(|time| points.at(time, prob.duration)),
        }));
    }
}

impl Target {
    /// The cost's weight at `p` (zero where it does not apply).
    fn scale(&self, p: &PointInfo) -> f64 {
        match self.point {
            Some(at) if at == p.index => self.target.weight,
            Some(_) => 0.0,
            None => self.target.weight * p.weight,
        }
    }
}

impl PointTerm for Target {
    fn cost(
        &self,
        p: &PointInfo,
        ix: &LocalIndex,
        local: &Local,
        scratch: &mut Scratch,
        grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        let scale = self.scale(p);
        if scale == 0.0 {
            return 0.0;
        }
        let point = &self.target.point;
        let d = frame_origin(&scratch.kin, point) - self.target.position;
        if let Some((s, g)) = grad {
            let jac = &mut scratch.frame_jacobian;
            frame_jacobian(local.model, &scratch.kin, point.body, &point.placement, jac);
            for &j in &self.chain {
                let col = crate::spatial::Vec3::new(jac[(3, j)], jac[(4, j)], jac[(5, j)]);
                g[ix.q(j)] += s * 2.0 * scale * d.dot(&col);
            }
        }
        scale * d.norm_squared()
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if self.scale(p) != 0.0 {
            chain_pattern(&self.chain, ix, out);
        }
    }
}
