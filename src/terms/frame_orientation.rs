//! `½ vee(R*ᵀR − RᵀR*) = 0` at one time: a frame's world orientation equals `R*` (up to a half
//! turn).

use super::{
    TermKind, TermSpec, Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch,
    TimedFrame, frame_rotation, read_entry,
};
use crate::dynamics::frame_jacobian;
use crate::schema::{BodyPoint, ProblemError, TimeSpec};
use crate::spatial::{Mat3, Transform, Vec3, hat, vee};
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

/// A frame's world orientation fixed at one time: an entry
/// `- frame_orientation: {frame, rpy, time}` of `constraints:`.
#[derive(Clone, Debug)]
struct FrameOrientation {
    /// The frame.
    point: BodyPoint,
    /// Target world orientation.
    rotation: Mat3,
    /// When.
    time: TimeSpec,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrameOrientationEntry {
    frame: String,
    rpy: [f64; 3],
    time: Value,
}

pub(super) const KIND: TermKind = TermKind {
    key: "frame_orientation",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let fields = entry.fields;
    let e: FrameOrientationEntry = read_entry(fields, field, value)?;
    let rpy = fields.finite3(&format!("{field}.rpy"), e.rpy)?;
    Ok(Arc::new(FrameOrientation {
        point: fields.point(&format!("{field}.frame"), &e.frame)?,
        rotation: Transform::from_xyz_rpy([0.0; 3], rpy.into()).rotation,
        time: fields.time(&format!("{field}.time"), Some(&e.time), entry.duration)?,
    }))
}

impl TermSpec for FrameOrientation {
    fn key(&self) -> &'static str {
        KIND.key
    }

    fn build(&self, on: &Layout) -> Vec<Box<dyn PointTerm>> {
        vec![Box::new(FrameOrientationTerm {
            frame: TimedFrame::new(on, self.point, self.time),
            rotation: self.rotation,
        })]
    }

    fn holds_at_start(&self) -> bool {
        self.time == TimeSpec::Start
    }
}

struct FrameOrientationTerm {
    frame: TimedFrame,
    rotation: Mat3,
}

impl PointTerm for FrameOrientationTerm {
    fn rows(&self, p: &PointInfo) -> usize {
        self.frame.rows(p, 3)
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
        let target = &self.rotation;
        let rm = frame_rotation(&scratch.kin, &f.point);
        rows[..3].copy_from_slice(orientation_error(target, &rm).as_slice());
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
            for comp in 0..3 {
                for &j in &f.chain {
                    let w = Vec3::new(fj[(0, j)], fj[(1, j)], fj[(2, j)]);
                    jv[k] = orientation_error_rate(target, &rm, &w)[comp];
                    k += 1;
                }
            }
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        self.frame.hessian_pattern(p, ix, out);
    }

    fn label(&self) -> &'static str {
        "frame_orientation"
    }
}

/// `½ vee(R*ᵀR − RᵀR*)`: zero when the orientation `R` equals the target `R*` (or is a half turn
/// from it); for `R = R* exp(φ̂)` it is `φ` to first order (the rotation from `R*` to `R` in
/// `R*`'s axes).
pub(crate) fn orientation_error(target: &Mat3, rm: &Mat3) -> Vec3 {
    0.5 * vee(&(target.transpose() * rm - rm.transpose() * target))
}

/// The rate of [`orientation_error`] when `R` turns at the world angular velocity `ω`
/// (`Ṙ = ω̂ R`): `½ vee(R*ᵀ ω̂ R + Rᵀ ω̂ R*)`.
pub(crate) fn orientation_error_rate(target: &Mat3, rm: &Mat3, omega: &Vec3) -> Vec3 {
    let w = hat(omega);
    0.5 * vee(&(target.transpose() * w * rm + rm.transpose() * w * target))
}
