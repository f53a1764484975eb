//! `stance:` in a motion problem: feet that stay flat on the ground for the whole motion.
//!
//! ```yaml
//! stance:
//!   - frame: r_sole                 # a frame (or contact point) of the robot; its z axis is the normal
//!     friction: 0.8                 # Coulomb μ of the friction pyramid
//!     sole: {x: [-0.0876, 0.1728], y: [-0.066, 0.0626]}   # the support rectangle in the frame (m)
//!     position: [0.0, -0.089, 0.0]  # where the frame is held (default: where initial.q puts it)
//!     rpy: [0, 0, 0]                # and its orientation Rz(yaw) Ry(pitch) Rx(roll)
//! ```
//!
//! Each stance holds its frame at one world pose at every point of the transcription, and the
//! ground's wrench on it is a decision variable inside the sole's contact wrench cone
//! ([`WrenchCone`]).

use super::{BodyPoint, ProblemError, Ranges};
use crate::contact::{SoleRectangle, WrenchCone};
use crate::dynamics::{Workspace, forward_kinematics, frame_pose};
use crate::schema::Fields;
use crate::spatial::{Mat3, Transform, Vec3, vee};
use serde::Deserialize;

/// A foot held flat at one pose, pushing on the ground within its contact wrench cone.
#[derive(Clone, Debug, PartialEq)]
pub struct Stance {
    /// Frame name (for reports).
    pub name: String,
    /// The frame: its origin and axes are the sole's, `z` the outward normal of the ground.
    pub point: BodyPoint,
    /// The sole and its friction.
    pub cone: WrenchCone,
    /// Where the frame's origin is held (world).
    pub position: Vec3,
    /// The frame's world orientation, held.
    pub rotation: Mat3,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StanceFile {
    frame: String,
    friction: f64,
    sole: SoleFile,
    position: Option<[f64; 3]>,
    rpy: Option<[f64; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SoleFile {
    x: [f64; 2],
    y: [f64; 2],
}

/// How far a given stance pose may be from the one `initial.q` puts the frame at (m, rad).
const POSE_MISMATCH: f64 = 1e-6;

/// Validates `stance:`; `initial_q` gives the default poses.
pub(super) fn stances(
    ctx: &Fields,
    files: &[StanceFile],
    initial_q: &Ranges,
) -> Result<Vec<Stance>, ProblemError> {
    let model = ctx.model;
    let start = initial_q.all_fixed().then(|| {
        let mut ws = Workspace::new(model);
        forward_kinematics(model, &mut ws, &initial_q.lower);
        ws
    });
    let mut out: Vec<Stance> = Vec::with_capacity(files.len());
    for (k, s) in files.iter().enumerate() {
        let field = |name: &str| format!("stance[{k}].{name}");
        let point = ctx.point(&field("frame"), &s.frame)?;
        if out.iter().any(|o| o.name == s.frame) {
            return Err(ctx.invalid(
                &field("frame"),
                format!("'{}' is already a stance", s.frame),
            ));
        }
        if !(s.friction >= 0.0 && s.friction.is_finite()) {
            return Err(ctx.invalid(
                &field("friction"),
                format!("must be a non-negative number, got {}", s.friction),
            ));
        }
        for (axis, r) in [("x", s.sole.x), ("y", s.sole.y)] {
            if !(r[0].is_finite() && r[1].is_finite() && r[0] < r[1]) {
                return Err(ctx.invalid(
                    &field(&format!("sole.{axis}")),
                    format!("expected [lower, upper] with lower < upper, got {r:?}"),
                ));
            }
        }
        let held = start
            .as_ref()
            .map(|ws| frame_pose(ws, point.body, &point.placement));
        let (position, rotation) = match (s.position, s.rpy, &held) {
            (Some(p), Some(rpy), _) => {
                for (name, v) in [("position", p), ("rpy", rpy)] {
                    if v.iter().any(|x| !x.is_finite()) {
                        return Err(ctx.invalid(
                            &field(name),
                            format!("must be three finite numbers, got {v:?}"),
                        ));
                    }
                }
                let given = Transform::from_xyz_rpy(p, rpy);
                if let Some(h) = &held {
                    let dp = (given.translation - h.translation).norm();
                    let dr = vee(&(given.rotation.transpose() * h.rotation
                        - h.rotation.transpose() * given.rotation))
                    .norm()
                        * 0.5;
                    if dp > POSE_MISMATCH || dr > POSE_MISMATCH {
                        return Err(ctx.invalid(
                            &field("position"),
                            format!(
                                "initial.q puts '{}' at {:?} ({dp:.2e} m and {dr:.2e} rad from \
                                 the pose given); leave position and rpy out to hold it where \
                                 initial.q puts it",
                                s.frame,
                                h.translation.as_slice()
                            ),
                        ));
                    }
                }
                (given.translation, given.rotation)
            }
            (None, None, Some(h)) => (h.translation, h.rotation),
            (None, None, None) => {
                return Err(ctx.invalid(
                    &field("position"),
                    "initial.q does not fix every joint, so give the stance's position and rpy",
                ));
            }
            _ => {
                return Err(ctx.invalid(&field("rpy"), "give both position and rpy, or neither"));
            }
        };
        out.push(Stance {
            name: s.frame.clone(),
            point,
            cone: WrenchCone {
                sole: SoleRectangle {
                    x: s.sole.x,
                    y: s.sole.y,
                },
                friction: s.friction,
            },
            position,
            rotation,
        });
    }
    Ok(out)
}
