//! The energy account of an optimized trajectory: the work of every force over the horizon
//! against the change of the robot's energy.
//!
//! Each power is integrated by the transcription's own quadrature on its points (the VI's
//! Lobatto weights, Simpson's rule for Hermite–Simpson) with the velocities the solution reports
//! there (`Solution::v`: at a VI knot the discrete Legendre transform's):
//!
//! ```text
//! W_u      = Σ_p w_p Σ_drives factor · u_p · q̇_p,joint           actuators (its positive and
//!                                                                   negative parts apart)
//! W_spring = Σ_p w_p Σ_i −k_i (q_i − q_rest,i) q̇_i                joint springs
//! W_damper = Σ_p w_p Σ_i −d_i q̇_i²                                joint dampers
//! W_n, W_t = Σ_p w_p Σ_l f_l·n̂ (n̂·ṗ_l), f_t·ṗ_t                  the ground's normal and
//!                                                                   friction forces
//! ```
//!
//! with `ṗ_l = J_l(q_p) q̇_p` the contact point's velocity and `n̂` the terrain's normal under
//! it. The balance `ΔK + ΔV = W_u + W_spring + W_damper + W_n + W_t + residual` (`K` kinetic,
//! `V` gravitational potential energy) has a residual of the integrator's and the quadrature's
//! accuracy. A passive rigid ground only takes energy away: the positive part of its work,
//! `Σ_p w_p Σ_l max(f_l·ṗ_l, 0)` (point by point, as an external check measures it), is what
//! [`super::solve`] holds to a tolerance. A held stance sole does not move, so its wrench does no
//! work.

use super::Solution;
use crate::contact::ContactFrame;
use crate::dynamics::{
    Workspace, forward_kinematics, kinetic_energy, point_jacobian, potential_energy,
};
use crate::model::Model;
use crate::spatial::Vec3;
use nalgebra::DMatrix;
use serde::Serialize;

/// The work of each force and the change of energy over the horizon (J).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct EnergyAccount {
    /// Work of the actuators where they put energy in.
    pub actuator_positive_work: f64,
    /// Work of the actuators where they take energy out (≤ 0).
    pub actuator_negative_work: f64,
    /// Work of the joint springs.
    pub spring_work: f64,
    /// Work of the joint dampers (≤ 0).
    pub damper_work: f64,
    /// Work of the ground's normal forces.
    pub ground_normal_work: f64,
    /// Work of the ground's friction forces.
    pub ground_friction_work: f64,
    /// The ground's positive work: its power summed where it is positive, point by point and
    /// contact point by contact point (0 for a passive ground).
    pub ground_positive_work: f64,
    /// Change of kinetic energy.
    pub kinetic_change: f64,
    /// Change of gravitational potential energy.
    pub potential_change: f64,
    /// `ΔK + ΔV` minus the work of every force.
    pub residual: f64,
}

impl EnergyAccount {
    /// The work of all forces.
    pub fn total_work(&self) -> f64 {
        self.actuator_positive_work
            + self.actuator_negative_work
            + self.spring_work
            + self.damper_work
            + self.ground_normal_work
            + self.ground_friction_work
    }

    /// The ground's positive work as a fraction of the actuators' positive work; `None` when
    /// the actuators did none (a passive robot).
    pub fn ground_share(&self) -> Option<f64> {
        (self.actuator_positive_work > 0.0)
            .then(|| self.ground_positive_work / self.actuator_positive_work)
    }

    /// [`EnergyAccount::ground_share`] for a log: "0.004 of the actuators'", or that they did no
    /// positive work.
    pub fn ground_share_text(&self) -> String {
        match self.ground_share() {
            Some(share) => format!("{share:.3} of the actuators'"),
            None => "the actuators did no positive work".into(),
        }
    }
}

/// The energy account of `sol` on `model` (see the module documentation).
///
/// # Panics
/// If the solution's points do not match the model.
pub fn energy_account(model: &Model, sol: &Solution) -> EnergyAccount {
    let n = model.dof();
    let drives = model.drives();
    let mut ws = Workspace::new(model);
    let mut jacobian = DMatrix::zeros(3, n);
    let mut acc = EnergyAccount::default();
    let sites = sol
        .contact
        .as_ref()
        .map_or_else(Vec::new, |c| c.sites(model));
    for (p, w) in sol.weights.iter().enumerate() {
        let (q, v, u) = (&sol.q[p], &sol.v[p], &sol.u[p]);
        let actuator: f64 = drives
            .iter()
            .map(|d| d.factor * u[d.column] * v[d.joint])
            .sum();
        if actuator > 0.0 {
            acc.actuator_positive_work += w * actuator;
        } else {
            acc.actuator_negative_work += w * actuator;
        }
        for (i, joint) in model.joints().iter().enumerate() {
            if let Some(s) = joint.spring {
                acc.spring_work -= w * s.stiffness * (q[i] - s.rest) * v[i];
            }
            acc.damper_work -= w * joint.damping * v[i] * v[i];
        }
        let Some(contact) = &sol.contact else {
            continue;
        };
        forward_kinematics(model, &mut ws, q);
        for (l, &(body, offset)) in sites.iter().enumerate() {
            point_jacobian(model, &ws, body, &offset, &mut jacobian);
            let velocity: Vec3 = (0..n)
                .map(|j| Vec3::new(jacobian[(0, j)], jacobian[(1, j)], jacobian[(2, j)]) * v[j])
                .sum();
            let force = contact.forces[p][l];
            let normal =
                ContactFrame::new(&contact.terrain.distance(&contact.positions[p][l])).normal;
            let (f_n, v_n) = (force.dot(&normal), velocity.dot(&normal));
            let power = force.dot(&velocity);
            acc.ground_normal_work += w * f_n * v_n;
            acc.ground_friction_work += w * (power - f_n * v_n);
            acc.ground_positive_work += w * power.max(0.0);
        }
    }
    let last = sol.q.len() - 1;
    acc.kinetic_change = kinetic_energy(model, &mut ws, &sol.q[last], &sol.v[last])
        - kinetic_energy(model, &mut ws, &sol.q[0], &sol.v[0]);
    acc.potential_change = potential_energy(model, &mut ws, &sol.q[last])
        - potential_energy(model, &mut ws, &sol.q[0]);
    acc.residual = acc.kinetic_change + acc.potential_change - acc.total_work();
    acc
}

#[cfg(test)]
mod tests {
    use super::EnergyAccount;

    #[test]
    fn the_grounds_share_needs_actuator_work() {
        let driven = EnergyAccount {
            actuator_positive_work: 4.0,
            ground_positive_work: 0.5,
            ..EnergyAccount::default()
        };
        assert_eq!(driven.ground_share(), Some(0.125));
        assert_eq!(driven.ground_share_text(), "0.125 of the actuators'");
        // A passive box: no actuator work to compare with (it printed 7e299 before).
        let passive = EnergyAccount {
            ground_positive_work: 1e-3,
            ..EnergyAccount::default()
        };
        assert_eq!(passive.ground_share(), None);
        assert_eq!(
            passive.ground_share_text(),
            "the actuators did no positive work"
        );
    }
}
