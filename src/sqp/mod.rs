//! vito's sparse SQP solver for smooth nonlinear programs with complementarity constraints.
//!
//! (Documentation is completed below.)

mod complementarity;
mod error;
mod hessian;
mod line_search;
mod merit;
mod nlp;
mod outcome;
mod problem;
mod qp;
mod qp_clarabel;
#[cfg(feature = "osqp")]
mod qp_osqp;
mod quasi_newton;
mod report;
mod residuals;
mod settings;
mod solver;
mod sparse;
mod subproblem;

pub use error::SqpError;
pub use nlp::{Complementarity, ComplementarityTerm, EvalError, Nlp};
pub use outcome::{EvaluationCounts, Residuals, SqpResult, Status, Timing};
pub use qp::{QpProblem, QpSolution, QpSolver, QpStatus};
pub use qp_clarabel::ClarabelQp;
#[cfg(feature = "osqp")]
pub use qp_osqp::{OSQP_INFTY, OsqpQp};
pub use report::{IterationRecord, LogObserver, Observer, SilentObserver};
pub use settings::{HessianStrategy, QpBackend, Settings};
pub use solver::Solver;
