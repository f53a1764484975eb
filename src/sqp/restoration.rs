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
//! `θ(x + αd) <= θ − 10⁻⁴ α (θ − θ_lin)` and `θ(x + αd) <= (1 − γ_θ) θ`. The multipliers are
//! kept, and the current point enters the filter so that the iterates do not return to it.
//! The step fails (and the line search falls back to the ℓ1 merit) at a feasible point, when
//! the linearization is inconsistent, or below `α = 10⁻⁴`.
//!
//! The same QP gives the search direction when the regular QP fails without proving its
//! linearization inconsistent (the backend gave up on an ill-conditioned `P` and the polish
//! could not recover a solution): the step then reduces the violation with the multipliers
//! kept, instead of entering the elastic mode, whose multipliers equal its penalty.

use std::time::Instant;

use super::merit::linearized_violation;
use super::qp::QpStatus;
use super::solver::{Sqp, StepInfo};

const SUFFICIENT_DECREASE: f64 = 1e-4;
const MIN_STEP: f64 = 1e-4;
/// The filter's `γ_θ`, `γ_f`.
const GAMMA_THETA: f64 = 1e-5;
const GAMMA_F: f64 = 1e-8;

impl Sqp<'_, '_> {
    /// Solves the restoration QP at the current point (posed unnormalized); whether it has a
    /// solution, which is left in `qp_solution`.
    fn solve_restoration_qp(&mut self, info: &mut StepInfo) -> bool {
        self.subproblem.set_scale(1.0);
        self.pose_rows(false);
        let start = Instant::now();
        let qp = self.subproblem.restoration();
        self.restoration_qp
            .solve(&qp, &[], &[], &mut self.qp_solution);
        if self.polish.polish(&qp, &mut self.qp_solution) {
            self.qp_solution.status = QpStatus::Solved;
        }
        let elapsed = start.elapsed();
        self.qp_time += elapsed;
        info.qp_time += elapsed;
        info.qp_iterations += self.qp_solution.iterations;
        self.qp_iterations += self.qp_solution.iterations;
        self.backend_factorizations += self.qp_solution.factorizations;
        self.qp_solution.status.has_solution()
    }

    /// The restoration step as the search direction, with the current multipliers, when the
    /// regular QP failed without proving its linearization inconsistent (an ill-conditioned
    /// `P` on which the backend gave up); false at a feasible point or if the restoration QP
    /// fails too.
    pub(super) fn restoration_direction(&mut self, theta: f64, info: &mut StepInfo) -> bool {
        if theta <= self.settings.constraint_tolerance || !self.solve_restoration_qp(info) {
            return false;
        }
        let n = self.problem.n;
        self.d.copy_from_slice(&self.qp_solution.x[..n]);
        self.lambda_step.copy_from_slice(&self.lambda);
        self.z_step.copy_from_slice(&self.z);
        true
    }

    /// Tries a restoration step from the current point with violation `theta`; true when a
    /// trial point was accepted (it is left in the `*_trial` fields).
    pub(super) fn restoration_step(&mut self, theta: f64, info: &mut StepInfo) -> bool {
        if theta <= self.settings.constraint_tolerance || !self.solve_restoration_qp(info) {
            return false;
        }
        let step = self.qp_solution.x[..self.problem.n].to_vec();
        let mut jd = vec![0.0; self.problem.m()];
        self.subproblem.jacobian_product(&step, &mut jd);
        let theta_lin =
            linearized_violation(&self.c, &jd, &self.problem.c_lower, &self.problem.c_upper);
        let predicted = theta - theta_lin;
        let mut alpha = 1.0;
        while alpha >= MIN_STEP {
            self.set_trial_point(alpha, &step);
            if let Some((_, trial_theta)) = self.trial_values()
                && trial_theta <= theta - SUFFICIENT_DECREASE * alpha * predicted
                && trial_theta <= (1.0 - GAMMA_THETA) * theta
            {
                self.lambda_trial.copy_from_slice(&self.lambda);
                self.z_trial.copy_from_slice(&self.z);
                if self.trial_derivatives() {
                    self.filter
                        .add((1.0 - GAMMA_THETA) * theta, self.f - GAMMA_F * theta);
                    info.restoration = true;
                    info.step_length = alpha;
                    info.step_norm = step.iter().fold(0.0, |a: f64, v| a.max(v.abs()));
                    return true;
                }
            }
            alpha *= 0.5;
        }
        false
    }
}
