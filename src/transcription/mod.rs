//! Where robots meet optimization: a [`TrajectoryProblem`](crate::problem::TrajectoryProblem)
//! becomes a sparse [`Nlp`](crate::sqp::Nlp) — the Galerkin variational-integrator
//! transcription ([`VariationalNlp`]) or the Hermite–Simpson collocation baseline.

mod common;
mod guess;
mod variational;

pub use common::Points;
pub use guess::initial_trajectory;
pub use variational::VariationalNlp;
