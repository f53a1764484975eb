//! `costs.velocity`: `∫ Σ_i w_i q̇_i² dt`, one weight per joint (one number for all, a list, or
//! a map by joint name); the term is `diagonal_quadratic.rs`'s.

use super::diagonal_quadratic::{DiagonalQuadratic, Of};
use super::{Entry, TermKind, TermSpec};
use crate::schema::ProblemError;
use serde_yaml_ng::Value;
use std::sync::Arc;

pub(super) const KIND: TermKind = TermKind {
    key: "velocity",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let joints: Vec<usize> = (0..entry.fields.model.dof()).collect();
    Ok(Arc::new(DiagonalQuadratic {
        of: Of::Velocity,
        weights: entry.fields.weights(field, value, &joints)?,
    }))
}
