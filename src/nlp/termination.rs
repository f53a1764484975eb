//! When a solve ends, the same for both methods: `Converged` when every tolerance holds,
//! `Acceptable` after `acceptable_iterations` consecutive iterates within the acceptable
//! tolerances (or when a step fails at such an iterate), `MaxIterations` and `TimeLimit`.

use std::time::Instant;

use super::outcome::{Residuals, Status};
use super::settings::Settings;

/// Why a solve stops, with one sentence on it.
pub(crate) type Ending = (Status, String);

/// The termination tests of one solve.
pub(crate) struct Termination<'s> {
    settings: &'s Settings,
    start: Instant,
    acceptable_count: usize,
}

impl<'s> Termination<'s> {
    pub(crate) fn new(settings: &'s Settings, start: Instant) -> Self {
        Self {
            settings,
            start,
            acceptable_count: 0,
        }
    }

    /// Whether `r` meets the tolerances.
    pub(crate) fn converged(&self, r: &Residuals) -> bool {
        let s = self.settings;
        r.primal_infeasibility <= s.constraint_tolerance
            && r.dual_infeasibility <= s.tolerance
            && r.complementarity <= s.tolerance
            && r.complementarity_violation <= s.complementarity_tolerance
    }

    /// Whether `r` meets the acceptable tolerances.
    pub(crate) fn acceptable(&self, r: &Residuals) -> bool {
        let s = self.settings;
        r.primal_infeasibility <= s.acceptable_constraint_tolerance
            && r.dual_infeasibility <= s.acceptable_tolerance
            && r.complementarity <= s.acceptable_tolerance
            && r.complementarity_violation <= s.acceptable_constraint_tolerance
    }

    /// The ending at iterate `iteration` with residuals `r`, if the solve ends there; with
    /// `final_problem` false (a homotopy not at its end yet) only the limits end it.
    pub(crate) fn check(
        &mut self,
        r: &Residuals,
        iteration: usize,
        final_problem: bool,
    ) -> Option<Ending> {
        let s = self.settings;
        if !final_problem {
            self.acceptable_count = 0;
            return self.limits(iteration);
        }
        if self.converged(r) {
            return Some((Status::Converged, "all tolerances met".into()));
        }
        self.acceptable_count = if self.acceptable(r) {
            self.acceptable_count + 1
        } else {
            0
        };
        if self.acceptable_count >= s.acceptable_iterations {
            let n = self.acceptable_count;
            return Some((
                Status::Acceptable,
                format!("acceptable tolerances met for {n} iterates"),
            ));
        }
        self.limits(iteration)
    }

    /// `MaxIterations` or `TimeLimit` at iterate `iteration`, if a limit is reached.
    fn limits(&self, iteration: usize) -> Option<Ending> {
        let s = self.settings;
        if iteration >= s.max_iterations {
            return Some((Status::MaxIterations, "iteration limit reached".into()));
        }
        if let Some(limit) = s.time_limit_s
            && self.start.elapsed().as_secs_f64() >= limit
        {
            return Some((Status::TimeLimit, "time limit reached".into()));
        }
        None
    }

    /// The ending when the step from an iterate with residuals `r` failed with `status` and
    /// `message`: `Acceptable` at an acceptable iterate (unless the failure proves local
    /// infeasibility), else the failure itself.
    pub(crate) fn after_failure(&self, r: &Residuals, status: Status, message: String) -> Ending {
        if self.acceptable(r) && status != Status::LocallyInfeasible {
            (
                Status::Acceptable,
                format!("acceptable tolerances met; cannot continue: {message}"),
            )
        } else {
            (status, message)
        }
    }
}
