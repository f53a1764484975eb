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
//! the filter is accepted (the constants are those of [`Tuning`](super::settings::Tuning))
//! - if `θ <= θ_min` and the switching condition holds: when `f(α) <= f + η m(α)` (`η = 10⁻⁸`,
//!   an *f-type* step; the filter is left as it is);
//! - otherwise: when `θ(α) <= (1 − γ_θ) θ` or `f(α) <= f − γ_f θ` (`γ_θ = 10⁻⁵`, `γ_f = 10⁻⁸`),
//!   and the filter then receives `((1 − γ_θ) θ, f − γ_f θ)`.
//!
//! The search fails below the larger of `filter_min_step` (10⁻²) and IPOPT's
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
//! `α = 10⁻⁴` (`merit_retry_step`; merit steps of 10⁻⁶ made no progress for 45 iterations on
//! the single-pendulum Hermite–Simpson swing-up); below that the step is retried with a
//! strengthened Hessian model (see `solver.rs`), and only the last retry searches down to
//! `α = 10⁻¹⁰`. A step accepted there
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
//! Hessian, shift and gradient and the constant part of the linearization replaced by
//! `c(x + d) − Jd` (`step.rs`), and `x + d̂` is tested with the same criteria at `α = 1`; the
//! correction is solved on the step's working set (`step.rs`).
//!
//! The globalization's state is the filter and the merit penalty ([`Globalization`]); the
//! search is handed the iterate, the trial point to fill, the direction and the step builder
//! (for the second-order correction and the restoration QP) explicitly.

use super::iterate::Iterate;
use super::merit::{merit, update_penalty};
use super::step::{Direction, Kind, StepBuilder};
use crate::nlp::filter::{Filter, LinePoint, Verdict};
use crate::nlp::iteration::StepInfo;
use crate::nlp::problem::Problem;
use crate::nlp::settings::{Settings, Tuning};

/// The step length's factor after a rejected trial point (halving, IPOPT's default), and the
/// largest factor of the merit search's quadratic interpolation.
const BACKTRACK: f64 = 0.5;

/// The smallest factor of the merit search's quadratic interpolation of the step length.
const INTERPOLATION_MIN: f64 = 0.1;

/// The step length's factor after a trial point where the problem could not be evaluated:
/// further back, since such points tend to lie in a region, not at one value.
const BACKTRACK_FAILED: f64 = 0.25;

/// Everything one line search works with, passed explicitly.
pub(crate) struct Search<'a, 'p> {
    pub(crate) problem: &'a mut Problem<'p>,
    pub(crate) builder: &'a mut StepBuilder,
    pub(crate) current: &'a Iterate,
    /// The accepted point is left here, with its multipliers and derivatives.
    pub(crate) trial: &'a mut Iterate,
    pub(crate) settings: &'a Settings,
    pub(crate) info: &'a mut StepInfo,
    /// The factor `τ` of the constraints' curvature in the Hessian at the trial point.
    pub(crate) curvature_scale: f64,
}

impl Search<'_, '_> {
    /// Sets the trial point `x + α step` and evaluates `f` and `c` there; the objective and
    /// violation, or `None` if an evaluation failed.
    fn values(&mut self, alpha: f64, step: &[f64]) -> Option<(f64, f64)> {
        self.trial
            .set_step(&self.current.x, alpha, step, self.problem);
        self.trial.evaluate_values(self.problem).ok()?;
        Some((self.trial.f, self.trial.theta(self.problem)))
    }

    /// Multipliers `λ + α(λ_QP − λ)` at the trial point.
    fn blend_multipliers(&mut self, alpha: f64) {
        let (current, step) = (self.current, &self.builder.step);
        for ((t, &l), &s) in self
            .trial
            .lambda
            .iter_mut()
            .zip(&current.lambda)
            .zip(&step.lambda)
        {
            *t = l + alpha * (s - l);
        }
        for ((t, &l), &s) in self.trial.z.iter_mut().zip(&current.z).zip(&step.z) {
            *t = l + alpha * (s - l);
        }
    }

    /// Derivatives at the trial point with the multipliers already set; whether they are
    /// finite.
    fn derivatives(&mut self) -> bool {
        self.trial
            .evaluate_derivatives(self.problem, self.curvature_scale)
            .is_ok()
    }

    /// Solves and evaluates the second-order correction of the step (whose full-step trial
    /// values are in `trial`); its objective and violation, or `None`.
    fn correction_values(&mut self, dir: &Direction) -> Option<(f64, f64)> {
        let solved = self.builder.second_order_correction(
            self.problem,
            self.current,
            &self.trial.c,
            dir.shift,
            &self.settings.tuning,
            self.info,
        );
        if !solved {
            return None;
        }
        let correction = std::mem::take(&mut self.builder.correction.d);
        let values = self.values(1.0, &correction);
        self.builder.correction.d = correction;
        values
    }

    /// Takes the second-order correction just evaluated as the accepted trial point, with its
    /// QP multipliers; false if its derivatives cannot be evaluated.
    fn accept_correction(&mut self) -> bool {
        let correction = &self.builder.correction;
        self.trial.lambda.copy_from_slice(&correction.lambda);
        self.trial.z.copy_from_slice(&correction.z);
        if !self.derivatives() {
            return false;
        }
        self.info.second_order_correction = true;
        self.info.step_length = 1.0;
        self.info.step_norm = self.builder.correction.norm();
        true
    }
}

/// The globalization's state: the filter and the ℓ1-merit penalty.
pub(crate) struct Globalization {
    pub(crate) filter: Filter,
    pub(crate) penalty: f64,
}

impl Globalization {
    /// A fresh filter for a start with violation `theta0`.
    pub(crate) fn new(theta0: f64, tuning: &Tuning) -> Self {
        Self {
            filter: Filter::new(theta0, tuning),
            penalty: 0.0,
        }
    }

    /// Updates the merit penalty for the direction `dir` (see `merit.rs`).
    pub(crate) fn update_penalty(&mut self, dir: &Direction) {
        self.penalty = update_penalty(
            self.penalty,
            dir.gd,
            dir.dhd,
            dir.theta,
            dir.theta_lin,
            dir.multipliers,
        )
        .max(dir.elastic_penalty);
    }

    /// Searches along the builder's step: the filter, then a restoration step, then the merit
    /// function (whose steps below `merit_retry_step` count only on the `last_attempt`). True
    /// when a trial point was accepted (it is left in `search.trial`).
    pub(crate) fn search(
        &mut self,
        search: &mut Search<'_, '_>,
        dir: &Direction,
        last_attempt: bool,
    ) -> bool {
        let step = std::mem::take(&mut search.builder.step.d);
        let accepted =
            self.filter_search(search, dir, &step) || self.restoration_step(search, dir.theta) || {
                let tuning = &search.settings.tuning;
                let min_step = if last_attempt {
                    tuning.merit_min_step
                } else {
                    tuning.merit_retry_step
                };
                let accepted = self.merit_search(search, dir, &step, min_step);
                if accepted {
                    search.info.merit_step = true;
                    self.filter.clear();
                }
                accepted
            };
        search.builder.step.d = step;
        accepted
    }

    /// Whether the step is at rounding level, where any trial is accepted.
    fn tiny_step(current: &Iterate, info: &StepInfo) -> bool {
        let x_norm = current.x.iter().fold(1.0, |a: f64, v| a.max(v.abs()));
        info.step_norm <= 10.0 * f64::EPSILON * x_norm
    }

    /// The filter search (see the module documentation).
    fn filter_search(&mut self, s: &mut Search<'_, '_>, dir: &Direction, step: &[f64]) -> bool {
        let t = &s.settings.tuning;
        let p = LinePoint::new(dir.theta, s.current.f, dir.gd, t);
        let tiny = Self::tiny_step(s.current, s.info);
        let min_step = self.filter.min_step(&p, t).max(t.filter_min_step);
        let mut alpha = 1.0;
        loop {
            let trial = s.values(alpha, step);
            if let Some((f, theta)) = trial {
                let verdict = if tiny {
                    Verdict::ObjectiveStep
                } else {
                    self.filter.verdict(&p, alpha, theta, f, t)
                };
                if verdict != Verdict::Reject {
                    s.blend_multipliers(alpha);
                    if s.derivatives() {
                        if verdict == Verdict::FilterStep {
                            self.filter.augment(p.theta, p.f, t);
                        }
                        s.info.step_length = alpha;
                        return true;
                    }
                }
            }
            if alpha == 1.0
                && dir.kind == Kind::Newton
                && s.settings.second_order_correction
                && let Some((_, theta)) = trial
                && theta >= p.theta
                && let Some((f, theta)) = s.correction_values(dir)
            {
                let verdict = self.filter.verdict(&p, 1.0, theta, f, t);
                if verdict != Verdict::Reject && s.accept_correction() {
                    if verdict == Verdict::FilterStep {
                        self.filter.augment(p.theta, p.f, t);
                    }
                    return true;
                }
            }
            alpha *= if trial.is_some() {
                BACKTRACK
            } else {
                BACKTRACK_FAILED
            };
            if alpha < min_step {
                return false;
            }
        }
    }

    /// The ℓ1-merit search (see the module documentation).
    fn merit_search(
        &mut self,
        s: &mut Search<'_, '_>,
        dir: &Direction,
        step: &[f64],
        min_step: f64,
    ) -> bool {
        let t = &s.settings.tuning;
        let slope = dir.gd - self.penalty * (dir.theta - dir.theta_lin);
        let phi0 = merit(s.current.f, self.penalty, dir.theta);
        let allowance = t.rounding * f64::EPSILON * phi0.abs().max(1.0);
        let target = |alpha: f64| phi0 + t.merit_armijo * alpha * slope + allowance;
        let mut alpha = 1.0;
        loop {
            let trial = s
                .values(alpha, step)
                .map(|(f, theta)| (merit(f, self.penalty, theta), theta));
            if let Some((phi, _)) = trial
                && phi <= target(alpha)
            {
                s.blend_multipliers(alpha);
                if s.derivatives() {
                    s.info.step_length = alpha;
                    return true;
                }
            }
            if alpha == 1.0
                && dir.kind == Kind::Newton
                && s.settings.second_order_correction
                && let Some((_, theta_trial)) = trial
                && theta_trial > 0.0
                && let Some((f, theta)) = s.correction_values(dir)
                && merit(f, self.penalty, theta) <= target(1.0)
                && s.accept_correction()
            {
                return true;
            }
            alpha = match trial {
                Some((phi, _)) => {
                    let curvature = phi - phi0 - slope * alpha;
                    let quadratic = -slope * alpha * alpha / (2.0 * curvature);
                    if quadratic.is_finite() {
                        quadratic.clamp(INTERPOLATION_MIN * alpha, BACKTRACK * alpha)
                    } else {
                        BACKTRACK * alpha
                    }
                }
                None => BACKTRACK_FAILED * alpha,
            };
            if alpha < min_step {
                return false;
            }
        }
    }
}
