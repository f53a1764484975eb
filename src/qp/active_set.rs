//! The QP subproblem solved on the KKT system of a working set, with inertia control, on one
//! sparse `LDLᵀ` whose symbolic analysis is done once per pattern.
//!
//! For `min ½xᵀPx + qᵀx` s.t. `l <= Ax <= u` (`P` symmetric, possibly indefinite) and a working
//! set `W` of rows held at one of their bounds `b_W`, the face problem is
//!
//! ```text
//! [ P + δI   A_Wᵀ ] [ x ]   [ -q + δ x_c ]
//! [ A_W     -E_W  ] [ y ] = [    b_W     ]
//! ```
//!
//! (`x_c = 0` except in the proximal steps below).
//!
//! **One pattern for every working set.** The matrix is the KKT matrix of `P` and all rows of
//! `A` ([`KktMatrix`], `kkt.rs`, which owns the pattern, the ordering, the `LDLᵀ` and its
//! inertia test): a row outside `W` keeps its pattern but gets zero values and `-1` on the
//! diagonal, so its multiplier is exactly zero and it contributes one negative eigenvalue. The
//! ordering and the symbolic factorization are computed once; each working set costs one
//! numeric refactorization, and a matrix that has not changed (a second-order correction, a
//! proximal step) none.
//!
//! **Inertia control** (Wächter & Biegler 2006, §3.1). The face solution minimizes the QP on
//! the face when the reduced Hessian of `P + δI` on the null space of `A_W` is positive
//! definite, i.e. when the matrix has `n` positive and `m` negative eigenvalues. `δ` stays at
//! the caller's floor (usually 0) when that holds; otherwise it follows IPOPT's schedule
//! ([`InertiaSettings`]): `δ₀` (or a fraction of the last shift), then growing until the
//! inertia is right. Within one QP
//! the shift only grows, so the final solution is optimal for one model `P + δI`.
//!
//! **Stable without pivoting.** QDLDL does not pivot. The multipliers of rows with at most
//! `InertiaSettings::dense_row` entries are eliminated first, with the dual regularization `E_W = ε‖aᵢ‖²/σ`
//! (`σ = max(1, max |P_jj|)`) on their diagonal: what is left to factor is
//! `P + δI + σ Σ_{i∈W} nᵢnᵢᵀ/ε` (unit normals `nᵢ`), positive definite exactly when the
//! inertia is right, whose `LDLᵀ` is a Cholesky factorization, stable in any order (AMD orders
//! it; this is `KktMatrix`'s multipliers-first order). Longer rows are ordered by AMD among the
//! primal variables. GMRES on the unregularized face system, preconditioned by this
//! factorization (`Krylov`, with `KktMatrix::solve_factored`), removes the regularization's
//! bias, also on a face whose active rows are nearly dependent, where plain iterative
//! refinement stalls; on a degenerate face (linearly dependent active rows, consistent) it
//! converges to a solution with bounded multipliers.
//!
//! **From a working set** ([`ActiveSetQp::solve`]; primal-dual active set, Hintermüller, Ito &
//! Kunisch 2002). After each face solve, rows outside `W` that the solution violates enter
//! at the violated side and inequality rows of `W` whose multiplier has the wrong sign leave,
//! the largest first. A face that turns out inconsistent (dependent rows at incompatible
//! bounds) is undone and half of the changes are tried; a working set seen before allows one
//! change per round. The solution is certified when no row changes: primal feasible,
//! multipliers of the right signs, `P + δI` positive definite on the face. When it needed a
//! shift, up to `proximal_steps` proximal steps follow: the same face problem centred at the
//! solution (`x_c`), which moves it on towards a minimizer of the unshifted QP, along
//! directions of negative curvature until rows block them; if the rounds run out before a
//! proximal solution is certified, the last certified one is returned. From a shift of
//! `unshift_threshold` on, the multipliers returned are those of the unshifted model on the
//! final face (a least-squares solve, see `ActiveSetQp::finish`).
//!
//! **From a feasible point** ([`ActiveSetQp::solve_from`]; primal active set). Each face
//! solution is approached as far as the rows outside `W` allow and the first rows to block
//! enter; at a face minimizer the rows with wrong-sign multipliers leave. The iterates stay
//! feasible, so every face is consistent; a row the working set implies (it stays at its bound
//! up to rounding) does not block. The SQP starts it from the backend's solution when the first
//! method fails.

use nalgebra_sparse::CscMatrix;
use serde::{Deserialize, Serialize};

use super::QpProblem;
use super::kkt::{InertiaSettings, KktMatrix, smallest_shift};
use super::sparse::add_product;
use crate::settings_check::{Check, InvalidSetting};

/// Which bound a QP row is held at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Not in the working set.
    Inactive,
    /// Held at `l` (an equality row is always held at `l = u`).
    Lower,
    /// Held at `u`.
    Upper,
}

/// The constants of [`ActiveSetQp`], with the defaults the SQP was measured with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ActiveSetSettings {
    /// Most primal-dual rounds of [`ActiveSetQp::solve`] (the proximal steps come on top).
    pub rounds: usize,
    /// Most rounds of the primal method [`ActiveSetQp::solve_from`].
    pub primal_rounds: usize,
    /// Relative feasibility tolerance of the face solutions, and the fraction of the largest
    /// multiplier below which a wrong sign is ignored.
    pub tolerance: f64,
    /// Relative violation up to which the primal method's starting point counts as feasible.
    pub primal_tolerance: f64,
    /// Dual regularization `ε`, relative to the squared row norm and `σ`.
    pub dual_regularization: f64,
    /// Krylov dimension of one refinement cycle of a face solve.
    pub refinement_steps: usize,
    /// Most refinement cycles (GMRES restarts) of a face solve.
    pub refinement_cycles: usize,
    /// Proximal steps after a face solution that needed a shift.
    pub proximal_steps: usize,
    /// From this shift on, the multipliers are corrected to the unshifted model's.
    pub unshift_threshold: f64,
}

impl Default for ActiveSetSettings {
    fn default() -> Self {
        Self {
            rounds: 10,
            primal_rounds: 500,
            tolerance: 1e-9,
            primal_tolerance: 1e-6,
            dual_regularization: 1e-8,
            refinement_steps: 20,
            refinement_cycles: 3,
            proximal_steps: 3,
            unshift_threshold: 10.0,
        }
    }
}

impl ActiveSetSettings {
    /// Checks every constant in order; the first one out of its domain.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        Check::new()
            .count("rounds", self.rounds)
            .count("primal_rounds", self.primal_rounds)
            .count("refinement_steps", self.refinement_steps)
            .count("refinement_cycles", self.refinement_cycles)
            .positive("tolerance", self.tolerance)
            .positive("primal_tolerance", self.primal_tolerance)
            .positive("dual_regularization", self.dual_regularization)
            .positive("unshift_threshold", self.unshift_threshold)
            .finish()
    }
}

/// A certified solution of [`ActiveSetQp`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceSolution {
    /// The shift `δ` of the model `P + δI` the solution is optimal for.
    pub shift: f64,
    /// Face solves it took.
    pub rounds: usize,
}

/// Why [`ActiveSetQp`] certified no solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActiveSetFailure {
    /// No shift up to `shift_max` gave the right inertia (non-finite data).
    Inertia,
    /// A face was inconsistent: its rows could not all be held at their bounds.
    InconsistentFace,
    /// The working set was still changing after the round limit (or the starting point of
    /// [`ActiveSetQp::solve_from`] was infeasible).
    NotConverged,
}

/// The working-set QP solver for one QP pattern; see the module documentation.
pub struct ActiveSetQp {
    n: usize,
    shape: [usize; 4],
    /// The face matrix over all rows; an unchanged matrix is not refactored.
    kkt: KktMatrix,
    /// The values written into `kkt` for a face: `A`'s (zero for the rows outside the
    /// working set), the primal diagonal's shift and the rows' diagonal (negated).
    jacobian: Vec<f64>,
    primal: Vec<f64>,
    dual: Vec<f64>,
    /// The centre `x_c` of the proximal steps (zero outside them).
    center: Vec<f64>,
    /// The working set of the solution certified before the proximal steps.
    certified_sides: Vec<Side>,
    regularization: Vec<f64>,
    rhs: Vec<f64>,
    solution: Vec<f64>,
    residual: Vec<f64>,
    /// The refinement's Krylov workspace.
    krylov: Krylov,
    /// `A x` of the face solution.
    ax: Vec<f64>,
    /// The primal method's iterate and its row values.
    point: Vec<f64>,
    point_ax: Vec<f64>,
    /// Changes the current face asks for: row, new side, size of the violation.
    changes: Vec<(usize, Side, f64)>,
    /// The changes that led to the current working set: row, new side, old side.
    applied: Vec<(usize, Side, Side)>,
    seen: Vec<u64>,
    /// The inertia correction's schedule, and the last nonzero shift it found, for the
    /// schedule of the next one.
    inertia: InertiaSettings,
    last_shift: f64,
}

impl ActiveSetQp {
    /// Builds the KKT pattern of `qp` and its ordering (rows with at most `dense_row` entries
    /// eliminated first; see the module documentation); its inertia correction follows
    /// `inertia`.
    pub fn new(
        qp: &QpProblem<'_>,
        settings: &ActiveSetSettings,
        inertia: &InertiaSettings,
    ) -> Self {
        let (p, a) = (qp.hessian, qp.constraints);
        let (n, m) = (p.ncols(), a.nrows());
        Self {
            n,
            shape: [n, m, p.nnz(), a.nnz()],
            kkt: KktMatrix::from_csc(p, a, inertia.dense_row),
            jacobian: vec![0.0; a.nnz()],
            primal: vec![0.0; n],
            dual: vec![0.0; m],
            center: vec![0.0; n],
            certified_sides: vec![Side::Inactive; m],
            regularization: vec![0.0; m],
            rhs: vec![0.0; n + m],
            solution: vec![0.0; n + m],
            residual: vec![0.0; n + m],
            krylov: Krylov::new(n + m, settings.refinement_steps),
            ax: vec![0.0; m],
            point: vec![0.0; n],
            point_ax: vec![0.0; m],
            changes: Vec::new(),
            applied: Vec::new(),
            seen: Vec::new(),
            inertia: *inertia,
            last_shift: 0.0,
        }
    }

    /// Whether `qp` has the pattern this solver was built for.
    pub fn fits(&self, qp: &QpProblem<'_>) -> bool {
        self.shape
            == [
                qp.hessian.ncols(),
                qp.constraints.nrows(),
                qp.hessian.nnz(),
                qp.constraints.nnz(),
            ]
    }

    /// Numeric factorizations performed so far.
    pub fn factorizations(&self) -> usize {
        self.kkt.factorizations()
    }

    /// Solves `qp` by primal-dual active-set rounds (at most `rounds`, plus the proximal steps)
    /// from the working set `sides` (one entry per row; replaced by the final working set),
    /// with a shift of at least `floor`. On success the solution is in `x` and the row
    /// multipliers (sign convention of [`QpSolution`](super::QpSolution)) in `y`.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &mut [Side],
        floor: f64,
        settings: &ActiveSetSettings,
        x: &mut [f64],
        y: &mut [f64],
    ) -> Result<FaceSolution, ActiveSetFailure> {
        for (i, side) in sides.iter_mut().enumerate() {
            *side = admissible(*side, qp.lower[i], qp.upper[i]);
        }
        self.start(qp, settings);
        let mut limit = usize::MAX;
        let mut shift = floor;
        let mut proximal = 0;
        // The last certified solution, kept while proximal steps try to improve on it.
        let mut certified: Option<FaceSolution> = None;
        let (mut round, mut budget) = (0, settings.rounds);
        while budget > 0 {
            round += 1;
            budget -= 1;
            shift = match self.factor_with_inertia(qp, sides, shift) {
                Ok(shift) => shift,
                Err(failure) => return self.certified_or(certified, sides, failure),
            };
            self.solve_face(qp, sides, shift, settings);
            if !self.face_consistent(qp, sides, settings) {
                // Back to the last consistent face, with half of the changes.
                if self.applied.len() <= 1 {
                    return self.certified_or(certified, sides, ActiveSetFailure::InconsistentFace);
                }
                for &(i, _, old) in &self.applied {
                    sides[i] = old;
                }
                limit = self.applied.len() / 2;
                self.applied.truncate(limit);
                for &(i, side, _) in &self.applied {
                    sides[i] = side;
                }
                continue;
            }
            self.collect_changes(qp, sides, settings);
            if self.changes.is_empty() {
                self.finish(qp, sides, shift, settings, x, y);
                let solution = FaceSolution {
                    shift,
                    rounds: round,
                };
                if shift > floor && proximal < settings.proximal_steps && self.moved(settings) {
                    // A proximal step: the same face problem centred at this solution.
                    certified = Some(solution);
                    self.certified_sides.copy_from_slice(sides);
                    self.center.copy_from_slice(&self.solution[..self.n]);
                    proximal += 1;
                    budget += 1;
                    continue;
                }
                return Ok(solution);
            }
            self.changes.sort_unstable_by(|a, b| b.2.total_cmp(&a.2));
            self.changes.truncate(limit);
            self.applied.clear();
            for &(i, side, _) in &self.changes {
                self.applied.push((i, side, sides[i]));
                sides[i] = side;
            }
            limit = if self.repeated(sides) {
                1
            } else {
                limit.saturating_mul(2)
            };
        }
        self.certified_or(certified, sides, ActiveSetFailure::NotConverged)
    }

    /// The solution certified before the proximal steps (its working set restored), or
    /// `failure` when there is none.
    fn certified_or(
        &self,
        certified: Option<FaceSolution>,
        sides: &mut [Side],
        failure: ActiveSetFailure,
    ) -> Result<FaceSolution, ActiveSetFailure> {
        let solution = certified.ok_or(failure)?;
        sides.copy_from_slice(&self.certified_sides);
        Ok(solution)
    }

    /// Solves `qp` by the primal active-set method from the point `start`, which must satisfy
    /// every row to the relative tolerance `primal_tolerance`; the rows of `sides` at their
    /// bounds there start the working set. Otherwise as [`ActiveSetQp::solve`].
    #[allow(clippy::too_many_arguments)]
    pub fn solve_from(
        &mut self,
        qp: &QpProblem<'_>,
        start: &[f64],
        sides: &mut [Side],
        floor: f64,
        settings: &ActiveSetSettings,
        x: &mut [f64],
        y: &mut [f64],
    ) -> Result<FaceSolution, ActiveSetFailure> {
        let n = self.n;
        self.point.copy_from_slice(start);
        self.point_ax.fill(0.0);
        add_product(qp.constraints, &self.point, &mut self.point_ax);
        let near = |value: f64, bound: f64| {
            (value - bound).abs() <= settings.primal_tolerance * (1.0 + bound.abs())
        };
        for (i, side) in sides.iter_mut().enumerate() {
            let (l, u, v) = (qp.lower[i], qp.upper[i], self.point_ax[i]);
            if v < l && !near(v, l) || v > u && !near(v, u) {
                return Err(ActiveSetFailure::NotConverged);
            }
            *side = match admissible(*side, l, u) {
                Side::Lower if near(v, l) => Side::Lower,
                Side::Upper if near(v, u) => Side::Upper,
                _ => Side::Inactive,
            };
        }
        self.start(qp, settings);
        let tol = settings.tolerance;
        let mut cautious = false;
        let mut shift = floor;
        for round in 1..=settings.primal_rounds {
            shift = self.factor_with_inertia(qp, sides, shift)?;
            self.solve_face(qp, sides, shift, settings);
            if !self.face_consistent(qp, sides, settings) {
                return Err(ActiveSetFailure::InconsistentFace);
            }
            let alpha = self.blocking_step(qp, sides, tol);
            for j in 0..n {
                self.point[j] += alpha * (self.solution[j] - self.point[j]);
            }
            self.changes.clear();
            for (i, side) in sides.iter().enumerate() {
                let ap = self.ax[i] - self.point_ax[i];
                self.point_ax[i] += alpha * ap;
                let (l, u, v) = (qp.lower[i], qp.upper[i], self.point_ax[i]);
                if alpha < 1.0 && *side == Side::Inactive {
                    if ap > 0.0 && u.is_finite() && v >= u - tol * (1.0 + u.abs()) {
                        self.changes.push((i, Side::Upper, 0.0));
                    } else if ap < 0.0 && l.is_finite() && v <= l + tol * (1.0 + l.abs()) {
                        self.changes.push((i, Side::Lower, 0.0));
                    }
                }
            }
            if self.changes.is_empty() {
                // At the face minimizer: the rows with wrong-sign multipliers leave.
                self.collect_changes(qp, sides, settings);
                self.changes.retain(|c| c.1 == Side::Inactive);
                if self.changes.is_empty() {
                    self.finish(qp, sides, shift, settings, x, y);
                    return Ok(FaceSolution {
                        shift,
                        rounds: round,
                    });
                }
            }
            if cautious {
                // One change: the first blocking row, or the most wrong multiplier.
                let first = self
                    .changes
                    .iter()
                    .copied()
                    .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)));
                self.changes.clear();
                self.changes.extend(first);
            }
            for &(i, side, _) in &self.changes {
                sides[i] = side;
            }
            cautious |= self.repeated(sides);
        }
        Err(ActiveSetFailure::NotConverged)
    }

    /// Solves `qp` on the face `sides` alone (no row enters or leaves), with a shift of at
    /// least `floor`: the face's stationary point, whatever the rows outside it and the
    /// multipliers' signs say. For the second-order correction of a step on its working set.
    #[allow(clippy::too_many_arguments)]
    pub fn solve_on_face(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &[Side],
        floor: f64,
        settings: &ActiveSetSettings,
        x: &mut [f64],
        y: &mut [f64],
    ) -> Result<FaceSolution, ActiveSetFailure> {
        self.start(qp, settings);
        let shift = self.factor_with_inertia(qp, sides, floor)?;
        self.solve_face(qp, sides, shift, settings);
        if !self.face_consistent(qp, sides, settings) {
            return Err(ActiveSetFailure::InconsistentFace);
        }
        self.finish(qp, sides, shift, settings, x, y);
        Ok(FaceSolution { shift, rounds: 1 })
    }

    /// Resets the per-solve state: regularization, history, proximal centre.
    fn start(&mut self, qp: &QpProblem<'_>, settings: &ActiveSetSettings) {
        self.set_regularization(qp, settings);
        self.seen.clear();
        self.applied.clear();
        self.center.fill(0.0);
    }

    /// Whether the working set was seen before in this solve (and records it).
    fn repeated(&mut self, sides: &[Side]) -> bool {
        let signature = signature(sides);
        let seen = self.seen.contains(&signature);
        self.seen.push(signature);
        seen
    }

    /// Whether the face solution moved away from the proximal centre.
    fn moved(&self, settings: &ActiveSetSettings) -> bool {
        let x = &self.solution[..self.n];
        let norm = x.iter().fold(0.0, |a: f64, v| a.max(v.abs()));
        let moved = x
            .iter()
            .zip(&self.center)
            .fold(0.0, |a: f64, (v, c)| a.max((v - c).abs()));
        moved > settings.tolerance * (1.0 + norm)
    }

    /// Copies the face solution for the shift `shift` out: `x`, and the multipliers of the
    /// working set (zero for the other rows). From a shift of `unshift_threshold` on, the
    /// multipliers are those of the unshifted model on the same face: the shifted face
    /// solution satisfies `P x + q + A_Wᵀy = −δ(x − x_c)`, so they are `y + μ` with `μ =
    /// argmin ‖A_Wᵀμ − δ(x − x_c)‖` (the face system with `I` for `P`), inequality
    /// multipliers that change sign set to zero. Uncorrected, the multipliers grow with `δ`
    /// where the rows force the step (far from feasibility), the next Lagrangian Hessian with
    /// them, and so the next shift: on HS 40 from a perturbed start the shift ran from 10² to
    /// 10⁸ and the solve to its iteration limit.
    fn finish(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &[Side],
        shift: f64,
        settings: &ActiveSetSettings,
        x: &mut [f64],
        y: &mut [f64],
    ) {
        self.take_solution(sides, x, y);
        if shift < settings.unshift_threshold || !self.factor_block(qp, sides, 0.0, true) {
            return;
        }
        // The least-squares system goes through `residual`: `solution` stays the face's.
        let n = self.n;
        for (j, r) in self.residual[..n].iter_mut().enumerate() {
            *r = shift * (x[j] - self.center[j]);
        }
        self.residual[n..].fill(0.0);
        self.kkt.solve_factored(&mut self.residual);
        for (i, side) in sides.iter().enumerate() {
            let corrected = y[i] + self.residual[n + i];
            y[i] = match side {
                Side::Inactive => 0.0,
                _ if qp.lower[i] == qp.upper[i] => corrected,
                Side::Upper => corrected.max(0.0),
                Side::Lower => corrected.min(0.0),
            };
        }
    }

    /// Copies the face solution out: `x`, and the multipliers of the working set (zero for the
    /// other rows).
    fn take_solution(&self, sides: &[Side], x: &mut [f64], y: &mut [f64]) {
        let n = self.n;
        x.copy_from_slice(&self.solution[..n]);
        for (i, (yi, side)) in y.iter_mut().zip(sides).enumerate() {
            *yi = if *side == Side::Inactive {
                0.0
            } else {
                self.solution[n + i]
            };
        }
    }

    /// The largest step in `[0, 1]` from `point` towards the face solution that keeps the rows
    /// outside the working set within their bounds (rows the face solution satisfies to the
    /// tolerance do not block: a row that the working set implies moves by rounding only).
    fn blocking_step(&self, qp: &QpProblem<'_>, sides: &[Side], tol: f64) -> f64 {
        let mut alpha: f64 = 1.0;
        for (i, side) in sides.iter().enumerate() {
            let ap = self.ax[i] - self.point_ax[i];
            let (l, u, v, end) = (qp.lower[i], qp.upper[i], self.point_ax[i], self.ax[i]);
            let limit = match side {
                Side::Inactive if end > u + tol * (1.0 + u.abs()) => (u - v).max(0.0) / ap,
                Side::Inactive if end < l - tol * (1.0 + l.abs()) => (l - v).min(0.0) / ap,
                _ => continue,
            };
            alpha = alpha.min(limit);
        }
        alpha
    }

    /// `E_i = ε ‖aᵢ‖² / σ` for every row (a row without entries gets `ε / σ`).
    fn set_regularization(&mut self, qp: &QpProblem<'_>, settings: &ActiveSetSettings) {
        let p = qp.hessian;
        let sigma = self
            .diagonal_values(p)
            .fold(1.0, |s: f64, v| s.max(v.abs()));
        self.regularization.fill(0.0);
        let a = qp.constraints;
        for (&i, &v) in a.row_indices().iter().zip(a.values()) {
            self.regularization[i] += v * v;
        }
        for e in &mut self.regularization {
            *e = settings.dual_regularization * if *e > 0.0 { *e } else { 1.0 } / sigma;
        }
    }

    fn diagonal_values<'a>(&'a self, p: &'a CscMatrix<f64>) -> impl Iterator<Item = f64> + 'a {
        (0..self.n).flat_map(move |j| {
            (p.col_offsets()[j]..p.col_offsets()[j + 1])
                .filter(move |&k| p.row_indices()[k] == j)
                .map(move |k| p.values()[k])
        })
    }

    /// Factors the face matrix with the smallest shift of IPOPT's schedule, at least `start`
    /// (the shift of the solve's previous face, or the floor for its first), that gives it the
    /// right inertia; returns that shift.
    fn factor_with_inertia(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &[Side],
        start: f64,
    ) -> Result<f64, ActiveSetFailure> {
        let (first, growth) = self.inertia.shift_schedule(self.last_shift);
        let schedule = if first > start { first } else { start * growth };
        let max = self.inertia.shift_max;
        let delta = smallest_shift(Some(start), schedule, growth, max, |d| {
            self.factor(qp, sides, d)
        })
        .ok_or(ActiveSetFailure::Inertia)?;
        if delta != start {
            self.last_shift = delta;
        }
        Ok(delta)
    }

    /// Writes the face matrix for `sides` and shift `delta` and factors it; whether its
    /// inertia is `(n, m)`.
    fn factor(&mut self, qp: &QpProblem<'_>, sides: &[Side], delta: f64) -> bool {
        self.factor_block(qp, sides, delta, false)
    }

    /// [`ActiveSetQp::factor`] with the identity for `P` when `identity`.
    fn factor_block(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &[Side],
        delta: f64,
        identity: bool,
    ) -> bool {
        let a = qp.constraints;
        for ((value, &a_value), &i) in self
            .jacobian
            .iter_mut()
            .zip(a.values())
            .zip(a.row_indices())
        {
            *value = if sides[i] == Side::Inactive {
                0.0
            } else {
                a_value
            };
        }
        for ((d, side), &e) in self.dual.iter_mut().zip(sides).zip(&self.regularization) {
            *d = if *side == Side::Inactive { 1.0 } else { e };
        }
        // `P = I`: 1 + δ on the diagonal (the diagonal slots start at zero).
        let (hessian, diagonal) = if identity {
            (&[][..], 1.0 + delta)
        } else {
            (qp.hessian.values(), delta)
        };
        self.primal.fill(diagonal);
        self.kkt
            .assemble(hessian, &self.jacobian, &self.primal, &self.dual);
        self.kkt.factor_if_changed()
    }

    /// Solves the factored face system and refines the solution on the unregularized one.
    fn solve_face(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &[Side],
        delta: f64,
        settings: &ActiveSetSettings,
    ) {
        let n = self.n;
        for ((r, &q), &c) in self.rhs.iter_mut().zip(qp.linear).zip(&self.center) {
            *r = delta * c - q;
        }
        for (i, side) in sides.iter().enumerate() {
            self.rhs[n + i] = match side {
                Side::Inactive => 0.0,
                Side::Lower => qp.lower[i],
                Side::Upper => qp.upper[i],
            };
        }
        self.solution.copy_from_slice(&self.rhs);
        self.kkt.solve_factored(&mut self.solution);
        let mut last = f64::INFINITY;
        for _ in 0..settings.refinement_cycles {
            let residual = face_residual(
                qp,
                sides,
                delta,
                &self.rhs,
                &self.solution,
                &mut self.residual,
            );
            if residual >= 0.5 * last || residual == 0.0 {
                break;
            }
            last = residual;
            self.krylov.refine(
                qp,
                sides,
                delta,
                &mut self.kkt,
                &self.residual,
                &mut self.solution,
                settings.refinement_steps,
            );
        }
    }

    /// Whether every row of the working set holds its bound.
    fn face_consistent(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &[Side],
        settings: &ActiveSetSettings,
    ) -> bool {
        self.ax.fill(0.0);
        add_product(qp.constraints, &self.solution[..self.n], &mut self.ax);
        let finite = self.solution.iter().all(|v| v.is_finite());
        finite
            && sides.iter().enumerate().all(|(i, side)| {
                let bound = match side {
                    Side::Inactive => return true,
                    Side::Lower => qp.lower[i],
                    Side::Upper => qp.upper[i],
                };
                (self.ax[i] - bound).abs() <= settings.tolerance * (1.0 + bound.abs())
            })
    }

    /// The working-set changes the current face solution asks for (in `changes`, each with
    /// its violation or wrong-sign multiplier as a measure).
    fn collect_changes(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &[Side],
        settings: &ActiveSetSettings,
    ) {
        let n = self.n;
        let tol = settings.tolerance;
        let y_scale = sides
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != Side::Inactive)
            .fold(1.0, |a: f64, (i, _)| a.max(self.solution[n + i].abs()));
        self.changes.clear();
        for (i, &side) in sides.iter().enumerate() {
            let (l, u, ax, y) = (qp.lower[i], qp.upper[i], self.ax[i], self.solution[n + i]);
            let change = match side {
                _ if l == u => None,
                Side::Inactive if ax < l - tol * (1.0 + l.abs()) => Some((Side::Lower, l - ax)),
                Side::Inactive if ax > u + tol * (1.0 + u.abs()) => Some((Side::Upper, ax - u)),
                Side::Lower if y > tol * y_scale => Some((Side::Inactive, y)),
                Side::Upper if y < -tol * y_scale => Some((Side::Inactive, -y)),
                _ => None,
            };
            if let Some((side, measure)) = change {
                self.changes.push((i, side, measure));
            }
        }
    }
}

/// The working set a backend's answer `(x, y)` points at: equality rows, and the rows whose
/// slack is smaller than their multiplier (lower side when `aᵢᵀx − lᵢ < −yᵢ`, upper when
/// `uᵢ − aᵢᵀx < yᵢ`; OSQP's rule); `ax` is scratch of one entry per row.
pub(crate) fn working_set_of(
    qp: &QpProblem<'_>,
    x: &[f64],
    y: &[f64],
    ax: &mut [f64],
    sides: &mut [Side],
) {
    ax.fill(0.0);
    add_product(qp.constraints, x, ax);
    for (i, side) in sides.iter_mut().enumerate() {
        let (l, u) = (qp.lower[i], qp.upper[i]);
        *side = if l == u || (l.is_finite() && ax[i] - l < -y[i]) {
            Side::Lower
        } else if u.is_finite() && u - ax[i] < y[i] {
            Side::Upper
        } else {
            Side::Inactive
        };
    }
}

/// The side a row can be held at: equalities at `l`, no side whose bound is infinite.
fn admissible(side: Side, lower: f64, upper: f64) -> Side {
    match side {
        _ if lower == upper => Side::Lower,
        Side::Lower if lower.is_finite() => Side::Lower,
        Side::Upper if upper.is_finite() => Side::Upper,
        _ => Side::Inactive,
    }
}

/// A hash of the working set, to recognize one seen before.
fn signature(sides: &[Side]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for s in sides {
        (*s as u8).hash(&mut h);
    }
    h.finish()
}

/// `residual = rhs − K₀ solution` for the unregularized face system `K₀` (`P + δI`, `A_W`,
/// zero on the working set's diagonal); returns its largest entry.
fn face_residual(
    qp: &QpProblem<'_>,
    sides: &[Side],
    delta: f64,
    rhs: &[f64],
    solution: &[f64],
    residual: &mut [f64],
) -> f64 {
    let n = qp.linear.len();
    residual.copy_from_slice(rhs);
    let (x, y) = solution.split_at(n);
    let p = qp.hessian;
    for j in 0..n {
        for k in p.col_offsets()[j]..p.col_offsets()[j + 1] {
            let (i, v) = (p.row_indices()[k], p.values()[k]);
            if i < j {
                residual[i] -= v * x[j];
                residual[j] -= v * x[i];
            } else if i == j {
                residual[j] -= v * x[j];
            }
        }
    }
    for (r, &xj) in residual.iter_mut().zip(x) {
        *r -= delta * xj;
    }
    let a = qp.constraints;
    for j in 0..n {
        for k in a.col_offsets()[j]..a.col_offsets()[j + 1] {
            let i = a.row_indices()[k];
            if sides[i] != Side::Inactive {
                let v = a.values()[k];
                residual[j] -= v * y[i];
                residual[n + i] -= v * x[j];
            }
        }
    }
    for (i, side) in sides.iter().enumerate() {
        if *side == Side::Inactive {
            residual[n + i] += y[i];
        }
    }
    residual.iter().fold(0.0, |r: f64, v| r.max(v.abs()))
}

/// The workspace of the face solve's refinement: GMRES on the unregularized face system `K₀`,
/// left-preconditioned by the regularized factorization `K_ε` (Saad & Schultz 1986; restarted
/// by [`ActiveSetQp::solve_face`]).
///
/// Plain iterative refinement is the Richardson iteration on `K_ε⁻¹K₀`, whose error contracts by
/// `E/(E + s²)` along a direction of the working set's normals with singular value `s`: where
/// active rows are nearly dependent (`s²` far below the dual regularization `E`, as a knot
/// velocity beside the end slopes that nearly combine to it) it does not converge and the face
/// counts as inconsistent although it is not. `K_ε⁻¹K₀` is close to the identity except along
/// those few directions (its eigenvalues `s²/(E + s²)` there, near 1 elsewhere), and GMRES
/// resolves them in about as many iterations as there are near-dependencies.
struct Krylov {
    /// Orthonormal basis `V` (one more vector than the dimension).
    basis: Vec<Vec<f64>>,
    /// Upper Hessenberg matrix, column-major, `(dim + 1) × dim`.
    hessenberg: Vec<f64>,
    /// Givens rotations `(c, s)` applied to it.
    rotations: Vec<(f64, f64)>,
    /// The rotated right-hand side `β e₁`.
    g: Vec<f64>,
    zero: Vec<f64>,
}

impl Krylov {
    fn new(size: usize, dim: usize) -> Self {
        Self {
            basis: vec![vec![0.0; size]; dim + 1],
            hessenberg: vec![0.0; (dim + 1) * dim],
            rotations: vec![(1.0, 0.0); dim],
            g: vec![0.0; dim + 1],
            zero: vec![0.0; size],
        }
    }

    /// One GMRES cycle of at most `dim` iterations on `K₀ x = b`, from `solution` whose
    /// residual `b − K₀ solution` is `residual`; the correction is added to `solution`.
    #[allow(clippy::too_many_arguments)]
    fn refine(
        &mut self,
        qp: &QpProblem<'_>,
        sides: &[Side],
        delta: f64,
        preconditioner: &mut KktMatrix,
        residual: &[f64],
        solution: &mut [f64],
        dim: usize,
    ) {
        let size = solution.len();
        if self.basis.len() != dim + 1 || self.zero.len() != size {
            *self = Self::new(size, dim);
        }
        let rows = dim + 1;
        self.basis[0].copy_from_slice(residual);
        preconditioner.solve_factored(&mut self.basis[0]);
        let beta = norm(&self.basis[0]);
        if !(beta > 0.0 && beta.is_finite()) {
            return;
        }
        self.basis[0].iter_mut().for_each(|v| *v /= beta);
        self.g.fill(0.0);
        self.g[0] = beta;
        let floor = f64::EPSILON * norm(solution).max(beta);
        let mut used = 0;
        for j in 0..dim {
            let (head, tail) = self.basis.split_at_mut(j + 1);
            let w = &mut tail[0];
            // w = K_ε⁻¹ K₀ v_j (`face_residual` with a zero right-hand side gives −K₀ v_j).
            face_residual(qp, sides, delta, &self.zero, &head[j], w);
            w.iter_mut().for_each(|v| *v = -*v);
            preconditioner.solve_factored(w);
            let column = &mut self.hessenberg[j * rows..(j + 1) * rows];
            for (i, v) in head.iter().enumerate() {
                let h: f64 = w.iter().zip(v).map(|(a, b)| a * b).sum();
                column[i] = h;
                w.iter_mut().zip(v).for_each(|(a, b)| *a -= h * b);
            }
            let h = norm(w);
            column[j + 1] = h;
            if !h.is_finite() {
                break;
            }
            if h > 0.0 {
                w.iter_mut().for_each(|v| *v /= h);
            }
            for (i, &(c, s)) in self.rotations[..j].iter().enumerate() {
                let (a, b) = (column[i], column[i + 1]);
                column[i] = c * a + s * b;
                column[i + 1] = -s * a + c * b;
            }
            let (a, b) = (column[j], column[j + 1]);
            let r = a.hypot(b);
            let (c, s) = if r > 0.0 { (a / r, b / r) } else { (1.0, 0.0) };
            self.rotations[j] = (c, s);
            column[j] = r;
            column[j + 1] = 0.0;
            self.g[j + 1] = -s * self.g[j];
            self.g[j] *= c;
            used = j + 1;
            if h == 0.0 || self.g[j + 1].abs() <= floor {
                break;
            }
        }
        // Back substitution in the triangular system, then the correction V y.
        for i in (0..used).rev() {
            let mut v = self.g[i];
            for k in i + 1..used {
                v -= self.hessenberg[k * rows + i] * self.g[k];
            }
            let diag = self.hessenberg[i * rows + i];
            self.g[i] = if diag != 0.0 { v / diag } else { 0.0 };
        }
        for (y, v) in self.g[..used].iter().zip(&self.basis) {
            solution.iter_mut().zip(v).for_each(|(s, b)| *s += y * b);
        }
    }
}

/// The Euclidean norm.
fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}
