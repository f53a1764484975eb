//! Writing results: CSV tables, solve and simulation reports, plots, stick-figure filmstrips,
//! contact schedules, the 3-D viewer page and the side-view animation (and reading a result directory back for
//! them). Every file is written to a temporary name and renamed into place.

mod animation;
mod atomic;
mod balance_report;
mod figures;
mod filmstrip;
mod gait;
mod meshes;
mod plot;
mod recorded;
mod result_dir;
mod scene;
mod shapes;
mod simulation_report;
mod skeleton;
mod sole;
mod solve_report;
mod sweep_figure;
mod table;
mod trajectory;
mod viewer;
mod views;

pub use atomic::write_atomic;
pub use balance_report::write_balance;
pub use figures::{write_simulation_figures, write_solve_figures};
pub use filmstrip::{FilmstripOptions, write_filmstrip};
pub use gait::{ContactSchedule, write_contact_schedule};
pub use plot::{Formats, LinePlot, Series, write_line_plot, write_panels};
pub use recorded::{ContactRecord, RobotRecord, TargetKind, TargetRecord};
pub use result_dir::{RecordedReport, read_motion, read_report};
pub use scene::Motion;
pub use simulation_report::{SimulationReport, write_simulation_report};
pub use sole::{SoleFigure, SolePanel, write_sole_figure};
pub use solve_report::{Report, StanceReport, sampled_rows, trajectory_header, write_solve_report};
pub use sweep_figure::{SweepPoint, write_sweep_figure};
pub use table::write_csv;
pub use trajectory::{simulation_table, write_simulation_csv};
pub use views::{ViewOptions, write_views};

use std::path::PathBuf;

/// A result file that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// An I/O failure.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A plot or picture could not be drawn.
    #[error("{path}: cannot draw: {message}")]
    Draw {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A CSV file could not be written.
    #[error("{path}: {message}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A result file could not be read back (missing, malformed, or not of this robot).
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The robot of a result could not be loaded (the message names its file).
    #[error("{0}")]
    Robot(String),
}
