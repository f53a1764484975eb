//! `Σ_j q_j = c` at every point: a kind of constraint compiled for the unit tests only, the
//! worked example of adding a kind (this file and one line in [`super::CONSTRAINTS`]). An
//! entry `- joint_sum: {joints: [a, b, …], equals: c}`.

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

#[cfg(test)]
mod tests {
    use crate::problem::{ProblemOverrides, load_problem_str};
    use crate::nlp::Status;
    use crate::transcription::solve;
    use std::path::Path;

    /// A problem file with the new kind loads, names its bad fields, and solves: the two
    /// joints of a double pendulum swing with their sum held at every point.
    #[test]
    fn a_kind_added_in_one_file_loads_and_solves() {
        let robots = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots");
        let problem = |constraint: &str| {
            let text = format!(
                "name: sum\nrobot: pendulum2.urdf\nduration: 1.0\nstages: 6\n\
                 initial: {{q: [0.1, 0.2], v: [0, 0]}}\nfinal: {{q: [0.9, free], v: [0, 0]}}\n\
                 bounds: {{u: [-50, 50]}}\ncosts: {{effort: 1.0}}\n\
                 constraints:\n  - joint_sum: {constraint}\n"
            );
            load_problem_str(&text, &robots, "sum.yaml", &ProblemOverrides::default())
        };
        let err = problem("{joints: [joint1, elbow], equals: 0.3}")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("constraints[0].joint_sum.joints[1]") && err.contains("elbow"));
        let prob = problem("{joints: [joint1, joint2], equals: 0.3}").unwrap();
        assert_eq!(prob.constraint_kinds(), ["joint_sum"]);
        let outcome = solve(&prob, &mut std::io::sink()).unwrap();
        assert_eq!(outcome.result.status, Status::Converged);
        let q = &outcome.solution.q;
        for qp in q {
            assert!((qp[0] + qp[1] - 0.3).abs() < 1e-7, "{qp:?}");
        }
        assert!((q[q.len() - 1][1] + 0.6).abs() < 1e-7);
    }
}
