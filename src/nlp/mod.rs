//! The nonlinear program as vito's solvers see it, and what they share: the [`Nlp`] interface
//! (sizes, bounds, sparse derivatives, complementarity pairs), the validated and counted
//! problem with its complementarity product rows (`problem.rs`, `complementarity.rs`), the
//! optimality measures (`residuals.rs`) and when a solve ends (`termination.rs`), the loop both
//! methods run behind one trait (`iteration.rs`) and their Hessians' curvature scale
//! (`curvature_scale.rs`), the filter of the line searches (`filter.rs`), the
//! settings of both methods (`settings.rs`, `interior_settings.rs`), and the results and
//! iteration reports (`outcome.rs`, `report.rs`).
//!
//! The methods are the interior-point method (`crate::interior`) and the SQP (`crate::sqp`),
//! whose [`Solver`](crate::optimizer::Solver) runs either.

pub(crate) mod complementarity;
pub(crate) mod curvature_scale;
mod error;
pub(crate) mod filter;
mod interior_settings;
pub(crate) mod iteration;
pub(crate) mod outcome;
pub(crate) mod problem;
mod program;
pub(crate) mod report;
pub(crate) mod residuals;
pub(crate) mod settings;
pub(crate) mod termination;

pub use error::SolverError;
pub use interior_settings::InteriorSettings;
pub use outcome::{EvaluationCounts, IterationRecord, Residuals, SolverResult, Status, Timing};
pub use program::{Complementarity, ComplementarityTerm, EvalError, Nlp, SmoothingPath};
pub use report::{LogObserver, Observer, SilentObserver};
pub use settings::{HessianStrategy, Method, QpBackend, Settings, Tuning};
