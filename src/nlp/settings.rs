//! Solver settings, with defaults, validation and (de)serialization.

use serde::{Deserialize, Serialize};

use super::error::SolverError;
use super::interior_settings::InteriorSettings;
use crate::qp::{ActiveSetSettings, InertiaSettings};
use crate::settings_check::{Check, InvalidSetting};

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

impl std::str::FromStr for QpBackend {
    type Err = String;

    /// The backend a problem file or command line names (`clarabel`, `osqp`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "clarabel" => Ok(Self::Clarabel),
            "osqp" => Ok(Self::Osqp),
            other => Err(format!(
                "unknown QP backend '{other}' (expected clarabel or osqp)"
            )),
        }
    }
}

/// The algorithm that solves the nonlinear program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The interior-point method for a problem with exact Hessians and without
    /// complementarity pairs, the SQP otherwise ([`Method::resolve`]); when the interior-point
    /// method fails (`MaxIterations`, `LineSearchFailure`, `LocallyInfeasible`, `QpFailure`),
    /// the SQP solves again from the start, and when it ends `Acceptable`, the SQP goes on
    /// from its point (along a smoothing path, `Solver::solve_smoothed`: the SQP's levels
    /// from the start, or its last level from that point).
    #[default]
    Auto,
    /// The primal-dual interior-point method of `crate::interior` (exact Hessians only).
    InteriorPoint,
    /// Sequential quadratic programming on the working-set QP and its backends.
    Sqp,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Auto => "auto",
            Self::InteriorPoint => "interior point",
            Self::Sqp => "SQP",
        })
    }
}

impl std::str::FromStr for Method {
    type Err = String;

    /// The method a problem file or command line names.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [Self::Auto, Self::InteriorPoint, Self::Sqp]
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown method '{s}' (expected auto, interior_point or sqp)"))
    }
}

impl Method {
    /// The name a problem file gives it (`interior_point`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::InteriorPoint => "interior_point",
            Self::Sqp => "sqp",
        }
    }

    /// The method that runs: `Auto` becomes the interior-point method when the Hessian is
    /// exact and the problem declares no complementarity pairs (the interior-point method
    /// relaxes them less robustly than the SQP: MacMPEC `desilva` and the passive box's
    /// touchdown end `LineSearchFailure`), the SQP otherwise.
    pub fn resolve(self, hessian: HessianStrategy, pairs: usize) -> Self {
        match self {
            Self::Auto if hessian == HessianStrategy::Exact && pairs == 0 => Self::InteriorPoint,
            Self::Auto => Self::Sqp,
            other => other,
        }
    }
}

/// How the Hessian of the Lagrangian is modelled in the QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HessianStrategy {
    /// The problem's exact Hessian, shifted by `δI` until it is positive definite.
    #[default]
    Exact,
    /// Damped block BFGS on the blocks of [`Nlp::variable_groups`](crate::nlp::Nlp::variable_groups);
    /// without groups one dense block when `n <= dense_quasi_newton_limit`, else a diagonal model.
    Bfgs,
}

/// Settings of the solver, both methods'. Every field has a default, so a YAML or JSON document may set
/// any subset of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// The method: the interior-point method, the SQP, or `auto` (the default).
    pub method: Method,
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
    /// A contact problem's solution is `Converged` only if the ground's positive work (a
    /// passive ground can only take energy away, `transcription::EnergyAccount`) is at most
    /// this fraction of the actuators' positive work plus `ground_work_allowance`.
    pub ground_work_fraction: f64,
    /// See `ground_work_fraction` (J).
    pub ground_work_allowance: f64,
    /// Looser tolerance on the dual infeasibility and complementarity for `Acceptable`.
    pub acceptable_tolerance: f64,
    /// Looser tolerance on the constraint violation (and pair violation) for `Acceptable`.
    pub acceptable_constraint_tolerance: f64,
    /// Consecutive iterates within the acceptable tolerances that end the solve as `Acceptable`.
    pub acceptable_iterations: usize,
    /// Maximum number of iterations of one solve (of each method that runs, and of each of
    /// the SQP's smoothing levels). 1 000 by default: an interior-point contact solve takes
    /// several hundred along its smoothing path (the hopper's hops 0.1–0.5 m up to 693,
    /// Go1's walk 477; `docs/benchmarks.md`).
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
    /// Factor by which the smoothing `μ` of smoothed complementarity (the contact term's
    /// Fischer–Burmeister rows, `transcription::solve`) shrinks from one solve to the next, in
    /// `(0, 1)`. 0.3 by default: on the biped's walk each level converged from the last with
    /// 0.3 and the second failed with 0.1 (`problems/README.md`, "The biped walk"), and every
    /// bundled contact problem solved by levels used 0.3.
    pub smoothing_decrease: f64,
    /// When the problem names no last smoothing, the path ends at its first level (from its
    /// start down by `smoothing_decrease`) at or below
    /// `smoothing_margin · √complementarity_tolerance` ([`Settings::smoothing_end`]): a
    /// smoothed solution's products are `μ²` exactly, so with the margin 1 that is the first
    /// level whose products meet the tolerance. In `(0, 1]`; 1 by default: every level further
    /// makes the sticking rows more nearly dependent (`μ²`) and the solve harder, not the
    /// solution better (`problems/README.md`, "The biped walk": one level further diverged).
    pub smoothing_margin: f64,
    /// `κ` of the inexact smoothing levels: every level but the last ends once the scaled
    /// dual infeasibility and the constraint violation are within `max(tolerance, κ·μ)` (and
    /// the constraint tolerance's counterpart), as IPOPT ends a barrier subproblem at `κ_ε·μ`;
    /// the last level meets the tolerances themselves; `0` solves every level to the
    /// tolerances. `≥ 0`; 0.1 by default, IPOPT's `κ_ε` for its barrier subproblems (on the
    /// quadruped's gaps the first level solved to the tolerances wandered for 800 iterations;
    /// `problems/README.md`, "The quadruped").
    pub smoothing_level_tolerance: f64,
    /// The terrain walk of a continuation, off unless set: between two problems whose
    /// terrains differ in numbers only (a box raised or moved, gaps moved: `initial_guess:
    /// {solve: …}`, `transcription/continuation.rs`), the terrain moves in steps, each solved
    /// from the last one's primal-dual point at the smoothing's end, none changing a terrain
    /// number by more than this (m). A failed step is halved, and `terrain_step_streak` solved
    /// ones in a row double the next again, up to this. Off by default: on the jump's chain
    /// steps of 1.25–2.5 mm converged in 11–22 iterations and the 0.04 → 0.08 m walk in about
    /// 90 s, but the 0.08 → 0.12 m walk stalled at 0.4 mm (`docs/benchmarks.md`, "The terrain
    /// walk"). 0.0025 is the measured choice.
    pub terrain_step: Option<f64>,
    /// The least terrain step (m): a step this short that fails ends the walk, and the problem
    /// is solved from the last solved terrain's trajectory as a continuation without it is.
    pub terrain_step_min: f64,
    /// Iteration limit of one terrain step (a step that needs more is halved). 60 by default:
    /// the jump chain's solved steps took 11–59 iterations; the failed ones wander (steps of
    /// 10⁻³) and each costs this many.
    pub terrain_step_iterations: usize,
    /// Solved terrain steps in a row after which the next is doubled (up to `terrain_step`).
    /// 3 by default: on the jump's chain a step doubled right after a solved one failed more
    /// often than not, each failure costing `terrain_step_iterations`.
    pub terrain_step_streak: usize,
    /// The algorithm's constants (line search, inertia control, working-set QP); the defaults
    /// are what the tests and benchmarks were measured with.
    pub tuning: Tuning,
}

/// The constants of the algorithm, with the defaults it was measured with. Each names the file
/// whose documentation explains it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Tuning {
    /// The working-set QP solver's constants (`src/qp/active_set.rs`).
    pub qp: ActiveSetSettings,
    /// The inertia correction's shift schedule (`src/qp/kkt.rs`): of the working-set QP, the
    /// backends' convex model (`src/sqp/inertia.rs`) and the interior-point method's Newton
    /// system.
    pub inertia: InertiaSettings,
    /// The interior-point method's constants (`src/interior/`).
    pub interior: InteriorSettings,
    /// `line_search.rs`: the filter's sufficient decrease of the violation, `γ_θ`.
    pub filter_gamma_theta: f64,
    /// `line_search.rs`: the filter's sufficient decrease of the objective, `γ_f`.
    pub filter_gamma_f: f64,
    /// `line_search.rs`: the switching condition's `δ`.
    pub switching_delta: f64,
    /// `line_search.rs`: the switching condition's exponent of `θ`, `s_θ`.
    pub switching_s_theta: f64,
    /// `line_search.rs`: the switching condition's exponent of `−∇fᵀd`, `s_f`.
    pub switching_s_f: f64,
    /// `line_search.rs`: the Armijo constant `η` of f-type steps.
    pub filter_armijo: f64,
    /// `line_search.rs`: safety factor `γ_α` of IPOPT's smallest step length.
    pub filter_gamma_alpha: f64,
    /// `line_search.rs`: the filter search gives up below this step length.
    pub filter_min_step: f64,
    /// `filter.rs`: `θ_max / max(1, θ₀)`.
    pub filter_theta_max: f64,
    /// `filter.rs`: `θ_min / max(1, θ₀)`.
    pub filter_theta_min: f64,
    /// `line_search.rs`: the Armijo constant of the ℓ1-merit search.
    pub merit_armijo: f64,
    /// `line_search.rs`: the merit search's smallest step on the last attempt of a step.
    pub merit_min_step: f64,
    /// `line_search.rs`: the merit search's smallest step before the step is retried.
    pub merit_retry_step: f64,
    /// `line_search.rs`: increases below this many machine epsilons (relative) are rounding.
    pub rounding: f64,
    /// `restoration.rs`: sufficient decrease of the violation along a restoration step.
    pub restoration_decrease: f64,
    /// `restoration.rs`: smallest restoration step length.
    pub restoration_min_step: f64,
    /// `solver.rs`: a QP shift above this reduces the constraints' curvature in the next
    /// Hessian.
    pub curvature_shift: f64,
    /// `solver.rs`: factor by which the constraints' curvature in the Hessian changes.
    pub curvature_decrease: f64,
    /// `hessian.rs`: least shift of the backends' convex model, relative to its largest
    /// diagonal entry.
    pub convex_damping: f64,
    /// `solver.rs`: attempts of a step (each failed one strengthens the Hessian model).
    pub step_attempts: usize,
    /// `solver.rs`: growth of the forced Hessian shift per failed attempt.
    pub retry_shift_growth: f64,
    /// `solver.rs`: smallest forced Hessian shift of a retried step.
    pub retry_shift_min: f64,
    /// `elastic.rs`: growth of the elastic penalty until it achieves enough decrease.
    pub elastic_penalty_growth: f64,
    /// `elastic.rs`: largest elastic penalty.
    pub elastic_penalty_max: f64,
    /// `elastic.rs`: fraction of the attainable linearized violation decrease the elastic step
    /// must achieve.
    pub elastic_decrease: f64,
    /// `elastic.rs`: a point is locally infeasible when at most this fraction of its violation
    /// can be removed to first order.
    pub infeasibility_decrease: f64,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            qp: ActiveSetSettings::default(),
            inertia: InertiaSettings::default(),
            interior: InteriorSettings::default(),
            filter_gamma_theta: 1e-5,
            filter_gamma_f: 1e-8,
            switching_delta: 1.0,
            switching_s_theta: 1.1,
            switching_s_f: 2.3,
            filter_armijo: 1e-8,
            filter_gamma_alpha: 0.05,
            filter_min_step: 1e-2,
            filter_theta_max: 10.0,
            filter_theta_min: 1e-4,
            merit_armijo: 1e-4,
            merit_min_step: 1e-10,
            merit_retry_step: 1e-4,
            rounding: 100.0,
            restoration_decrease: 1e-4,
            restoration_min_step: 1e-4,
            curvature_shift: 1e-3,
            convex_damping: 1e-3,
            curvature_decrease: 10.0,
            step_attempts: 4,
            retry_shift_growth: 100.0,
            retry_shift_min: 1e-2,
            elastic_penalty_growth: 10.0,
            elastic_penalty_max: 1e12,
            elastic_decrease: 0.1,
            infeasibility_decrease: 0.01,
        }
    }
}

impl Tuning {
    /// Checks every constant in order; the first one out of its domain, named by its path
    /// within `Tuning` (`interior.mu_initial`).
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        Check::new()
            .unit("filter_gamma_theta", self.filter_gamma_theta)
            .unit("filter_gamma_f", self.filter_gamma_f)
            .unit("filter_armijo", self.filter_armijo)
            .unit("filter_gamma_alpha", self.filter_gamma_alpha)
            .unit("filter_min_step", self.filter_min_step)
            .unit("merit_armijo", self.merit_armijo)
            .unit("merit_min_step", self.merit_min_step)
            .unit("merit_retry_step", self.merit_retry_step)
            .unit("restoration_decrease", self.restoration_decrease)
            .unit("restoration_min_step", self.restoration_min_step)
            .unit("elastic_decrease", self.elastic_decrease)
            .unit("infeasibility_decrease", self.infeasibility_decrease)
            .positive("switching_delta", self.switching_delta)
            .positive("filter_theta_max", self.filter_theta_max)
            .positive("filter_theta_min", self.filter_theta_min)
            .positive("rounding", self.rounding)
            .positive("retry_shift_min", self.retry_shift_min)
            .positive("elastic_penalty_max", self.elastic_penalty_max)
            .positive("convex_damping", self.convex_damping)
            .growth("switching_s_theta", self.switching_s_theta)
            .growth("switching_s_f", self.switching_s_f)
            .growth("retry_shift_growth", self.retry_shift_growth)
            .growth("elastic_penalty_growth", self.elastic_penalty_growth)
            .count("step_attempts", self.step_attempts)
            .positive("curvature_shift", self.curvature_shift)
            .growth("curvature_decrease", self.curvature_decrease)
            .nested("interior", self.interior.validate())
            .nested("qp", self.qp.validate())
            .nested("inertia", self.inertia.validate())
            .require(
                "filter_theta_min",
                self.filter_theta_min,
                self.filter_theta_min < self.filter_theta_max,
                "must be below `filter_theta_max`",
            )
            .finish()
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            method: Method::Auto,
            qp: QpBackend::Clarabel,
            hessian: HessianStrategy::Exact,
            tolerance: 1e-6,
            constraint_tolerance: 1e-6,
            complementarity_tolerance: 1e-6,
            ground_work_fraction: 0.05,
            ground_work_allowance: 0.01,
            acceptable_tolerance: 1e-4,
            acceptable_constraint_tolerance: 1e-4,
            acceptable_iterations: 15,
            max_iterations: 1000,
            time_limit_s: None,
            print_level: 2,
            progress_bar: true,
            qp_tolerance: 1e-9,
            qp_max_iterations: 100_000,
            dense_quasi_newton_limit: 200,
            second_order_correction: true,
            relaxation_initial: 0.1,
            relaxation_decrease: 0.1,
            smoothing_decrease: 0.3,
            smoothing_margin: 1.0,
            smoothing_level_tolerance: 0.1,
            terrain_step: None,
            terrain_step_min: 5e-4,
            terrain_step_iterations: 60,
            terrain_step_streak: 3,
            tuning: Tuning::default(),
        }
    }
}

/// Significant digits of a computed smoothing level: a level written out by hand (`end:
/// 8.1e-4`, four factors of 0.3 below 0.1) is then the same number as the computed one
/// (`0.1 · 0.3⁴` carries a rounding error in its last bit).
const LEVEL_DIGITS: usize = 12;

impl Settings {
    /// The last smoothing of a path from `start` whose end the problem does not name: the
    /// first of the levels `start · smoothing_decrease^k` (`k ≥ 0`, the SQP's levels) at or
    /// below `smoothing_margin · √complementarity_tolerance`, to 12 significant
    /// digits. A smoothed pair holds `a·b = μ²`, so from the default tolerance 10⁻⁶ a path from
    /// 0.1 or 0.03 ends at 8.1·10⁻⁴ (products 6.6·10⁻⁷), one from 0.01 at 9·10⁻⁴.
    #[must_use]
    pub fn smoothing_end(&self, start: f64) -> f64 {
        let target = self.smoothing_margin * self.complementarity_tolerance.sqrt();
        if !(self.smoothing_decrease > 0.0 && self.smoothing_decrease < 1.0) {
            return target.min(start);
        }
        let mut mu = start;
        while mu > target && mu > 0.0 {
            mu *= self.smoothing_decrease;
        }
        format!("{mu:.prec$e}", prec = LEVEL_DIGITS - 1)
            .parse()
            .unwrap_or(mu)
    }

    /// Checks every field in order and names the first one that is out of its domain by its
    /// path (`tuning.interior.mu_initial`). Also rejects the OSQP backend when the crate was
    /// built without the `osqp` feature.
    pub fn validate(&self) -> Result<(), SolverError> {
        Check::new()
            .positive("tolerance", self.tolerance)
            .positive("constraint_tolerance", self.constraint_tolerance)
            .positive("complementarity_tolerance", self.complementarity_tolerance)
            .positive("ground_work_fraction", self.ground_work_fraction)
            .positive("ground_work_allowance", self.ground_work_allowance)
            .positive("acceptable_tolerance", self.acceptable_tolerance)
            .positive(
                "acceptable_constraint_tolerance",
                self.acceptable_constraint_tolerance,
            )
            .require(
                "acceptable_tolerance",
                self.acceptable_tolerance,
                self.acceptable_tolerance >= self.tolerance,
                "must not be tighter than `tolerance`",
            )
            .require(
                "acceptable_constraint_tolerance",
                self.acceptable_constraint_tolerance,
                self.acceptable_constraint_tolerance >= self.constraint_tolerance,
                "must not be tighter than `constraint_tolerance`",
            )
            .count("acceptable_iterations", self.acceptable_iterations)
            .count("max_iterations", self.max_iterations)
            .require(
                "time_limit_s",
                self.time_limit_s.unwrap_or(f64::INFINITY),
                self.time_limit_s.is_none_or(|limit| limit > 0.0),
                "must be positive (leave it out for no limit)",
            )
            .positive("qp_tolerance", self.qp_tolerance)
            .count("qp_max_iterations", self.qp_max_iterations)
            .positive("relaxation_initial", self.relaxation_initial)
            .unit("relaxation_decrease", self.relaxation_decrease)
            .unit("smoothing_decrease", self.smoothing_decrease)
            .require(
                "smoothing_margin",
                self.smoothing_margin,
                self.smoothing_margin > 0.0 && self.smoothing_margin <= 1.0,
                "must lie in (0, 1]",
            )
            .non_negative("smoothing_level_tolerance", self.smoothing_level_tolerance)
            .require(
                "terrain_step",
                self.terrain_step.unwrap_or(1.0),
                self.terrain_step
                    .is_none_or(|step| step > 0.0 && step.is_finite()),
                "must be a positive length (leave it out for no terrain walk)",
            )
            .require(
                "terrain_step_min",
                self.terrain_step_min,
                self.terrain_step_min > 0.0
                    && self
                        .terrain_step
                        .is_none_or(|step| self.terrain_step_min <= step),
                "must lie in (0, terrain_step]",
            )
            .count("terrain_step_iterations", self.terrain_step_iterations)
            .count("terrain_step_streak", self.terrain_step_streak)
            .nested("tuning", self.tuning.validate())
            .require(
                "method",
                "interior_point",
                self.method != Method::InteriorPoint || self.hessian == HessianStrategy::Exact,
                "needs `hessian: exact`; use `method: sqp` with BFGS",
            )
            .finish()?;
        if self.qp == QpBackend::Osqp && !cfg!(feature = "osqp") {
            return Err(SolverError::BackendUnavailable("osqp"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default end is the level a hand-written ladder names: from 0.1 and 0.03 by 0.3 the
    /// files' `end: 8.1e-4`, bit for bit (the SQP's levels then end on it,
    /// `optimizer::smoothing`), against the closed form `start · 0.3^k`.
    #[test]
    fn the_smoothing_end_is_the_ladder_level_written_out() {
        let s = Settings::default();
        assert_eq!(s.smoothing_end(0.1).to_bits(), 8.1e-4_f64.to_bits());
        assert_eq!(s.smoothing_end(0.03).to_bits(), 8.1e-4_f64.to_bits());
        assert_eq!(s.smoothing_end(0.01).to_bits(), 9e-4_f64.to_bits());
        assert_eq!(s.smoothing_end(5e-4), 5e-4);
        let half = Settings {
            smoothing_margin: 0.5,
            ..Settings::default()
        };
        // The first level at or below 0.5e-3 is 0.01 · 0.3³ = 2.7e-4.
        assert!((half.smoothing_end(0.01) - 0.01 * 0.3_f64.powi(3)).abs() < 1e-18);
    }

    #[test]
    fn methods_and_qp_backends_parse_as_files_and_flags_name_them() {
        assert_eq!("clarabel".parse::<QpBackend>(), Ok(QpBackend::Clarabel));
        assert_eq!("osqp".parse::<QpBackend>(), Ok(QpBackend::Osqp));
        let e = "gurobi".parse::<QpBackend>().unwrap_err();
        assert!(
            e.contains("'gurobi'") && e.contains("clarabel or osqp"),
            "{e}"
        );
        assert_eq!(
            "interior_point".parse::<Method>(),
            Ok(Method::InteriorPoint)
        );
        assert!("fast".parse::<Method>().is_err());
    }

    /// The first field out of its domain, named by its path, with its value and requirement:
    /// each step breaks one more field, earlier in the order of the checks than the last.
    #[test]
    fn validation_names_the_first_invalid_field_by_its_path() {
        type Step = (fn(&mut Settings), [&'static str; 3]);
        let steps: [Step; 6] = [
            (
                |s| s.tuning.inertia.shift_decrease = 1.0,
                [
                    "tuning.inertia.shift_decrease",
                    "1",
                    "must lie strictly between 0 and 1",
                ],
            ),
            (
                |s| s.tuning.qp.refinement_cycles = 0,
                ["tuning.qp.refinement_cycles", "0", "must be at least 1"],
            ),
            (
                |s| s.tuning.interior.damping = -1.0,
                [
                    "tuning.interior.damping",
                    "-1",
                    "must be finite and not negative",
                ],
            ),
            (
                |s| {
                    s.terrain_step = Some(0.0025);
                    s.terrain_step_min = 0.01;
                },
                ["terrain_step_min", "0.01", "must lie in (0, terrain_step]"],
            ),
            (
                |s| s.terrain_step = Some(-1.0),
                [
                    "terrain_step",
                    "-1",
                    "must be a positive length (leave it out for no terrain walk)",
                ],
            ),
            (
                |s| s.time_limit_s = Some(f64::NAN),
                [
                    "time_limit_s",
                    "NaN",
                    "must be positive (leave it out for no limit)",
                ],
            ),
        ];
        let mut settings = Settings::default();
        for (change, [field, value, reason]) in steps {
            change(&mut settings);
            let expected = SolverError::InvalidSetting {
                field: field.into(),
                value: value.into(),
                reason,
            };
            assert_eq!(settings.validate(), Err(expected));
        }
    }
}
