//! The feasibility restoration step, taken when the filter line search fails.
//!
//! Far from feasibility the Newton model can be useless: on the pendulum swing-ups the filter
//! lets the iterates trade violation for objective, and at the resulting point (violation
//! 2.6 against 0.1 a few iterations before) the QP steps were of length 50–75 and accepted
//! only at `α ≈ 10⁻⁴`. IPOPT leaves such points with a restoration phase that minimizes the
//! violation close to the current point. Here one restoration step is the shortest step to
//! the linearized feasible set, the QP
//!
//! ```text
//! minimize ½‖d‖²  subject to  c_L - c <= J d <= c_U - c,  x_L - x <= d <= x_U - x
//! ```
//!
//! (a Gauss–Newton step on the constraints, which converges quadratically to the feasible
//! set from close enough), with a backtracking search that asks for
//! `θ(x + αd) <= θ − η_r α (θ − θ_lin)` and `θ(x + αd) <= (1 − γ_θ) θ` (`η_r =
//! restoration_decrease`). The multipliers are kept, and the current point enters the filter
//! so that the iterates do not return to it. The step fails (and the line search falls back to
//! the ℓ1 merit) at a feasible point, when the linearization is inconsistent, or below
//! `α = restoration_min_step`.
//!
//! The same QP gives the search direction when the regular QP fails without proving its
//! linearization inconsistent (`step.rs`): the step then reduces the violation with the
//! multipliers kept, instead of entering the elastic mode, whose multipliers equal its
//! penalty.

use super::line_search::{Globalization, Search};
use super::merit::linearized_violation;

impl Globalization {
    /// Tries a restoration step from the current point with violation `theta`; true when a
    /// trial point was accepted (it is left in `s.trial`).
    pub(crate) fn restoration_step(&mut self, s: &mut Search<'_, '_>, theta: f64) -> bool {
        if !s
            .builder
            .restoration_qp(s.problem, s.current, s.settings, s.info)
        {
            return false;
        }
        let t = &s.settings.tuning;
        let restoration = &s.builder.restoration;
        let theta_lin = linearized_violation(
            &s.current.c,
            &restoration.jd,
            &s.problem.c_lower,
            &s.problem.c_upper,
        );
        let predicted = theta - theta_lin;
        let step = std::mem::take(&mut s.builder.restoration.d);
        let mut alpha = 1.0;
        let mut accepted = false;
        while alpha >= t.restoration_min_step {
            s.trial.set_step(&s.current.x, alpha, &step, s.problem);
            if s.trial.evaluate_values(s.problem).is_ok() {
                let trial_theta = s.trial.theta(s.problem);
                if trial_theta <= theta - t.restoration_decrease * alpha * predicted
                    && trial_theta <= (1.0 - t.filter_gamma_theta) * theta
                {
                    s.trial.lambda.copy_from_slice(&s.current.lambda);
                    s.trial.z.copy_from_slice(&s.current.z);
                    if s.trial
                        .evaluate_derivatives(s.problem, s.curvature_scale)
                        .is_ok()
                    {
                        self.filter.add(
                            (1.0 - t.filter_gamma_theta) * theta,
                            s.current.f - t.filter_gamma_f * theta,
                        );
                        s.info.restoration = true;
                        s.info.step_length = alpha;
                        s.info.step_norm = step.iter().fold(0.0, |a: f64, v| a.max(v.abs()));
                        accepted = true;
                        break;
                    }
                }
            }
            alpha *= 0.5;
        }
        s.builder.restoration.d = step;
        accepted
    }
}
