//! `∫ q̇ᵀ W q̇ dt`: the velocity cost, with a diagonal weight per joint. At a point `q̇` is the
//! point's velocity: in the Simpson VI the slope of the stage's Lagrange interpolant (seed 000
//! Eq. 2), in Hermite–Simpson the velocity variable. It spreads a motion over the horizon,
//! where a cost on the configuration alone (tracking a posture) makes holding still and moving
//! late the cheapest.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch};
use crate::problem::TrajectoryProblem;

struct Velocity {
    weights: Vec<f64>,
}

/// Adds the velocity cost when any weight is positive.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    if prob.costs.velocity.iter().any(|&w| w > 0.0) {
        terms.push(Box::new(Velocity {
            weights: prob.costs.velocity.clone(),
        }));
    }
}

impl PointTerm for Velocity {
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
            .zip(local.v)
            .map(|(&w, &v)| p.weight * w * v * v)
            .sum();
        if let Some((s, g)) = grad {
            for (i, (&w, &v)) in self.weights.iter().zip(local.v).enumerate() {
                g[ix.v(i)] += s * 2.0 * p.weight * w * v;
            }
        }
        f
    }

    fn hessian_pattern(&self, _p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for (i, &w) in self.weights.iter().enumerate() {
            if w > 0.0 {
                out.push((ix.v(i), ix.v(i)));
            }
        }
    }
}
