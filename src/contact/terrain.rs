//! The terrain: flat ground at a height, boxes standing on it (obstacles, steps) and gaps cut
//! into it, with one friction coefficient; its signed distance `φ(p)`.
//!
//! The solid is `{z ≤ ground}` without the gaps' prisms, joined with the boxes. `φ` is built
//! from exact distances (`distance.rs`): each gap is cut out by a rounded intersection, which
//! rounds the rim with the radius `edge_radius`; each box is the exact distance to a box whose
//! convex edges are rounded with that radius; boxes join the ground by a smooth union of the
//! same width, which fillets the concave corner at their base. `φ` is therefore continuously
//! differentiable wherever a contact can be (on and above the surface, except exactly on the
//! medial set of a concave corner, where it is still C¹ by the fillet), and it is the true
//! Euclidean distance away from the fillets. The same terrain serves planar robots (which move
//! in the x–z plane at y = 0) and spatial ones: a box or gap without a `y` extent spans the
//! whole width.

use super::distance::Distance;
use crate::spatial::Vec3;

/// A box standing on the ground: its footprint and the height of its top.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TerrainBox {
    /// `[x_lower, x_upper]`.
    pub x: [f64; 2],
    /// `[y_lower, y_upper]`, or `None`: across the whole width.
    #[serde(default)]
    pub y: Option<[f64; 2]>,
    /// World height of the top face.
    pub top: f64,
}

/// A gap cut into the ground: its footprint and how deep it goes below the ground.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Gap {
    /// `[x_lower, x_upper]`.
    pub x: [f64; 2],
    /// `[y_lower, y_upper]`, or `None`: across the whole width.
    #[serde(default)]
    pub y: Option<[f64; 2]>,
    /// Depth of the floor below the ground (> 0).
    pub depth: f64,
}

/// The terrain and its Coulomb friction coefficient (as `report.json` records it; absent
/// fields read as the defaults).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Terrain {
    /// Coulomb friction coefficient `μ ≥ 0` (the same everywhere).
    pub friction: f64,
    /// Height of the flat ground.
    pub ground: f64,
    /// Radius of the rounded edges (m).
    pub edge_radius: f64,
    /// Boxes on the ground.
    pub boxes: Vec<TerrainBox>,
    /// Gaps in the ground.
    pub gaps: Vec<Gap>,
}

impl Default for Terrain {
    fn default() -> Self {
        Self {
            friction: 1.0,
            ground: 0.0,
            edge_radius: DEFAULT_EDGE_RADIUS,
            boxes: Vec::new(),
            gaps: Vec::new(),
        }
    }
}

/// Default rounding radius of terrain edges (m): small against a foot, large enough that the
/// normal turns over a distance Newton steps resolve.
pub const DEFAULT_EDGE_RADIUS: f64 = 0.01;

impl Terrain {
    /// The signed distance `φ(p)` of a world point to the terrain surface (positive above it),
    /// with its gradient and Hessian.
    pub fn distance(&self, p: &Vec3) -> Distance {
        let r = self.edge_radius;
        let inf = f64::INFINITY;
        let span = |y: &Option<[f64; 2]>| y.map_or((-inf, inf), |y| (y[0], y[1]));
        let mut d = Distance::above(p, self.ground);
        for gap in &self.gaps {
            let (y0, y1) = span(&gap.y);
            let prism = Distance::to_box(
                p,
                &Vec3::new(gap.x[0], y0, self.ground - gap.depth),
                &Vec3::new(gap.x[1], y1, inf),
            );
            d = Distance::rounded_intersection(&d, &prism.negated(), r);
        }
        for b in &self.boxes {
            let (y0, y1) = span(&b.y);
            // The box with its convex edges rounded: the box shrunk by r along its bounded
            // directions, then offset by r.
            let shrink = |lo: f64, hi: f64| {
                if lo.is_finite() && hi.is_finite() {
                    (lo + r, hi - r)
                } else {
                    (lo, hi)
                }
            };
            let (x0, x1) = shrink(b.x[0], b.x[1]);
            let (y0, y1) = shrink(y0, y1);
            let solid =
                Distance::to_box(p, &Vec3::new(x0, y0, -inf), &Vec3::new(x1, y1, b.top - r))
                    .offset(r);
            d = Distance::smooth_union(&d, &solid, r);
        }
        d
    }

    /// Height of the terrain surface under `(x, y)` ignoring the rounding, for drawing.
    pub fn height(&self, x: f64, y: f64) -> f64 {
        let inside = |xs: &[f64; 2], ys: &Option<[f64; 2]>| {
            x >= xs[0] && x <= xs[1] && ys.is_none_or(|ys| y >= ys[0] && y <= ys[1])
        };
        let mut h = self.ground;
        for gap in &self.gaps {
            if inside(&gap.x, &gap.y) {
                h = self.ground - gap.depth;
            }
        }
        for b in &self.boxes {
            if inside(&b.x, &b.y) {
                h = h.max(b.top);
            }
        }
        h
    }
}
