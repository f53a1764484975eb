//! The line search: Wächter & Biegler's filter line search, with a backtracking search on
//! the ℓ1 merit function as fallback, and a second-order correction in both.
//!
//! **Why a filter.** On the trajectory problems the exact-Hessian steps are long (the reduced
//! Hessian's smallest eigenvalues are of the order of the effort weights, 10⁻³–10⁻¹) and move
//! the configurations of a whole trajectory at once, where every dynamics row curves. The ℓ1
//! merit `f + ν Σ|cᵢ|` charges each row's curvature with the full weight `ν ≥ ‖λ‖∞` although the
//! Lagrangian model only carries `Σ λᵢ ∇²cᵢ`, so it accepted step lengths of 10⁻³–10⁻¹ for
//! hundreds of iterations. The filter accepts a trial point that sufficiently decreases either
//! the violation `θ = Σ viol(c)` or `f`, and is not dominated by earlier iterates
//! (see `filter.rs`); it needs no penalty parameter.
//!
//! **Filter search.** Trial points `x + αd` (clamped into the variable bounds), `α = 1, ½, ¼, …`.
//! With `m(α) = α∇fᵀd` and the switching condition `m(α) < 0` and
//! `α (−∇fᵀd)^{s_f} > δ θ^{s_θ}` (`s_f = 2.3`, `s_θ = 1.1`, `δ = 1`), a trial point acceptable to
//! the filter is accepted
//! - if `θ <= θ_min` and the switching condition holds: when `f(α) <= f + η m(α)` (`η = 10⁻⁸`,
//!   an *f-type* step; the filter is left as it is);
//! - otherwise: when `θ(α) <= (1 − γ_θ) θ` or `f(α) <= f − γ_f θ` (`γ_θ = 10⁻⁵`, `γ_f = 10⁻⁸`),
//!   and the filter then receives `((1 − γ_θ) θ, f − γ_f θ)`.
//!
//! The search fails below the larger of 10⁻² and IPOPT's
//! `α_min = 0.05 min(γ_θ, γ_f θ / (−∇fᵀd), δ θ^{s_θ} / (−∇fᵀd)^{s_f})` (the last term only for
//! `θ <= θ_min`; `0.05 γ_θ` for an ascent direction of `f`). With IPOPT's bound alone the
//! filter accepted steps of length 10⁻⁴ that reduced `θ` by its factor `1 − γ_θ` and little
//! more, for hundreds of iterations (pendulum swing-up, far from feasibility after the
//! filter let `θ` grow); the restoration step leaves such points in one or two steps.
//!
//! **Fallbacks.** When the filter search fails, a restoration step is tried (see
//! `restoration.rs`); if that fails too (a feasible point, an inconsistent linearization),
//! the direction is searched again on the ℓ1 merit `φ = f + νθ` (see
//! [`merit`](super::merit)): accepted when `φ(x + αd) <= φ(x) + 10⁻⁴ α D`, shrinking by
//! safeguarded quadratic interpolation (to between 0.1 and 0.5 of the last step) down to
//! `α = 10⁻⁴`; below that the step is retried with a strengthened Hessian model (see
//! `Sqp::step`), and only the last retry searches down to `α = 10⁻¹⁰`. A step accepted there
//! clears the filter, which would otherwise hold entries that the new iterate may not
//! satisfy.
//!
//! Merit and objective increases below `100 ε_mach max(1, |φ|)` count as rounding noise. The
//! gradient, Jacobian and (exact) Hessian are evaluated at an accepted trial before the step
//! is taken, so every iterate has finite derivatives; a failed or non-finite evaluation
//! anywhere along the way counts as a rejected trial (and shrinks `α` to a quarter).
//!
//! **Second-order correction.** If the full step is rejected while the trial violation is not
//! smaller than the current one (Maratos effect), the QP is solved again with the same
//! Hessian and gradient and the constant part of the linearization replaced by
//! `c(x + d) − Jd`, and `x + d̂` is tested with the same criteria at `α = 1`.

use super::direction::Direction;
use super::merit::{merit, violation};
use super::solver::{HessianModel, Sqp, StepInfo, Stop};

const MERIT_ARMIJO: f64 = 1e-4;
const MERIT_MIN_STEP: f64 = 1e-10;
/// Before the last attempt of a step, the merit search stops here and the step is retried
/// with a strengthened Hessian model: merit steps of 10⁻⁶ made no progress for 45 iterations
/// on the single-pendulum Hermite–Simpson swing-up (Clarabel; OSQP never left that point
/// in 500), and the shifted model's step leaves it at once.
const MERIT_RETRY_STEP: f64 = 1e-4;
/// Merit increases below `ROUNDING ε_mach max(1, |φ|)` are taken as rounding noise.
const ROUNDING: f64 = 100.0;
const GAMMA_THETA: f64 = 1e-5;
const GAMMA_F: f64 = 1e-8;
const SWITCHING_DELTA: f64 = 1.0;
const S_THETA: f64 = 1.1;
const S_F: f64 = 2.3;
const FILTER_ARMIJO: f64 = 1e-8;
const GAMMA_ALPHA: f64 = 0.05;
/// The filter search gives up below this step length and leaves the point to the
/// restoration step: shorter steps of a Newton direction were observed to make negligible
/// progress for hundreds of iterations.
const FILTER_MIN_STEP: f64 = 1e-2;

/// The filter's verdict on a trial point.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Verdict {
    Reject,
    /// Accepted by an Armijo decrease of `f` under the switching condition.
    ObjectiveStep,
    /// Accepted by sufficient decrease of `θ` or `f`; the filter is augmented.
    FilterStep,
}

/// What the filter tests need to know about the current point and direction.
struct FilterPoint {
    f: f64,
    theta: f64,
    /// `∇fᵀd`.
    gd: f64,
    allowance: f64,
}

impl Sqp<'_, '_> {
    pub(super) fn set_trial_point(&mut self, alpha: f64, step: &[f64]) {
        let bounds = self.problem.x_lower.iter().zip(&self.problem.x_upper);
        for (((t, &x), &d), (&l, &u)) in self.x_trial.iter_mut().zip(&self.x).zip(step).zip(bounds)
        {
            *t = (x + alpha * d).clamp(l, u);
        }
    }

    /// `f` and `c` at the trial point; the objective and violation, or `None` if an
    /// evaluation failed.
    pub(super) fn trial_values(&mut self) -> Option<(f64, f64)> {
        let f = self.problem.objective(&self.x_trial).ok()?;
        self.problem
            .constraints(&self.x_trial, &mut self.c_trial)
            .ok()?;
        self.f_trial = f;
        let theta = violation(&self.c_trial, &self.problem.c_lower, &self.problem.c_upper);
        Some((f, theta))
    }

    /// Derivatives at the trial point with the multipliers already in `lambda_trial`.
    pub(super) fn trial_derivatives(&mut self) -> bool {
        let p = &mut self.problem;
        p.gradient(&self.x_trial, &mut self.g_trial).is_ok()
            && p.jacobian(&self.x_trial, &self.c_trial, &mut self.jac_trial)
                .is_ok()
            && match self.hessian {
                HessianModel::Exact(_) => p
                    .hessian(
                        &self.x_trial,
                        &self.c_trial,
                        &self.jac_trial,
                        &self.lambda_trial,
                        &mut self.hess_trial,
                    )
                    .is_ok(),
                HessianModel::Bfgs(_) => true,
            }
    }

    fn blend_multipliers(&mut self, alpha: f64) {
        for (t, (&l, &s)) in self
            .lambda_trial
            .iter_mut()
            .zip(self.lambda.iter().zip(&self.lambda_step))
        {
            *t = l + alpha * (s - l);
        }
        for (t, (&l, &s)) in self.z_trial.iter_mut().zip(self.z.iter().zip(&self.z_step)) {
            *t = l + alpha * (s - l);
        }
    }

    /// Searches along the direction; `Ok(true)` when a trial point was accepted (it is left
    /// in the `*_trial` fields), `Ok(false)` when both searches failed. The merit search
    /// accepts steps shorter than [`MERIT_RETRY_STEP`] only on the `last_attempt`.
    pub(super) fn line_search(
        &mut self,
        dir: &Direction,
        info: &mut StepInfo,
        last_attempt: bool,
    ) -> Result<bool, Stop> {
        let step = std::mem::take(&mut self.d);
        let min_step = if last_attempt {
            MERIT_MIN_STEP
        } else {
            MERIT_RETRY_STEP
        };
        let accepted =
            self.filter_search(dir, &step, info) || self.restoration_step(dir.theta, info) || {
                let accepted = self.merit_search(dir, &step, info, min_step);
                if accepted {
                    info.merit_step = true;
                    self.filter.clear();
                }
                accepted
            };
        self.d = step;
        Ok(accepted)
    }

    /// Whether the step is at rounding level, where any trial is accepted.
    fn tiny_step(&self, info: &StepInfo) -> bool {
        let x_norm = self.x.iter().fold(1.0, |a: f64, v| a.max(v.abs()));
        info.step_norm <= 10.0 * f64::EPSILON * x_norm
    }

    /// The filter's verdict on a trial point `(f, theta)` at step length `alpha`.
    fn verdict(&self, p: &FilterPoint, alpha: f64, f: f64, theta: f64) -> Verdict {
        if !self.filter.acceptable(theta, f) {
            return Verdict::Reject;
        }
        let switching =
            p.gd < 0.0 && alpha * (-p.gd).powf(S_F) > SWITCHING_DELTA * p.theta.powf(S_THETA);
        if switching && p.theta <= self.filter.theta_min {
            if f <= p.f + FILTER_ARMIJO * alpha * p.gd + p.allowance {
                Verdict::ObjectiveStep
            } else {
                Verdict::Reject
            }
        } else if theta <= (1.0 - GAMMA_THETA) * p.theta
            || f <= p.f - GAMMA_F * p.theta + p.allowance
        {
            Verdict::FilterStep
        } else {
            Verdict::Reject
        }
    }

    /// The smallest step length the filter search tries.
    fn min_step(&self, p: &FilterPoint) -> f64 {
        let ipopt = if p.gd < 0.0 {
            let mut bound = GAMMA_THETA.min(GAMMA_F * p.theta / -p.gd);
            if p.theta <= self.filter.theta_min {
                bound = bound.min(SWITCHING_DELTA * p.theta.powf(S_THETA) / (-p.gd).powf(S_F));
            }
            GAMMA_ALPHA * bound
        } else {
            GAMMA_ALPHA * GAMMA_THETA
        };
        ipopt.max(FILTER_MIN_STEP)
    }

    /// Takes the accepted trial point's verdict into the filter.
    fn record(&mut self, p: &FilterPoint, verdict: Verdict) {
        if verdict == Verdict::FilterStep {
            self.filter
                .add((1.0 - GAMMA_THETA) * p.theta, p.f - GAMMA_F * p.theta);
        }
    }

    /// The filter search (see the module documentation).
    fn filter_search(&mut self, dir: &Direction, step: &[f64], info: &mut StepInfo) -> bool {
        let p = FilterPoint {
            f: self.f,
            theta: dir.theta,
            gd: dir.gd,
            allowance: ROUNDING * f64::EPSILON * self.f.abs().max(1.0),
        };
        let tiny = self.tiny_step(info);
        let min_step = self.min_step(&p);
        let mut alpha = dir.first_step;
        loop {
            self.set_trial_point(alpha, step);
            let trial = self.trial_values();
            if let Some((f, theta)) = trial {
                let verdict = if tiny {
                    Verdict::ObjectiveStep
                } else {
                    self.verdict(&p, alpha, f, theta)
                };
                if verdict != Verdict::Reject {
                    self.blend_multipliers(alpha);
                    if self.trial_derivatives() {
                        self.record(&p, verdict);
                        info.step_length = alpha;
                        return true;
                    }
                }
            }
            if alpha == 1.0
                && !dir.elastic
                && self.settings.second_order_correction
                && let Some((_, theta)) = trial
                && theta >= p.theta
                && let Some((f, theta)) = self.second_order_trial(info)
            {
                let verdict = self.verdict(&p, 1.0, f, theta);
                if verdict != Verdict::Reject && self.finish_second_order(info) {
                    self.record(&p, verdict);
                    return true;
                }
            }
            alpha *= if trial.is_some() { 0.5 } else { 0.25 };
            if alpha < min_step {
                return false;
            }
        }
    }

    /// The ℓ1-merit search (see the module documentation).
    fn merit_search(
        &mut self,
        dir: &Direction,
        step: &[f64],
        info: &mut StepInfo,
        min_step: f64,
    ) -> bool {
        let phi0 = merit(self.f, self.penalty, dir.theta);
        let allowance = ROUNDING * f64::EPSILON * phi0.abs().max(1.0);
        let target = |alpha: f64| phi0 + MERIT_ARMIJO * alpha * dir.slope + allowance;
        let mut alpha = 1.0;
        loop {
            self.set_trial_point(alpha, step);
            let trial = self
                .trial_values()
                .map(|(f, theta)| (merit(f, self.penalty, theta), theta));
            if let Some((phi, _)) = trial
                && phi <= target(alpha)
            {
                self.blend_multipliers(alpha);
                if self.trial_derivatives() {
                    info.step_length = alpha;
                    return true;
                }
            }
            if alpha == 1.0
                && !dir.elastic
                && self.settings.second_order_correction
                && let Some((_, theta_trial)) = trial
                && theta_trial > 0.0
                && let Some((f, theta)) = self.second_order_trial(info)
                && merit(f, self.penalty, theta) <= target(1.0)
                && self.finish_second_order(info)
            {
                return true;
            }
            alpha = match trial {
                Some((phi, _)) => {
                    let curvature = phi - phi0 - dir.slope * alpha;
                    let quadratic = -dir.slope * alpha * alpha / (2.0 * curvature);
                    if quadratic.is_finite() {
                        quadratic.clamp(0.1 * alpha, 0.5 * alpha)
                    } else {
                        0.5 * alpha
                    }
                }
                None => 0.25 * alpha,
            };
            if alpha < min_step {
                return false;
            }
        }
    }

    /// Solves the second-order correction QP and evaluates `x + d̂`; its objective and
    /// violation, or `None` if the QP or an evaluation failed.
    fn second_order_trial(&mut self, info: &mut StepInfo) -> Option<(f64, f64)> {
        let m = self.problem.m();
        for i in 0..m {
            self.shifted[i] = self.c_trial[i] - self.jd[i];
        }
        self.pose_rows(true);
        self.solve_qp(false, 1.0, 0.0, info);
        if !self.qp_solution.status.has_solution() {
            return None;
        }
        let correction = std::mem::take(&mut self.qp_solution.x);
        self.set_trial_point(1.0, &correction);
        self.qp_solution.x = correction;
        self.trial_values()
    }

    /// Takes the second-order correction just evaluated as the accepted trial point, with
    /// its QP multipliers; false if its derivatives cannot be evaluated.
    fn finish_second_order(&mut self, info: &mut StepInfo) -> bool {
        let m = self.problem.m();
        let y = &self.qp_solution.y;
        self.lambda_trial.copy_from_slice(&y[..m]);
        self.z_trial.fill(0.0);
        for (k, &j) in self.subproblem.bounded().iter().enumerate() {
            self.z_trial[j] = y[m + k];
        }
        if !self.trial_derivatives() {
            return false;
        }
        info.second_order_correction = true;
        info.step_length = 1.0;
        info.step_norm = self
            .qp_solution
            .x
            .iter()
            .fold(0.0, |a: f64, v| a.max(v.abs()));
        true
    }
}
