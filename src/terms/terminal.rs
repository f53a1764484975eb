//! `costs.terminal: {weight, q, v}`: `w (‖q(T) − q_T‖² + ‖v(T) − v_T‖²)`, a cost at the last
//! point, each part optional (`weight` 1 when absent). `v(T)` is the point's velocity (in the
//! VI, the slope of the last stage's interpolant).

use super::{
    Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch, TermKind, TermSpec,
    read_entry,
};
use crate::schema::ProblemError;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct Terminal {
    /// Weight `w`.
    weight: f64,
    /// Target configuration.
    q: Option<Vec<f64>>,
    /// Target velocity.
    v: Option<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TerminalEntry {
    #[serde(default = "super::one")]
    weight: f64,
    q: Option<Vec<f64>>,
    v: Option<Vec<f64>>,
}

pub(super) const KIND: TermKind = TermKind {
    key: "terminal",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let fields = entry.fields;
    let e: TerminalEntry = read_entry(fields, field, value)?;
    let n = fields.model.dof();
    let target = |part: &str, x: &Option<Vec<f64>>| {
        x.as_ref()
            .map(|x| fields.vector(&format!("{field}.{part}"), x, n))
            .transpose()
    };
    Ok(Arc::new(Terminal {
        weight: fields.nonnegative(&format!("{field}.weight"), e.weight)?,
        q: target("q", &e.q)?,
        v: target("v", &e.v)?,
    }))
}

impl TermSpec for Terminal {
    fn key(&self) -> &'static str {
        KIND.key
    }

    fn build(&self, _on: &Layout) -> Vec<Box<dyn PointTerm>> {
        vec![Box::new(self.clone())]
    }

    fn holds_at_start(&self) -> bool {
        false
    }
}

impl PointTerm for Terminal {
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
        let w = self.weight;
        let mut f = 0.0;
        for (target, values, index) in [(&self.q, local.q, 0), (&self.v, local.v, ix.n)] {
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
        if self.q.is_some() {
            out.extend((0..ix.n).map(|i| (ix.q(i), ix.q(i))));
        }
        if self.v.is_some() {
            out.extend((0..ix.n).map(|i| (ix.v(i), ix.v(i))));
        }
    }
}
