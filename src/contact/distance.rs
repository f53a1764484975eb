//! Signed distances with their first and second derivatives, and the operations that combine
//! them into a terrain: exact distances of (possibly unbounded) axis-aligned boxes, a rounded
//! intersection for convex edges and a smooth union for concave corners.

use crate::spatial::{Mat3, Vec3};

/// A signed distance `d(p)` at one point with its gradient `∇d` and Hessian `∇²d` (world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distance {
    /// `d(p)`: positive outside the solid.
    pub value: f64,
    /// `∇d(p)`.
    pub gradient: Vec3,
    /// `∇²d(p)`.
    pub hessian: Mat3,
}

impl Distance {
    /// `−d`.
    pub fn negated(&self) -> Self {
        Self {
            value: -self.value,
            gradient: -self.gradient,
            hessian: -self.hessian,
        }
    }

    /// `d − c`.
    pub fn offset(&self, c: f64) -> Self {
        Self {
            value: self.value - c,
            ..*self
        }
    }

    /// The height above the plane `z = height` (the solid is below).
    pub fn above(p: &Vec3, height: f64) -> Self {
        Self {
            value: p.z - height,
            gradient: Vec3::z(),
            hessian: Mat3::zeros(),
        }
    }

    /// The exact signed distance to the axis-aligned box `lower ≤ x ≤ upper`; a bound may be
    /// infinite (a slab or prism that extends without end along that axis).
    pub fn to_box(p: &Vec3, lower: &Vec3, upper: &Vec3) -> Self {
        // Per axis: the signed excess over the half-extent, q_i = |p_i − c_i| − h_i, and its
        // sign s_i = sign(p_i − c_i). An unbounded axis never contributes.
        let mut q = [f64::NEG_INFINITY; 3];
        let mut sign = [0.0; 3];
        for i in 0..3 {
            if lower[i].is_finite() && upper[i].is_finite() {
                let c = 0.5 * (lower[i] + upper[i]);
                let h = 0.5 * (upper[i] - lower[i]);
                q[i] = (p[i] - c).abs() - h;
                sign[i] = if p[i] >= c { 1.0 } else { -1.0 };
            } else if lower[i].is_finite() {
                q[i] = lower[i] - p[i];
                sign[i] = -1.0;
            } else if upper[i].is_finite() {
                q[i] = p[i] - upper[i];
                sign[i] = 1.0;
            }
        }
        let outside = [q[0] > 0.0, q[1] > 0.0, q[2] > 0.0];
        if !outside.contains(&true) {
            // Inside: the distance to the nearest face, max_i q_i (a face normal, no curvature).
            let mut best = 0;
            for i in 1..3 {
                if q[i] > q[best] {
                    best = i;
                }
            }
            let mut gradient = Vec3::zeros();
            gradient[best] = sign[best];
            return Self {
                value: q[best],
                gradient,
                hessian: Mat3::zeros(),
            };
        }
        // Outside: |q⁺|, the distance to the nearest face, edge or corner.
        let u = Vec3::from_fn(|i, _| if outside[i] { q[i] } else { 0.0 });
        let value = u.norm();
        let e = u / value;
        let gradient = Vec3::from_fn(|i, _| sign[i] * e[i]);
        let hessian = Mat3::from_fn(|i, j| {
            if outside[i] && outside[j] {
                let delta = if i == j { 1.0 } else { 0.0 };
                sign[i] * sign[j] * (delta - e[i] * e[j]) / value
            } else {
                0.0
            }
        });
        Self {
            value,
            gradient,
            hessian,
        }
    }

    /// The intersection of two solids with their convex edge rounded by `r` (exact for two
    /// perpendicular planes: the distance to a cylinder of radius `r` fitted into the edge):
    /// `min(−r, max(a, b)) + |max((a + r, b + r), 0)|`.
    pub fn rounded_intersection(a: &Self, b: &Self, r: f64) -> Self {
        let (ua, ub) = (a.value + r, b.value + r);
        match (ua > 0.0, ub > 0.0) {
            (true, true) => {
                // −r + √(ua² + ub²)
                let rho = (ua * ua + ub * ub).sqrt();
                let (ea, eb) = (ua / rho, ub / rho);
                let gradient = a.gradient * ea + b.gradient * eb;
                let mix = a.gradient * eb - b.gradient * ea;
                let hessian = a.hessian * ea + b.hessian * eb + mix * mix.transpose() / rho;
                Self {
                    value: rho - r,
                    gradient,
                    hessian,
                }
            }
            // Only one side exceeds −r: then max(a, b) > −r and the result is that side.
            (true, false) => *a,
            (false, true) => *b,
            (false, false) => {
                if a.value >= b.value {
                    *a
                } else {
                    *b
                }
            }
        }
    }

    /// The union of two solids with the concave corner between them filleted over the width
    /// `k` (a C¹ polynomial smooth minimum): with `h = max(k − |a − b|, 0)/k`,
    /// `min(a, b) − k h²/4`.
    pub fn smooth_union(a: &Self, b: &Self, k: f64) -> Self {
        let diff = a.value - b.value;
        if k <= 0.0 || diff.abs() >= k {
            return if a.value <= b.value { *a } else { *b };
        }
        let (lo, hi) = if a.value <= b.value { (a, b) } else { (b, a) };
        let h = (k - (hi.value - lo.value)) / k;
        // d/dx of −k h²/4 = −(k/2) h h' with h' = −(∇hi − ∇lo)/k: = (h/2)(∇hi − ∇lo).
        let dg = hi.gradient - lo.gradient;
        let value = lo.value - k * h * h / 4.0;
        let gradient = lo.gradient + dg * (h / 2.0);
        let dh = hi.hessian - lo.hessian;
        let hessian = lo.hessian + dh * (h / 2.0) - dg * dg.transpose() / (2.0 * k);
        Self {
            value,
            gradient,
            hessian,
        }
    }
}
