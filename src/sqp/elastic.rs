//! The elastic step, taken when the linearization is inconsistent (the QP has no solution),
//! and the test for local infeasibility.
//!
//! The elastic QP (`subproblem.rs`) relaxes every row with penalized slacks and is solved by the
//! backend with the convexified model. First the feasibility QP (no objective, penalty 1)
//! measures how much the linearized violation can be reduced at all: if the violation is
//! positive, stationary (`‖H d‖` at the tolerance) and at most a fraction
//! `infeasibility_decrease` of it can be removed, the point is locally infeasible. Otherwise
//! the elastic QP is solved with the penalty `ρ = max(1, ‖λ‖∞)`, raised by
//! `elastic_penalty_growth` until the step achieves a fraction `elastic_decrease` of the
//! attainable decrease. The penalty starts from the multipliers, not from the merit penalty:
//! the elastic multipliers equal the penalty on the relaxed rows, so a start above `‖λ‖∞` fed
//! back and grew tenfold per elastic step (to 10⁵ within five iterations on the arm problem),
//! and the Hessian with it.

use std::time::Instant;

use super::iterate::Iterate;
use super::merit::linearized_violation;
use super::step::{StepBuilder, take};
use crate::nlp::iteration::{StepInfo, Stop};
use crate::nlp::outcome::Status;
use crate::nlp::problem::Problem;
use crate::nlp::settings::Settings;
use crate::qp::sparse::symmetric_product_norm;

impl StepBuilder {
    /// The elastic step at `it` (violation `theta`) into [`StepBuilder::step`]; returns the
    /// penalty it needed and the shift of its convexified model.
    pub(crate) fn elastic(
        &mut self,
        problem: &mut Problem<'_>,
        it: &Iterate,
        theta: f64,
        floor: f64,
        settings: &Settings,
        info: &mut StepInfo,
    ) -> Result<(f64, f64), Stop> {
        let tuning = &settings.tuning;
        let regular_message = self.answer.message.clone();
        let shift = self.convex_model(problem, it, floor, tuning)?;
        if !self.solve_elastic(problem, it, 0.0, 1.0, info) {
            return Err(Stop::new(
                Status::QpFailure,
                format!(
                    "QP failed ({regular_message}) and so did the feasibility QP ({})",
                    self.answer.message
                ),
            ));
        }
        let best = theta - self.elastic_violation(problem, it);
        // Stationarity of the violation: H d = -(Jᵀλ + z) with |λ| <= 1.
        let jac_scale = it.jac.iter().fold(1.0, |a: f64, v| a.max(v.abs()));
        let mut hd = vec![0.0; it.x.len()];
        let stationary = symmetric_product_norm(self.hessian.convex(), &self.step.d, &mut hd)
            <= settings.tolerance * jac_scale;
        if theta > settings.constraint_tolerance
            && stationary
            && best <= tuning.infeasibility_decrease * theta
        {
            return Err(Stop::new(
                Status::LocallyInfeasible,
                format!(
                    "the constraint violation {theta:.3e} cannot be reduced to first order \
                     (stationary point of the violation)"
                ),
            ));
        }
        let mut rho = it.lambda.iter().fold(1.0, |a: f64, l| a.max(l.abs()));
        loop {
            if !self.solve_elastic(problem, it, 1.0, rho, info) {
                return Err(Stop::new(
                    Status::QpFailure,
                    format!("elastic QP failed: {}", self.answer.message),
                ));
            }
            let reduction = theta - self.elastic_violation(problem, it);
            if reduction >= tuning.elastic_decrease * best || rho >= tuning.elastic_penalty_max {
                break;
            }
            rho *= tuning.elastic_penalty_growth;
        }
        Ok((rho, shift))
    }

    /// Solves the elastic QP with the convex model, objective weight `weight` and penalty
    /// `rho` into the step; whether it has a solution.
    fn solve_elastic(
        &mut self,
        problem: &Problem<'_>,
        it: &Iterate,
        weight: f64,
        rho: f64,
        info: &mut StepInfo,
    ) -> bool {
        let start = Instant::now();
        self.pose(problem, it, &it.c);
        let qp = self.subproblem.elastic(self.hessian.convex(), weight, rho);
        self.elastic_backend.solve(&qp, &[], &[], &mut self.answer);
        let solved = self.answer.status.has_solution();
        self.count_backend(info);
        if solved {
            let (n, m) = (it.x.len(), problem.m());
            let rows = m + self.subproblem.bounded().len();
            let y = &self.answer.y[..rows];
            take(
                &self.answer.x[..n],
                y,
                m,
                self.subproblem.bounded(),
                &mut self.step,
            );
        }
        self.add_qp_time(start.elapsed());
        solved
    }

    /// `θ_lin` of the step just computed.
    fn elastic_violation(&mut self, problem: &Problem<'_>, it: &Iterate) -> f64 {
        self.subproblem
            .jacobian_product(&self.step.d, &mut self.step.jd);
        linearized_violation(&it.c, &self.step.jd, &problem.c_lower, &problem.c_upper)
    }
}
