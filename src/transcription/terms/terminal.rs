//! `w (‖q(T) − q_T‖² + ‖v(T) − v_T‖²)`: a terminal cost at the last point, each part optional.
//! `v(T)` is the point's velocity (in the VI, the slope of the last stage's interpolant).

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch};
use crate::problem::{Terminal, TrajectoryProblem};

struct TerminalCost(Terminal);

/// Adds the terminal cost if the problem has one.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    if let Some(t) = &prob.costs.terminal {
        terms.push(Box::new(TerminalCost(t.clone())));
    }
}

impl PointTerm for TerminalCost {
    fn cost(
        &self,
        p: &PointInfo,
        ix: &LocalIndex,
        local: &Local,
        _scratch: &mut Scratch,
        mut grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        if !p.is_last() {
            return 0.0;
        }
        let w = self.0.weight;
        let mut f = 0.0;
        for (target, values, index) in [(&self.0.q, local.q, 0), (&self.0.v, local.v, ix.n)] {
            let Some(target) = target else { continue };
            for (i, (&x, &t)) in values.iter().zip(target).enumerate() {
                let d = x - t;
                f += w * d * d;
                if let Some((s, g)) = grad.as_mut() {
                    g[index + i] += *s * 2.0 * w * d;
                }
            }
        }
        f
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if !p.is_last() {
            return;
        }
        if self.0.q.is_some() {
            out.extend((0..ix.n).map(|i| (ix.q(i), ix.q(i))));
        }
        if self.0.v.is_some() {
            out.extend((0..ix.n).map(|i| (ix.v(i), ix.v(i))));
        }
    }
}
