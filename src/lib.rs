//! vito — trajectory optimization for robots with higher-order variational integrators.
//!
//! vito turns a URDF robot and a YAML motion problem into an optimized trajectory that obeys the
//! robot's dynamics exactly as a Galerkin variational integrator (Simpson, 4th order, by default)
//! sees them. The layers, lowest first:
//!
//! - [`settings_check`]: how every settings struct checks its fields, naming the first one out
//!   of its domain by its path.
//! - [`spatial`]: SE(3), twists, wrenches, `Ad`, `ad`, `ad^D` in the notation of the core paper.
//! - [`model`]: the immutable robot tree (1-DoF joints, inertias, limits, springs, contact points
//!   and frames) and its URDF import.
//! - [`dynamics`]: reference rigid-body algorithms (kinematics, RNEA and its derivatives, CRBA,
//!   ABA, energy, Jacobians, generalized momentum, an RK4 reference integrator), each a function
//!   of `(&Model, &mut Workspace, inputs)`.
//! - [`contact`]: contact geometry — the terrain's signed distance with its derivatives, contact
//!   frames and friction-cone directions.
//! - [`vi`]: the Galerkin variational integrator — coefficients, O(n) DEL evaluation, O(n)
//!   Newton direction (also with holonomic constraints), O(n²) linearization, simulation.
//! - [`collocation`]: the Hermite–Simpson collocation baseline (implicit form): its
//!   inverse-dynamics and defect rows with exact sparse Jacobians, evaluated in parallel.
//! - [`qp`]: QP solvers: the working-set solver on the KKT system (primal-dual and primal
//!   active set with inertia control on one sparse `LDLᵀ`), and the Clarabel and OSQP backends.
//! - [`nlp`]: what both NLP methods share: the `Nlp` interface, settings, results, reports.
//! - [`interior`]: the primal-dual interior-point method.
//! - [`sqp`]: a sparse SQP method (exact or block-BFGS Hessians, warm-started working-set QPs,
//!   filter line search with restoration, elastic mode, complementarity constraints).
//! - [`optimizer`]: the entry point [`optimizer::Solver`] that runs either method, its
//!   fallback, and solving along a smoothing path.
//! - `schema`: reading problem files — the error that names the file, field and value, and
//!   the validators of fields.
//! - `terms`: the costs and constraints a problem lists, each kind with its schema, its
//!   validation and its evaluation at a point, and the interface the transcriptions evaluate
//!   them through.
//! - [`problem`]: the YAML files of motion problems and simulations, validated.
//! - [`transcription`]: motion problems as NLPs (Simpson VI or Hermite–Simpson), solving them,
//!   their solutions and dynamic accuracy.
//! - [`output`]: CSV files, reports, plots and filmstrips, written atomically.
//! - [`commands`]: what `vito solve`, `vito compare` and `vito simulate` do between loading their
//!   file and choosing an exit code, shared by the binary and the Python bindings (`python/`).
//! - [`bench`](mod@bench): the workloads of `vito bench` and the criterion benches.
//!
//! Lower layers never import upper ones.
//!
//! # Errors
//!
//! Each layer has its own `thiserror` enum naming the file, field and value that was wrong; the
//! enums are joined with `#[from]` where one layer calls another, and only the binary uses
//! `anyhow`. A solver that does not converge reports a status, not an `Err`. User input (URDF,
//! YAML, JSON, CSV, command-line values) never panics; internal misuse between vito's own modules
//! (mismatched dimensions) may panic, and such functions list it under `# Panics`.

pub mod bench;
pub mod collocation;
pub mod commands;
pub mod contact;
pub mod dynamics;
pub mod interior;
pub mod model;
pub mod nlp;
pub mod optimizer;
pub mod output;
pub mod problem;
pub mod qp;
pub(crate) mod schema;
pub mod settings_check;
pub mod spatial;
pub mod sqp;
pub(crate) mod terms;
pub mod transcription;
pub mod vi;
