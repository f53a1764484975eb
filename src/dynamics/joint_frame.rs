//! The rigid-body kinematics every algorithm evaluates body by body, from constants of each
//! joint prepared once per workspace: body poses by Rodrigues' formula folded into the joint
//! placement, world joint twists, and body momenta without forming the 6×6 world inertia.

use crate::model::{Joint, JointKind};
use crate::spatial::{Inertia, Mat3, Transform, Vec3, Vec6, hat, lower, stack, upper};

/// What the stage algorithms need of joint `i` and its body, in the body frame.
#[derive(Clone, Debug)]
pub(crate) struct JointFrame {
    revolute: bool,
    /// Unit joint axis `a`.
    axis: Vec3,
    /// `R₀`, `R₀ â` and `R₀ â²` with `R₀` the placement's rotation, so that the local rotation
    /// `R₀ exp(â q) = R₀ + sin q · R₀ â + (1 − cos q) · R₀ â²` (Rodrigues).
    rotation: [Mat3; 3],
    /// The placement's translation.
    translation: Vec3,
    /// The body's inertia about its frame origin.
    pub inertia: Inertia,
}

impl JointFrame {
    /// The constants of `joint`.
    pub fn new(joint: &Joint) -> Self {
        let r0 = joint.placement.rotation;
        let ah = hat(&joint.axis);
        Self {
            revolute: joint.kind == JointKind::Revolute,
            axis: joint.axis,
            rotation: [r0, r0 * ah, r0 * ah * ah],
            translation: joint.placement.translation,
            inertia: Inertia::from_matrix(&joint.inertia),
        }
    }

    /// The body pose `g = g_par · g_par,i(0) · exp(Ŝ q)` (`parent` is `None` at the root).
    #[inline]
    pub fn pose(&self, parent: Option<&Transform>, q: f64) -> Transform {
        let local = if self.revolute {
            let (s, c) = q.sin_cos();
            let [r0, r1, r2] = &self.rotation;
            Transform::new(r0 + r1 * s + r2 * (1.0 - c), self.translation)
        } else {
            Transform::new(
                self.rotation[0],
                self.rotation[0] * self.axis * q + self.translation,
            )
        };
        match parent {
            Some(p) => p.compose(&local),
            None => local,
        }
    }

    /// The world joint twist `S̄ = Ad_g S` at body pose `g`.
    #[inline]
    pub fn twist(&self, g: &Transform) -> Vec6 {
        let a = g.rotation * self.axis;
        if self.revolute {
            stack(&a, &g.translation.cross(&a))
        } else {
            stack(&Vec3::zeros(), &a)
        }
    }

    /// The body's spatial momentum `M̄ v̄ = Ad_g^{-T} M Ad_g^{-1} v̄` at pose `g` and world
    /// velocity `v̄`, through the body frame.
    #[inline]
    pub fn momentum(&self, g: &Transform, v: &Vec6) -> Vec6 {
        let rt = g.rotation.transpose();
        let w = upper(v);
        let body = stack(&(rt * w), &(rt * (lower(v) - g.translation.cross(&w))));
        let f = self.inertia.mul_twist(&body);
        g.act_wrench(&f)
    }

    /// The body's first moment `m c̄` in the world frame at pose `g`.
    #[inline]
    pub fn world_moment(&self, g: &Transform) -> Vec3 {
        g.rotation * self.inertia.moment + g.translation * self.inertia.mass
    }
}
