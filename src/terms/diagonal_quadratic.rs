//! `∫ xᵀ W x dt` with a diagonal weight `W`, for `x` the torques `u` (the effort cost, one weight
//! per actuated joint) or the velocity `q̇` (one weight per joint). At a point `q̇` is the point's
//! velocity: in the Simpson VI the slope of the stage's Lagrange interpolant (seed 000 Eq. 2),
//! each stage's own at a knot (the two slopes `v_p` and `v⁻_p`, each with its stage's Lobatto
//! weight, so that the rule is exact for every stage's polynomial), in Hermite–Simpson the
//! velocity variable. The velocity cost spreads a motion over the
//! horizon, where a cost on the configuration alone (tracking a posture) makes holding still
//! and moving late the cheapest.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch};

/// Which part of the local vector the cost weighs.
#[derive(Clone, Copy, Debug)]
pub(super) enum Of {
    Torques,
    Velocity,
}

/// The cost term of `costs.effort` (`effort.rs`) and `costs.velocity` (`velocity.rs`).
#[derive(Clone, Debug)]
pub(super) struct DiagonalQuadratic {
    pub of: Of,
    pub weights: Vec<f64>,
}

/// A vector of the local values.
#[derive(Clone, Copy)]
enum Slot {
    U,
    V,
    VBefore,
}

impl Slot {
    fn values<'a>(self, local: &Local<'a>) -> &'a [f64] {
        match self {
            Slot::U => local.u,
            Slot::V => local.v,
            Slot::VBefore => local.v_before,
        }
    }

    fn index(self, ix: &LocalIndex, i: usize) -> usize {
        match self {
            Slot::U => ix.u(i),
            Slot::V => ix.v(i),
            Slot::VBefore => ix.v_before(i),
        }
    }
}

impl DiagonalQuadratic {
    /// The vectors the cost weighs at the point, with their quadrature weights.
    fn parts(&self, p: &PointInfo) -> [(f64, Slot); 2] {
        match self.of {
            Of::Torques => [(p.weight, Slot::U), (0.0, Slot::U)],
            Of::Velocity => [
                (p.velocity_weight, Slot::V),
                (p.before_weight, Slot::VBefore),
            ],
        }
    }
}

impl DiagonalQuadratic {
    /// The term, when some weight is positive.
    pub fn terms(&self) -> Vec<Box<dyn PointTerm>> {
        if self.weights.iter().any(|&w| w > 0.0) {
            vec![Box::new(self.clone())]
        } else {
            Vec::new()
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
        mut grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        let mut f = 0.0;
        for (c, slot) in self.parts(p) {
            let x = slot.values(local);
            f += self
                .weights
                .iter()
                .zip(x)
                .map(|(&w, &x)| c * w * x * x)
                .sum::<f64>();
            if let Some((s, g)) = grad.as_mut() {
                for (i, (&w, &x)) in self.weights.iter().zip(x).enumerate() {
                    g[slot.index(ix, i)] += *s * 2.0 * c * w * x;
                }
            }
        }
        f
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for (c, slot) in self.parts(p) {
            for (i, &w) in self.weights.iter().enumerate() {
                if c > 0.0 && w > 0.0 {
                    let j = slot.index(ix, i);
                    out.push((j, j));
                }
            }
        }
    }
}
