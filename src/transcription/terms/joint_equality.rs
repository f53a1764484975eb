//! `q_a − ratio · q_b − offset = 0` at every point: one joint following another.

use super::{Local, LocalIndex, PointInfo, PointTerm, Scratch};
use crate::problem::{PathConstraint, TrajectoryProblem};

struct JointEquality {
    a: usize,
    b: usize,
    ratio: f64,
    offset: f64,
}

/// Adds one term per joint-equality constraint.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    for c in &prob.constraints {
        if let PathConstraint::JointEquality {
            a,
            b,
            ratio,
            offset,
        } = c
        {
            terms.push(Box::new(JointEquality {
                a: *a,
                b: *b,
                ratio: *ratio,
                offset: *offset,
            }));
        }
    }
}

impl PointTerm for JointEquality {
    fn rows(&self, p: &PointInfo) -> usize {
        usize::from(!p.fixed_configuration)
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if self.rows(p) > 0 {
            out.push((0, ix.q(self.a)));
            out.push((0, ix.q(self.b)));
        }
    }

    fn evaluate(
        &self,
        p: &PointInfo,
        local: &Local,
        _scratch: &mut Scratch,
        rows: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        if self.rows(p) == 0 {
            return;
        }
        rows[0] = local.q[self.a] - self.ratio * local.q[self.b] - self.offset;
        if let Some(jv) = jac {
            jv[0] = 1.0;
            jv[1] = -self.ratio;
        }
    }

    fn label(&self) -> &'static str {
        "joint_equality"
    }
}
