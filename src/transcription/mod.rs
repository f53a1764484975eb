//! Where robots meet optimization: a [`TrajectoryProblem`](crate::problem::TrajectoryProblem)
//! becomes a sparse [`Nlp`](crate::nlp::Nlp) — the Galerkin variational-integrator
//! transcription ([`VariationalNlp`]) or the Hermite–Simpson collocation baseline.

mod accuracy;
mod collocation;
mod common;
mod contact;
mod continuation;
mod energy;
mod guess;
mod held_acceleration;
mod knot_impulse;
mod knot_interpolant;
mod loads;
mod solution;
mod solve;
mod stance;
mod statics;
mod terms;
mod variational;

pub use accuracy::{Accuracy, RESIMULATION_STEP, dynamic_accuracy};
pub use collocation::CollocationNlp;
pub use common::Points;
pub(crate) use common::central_difference;
pub use contact::{ContactResiduals, ContactTrajectory, deepest_sampled_penetration};
pub use continuation::ContinuationStep;
pub use energy::{EnergyAccount, energy_account};
pub use guess::initial_trajectory;
pub use solution::{Interpolant, SAMPLES_PER_STAGE, Solution};
pub use solve::{NlpSize, Outcome, SolveError, solve};
pub use stance::{StanceResiduals, StanceTrack, StanceTrajectory};
pub use statics::{Balance, StaticNlp, at_start, balance};
pub use variational::VariationalNlp;
