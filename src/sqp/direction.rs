//! The search direction: the QP step, or the elastic step when the linearization is
//! inconsistent, with the merit penalty update and the local-infeasibility test.

use std::time::Instant;

use super::merit::{linearized_violation, update_penalty, violation};
use super::outcome::Status;
use super::qp::QpStatus;
use super::solver::{HessianModel, Sqp, StepInfo, Stop};
use super::sparse::{symmetric_product_norm, symmetric_quadratic_form};
use super::subspace::LagrangianModel;

/// Shifts from which the QP multipliers are corrected to those of the unshifted model (see
/// `Polish::unshift_multipliers`). Empirical, from the trajectory problems (iterations of
/// pendulum_swingup_1/2/3 and acrobot_swingup): correcting after every shift, 33 (ending at a
/// saddle, `Acceptable`)/26/18/38; from 1, 33 (`Acceptable`)/19/23/31; from 10, 64/29/21/33;
/// from 100, 64/38/29/57. Without the correction the 12-link pendulum's shift ran away
/// (10² to 10¹²).
const UNSHIFT_THRESHOLD: f64 = 10.0;

/// A search direction `d` (stored in the solver) and what the line search needs to know.
pub(super) struct Direction {
    /// `θ(x)`, the ℓ1 constraint violation at the current point.
    pub(super) theta: f64,
    /// The merit slope `D = ∇fᵀd - ν (θ - θ_lin)` of the step.
    pub(super) slope: f64,
    /// `∇fᵀd`.
    pub(super) gd: f64,
    /// The step length the line search tries first (see `subspace.rs`).
    pub(super) first_step: f64,
    /// The step is an objective-curvature step near feasibility, whose successor may be
    /// combined with it (see `subspace.rs`).
    pub(super) subspace: bool,
    /// The step came from the elastic or the restoration subproblem (no second-order
    /// correction then: it re-solves the regular QP).
    pub(super) elastic: bool,
}

impl Sqp<'_, '_> {
    /// Solves the regular QP, or the elastic QP with objective weight `weight` and penalty
    /// `rho`, and unscales the solution; accounts QP time and iterations.
    pub(super) fn solve_qp(&mut self, elastic: bool, weight: f64, rho: f64, info: &mut StepInfo) {
        let start = Instant::now();
        let hessian = self.hessian.matrix();
        let qp = if elastic {
            let qp = self.subproblem.elastic(hessian, weight, rho);
            self.elastic_qp.solve(&qp, &[], &[], &mut self.qp_solution);
            qp
        } else {
            let qp = self.subproblem.regular(hessian);
            self.qp
                .solve(&qp, &self.warm_x, &self.warm_y, &mut self.qp_solution);
            qp
        };
        // A polished solution is certified optimal whatever the backend reported; an answer
        // the backend gave up on may still point at the right face.
        if self.polish.polish(&qp, &mut self.qp_solution) {
            self.qp_solution.status = QpStatus::Solved;
            if !elastic && info.regularization >= UNSHIFT_THRESHOLD {
                self.polish
                    .unshift_multipliers(&qp, info.regularization, &mut self.qp_solution);
            }
        }
        let scale = self.subproblem.scale();
        for v in self.qp_solution.x.iter_mut().chain(&mut self.qp_solution.y) {
            *v *= scale;
        }
        if let (false, HessianModel::Exact(h)) = (elastic, &self.hessian)
            && self.qp_solution.status.has_solution()
        {
            let m = self.problem.m();
            self.subproblem
                .jacobian_product(&self.qp_solution.x[..self.problem.n], &mut self.qp_jd);
            let r = if self.posed_shifted {
                &self.shifted
            } else {
                &self.c
            };
            h.unaugment_multipliers(
                &self.qp_jd[..m],
                r,
                &self.x,
                &self.qp_solution.x,
                self.subproblem.bounded(),
                &mut self.qp_solution.y,
            );
        }
        let elapsed = start.elapsed();
        self.qp_time += elapsed;
        info.qp_time += elapsed;
        info.qp_iterations += self.qp_solution.iterations;
        self.qp_iterations += self.qp_solution.iterations;
        self.backend_factorizations += self.qp_solution.factorizations;
    }

    /// Sets the QP's row bounds for the constant part `r` of the linearization (`c(x)`, or
    /// the second-order correction's `shifted` values) and the matching gradient of the
    /// Hessian model's augmentation penalty.
    pub(super) fn pose_rows(&mut self, shifted: bool) {
        self.posed_shifted = shifted;
        let r = if shifted { &self.shifted } else { &self.c };
        self.subproblem.set_bounds(
            r,
            &self.problem.c_lower,
            &self.problem.c_upper,
            &self.x,
            &self.problem.x_lower,
            &self.problem.x_upper,
        );
        self.penalty_gradient.fill(0.0);
        if let HessianModel::Exact(h) = &self.hessian {
            h.add_penalty_gradient(&self.jac, r, &self.x, &mut self.penalty_gradient);
        }
        self.subproblem.set_penalty_gradient(&self.penalty_gradient);
    }

    /// `dᵀ(H + δI)d` for the step `d` (with `jd = J d`): the curvature of the Lagrangian model,
    /// without the augmentation that only convexifies the QP.
    fn model_curvature(&self) -> f64 {
        let dpd = symmetric_quadratic_form(self.hessian.matrix(), &self.d);
        match &self.hessian {
            HessianModel::Exact(h) => dpd - h.augmentation_form(&self.d, &self.jd),
            HessianModel::Bfgs(_) => dpd,
        }
    }

    /// Copies the QP solution into the step `d` and its multipliers.
    pub(super) fn take_qp_step(&mut self) {
        let (n, m) = (self.problem.n, self.problem.m());
        let y = &self.qp_solution.y;
        self.d.copy_from_slice(&self.qp_solution.x[..n]);
        self.lambda_step.copy_from_slice(&y[..m]);
        self.z_step.fill(0.0);
        for (k, &j) in self.subproblem.bounded().iter().enumerate() {
            self.z_step[j] = y[m + k];
        }
    }

    /// Solves the QP (or, if its linearization is inconsistent, the elastic QP), updates
    /// the penalty and returns the direction with its merit slope.
    pub(super) fn direction(&mut self, info: &mut StepInfo) -> Result<Direction, Stop> {
        let m = self.problem.m();
        let scale = if self.qp.normalize_steps() {
            self.step_scale
        } else {
            1.0
        };
        self.subproblem.set_scale(scale);
        self.subproblem.set_jacobian(&self.jac);
        self.subproblem.set_gradient(&self.g);
        self.pose_rows(false);
        for (w, &l) in self.warm_y.iter_mut().zip(&self.lambda) {
            *w = l / scale;
        }
        for (k, &j) in self.subproblem.bounded().iter().enumerate() {
            self.warm_y[m + k] = self.z[j] / scale;
        }
        self.solve_qp(false, 1.0, 0.0, info);
        let theta = violation(&self.c, &self.problem.c_lower, &self.problem.c_upper);
        if !self.qp_solution.status.has_solution()
            && self.qp_solution.status != QpStatus::PrimalInfeasible
            && info.objective_curvature
        {
            self.damp_objective_model = true;
        }
        if self.qp_solution.status.has_solution() {
            self.take_qp_step();
        } else if self.qp_solution.status != QpStatus::PrimalInfeasible
            && self.restoration_direction(theta, info)
        {
            info.restoration = true;
        } else {
            info.elastic = true;
            self.elastic_step(theta, info)?;
        }
        let elastic = info.elastic || info.restoration;
        let subspace = !elastic && info.objective_curvature && theta <= self.filter.theta_min;
        let first_step = match (subspace, &self.problem.hessian_structure) {
            (true, Some(structure)) => {
                let model = LagrangianModel {
                    hessian_structure: structure,
                    hessian: &self.hess,
                    gradient: &self.g,
                    jacobian_structure: &self.problem.jacobian_structure,
                    jacobian: &self.jac,
                    lambda: &self.lambda_step,
                    z: &self.z_step,
                };
                self.subspace.apply(&model, &mut self.d)
            }
            _ => 1.0,
        };
        self.subproblem.jacobian_product(&self.d, &mut self.jd);
        let theta_lin = self.linearized_violation();
        let gd: f64 = self.g.iter().zip(&self.d).map(|(g, d)| g * d).sum();
        let dhd = self.model_curvature();
        let multipliers = self
            .lambda_step
            .iter()
            .fold(0.0, |a: f64, l| a.max(l.abs()));
        self.penalty = update_penalty(self.penalty, gd, dhd, theta, theta_lin, multipliers);
        info.step_norm = self.d.iter().fold(0.0, |a: f64, d| a.max(d.abs()));
        Ok(Direction {
            theta,
            slope: gd - self.penalty * (theta - theta_lin),
            gd,
            first_step,
            subspace,
            elastic,
        })
    }

    /// Solves the elastic QP; whether it was solved. The elastic QP is feasible by
    /// construction, so a failure is numerical: if the step was normalized, the QP is posed
    /// once more unnormalized before giving up.
    fn solve_elastic_qp(&mut self, weight: f64, rho: f64, info: &mut StepInfo) -> bool {
        self.solve_qp(true, weight, rho, info);
        if self.qp_solution.status.has_solution() || self.subproblem.scale() == 1.0 {
            return self.qp_solution.status.has_solution();
        }
        self.subproblem.set_scale(1.0);
        self.pose_rows(false);
        self.solve_qp(true, weight, rho, info);
        self.qp_solution.status.has_solution()
    }

    /// The elastic step when the QP has no solution: first the feasibility subproblem (which
    /// also detects local infeasibility), then the elastic QP with a penalty large enough to
    /// achieve a tenth of the attainable linearized violation decrease. The penalty starts from
    /// `max(1, ‖λ‖∞)`, not from the merit penalty: the elastic multipliers equal the penalty on
    /// the relaxed rows, so a start above `‖λ‖∞` fed back and grew tenfold per elastic step
    /// (to 10⁵ within five iterations on the arm problem), and the Hessian with it.
    fn elastic_step(&mut self, theta: f64, info: &mut StepInfo) -> Result<(), Stop> {
        let regular_message = self.qp_solution.message.clone();
        if !self.solve_elastic_qp(0.0, 1.0, info) {
            return Err(Stop::new(
                Status::QpFailure,
                format!(
                    "QP failed ({regular_message}) and so did the feasibility QP ({})",
                    self.qp_solution.message
                ),
            ));
        }
        self.take_qp_step();
        self.subproblem.jacobian_product(&self.d, &mut self.jd);
        let best = theta - self.linearized_violation();
        // Stationarity of the violation: H d = -(Jᵀλ + z) with |λ| <= 1.
        let jac_scale = self.jac.iter().fold(1.0, |a: f64, v| a.max(v.abs()));
        let stationary = symmetric_product_norm(self.hessian.matrix(), &self.d, &mut self.hd)
            <= self.settings.tolerance * jac_scale;
        if theta > self.settings.constraint_tolerance && stationary && best <= 0.01 * theta {
            return Err(Stop::new(
                Status::LocallyInfeasible,
                format!(
                    "the constraint violation {theta:.3e} cannot be reduced to first order \
                     (stationary point of the violation)"
                ),
            ));
        }
        let mut rho = self.lambda.iter().fold(1.0, |a: f64, l| a.max(l.abs()));
        loop {
            if !self.solve_elastic_qp(1.0, rho, info) {
                return Err(Stop::new(
                    Status::QpFailure,
                    format!("elastic QP failed: {}", self.qp_solution.message),
                ));
            }
            self.take_qp_step();
            self.subproblem.jacobian_product(&self.d, &mut self.jd);
            let reduction = theta - self.linearized_violation();
            if reduction >= 0.1 * best || rho >= 1e12 {
                break;
            }
            rho *= 10.0;
        }
        self.penalty = self.penalty.max(rho);
        Ok(())
    }

    /// `θ_lin = Σ viol(c + Jd)` for the current `jd`.
    fn linearized_violation(&self) -> f64 {
        linearized_violation(
            &self.c,
            &self.jd,
            &self.problem.c_lower,
            &self.problem.c_upper,
        )
    }
}
