//! `eᵀ p_frame(q(t)) = eᵀ p*` along chosen world axes at one time: a frame's origin placed.

use super::{
    TermKind, TermSpec, Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch,
    Target, TimedFrame, frame_origin, point_velocity_column, read_entry,
};
use crate::dynamics::frame_jacobian;
use crate::schema::{BodyPoint, ProblemError, TimeSpec};
use crate::spatial::Vec3;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

/// A frame's origin placed along chosen world axes at one time: an entry
/// `- frame_position: {frame, position, time, axes}` of `constraints:`.
#[derive(Clone, Debug)]
pub(crate) struct FramePosition {
    /// Frame name.
    pub name: String,
    /// The frame.
    pub point: BodyPoint,
    /// Target world position.
    pub position: Vec3,
    /// Constrained world axes.
    pub axes: Vec<Vec3>,
    /// When.
    pub time: TimeSpec,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FramePositionEntry {
    frame: String,
    position: [f64; 3],
    time: Value,
    axes: Option<Vec<String>>,
}

pub(super) const KIND: TermKind = TermKind {
    key: "frame_position",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let fields = entry.fields;
    let e: FramePositionEntry = read_entry(fields, field, value)?;
    let axes = match &e.axes {
        None => vec![Vec3::x(), Vec3::y(), Vec3::z()],
        Some(list) if !list.is_empty() => list
            .iter()
            .enumerate()
            .map(|(j, a)| match a.as_str() {
                "x" => Ok(Vec3::x()),
                "y" => Ok(Vec3::y()),
                "z" => Ok(Vec3::z()),
                other => Err(fields.invalid(
                    &format!("{field}.axes[{j}]"),
                    format!("'{other}' is not an axis (x, y or z)"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err(fields.invalid(&format!("{field}.axes"), "needs x, y or z")),
    };
    Ok(Arc::new(FramePosition {
        point: fields.point(&format!("{field}.frame"), &e.frame)?,
        name: e.frame,
        position: fields.finite3(&format!("{field}.position"), e.position)?,
        axes,
        time: fields.time(&format!("{field}.time"), Some(&e.time), entry.duration)?,
    }))
}

impl TermSpec for FramePosition {
    fn key(&self) -> &'static str {
        KIND.key
    }

    fn build(&self, on: &Layout) -> Vec<Box<dyn PointTerm>> {
        vec![Box::new(FramePositionTerm {
            frame: TimedFrame::new(on, self.point, self.time),
            position: self.position,
            axes: self.axes.clone(),
        })]
    }

    fn holds_at_start(&self) -> bool {
        self.time == TimeSpec::Start
    }

    fn targets(&self) -> Vec<Target> {
        vec![Target {
            frame: self.name.clone(),
            point: self.point,
            position: self.position,
            axes: self.axes.clone(),
            time: Some(self.time),
        }]
    }
}

struct FramePositionTerm {
    frame: TimedFrame,
    position: Vec3,
    axes: Vec<Vec3>,
}

impl PointTerm for FramePositionTerm {
    fn rows(&self, p: &PointInfo) -> usize {
        self.frame.rows(p, self.axes.len())
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        self.frame.jacobian_pattern(self.rows(p), ix, out);
    }

    fn evaluate(
        &self,
        p: &PointInfo,
        local: &Local,
        scratch: &mut Scratch,
        rows: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        let f = &self.frame;
        if !f.applies(p) {
            return;
        }
        let d = frame_origin(&scratch.kin, &f.point) - self.position;
        for (r, e) in self.axes.iter().enumerate() {
            rows[r] = e.dot(&d);
        }
        if let Some(jv) = jac {
            let fj = &mut scratch.frame_jacobian;
            frame_jacobian(
                local.model,
                &scratch.kin,
                f.point.body,
                &f.point.placement,
                fj,
            );
            let mut k = 0;
            for e in &self.axes {
                for &j in &f.chain {
                    jv[k] = e.dot(&point_velocity_column(fj, j));
                    k += 1;
                }
            }
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        self.frame.hessian_pattern(p, ix, out);
    }

    fn label(&self) -> &'static str {
        "frame_position"
    }
}
