//! `∫ xᵀ W x dt` with a diagonal weight `W`, for `x` the torques `u` (the effort cost, one weight
//! per actuated joint) or the velocity `q̇` (one weight per joint). At a point `q̇` is the point's
//! velocity: in the Simpson VI the slope of the stage's Lagrange interpolant (seed 000 Eq. 2),
//! in Hermite–Simpson the velocity variable. The velocity cost spreads a motion over the
//! horizon, where a cost on the configuration alone (tracking a posture) makes holding still
//! and moving late the cheapest.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch};
use crate::problem::TrajectoryProblem;

/// Which part of the local vector the cost weighs.
#[derive(Clone, Copy)]
enum Of {
    Torques,
    Velocity,
}

struct DiagonalQuadratic {
    of: Of,
    weights: Vec<f64>,
}

impl DiagonalQuadratic {
    fn values<'a>(&self, local: &Local<'a>) -> &'a [f64] {
        match self.of {
            Of::Torques => local.u,
            Of::Velocity => local.v,
        }
    }

    fn index(&self, ix: &LocalIndex, i: usize) -> usize {
        match self.of {
            Of::Torques => ix.u(i),
            Of::Velocity => ix.v(i),
        }
    }
}

/// Adds the effort and velocity costs that have a positive weight.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    for (of, weights) in [
        (Of::Torques, &prob.costs.effort),
        (Of::Velocity, &prob.costs.velocity),
    ] {
        if weights.iter().any(|&w| w > 0.0) {
            terms.push(Box::new(DiagonalQuadratic {
                of,
                weights: weights.clone(),
            }));
        }
    }
}

impl PointTerm for DiagonalQuadratic {
    fn cost(
        &self,
        p: &PointInfo,
        ix: &LocalIndex,
        local: &Local,
        _scratch: &mut Scratch,
        grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        let x = self.values(local);
        let f: f64 = self
            .weights
            .iter()
            .zip(x)
            .map(|(&w, &x)| p.weight * w * x * x)
            .sum();
        if let Some((s, g)) = grad {
            for (i, (&w, &x)) in self.weights.iter().zip(x).enumerate() {
                g[self.index(ix, i)] += s * 2.0 * p.weight * w * x;
            }
        }
        f
    }

    fn hessian_pattern(&self, _p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for (i, &w) in self.weights.iter().enumerate() {
            if w > 0.0 {
                let j = self.index(ix, i);
                out.push((j, j));
            }
        }
    }
}
