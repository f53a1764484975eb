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

    /// The terrain a fraction `s` of the way from this one to `to` (each number moved
    /// linearly; `s = 1` gives `to`'s numbers exactly), or `None` where the two differ in
    /// more than numbers (how many boxes and gaps, which have a `y` extent). A continuation
    /// moves the terrain along this path (`transcription/continuation.rs`).
    #[must_use]
    pub fn toward(&self, to: &Terrain, s: f64) -> Option<Terrain> {
        let at = |a: f64, b: f64| if s >= 1.0 { b } else { a + s * (b - a) };
        let pair = |a: [f64; 2], b: [f64; 2]| [at(a[0], b[0]), at(a[1], b[1])];
        let span = |a: Option<[f64; 2]>, b: Option<[f64; 2]>| match (a, b) {
            (None, None) => Some(None),
            (Some(a), Some(b)) => Some(Some(pair(a, b))),
            _ => None,
        };
        if self.boxes.len() != to.boxes.len() || self.gaps.len() != to.gaps.len() {
            return None;
        }
        let boxes = self
            .boxes
            .iter()
            .zip(&to.boxes)
            .map(|(a, b)| {
                Some(TerrainBox {
                    x: pair(a.x, b.x),
                    y: span(a.y, b.y)?,
                    top: at(a.top, b.top),
                })
            })
            .collect::<Option<_>>()?;
        let gaps = self
            .gaps
            .iter()
            .zip(&to.gaps)
            .map(|(a, b)| {
                Some(Gap {
                    x: pair(a.x, b.x),
                    y: span(a.y, b.y)?,
                    depth: at(a.depth, b.depth),
                })
            })
            .collect::<Option<_>>()?;
        Some(Terrain {
            friction: at(self.friction, to.friction),
            ground: at(self.ground, to.ground),
            edge_radius: at(self.edge_radius, to.edge_radius),
            boxes,
            gaps,
        })
    }

    /// The largest change of one of the terrain's numbers from this one to `to` (m for the
    /// geometry; the friction coefficient counts as it is), or `None` where they differ in
    /// more than numbers ([`Terrain::toward`]).
    #[must_use]
    pub fn largest_change(&self, to: &Terrain) -> Option<f64> {
        self.toward(to, 1.0)?;
        let numbers = |t: &Terrain| {
            let mut v = vec![t.friction, t.ground, t.edge_radius];
            for b in &t.boxes {
                v.extend(b.x);
                v.extend(b.y.into_iter().flatten());
                v.push(b.top);
            }
            for g in &t.gaps {
                v.extend(g.x);
                v.extend(g.y.into_iter().flatten());
                v.push(g.depth);
            }
            v
        };
        Some(
            numbers(self)
                .iter()
                .zip(numbers(to))
                .fold(0.0, |m: f64, (a, b)| m.max((a - b).abs())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terrain(top: f64, gap_x: f64, y: Option<[f64; 2]>) -> Terrain {
        Terrain {
            friction: 0.8,
            boxes: vec![TerrainBox {
                x: [0.45, 0.6],
                y,
                top,
            }],
            gaps: vec![Gap {
                x: [gap_x, gap_x + 0.08],
                y: None,
                depth: 0.1,
            }],
            ..Terrain::default()
        }
    }

    #[test]
    fn a_terrain_moves_linearly_toward_another_and_ends_on_it() {
        let (a, b) = (terrain(0.12, 0.15, None), terrain(0.2, 0.12, None));
        assert_eq!(a.toward(&b, 0.0), Some(a.clone()));
        assert_eq!(a.toward(&b, 1.0), Some(b.clone()));
        let half = a.toward(&b, 0.5).unwrap();
        assert!((half.boxes[0].top - 0.16).abs() < 1e-15);
        assert!((half.gaps[0].x[0] - 0.135).abs() < 1e-15);
        assert!((half.gaps[0].x[1] - 0.215).abs() < 1e-15);
        assert_eq!(half.boxes[0].x, [0.45, 0.6]);
        assert!((a.largest_change(&b).unwrap() - 0.08).abs() < 1e-15);
        assert_eq!(a.largest_change(&a), Some(0.0));
    }

    #[test]
    fn terrains_of_other_shapes_have_no_path_between_them() {
        let a = terrain(0.12, 0.15, None);
        let mut fewer = a.clone();
        fewer.gaps.clear();
        assert_eq!(a.toward(&fewer, 0.5), None);
        assert_eq!(a.largest_change(&fewer), None);
        let narrow = terrain(0.12, 0.15, Some([-0.1, 0.1]));
        assert_eq!(a.toward(&narrow, 0.5), None);
        let wide = terrain(0.2, 0.15, Some([-0.3, 0.1]));
        assert!((narrow.largest_change(&wide).unwrap() - 0.2).abs() < 1e-15);
    }
}
