//! Solver settings, with defaults, validation and (de)serialization.

use serde::{Deserialize, Serialize};

use super::error::SqpError;

/// The QP solver used for the subproblems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QpBackend {
    /// Clarabel's interior-point method (always available).
    #[default]
    Clarabel,
    /// OSQP's ADMM with solution polishing (needs the cargo feature `osqp`).
    Osqp,
}

/// How the Hessian of the Lagrangian is modelled in the QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HessianStrategy {
    /// The problem's exact Hessian, shifted by `δI` until it is positive definite.
    #[default]
    Exact,
    /// Damped block BFGS on the blocks of [`Nlp::variable_groups`](crate::sqp::Nlp::variable_groups);
    /// without groups one dense block when `n <= dense_quasi_newton_limit`, else a diagonal model.
    Bfgs,
}

/// Settings of the SQP solver. Every field has a default, so a YAML or JSON document may set
/// any subset of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// QP backend for the subproblems.
    pub qp: QpBackend,
    /// Hessian model.
    pub hessian: HessianStrategy,
    /// Tolerance on the scaled dual infeasibility and the scaled complementarity.
    pub tolerance: f64,
    /// Tolerance on the largest absolute constraint violation.
    pub constraint_tolerance: f64,
    /// Tolerance on the largest `|min(a, b)|` over the complementarity pairs.
    pub complementarity_tolerance: f64,
    /// Looser tolerance on the dual infeasibility and complementarity for `Acceptable`.
    pub acceptable_tolerance: f64,
    /// Looser tolerance on the constraint violation (and pair violation) for `Acceptable`.
    pub acceptable_constraint_tolerance: f64,
    /// Consecutive iterates within the acceptable tolerances that end the solve as `Acceptable`.
    pub acceptable_iterations: usize,
    /// Maximum number of SQP iterations.
    pub max_iterations: usize,
    /// Wall-time limit in seconds; `None` for no limit.
    pub time_limit_s: Option<f64>,
    /// What the log sink given to the solver receives: 0 nothing, 1 the final summary, 2 also
    /// one line per iteration.
    pub print_level: u8,
    /// Draw a progress bar on stderr while solving (only when stderr is a terminal and
    /// `print_level > 0`).
    pub progress_bar: bool,
    /// Absolute and relative tolerance handed to the QP backend.
    pub qp_tolerance: f64,
    /// Iteration limit of one QP solve.
    pub qp_max_iterations: usize,
    /// Largest `n` for which BFGS without variable groups keeps one dense block.
    pub dense_quasi_newton_limit: usize,
    /// Try a second-order correction when the full step is rejected (Maratos effect).
    pub second_order_correction: bool,
    /// Initial relaxation `ε` of the complementarity products `a·b <= ε`.
    pub relaxation_initial: f64,
    /// Factor by which `ε` shrinks each time a relaxed problem is solved, in `(0, 1)`.
    pub relaxation_decrease: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            qp: QpBackend::Clarabel,
            hessian: HessianStrategy::Exact,
            tolerance: 1e-6,
            constraint_tolerance: 1e-6,
            complementarity_tolerance: 1e-6,
            acceptable_tolerance: 1e-4,
            acceptable_constraint_tolerance: 1e-4,
            acceptable_iterations: 15,
            max_iterations: 500,
            time_limit_s: None,
            print_level: 2,
            progress_bar: true,
            qp_tolerance: 1e-9,
            qp_max_iterations: 100_000,
            dense_quasi_newton_limit: 200,
            second_order_correction: true,
            relaxation_initial: 0.1,
            relaxation_decrease: 0.1,
        }
    }
}

impl Settings {
    /// Checks every field and names the first one that is out of its domain. Also rejects the
    /// OSQP backend when the crate was built without the `osqp` feature.
    pub fn validate(&self) -> Result<(), SqpError> {
        positive("tolerance", self.tolerance)?;
        positive("constraint_tolerance", self.constraint_tolerance)?;
        positive("complementarity_tolerance", self.complementarity_tolerance)?;
        positive("acceptable_tolerance", self.acceptable_tolerance)?;
        positive(
            "acceptable_constraint_tolerance",
            self.acceptable_constraint_tolerance,
        )?;
        if self.acceptable_tolerance < self.tolerance {
            return Err(invalid(
                "acceptable_tolerance",
                self.acceptable_tolerance,
                "must not be tighter than `tolerance`",
            ));
        }
        if self.acceptable_constraint_tolerance < self.constraint_tolerance {
            return Err(invalid(
                "acceptable_constraint_tolerance",
                self.acceptable_constraint_tolerance,
                "must not be tighter than `constraint_tolerance`",
            ));
        }
        nonzero("acceptable_iterations", self.acceptable_iterations)?;
        nonzero("max_iterations", self.max_iterations)?;
        if let Some(limit) = self.time_limit_s
            && (limit.is_nan() || limit <= 0.0)
        {
            return Err(invalid(
                "time_limit_s",
                limit,
                "must be positive (leave it out for no limit)",
            ));
        }
        positive("qp_tolerance", self.qp_tolerance)?;
        nonzero("qp_max_iterations", self.qp_max_iterations)?;
        positive("relaxation_initial", self.relaxation_initial)?;
        if !(self.relaxation_decrease > 0.0 && self.relaxation_decrease < 1.0) {
            return Err(invalid(
                "relaxation_decrease",
                self.relaxation_decrease,
                "must lie strictly between 0 and 1",
            ));
        }
        if self.qp == QpBackend::Osqp && !cfg!(feature = "osqp") {
            return Err(SqpError::BackendUnavailable("osqp"));
        }
        Ok(())
    }
}

fn invalid(field: &'static str, value: impl std::fmt::Display, reason: &'static str) -> SqpError {
    SqpError::InvalidSetting {
        field,
        value: value.to_string(),
        reason,
    }
}

fn positive(field: &'static str, value: f64) -> Result<(), SqpError> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(invalid(field, value, "must be positive and finite"))
    }
}

fn nonzero(field: &'static str, value: usize) -> Result<(), SqpError> {
    if value > 0 {
        Ok(())
    } else {
        Err(invalid(field, value, "must be at least 1"))
    }
}
