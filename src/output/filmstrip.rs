//! A filmstrip of a motion: stick figures of the robot at evenly spaced times, side by side at
//! one common scale, written as SVG and PNG.
//!
//! Each body is drawn as the segments of its [`Skeleton`]. Joints are small circles, contact
//! points red dots and the root a black dot. Limbs on the robot's left (+y at `q = 0`) are
//! blue, those on its right orange, the rest dark grey.
//! The side view looks along +y (world x to the right, z up). A floating robot on terrain with
//! boxes or gaps also gets a row with the top view (world x to the right, y up, looking down),
//! where the gaps are dark and the boxes outlined; otherwise, unless the base is planar, a
//! robot whose points spread in y by more than 5 % of its size gets a row with the front view
//! (world y to the right, z up). The side and front views show the terrain's section under the
//! robot, with the gaps dark. Each panel also shows the previous snapshot as a faint ghost,
//! and a footer keys the colours and the spacing of the background grid.

use super::OutputError;
use super::plot::{
    DrawResult, Figure, Formats, INK, MUTED, Scale, text_width, with_suffix, write_figure,
};
use super::skeleton::{Anchor, Side, Skeleton};
use crate::contact::Terrain;
use crate::dynamics::{Workspace, forward_kinematics};
use crate::model::{BaseKind, Model};
use crate::spatial::Vec3;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// How a filmstrip is made.
#[derive(Clone, Debug, PartialEq)]
pub struct FilmstripOptions {
    /// Number of snapshots (8 by default; at least 1, at most 24).
    pub frames: usize,
    /// Title above the panels.
    pub title: String,
    /// Height of the ground plane to draw, if any (and finite), when there is no terrain.
    pub ground_height: Option<f64>,
    /// The terrain to draw, if any: its section under the robot in the side and front views,
    /// the footprints of its gaps and boxes in the top view.
    pub terrain: Option<Terrain>,
    /// Contact forces to draw as arrows: `(time, [(world point, world force)])`, matched to
    /// each snapshot by the nearest time.
    pub forces: Vec<(f64, Vec<(Vec3, Vec3)>)>,
}

impl Default for FilmstripOptions {
    fn default() -> Self {
        Self {
            frames: 8,
            title: String::new(),
            ground_height: None,
            terrain: None,
            forces: Vec::new(),
        }
    }
}

/// Writes a filmstrip of a motion of `model` to `<stem>.svg` and `<stem>.png`.
///
/// `samples` are `(time, q)` along the motion, in time order, with `q` in the model's joint
/// order; `opts.frames` snapshots are taken at evenly spaced times (the sample nearest each,
/// each sample at most once), in one row or, if that shows the robot larger, two.
/// Samples with a non-finite time or joint value are skipped; with none left the panels are
/// replaced by "no data".
///
/// # Errors
/// [`OutputError::Draw`] if a sample does not have one value per joint or drawing fails,
/// [`OutputError::Io`] if a file cannot be written.
pub fn write_filmstrip(
    stem: &Path,
    model: &Model,
    samples: &[(f64, Vec<f64>)],
    opts: &FilmstripOptions,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    let dof = model.dof();
    if let Some((t, q)) = samples.iter().find(|(_, q)| q.len() != dof) {
        return Err(OutputError::Draw {
            path: with_suffix(stem, "svg"),
            message: format!(
                "the sample at t = {t} has {} joint values but robot '{}' has {dof} joints",
                q.len(),
                model.name()
            ),
        });
    }
    let mut poses = snapshots(model, samples, opts.frames.clamp(1, MAX_FRAMES));
    for pose in &mut poses {
        if let Some((_, f)) = opts
            .forces
            .iter()
            .min_by(|a, b| (a.0 - pose.time).abs().total_cmp(&(b.0 - pose.time).abs()))
        {
            pose.forces = f.clone();
        }
    }
    write_figure(stem, formats, || Filmstrip::new(model, poses, opts))
}

/// A segment of the stick figure, in world coordinates.
#[derive(Clone, Copy, Debug)]
struct Bone {
    a: Vec3,
    b: Vec3,
    side: Side,
}

/// The stick figure at one time, in world coordinates.
#[derive(Clone, Debug)]
struct Pose {
    time: f64,
    bones: Vec<Bone>,
    /// Outlines through the contact points of each body with several (e.g. a sole).
    soles: Vec<(Side, Vec<Vec3>)>,
    joints: Vec<Vec3>,
    contacts: Vec<Vec3>,
    /// The root link's origin (the world origin for a fixed base).
    root: Vec3,
    /// Contact forces `(point, force)` at this time.
    forces: Vec<(Vec3, Vec3)>,
}

impl Pose {
    /// The skeleton at `q`.
    fn new(model: &Model, ws: &mut Workspace, skeleton: &Skeleton, time: f64, q: &[f64]) -> Self {
        forward_kinematics(model, ws, q);
        let world = |anchors: &[Anchor]| anchors.iter().map(|a| a.world(ws)).collect::<Vec<_>>();
        Pose {
            time,
            bones: skeleton
                .bones
                .iter()
                .map(|b| Bone {
                    a: b.a.world(ws),
                    b: b.b.world(ws),
                    side: b.side,
                })
                .collect(),
            soles: skeleton
                .soles
                .iter()
                .map(|(side, sole)| (*side, world(sole)))
                .collect(),
            joints: world(&skeleton.joints),
            contacts: world(&skeleton.contacts),
            root: skeleton.root.world(ws),
            forces: Vec::new(),
        }
    }

    fn points(&self) -> impl Iterator<Item = &Vec3> {
        self.bones
            .iter()
            .flat_map(|b| [&b.a, &b.b])
            .chain(&self.joints)
            .chain(&self.contacts)
            .chain(std::iter::once(&self.root))
    }
}

fn color(side: Side) -> RGBColor {
    let (r, g, b) = side.rgb();
    RGBColor(r, g, b)
}

/// The poses at `frames` evenly spaced times (the sample nearest each; a sample is used once).
fn snapshots(model: &Model, samples: &[(f64, Vec<f64>)], frames: usize) -> Vec<Pose> {
    let valid: Vec<&(f64, Vec<f64>)> = samples
        .iter()
        .filter(|(t, q)| t.is_finite() && q.iter().all(|v| v.is_finite()))
        .collect();
    let (Some(first), Some(last)) = (valid.first(), valid.last()) else {
        return Vec::new();
    };
    let (t0, t1) = (first.0, last.0);
    let mut picked: Vec<usize> = (0..frames)
        .map(|k| {
            let target = if frames > 1 {
                t0 + (t1 - t0) * k as f64 / (frames - 1) as f64
            } else {
                t0
            };
            (0..valid.len())
                .min_by(|&a, &b| {
                    let da = (valid[a].0 - target).abs();
                    let db = (valid[b].0 - target).abs();
                    da.total_cmp(&db)
                })
                .unwrap_or(0)
        })
        .collect();
    picked.dedup();
    let mut ws = Workspace::new(model);
    let skeleton = Skeleton::new(model, &mut ws);
    picked
        .into_iter()
        .map(|i| Pose::new(model, &mut ws, &skeleton, valid[i].0, &valid[i].1))
        .filter(|p| p.points().all(|v| v.iter().all(|c| c.abs() <= 1e12)))
        .collect()
}

/// A projection of world points onto the picture plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    /// World x to the right, z up, looking along +y.
    Side,
    /// World y to the right, z up, looking along −x.
    Front,
    /// World x to the right, y up, looking along −z.
    Top,
}

impl View {
    fn project(self, p: &Vec3) -> (f64, f64) {
        match self {
            View::Side => (p.x, p.z),
            View::Front => (p.y, p.z),
            View::Top => (p.x, p.y),
        }
    }

    /// Distance from the viewer, larger farther away.
    fn depth(self, p: &Vec3) -> f64 {
        match self {
            View::Side => p.y,
            View::Front => -p.x,
            View::Top => -p.z,
        }
    }

    fn name(self) -> &'static str {
        match self {
            View::Side => "side (x–z)",
            View::Front => "front (y–z)",
            View::Top => "top (x–y)",
        }
    }
}

/// Most snapshots in one filmstrip.
const MAX_FRAMES: usize = 24;

/// Layout sizes, in nominal pixels.
const MAX_WIDTH: f64 = 1800.0;
const MAX_HEIGHT: f64 = 1000.0;
const MIN_WIDTH: u32 = 720;
const MIN_PANEL_WIDTH: f64 = 150.0;
const MIN_PANEL_HEIGHT: f64 = 120.0;
const MARGIN: u32 = 16;
const GAP: u32 = 12;
const TITLE_BAND: u32 = 48;
const LABEL_BAND: u32 = 28;
const FOOTER_BAND: u32 = 36;
const ROW_HEADER: u32 = 30;
const TITLE_FONT: f64 = 24.0;
const LABEL_FONT: f64 = 16.0;
const KEY_FONT: f64 = 15.0;

pub(super) const PANEL_FILL: RGBColor = RGBColor(250, 250, 250);
const PANEL_BORDER: RGBColor = RGBColor(210, 210, 210);
pub(super) const GRID: RGBColor = RGBColor(232, 232, 232);
pub(super) const GROUND_FILL: RGBColor = RGBColor(230, 226, 218);
pub(super) const GROUND_LINE: RGBColor = RGBColor(120, 110, 95);
/// The inside of a gap.
pub(super) const GAP_FILL: RGBColor = RGBColor(90, 84, 76);
const GHOST: RGBColor = RGBColor(205, 205, 205);
pub(super) const CONTACT: RGBColor = RGBColor(214, 39, 40);
const FORCE: RGBColor = RGBColor(44, 160, 44);

/// The largest force arrow, as a fraction of the robot's size.
const FORCE_ARROW: f64 = 0.35;

/// Panel arrangement and the common window onto the world.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// Panels per row.
    cols: usize,
    /// Rows of panels (each wrapped row of snapshots has one row per view).
    rows: usize,
    panel_w: u32,
    panel_h: u32,
    /// Left edge of the first panel.
    left: u32,
    width: u32,
    height: u32,
    /// Half extents of the window in metres (horizontal, vertical).
    half: (f64, f64),
    /// Centre of the motion's bounding box; a view's window is centred on its projection.
    centre: Vec3,
    /// Spacing of the background grid in metres.
    grid: f64,
}

/// The filmstrip picture.
#[derive(Clone, Debug)]
struct Filmstrip {
    title: String,
    poses: Vec<Pose>,
    views: Vec<View>,
    ground: Option<f64>,
    terrain: Option<Terrain>,
    /// Metres of arrow per newton.
    force_scale: f64,
    layout: Layout,
    time_decimals: usize,
    key: Vec<(KeyMark, String)>,
}

/// A footer key entry's symbol.
#[derive(Clone, Copy, Debug)]
enum KeyMark {
    Line(RGBColor),
    Dot(RGBColor),
    Text,
}

/// The range of `values` (`(0, 0)` if there are none).
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values
        .fold(None, |acc: Option<(f64, f64)>, v| {
            Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
        })
        .unwrap_or((0.0, 0.0))
}

/// The 1-2-5 step nearest `x` (by ratio).
pub(super) fn nice_step(x: f64) -> f64 {
    let p = 10f64.powf(x.log10().floor());
    let off = |m: &f64| (m * p / x).ln().abs();
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .min_by(|a, b| off(a).total_cmp(&off(b)))
        .map_or(p, |m| m * p)
}

impl Filmstrip {
    fn new(model: &Model, poses: Vec<Pose>, opts: &FilmstripOptions) -> Self {
        let ground = opts
            .terrain
            .as_ref()
            .map(|t| t.ground)
            .or(opts.ground_height)
            .filter(|g| g.is_finite());
        let all = || poses.iter().flat_map(Pose::points);
        let xs = range(all().map(|p| p.x));
        let ys = range(all().map(|p| p.y));
        let zs = range(all().map(|p| p.z).chain(ground));
        let extent = |r: (f64, f64)| r.1 - r.0;
        let size = extent(xs).max(extent(zs)).max(extent(ys)).max(0.1);
        // The top view replaces the front view (ARCHITECTURE.md, "The filmstrip's views").
        let front =
            model.base() != BaseKind::Planar && extent(ys) > 0.05 * extent(xs).max(extent(zs));
        let top = model.base() == BaseKind::Floating
            && opts
                .terrain
                .as_ref()
                .is_some_and(|t| !t.boxes.is_empty() || !t.gaps.is_empty());
        let views: Vec<View> = [
            Some(View::Side),
            (front && !top).then_some(View::Front),
            top.then_some(View::Top),
        ]
        .into_iter()
        .flatten()
        .collect();
        // Every view's window shows its projection of the motion's bounding box.
        let pad = 0.06 * size;
        let spans = Vec3::new(extent(xs), extent(ys), extent(zs));
        let (wide, tall) = views.iter().fold((0.0, 0.0), |(w, t), v| {
            let (h, u) = v.project(&spans);
            (f64::max(w, h), f64::max(t, u))
        });
        let layout = Self::arrange(
            poses.len().max(1),
            views.len(),
            (wide + 2.0 * pad, tall + 2.0 * pad),
        );
        let layout = Layout {
            centre: Vec3::new(
                0.5 * (xs.0 + xs.1),
                0.5 * (ys.0 + ys.1),
                0.5 * (zs.0 + zs.1),
            ),
            ..layout
        };
        let span = poses.last().map_or(0.0, |p| p.time) - poses.first().map_or(0.0, |p| p.time);
        let step = span / poses.len().saturating_sub(1).max(1) as f64;
        let time_decimals = if step > 0.0 {
            (1 - step.log10().floor() as i32).clamp(2, 6) as usize
        } else {
            2
        };
        let largest = poses
            .iter()
            .flat_map(|p| p.forces.iter().map(|(_, f)| f.norm()))
            .fold(0.0, f64::max);
        let force_scale = if largest > 0.0 {
            FORCE_ARROW * size / largest
        } else {
            0.0
        };
        let mut key = Vec::new();
        let bones = || poses.iter().flat_map(|p| &p.bones);
        for (side, name) in [(Side::Left, "left"), (Side::Right, "right")] {
            if bones().any(|b| b.side == side) {
                key.push((KeyMark::Line(color(side)), name.to_string()));
            }
        }
        if poses.iter().any(|p| !p.contacts.is_empty()) {
            key.push((KeyMark::Dot(CONTACT), "contact point".to_string()));
        }
        if largest > 0.0 {
            key.push((
                KeyMark::Line(FORCE),
                format!("contact force (largest {largest:.0} N)"),
            ));
        }
        if poses.len() > 1 {
            key.push((KeyMark::Line(GHOST), "previous snapshot".to_string()));
        }
        key.push((
            KeyMark::Text,
            format!("grid {} m", format_metres(layout.grid)),
        ));
        Filmstrip {
            title: opts.title.clone(),
            poses,
            views,
            ground,
            terrain: opts.terrain.clone(),
            force_scale,
            layout,
            time_decimals,
            key,
        }
    }

    /// Chooses one or two rows of snapshots (whichever shows the robot larger) and the common
    /// scale for `n` snapshots in `views` views of a window of `(wide, tall)` metres.
    fn arrange(n: usize, views: usize, (wide, tall): (f64, f64)) -> Layout {
        let header = if views > 1 { ROW_HEADER } else { 0 };
        let fixed_w = f64::from(2 * MARGIN + header);
        let fixed_h = f64::from(TITLE_BAND + FOOTER_BAND);
        let (wraps, scale) = [1, 2]
            .into_iter()
            .filter(|&w| w == 1 || n >= 4)
            .map(|wraps| {
                let cols = n.div_ceil(wraps);
                let rows = wraps * views;
                let panel_w =
                    (MAX_WIDTH - fixed_w - (cols - 1) as f64 * f64::from(GAP)) / cols as f64;
                let panel_h = (MAX_HEIGHT
                    - fixed_h
                    - rows as f64 * f64::from(LABEL_BAND)
                    - (rows - 1) as f64 * f64::from(GAP))
                    / rows as f64;
                (wraps, (panel_w / wide).min(panel_h / tall))
            })
            .fold(
                (1, 0.0),
                |best, c| if c.1 > best.1 * 1.05 { c } else { best },
            );
        let cols = n.div_ceil(wraps);
        let rows = wraps * views;
        let panel_w = (scale * wide).max(MIN_PANEL_WIDTH).round() as u32;
        let panel_h = (scale * tall).max(MIN_PANEL_HEIGHT).round() as u32;
        let grid_w = header + cols as u32 * panel_w + (cols as u32 - 1) * GAP;
        let width = (grid_w + 2 * MARGIN).max(MIN_WIDTH);
        let height = TITLE_BAND
            + rows as u32 * (LABEL_BAND + panel_h)
            + (rows as u32 - 1) * GAP
            + FOOTER_BAND;
        let half = (
            0.5 * f64::from(panel_w) / scale,
            0.5 * f64::from(panel_h) / scale,
        );
        Layout {
            cols,
            rows,
            panel_w,
            panel_h,
            left: (width - grid_w) / 2 + header,
            width,
            height,
            half,
            centre: Vec3::zeros(),
            grid: nice_step(2.0 * half.0.max(half.1) / 8.0),
        }
    }

    /// Top-left corner of panel `(row, col)`, below its label band.
    fn panel_origin(&self, row: usize, col: usize) -> (i32, i32) {
        let l = &self.layout;
        let x = l.left + col as u32 * (l.panel_w + GAP);
        let y = TITLE_BAND + row as u32 * (LABEL_BAND + l.panel_h + GAP) + LABEL_BAND;
        (x as i32, y as i32)
    }

    fn draw_panel<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        (row, col): (usize, usize),
        view: View,
        pose: usize,
        s: Scale,
    ) -> DrawResult<DB> {
        let l = &self.layout;
        let (x, y) = self.panel_origin(row, col);
        let label = format!("t = {:.*} s", self.time_decimals, self.poses[pose].time);
        let label_style = s
            .text(LABEL_FONT, FontStyle::Normal, INK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw_text(
            &label,
            &label_style,
            (
                s.px(x + l.panel_w as i32 / 2),
                s.px(y - LABEL_BAND as i32 / 2 + 2),
            ),
        )?;
        let panel = root
            .clone()
            .shrink((s.px(x), s.px(y)), (s.upx(l.panel_w), s.upx(l.panel_h)));
        panel.fill(&PANEL_FILL)?;
        let (hc, vc) = view.project(&l.centre);
        let (h0, h1) = (hc - l.half.0, hc + l.half.0);
        let (v0, v1) = (vc - l.half.1, vc + l.half.1);
        let chart = ChartBuilder::on(&panel).build_cartesian_2d(h0..h1, v0..v1)?;
        let world = chart.plotting_area();
        let thin = |c: RGBColor| c.stroke_width(s.upx(1));
        let grid_lines = |lo: f64, hi: f64| {
            let first = (lo / l.grid).ceil() as i64;
            let last = (hi / l.grid).floor() as i64;
            (first..=last).map(move |k| k as f64 * l.grid)
        };
        for gx in grid_lines(h0, h1) {
            world.draw(&PathElement::new(vec![(gx, v0), (gx, v1)], thin(GRID)))?;
        }
        for gz in grid_lines(v0, v1) {
            world.draw(&PathElement::new(vec![(h0, gz), (h1, gz)], thin(GRID)))?;
        }
        if let (Some(t), View::Top) = (&self.terrain, view) {
            // The footprints, clipped to the window; one without a y range spans it.
            let clip = |r: [f64; 2], lo: f64, hi: f64| (r[0].max(lo), r[1].min(hi));
            let footprint = |x: [f64; 2], y: Option<[f64; 2]>| {
                let (a, b) = clip(x, h0, h1);
                let (c, d) = clip(y.unwrap_or([v0, v1]), v0, v1);
                (a < b && c < d).then_some([(a, c), (b, d)])
            };
            for corners in t.gaps.iter().filter_map(|g| footprint(g.x, g.y)) {
                world.draw(&Rectangle::new(corners, GAP_FILL.filled()))?;
            }
            for corners in t.boxes.iter().filter_map(|b| footprint(b.x, b.y)) {
                world.draw(&Rectangle::new(corners, GROUND_FILL.filled()))?;
                world.draw(&Rectangle::new(corners, GROUND_LINE.stroke_width(s.upx(2))))?;
            }
        } else if let Some(t) = &self.terrain {
            let profile = section(t, view, &self.poses[pose].root, (h0, h1), (v0, v1));
            let mut solid = profile.clone();
            solid.extend([(h1, v0), (h0, v0)]);
            world.draw(&Polygon::new(solid, GROUND_FILL.filled()))?;
            // The holes: between the section and the ground level, where it is below.
            let ground = t.ground.clamp(v0, v1);
            let mut holes: Vec<(f64, f64)> =
                profile.iter().map(|&(h, z)| (h, z.min(ground))).collect();
            holes.extend([(h1, ground), (h0, ground)]);
            world.draw(&Polygon::new(holes, GAP_FILL.filled()))?;
            world.draw(&PathElement::new(
                profile,
                GROUND_LINE.stroke_width(s.upx(2)),
            ))?;
        } else if let Some(g) = self.ground {
            world.draw(&Rectangle::new([(h0, v0), (h1, g)], GROUND_FILL.filled()))?;
            world.draw(&PathElement::new(
                vec![(h0, g), (h1, g)],
                GROUND_LINE.stroke_width(s.upx(2)),
            ))?;
        }
        if pose > 0 {
            let ghost = &self.poses[pose - 1];
            for b in &ghost.bones {
                world.draw(&PathElement::new(
                    vec![view.project(&b.a), view.project(&b.b)],
                    GHOST.stroke_width(s.upx(2)),
                ))?;
            }
            for (_, sole) in &ghost.soles {
                world.draw(&PathElement::new(
                    outline(view, sole),
                    GHOST.stroke_width(s.upx(2)),
                ))?;
            }
        }
        let current = &self.poses[pose];
        let mut bones: Vec<&Bone> = current.bones.iter().collect();
        bones.sort_by(|a, b| {
            let da = view.depth(&a.a) + view.depth(&a.b);
            let db = view.depth(&b.a) + view.depth(&b.b);
            db.total_cmp(&da)
        });
        for b in bones {
            world.draw(&PathElement::new(
                vec![view.project(&b.a), view.project(&b.b)],
                color(b.side).stroke_width(s.upx(3)),
            ))?;
        }
        for (side, sole) in &current.soles {
            world.draw(&PathElement::new(
                outline(view, sole),
                color(*side).stroke_width(s.upx(2)),
            ))?;
        }
        for j in &current.joints {
            let c = view.project(j);
            world.draw(&Circle::new(c, s.px(3), WHITE.filled()))?;
            world.draw(&Circle::new(c, s.px(3), INK.stroke_width(s.upx(1))))?;
        }
        for p in &current.contacts {
            world.draw(&Circle::new(view.project(p), s.px(3), CONTACT.filled()))?;
        }
        for (p, f) in &current.forces {
            let tip = p + f * self.force_scale;
            let (a, b) = (view.project(p), view.project(&tip));
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let len = (dx * dx + dy * dy).sqrt();
            if len < 1e-9 {
                continue;
            }
            let head = (0.25 * len).min(0.02 * self.layout.half.1 * 2.0);
            let (ux, uy) = (dx / len, dy / len);
            let barb = |sign: f64| {
                (
                    b.0 - head * (ux + sign * 0.5 * uy),
                    b.1 - head * (uy - sign * 0.5 * ux),
                )
            };
            let stroke = FORCE.stroke_width(s.upx(2));
            world.draw(&PathElement::new(vec![a, b], stroke))?;
            world.draw(&PathElement::new(vec![barb(1.0), b, barb(-1.0)], stroke))?;
        }
        world.draw(&Circle::new(
            view.project(&current.root),
            s.px(5),
            INK.filled(),
        ))?;
        panel.draw(&Rectangle::new(
            [
                (0, 0),
                (s.px(l.panel_w as i32) - 1, s.px(l.panel_h as i32) - 1),
            ],
            thin(PANEL_BORDER),
        ))
    }

    fn draw_key<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        s: Scale,
    ) -> DrawResult<DB> {
        let y = self.layout.height as i32 - FOOTER_BAND as i32 / 2;
        let mut x = self.layout.left as i32;
        let style = s
            .text(KEY_FONT, FontStyle::Normal, MUTED)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (mark, text) in &self.key {
            match mark {
                KeyMark::Line(c) => {
                    root.draw(&PathElement::new(
                        vec![(s.px(x), s.px(y)), (s.px(x + 24), s.px(y))],
                        c.stroke_width(s.upx(3)),
                    ))?;
                    x += 30;
                }
                KeyMark::Dot(c) => {
                    root.draw(&Circle::new((s.px(x + 4), s.px(y)), s.px(4), c.filled()))?;
                    x += 14;
                }
                KeyMark::Text => {}
            }
            root.draw_text(text, &style, (s.px(x), s.px(y)))?;
            x += text_width(text, KEY_FONT, FontStyle::Normal) as i32 + 24;
        }
        Ok(())
    }
}

/// The terrain's section under `root` across the window `(h0, h1)` of a side or front view:
/// along x at the root's y (side), along y at its x (front). The surface is flat between the
/// edges of the boxes and gaps, so the section is exact: a step at each edge, its heights
/// clamped to the window `(v0, v1)`.
fn section(
    t: &Terrain,
    view: View,
    root: &Vec3,
    (h0, h1): (f64, f64),
    (v0, v1): (f64, f64),
) -> Vec<(f64, f64)> {
    let across = view == View::Front;
    let height = |h: f64| {
        if across {
            t.height(root.x, h)
        } else {
            t.height(h, root.y)
        }
    };
    // A footprint's edges along the section (none across for one spanning the whole width).
    let edges = |x: [f64; 2], y: Option<[f64; 2]>| {
        if across {
            y.map_or_else(Vec::new, Vec::from)
        } else {
            Vec::from(x)
        }
    };
    let mut cuts: Vec<f64> = t
        .gaps
        .iter()
        .flat_map(|g| edges(g.x, g.y))
        .chain(t.boxes.iter().flat_map(|b| edges(b.x, b.y)))
        .filter(|h| *h > h0 && *h < h1)
        .chain([h0, h1])
        .collect();
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    cuts.windows(2)
        .flat_map(|w| {
            let z = height(0.5 * (w[0] + w[1])).clamp(v0, v1);
            [(w[0], z), (w[1], z)]
        })
        .collect()
}

/// The closed outline of `points` in `view`: the points in angular order about their centre.
fn outline(view: View, points: &[Vec3]) -> Vec<(f64, f64)> {
    let mut flat: Vec<(f64, f64)> = points.iter().map(|p| view.project(p)).collect();
    let n = flat.len() as f64;
    let cx = flat.iter().map(|p| p.0).sum::<f64>() / n;
    let cy = flat.iter().map(|p| p.1).sum::<f64>() / n;
    let angle = |p: &(f64, f64)| (p.1 - cy).atan2(p.0 - cx);
    flat.sort_by(|a, b| angle(a).total_cmp(&angle(b)));
    if let Some(&first) = flat.first() {
        flat.push(first);
    }
    flat
}

/// Metres with as few decimals as needed.
fn format_metres(v: f64) -> String {
    let mut text = format!("{v:.6}");
    while text.ends_with('0') {
        text.pop();
    }
    text.trim_end_matches('.').to_string()
}

impl Figure for Filmstrip {
    fn size(&self) -> (u32, u32) {
        (self.layout.width, self.layout.height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, s: Scale) -> DrawResult<DB> {
        root.fill(&WHITE)?;
        let l = &self.layout;
        let title_style = s
            .text(TITLE_FONT, FontStyle::Bold, INK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw_text(
            &self.title,
            &title_style,
            (s.px(l.width as i32 / 2), s.px(TITLE_BAND as i32 / 2 + 2)),
        )?;
        if self.poses.is_empty() {
            let style = s
                .text(LABEL_FONT, FontStyle::Normal, MUTED)
                .pos(Pos::new(HPos::Center, VPos::Center));
            return root.draw_text(
                "no data",
                &style,
                (s.px(l.width as i32 / 2), s.px(l.height as i32 / 2)),
            );
        }
        for row in 0..l.rows {
            let view = self.views[row % self.views.len()];
            if self.views.len() > 1 {
                let (_, y) = self.panel_origin(row, 0);
                let style = s
                    .text(LABEL_FONT, FontStyle::Normal, MUTED)
                    .pos(Pos::new(HPos::Center, VPos::Center))
                    .transform(FontTransform::Rotate270);
                root.draw_text(
                    view.name(),
                    &style,
                    (
                        s.px(l.left as i32 - ROW_HEADER as i32 / 2),
                        s.px(y + l.panel_h as i32 / 2),
                    ),
                )?;
            }
            let wrap = row / self.views.len();
            for col in 0..l.cols {
                let pose = wrap * l.cols + col;
                if pose < self.poses.len() {
                    self.draw_panel(root, (row, col), view, pose, s)?;
                }
            }
        }
        self.draw_key(root, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::{Gap, TerrainBox};
    use crate::model::{PendulumSpec, load_urdf, parse_urdf, pendulum_urdf};
    use crate::output::plot::tests::{RASTER, read_figure, temp_dir};

    fn pendulum(links: usize) -> Model {
        let spec = PendulumSpec {
            links,
            ..PendulumSpec::default()
        };
        parse_urdf(&pendulum_urdf(&spec).unwrap(), "pendulum", BaseKind::Fixed).unwrap()
    }

    /// 101 samples over 2 s of every joint swinging by `0.8 sin 2t`.
    fn swing(model: &Model) -> Vec<(f64, Vec<f64>)> {
        (0..=100)
            .map(|k| {
                let t = f64::from(k) * 0.02;
                (t, vec![0.8 * (2.0 * t).sin(); model.dof()])
            })
            .collect()
    }

    fn labels(svg: &str) -> usize {
        svg.matches(">\nt = ").count()
    }

    #[test]
    fn pendulum_swing_has_one_panel_per_frame() {
        let dir = temp_dir("filmstrip-pendulum");
        let model = pendulum(12);
        let opts = FilmstripOptions {
            title: "Pendulum swing".into(),
            ..FilmstripOptions::default()
        };
        let stem = dir.join("swing");
        write_filmstrip(&stem, &model, &swing(&model), &opts, RASTER).unwrap();
        let (svg, _) = read_figure(&stem);
        assert!(svg.contains("Pendulum swing"));
        assert_eq!(labels(&svg), 8);
        assert!(svg.contains(">\nt = 0.00 s\n<") && svg.contains(">\nt = 2.00 s\n<"));
        assert!(!svg.contains("front"), "a planar motion has no front view");
        let files = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(files, 2, "exactly the two figures, no temporary files");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn floating_humanoid_gets_a_front_view() {
        let dir = temp_dir("filmstrip-humanoid");
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/humanoid.urdf");
        let model = load_urdf(path, BaseKind::Floating).unwrap();
        let base_z = model.joint_index("base_z").unwrap();
        let knee = model.joint_index("l_leg_kny").unwrap();
        let samples: Vec<(f64, Vec<f64>)> = (0..=10)
            .map(|k| {
                let mut q = vec![0.0; model.dof()];
                q[base_z] = 0.94;
                q[knee] = 0.1 * f64::from(k);
                (0.1 * f64::from(k), q)
            })
            .collect();
        let opts = FilmstripOptions {
            frames: 5,
            title: "Humanoid".into(),
            ground_height: Some(0.0),
            ..FilmstripOptions::default()
        };
        let stem = dir.join("knee");
        write_filmstrip(&stem, &model, &samples, &opts, RASTER).unwrap();
        let (svg, _) = read_figure(&stem);
        assert!(svg.contains("side (x–z)") && svg.contains("front (y–z)"));
        assert_eq!(labels(&svg), 10, "five snapshots in two views");
        assert!(svg.contains("left") && svg.contains("right") && svg.contains("contact point"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The quadruped crouched (hip pitch ±0.6, knee ∓1.1) and turned left by 0.2 rad, with its
    /// feet on z = 0, moved from x = 0 to 0.75 m and drifting to y = 0.05 m in 11 samples over
    /// 1 s.
    fn crouched_walk(model: &Model) -> Vec<(f64, Vec<f64>)> {
        let joint = |name: &str| model.joint_index(name).unwrap();
        let mut q = vec![0.0; model.dof()];
        q[joint("base_yaw")] = 0.2;
        for (leg, sign) in [("fl", 1.0), ("fr", 1.0), ("hl", -1.0), ("hr", -1.0)] {
            q[joint(&format!("{leg}_hip_pitch"))] = 0.6 * sign;
            q[joint(&format!("{leg}_knee"))] = -1.1 * sign;
        }
        let mut ws = Workspace::new(model);
        let skeleton = Skeleton::new(model, &mut ws);
        let feet = Pose::new(model, &mut ws, &skeleton, 0.0, &q).contacts;
        assert_eq!(feet.len(), 4);
        q[joint("base_z")] = -feet.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
        (0..=10)
            .map(|k| {
                let mut q = q.clone();
                q[joint("base_x")] = 0.075 * f64::from(k);
                q[joint("base_y")] = 0.005 * f64::from(k);
                (0.1 * f64::from(k), q)
            })
            .collect()
    }

    /// The two gaps of the quadruped's course, across the whole width, 0.1 m deep.
    fn two_gaps() -> Terrain {
        let gap = |x| Gap {
            x,
            y: None,
            depth: 0.1,
        };
        Terrain {
            gaps: vec![gap([0.15, 0.23]), gap([0.40, 0.48])],
            ..Terrain::default()
        }
    }

    /// The value of attribute `name` in the SVG tag `tag`.
    fn attribute(tag: &str, name: &str) -> String {
        let tag = format!(" {tag}");
        let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        tag[start..start + tag[start..].find('"').unwrap()].to_string()
    }

    /// The SVG's `<kind .../>` tags filled with `fill`.
    fn filled<'a>(svg: &'a str, kind: &str, fill: RGBColor) -> Vec<&'a str> {
        let fill = format!("fill=\"#{:02X}{:02X}{:02X}\"", fill.0, fill.1, fill.2);
        svg.split(&format!("<{kind} "))
            .skip(1)
            .map(|t| &t[..t.find("/>").unwrap()])
            .filter(|t| t.contains(&fill))
            .collect()
    }

    /// The centres of the circles filled with `fill`.
    fn circles(svg: &str, fill: RGBColor) -> Vec<(f64, f64)> {
        filled(svg, "circle", fill)
            .into_iter()
            .map(|t| {
                (
                    attribute(t, "cx").parse().unwrap(),
                    attribute(t, "cy").parse().unwrap(),
                )
            })
            .collect()
    }

    /// `(x, y, width, height)` of the rectangles filled with `fill`.
    fn rects(svg: &str, fill: RGBColor) -> Vec<[f64; 4]> {
        filled(svg, "rect", fill)
            .into_iter()
            .map(|t| ["x", "y", "width", "height"].map(|a| attribute(t, a).parse().unwrap()))
            .collect()
    }

    /// The vertices of the polygons filled with `fill`.
    fn polygons(svg: &str, fill: RGBColor) -> Vec<Vec<(f64, f64)>> {
        filled(svg, "polygon", fill)
            .into_iter()
            .map(|t| {
                attribute(t, "points")
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }

    /// The SVG pixel of the point at `(h, v)` (world coordinates along the panel's horizontal
    /// and vertical axes) in panel `(row, col)` of `film`, whose window is centred on
    /// `(hc, vc)`: the horizontal axis to the right, the vertical one up, the window's edges
    /// on the panel's first and last pixels (as plotters maps them).
    fn pixel(
        film: &Filmstrip,
        (row, col): (usize, usize),
        (h, v): (f64, f64),
        (hc, vc): (f64, f64),
    ) -> (f64, f64) {
        let l = &film.layout;
        let (x0, y0) = film.panel_origin(row, col);
        (
            f64::from(x0) + (h - (hc - l.half.0)) / (2.0 * l.half.0) * f64::from(l.panel_w - 1),
            f64::from(y0) + ((vc + l.half.1) - v) / (2.0 * l.half.1) * f64::from(l.panel_h - 1),
        )
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1.5
    }

    #[test]
    fn floating_quadruped_on_gaps_gets_a_top_view_with_the_gaps_drawn() {
        let dir = temp_dir("filmstrip-quadruped");
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/quadruped.urdf");
        let model = load_urdf(path, BaseKind::Floating).unwrap();
        let samples = crouched_walk(&model);
        // One more gap across part of the width only, off the middle, so that a view flipped
        // or swapped in y shows.
        let mut terrain = two_gaps();
        terrain.gaps.push(Gap {
            x: [0.6, 0.65],
            y: Some([0.02, 0.09]),
            depth: 0.1,
        });
        let opts = FilmstripOptions {
            frames: 4,
            title: "Quadruped".into(),
            terrain: Some(terrain.clone()),
            ..FilmstripOptions::default()
        };
        let stem = dir.join("gaps");
        write_filmstrip(&stem, &model, &samples, &opts, RASTER).unwrap();
        let (svg, _) = read_figure(&stem);
        assert!(svg.contains("side (x–z)") && svg.contains("top (x–y)"));
        assert!(
            !svg.contains("front (y–z)"),
            "the top view replaces the front view"
        );
        let poses = snapshots(&model, &samples, 4);
        let film = Filmstrip::new(&model, poses, &opts);
        let top = 1;
        assert_eq!(film.views, [View::Side, View::Top]);
        assert_eq!(labels(&svg), 4 * film.views.len());
        // The top view: each gap a dark rectangle over its x range, the full-width ones over
        // the panel's height, the other over its y range; the window contains all feet.
        let drawn = rects(&svg, GAP_FILL);
        let dots = circles(&svg, CONTACT);
        assert_eq!(drawn.len(), 4 * 3, "{drawn:?}");
        let l = &film.layout;
        for (k, pose) in film.poses.iter().enumerate() {
            let (row, col) = (k / l.cols * film.views.len() + top, k % l.cols);
            for gap in &terrain.gaps {
                let (y0, y1) = gap
                    .y
                    .map_or((l.centre.y - l.half.1, l.centre.y + l.half.1), |y| {
                        (y[0], y[1])
                    });
                // Top view: x to the right, y up.
                let centre = (l.centre.x, l.centre.y);
                let (a, bottom) = pixel(&film, (row, col), (gap.x[0], y0), centre);
                let (b, upper) = pixel(&film, (row, col), (gap.x[1], y1), centre);
                assert!(
                    drawn.iter().any(|r| near(r[0], a)
                        && near(r[0] + r[2], b)
                        && near(r[1], upper)
                        && near(r[1] + r[3], bottom)),
                    "gap {gap:?} in panel {k}: expected x {a:.1}..{b:.1}, y {upper:.1}..{bottom:.1} in {drawn:?}"
                );
            }
            // The feet, each a red dot at its (x, y).
            for p in &pose.contacts {
                assert!((p.x - l.centre.x).abs() < l.half.0 && (p.y - l.centre.y).abs() < l.half.1);
                let (a, b) = pixel(&film, (row, col), (p.x, p.y), (l.centre.x, l.centre.y));
                assert!(
                    dots.iter().any(|d| near(d.0, a) && near(d.1, b)),
                    "foot at {p:?} in panel {k}: expected ({a:.1}, {b:.1})"
                );
            }
        }
        // The side view: the section under the body dips into both full-width gaps (the third
        // one is off its y = 0 line), with walls at the gaps' edges.
        let holes = polygons(&svg, GAP_FILL);
        assert_eq!(holes.len(), 4, "one per side-view panel");
        // Side view: x to the right, z up.
        let centre = (l.centre.x, l.centre.z);
        let (_, ground) = pixel(&film, (0, 0), (0.0, 0.0), centre);
        let floor = (-0.1f64).max(l.centre.z - l.half.1);
        let (_, bottom) = pixel(&film, (0, 0), (0.0, floor), centre);
        assert!(bottom - ground > 5.0, "the gaps' depth is visible");
        let mut walls: Vec<f64> = holes[0]
            .iter()
            .filter(|p| near(p.1, bottom))
            .map(|p| p.0)
            .collect();
        walls.dedup();
        let expected: Vec<f64> = [0.15, 0.23, 0.40, 0.48]
            .map(|x| pixel(&film, (0, 0), (x, 0.0), centre).0)
            .to_vec();
        assert_eq!(walls.len(), 4, "{walls:?} against {expected:?}");
        for (w, e) in walls.iter().zip(&expected) {
            assert!(near(*w, *e), "{walls:?} against {expected:?}");
        }
        assert!(expected[1] - expected[0] > 5.0, "an 8 cm gap is visible");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn top_view_only_for_a_floating_robot_on_boxes_or_gaps() {
        let dir = temp_dir("filmstrip-no-top");
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/quadruped.urdf");
        let quadruped = load_urdf(path, BaseKind::Floating).unwrap();
        let flat = FilmstripOptions {
            frames: 3,
            terrain: Some(Terrain::default()),
            ..FilmstripOptions::default()
        };
        let with_box = FilmstripOptions {
            terrain: Some(Terrain {
                boxes: vec![TerrainBox {
                    x: [0.3, 0.5],
                    y: Some([-0.3, 0.3]),
                    top: 0.05,
                }],
                ..Terrain::default()
            }),
            ..flat.clone()
        };
        let walk = crouched_walk(&quadruped);
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/planar_biped.urdf");
        let biped = load_urdf(path, BaseKind::Planar).unwrap();
        let gaps = FilmstripOptions {
            terrain: Some(two_gaps()),
            ..flat.clone()
        };
        for (name, model, samples, opts, top) in [
            ("flat", &quadruped, &walk, &flat, false),
            ("box", &quadruped, &walk, &with_box, true),
            ("planar", &biped, &swing(&biped), &gaps, false),
        ] {
            let stem = dir.join(name);
            write_filmstrip(&stem, model, samples, opts, RASTER).unwrap();
            let svg = read_figure(&stem).0;
            assert_eq!(svg.contains("top (x–y)"), top, "{name}");
            // A box is outlined in the top view, and never drawn as a gap.
            assert!(rects(&svg, GAP_FILL).is_empty(), "{name}");
            assert_eq!(
                rects(&svg, GROUND_FILL).len(),
                if top { 3 } else { 0 },
                "{name}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn few_or_bad_samples_still_draw() {
        let dir = temp_dir("filmstrip-bad");
        let model = pendulum(2);
        let opts = FilmstripOptions::default();
        let few: Vec<(f64, Vec<f64>)> = (0..3).map(|k| (f64::from(k), vec![0.3; 2])).collect();
        write_filmstrip(&dir.join("few"), &model, &few, &opts, RASTER).unwrap();
        assert_eq!(
            labels(&read_figure(&dir.join("few")).0),
            3,
            "each sample once"
        );
        let mut broken = swing(&model);
        broken[50].1[1] = f64::NAN;
        broken[60].0 = f64::INFINITY;
        broken[70].1[0] = 1e300;
        write_filmstrip(&dir.join("broken"), &model, &broken, &opts, RASTER).unwrap();
        assert_eq!(labels(&read_figure(&dir.join("broken")).0), 8);
        let nan = [(f64::NAN, vec![0.0; 2]), (1.0, vec![f64::NAN; 2])];
        for (name, samples) in [("empty", &[][..]), ("nan", &nan[..])] {
            let stem = dir.join(name);
            write_filmstrip(&stem, &model, samples, &opts, RASTER).unwrap();
            assert!(read_figure(&stem).0.contains("no data"));
        }
        let zero = FilmstripOptions {
            frames: 0,
            ..FilmstripOptions::default()
        };
        write_filmstrip(&dir.join("zero"), &model, &broken, &zero, RASTER).unwrap();
        assert_eq!(labels(&read_figure(&dir.join("zero")).0), 1);
        let many = FilmstripOptions {
            frames: 1000,
            ..FilmstripOptions::default()
        };
        write_filmstrip(&dir.join("many"), &model, &broken, &many, RASTER).unwrap();
        assert_eq!(labels(&read_figure(&dir.join("many")).0), MAX_FRAMES);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn grid_steps_are_round() {
        assert_eq!(nice_step(1.05), 1.0);
        assert_eq!(nice_step(0.84), 1.0);
        assert_eq!(nice_step(3.0), 2.0);
        assert!((nice_step(0.04) - 0.05).abs() < 1e-12);
        assert_eq!(format_metres(0.5), "0.5");
        assert_eq!(format_metres(2.0), "2");
    }

    #[test]
    fn wrong_sample_length_and_unwritable_path_are_errors() {
        let dir = temp_dir("filmstrip-errors");
        let model = pendulum(2);
        let opts = FilmstripOptions::default();
        let short = vec![(0.0, vec![0.0])];
        let err = write_filmstrip(&dir.join("short"), &model, &short, &opts, RASTER).unwrap_err();
        assert!(matches!(err, OutputError::Draw { .. }), "{err}");
        let file = dir.join("file");
        std::fs::write(&file, b"not a directory").unwrap();
        let err = write_filmstrip(&file.join("strip"), &model, &swing(&model), &opts, RASTER)
            .unwrap_err();
        assert!(matches!(err, OutputError::Io { .. }), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
