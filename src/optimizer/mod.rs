//! The solve driver above both NLP methods: [`Solver`], the method's choice and the fallback
//! from the interior-point method to the SQP (`solver.rs`), and solving along the smoothing
//! path of a problem's complementarity rows (`smoothing.rs`). `crate::interior` and
//! `crate::sqp` know nothing of each other; this module runs them.

mod smoothing;
mod solver;

pub use solver::{QpSolverFactory, Solver};
