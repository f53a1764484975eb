//! Writing results: CSV tables, solve reports, plots, contact schedules and stick-figure
//! filmstrips. Every file is
//! written to a temporary name and renamed into place.

mod atomic;
mod balance_report;
mod figures;
mod filmstrip;
mod gait;
mod plot;
mod sole;
mod solve_report;
mod table;
mod trajectory;

pub use atomic::write_atomic;
pub use balance_report::write_balance;
pub use figures::{write_simulation_figures, write_solve_figures};
pub use filmstrip::{FilmstripOptions, write_filmstrip};
pub use gait::{ContactSchedule, write_contact_schedule};
pub use plot::{LinePlot, Series, write_line_plot, write_panels};
pub use sole::{SoleFigure, SolePanel, write_sole_figure};
pub use solve_report::{
    Report, SAMPLES_PER_STAGE, StanceReport, fine_grid, sampled_rows, write_solve_report,
};
pub use table::write_csv;
pub use trajectory::write_simulation_csv;

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
}
