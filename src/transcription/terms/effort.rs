//! `∫ uᵀ W u dt`: the effort cost, with a diagonal weight per actuated joint.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch};
use crate::problem::TrajectoryProblem;

struct Effort {
    weights: Vec<f64>,
}

/// Adds the effort cost when any weight is positive.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    if prob.costs.effort.iter().any(|&w| w > 0.0) {
        terms.push(Box::new(Effort {
            weights: prob.costs.effort.clone(),
        }));
    }
}

impl PointTerm for Effort {
    fn cost(
        &self,
        p: &PointInfo,
        ix: &LocalIndex,
        local: &Local,
        _scratch: &mut Scratch,
        grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        let f: f64 = self
            .weights
            .iter()
            .zip(local.u)
            .map(|(&w, &u)| p.weight * w * u * u)
            .sum();
        if let Some((s, g)) = grad {
            for (c, (&w, &u)) in self.weights.iter().zip(local.u).enumerate() {
                g[ix.u(c)] += s * 2.0 * p.weight * w * u;
            }
        }
        f
    }

    fn hessian_pattern(&self, _p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for (c, &w) in self.weights.iter().enumerate() {
            if w > 0.0 {
                out.push((ix.u(c), ix.u(c)));
            }
        }
    }
}
