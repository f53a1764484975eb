//! The centre of pressure inside the sole: for each stance foot a top view of its sole
//! rectangle at one common scale (x forward to the right, y to the left upwards, in the sole's
//! frame), with the path of the centre of pressure over the motion and the path of the centre
//! of mass projected on the sole, written as SVG and PNG. Balance holds while the centre of
//! pressure stays inside the rectangle.

use super::OutputError;
use super::plot::{DrawResult, Figure, Formats, INK, MUTED, Scale, write_figure};
use crate::contact::SoleRectangle;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// One foot of a [`SoleFigure`].
#[derive(Clone, Debug, PartialEq)]
pub struct SolePanel {
    /// Panel caption (the frame's name).
    pub name: String,
    /// The sole, in its frame.
    pub sole: SoleRectangle,
    /// Centre of pressure `(x, y)` in the frame over time (a non-finite point breaks the path).
    pub cop: Vec<(f64, f64)>,
    /// Centre of mass projected on the sole, `(x, y)` in the frame over time.
    pub com: Vec<(f64, f64)>,
}

/// The centre-of-pressure picture of a motion.
#[derive(Clone, Debug, PartialEq)]
pub struct SoleFigure {
    /// Title above the panels.
    pub title: String,
    /// One panel per foot.
    pub panels: Vec<SolePanel>,
}

/// Writes `figure` to `<stem>.svg` and with `formats.raster` `<stem>.png`; returns the files
/// written.
///
/// # Errors
/// [`OutputError::Io`] if a file cannot be written, [`OutputError::Draw`] if drawing fails.
pub fn write_sole_figure(
    stem: &Path,
    figure: &SoleFigure,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    write_figure(stem, formats, || Layout::new(figure))
}

const TITLE_BAND: u32 = 50;
const CAPTION_BAND: u32 = 34;
const FOOTER_BAND: u32 = 40;
const MARGIN: u32 = 70;
/// Height of the x-axis label area under a panel, width of the y-axis one beside it (px).
const X_AXIS: u32 = 45;
const Y_AXIS: u32 = 60;
const GAP: u32 = 40;
/// Width of the widest panel's plotting area (px).
const PANEL_WIDTH: u32 = 900;
const TITLE_FONT: f64 = 24.0;
const LABEL_FONT: f64 = 17.0;
const TICK_FONT: f64 = 14.0;
/// Room around the sole, as a fraction of its larger side.
const PAD: f64 = 0.15;
const SOLE_FILL: RGBColor = RGBColor(236, 236, 236);
const SOLE_LINE: RGBColor = RGBColor(90, 90, 90);
const COP: RGBColor = RGBColor(31, 119, 180);
const COM: RGBColor = RGBColor(255, 127, 14);

/// The panels at one scale (pixels per metre).
struct Layout<'a> {
    figure: &'a SoleFigure,
    /// Per panel: data ranges `(x0, x1, y0, y1)` and pixel size of its plotting area.
    ranges: Vec<(f64, f64, f64, f64)>,
    sizes: Vec<(u32, u32)>,
    width: u32,
    height: u32,
}

impl<'a> Layout<'a> {
    fn new(figure: &'a SoleFigure) -> Self {
        let ranges: Vec<(f64, f64, f64, f64)> = figure
            .panels
            .iter()
            .map(|p| {
                let s = &p.sole;
                let pad = PAD * (s.x[1] - s.x[0]).max(s.y[1] - s.y[0]);
                let points = p
                    .cop
                    .iter()
                    .chain(&p.com)
                    .filter(|q| q.0.is_finite() && q.1.is_finite());
                let (mut x0, mut x1, mut y0, mut y1) =
                    (s.x[0] - pad, s.x[1] + pad, s.y[0] - pad, s.y[1] + pad);
                for &(x, y) in points {
                    x0 = x0.min(x - 0.2 * pad);
                    x1 = x1.max(x + 0.2 * pad);
                    y0 = y0.min(y - 0.2 * pad);
                    y1 = y1.max(y + 0.2 * pad);
                }
                (x0, x1, y0, y1)
            })
            .collect();
        let widest = ranges.iter().map(|r| r.1 - r.0).fold(1e-9, f64::max);
        let per_metre = f64::from(PANEL_WIDTH) / widest;
        let sizes: Vec<(u32, u32)> = ranges
            .iter()
            .map(|r| {
                (
                    ((r.1 - r.0) * per_metre).round() as u32,
                    ((r.3 - r.2) * per_metre).round() as u32,
                )
            })
            .collect();
        let width = 2 * MARGIN + PANEL_WIDTH;
        let height = TITLE_BAND
            + FOOTER_BAND
            + sizes
                .iter()
                .map(|s| s.1 + CAPTION_BAND + X_AXIS)
                .sum::<u32>()
            + GAP * (sizes.len().max(1) as u32 - 1);
        Self {
            figure,
            ranges,
            sizes,
            width,
            height: height.max(TITLE_BAND + FOOTER_BAND + 100),
        }
    }

    fn draw_panel<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        k: usize,
        top: u32,
        s: Scale,
    ) -> DrawResult<DB> {
        let panel = &self.figure.panels[k];
        let (x0, x1, y0, y1) = self.ranges[k];
        let (w, h) = self.sizes[k];
        let caption = s
            .text(LABEL_FONT, FontStyle::Bold, INK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw_text(
            &panel.name,
            &caption,
            (
                s.px((MARGIN + w / 2) as i32),
                s.px((top + CAPTION_BAND / 2) as i32),
            ),
        )?;
        let area = root.clone().shrink(
            (
                s.px((MARGIN - Y_AXIS) as i32),
                s.px((top + CAPTION_BAND) as i32),
            ),
            (s.upx(w + Y_AXIS), s.upx(h + X_AXIS)),
        );
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(s.upx(X_AXIS))
            .y_label_area_size(s.upx(Y_AXIS))
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc("x in the sole frame [m]")
            .y_desc("y [m]")
            .label_style(s.text(TICK_FONT, FontStyle::Normal, MUTED))
            .axis_desc_style(s.text(TICK_FONT, FontStyle::Normal, INK))
            .light_line_style(RGBColor(245, 245, 245))
            .bold_line_style(RGBColor(225, 225, 225))
            .draw()?;
        let sole = &panel.sole;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(sole.x[0], sole.y[0]), (sole.x[1], sole.y[1])],
            SOLE_FILL.filled(),
        )))?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![
                (sole.x[0], sole.y[0]),
                (sole.x[1], sole.y[0]),
                (sole.x[1], sole.y[1]),
                (sole.x[0], sole.y[1]),
                (sole.x[0], sole.y[0]),
            ],
            SOLE_LINE.stroke_width(s.upx(2)),
        )))?;
        for (path, color) in [(&panel.com, COM), (&panel.cop, COP)] {
            for piece in path.split(|p| !(p.0.is_finite() && p.1.is_finite())) {
                // Segment by segment: plotters joins a wide polyline with mitres, which at the
                // sharp turns of a centre of pressure become long spikes in the bitmap.
                chart.draw_series(
                    piece
                        .windows(2)
                        .map(|w| PathElement::new(w.to_vec(), color.stroke_width(s.upx(2)))),
                )?;
                chart.draw_series(
                    piece
                        .iter()
                        .map(|&p| Circle::new(p, s.px(3), color.filled())),
                )?;
            }
            let finite: Vec<&(f64, f64)> = path
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect();
            if let (Some(&&first), Some(&&last)) = (finite.first(), finite.last()) {
                chart.draw_series(std::iter::once(Circle::new(
                    first,
                    s.px(7),
                    color.stroke_width(s.upx(2)),
                )))?;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [
                        (last.0 - 0.004 * (x1 - x0), last.1 - 0.004 * (x1 - x0)),
                        (last.0 + 0.004 * (x1 - x0), last.1 + 0.004 * (x1 - x0)),
                    ],
                    color.filled(),
                )))?;
            }
        }
        Ok(())
    }
}

impl Figure for Layout<'_> {
    fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, s: Scale) -> DrawResult<DB> {
        root.fill(&WHITE)?;
        let title = s
            .text(TITLE_FONT, FontStyle::Bold, INK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw_text(
            &self.figure.title,
            &title,
            (s.px(self.width as i32 / 2), s.px(TITLE_BAND as i32 / 2 + 2)),
        )?;
        let mut top = TITLE_BAND;
        for k in 0..self.figure.panels.len() {
            self.draw_panel(root, k, top, s)?;
            top += self.sizes[k].1 + CAPTION_BAND + X_AXIS + GAP;
        }
        let key = s
            .text(LABEL_FONT, FontStyle::Normal, MUTED)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let y = s.px((self.height - FOOTER_BAND / 2) as i32);
        let mut x = MARGIN as i32;
        for (color, text) in [
            (SOLE_LINE, "sole"),
            (COP, "centre of pressure"),
            (COM, "centre of mass (projected)"),
        ] {
            root.draw(&PathElement::new(
                vec![(s.px(x), y), (s.px(x + 24), y)],
                color.stroke_width(s.upx(3)),
            ))?;
            root.draw_text(text, &key, (s.px(x + 30), y))?;
            x += 30 + super::plot::text_width(text, LABEL_FONT, FontStyle::Normal) as i32 + 30;
        }
        root.draw_text("○ start  ■ end", &key, (s.px(x), y))?;
        Ok(())
    }
}
