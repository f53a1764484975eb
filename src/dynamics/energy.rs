//! Kinetic energy, gravitational potential energy and centre of mass.

use super::{Workspace, forward_kinematics, forward_velocities};
use crate::model::Model;
use crate::spatial::Vec3;

/// Kinetic energy `K = ½ Σ_i v̄_iᵀ M̄_i v̄_i` (Eq. K.7).
///
/// # Panics
/// If `q` or `v` do not have length `model.dof()`.
pub fn kinetic_energy(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64]) -> f64 {
    forward_kinematics(model, ws, q);
    forward_velocities(model, ws, v);
    (0..model.dof())
        .map(|i| 0.5 * ws.v_bar[i].dot(&(ws.m_bar[i] * ws.v_bar[i])))
        .sum()
}

/// Gravitational potential energy `V = −Σ_i m_i gᵀ c_i` with `c_i` the world-frame centre of
/// mass of body `i` (Eq. K.51); zero at the world origin.
///
/// # Panics
/// If `q` does not have length `model.dof()`.
pub fn potential_energy(model: &Model, ws: &mut Workspace, q: &[f64]) -> f64 {
    forward_kinematics(model, ws, q);
    let g = model.gravity();
    model
        .joints()
        .iter()
        .enumerate()
        .map(|(i, j)| -j.mass * g.dot(&ws.pose[i].transform_point(&j.com)))
        .sum()
}

/// World-frame centre of mass of the moving bodies (the origin for a massless model).
///
/// # Panics
/// If `q` does not have length `model.dof()`.
pub fn center_of_mass(model: &Model, ws: &mut Workspace, q: &[f64]) -> Vec3 {
    forward_kinematics(model, ws, q);
    let mut first = Vec3::zeros();
    let mut mass = 0.0;
    for (i, j) in model.joints().iter().enumerate() {
        first += j.mass * ws.pose[i].transform_point(&j.com);
        mass += j.mass;
    }
    if mass > 0.0 { first / mass } else { first }
}

/// Potential energy stored in the joint springs, `Σ_i ½ k_i (q_i − q_rest,i)²`.
///
/// # Panics
/// If `q` does not have length `model.dof()`.
pub fn spring_energy(model: &Model, q: &[f64]) -> f64 {
    assert_eq!(q.len(), model.dof());
    model
        .joints()
        .iter()
        .zip(q)
        .filter_map(|(j, &qi)| j.spring.map(|s| 0.5 * s.stiffness * (qi - s.rest).powi(2)))
        .sum()
}
