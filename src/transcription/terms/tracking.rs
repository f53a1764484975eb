//! `w ∫ ‖q − q_ref‖² dt`: tracking a reference configuration.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch};
use crate::problem::TrajectoryProblem;

struct Tracking {
    weight: f64,
    reference: Vec<f64>,
}

/// Adds the tracking cost if the problem has one.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    if let Some((weight, reference)) = &prob.costs.tracking {
        terms.push(Box::new(Tracking {
            weight: *weight,
            reference: reference.clone(),
        }));
    }
}

impl PointTerm for Tracking {
    fn cost(
        &self,
        p: &PointInfo,
        ix: &LocalIndex,
        local: &Local,
        _scratch: &mut Scratch,
        mut grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        let c = p.weight * self.weight;
        let mut f = 0.0;
        for (i, (&q, &r)) in local.q.iter().zip(&self.reference).enumerate() {
            let d = q - r;
            f += c * d * d;
            if let Some((s, g)) = grad.as_mut() {
                g[ix.q(i)] += *s * 2.0 * c * d;
            }
        }
        f
    }

    fn hessian_pattern(&self, _p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        out.extend((0..ix.n).map(|i| (ix.q(i), ix.q(i))));
    }
}
