//! `costs.tracking: {weight, q}`: `∫ Σ_i w_i (q_i − q_ref,i)² dt`, tracking a reference
//! configuration `q` with a weight per joint (one number for all, a list, or a map by joint
//! name; 1 for every joint when absent).

use super::{
    Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch, TermKind, TermSpec,
    read_entry,
};
use crate::schema::ProblemError;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct Tracking {
    weight: Vec<f64>,
    reference: Vec<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrackingEntry {
    weight: Option<Value>,
    q: Vec<f64>,
}

pub(super) const KIND: TermKind = TermKind {
    key: "tracking",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    Ok(Arc::new(read(value, entry, field)?))
}

fn read(value: &Value, entry: &Entry, field: &str) -> Result<Tracking, ProblemError> {
    let fields = entry.fields;
    let e: TrackingEntry = read_entry(fields, field, value)?;
    let n = fields.model.dof();
    let joints: Vec<usize> = (0..n).collect();
    Ok(Tracking {
        weight: match &e.weight {
            None => vec![1.0; n],
            Some(w) => fields.weights(&format!("{field}.weight"), w, &joints)?,
        },
        reference: fields.vector(&format!("{field}.q"), &e.q, n)?,
    })
}

impl TermSpec for Tracking {
    fn key(&self) -> &'static str {
        KIND.key
    }

    fn build(&self, _on: &Layout) -> Vec<Box<dyn PointTerm>> {
        vec![Box::new(self.clone())]
    }

    fn holds_at_start(&self) -> bool {
        true
    }

    fn posture(&self) -> Option<&[f64]> {
        Some(&self.reference)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::tests::{entry_of, robot};

    #[test]
    fn weights_are_one_number_a_list_or_a_map_by_joint() {
        let model = robot("pendulum2.urdf");
        let n = model.dof();
        let weights = |text: &str| {
            let t = entry_of(&model, None, |entry| {
                read(&serde_yaml_ng::from_str(text).unwrap(), entry, "c")
            })
            .unwrap();
            assert_eq!(t.reference.len(), n);
            t.weight
        };
        let q = format!("{:?}", vec![0.5; n]);
        assert_eq!(weights(&format!("{{q: {q}}}")), vec![1.0; n]);
        assert_eq!(weights(&format!("{{weight: 3, q: {q}}}")), vec![3.0; n]);
        let mut expected = vec![0.0; n];
        expected[n - 1] = 4.0;
        assert_eq!(
            weights(&format!("{{weight: {{joint2: 4}}, q: {q}}}")),
            expected
        );
    }
}
