//! Backtracking line search on the ℓ1 merit function, with a second-order correction.
//!
//! A trial point `x + αd` (clamped into the variable bounds) is accepted when
//! `φ(x + αd) <= φ(x) + 10⁻⁴ α D + 100 ε_mach max(1, |φ(x)|)`, where `D` is the merit slope of
//! the step (see [`merit`](super::merit)); the last term absorbs rounding once the iterates
//! have converged. The gradient, Jacobian and (exact) Hessian are evaluated at an accepted
//! trial before the step is taken, so every iterate has finite derivatives; a failed or
//! non-finite evaluation anywhere along the way counts as a rejected trial.
//!
//! If the full step is rejected while the constraint violation at the trial point is
//! nonzero, a second-order correction `d̂` is tried first (Maratos effect): the QP is solved
//! again with the same Hessian and gradient and the constant part of the linearization
//! replaced by `c(x + d) - Jd`, and `x + d̂` is tested with the same slope. After that the step
//! length shrinks by safeguarded quadratic interpolation (to between 0.1 and 0.5 of the last
//! one; to a quarter after a failed evaluation) down to `α = 10⁻¹⁰`.

use super::direction::Direction;
use super::merit::{merit, violation};
use super::solver::{HessianModel, Sqp, StepInfo, Stop};

const ARMIJO: f64 = 1e-4;
const MIN_STEP: f64 = 1e-10;
/// Merit increases below `ROUNDING ε_mach max(1, |φ|)` are taken as rounding noise.
const ROUNDING: f64 = 100.0;

impl Sqp<'_, '_> {
    fn set_trial_point(&mut self, alpha: f64, step: &[f64]) {
        let bounds = self.problem.x_lower.iter().zip(&self.problem.x_upper);
        for (((t, &x), &d), (&l, &u)) in self.x_trial.iter_mut().zip(&self.x).zip(step).zip(bounds)
        {
            *t = (x + alpha * d).clamp(l, u);
        }
    }

    /// `f` and `c` at the trial point; the merit value and violation, or `None` if an
    /// evaluation failed.
    fn trial_merit(&mut self) -> Option<(f64, f64)> {
        let f = self.problem.objective(&self.x_trial).ok()?;
        self.problem
            .constraints(&self.x_trial, &mut self.c_trial)
            .ok()?;
        self.f_trial = f;
        let theta = violation(&self.c_trial, &self.problem.c_lower, &self.problem.c_upper);
        Some((merit(f, self.penalty, theta), theta))
    }

    /// Derivatives at the trial point with the multipliers already in `lambda_trial`.
    fn trial_derivatives(&mut self) -> bool {
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
    /// in the `*_trial` fields), `Ok(false)` when the step length became too small.
    pub(super) fn line_search(
        &mut self,
        dir: &Direction,
        info: &mut StepInfo,
    ) -> Result<bool, Stop> {
        let phi0 = merit(self.f, self.penalty, dir.theta);
        let allowance = ROUNDING * f64::EPSILON * phi0.abs().max(1.0);
        let x_norm = self.x.iter().fold(1.0, |a: f64, v| a.max(v.abs()));
        let tiny = info.step_norm <= 10.0 * f64::EPSILON * x_norm;
        let step = std::mem::take(&mut self.d);
        let mut alpha = 1.0;
        let accepted = loop {
            self.set_trial_point(alpha, &step);
            let trial = self.trial_merit();
            if let Some((phi, _)) = trial
                && (tiny || phi <= phi0 + ARMIJO * alpha * dir.slope + allowance)
            {
                self.blend_multipliers(alpha);
                if self.trial_derivatives() {
                    info.step_length = alpha;
                    break true;
                }
            }
            if alpha == 1.0
                && !dir.elastic
                && self.settings.second_order_correction
                && let Some((_, theta_trial)) = trial
                && theta_trial > 0.0
                && self.second_order_correction(phi0 + ARMIJO * dir.slope + allowance, info)
            {
                break true;
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
            if alpha < MIN_STEP {
                break false;
            }
        };
        self.d = step;
        Ok(accepted)
    }

    /// Tries the second-order correction; accepts it when its merit is below `target`.
    fn second_order_correction(&mut self, target: f64, info: &mut StepInfo) -> bool {
        let m = self.problem.m();
        for i in 0..m {
            self.shifted[i] = self.c_trial[i] - self.jd[i];
        }
        self.pose_rows(true);
        self.solve_qp(false, 1.0, 0.0, info);
        if !self.qp_solution.status.has_solution() {
            return false;
        }
        let correction = std::mem::take(&mut self.qp_solution.x);
        self.set_trial_point(1.0, &correction);
        self.qp_solution.x = correction;
        let accepted = self.trial_merit().is_some_and(|(phi, _)| phi <= target);
        if !accepted {
            return false;
        }
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
