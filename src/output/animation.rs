//! `animation.gif`: the side view of a [`Scene`] (world x to the right, z up, looking along
//! +y) played over a few seconds, small enough for a README.
//!
//! Each frame is drawn with plotters at [`SUPERSAMPLE`] times its size and averaged down,
//! mapped onto one fixed palette (the scene's colours, their blends with the background and a
//! grey ramp for text) through a lookup table, and encoded by the `gif` crate. After the first
//! frame only the rectangle that changed is stored, with unchanged pixels transparent. Solid
//! shapes are drawn as their silhouettes (the convex hull of their projected corners, rims or
//! mesh outlines), in the colours of their sides, farthest first; bodies without a shape as their stick figure. Compared solutions are drawn
//! together, the second one faded.

use super::filmstrip::{CONTACT, GAP_FILL, GRID, GROUND_FILL, GROUND_LINE, PANEL_FILL, nice_step};
use super::plot::{INK, MUTED, Scale, downsample, register_fonts};
use super::scene::{Run, Scene};
use super::shapes::{Geometry, MeshAsset};
use super::skeleton::Side;
use super::{OutputError, write_atomic};
use crate::spatial::{Transform, Vec3};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use rayon::prelude::*;
use std::path::Path;

/// Picture width (px) and the range of its height.
const WIDTH: u32 = 480;
const MIN_HEIGHT: u32 = 200;
const MAX_HEIGHT: u32 = 400;
/// Band above the picture for the title and the time, and the margin around the world.
const BAND: u32 = 26;
const MARGIN: u32 = 12;
/// Frames are drawn this many times larger and averaged down.
const SUPERSAMPLE: u32 = 2;
/// Frames per second, the range of playing times (s), the most frames, and how long the last
/// frame is held (1/100 s).
const FPS: f64 = 20.0;
const PLAY: (f64, f64) = (2.0, 8.0);
const MAX_FRAMES: usize = 160;
const HOLD: u16 = 100;
/// Segments of a rim when a cylinder's or capsule's silhouette is traced.
const RIM: usize = 16;
/// How far the second solution of a comparison is faded towards the background.
const FADE: f64 = 0.55;

/// The filmstrip's panel colour.
const BACKGROUND: RGBColor = PANEL_FILL;
const BOX_FILL: RGBColor = RGBColor(196, 184, 160);
const FORCE: RGBColor = RGBColor(148, 26, 120);
const TARGET: RGBColor = RGBColor(44, 160, 44);
const TRACE: RGBColor = RGBColor(160, 160, 200);
const JOINT: RGBColor = RGBColor(255, 255, 255);

/// `c` moved towards `to` by `f` (0: `c`, 1: `to`).
fn mix(c: RGBColor, to: RGBColor, f: f64) -> RGBColor {
    let m = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    RGBColor(m(c.0, to.0), m(c.1, to.1), m(c.2, to.2))
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

/// The colours a run is drawn in.
#[derive(Clone, Copy)]
struct Pens {
    sides: [RGBColor; 3],
    solids: [RGBColor; 3],
    outline: [RGBColor; 3],
    joint: RGBColor,
    contact: RGBColor,
}

impl Pens {
    fn new(faded: bool) -> Self {
        let f = |c: RGBColor| if faded { mix(c, BACKGROUND, FADE) } else { c };
        let sides = [Side::Left, Side::Middle, Side::Right].map(|s| f(rgb(s.rgb())));
        let solids = [Side::Left, Side::Middle, Side::Right].map(|s| f(rgb(s.solid_rgb())));
        Pens {
            sides,
            solids,
            outline: solids.map(|c| mix(c, INK, 0.5)),
            joint: f(JOINT),
            contact: f(CONTACT),
        }
    }

    fn index(s: Side) -> usize {
        match s {
            Side::Left => 0,
            Side::Middle => 1,
            Side::Right => 2,
        }
    }

    /// The colour of a limb.
    fn limb(&self, s: Side) -> RGBColor {
        self.sides[Self::index(s)]
    }

    /// The fill and outline of a solid shape.
    fn solid(&self, s: Side) -> (RGBColor, RGBColor) {
        (self.solids[Self::index(s)], self.outline[Self::index(s)])
    }
}

/// The palette: every colour drawn, its blends with the background, and a grey ramp.
fn palette() -> Vec<RGBColor> {
    let mut base = vec![
        BACKGROUND,
        GRID,
        GROUND_FILL,
        GROUND_LINE,
        BOX_FILL,
        GAP_FILL,
        CONTACT,
        FORCE,
        TARGET,
        TRACE,
        INK,
        MUTED,
    ];
    for faded in [false, true] {
        let p = Pens::new(faded);
        base.extend(p.sides);
        base.extend(p.solids);
        base.extend(p.outline);
        base.push(p.contact);
    }
    let mut colors = Vec::new();
    for c in base {
        for f in [0.0, 0.25, 0.5, 0.75] {
            let m = mix(c, BACKGROUND, f);
            if !colors.contains(&m) {
                colors.push(m);
            }
        }
    }
    for k in 0..16 {
        let m = mix(INK, JOINT, f64::from(k) / 15.0);
        if !colors.contains(&m) {
            colors.push(m);
        }
    }
    colors
}

/// Bits per channel of the colour lookup table.
const LUT_BITS: u32 = 5;

/// The nearest palette entry of every cell of an RGB grid of `2^LUT_BITS` levels a channel.
fn lookup_table(palette: &[RGBColor]) -> Vec<u8> {
    let n = 1usize << LUT_BITS;
    let level = |i: usize| ((i << (8 - LUT_BITS)) + (1 << (7 - LUT_BITS))) as i32;
    let mut lut = vec![0u8; n * n * n];
    for (cell, entry) in lut.iter_mut().enumerate() {
        let (r, g, b) = (level(cell / (n * n)), level(cell / n % n), level(cell % n));
        let d = |c: &RGBColor| {
            let (dr, dg, db) = (r - i32::from(c.0), g - i32::from(c.1), b - i32::from(c.2));
            dr * dr + dg * dg + db * db
        };
        *entry = (0..palette.len())
            .min_by_key(|&i| d(&palette[i]))
            .unwrap_or(0) as u8;
    }
    lut
}

/// The palette index of an RGB pixel.
fn index(lut: &[u8], px: &[u8]) -> u8 {
    let shift = 8 - LUT_BITS;
    let n = 1usize << LUT_BITS;
    let c = |v: u8| usize::from(v >> shift);
    lut[(c(px[0]) * n + c(px[1])) * n + c(px[2])]
}

/// Convex hull of points (Andrew's monotone chain), counter-clockwise.
fn hull(mut p: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    p.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut h: Vec<(f64, f64)> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = h.len();
        let points: Box<dyn Iterator<Item = &(f64, f64)>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in points {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
    }
    h
}

/// Where the world goes on the picture.
#[derive(Clone, Copy, Debug)]
struct Frame {
    width: u32,
    height: u32,
    /// Pixels per metre.
    scale: f64,
    /// World x at the left edge and z at the top of the picture area.
    x0: f64,
    z0: f64,
}

impl Frame {
    fn new(scene: &Scene) -> Self {
        let b = scene.bounds;
        let pad = 0.05 * b.size();
        let lo_z = b.lo.z.min(scene.ground.unwrap_or(b.lo.z)) - pad;
        let (wide, tall) = (b.hi.x - b.lo.x + 2.0 * pad, b.hi.z - lo_z + pad);
        let inner_w = f64::from(WIDTH - 2 * MARGIN);
        let max_inner_h = f64::from(MAX_HEIGHT - BAND - 2 * MARGIN);
        let scale = (inner_w / wide).min(max_inner_h / tall);
        let height = ((tall * scale).ceil() as u32 + BAND + 2 * MARGIN).max(MIN_HEIGHT);
        let used_h = f64::from(height - BAND - 2 * MARGIN);
        Frame {
            width: WIDTH,
            height,
            scale,
            x0: 0.5 * (b.lo.x + b.hi.x) - 0.5 * inner_w / scale,
            z0: lo_z + 0.5 * (tall + used_h / scale),
        }
    }

    /// Backend pixel of world point `p` (drawn `SUPERSAMPLE` times larger).
    fn px(&self, x: f64, z: f64) -> (i32, i32) {
        let k = f64::from(SUPERSAMPLE);
        let u = f64::from(MARGIN) + (x - self.x0) * self.scale;
        let v = f64::from(BAND + MARGIN) + (self.z0 - z) * self.scale;
        ((k * u).round() as i32, (k * v).round() as i32)
    }

    fn at(&self, p: &Vec3) -> (i32, i32) {
        self.px(p.x, p.z)
    }
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;
type Drawn = Result<(), String>;

fn drawn<E: std::fmt::Display>(r: Result<(), E>) -> Drawn {
    r.map_err(|e| e.to_string())
}

/// The index of the shown time of `run` nearest `t`.
fn nearest(run: &Run, t: f64) -> Option<usize> {
    let k = run.times.partition_point(|&x| x < t);
    [k.checked_sub(1), (k < run.times.len()).then_some(k)]
        .into_iter()
        .flatten()
        .min_by(|&a, &b| {
            (run.times[a] - t)
                .abs()
                .total_cmp(&(run.times[b] - t).abs())
        })
}

fn world(pose: &[Transform], body: Option<usize>, local: &Transform) -> Transform {
    body.map_or(*local, |b| pose[b].compose(local))
}

/// The still parts: grid, ground, terrain, traces and targets.
fn draw_background(area: &Area, scene: &Scene, f: &Frame) -> Drawn {
    let s = SUPERSAMPLE as i32;
    drawn(area.fill(&BACKGROUND))?;
    let (w, h) = (f.width as i32 * s, f.height as i32 * s);
    let grid = nice_step(f64::from(f.width) / f.scale / 8.0);
    let (x1, z1) = (
        f.x0 + f64::from(f.width) / f.scale,
        f.z0 - f64::from(f.height) / f.scale,
    );
    for k in (f.x0 / grid).ceil() as i64..=(x1 / grid).floor() as i64 {
        let (x, _) = f.px(k as f64 * grid, 0.0);
        drawn(area.draw(&PathElement::new(vec![(x, 0), (x, h)], GRID)))?;
    }
    for k in (z1 / grid).ceil() as i64..=(f.z0 / grid).floor() as i64 {
        let (_, y) = f.px(0.0, k as f64 * grid);
        drawn(area.draw(&PathElement::new(vec![(0, y), (w, y)], GRID)))?;
    }
    if let Some(g) = scene.ground {
        let (_, y) = f.px(0.0, g);
        drawn(area.draw(&Rectangle::new([(0, y), (w, h)], GROUND_FILL.filled())))?;
        if let Some(t) = &scene.terrain {
            for gap in &t.gaps {
                let (a, top) = f.px(gap.x[0], g);
                let (b, bottom) = f.px(gap.x[1], g - gap.depth);
                drawn(area.draw(&Rectangle::new([(a, top), (b, bottom)], GAP_FILL.filled())))?;
            }
            for bx in &t.boxes {
                let (a, top) = f.px(bx.x[0], bx.top);
                let (b, bottom) = f.px(bx.x[1], g);
                drawn(area.draw(&Rectangle::new([(a, top), (b, bottom)], BOX_FILL.filled())))?;
                drawn(area.draw(&Rectangle::new(
                    [(a, top), (b, bottom)],
                    GROUND_LINE.stroke_width(SUPERSAMPLE),
                )))?;
            }
        }
        drawn(area.draw(&PathElement::new(
            vec![(0, y), (w, y)],
            GROUND_LINE.stroke_width(2 * SUPERSAMPLE),
        )))?;
    }
    for (r, run) in scene.runs.iter().enumerate() {
        let color = if r == 0 {
            TRACE
        } else {
            mix(TRACE, BACKGROUND, FADE)
        };
        for &i in &scene.traced {
            let p = &scene.points[i].anchor;
            let path: Vec<(i32, i32)> = run
                .poses
                .iter()
                .map(|pose| {
                    let at = p
                        .body
                        .map_or(p.offset, |b| pose[b].transform_point(&p.offset));
                    f.at(&at)
                })
                .collect();
            drawn(area.draw(&PathElement::new(path, color.stroke_width(SUPERSAMPLE))))?;
        }
    }
    for t in &scene.targets {
        let c = f.at(&Vec3::from(t.position));
        drawn(area.draw(&Circle::new(c, 6 * s, TARGET.stroke_width(2 * SUPERSAMPLE))))?;
        drawn(area.draw(&Circle::new(c, 2 * s, TARGET.filled())))?;
    }
    Ok(())
}

/// One thing to draw of a run, with its depth (world y: farther is larger).
enum Item {
    Polygon(Vec<(i32, i32)>, RGBColor, RGBColor),
    Disc((i32, i32), i32, RGBColor, RGBColor),
    Stroke(Vec<(i32, i32)>, RGBColor, u32),
}

/// The silhouette of a shape at world pose `w` (`meshes`: those of the scene).
fn silhouette(
    g: &Geometry,
    meshes: &[MeshAsset],
    w: &Transform,
    f: &Frame,
    fill: RGBColor,
    line: RGBColor,
) -> Item {
    let project = |p: Vec3| (p.x, p.z);
    let rim = |r: f64, z: f64| {
        (0..RIM).map(move |k| {
            let a = std::f64::consts::TAU * k as f64 / RIM as f64;
            Vec3::new(r * a.cos(), r * a.sin(), z)
        })
    };
    let points: Vec<(f64, f64)> = match *g {
        Geometry::Box(d) => (0..8)
            .map(|k| {
                let c = |bit: usize, v: f64| if k & bit == 0 { -0.5 * v } else { 0.5 * v };
                project(w.transform_point(&Vec3::new(c(1, d.x), c(2, d.y), c(4, d.z))))
            })
            .collect(),
        Geometry::Cylinder(r, l) => rim(r, -0.5 * l)
            .chain(rim(r, 0.5 * l))
            .map(|p| project(w.transform_point(&p)))
            .collect(),
        Geometry::Capsule(r, l) => [-0.5 * l, 0.5 * l]
            .into_iter()
            .flat_map(|z| {
                let (cx, cz) = project(w.transform_point(&Vec3::new(0.0, 0.0, z)));
                (0..RIM).map(move |k| {
                    let a = std::f64::consts::TAU * k as f64 / RIM as f64;
                    (cx + r * a.cos(), cz + r * a.sin())
                })
            })
            .collect(),
        Geometry::Mesh { index, scale, .. } => meshes
            .get(index)
            .map_or(&[][..], |m| &m.outline)
            .iter()
            .map(|p| project(w.transform_point(&p.component_mul(&scale))))
            .collect(),
        Geometry::Sphere(r) => {
            let c = f.at(&w.translation);
            let radius = (r * f.scale * f64::from(SUPERSAMPLE)).round() as i32;
            return Item::Disc(c, radius.max(1), fill, line);
        }
    };
    let outline = hull(points).into_iter().map(|(x, z)| f.px(x, z)).collect();
    Item::Polygon(outline, fill, line)
}

/// The robot of `run` at its shown time `k`.
fn draw_run(area: &Area, scene: &Scene, run: &Run, k: usize, f: &Frame, pens: &Pens) -> Drawn {
    let s = SUPERSAMPLE as i32;
    let pose = &run.poses[k];
    let mut items: Vec<(f64, Item)> = Vec::new();
    for shape in &scene.shapes {
        let w = world(pose, shape.body, &shape.placement);
        let side = shape.body.map_or(Side::Middle, |b| scene.skeleton.sides[b]);
        let (fill, line) = pens.solid(side);
        items.push((
            w.translation.y,
            silhouette(&shape.geometry, &scene.meshes, &w, f, fill, line),
        ));
    }
    let shaped: Vec<Option<usize>> = scene.shapes.iter().map(|s| s.body).collect();
    let at = |a: &super::skeleton::Anchor| {
        a.body
            .map_or(a.offset, |b| pose[b].transform_point(&a.offset))
    };
    for b in &scene.skeleton.bones {
        if shaped.contains(&b.a.body) {
            continue;
        }
        let (pa, pb) = (at(&b.a), at(&b.b));
        items.push((
            0.5 * (pa.y + pb.y),
            Item::Stroke(
                vec![f.at(&pa), f.at(&pb)],
                pens.limb(b.side),
                4 * SUPERSAMPLE,
            ),
        ));
    }
    items.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (_, item) in items {
        match item {
            Item::Polygon(p, fill, line) => {
                drawn(area.draw(&Polygon::new(p.clone(), fill.filled())))?;
                let mut closed = p;
                if let Some(&first) = closed.first() {
                    closed.push(first);
                }
                drawn(area.draw(&PathElement::new(closed, line.stroke_width(SUPERSAMPLE))))?;
            }
            Item::Disc(c, r, fill, line) => {
                drawn(area.draw(&Circle::new(c, r, fill.filled())))?;
                drawn(area.draw(&Circle::new(c, r, line.stroke_width(SUPERSAMPLE))))?;
            }
            Item::Stroke(p, color, width) => {
                drawn(area.draw(&PathElement::new(p, color.stroke_width(width))))?;
            }
        }
    }
    for j in &scene.skeleton.joints {
        let c = f.at(&at(j));
        drawn(area.draw(&Circle::new(c, 3 * s, pens.joint.filled())))?;
        drawn(area.draw(&Circle::new(c, 3 * s, INK.stroke_width(SUPERSAMPLE))))?;
    }
    for c in &scene.skeleton.contacts {
        drawn(area.draw(&Circle::new(f.at(&at(c)), 3 * s, pens.contact.filled())))?;
    }
    drawn(area.draw(&Circle::new(
        f.at(&at(&scene.skeleton.root)),
        4 * s,
        INK.filled(),
    )))?;
    let metres_per_newton = scene.force_scale();
    if metres_per_newton > 0.0 {
        for (point, forces) in &run.forces {
            let Some(p) = scene.points.get(*point) else {
                continue;
            };
            let base = at(&p.anchor);
            let tip = base + forces[k] * metres_per_newton;
            let (a, b) = (f.at(&base), f.at(&tip));
            let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
            let len = dx.hypot(dy);
            if len < f64::from(2 * s) {
                continue;
            }
            let (ux, uy) = (dx / len, dy / len);
            let head = f64::from(7 * s).min(0.5 * len);
            let back = (f64::from(b.0) - ux * head, f64::from(b.1) - uy * head);
            let wing = |sign: f64| {
                (
                    (back.0 - sign * uy * 0.5 * head).round() as i32,
                    (back.1 + sign * ux * 0.5 * head).round() as i32,
                )
            };
            let shaft_end = (back.0.round() as i32, back.1.round() as i32);
            drawn(area.draw(&PathElement::new(
                vec![a, shaft_end],
                FORCE.stroke_width(2 * SUPERSAMPLE),
            )))?;
            drawn(area.draw(&Polygon::new(
                vec![b, wing(1.0), wing(-1.0)],
                FORCE.filled(),
            )))?;
        }
    }
    Ok(())
}

/// The times of the frames and the delay of each (1/100 s).
fn timeline(duration: f64) -> Vec<(f64, u16)> {
    let play = duration.clamp(PLAY.0, PLAY.1);
    let frames = ((play * FPS).ceil() as usize).clamp(1, MAX_FRAMES);
    let delay = (100.0 * play / frames as f64).round().max(2.0) as u16;
    (0..=frames)
        .map(|i| {
            let t = duration * i as f64 / frames as f64;
            (t, if i == frames { HOLD } else { delay })
        })
        .collect()
}

/// Frame `t` of the animation as palette indices.
fn render(
    scene: &Scene,
    f: &Frame,
    background: &[u8],
    t: f64,
    lut: &[u8],
) -> Result<Vec<u8>, String> {
    let (bw, bh) = (f.width * SUPERSAMPLE, f.height * SUPERSAMPLE);
    let mut big = background.to_vec();
    {
        let area = BitMapBackend::with_buffer(&mut big, (bw, bh)).into_drawing_area();
        for (r, run) in scene.runs.iter().enumerate().rev() {
            if let Some(k) = nearest(run, t) {
                draw_run(&area, scene, run, k, f, &Pens::new(r > 0))?;
            }
        }
        let label = format!("t = {t:.2} s");
        let style = Scale(SUPERSAMPLE)
            .text(14.0, FontStyle::Normal, INK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let right = ((f.width - MARGIN) * SUPERSAMPLE) as i32;
        let mid = (BAND * SUPERSAMPLE / 2) as i32;
        drawn(area.draw_text(&label, &style, (right, mid)))?;
        drawn(area.present())?;
    }
    let small = downsample(&big, (f.width, f.height), SUPERSAMPLE);
    Ok(small.chunks_exact(3).map(|px| index(lut, px)).collect())
}

/// The still parts of every frame with the title, drawn `SUPERSAMPLE` times larger (RGB).
fn background(scene: &Scene, f: &Frame) -> Result<Vec<u8>, String> {
    let (w, h) = (f.width * SUPERSAMPLE, f.height * SUPERSAMPLE);
    let mut pixels = vec![0u8; (w * h * 3) as usize];
    {
        let area = BitMapBackend::with_buffer(&mut pixels, (w, h)).into_drawing_area();
        draw_background(&area, scene, f)?;
        let title = Scale(SUPERSAMPLE)
            .text(14.0, FontStyle::Bold, INK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let mid = (BAND * SUPERSAMPLE / 2) as i32;
        drawn(area.draw_text(&scene.title, &title, ((MARGIN * SUPERSAMPLE) as i32, mid)))?;
        drawn(area.present())?;
    }
    Ok(pixels)
}

/// The animation of `scene` as GIF bytes.
pub(super) fn animation_gif(scene: &Scene) -> Result<Vec<u8>, String> {
    register_fonts()?;
    let f = Frame::new(scene);
    let colors = palette();
    let lut = lookup_table(&colors);
    let transparent = colors.len() as u8;
    let mut rgb_palette: Vec<u8> = colors.iter().flat_map(|c| [c.0, c.1, c.2]).collect();
    rgb_palette.extend([0, 0, 0]);
    let background = background(scene, &f)?;
    let times = timeline(scene.duration());
    let frames: Vec<Vec<u8>> = times
        .par_iter()
        .map(|&(t, _)| render(scene, &f, &background, t, &lut))
        .collect::<Result<_, _>>()?;
    let (w, h) = (f.width as u16, f.height as u16);
    let encoded: Vec<gif::Frame> = (0..frames.len())
        .into_par_iter()
        .map(|i| {
            let delay = times[i].1;
            let mut frame = match i.checked_sub(1) {
                None => gif::Frame {
                    width: w,
                    height: h,
                    delay,
                    buffer: std::borrow::Cow::Borrowed(&frames[0][..]),
                    ..gif::Frame::default()
                },
                Some(p) => changed(&frames[p], &frames[i], f.width as usize, transparent, delay),
            };
            frame.make_lzw_pre_encoded();
            frame
        })
        .collect();
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, &rgb_palette).map_err(|e| e.to_string())?;
        enc.set_repeat(gif::Repeat::Infinite)
            .map_err(|e| e.to_string())?;
        for frame in &encoded {
            enc.write_lzw_pre_encoded_frame(frame)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(out)
}

/// The rectangle of `next` that differs from `prev`, unchanged pixels transparent (a single
/// transparent pixel when nothing changed).
fn changed<'a>(
    prev: &[u8],
    next: &[u8],
    width: usize,
    transparent: u8,
    delay: u16,
) -> gif::Frame<'a> {
    let height = next.len() / width;
    let (mut x0, mut y0, mut x1, mut y1) = (width, height, 0, 0);
    for (i, (a, b)) in prev.iter().zip(next).enumerate() {
        if a != b {
            let (x, y) = (i % width, i / width);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0 > x1 {
        return gif::Frame {
            width: 1,
            height: 1,
            delay,
            transparent: Some(transparent),
            buffer: std::borrow::Cow::Owned(vec![transparent]),
            ..gif::Frame::default()
        };
    }
    let mut buffer = Vec::with_capacity((x1 - x0 + 1) * (y1 - y0 + 1));
    for y in y0..=y1 {
        for x in x0..=x1 {
            let i = y * width + x;
            buffer.push(if prev[i] == next[i] {
                transparent
            } else {
                next[i]
            });
        }
    }
    gif::Frame {
        left: x0 as u16,
        top: y0 as u16,
        width: (x1 - x0 + 1) as u16,
        height: (y1 - y0 + 1) as u16,
        delay,
        transparent: Some(transparent),
        dispose: gif::DisposalMethod::Keep,
        buffer: std::borrow::Cow::Owned(buffer),
        ..gif::Frame::default()
    }
}

/// Writes the animation of `scene` to `path`.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub(super) fn write_animation(path: &Path, scene: &Scene) -> Result<(), OutputError> {
    let bytes = animation_gif(scene).map_err(|message| OutputError::Draw {
        path: path.to_path_buf(),
        message,
    })?;
    write_atomic(path, &bytes).map_err(|source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BaseKind, PendulumSpec, parse_urdf, pendulum_urdf};
    use crate::output::scene::{Motion, SceneInput};

    /// A 1-link pendulum (0.5 m) turned from hanging (q = 0) to horizontal (q = π/2, the tip
    /// at x = −0.5) over 2 s.
    fn quarter_turn() -> Scene {
        let urdf = pendulum_urdf(&PendulumSpec {
            links: 1,
            ..PendulumSpec::default()
        })
        .unwrap();
        let model = parse_urdf(&urdf, "p", BaseKind::Fixed).unwrap();
        let times: Vec<f64> = (0..=100).map(|k| 0.02 * f64::from(k)).collect();
        Scene::new(SceneInput {
            title: "quarter turn".into(),
            info: Vec::new(),
            model: &model,
            urdf: &urdf,
            mesh_paths: &crate::output::meshes::MeshPaths::default(),
            contacts: Vec::new(),
            motions: vec![Motion {
                label: "m".into(),
                q: times
                    .iter()
                    .map(|t| vec![std::f64::consts::FRAC_PI_4 * t])
                    .collect(),
                times,
                forces: Vec::new(),
            }],
            targets: Vec::new(),
            terrain: None,
        })
    }

    /// Decodes `bytes`, laying each frame over the previous one: the full pictures.
    fn pictures(bytes: &[u8]) -> (usize, Vec<Vec<u8>>) {
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::Indexed);
        let mut d = options.read_info(bytes).unwrap();
        let width = usize::from(d.width());
        let mut canvas = vec![0u8; width * usize::from(d.height())];
        let mut out = Vec::new();
        while let Some(f) = d.read_next_frame().unwrap() {
            for y in 0..usize::from(f.height) {
                for x in 0..usize::from(f.width) {
                    let v = f.buffer[y * usize::from(f.width) + x];
                    if Some(v) != f.transparent {
                        canvas[(usize::from(f.top) + y) * width + usize::from(f.left) + x] = v;
                    }
                }
            }
            out.push(canvas.clone());
        }
        (width, out)
    }

    /// Bounding box (x0, y0, x1, y1) of the pixels of palette entry `index` below the band of
    /// text.
    fn extent(picture: &[u8], width: usize, index: u8) -> (usize, usize, usize, usize) {
        let mut b = (usize::MAX, usize::MAX, 0, 0);
        let below = BAND as usize * width;
        for (i, _) in picture
            .iter()
            .enumerate()
            .skip(below)
            .filter(|(_, v)| **v == index)
        {
            let (x, y) = (i % width, i / width);
            b = (b.0.min(x), b.1.min(y), b.2.max(x), b.3.max(y));
        }
        b
    }

    #[test]
    fn frames_decode_to_the_pictures_drawn() {
        let scene = quarter_turn();
        let bytes = animation_gif(&scene).unwrap();
        let (width, pics) = pictures(&bytes);
        assert_eq!(width, WIDTH as usize);
        assert_eq!(pics.len(), timeline(2.0).len());
        assert_eq!(
            pics.len(),
            41,
            "2 s at 20 frames per second and the first frame"
        );
        // The stored rectangles with transparent pixels add up to the whole pictures.
        let f = Frame::new(&scene);
        let lut = lookup_table(&palette());
        let background = background(&scene, &f).unwrap();
        let last = render(&scene, &f, &background, 2.0, &lut).unwrap();
        assert_eq!(pics.last().unwrap(), &last);
    }

    #[test]
    fn the_side_view_keeps_lengths_and_directions() {
        let scene = quarter_turn();
        let (width, pics) = pictures(&animation_gif(&scene).unwrap());
        let palette = palette();
        let (r, g, b) = Side::Middle.rgb();
        let limb = palette
            .iter()
            .position(|c| *c == RGBColor(r, g, b))
            .unwrap() as u8;
        let hanging = extent(&pics[0], width, limb);
        let level = extent(pics.last().unwrap(), width, limb);
        let (tall, thin) = (hanging.3 - hanging.1, hanging.2 - hanging.0);
        let (long, flat) = (level.2 - level.0, level.3 - level.1);
        assert!(tall > 40 && thin <= 6, "hanging: {hanging:?}");
        assert!(flat <= 6, "horizontal: {level:?}");
        assert!(
            tall.abs_diff(long) <= 2,
            "one scale both ways: {tall} vs {long}"
        );
        // Both leave the pivot (the level rod's centre line meets the hanging rod's), the
        // level one to the left (−x), each starting the same distance from it (under the
        // pivot's dot).
        let pivot = (
            0.5 * (hanging.0 + hanging.2) as f64,
            0.5 * (level.1 + level.3) as f64,
        );
        assert!(
            level.0 < hanging.0 && (level.2 as f64) < pivot.0,
            "{hanging:?} {level:?}"
        );
        let gap_below = hanging.1 as f64 - pivot.1;
        let gap_left = pivot.0 - level.2 as f64;
        assert!(
            gap_below > 0.0 && (gap_below - gap_left).abs() <= 2.0,
            "{gap_below} {gap_left}"
        );
    }

    #[test]
    fn hulls_and_timelines() {
        let square = vec![
            (0.0, 0.0),
            (1.0, 0.0),
            (0.5, 0.5),
            (1.0, 1.0),
            (0.0, 1.0),
            (0.0, 0.0),
        ];
        let h = hull(square);
        assert_eq!(h.len(), 4, "{h:?}");
        assert!(!h.contains(&(0.5, 0.5)));
        let short = timeline(0.1);
        assert_eq!(short.len(), 41, "a short motion is slowed to 2 s");
        assert_eq!(short.last().unwrap().1, HOLD);
        let long = timeline(100.0);
        assert_eq!(long.len(), MAX_FRAMES + 1);
        assert_eq!(long[1].1, 5, "8 s in 160 frames");
    }
}
