//! `costs.targets: [{frame, position, weight, time}]`: `w ‖p_frame(q) − p*‖²`, pulling a frame's
//! origin to a world position at one time (`time`: start, end or seconds; end when absent) or
//! integrated over the horizon (`time: path`); `weight` 1 when absent.

use super::{
    Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch, Target as Aim, TermKind,
    TermSpec, chain, chain_pattern, frame_origin, point_velocity_column, read_entry,
};
use crate::dynamics::frame_jacobian;
use crate::schema::{BodyPoint, ProblemError, TimeSpec};
use crate::spatial::Vec3;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

/// One frame target.
#[derive(Clone, Debug)]
struct FrameTarget {
    /// Frame name (for reports).
    name: String,
    /// The frame.
    point: BodyPoint,
    /// Target world position.
    position: Vec3,
    /// Weight.
    weight: f64,
    /// When (or `None`: integrated over the whole horizon).
    time: Option<TimeSpec>,
}

/// The list of frame targets.
#[derive(Clone, Debug)]
struct Targets(Vec<FrameTarget>);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetEntry {
    frame: String,
    position: [f64; 3],
    #[serde(default = "super::one")]
    weight: f64,
    time: Option<Value>,
}

pub(super) const KIND: TermKind = TermKind {
    key: "targets",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let fields = entry.fields;
    let entries: Vec<TargetEntry> = read_entry(fields, field, value)?;
    let mut targets = Vec::with_capacity(entries.len());
    for (k, t) in entries.into_iter().enumerate() {
        let field = format!("{field}[{k}]");
        let time = match &t.time {
            Some(Value::String(s)) if s == "path" => None,
            other => Some(fields.time(&format!("{field}.time"), other.as_ref(), entry.duration)?),
        };
        targets.push(FrameTarget {
            point: fields.point(&format!("{field}.frame"), &t.frame)?,
            name: t.frame,
            position: fields.finite3(&format!("{field}.position"), t.position)?,
            weight: fields.nonnegative(&format!("{field}.weight"), t.weight)?,
            time,
        });
    }
    Ok(Arc::new(Targets(targets)))
}

impl TermSpec for Targets {
    fn key(&self) -> &'static str {
        KIND.key
    }

    fn build(&self, on: &Layout) -> Vec<Box<dyn PointTerm>> {
        self.0
            .iter()
            .map(|t| {
                Box::new(Target {
                    target: t.clone(),
                    chain: chain(on.model, t.point.body),
                    point: t.time.map(|time| time.nearest(on.times, on.duration)),
                }) as Box<dyn PointTerm>
            })
            .collect()
    }

    fn holds_at_start(&self) -> bool {
        false
    }

    fn targets(&self) -> Vec<Aim> {
        self.0
            .iter()
            .map(|t| Aim {
                frame: t.name.clone(),
                point: t.point,
                position: t.position,
                axes: vec![Vec3::x(), Vec3::y(), Vec3::z()],
                time: t.time,
            })
            .collect()
    }
}

/// One target's cost term.
struct Target {
    target: FrameTarget,
    chain: Vec<usize>,
    /// The point of a timed target, or `None` for a path integral.
    point: Option<usize>,
}

impl Target {
    /// The cost's weight at `p` (zero where it does not apply).
    fn scale(&self, p: &PointInfo) -> f64 {
        match self.point {
            Some(at) if at == p.index => self.target.weight,
            Some(_) => 0.0,
            None => self.target.weight * p.weight,
        }
    }
}

impl PointTerm for Target {
    fn cost(
        &self,
        p: &PointInfo,
        ix: &LocalIndex,
        local: &Local,
        scratch: &mut Scratch,
        grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        let scale = self.scale(p);
        if scale == 0.0 {
            return 0.0;
        }
        let point = &self.target.point;
        let d = frame_origin(&scratch.kin, point) - self.target.position;
        if let Some((s, g)) = grad {
            let jac = &mut scratch.frame_jacobian;
            frame_jacobian(local.model, &scratch.kin, point.body, &point.placement, jac);
            for &j in &self.chain {
                g[ix.q(j)] += s * 2.0 * scale * d.dot(&point_velocity_column(jac, j));
            }
        }
        scale * d.norm_squared()
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if self.scale(p) != 0.0 {
            chain_pattern(&self.chain, ix, out);
        }
    }
}
