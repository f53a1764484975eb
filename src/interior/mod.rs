//! vito's primal-dual interior-point method for the same nonlinear programs as the SQP
//! (Wächter & Biegler, "On the implementation of an interior-point filter line-search
//! algorithm for large-scale nonlinear programming", Math. Program. 106, 2006).

mod direction;
mod line_search;
mod point;
mod restoration;
mod retreat;
mod solver;

pub use crate::nlp::InteriorSettings;
pub(crate) use solver::InteriorPoint;
