//! Line plots written as SVG (and PNG with [`Formats::raster`]): one chart per figure
//! ([`write_line_plot`]) or several charts stacked above a shared x axis ([`write_panels`]).
//!
//! Both formats come from the same drawing code (plotters' SVG and bitmap backends). Text is set
//! in the DejaVu Sans font compiled into the binary, so no system font is needed. The PNG is
//! drawn at [`SUPERSAMPLE`] times its size and averaged down, which smooths lines and circles.

use super::{OutputError, write_atomic};
use plotters::backend::RGBPixel;
use plotters::coord::Shift;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontDesc, FontFamily, FontStyle, register_font};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One named curve of a [`LinePlot`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// The `(x, y)` points in drawing order; a non-finite point breaks the line.
    pub points: Vec<(f64, f64)>,
}

/// A line chart: title, axis labels and curves.
#[derive(Clone, Copy, Debug)]
pub struct LinePlot<'a> {
    /// Title above the chart.
    pub title: &'a str,
    /// Label of the x axis.
    pub x_label: &'a str,
    /// Label of the y axis.
    pub y_label: &'a str,
    /// The curves.
    pub series: &'a [Series],
    /// A log10 y axis (for convergence histories); values ≤ 0 are left out.
    pub log_y: bool,
}

/// Writes `plot` to `<stem>.svg`, and with `formats.raster` to `<stem>.png` (1200 × 700 px),
/// e.g. `results/x/joints` → `results/x/joints.svg` and `results/x/joints.png`; returns the
/// files written.
///
/// Up to 12 curves get distinct colours (ten, then the first two again dashed) and a legend
/// beside the chart; more are drawn thin in a colour ramp from the first to the last, with the
/// count in the title. Non-finite points are skipped and break the line; an empty or constant
/// series still gives a valid plot.
///
/// # Errors
/// [`OutputError::Io`] if a file cannot be written, [`OutputError::Draw`] if drawing fails.
pub fn write_line_plot(
    stem: &Path,
    plot: &LinePlot,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    write_figure(stem, formats, || {
        LineFigure::new(None, std::slice::from_ref(plot), PLOT_HEIGHT)
    })
}

/// Writes several charts stacked vertically in one figure under `title` to `<stem>.svg` and
/// with `formats.raster` `<stem>.png` (1200 px wide, 350 px per panel plus a title band), e.g.
/// the q, v and u of a trajectory; returns the files written. The panels share the x range, the x label of the last panel is written under
/// the bottom one, and each panel is drawn as in [`write_line_plot`].
///
/// # Errors
/// [`OutputError::Io`] if a file cannot be written, [`OutputError::Draw`] if drawing fails.
pub fn write_panels(
    stem: &Path,
    title: &str,
    panels: &[LinePlot],
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    write_figure(stem, formats, || {
        LineFigure::new(Some(title), panels, PANEL_HEIGHT)
    })
}

// ---------------------------------------------------------------------------------------------
// Figures in both formats (shared with the filmstrip).

/// The files a command writes its pictures as. Figures are always SVG and the 3-D viewer is
/// always `view.html`; the rasters are drawn at twice their size and averaged down, which for a
/// small problem takes several times as long as the solve, so they are asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Formats {
    /// Also a PNG of every figure and the side-view `animation.gif` (`--raster`).
    pub raster: bool,
}

/// The PNG is drawn this many times larger and averaged down.
const SUPERSAMPLE: u32 = 2;

/// Text colour.
pub(super) const INK: RGBColor = RGBColor(34, 34, 34);
/// Secondary text and axis colour.
pub(super) const MUTED: RGBColor = RGBColor(110, 110, 110);

/// The factor from the nominal pixel sizes of a figure to those of the backend drawn on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scale(pub(super) u32);

impl Scale {
    /// `v` nominal pixels in backend pixels.
    pub(super) fn px(self, v: i32) -> i32 {
        v * self.0 as i32
    }

    /// `v` nominal pixels in backend pixels, unsigned.
    pub(super) fn upx(self, v: u32) -> u32 {
        v * self.0
    }

    /// Text in DejaVu Sans of nominal `size`.
    pub(super) fn text(self, size: f64, weight: FontStyle, color: RGBColor) -> TextStyle<'static> {
        TextStyle {
            font: FontDesc::new(FontFamily::SansSerif, size * f64::from(self.0), weight),
            color: color.to_backend_color(),
            pos: Pos::default(),
        }
    }
}

/// The result of drawing on backend `DB`.
pub(super) type DrawResult<DB> =
    Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A picture that draws itself the same way on any backend.
pub(super) trait Figure {
    /// Size in nominal pixels (the SVG size and the PNG size).
    fn size(&self) -> (u32, u32);

    /// Draws the picture on `root`, of [`Figure::size`] times `s`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, s: Scale) -> DrawResult<DB>;
}

/// Builds a figure (after the font is registered, so it can measure text) and writes it to
/// `<stem>.svg` and with `formats.raster` `<stem>.png`, each atomically and only once all have
/// been drawn; returns the files written. Without the raster, a PNG that an earlier drawing
/// left at `<stem>.png` is removed.
pub(super) fn write_figure<F: Figure>(
    stem: &Path,
    formats: Formats,
    build: impl FnOnce() -> F,
) -> Result<Vec<PathBuf>, OutputError> {
    let svg_path = with_suffix(stem, "svg");
    let draw_error = |path: &Path| {
        let path = path.to_path_buf();
        move |message| OutputError::Draw { path, message }
    };
    register_fonts().map_err(draw_error(&svg_path))?;
    let figure = build();
    let mut files = vec![(
        svg_path.clone(),
        render_svg(&figure)
            .map_err(draw_error(&svg_path))?
            .into_bytes(),
    )];
    let png_path = with_suffix(stem, "png");
    if formats.raster {
        let png = render_png(&figure).map_err(draw_error(&png_path))?;
        files.push((png_path, png));
    } else {
        // A PNG of an earlier drawing of this figure would no longer match its SVG.
        match std::fs::remove_file(&png_path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(OutputError::Io {
                    path: png_path,
                    source: e,
                });
            }
            _ => {}
        }
    }
    for (path, bytes) in &files {
        write_atomic(path, bytes).map_err(|source| OutputError::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(files.into_iter().map(|(path, _)| path).collect())
}

/// Width in nominal pixels of `text` in DejaVu Sans of `size` and `weight`.
pub(super) fn text_width(text: &str, size: f64, weight: FontStyle) -> u32 {
    FontDesc::new(FontFamily::SansSerif, size, weight)
        .box_size(text)
        .map_or_else(
            |_| (0.6 * size) as u32 * text.chars().count() as u32,
            |(w, _)| w,
        )
}

/// `text`, shortened with an ellipsis to at most `max_width` nominal pixels.
fn fit_text(text: &str, size: f64, weight: FontStyle, max_width: u32) -> String {
    if text_width(text, size, weight) <= max_width {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let candidate: String = chars.iter().chain(['…'].iter()).collect();
        if text_width(&candidate, size, weight) <= max_width {
            return candidate;
        }
    }
    "…".to_string()
}

/// Registers the embedded DejaVu Sans (regular and bold) as plotters' "sans-serif", once.
pub(super) fn register_fonts() -> Result<(), String> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular()).is_ok()
            && register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold()).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| "the embedded DejaVu Sans font cannot be read".to_string())
}

/// `stem` with `.ext` appended (a dot in the stem's file name is kept).
pub(super) fn with_suffix(stem: &Path, ext: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

fn render_svg(figure: &impl Figure) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, figure.size()).into_drawing_area();
        figure
            .draw(&root, Scale(1))
            .and_then(|()| root.present())
            .map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

fn render_png(figure: &impl Figure) -> Result<Vec<u8>, String> {
    let (w, h) = figure.size();
    let (big_w, big_h) = (w * SUPERSAMPLE, h * SUPERSAMPLE);
    let mut big = vec![0u8; big_w as usize * big_h as usize * 3];
    {
        let root = BitMapBackend::<RGBPixel>::with_buffer_and_format(&mut big, (big_w, big_h))
            .map_err(|e| e.to_string())?
            .into_drawing_area();
        figure
            .draw(&root, Scale(SUPERSAMPLE))
            .and_then(|()| root.present())
            .map_err(|e| e.to_string())?;
    }
    let small = downsample(&big, (w, h), SUPERSAMPLE);
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Default);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&small).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(png)
}

/// Averages `k × k` blocks of an RGB image of `k` times the size `(w, h)` (rounded to the
/// nearest level).
pub(super) fn downsample(big: &[u8], (w, h): (u32, u32), k: u32) -> Vec<u8> {
    let (w, h, k) = (w as usize, h as usize, k as usize);
    let stride = w * k * 3;
    let area = (k * k) as u32;
    let mut small = vec![0u8; w * h * 3];
    // The k rows of a block summed column by column (k² · 255 fits in u16 for the k ≤ 15
    // used), then k columns of that sum per pixel.
    let mut rows = vec![0u16; stride];
    for (y, out) in small.chunks_exact_mut(w * 3).enumerate() {
        rows.fill(0);
        for row in big[y * k * stride..(y + 1) * k * stride].chunks_exact(stride) {
            for (s, &v) in rows.iter_mut().zip(row) {
                *s += u16::from(v);
            }
        }
        for (x, px) in out.chunks_exact_mut(3).enumerate() {
            for (c, o) in px.iter_mut().enumerate() {
                let sum: u32 = (0..k).map(|dx| u32::from(rows[(x * k + dx) * 3 + c])).sum();
                *o = ((sum + area / 2) / area) as u8;
            }
        }
    }
    small
}

// ---------------------------------------------------------------------------------------------
// Line charts.

const WIDTH: u32 = 1200;
const PLOT_HEIGHT: u32 = 700;
const PANEL_HEIGHT: u32 = 350;
/// Height of the figure title band of a panel figure.
const TITLE_BAND: u32 = 50;
const TITLE_FONT: f64 = 26.0;
const CAPTION_FONT: f64 = 20.0;
const TICK_FONT: f64 = 15.0;
const DESC_FONT: f64 = 18.0;
const LEGEND_FONT: f64 = 15.0;
/// At most this many curves get a legend; more are drawn in a colour ramp.
const MAX_LEGEND: usize = 12;
/// Longest legend text, in nominal pixels.
const MAX_LEGEND_TEXT: u32 = 220;
const TICK_SIZE: i32 = 5;
/// Values beyond this magnitude are treated as non-finite.
const MAX_ABS: f64 = 1e300;

/// Well-separated line colours (the Tableau 10 palette).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Stops of the colour ramp for many curves (viridis up to 0.9, dark to light green).
const RAMP: [RGBColor; 7] = [
    RGBColor(68, 1, 84),
    RGBColor(70, 50, 126),
    RGBColor(54, 92, 141),
    RGBColor(39, 127, 142),
    RGBColor(31, 161, 135),
    RGBColor(74, 193, 109),
    RGBColor(160, 218, 57),
];

const GRID: RGBColor = RGBColor(221, 221, 221);
const LIGHT_GRID: RGBColor = RGBColor(242, 242, 242);

/// How a curve is stroked.
#[derive(Clone, Copy, Debug)]
struct Pen {
    color: RGBColor,
    width: u32,
    dashed: bool,
}

impl Pen {
    /// The pen of curve `i` of `n`.
    fn of(i: usize, n: usize) -> Self {
        if n > MAX_LEGEND {
            Pen {
                color: ramp(i as f64 / (n - 1) as f64),
                width: 1,
                dashed: false,
            }
        } else {
            Pen {
                color: PALETTE[i % PALETTE.len()],
                width: 2,
                dashed: i >= PALETTE.len(),
            }
        }
    }

    fn style(self, s: Scale) -> ShapeStyle {
        self.color.stroke_width(s.upx(self.width))
    }
}

/// The ramp colour at `t ∈ [0, 1]`.
fn ramp(t: f64) -> RGBColor {
    let x = t.clamp(0.0, 1.0) * (RAMP.len() - 1) as f64;
    let i = (x.floor() as usize).min(RAMP.len() - 2);
    let f = x - i as f64;
    let (a, b) = (RAMP[i], RAMP[i + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + f * (f64::from(q) - f64::from(p))).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A closed axis range with the number of tick labels wanted.
#[derive(Clone, Copy, Debug)]
struct Axis {
    lo: f64,
    hi: f64,
    labels: usize,
}

impl Axis {
    /// An axis through `extent` (none: `[0, 1]`), widened around a single value and, with
    /// `pad`, by 5 % on both sides.
    fn linear(extent: Option<(f64, f64)>, pad: bool, labels: usize) -> Self {
        let (lo, hi) = match extent {
            None => (0.0, 1.0),
            Some((lo, hi)) if hi - lo <= 1e-9 * lo.abs().max(hi.abs()) => {
                let mid = 0.5 * (lo + hi);
                let half = if mid == 0.0 { 1.0 } else { 0.1 * mid.abs() };
                (mid - half, mid + half)
            }
            Some((lo, hi)) if pad => (lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)),
            Some(range) => range,
        };
        Axis { lo, hi, labels }
    }

    /// A log10 axis (values are exponents) over whole decades around `extent`.
    fn decades(extent: Option<(f64, f64)>, labels: usize) -> Self {
        let (mut lo, mut hi) = extent.map_or((-1.0, 0.0), |(lo, hi)| (lo.floor(), hi.ceil()));
        if hi <= lo {
            lo -= 1.0;
            hi += 1.0;
        }
        let decades = (hi - lo) as usize;
        Axis {
            lo,
            hi,
            labels: labels.min(decades + 1),
        }
    }

    /// The tick positions plotters will label.
    fn ticks(self) -> Vec<f64> {
        RangedCoordf64::from(self.lo..self.hi).key_points(self.labels)
    }
}

/// Tick label format of a linear axis: fixed decimals, optionally with a common power of ten
/// that goes into the axis description.
#[derive(Clone, Copy, Debug)]
struct TickFormat {
    decimals: usize,
    exponent: Option<i32>,
}

impl TickFormat {
    fn new(axis: Axis) -> Self {
        let ticks = axis.ticks();
        let step = ticks
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::INFINITY, f64::min);
        let step = if step.is_finite() && step > 0.0 {
            step
        } else {
            axis.hi - axis.lo
        };
        let step_exp = (step.log10() + 1e-9).floor() as i32;
        let magnitude = axis.lo.abs().max(axis.hi.abs());
        let exponent = (magnitude > 0.0)
            .then(|| (magnitude.log10() + 1e-9).floor() as i32)
            .filter(|&e| !(-3..5).contains(&e));
        let decimals = match exponent {
            Some(e) => e - step_exp,
            None => -step_exp,
        };
        TickFormat {
            decimals: decimals.clamp(0, 10) as usize,
            exponent,
        }
    }

    fn label(self, v: f64) -> String {
        let scaled = self.exponent.map_or(v, |e| v / 10f64.powi(e));
        let text = format!("{scaled:.*}", self.decimals);
        if text
            .trim_start_matches('-')
            .chars()
            .all(|c| c == '0' || c == '.')
        {
            "0".to_string()
        } else {
            text.replace('-', "\u{2212}")
        }
    }

    /// `desc` with the common power of ten, if any.
    fn describe(self, desc: &str) -> String {
        match self.exponent {
            Some(e) => format!("{desc} (×10{})", superscript(e)),
            None => desc.to_string(),
        }
    }
}

/// `n` in superscript digits.
fn superscript(n: i32) -> String {
    n.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

/// The label of exponent `v` on a log axis: `10ⁿ` at whole decades, nothing elsewhere.
fn decade_label(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("10{}", superscript(v.round() as i32))
    } else {
        String::new()
    }
}

/// The range of finite values, `None` if there are none.
fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((v.min(lo), v.max(hi))),
    })
}

/// What stands beside a chart.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Legend {
    None,
    /// One key per curve.
    Keys,
    /// The colour ramp, labelled with the first and last curve.
    Ramp,
}

/// A curve ready to draw: its pen and its unbroken runs of drawable points (y already log10 on a
/// log axis).
#[derive(Clone, Debug)]
struct Curve {
    label: String,
    pen: Pen,
    runs: Vec<Vec<(f64, f64)>>,
}

impl Curve {
    fn new(series: &Series, pen: Pen, log_y: bool) -> Self {
        let mut runs = vec![Vec::new()];
        for &(x, y) in &series.points {
            let y = if log_y {
                if y > 0.0 { y.log10() } else { f64::NAN }
            } else {
                y
            };
            let drawable = x.abs() <= MAX_ABS && y.abs() <= MAX_ABS;
            match runs.last_mut() {
                Some(run) if drawable => run.push((x, y)),
                Some(run) if !run.is_empty() => runs.push(Vec::new()),
                _ => {}
            }
        }
        runs.retain(|r| !r.is_empty());
        Curve {
            label: series.label.clone(),
            pen,
            runs,
        }
    }

    fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.runs.iter().flatten().copied()
    }
}

/// A [`LinePlot`] ready to draw.
#[derive(Clone, Debug)]
struct Chart {
    caption: String,
    y_label: String,
    log_y: bool,
    curves: Vec<Curve>,
    y: Axis,
    legend: Legend,
}

impl Chart {
    fn new(plot: &LinePlot, y_labels: usize) -> Self {
        let n = plot.series.len();
        let curves: Vec<Curve> = plot
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| Curve::new(s, Pen::of(i, n), plot.log_y))
            .collect();
        let ys = extent(curves.iter().flat_map(|c| c.points().map(|p| p.1)));
        let y = if plot.log_y {
            Axis::decades(ys, y_labels)
        } else {
            Axis::linear(ys, true, y_labels)
        };
        let (caption, legend) = if n > MAX_LEGEND {
            let count = format!("{n} series");
            let caption = if plot.title.is_empty() {
                count
            } else {
                format!("{} ({count})", plot.title)
            };
            (caption, Legend::Ramp)
        } else if curves.iter().any(|c| !c.label.is_empty()) {
            (plot.title.to_string(), Legend::Keys)
        } else {
            (plot.title.to_string(), Legend::None)
        };
        Chart {
            caption,
            y_label: plot.y_label.to_string(),
            log_y: plot.log_y,
            curves,
            y,
            legend,
        }
    }

    fn y_format(&self) -> TickFormat {
        TickFormat::new(self.y)
    }

    /// The y tick labels.
    fn y_tick_labels(&self) -> Vec<String> {
        let format = self.y_format();
        self.y
            .ticks()
            .into_iter()
            .map(|v| {
                if self.log_y {
                    decade_label(v)
                } else {
                    format.label(v)
                }
            })
            .collect()
    }

    /// The legend texts (fitted), in drawing order.
    fn legend_texts(&self) -> Vec<String> {
        let fit = |c: &Curve| fit_text(&c.label, LEGEND_FONT, FontStyle::Normal, MAX_LEGEND_TEXT);
        match self.legend {
            Legend::None => Vec::new(),
            Legend::Keys => self.curves.iter().map(fit).collect(),
            Legend::Ramp => self
                .curves
                .first()
                .into_iter()
                .chain(self.curves.last())
                .map(fit)
                .collect(),
        }
    }
}

/// Legend geometry, in nominal pixels.
const LEGEND_PAD: i32 = 10;
const LEGEND_ROW: i32 = 22;
const LEGEND_SAMPLE: i32 = 28;
const LEGEND_GAP: i32 = 8;
const RAMP_BAR: i32 = 14;
const RAMP_HEIGHT: i32 = 160;
/// Space right of the legend box.
const RIGHT_MARGIN: u32 = 14;

/// Layout shared by the charts of one figure, in nominal pixels.
#[derive(Clone, Copy, Debug)]
struct Frame {
    x: Axis,
    x_format: TickFormat,
    legend_box: u32,
    y_area: u32,
    x_area: u32,
    caption_size: f64,
}

/// One or more charts stacked vertically.
#[derive(Clone, Debug)]
struct LineFigure {
    title: Option<String>,
    x_label: String,
    charts: Vec<Chart>,
    chart_height: u32,
    frame: Frame,
}

impl LineFigure {
    fn new(title: Option<&str>, plots: &[LinePlot], chart_height: u32) -> Self {
        let y_labels = if chart_height >= PLOT_HEIGHT { 9 } else { 6 };
        let charts: Vec<Chart> = plots.iter().map(|p| Chart::new(p, y_labels)).collect();
        let xs = extent(
            charts
                .iter()
                .flat_map(|c| c.curves.iter().flat_map(|k| k.points().map(|p| p.0))),
        );
        let x = Axis::linear(xs, false, 12);
        let x_format = TickFormat::new(x);
        let tick_height = text_height(TICK_FONT);
        let desc_height = text_height(DESC_FONT);
        let y_ticks = charts
            .iter()
            .flat_map(|c| c.y_tick_labels())
            .map(|t| text_width(&t, TICK_FONT, FontStyle::Normal))
            .max()
            .unwrap_or(0);
        let legend_box = charts
            .iter()
            .map(|c| {
                let texts = c.legend_texts();
                let widest = texts
                    .iter()
                    .map(|t| text_width(t, LEGEND_FONT, FontStyle::Normal))
                    .max()
                    .unwrap_or(0) as i32;
                let marker = match c.legend {
                    Legend::None => return 0,
                    Legend::Keys => LEGEND_SAMPLE,
                    Legend::Ramp => RAMP_BAR,
                };
                (2 * LEGEND_PAD + marker + LEGEND_GAP + widest) as u32
            })
            .max()
            .unwrap_or(0);
        let x_label = plots.last().map_or("", |p| p.x_label).to_string();
        LineFigure {
            title: title.map(str::to_string),
            x_label,
            charts,
            chart_height,
            frame: Frame {
                x,
                x_format,
                legend_box,
                y_area: desc_height + 12 + y_ticks + 2 * TICK_SIZE as u32,
                x_area: tick_height + 2 * TICK_SIZE as u32 + 10 + desc_height,
                caption_size: if title.is_some() {
                    CAPTION_FONT
                } else {
                    TITLE_FONT
                },
            },
        }
    }

    fn title_band(&self) -> u32 {
        if self.title.is_some() { TITLE_BAND } else { 0 }
    }
}

/// Height in nominal pixels of a line of text of `size`.
fn text_height(size: f64) -> u32 {
    FontDesc::new(FontFamily::SansSerif, size, FontStyle::Normal)
        .box_size("Xg")
        .map_or(size as u32, |(_, h)| h)
}

impl Figure for LineFigure {
    fn size(&self) -> (u32, u32) {
        let rows = self.charts.len().max(1) as u32;
        (WIDTH, self.title_band() + rows * self.chart_height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, s: Scale) -> DrawResult<DB> {
        root.fill(&WHITE)?;
        let (width, _) = root.dim_in_pixel();
        let (band, body) = root.split_vertically(s.upx(self.title_band()));
        if let Some(title) = &self.title {
            let style = s
                .text(TITLE_FONT, FontStyle::Bold, INK)
                .pos(Pos::new(HPos::Center, VPos::Center));
            band.draw_text(
                title,
                &style,
                (width as i32 / 2, s.px(TITLE_BAND as i32) / 2),
            )?;
        }
        if self.charts.is_empty() {
            return no_data(&body, s);
        }
        let rows = body.split_evenly((self.charts.len(), 1));
        let last = self.charts.len() - 1;
        for (i, (chart, area)) in self.charts.iter().zip(&rows).enumerate() {
            let x_desc = (i == last).then_some(self.x_label.as_str());
            draw_chart(area, chart, &self.frame, x_desc, s)?;
        }
        Ok(())
    }
}

/// "no data" in the middle of `area`.
fn no_data<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, s: Scale) -> DrawResult<DB> {
    let (w, h) = area.dim_in_pixel();
    let style = s
        .text(DESC_FONT, FontStyle::Normal, MUTED)
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw_text("no data", &style, (w as i32 / 2, h as i32 / 2))
}

/// Draws one chart with its caption and legend into `area`; `x_desc` is the x axis
/// description, if this chart shows it.
fn draw_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    frame: &Frame,
    x_desc: Option<&str>,
    s: Scale,
) -> DrawResult<DB> {
    let caption_height = s.upx(text_height(frame.caption_size) + 18);
    let (caption_area, rest) = area.split_vertically(caption_height);
    let (width, _) = area.dim_in_pixel();
    let caption_style = s
        .text(frame.caption_size, FontStyle::Bold, INK)
        .pos(Pos::new(HPos::Center, VPos::Center));
    let legend_width = if frame.legend_box > 0 {
        s.upx(frame.legend_box + RIGHT_MARGIN)
    } else {
        0
    };
    let (plot_area, legend_area) = rest.split_horizontally(width - legend_width);
    let (plot_width, _) = plot_area.dim_in_pixel();
    let caption = fit_text(
        &chart.caption,
        frame.caption_size,
        FontStyle::Bold,
        (plot_width / s.0).saturating_sub(frame.y_area + 20),
    );
    caption_area.draw_text(
        &caption,
        &caption_style,
        (
            (plot_width + s.upx(frame.y_area)) as i32 / 2,
            caption_height as i32 / 2 + s.px(3),
        ),
    )?;

    let x = frame.x;
    let y = chart.y;
    let mut ctx = ChartBuilder::on(&plot_area)
        .margin_top(s.px(4))
        .margin_left(s.px(10))
        .margin_right(s.px(18))
        .margin_bottom(s.px(8))
        .x_label_area_size(s.upx(frame.x_area))
        .y_label_area_size(s.upx(frame.y_area))
        .build_cartesian_2d(x.lo..x.hi, y.lo..y.hi)?;

    let x_format = frame.x_format;
    let y_format = chart.y_format();
    let log_y = chart.log_y;
    let x_labels = |v: &f64| x_format.label(*v);
    let y_labels = |v: &f64| {
        if log_y {
            decade_label(*v)
        } else {
            y_format.label(*v)
        }
    };
    let (px_range, py_range) = ctx.plotting_area().get_pixel_range();
    let fit_desc = |desc: &str, length: i32| {
        let length = u32::try_from(length).unwrap_or(0) / s.0;
        fit_text(desc, DESC_FONT, FontStyle::Normal, length)
    };
    let y_desc = if log_y {
        chart.y_label.clone()
    } else {
        y_format.describe(&chart.y_label)
    };
    let mut mesh = ctx.configure_mesh();
    mesh.x_labels(x.labels)
        .y_labels(y.labels)
        .x_label_formatter(&x_labels)
        .y_label_formatter(&y_labels)
        .label_style(s.text(TICK_FONT, FontStyle::Normal, INK))
        .axis_desc_style(s.text(DESC_FONT, FontStyle::Normal, INK))
        .bold_line_style(GRID.stroke_width(s.upx(1)))
        .light_line_style(LIGHT_GRID.stroke_width(s.upx(1)))
        .axis_style(MUTED.stroke_width(s.upx(1)))
        .set_all_tick_mark_size(s.px(TICK_SIZE))
        .max_light_lines(4)
        .y_desc(fit_desc(&y_desc, py_range.end - py_range.start));
    if let Some(desc) = x_desc {
        mesh.x_desc(fit_desc(
            &x_format.describe(desc),
            px_range.end - px_range.start,
        ));
    }
    if log_y {
        mesh.y_max_light_lines(0);
    }
    mesh.draw()?;

    if log_y && y.hi - y.lo <= 6.0 {
        let minor = (y.lo as i32..y.hi as i32)
            .flat_map(|e| (2..10).map(move |k| f64::from(e) + f64::from(k).log10()));
        ctx.draw_series(minor.map(|v| {
            PathElement::new(
                vec![(x.lo, v), (x.hi, v)],
                LIGHT_GRID.stroke_width(s.upx(1)),
            )
        }))?;
    }

    for curve in &chart.curves {
        let style = curve.pen.style(s);
        for run in &curve.runs {
            if let [p] = run.as_slice() {
                ctx.draw_series(std::iter::once(Circle::new(
                    *p,
                    s.px(3),
                    curve.pen.color.filled(),
                )))?;
            } else if curve.pen.dashed {
                ctx.draw_series(DashedLineSeries::new(
                    run.iter().copied(),
                    s.px(10),
                    s.px(6),
                    style,
                ))?;
            } else {
                ctx.draw_series(LineSeries::new(run.iter().copied(), style))?;
            }
        }
    }

    let plotting = ctx.plotting_area();
    let (ox, oy) = plot_area.get_base_pixel();
    let frame_box = Rectangle::new(
        [
            (px_range.start - 1 - ox, py_range.start - oy),
            (px_range.end - ox, py_range.end - oy),
        ],
        MUTED.stroke_width(s.upx(1)),
    );
    plot_area.draw(&frame_box)?;
    if chart.curves.iter().all(|c| c.runs.is_empty()) {
        no_data(&plotting.strip_coord_spec(), s)?;
    }

    let (_, ly) = legend_area.get_base_pixel();
    let top = py_range.start - ly;
    let available = py_range.end - py_range.start;
    draw_legend(&legend_area, chart, top, available, s)
}

/// Draws the legend of `chart` in `area` from `top`, in at most `available` pixels of height.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    top: i32,
    available: i32,
    s: Scale,
) -> DrawResult<DB> {
    let texts = chart.legend_texts();
    let (width, _) = area.dim_in_pixel();
    let right = width as i32 - s.px(RIGHT_MARGIN as i32);
    let pad = s.px(LEGEND_PAD);
    let text_style = |size: f64, v: VPos| {
        s.text(size, FontStyle::Normal, INK)
            .pos(Pos::new(HPos::Left, v))
    };
    let boxed = |height: i32| {
        Rectangle::new(
            [(0, top), (right, top + height)],
            ShapeStyle {
                color: WHITE.to_rgba(),
                filled: true,
                stroke_width: 0,
            },
        )
    };
    let border = |height: i32| {
        Rectangle::new(
            [(0, top), (right, top + height)],
            GRID.stroke_width(s.upx(1)),
        )
    };
    match chart.legend {
        Legend::None => Ok(()),
        Legend::Keys => {
            let n = chart.curves.len() as i32;
            let row = ((available - 2 * pad) / n.max(1)).clamp(s.px(14), s.px(LEGEND_ROW));
            let size = LEGEND_FONT.min(f64::from(row) / f64::from(s.0) * 0.72);
            let height = 2 * pad + n * row;
            area.draw(&boxed(height))?;
            area.draw(&border(height))?;
            for (i, (curve, text)) in chart.curves.iter().zip(&texts).enumerate() {
                let y = top + pad + i as i32 * row + row / 2;
                let x0 = pad;
                let x1 = pad + s.px(LEGEND_SAMPLE);
                let style = curve.pen.style(s);
                if curve.pen.dashed {
                    area.draw(&DashedPathElement::new(
                        [(x0, y), (x1, y)],
                        s.px(8),
                        s.px(4),
                        style,
                    ))?;
                } else {
                    area.draw(&PathElement::new(vec![(x0, y), (x1, y)], style))?;
                }
                area.draw_text(
                    text,
                    &text_style(size, VPos::Center),
                    (x1 + s.px(LEGEND_GAP), y),
                )?;
            }
            Ok(())
        }
        Legend::Ramp => {
            let bar = (available - 2 * pad).min(s.px(RAMP_HEIGHT)).max(s.px(20));
            let height = bar + 2 * pad;
            area.draw(&boxed(height))?;
            area.draw(&border(height))?;
            let n = chart.curves.len() as i32;
            for (i, curve) in chart.curves.iter().enumerate() {
                let i = i as i32;
                let y0 = top + pad + bar * i / n;
                let y1 = top + pad + bar * (i + 1) / n;
                area.draw(&Rectangle::new(
                    [(pad, y0), (pad + s.px(RAMP_BAR), y1)],
                    curve.pen.color.filled(),
                ))?;
            }
            let x = pad + s.px(RAMP_BAR + LEGEND_GAP);
            if let [first, last] = texts.as_slice() {
                area.draw_text(first, &text_style(LEGEND_FONT, VPos::Top), (x, top + pad))?;
                area.draw_text(
                    last,
                    &text_style(LEGEND_FONT, VPos::Bottom),
                    (x, top + pad + bar),
                )?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A fresh empty directory under the system temporary directory.
    pub(in crate::output) fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vito-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Every format, so that the tests read the SVG and the PNG of each figure.
    pub(in crate::output) const RASTER: Formats = Formats { raster: true };

    /// Width and height from the IHDR chunk of a PNG file, after checking the signature.
    pub(in crate::output) fn png_size(bytes: &[u8]) -> (u32, u32) {
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
        assert_eq!(&bytes[12..16], b"IHDR");
        let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        (be(&bytes[16..20]), be(&bytes[20..24]))
    }

    /// Reads `<stem>.svg` and `<stem>.png`, checks that they are a whole SVG and a PNG of the
    /// same size, and returns the SVG text and that size.
    pub(in crate::output) fn read_figure(stem: &Path) -> (String, (u32, u32)) {
        let svg = std::fs::read_to_string(with_suffix(stem, "svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        let png = std::fs::read(with_suffix(stem, "png")).unwrap();
        let size = png_size(&png);
        let head = format!("<svg width=\"{}\" height=\"{}\"", size.0, size.1);
        assert!(svg.starts_with(&head), "SVG and PNG have the same size");
        (svg, size)
    }

    fn sine(label: &str, phase: f64) -> Series {
        Series {
            label: label.into(),
            points: (0..=200)
                .map(|i| {
                    let t = f64::from(i) * 0.01;
                    (t, (6.0 * t + phase).sin())
                })
                .collect(),
        }
    }

    fn plot<'a>(title: &'a str, series: &'a [Series], log_y: bool) -> LinePlot<'a> {
        LinePlot {
            title,
            x_label: "t [s]",
            y_label: "q [rad]",
            series,
            log_y,
        }
    }

    #[test]
    fn downsampling_averages_blocks() {
        for k in [2u32, 3] {
            let (w, h) = (7u32, 5u32);
            let big: Vec<u8> = (0..(w * k * h * k * 3))
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
                .collect();
            let small = downsample(&big, (w, h), k);
            for y in 0..h {
                for x in 0..w {
                    for c in 0..3 {
                        let mut sum = 0u32;
                        for dy in 0..k {
                            for dx in 0..k {
                                let i = ((y * k + dy) * w * k + x * k + dx) * 3 + c;
                                sum += u32::from(big[i as usize]);
                            }
                        }
                        let want = (f64::from(sum) / f64::from(k * k)).round() as u8;
                        let got = small[((y * w + x) * 3 + c) as usize];
                        assert!(
                            got.abs_diff(want) <= 1 && got == ((sum + k * k / 2) / (k * k)) as u8
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn line_plot_writes_svg_and_png() {
        let dir = temp_dir("line-plot");
        let series = [sine("hip", 0.0), sine("knee", 1.0)];
        let stem = dir.join("run.1").join("joints");
        let written =
            write_line_plot(&stem, &plot("Joint positions", &series, false), RASTER).unwrap();
        let (svg_path, png_path) = (
            dir.join("run.1").join("joints.svg"),
            dir.join("run.1").join("joints.png"),
        );
        assert_eq!(written, [svg_path.clone(), png_path]);
        let (svg, size) = read_figure(&stem);
        assert!(svg.contains("Joint positions") && svg.contains("knee"));
        assert_eq!(size, (WIDTH, PLOT_HEIGHT));
        let files = std::fs::read_dir(dir.join("run.1")).unwrap().count();
        assert_eq!(files, 2, "exactly the two figures, no temporary files");
        let svg_only = write_line_plot(
            &stem,
            &plot("Joint positions", &series, false),
            Formats::default(),
        )
        .unwrap();
        assert_eq!(svg_only, [svg_path]);
        let files = std::fs::read_dir(dir.join("run.1")).unwrap().count();
        assert_eq!(files, 1, "without the raster the earlier PNG is gone");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn panels_are_stacked_under_one_title() {
        let dir = temp_dir("panels");
        let q = [sine("a", 0.0)];
        let many: Vec<Series> = (0..30)
            .map(|i| sine(&format!("j{i}"), f64::from(i)))
            .collect();
        let panels = [
            plot("Positions", &q, false),
            plot("Torques", &many, false),
            plot("Residual", &q, true),
        ];
        let stem = dir.join("trajectory");
        write_panels(&stem, "Swing-up & back", &panels, RASTER).unwrap();
        let (svg, size) = read_figure(&stem);
        assert_eq!(size, (WIDTH, TITLE_BAND + 3 * PANEL_HEIGHT));
        assert!(svg.contains("Swing-up &amp; back"), "the title is escaped");
        assert!(
            svg.contains("Torques (30 series)"),
            "many curves: a count, no legend"
        );
        assert!(
            !svg.contains(">\nj7\n<"),
            "no legend entry for a middle curve"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_values_empty_and_constant_series_still_plot() {
        let dir = temp_dir("bad-values");
        let series = [
            Series {
                label: "broken".into(),
                points: vec![
                    (0.0, 1.0),
                    (1.0, f64::NAN),
                    (2.0, f64::INFINITY),
                    (f64::NEG_INFINITY, 3.0),
                    (3.0, -2.0),
                    (4.0, 0.0),
                    (5.0, 1e-300),
                    (6.0, 2.0),
                ],
            },
            Series {
                label: "empty".into(),
                points: Vec::new(),
            },
            Series {
                label: "constant".into(),
                points: vec![(0.0, 5.0), (6.0, 5.0)],
            },
        ];
        for log_y in [false, true] {
            let stem = dir.join(format!("bad-{log_y}"));
            write_line_plot(&stem, &plot("Bad values", &series, log_y), RASTER).unwrap();
            read_figure(&stem);
        }
        let nothing = [Series {
            label: "nan".into(),
            points: vec![(f64::NAN, f64::NAN)],
        }];
        for (name, series) in [("none", &[][..]), ("nan", &nothing[..])] {
            let stem = dir.join(name);
            write_line_plot(&stem, &plot("Nothing", series, true), RASTER).unwrap();
            assert!(read_figure(&stem).0.contains("no data"));
        }
        let single = [Series {
            label: "one point".into(),
            points: vec![(1.0, 0.0)],
        }];
        write_panels(
            &dir.join("single"),
            "Single",
            &[plot("p", &single, false)],
            RASTER,
        )
        .unwrap();
        write_panels(&dir.join("no-panels"), "Empty", &[], RASTER).unwrap();
        read_figure(&dir.join("no-panels"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unwritable_path_is_an_error() {
        let dir = temp_dir("unwritable");
        let file = dir.join("file");
        std::fs::write(&file, b"not a directory").unwrap();
        let series = [sine("a", 0.0)];
        let err =
            write_line_plot(&file.join("plot"), &plot("x", &series, false), RASTER).unwrap_err();
        assert!(matches!(err, OutputError::Io { .. }), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tick_labels_are_short_and_signed() {
        let f = TickFormat::new(Axis::linear(Some((-1.0, 1.0)), true, 9));
        assert_eq!(f.label(0.5), "0.5");
        assert_eq!(f.label(-0.5), "\u{2212}0.5");
        assert_eq!(f.label(-1e-17), "0");
        assert_eq!(f.describe("q"), "q");
        let f = TickFormat::new(Axis::linear(Some((0.0, 3e-5)), false, 9));
        assert_eq!(f.label(2e-5), "2.0");
        assert_eq!(f.describe("v"), "v (×10⁻⁵)");
        let f = TickFormat::new(Axis::linear(Some((1e6, 2e6)), false, 6));
        assert_eq!(f.label(1.5e6), "1.5");
        assert_eq!(f.describe("u"), "u (×10⁶)");
        assert_eq!(decade_label(-8.0), "10⁻⁸");
        assert_eq!(decade_label(-7.5), "");
    }

    #[test]
    fn ranges_of_degenerate_data() {
        let a = Axis::linear(None, true, 5);
        assert_eq!((a.lo, a.hi), (0.0, 1.0));
        let a = Axis::linear(Some((0.0, 0.0)), true, 5);
        assert_eq!((a.lo, a.hi), (-1.0, 1.0));
        let a = Axis::linear(Some((4.0, 4.0)), true, 5);
        assert!(a.lo < 4.0 && a.hi > 4.0);
        let a = Axis::decades(Some((-8.3, 1.2)), 12);
        assert_eq!((a.lo, a.hi, a.labels), (-9.0, 2.0, 12));
        let a = Axis::decades(Some((-3.0, -3.0)), 12);
        assert_eq!((a.lo, a.hi, a.labels), (-4.0, -2.0, 3));
    }

    #[test]
    fn long_legend_texts_are_shortened() {
        register_fonts().unwrap();
        let long = "a_very_long_joint_name_that_does_not_fit_in_the_legend_box_at_all";
        let short = fit_text(long, LEGEND_FONT, FontStyle::Normal, MAX_LEGEND_TEXT);
        assert!(short.ends_with('…') && short.len() < long.len());
        assert!(text_width(&short, LEGEND_FONT, FontStyle::Normal) <= MAX_LEGEND_TEXT);
        assert_eq!(
            fit_text("hip", LEGEND_FONT, FontStyle::Normal, MAX_LEGEND_TEXT),
            "hip"
        );
    }
}
