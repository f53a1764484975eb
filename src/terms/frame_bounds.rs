//! `lower ≤ eᵀ p_frame(q) ≤ upper` along chosen world axes at every point: a frame kept in a
//! region (a swing foot above the ground, a hand away from the body).

use super::{
    TermKind, TermSpec, Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch,
    chain, chain_pattern, frame_origin, point_velocity_column, read_entry,
};
use crate::dynamics::frame_jacobian;
use crate::schema::{BodyPoint, ProblemError};
use crate::spatial::Vec3;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

/// A frame origin kept in a box of world coordinates at every point: an entry
/// `- frame_bounds: {frame, x, y, z}` of `constraints:`, each axis `[lower, upper]` or absent.
#[derive(Clone, Debug)]
struct FrameBounds {
    /// The frame.
    point: BodyPoint,
    /// `(e_k, lower_k, upper_k)` per bounded axis.
    axes: Vec<(Vec3, f64, f64)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrameBoundsEntry {
    frame: String,
    x: Option<Value>,
    y: Option<Value>,
    z: Option<Value>,
}

pub(super) const KIND: TermKind = TermKind {
    key: "frame_bounds",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    Ok(Arc::new(read(value, entry, field)?))
}

fn read(value: &Value, entry: &Entry, field: &str) -> Result<FrameBounds, ProblemError> {
    let fields = entry.fields;
    let e: FrameBoundsEntry = read_entry(fields, field, value)?;
    let mut axes = Vec::new();
    for (name, axis, v) in [
        ("x", Vec3::x(), &e.x),
        ("y", Vec3::y(), &e.y),
        ("z", Vec3::z(), &e.z),
    ] {
        if let Some(v) = v {
            let (lo, hi) = fields.range(&format!("{field}.{name}"), v)?;
            axes.push((axis, lo, hi));
        }
    }
    if axes.is_empty() {
        return Err(fields.invalid(field, "needs a range for at least one of x, y or z"));
    }
    Ok(FrameBounds {
        point: fields.point(&format!("{field}.frame"), &e.frame)?,
        axes,
    })
}

impl TermSpec for FrameBounds {
    fn key(&self) -> &'static str {
        KIND.key
    }

    fn build(&self, on: &Layout) -> Vec<Box<dyn PointTerm>> {
        vec![Box::new(FrameBoundsTerm {
            point: self.point,
            axes: self.axes.clone(),
            chain: chain(on.model, self.point.body),
        })]
    }

    fn holds_at_start(&self) -> bool {
        true
    }
}

struct FrameBoundsTerm {
    point: BodyPoint,
    axes: Vec<(Vec3, f64, f64)>,
    chain: Vec<usize>,
}

impl PointTerm for FrameBoundsTerm {
    fn rows(&self, p: &PointInfo) -> usize {
        if p.fixed_configuration {
            0
        } else {
            self.axes.len()
        }
    }

    fn row_bounds(&self, _p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        // Empty where the configuration is fixed.
        for ((l, u), &(_, lo, hi)) in lower.iter_mut().zip(upper.iter_mut()).zip(&self.axes) {
            *l = lo;
            *u = hi;
        }
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for r in 0..self.rows(p) {
            out.extend(self.chain.iter().map(|&j| (r, ix.q(j))));
        }
    }

    fn evaluate(
        &self,
        p: &PointInfo,
        local: &Local,
        scratch: &mut Scratch,
        rows: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        if p.fixed_configuration {
            return;
        }
        let p = frame_origin(&scratch.kin, &self.point);
        for (r, (e, _, _)) in self.axes.iter().enumerate() {
            rows[r] = e.dot(&p);
        }
        let Some(jv) = jac else { return };
        let fj = &mut scratch.frame_jacobian;
        frame_jacobian(
            local.model,
            &scratch.kin,
            self.point.body,
            &self.point.placement,
            fj,
        );
        let mut k = 0;
        for (e, _, _) in &self.axes {
            for &j in &self.chain {
                jv[k] = e.dot(&point_velocity_column(fj, j));
                k += 1;
            }
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if !p.fixed_configuration {
            chain_pattern(&self.chain, ix, out);
        }
    }

    fn label(&self) -> &'static str {
        "frame_bounds"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::tests::{entry_of, robot};

    #[test]
    fn reads_the_bounded_axes_in_order() {
        let model = robot("box.urdf");
        let bounds = entry_of(&model, None, |entry| {
            read(
                &serde_yaml_ng::from_str("{frame: box, z: [0, .inf], x: [-1, 1]}").unwrap(),
                entry,
                "c",
            )
        })
        .unwrap();
        assert_eq!(
            bounds.axes,
            [(Vec3::x(), -1.0, 1.0), (Vec3::z(), 0.0, f64::INFINITY)]
        );
    }
}
