//! `Σ_j q_j = c` at every point: a kind of constraint compiled for the unit tests only, the
//! worked example of adding a kind (this file and one line in [`super::CONSTRAINTS`]; its test
//! is in `src/transcription/terms/mod.rs`, where a problem can be solved). An entry
//! `- joint_sum: {joints: [a, b, …], equals: c}`.

use super::{
    TermKind, TermSpec, Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch,
    read_entry,
};
use crate::schema::ProblemError;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

/// The joints whose configurations sum to a constant.
#[derive(Clone, Debug)]
struct JointSum {
    joints: Vec<usize>,
    equals: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JointSumEntry {
    joints: Vec<String>,
    equals: f64,
}

pub(super) const KIND: TermKind = TermKind {
    key: "joint_sum",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let fields = entry.fields;
    let e: JointSumEntry = read_entry(fields, field, value)?;
    if e.joints.is_empty() || !e.equals.is_finite() {
        return Err(fields.invalid(field, "needs at least one joint and a finite sum"));
    }
    let joints = e
        .joints
        .iter()
        .enumerate()
        .map(|(k, name)| fields.joint(&format!("{field}.joints[{k}]"), name))
        .collect::<Result<_, _>>()?;
    Ok(Arc::new(JointSum {
        joints,
        equals: e.equals,
    }))
}

impl TermSpec for JointSum {
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

impl PointTerm for JointSum {
    fn rows(&self, p: &PointInfo) -> usize {
        usize::from(!p.fixed_configuration)
    }

    fn row_bounds(&self, _p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(self.equals);
        upper.fill(self.equals);
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if self.rows(p) > 0 {
            out.extend(self.joints.iter().map(|&j| (0, ix.q(j))));
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
        rows[0] = self.joints.iter().map(|&j| local.q[j]).sum();
        if let Some(jv) = jac {
            jv.fill(1.0);
        }
    }

    fn label(&self) -> &'static str {
        KIND.key
    }
}
