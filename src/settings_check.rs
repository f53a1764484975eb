//! The one way settings structs check their fields: [`Check`] runs the checks of a struct in
//! order and keeps the first failure as an [`InvalidSetting`] naming the field by its path
//! (`tuning.interior.mu_initial`), the value and what the field requires.
//!
//! Every settings struct (`Settings`, `Tuning`, `InteriorSettings`, `ActiveSetSettings`,
//! `InertiaSettings`) has a `validate` that chains these checks over its fields and names a
//! nested struct's failures under the field that holds it ([`Check::nested`]). It lies below
//! every layer so that the QP solvers' settings can use it as the NLP's do.

use std::fmt::Display;

/// A setting out of its domain: the field's path, its value (formatted) and what it requires.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid setting `{field}` = {value}: {reason}")]
pub struct InvalidSetting {
    /// The field's path from the struct validated (`tuning.qp.rounds`).
    pub field: String,
    /// The rejected value, formatted.
    pub value: String,
    /// What the field requires.
    pub reason: &'static str,
}

/// The checks of one settings struct, in order; the first that fails is kept and the later
/// ones are skipped.
#[derive(Debug, Default)]
#[must_use = "a check says nothing until `finish`"]
pub struct Check {
    failure: Option<InvalidSetting>,
}

impl Check {
    /// No check failed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `field` (value `value`) must satisfy `holds`, else it fails with `reason`.
    pub fn require(
        mut self,
        field: &str,
        value: impl Display,
        holds: bool,
        reason: &'static str,
    ) -> Self {
        if self.failure.is_none() && !holds {
            self.failure = Some(InvalidSetting {
                field: field.to_owned(),
                value: value.to_string(),
                reason,
            });
        }
        self
    }

    /// `value > 0` and finite.
    pub fn positive(self, field: &str, value: f64) -> Self {
        let holds = value > 0.0 && value.is_finite();
        self.require(field, value, holds, "must be positive and finite")
    }

    /// `0 < value < 1`: a fraction or a decrease factor.
    pub fn unit(self, field: &str, value: f64) -> Self {
        let holds = value > 0.0 && value < 1.0;
        self.require(field, value, holds, "must lie strictly between 0 and 1")
    }

    /// `value > 1` and finite: a growth factor or an exponent above 1.
    pub fn growth(self, field: &str, value: f64) -> Self {
        let holds = value > 1.0 && value.is_finite();
        self.require(field, value, holds, "must be finite and greater than 1")
    }

    /// `value >= 0` and finite.
    pub fn non_negative(self, field: &str, value: f64) -> Self {
        let holds = value >= 0.0 && value.is_finite();
        self.require(field, value, holds, "must be finite and not negative")
    }

    /// `value >= 1`: a number of iterations, steps or entries.
    pub fn count(self, field: &str, value: usize) -> Self {
        self.require(field, value, value >= 1, "must be at least 1")
    }

    /// The result of a nested struct's `validate`, its failure named under `field`
    /// (`field.NAME`).
    pub fn nested(mut self, field: &str, result: Result<(), InvalidSetting>) -> Self {
        if self.failure.is_none()
            && let Err(mut failure) = result
        {
            failure.field = format!("{field}.{}", failure.field);
            self.failure = Some(failure);
        }
        self
    }

    /// The first failure, if any.
    pub fn finish(self) -> Result<(), InvalidSetting> {
        self.failure.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failure_is_kept_with_its_path() {
        let inner = Check::new()
            .positive("a", 1.0)
            .unit("b", 1.0)
            .count("c", 0)
            .finish();
        let outer = Check::new()
            .growth("d", 2.0)
            .nested("inner", inner)
            .non_negative("e", -1.0)
            .finish();
        assert_eq!(
            outer,
            Err(InvalidSetting {
                field: "inner.b".into(),
                value: "1".into(),
                reason: "must lie strictly between 0 and 1",
            })
        );
        assert_eq!(
            Check::new()
                .non_negative("e", f64::NAN)
                .finish()
                .unwrap_err()
                .to_string(),
            "invalid setting `e` = NaN: must be finite and not negative"
        );
        assert!(
            Check::new()
                .positive("a", 1.0)
                .count("c", 1)
                .finish()
                .is_ok()
        );
    }
}
