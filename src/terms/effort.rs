//! `costs.effort`: `∫ Σ_c w_c u_c² dt`, one weight per actuated joint (one number for all, a
//! list, or a map by joint name). A mimic follower's input is the coupling's constraint force,
//! not a motor: it costs nothing.

use super::diagonal_quadratic::{DiagonalQuadratic, Of};
use super::{Entry, Layout, PointTerm, TermKind, TermSpec};
use crate::schema::ProblemError;
use serde_yaml_ng::Value;
use std::sync::Arc;

pub(super) const KIND: TermKind = TermKind {
    key: "effort",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    Ok(Arc::new(read(value, entry, field)?))
}

fn read(value: &Value, entry: &Entry, field: &str) -> Result<DiagonalQuadratic, ProblemError> {
    let model = entry.fields.model;
    let actuated = model.actuated_joints();
    let mut weights = entry.fields.weights(field, value, &actuated)?;
    for c in model.couplings() {
        if let Some(k) = actuated.iter().position(|&i| i == c.follower) {
            weights[k] = 0.0;
        }
    }
    Ok(DiagonalQuadratic {
        of: Of::Torques,
        weights,
    })
}

impl TermSpec for DiagonalQuadratic {
    fn key(&self) -> &'static str {
        match self.of {
            Of::Torques => KIND.key,
            Of::Velocity => super::velocity::KIND.key,
        }
    }

    fn build(&self, _on: &Layout) -> Vec<Box<dyn PointTerm>> {
        self.terms()
    }

    fn holds_at_start(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BaseKind, parse_urdf};
    use crate::terms::tests::entry_of;

    /// Two hinges, the second a mimic of the first; both driven.
    const MIMIC: &str = r#"<robot name="g"><link name="base"/>
        <link name="a"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
        <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/></joint>
        <link name="b"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
        <joint name="j2" type="revolute"><parent link="base"/><child link="b"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/><mimic joint="j1" multiplier="0.5" offset="0.2"/></joint>
        </robot>"#;

    #[test]
    fn one_weight_for_every_motor_and_none_for_a_mimic_follower() {
        let model = parse_urdf(MIMIC, "mimic.urdf", BaseKind::Fixed).unwrap();
        assert_eq!(model.actuated_joints(), [0, 1]);
        let effort = entry_of(&model, None, |entry| read(&Value::from(2.0), entry, "c")).unwrap();
        assert_eq!(effort.weights, [2.0, 0.0]);
        let err = entry_of(&model, None, |entry| read(&Value::from(-1.0), entry, "c"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("non-negative"), "{err}");
    }
}
