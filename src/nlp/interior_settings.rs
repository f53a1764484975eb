//! The constants of the interior-point method, with the defaults it was measured with (IPOPT's
//! where it has one; Wächter & Biegler 2006 name them).

use serde::{Deserialize, Serialize};

use crate::settings_check::{Check, InvalidSetting};

/// The constants of the interior-point method ([`crate::nlp::Tuning::interior`]); the filter's
/// constants are the line search's own ([`crate::nlp::Tuning`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InteriorSettings {
    /// The first barrier parameter `μ₀`.
    pub mu_initial: f64,
    /// The first barrier parameter of a warm start (a starting point the caller marks as the
    /// solution of a neighbouring problem, such as the last smoothing level's).
    pub mu_warm: f64,
    /// `κ_μ`: the linear decrease of `μ`.
    pub mu_linear_decrease: f64,
    /// `θ_μ`: the superlinear decrease `μ^θ_μ`.
    pub mu_superlinear_decrease: f64,
    /// `ρ` of a smoothing driven with the barrier parameter: `μ_s² = ρ μ`
    /// (`Solver::solve_smoothed`).
    pub smoothing_barrier_ratio: f64,
    /// `κ_ε`: a barrier subproblem is solved once its error is below `κ_ε μ`.
    pub barrier_tolerance_factor: f64,
    /// `τ_min`: the least fraction to the boundary.
    pub tau_min: f64,
    /// `κ₁`: how far the starting point is pushed inside a bound, relative to `max(1, |bound|)`.
    pub bound_push: f64,
    /// `κ₂`: the same push relative to the width of a two-sided interval.
    pub bound_fraction: f64,
    /// `κ₁ = κ₂` of a warm start.
    pub warm_push: f64,
    /// The starting bound multipliers.
    pub bound_multiplier_initial: f64,
    /// The least-squares starting multipliers are dropped (set to zero) above this size.
    pub multiplier_initial_max: f64,
    /// `κ_Σ`: how far a bound multiplier may drift from `μ / slack`.
    pub kappa_sigma: f64,
    /// `κ_d`: the damping of variables bounded on one side only.
    pub damping: f64,
    /// The dual regularization `δ_c` of a row, relative to its squared norm over the Hessian's
    /// largest diagonal entry (at least 1).
    pub dual_regularization: f64,
    /// A barrier subproblem whose error has not fallen below `stall_decrease` of its least
    /// value in `stall_iterations` iterations has stalled (`interior/retreat.rs`).
    pub stall_decrease: f64,
    /// See `stall_decrease`.
    pub stall_iterations: usize,
    /// Second-order corrections tried at most per step.
    pub soc_max: usize,
    /// `κ_soc`: a further correction is tried only while the violation falls by this factor.
    pub soc_kappa: f64,
    /// The least Levenberg–Marquardt regularization of the restoration phase.
    pub restoration_regularization: f64,
    /// The restoration phase's barrier parameter relative to its starting `½‖r‖²` (at most
    /// `μ`).
    pub restoration_barrier: f64,
    /// The restoration phase ends once the violation is below this fraction of its start
    /// value (and the filter accepts the point).
    pub restoration_reduction: f64,
    /// The Armijo constant of the restoration phase's backtracking.
    pub restoration_armijo: f64,
    /// The restoration phase's smallest step length.
    pub restoration_min_step: f64,
    /// A restoration step that removes less than this fraction of `‖r‖²` to first order
    /// means the violation is stationary: the problem is locally infeasible.
    pub restoration_stationary: f64,
    /// Restoration iterations at most per call.
    pub restoration_iterations: usize,
}

impl Default for InteriorSettings {
    fn default() -> Self {
        Self {
            mu_initial: 0.1,
            mu_warm: 1e-4,
            mu_linear_decrease: 0.2,
            mu_superlinear_decrease: 1.5,
            smoothing_barrier_ratio: 1.0,
            barrier_tolerance_factor: 10.0,
            tau_min: 0.99,
            bound_push: 1e-2,
            bound_fraction: 1e-2,
            warm_push: 1e-8,
            bound_multiplier_initial: 1.0,
            multiplier_initial_max: 1e3,
            kappa_sigma: 1e10,
            damping: 1e-5,
            dual_regularization: 1e-8,
            stall_decrease: 0.5,
            stall_iterations: 300,
            soc_max: 4,
            soc_kappa: 0.99,
            restoration_regularization: 1e-8,
            restoration_armijo: 1e-4,
            restoration_min_step: 1e-12,
            restoration_stationary: 1e-10,
            restoration_barrier: 1e-4,
            restoration_reduction: 0.9,
            restoration_iterations: 100,
        }
    }
}

impl InteriorSettings {
    /// Checks every constant in order; the first one out of its domain.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        Check::new()
            .positive("mu_initial", self.mu_initial)
            .positive("mu_warm", self.mu_warm)
            .positive("smoothing_barrier_ratio", self.smoothing_barrier_ratio)
            .positive("barrier_tolerance_factor", self.barrier_tolerance_factor)
            .positive("bound_push", self.bound_push)
            .positive("warm_push", self.warm_push)
            .positive("bound_multiplier_initial", self.bound_multiplier_initial)
            .positive("multiplier_initial_max", self.multiplier_initial_max)
            .positive("dual_regularization", self.dual_regularization)
            .positive(
                "restoration_regularization",
                self.restoration_regularization,
            )
            .positive("restoration_min_step", self.restoration_min_step)
            .positive("restoration_stationary", self.restoration_stationary)
            .positive("restoration_barrier", self.restoration_barrier)
            .unit("mu_linear_decrease", self.mu_linear_decrease)
            .unit("tau_min", self.tau_min)
            .unit("bound_fraction", self.bound_fraction)
            .unit("soc_kappa", self.soc_kappa)
            .unit("stall_decrease", self.stall_decrease)
            .unit("restoration_reduction", self.restoration_reduction)
            .unit("restoration_armijo", self.restoration_armijo)
            .growth("mu_superlinear_decrease", self.mu_superlinear_decrease)
            .growth("kappa_sigma", self.kappa_sigma)
            .non_negative("damping", self.damping)
            .count("restoration_iterations", self.restoration_iterations)
            .count("stall_iterations", self.stall_iterations)
            .finish()
    }
}
