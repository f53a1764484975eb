//! The step builder: from the linearization at an iterate, the Hessian model and a QP, a search
//! direction with its multipliers.
//!
//! The QP `min ½dᵀHd + ∇fᵀd` s.t. `c_L − c <= J d <= c_U − c`, `x_L − x <= d <= x_U − x`
//! (`subproblem.rs`) is solved by the working-set solver (`active_set.rs`) with the exact
//! model `H` (shifted only where its reduced Hessian needs it), started from the previous
//! iteration's working set. The QP backend ([`QpSolver`]: Clarabel, OSQP or the user's) is
//! called only when there is no working set to start from (the first iteration) or when the
//! working-set solver fails; it solves the QP with the convex model (`hessian.rs`), and the
//! primal active-set method (`active_set.rs`) continues from its solution on the exact model.
//! When that fails too, the backend's own step is taken. A backend that proves the QP
//! infeasible sends the step to the elastic mode (`elastic.rs`); one that fails without a proof
//! leaves the iteration a restoration direction (`restoration.rs`), or, if that QP fails too,
//! the elastic step.
//!
//! The second-order correction re-solves the QP with the constant part of the linearization
//! replaced by `c(x + d) − J d` from the working set of the step, with the same Hessian and
//! shift, on the step's working set alone (`ActiveSetQp::solve_on_face`: one solve, on the
//! factorization already computed). A correction QP free to change the working set is not a
//! correction of the step but a step to another face, which the next iteration's QP undoes: on
//! the 2-link swing-up one end-slope row entered with the correction and left with the next
//! step, a two-cycle of a corrected full step and a half step back for 350 iterations.

use std::time::{Duration, Instant};

use super::hessian::HessianModel;
use super::iterate::Iterate;
use super::subproblem::Subproblem;
use crate::nlp::iteration::{StepInfo, Stop};
use crate::nlp::outcome::Status;
use crate::nlp::problem::Problem;
use crate::nlp::settings::{Settings, Tuning};
use crate::qp::sparse::symmetric_quadratic_form;
use crate::qp::{ActiveSetQp, QpSolution, QpSolver, QpStatus, Side, working_set_of};

/// A step `d` with the multipliers of its QP and `J d`.
pub(crate) struct Step {
    pub(crate) d: Vec<f64>,
    pub(crate) lambda: Vec<f64>,
    pub(crate) z: Vec<f64>,
    pub(crate) jd: Vec<f64>,
}

impl Step {
    fn new(n: usize, m: usize) -> Self {
        Self {
            d: vec![0.0; n],
            lambda: vec![0.0; m],
            z: vec![0.0; n],
            jd: vec![0.0; m],
        }
    }

    /// `‖d‖∞`.
    pub(crate) fn norm(&self) -> f64 {
        self.d.iter().fold(0.0, |a: f64, v| a.max(v.abs()))
    }
}

/// Where a direction came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The QP's solution.
    Newton,
    /// The elastic QP's solution (inconsistent linearization).
    Elastic,
    /// The restoration QP's solution with the current multipliers (the QP failed).
    Restoration,
}

/// A direction (in [`StepBuilder::step`]) and what the globalization needs to know about it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Direction {
    pub(crate) kind: Kind,
    /// `θ(x)`.
    pub(crate) theta: f64,
    /// `θ_lin = Σ viol(c + J d)`.
    pub(crate) theta_lin: f64,
    /// `∇fᵀd`.
    pub(crate) gd: f64,
    /// `dᵀ(H + δI)d`, the model's curvature along the step.
    pub(crate) dhd: f64,
    /// The shift `δ` of the model the step is optimal for.
    pub(crate) shift: f64,
    /// The step is optimal for the (shifted) Hessian model, not the backends' convex model.
    pub(crate) exact_model: bool,
    /// `‖λ‖∞` of the step's multipliers.
    pub(crate) multipliers: f64,
    /// The penalty the elastic QP needed (0 for other steps).
    pub(crate) elastic_penalty: f64,
}

/// How the regular QP ended.
enum Answer {
    /// Solved with this shift of the exact model (`exact`), or of the backend's convex model.
    Solved { shift: f64, exact: bool },
    /// The backend proved the linearization inconsistent.
    Infeasible,
    /// No solution and no proof.
    Failed,
}

/// The Hessian model, the QP data, the working-set solver and the backends of one solve.
pub(crate) struct StepBuilder {
    pub(crate) subproblem: Subproblem,
    pub(crate) hessian: HessianModel,
    active_set: ActiveSetQp,
    sides: Vec<Side>,
    /// `sides` is the working set of the last QP solved.
    warm: bool,
    pub(crate) backend: Box<dyn QpSolver>,
    pub(crate) elastic_backend: Box<dyn QpSolver>,
    pub(crate) restoration_backend: Box<dyn QpSolver>,
    pub(crate) answer: QpSolution,
    x: Vec<f64>,
    y: Vec<f64>,
    shifted: Vec<f64>,
    /// The direction last computed.
    pub(crate) step: Step,
    /// The second-order correction last computed.
    pub(crate) correction: Step,
    /// The restoration step last computed (multipliers unused).
    pub(crate) restoration: Step,
    /// Time in the QP solvers so far.
    pub(crate) qp_time: Duration,
    backend_factorizations: usize,
    /// `∇²f` triplet values for the convex model, and the model's shift once prepared.
    objective_hess: Vec<f64>,
    no_multipliers: Vec<f64>,
    convex_shift: Option<f64>,
    /// The shift the objective's Hessian needed the last time it was convexified (`None`
    /// before the first time, and for BFGS).
    pub(crate) objective_shift: Option<f64>,
}

impl StepBuilder {
    /// The builder for `problem` with the backends `backends()` makes (three instances: the
    /// regular, the elastic and the restoration QP each keep their own setup).
    pub(crate) fn new(
        problem: &Problem<'_>,
        hessian: HessianModel,
        settings: &Settings,
        backends: &dyn Fn() -> Box<dyn QpSolver>,
    ) -> Self {
        let (n, m) = (problem.n, problem.m());
        let mut subproblem = Subproblem::new(
            n,
            m,
            &problem.x_lower,
            &problem.x_upper,
            &problem.jacobian_structure,
        );
        let active_set = ActiveSetQp::new(
            &subproblem.regular(hessian.matrix()),
            &settings.tuning.qp,
            &settings.tuning.inertia,
        );
        let rows = m + subproblem.bounded().len();
        Self {
            subproblem,
            hessian,
            active_set,
            sides: vec![Side::Inactive; rows],
            warm: false,
            backend: backends(),
            elastic_backend: backends(),
            restoration_backend: backends(),
            answer: QpSolution::default(),
            x: vec![0.0; n],
            y: vec![0.0; rows],
            shifted: vec![0.0; m],
            step: Step::new(n, m),
            correction: Step::new(n, m),
            restoration: Step::new(n, m),
            qp_time: Duration::ZERO,
            backend_factorizations: 0,
            objective_hess: vec![0.0; problem.hessian_structure.as_ref().map_or(0, Vec::len)],
            no_multipliers: vec![0.0; m],
            convex_shift: None,
            objective_shift: None,
        }
    }

    /// Numeric factorizations so far (working-set solver, convexification, backends).
    pub(crate) fn factorizations(&self) -> usize {
        self.active_set.factorizations()
            + self.hessian.factorizations()
            + self.backend_factorizations
    }

    /// Sets the QP data for the linearization at `it` with constant part `r` of the rows.
    pub(crate) fn pose(&mut self, problem: &Problem<'_>, it: &Iterate, r: &[f64]) {
        self.subproblem.set_jacobian(&it.jac);
        self.subproblem.set_gradient(&it.g);
        self.subproblem.set_bounds(
            r,
            &problem.c_lower,
            &problem.c_upper,
            &it.x,
            &problem.x_lower,
            &problem.x_upper,
        );
    }

    /// Computes the search direction at `it` into [`StepBuilder::step`], with a Hessian shift
    /// of at least `floor`.
    pub(crate) fn direction(
        &mut self,
        problem: &mut Problem<'_>,
        it: &Iterate,
        floor: f64,
        settings: &Settings,
        info: &mut StepInfo,
    ) -> Result<Direction, Stop> {
        self.hessian.set_exact(&it.hess);
        self.convex_shift = None;
        self.pose(problem, it, &it.c);
        let theta = it.theta(problem);
        let mut direction = Direction {
            kind: Kind::Newton,
            theta,
            theta_lin: 0.0,
            gd: 0.0,
            dhd: 0.0,
            shift: 0.0,
            exact_model: false,
            multipliers: 0.0,
            elastic_penalty: 0.0,
        };
        let answer = self.solve_regular(problem, it, floor, &settings.tuning, info)?;
        if let Answer::Solved { shift, exact } = answer {
            direction.shift = shift;
            direction.exact_model = exact;
            info.regularization = shift;
            let (m, bounded) = (problem.m(), self.subproblem.bounded());
            take(&self.x, &self.y, m, bounded, &mut self.step);
        } else if matches!(answer, Answer::Failed)
            && self.restoration_qp(problem, it, settings, info)
        {
            // No proof of inconsistency: reduce the violation with the multipliers kept.
            info.restoration = true;
            direction.kind = Kind::Restoration;
            self.step.d.copy_from_slice(&self.restoration.d);
            self.step.lambda.copy_from_slice(&it.lambda);
            self.step.z.copy_from_slice(&it.z);
        } else {
            info.elastic = true;
            direction.kind = Kind::Elastic;
            let (penalty, shift) = self.elastic(problem, it, theta, floor, settings, info)?;
            direction.elastic_penalty = penalty;
            direction.shift = shift;
            info.regularization = shift;
        }
        self.subproblem
            .jacobian_product(&self.step.d, &mut self.step.jd);
        direction.theta_lin = super::merit::linearized_violation(
            &it.c,
            &self.step.jd,
            &problem.c_lower,
            &problem.c_upper,
        );
        direction.gd = it.g.iter().zip(&self.step.d).map(|(g, d)| g * d).sum();
        direction.dhd = symmetric_quadratic_form(self.hessian.matrix(), &self.step.d)
            + direction.shift * self.step.d.iter().map(|d| d * d).sum::<f64>();
        direction.multipliers = self
            .step
            .lambda
            .iter()
            .fold(0.0, |a: f64, l| a.max(l.abs()));
        info.step_norm = self.step.norm();
        Ok(direction)
    }

    /// The regular QP: from the working set when there is one, else (or when that fails) from
    /// the backend's answer on the convexified model. The solution is left in `x`, `y`.
    fn solve_regular(
        &mut self,
        problem: &mut Problem<'_>,
        it: &Iterate,
        floor: f64,
        tuning: &Tuning,
        info: &mut StepInfo,
    ) -> Result<Answer, Stop> {
        let (start, evaluations) = (Instant::now(), problem.time);
        let answer = self.solve_regular_timed(problem, it, floor, tuning, info);
        // The objective's Hessian for the convex model is the problem's time, not the QP's.
        self.add_qp_time(start.elapsed() - (problem.time - evaluations));
        answer
    }

    /// Adds `elapsed` to the QP time.
    pub(crate) fn add_qp_time(&mut self, elapsed: Duration) {
        self.qp_time += elapsed;
    }

    /// Adds the backend's last answer to the QP iterations and factorizations.
    pub(crate) fn count_backend(&mut self, info: &mut StepInfo) {
        info.linear_solves += self.answer.iterations;
        self.backend_factorizations += self.answer.factorizations;
    }

    fn solve_regular_timed(
        &mut self,
        problem: &mut Problem<'_>,
        it: &Iterate,
        floor: f64,
        tuning: &Tuning,
        info: &mut StepInfo,
    ) -> Result<Answer, Stop> {
        if self.warm
            && let Some(shift) = self.face_solve(floor, tuning, info)
        {
            return Ok(Answer::Solved { shift, exact: true });
        }
        self.warm = false;
        info.backend_qp = true;
        let convex_shift = self.convex_model(problem, it, floor, tuning)?;
        let qp = self.subproblem.regular(self.hessian.convex());
        self.backend.solve(&qp, &[], &[], &mut self.answer);
        let (n, rows) = (self.x.len(), self.y.len());
        let has_point = self.answer.x.len() == n && self.answer.y.len() == rows;
        if has_point {
            working_set_of(
                &qp,
                &self.answer.x,
                &self.answer.y,
                &mut self.y,
                &mut self.sides,
            );
        }
        self.count_backend(info);
        if has_point {
            let qp = self.subproblem.regular(self.hessian.matrix());
            let result = self.active_set.solve_from(
                &qp,
                &self.answer.x,
                &mut self.sides,
                floor,
                &tuning.qp,
                &mut self.x,
                &mut self.y,
            );
            if let Ok(solution) = result {
                self.warm = true;
                info.linear_solves += solution.rounds;
                return Ok(Answer::Solved {
                    shift: solution.shift,
                    exact: true,
                });
            }
        }
        Ok(match self.answer.status {
            QpStatus::Solved => {
                self.x.copy_from_slice(&self.answer.x);
                self.y.copy_from_slice(&self.answer.y);
                Answer::Solved {
                    shift: convex_shift,
                    exact: false,
                }
            }
            QpStatus::PrimalInfeasible => Answer::Infeasible,
            _ => Answer::Failed,
        })
    }

    /// Prepares the backends' convex model at `it` (once per direction, see `hessian.rs`) and
    /// returns its shift.
    pub(crate) fn convex_model(
        &mut self,
        problem: &mut Problem<'_>,
        it: &Iterate,
        floor: f64,
        tuning: &Tuning,
    ) -> Result<f64, Stop> {
        if let Some(shift) = self.convex_shift {
            return Ok(shift);
        }
        if self.hessian.is_exact() {
            problem
                .hessian(
                    &it.x,
                    &it.c,
                    &it.jac,
                    &self.no_multipliers,
                    &mut self.objective_hess,
                )
                .map_err(|message| Stop::new(Status::EvaluationError, message))?;
        }
        let shift = self
            .hessian
            .prepare_convex(&self.objective_hess, floor, tuning)
            .ok_or_else(|| {
                Stop::new(
                    Status::QpFailure,
                    "the objective's Hessian could not be made positive definite",
                )
            })?;
        self.convex_shift = Some(shift);
        if self.hessian.is_exact() {
            self.objective_shift = Some(shift);
        }
        Ok(shift)
    }

    /// The working-set solver on the regular QP with the exact model from `sides`; the shift,
    /// or `None` if it failed.
    fn face_solve(&mut self, floor: f64, tuning: &Tuning, info: &mut StepInfo) -> Option<f64> {
        let qp = self.subproblem.regular(self.hessian.matrix());
        let result = self.active_set.solve(
            &qp,
            &mut self.sides,
            floor,
            &tuning.qp,
            &mut self.x,
            &mut self.y,
        );
        self.warm = result.is_ok();
        let solution = result.ok()?;
        info.linear_solves += solution.rounds;
        Some(solution.shift)
    }

    /// The second-order correction for the step just computed, given `c` at the trial point
    /// `x + d`, on the step's working set: into [`StepBuilder::correction`]; false if its
    /// face was not solved.
    pub(crate) fn second_order_correction(
        &mut self,
        problem: &Problem<'_>,
        it: &Iterate,
        c_trial: &[f64],
        shift: f64,
        tuning: &Tuning,
        info: &mut StepInfo,
    ) -> bool {
        let start = Instant::now();
        let mut shifted = std::mem::take(&mut self.shifted);
        for ((r, c), jd) in shifted.iter_mut().zip(c_trial).zip(&self.step.jd) {
            *r = c - jd;
        }
        self.pose(problem, it, &shifted);
        self.shifted = shifted;
        let qp = self.subproblem.regular(self.hessian.matrix());
        let result = self.active_set.solve_on_face(
            &qp,
            &self.sides,
            shift,
            &tuning.qp,
            &mut self.x,
            &mut self.y,
        );
        if let Ok(solution) = result {
            info.linear_solves += solution.rounds;
            let (m, bounded) = (problem.m(), self.subproblem.bounded());
            take(&self.x, &self.y, m, bounded, &mut self.correction);
        }
        self.add_qp_time(start.elapsed());
        result.is_ok()
    }

    /// Solves the restoration QP `min ½‖d‖²` over the linearized constraints at `it` into
    /// [`StepBuilder::restoration`]; false at a feasible point or when the QP has no
    /// solution.
    pub(crate) fn restoration_qp(
        &mut self,
        problem: &Problem<'_>,
        it: &Iterate,
        settings: &Settings,
        info: &mut StepInfo,
    ) -> bool {
        if it.theta(problem) <= settings.constraint_tolerance {
            return false;
        }
        let start = Instant::now();
        self.pose(problem, it, &it.c);
        let qp = self.subproblem.restoration();
        self.restoration_backend
            .solve(&qp, &[], &[], &mut self.answer);
        self.count_backend(info);
        let solved = self.answer.status.has_solution() && self.answer.x.len() == self.x.len();
        if solved {
            self.restoration.d.copy_from_slice(&self.answer.x);
            self.subproblem
                .jacobian_product(&self.restoration.d, &mut self.restoration.jd);
        }
        self.add_qp_time(start.elapsed());
        solved
    }
}

/// Copies a QP solution `(x, y)` (rows: `m` constraints, then the bound rows of `bounded`)
/// into `step`.
pub(crate) fn take(x: &[f64], y: &[f64], m: usize, bounded: &[usize], step: &mut Step) {
    let n = step.d.len();
    step.d.copy_from_slice(&x[..n]);
    step.lambda.copy_from_slice(&y[..m]);
    step.z.fill(0.0);
    for (k, &j) in bounded.iter().enumerate() {
        step.z[j] = y[m + k];
    }
}
