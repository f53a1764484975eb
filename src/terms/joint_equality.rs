//! `q_a − ratio · q_b − offset = 0` at every point: one joint following another.

use super::{
    TermKind, TermSpec, Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch,
    read_entry,
};
use crate::schema::ProblemError;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

/// One joint following another, `q_a = ratio · q_b + offset`: an entry
/// `- joint_equality: {joint, equals, ratio, offset}` of `constraints:`, or a mimic coupling
/// of the robot's file.
#[derive(Clone, Debug)]
pub(crate) struct JointEquality {
    /// Joint index `a`.
    pub a: usize,
    /// Joint index `b`.
    pub b: usize,
    /// Ratio.
    pub ratio: f64,
    /// Offset.
    pub offset: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JointEqualityEntry {
    joint: String,
    equals: String,
    #[serde(default = "super::one")]
    ratio: f64,
    #[serde(default)]
    offset: f64,
}

pub(super) const KIND: TermKind = TermKind {
    key: "joint_equality",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let fields = entry.fields;
    let e: JointEqualityEntry = read_entry(fields, field, value)?;
    let a = fields.joint(&format!("{field}.joint"), &e.joint)?;
    let b = fields.joint(&format!("{field}.equals"), &e.equals)?;
    if a == b || !e.ratio.is_finite() || !e.offset.is_finite() {
        return Err(fields.invalid(
            field,
            "needs two different joints and a finite ratio and offset",
        ));
    }
    Ok(Arc::new(JointEquality {
        a,
        b,
        ratio: e.ratio,
        offset: e.offset,
    }))
}

impl TermSpec for JointEquality {
    fn key(&self) -> &'static str {
        KIND.key
    }

    fn build(&self, _on: &Layout) -> Vec<Box<dyn PointTerm>> {
        vec![Box::new(self.clone())]
    }

    fn holds_at_start(&self) -> bool {
        true
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
