//! `∫ Σ_i w_i (q_i − q_ref,i)² dt`: tracking a reference configuration, with a weight per joint.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch};
use crate::problem::TrajectoryProblem;

struct Tracking {
    weight: Vec<f64>,
    reference: Vec<f64>,
}

/// Adds the tracking cost if the problem has one.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    if let Some(t) = &prob.costs.tracking {
        terms.push(Box::new(Tracking {
            weight: t.weight.clone(),
            reference: t.q.clone(),
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
        let mut f = 0.0;
        for (i, ((&q, &r), &w)) in local
            .q
            .iter()
            .zip(&self.reference)
            .zip(&self.weight)
            .enumerate()
        {
            let c = p.weight * w;
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
