//! `costs.friction_work: w`: `w ∫ Σ_l P_l dt`, the energy (J) that friction dissipates at the
//! contact points, `P_l = σ ψ_l Σ_j b_lj ≥ 0` with the sliding speed `ψ_l` and the friction
//! forces `b_lj` of `contact/conditions.rs` (`σ` the force scale). At a sticking point `ψ = 0`,
//! in the air `b = 0`, and at a sliding one `Σ_j b_j = μ c`, so the cost charges exactly the
//! work a sliding foot loses to the ground.
//!
//! Why: without it sliding a loaded foot costs nothing but the torque that pushes it, and
//! contact-implicit walks shuffle (`docs/benchmarks.md`, "Quadrupeds that trot"). The contact
//! term owns `ψ` and `b`, so it evaluates this cost; the kind only reads and checks the weight.

use super::{Entry, Layout, PointTerm, TermKind, TermSpec};
use crate::schema::ProblemError;
use serde_yaml_ng::Value;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct FrictionWork {
    /// Weight `w` (per joule).
    weight: f64,
}

pub(super) const KIND: TermKind = TermKind {
    key: "friction_work",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let fields = entry.fields;
    let weight = fields.nonnegative(field, fields.number(field, value)?)?;
    if entry.terrain.is_none() {
        return Err(fields.invalid(field, "needs a terrain: friction works at contact points"));
    }
    Ok(Arc::new(FrictionWork { weight }))
}

impl TermSpec for FrictionWork {
    fn key(&self) -> &'static str {
        KIND.key
    }

    /// None of its own: the contact term charges it.
    fn build(&self, _on: &Layout) -> Vec<Box<dyn PointTerm>> {
        Vec::new()
    }

    fn holds_at_start(&self) -> bool {
        false
    }

    fn friction_work(&self) -> f64 {
        self.weight
    }
}
