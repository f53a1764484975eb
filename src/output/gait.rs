//! The contact schedule of a motion (its gait): one row per contact point, a bar wherever the
//! point touches the terrain, over time; written as SVG and PNG.

use super::OutputError;
use super::plot::{
    DrawResult, Figure, Formats, INK, MUTED, Scale, text_width, with_suffix, write_figure,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// Which contact points touch when: `touching[k][l]` at `times[k]` for point `names[l]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactSchedule {
    /// Title above the diagram.
    pub title: String,
    /// Contact point names (rows).
    pub names: Vec<String>,
    /// Sample times, increasing.
    pub times: Vec<f64>,
    /// Whether each point touches at each time.
    pub touching: Vec<Vec<bool>>,
}

const WIDTH: u32 = 1200;
const ROW: u32 = 34;
const TOP: u32 = 56;
const BOTTOM: u32 = 48;
const RIGHT: u32 = 24;
const TITLE_FONT: f64 = 22.0;
const LABEL_FONT: f64 = 15.0;
const BAR: RGBColor = RGBColor(31, 119, 180);
const LANE: RGBColor = RGBColor(242, 242, 242);
const TICK: RGBColor = RGBColor(200, 200, 200);

/// Writes the diagram to `<stem>.svg` and with `formats.raster` `<stem>.png`; returns the files
/// written. A contact interval spans from the
/// midpoint before its first touching sample to the midpoint after its last.
///
/// # Errors
/// [`OutputError::Io`] if a file cannot be written, [`OutputError::Draw`] if drawing fails or
/// a row of `touching` does not have one entry per point.
pub fn write_contact_schedule(
    stem: &Path,
    schedule: &ContactSchedule,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    if let Some(k) = schedule
        .touching
        .iter()
        .position(|row| row.len() != schedule.names.len())
    {
        return Err(OutputError::Draw {
            path: with_suffix(stem, "svg"),
            message: format!(
                "sample {k} has {} contact flags for {} contact points",
                schedule.touching[k].len(),
                schedule.names.len()
            ),
        });
    }
    write_figure(stem, formats, || Gait::new(schedule.clone()))
}

struct Gait {
    s: ContactSchedule,
    left: u32,
    height: u32,
}

impl Gait {
    fn new(s: ContactSchedule) -> Self {
        let label = s
            .names
            .iter()
            .map(|n| text_width(n, LABEL_FONT, FontStyle::Normal))
            .max()
            .unwrap_or(0);
        let height = TOP + ROW * s.names.len().max(1) as u32 + BOTTOM;
        Self {
            s,
            left: label + 28,
            height,
        }
    }

    /// The `[start, end)` time intervals during which point `l` touches.
    fn intervals(&self, l: usize) -> Vec<(f64, f64)> {
        let t = &self.s.times;
        let n = t.len();
        let edge = |k: usize, after: bool| -> f64 {
            if after {
                if k + 1 < n {
                    0.5 * (t[k] + t[k + 1])
                } else {
                    t[k]
                }
            } else if k > 0 {
                0.5 * (t[k - 1] + t[k])
            } else {
                t[k]
            }
        };
        let mut out = Vec::new();
        let mut start = None;
        for k in 0..n {
            match (self.s.touching[k][l], start) {
                (true, None) => start = Some(edge(k, false)),
                (false, Some(a)) => {
                    out.push((a, edge(k - 1, true)));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(a) = start {
            out.push((a, edge(n - 1, true)));
        }
        out
    }
}

impl Figure for Gait {
    fn size(&self) -> (u32, u32) {
        (WIDTH, self.height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, s: Scale) -> DrawResult<DB> {
        root.fill(&WHITE)?;
        let title = s
            .text(TITLE_FONT, FontStyle::Bold, INK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw_text(&self.s.title, &title, (s.px(WIDTH as i32 / 2), s.px(28)))?;
        let (t0, t1) = (
            self.s.times.first().copied().unwrap_or(0.0),
            self.s.times.last().copied().unwrap_or(1.0),
        );
        let span = (t1 - t0).max(1e-12);
        let plot_w = WIDTH - self.left - RIGHT;
        let x = |t: f64| s.px((f64::from(self.left) + (t - t0) / span * f64::from(plot_w)) as i32);
        let label = s
            .text(LABEL_FONT, FontStyle::Normal, INK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let rows = self.s.names.len() as u32;
        for (l, name) in self.s.names.iter().enumerate() {
            let top = TOP + ROW * l as u32;
            let mid = s.px((top + ROW / 2) as i32);
            root.draw(&Rectangle::new(
                [
                    (x(t0), s.px(top as i32 + 4)),
                    (x(t1), s.px((top + ROW) as i32 - 4)),
                ],
                LANE.filled(),
            ))?;
            root.draw_text(name, &label, (s.px(self.left as i32 - 10), mid))?;
            for (a, b) in self.intervals(l) {
                root.draw(&Rectangle::new(
                    [
                        (x(a), s.px(top as i32 + 6)),
                        (x(b), s.px((top + ROW) as i32 - 6)),
                    ],
                    BAR.filled(),
                ))?;
            }
        }
        // Time ticks.
        let step = tick_step(span);
        let tick_style = s
            .text(LABEL_FONT, FontStyle::Normal, MUTED)
            .pos(Pos::new(HPos::Center, VPos::Top));
        let bottom = TOP + ROW * rows;
        let mut k = (t0 / step).ceil() as i64;
        while (k as f64) * step <= t1 + 1e-9 * span {
            let t = k as f64 * step;
            root.draw(&PathElement::new(
                vec![(x(t), s.px(TOP as i32)), (x(t), s.px(bottom as i32 + 4))],
                TICK.stroke_width(s.upx(1)),
            ))?;
            root.draw_text(
                &format!("{t:.2}"),
                &tick_style,
                (x(t), s.px(bottom as i32 + 8)),
            )?;
            k += 1;
        }
        let axis = s
            .text(LABEL_FONT, FontStyle::Normal, MUTED)
            .pos(Pos::new(HPos::Right, VPos::Top));
        root.draw_text("t [s]", &axis, (x(t1), s.px(bottom as i32 + 26)))
    }
}

/// A 1-2-5 tick spacing giving about ten ticks over `span`.
fn tick_step(span: f64) -> f64 {
    let raw = span / 10.0;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&v| v >= raw)
        .unwrap_or(10.0 * p)
}
