//! The nonlinear program as the SQP solver sees it.
//!
//! The problem is
//!
//! ```text
//! minimize    f(x)
//! subject to  c_L <= c(x) <= c_U
//!             x_L <=  x   <= x_U
//!             0 <= a_k(x) ⟂ b_k(x) >= 0     for each declared complementarity pair k
//! ```
//!
//! # Multiplier sign convention
//!
//! The Lagrangian is `L(x, λ, z) = f(x) + λᵀ c(x) + zᵀ x`, so stationarity reads
//! `∇f(x) + J(x)ᵀ λ + z = 0`. A constraint multiplier `λ_i` is positive when row `i` is held at
//! its upper bound `c_U,i`, negative when it is held at its lower bound `c_L,i`, and of either
//! sign for an equality row. The same holds for the bound multipliers `z_j` with `x_U,j` and
//! `x_L,j`. This is IPOPT's convention for `λ` and its `z_U - z_L` for `z`; the Hessian of the
//! Lagrangian requested by [`Nlp::hessian_values`] is `σ ∇²f(x) + Σ_i λ_i ∇²c_i(x)`.

use std::ops::Range;

/// Why the problem could not evaluate one of its functions at a point.
///
/// The solver never panics on an evaluation error: inside the line search it shortens the
/// step, at the starting point it stops with
/// [`Status::EvaluationError`](crate::nlp::Status::EvaluationError).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The function is not defined at this point (domain error, failed simulation, ...).
    #[error("evaluation failed: {0}")]
    Failed(String),
    /// The problem does not implement this callback (for example exact Hessians).
    #[error("the problem does not provide {0}")]
    Unsupported(&'static str),
}

/// One side of a complementarity pair: a variable or a constraint row of the [`Nlp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComplementarityTerm {
    /// The variable `x[j]`.
    Variable(usize),
    /// The constraint row `c_i(x)`.
    Constraint(usize),
}

/// The complementarity condition `0 <= a(x) ⟂ b(x) >= 0`: both sides nonnegative and at
/// least one of them zero.
///
/// Nonnegativity of each side comes from the [`Nlp`]'s own bounds (a variable lower bound or a
/// constraint lower bound of at least zero); the solver adds the coupling `a(x)·b(x) <= ε`
/// itself. See the [module documentation](crate::sqp) for the homotopy on `ε`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Complementarity {
    /// The first side.
    pub a: ComplementarityTerm,
    /// The second side.
    pub b: ComplementarityTerm,
}

/// The range of a smoothing parameter `μ_s` the problem's rows depend on (smoothed
/// complementarity: `a + b − √(a² + b² + 2μ_s²) = 0` holds `a·b = μ_s²`), which the solver
/// drives from `start` down to `end` ([`Nlp::set_smoothing`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmoothingPath {
    /// The first smoothing.
    pub start: f64,
    /// The last smoothing, the one the solution is for.
    pub end: f64,
}

/// A smooth nonlinear program with sparse first and second derivatives.
///
/// Sizes, bounds and sparsity structures are read once at the start of a solve and must not
/// change during it. Structures are lists of `(row, column)` triplets; a triplet that appears
/// more than once has its values summed. The trait is object safe: the solver works on
/// `&mut dyn Nlp`.
pub trait Nlp {
    /// Number of variables `n`.
    fn num_variables(&self) -> usize;

    /// Number of constraint rows `m` (not counting variable bounds).
    fn num_constraints(&self) -> usize;

    /// Writes the variable bounds; `±f64::INFINITY` means unbounded.
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]);

    /// Writes the constraint bounds; a row with `lower == upper` is an equality.
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]);

    /// Writes the starting point. The solver moves it into the variable bounds if needed.
    fn initial_point(&self, x: &mut [f64]);

    /// Objective value `f(x)`.
    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError>;

    /// Objective gradient `∇f(x)`, dense, length `n`.
    fn gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<(), EvalError>;

    /// Constraint values `c(x)`, length `m`.
    fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError>;

    /// The `(row, column)` triplets of the constraint Jacobian `∂c/∂x`.
    fn jacobian_structure(&self) -> Vec<(usize, usize)>;

    /// Jacobian values in the order of [`Nlp::jacobian_structure`].
    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError>;

    /// The lower-triangle (`row >= column`) triplets of the Hessian of the Lagrangian, or
    /// `None` when the problem provides no second derivatives.
    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        None
    }

    /// Values of `obj_factor ∇²f(x) + Σ_i lambda_i ∇²c_i(x)` in the order of
    /// [`Nlp::hessian_structure`].
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        let _ = (x, obj_factor, lambda, values);
        Err(EvalError::Unsupported("hessian_values"))
    }

    /// Disjoint blocks of variables whose Hessian the quasi-Newton strategy may couple; the
    /// cross-block curvature is taken as zero. `None` lets the solver choose (see
    /// [`HessianStrategy::Bfgs`](crate::nlp::HessianStrategy::Bfgs)).
    fn variable_groups(&self) -> Option<Vec<Range<usize>>> {
        None
    }

    /// Complementarity pairs `0 <= a ⟂ b >= 0`.
    fn complementarities(&self) -> Vec<Complementarity> {
        Vec::new()
    }

    /// Sets the smoothing parameter of the problem's rows, whose values and derivatives then
    /// change with it (a problem without one ignores it; see [`SmoothingPath`]).
    fn set_smoothing(&mut self, mu: f64) {
        let _ = mu;
    }
}
