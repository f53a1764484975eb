//! Errors for input the solver cannot work with: bad settings or an inconsistent problem.
//!
//! A problem that is well posed but does not solve is not an error: it ends with a
//! [`Status`](crate::nlp::Status).

use crate::settings_check::InvalidSetting;

/// Invalid settings, or a problem whose reported sizes, bounds or structures do not fit
/// together.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolverError {
    /// A setting has a value outside its domain.
    #[error("invalid setting `{field}` = {value}: {reason}")]
    InvalidSetting {
        /// The path of the field in [`Settings`](crate::nlp::Settings) (`tuning.NAME`,
        /// `tuning.interior.NAME` for the constants).
        field: String,
        /// The rejected value, formatted.
        value: String,
        /// What the field requires.
        reason: &'static str,
    },
    /// The selected QP backend was not compiled into this build.
    #[error("the QP backend `{0}` is not available: rebuild vito with `--features {0}`")]
    BackendUnavailable(&'static str),
    /// The problem reports inconsistent data (sizes, bounds, structures, pairs).
    #[error("invalid problem: {0}")]
    InvalidProblem(String),
}

impl From<InvalidSetting> for SolverError {
    fn from(e: InvalidSetting) -> Self {
        Self::InvalidSetting {
            field: e.field,
            value: e.value,
            reason: e.reason,
        }
    }
}
