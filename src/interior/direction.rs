//! The primal-dual Newton step of the barrier problem (Wächter & Biegler 2006, Eq. 13), with
//! the slacks and bound multipliers eliminated and IPOPT's inertia correction.
//!
//! With `Σ_x = Z_L/(X − X_L) + Z_U/(X_U − X)`, `Σ_s` the same for the slacks, `W = ∇²L` and a
//! shift `δ_w` (0 unless the inertia asks for one), the step solves
//!
//! ```text
//! [ W + Σ_x + δ_w I    Jᵀ  ] [dx]     [ ∇_x φ_μ + Jᵀy                       ]
//! [ J                 −D   ] [dy] = − [ c_E − c_L ;  c_I − s + r_s / (Σ_s + δ_w) ]
//! ```
//!
//! with `D = δ_c` on equality rows and `1/(Σ_s + δ_w) + δ_c` on inequality rows, `r_s = ∇_s φ_μ −
//! y`; then `ds = (dy − r_s)/(Σ_s + δ_w)` and `dz_L = μ/(x − x_L) − z_L − Σ_L dx` (and alike).
//! `δ_c` is a dual regularization of `dual_regularization · ‖aᵢ‖² / max(1, max |W_jj|)`, so
//! that the factorization without pivoting (`qp/kkt.rs`, multipliers first) is a Cholesky
//! factorization whenever the inertia is right; it perturbs `J dx = −c` by `δ_c dy`, which
//! vanishes with `dy` near a solution. The inertia correction: `δ_w = 0` first; while the matrix
//! lacks `n` positive eigenvalues, `δ_w` follows IPOPT's schedule, the one the working-set QP
//! uses too (`InertiaSettings::shift_schedule`, Algorithm IC of the paper).

use super::point::{Layout, Point, Row, barrier_gradient};
use crate::nlp::InteriorSettings;
use crate::nlp::problem::Problem;
use crate::qp::kkt::{InertiaSettings, KktMatrix, smallest_shift};

/// The relative shift `ε` of the positive-semidefiniteness test
/// ([`NewtonSystem::positive_semidefinite`]): `H + εI` with `ε` this times `max(1, max |H_jj|)`.
const SEMIDEFINITE_TEST_SHIFT: f64 = 1e-8;

/// A step of every primal and dual quantity.
#[derive(Clone, Default)]
pub(super) struct Direction {
    pub(super) dx: Vec<f64>,
    pub(super) ds: Vec<f64>,
    pub(super) dy: Vec<f64>,
    pub(super) dzl: Vec<f64>,
    pub(super) dzu: Vec<f64>,
    pub(super) dvl: Vec<f64>,
    pub(super) dvu: Vec<f64>,
}

impl Direction {
    pub(super) fn new(n: usize, m: usize) -> Self {
        Self {
            dx: vec![0.0; n],
            ds: vec![0.0; m],
            dy: vec![0.0; m],
            dzl: vec![0.0; n],
            dzu: vec![0.0; n],
            dvl: vec![0.0; m],
            dvu: vec![0.0; m],
        }
    }
}

/// The Newton system of one solve: its matrix, factored once per iteration, and scratch.
pub(super) struct NewtonSystem {
    pub(super) kkt: KktMatrix,
    n: usize,
    primal: Vec<f64>,
    dual: Vec<f64>,
    /// `Σ_s + δ_w` of the inequality rows.
    slack_curvature: Vec<f64>,
    /// `r_s` of the inequality rows.
    slack_residual: Vec<f64>,
    rhs: Vec<f64>,
    /// `max(1, max |W_jj|)` and `‖aᵢ‖²` of the iterate the matrix was built at.
    hessian_scale: f64,
    row_norms: Vec<f64>,
    /// The shift of the current factorization, and the last nonzero one.
    pub(super) shift: f64,
    last_shift: f64,
    /// The relative residual of the last solve.
    pub(super) solve_error: f64,
}

impl NewtonSystem {
    pub(super) fn new(problem: &Problem<'_>, layout: &Layout, inertia: &InertiaSettings) -> Self {
        let (n, m) = (problem.n, problem.m());
        let (keep_column, keep_row) = layout.kept();
        let hessian = problem.hessian_structure.as_deref().unwrap_or(&[]);
        let kkt = KktMatrix::new(
            n,
            hessian,
            &problem.jacobian_structure,
            &keep_column,
            &keep_row,
            inertia.dense_row,
        );
        Self {
            kkt,
            n,
            primal: vec![0.0; n],
            dual: vec![0.0; m],
            slack_curvature: vec![0.0; m],
            slack_residual: vec![0.0; m],
            rhs: vec![0.0; n + m],
            hessian_scale: 1.0,
            row_norms: vec![0.0; m],
            shift: 0.0,
            last_shift: 0.0,
            solve_error: 0.0,
        }
    }

    /// Measures the scales `δ_c` depends on at `p` with the Hessian values `hessian`.
    fn measure(&mut self, problem: &Problem<'_>, layout: &Layout, p: &Point, hessian: &[f64]) {
        let mut scale: f64 = 1.0;
        if let Some(structure) = &problem.hessian_structure {
            for (&(r, c), &v) in structure.iter().zip(hessian) {
                if r == c && !layout.fixed[r] {
                    scale = scale.max(v.abs());
                }
            }
        }
        self.hessian_scale = scale;
        self.row_norms.fill(0.0);
        for (&(i, j), &v) in problem.jacobian_structure.iter().zip(&p.jac) {
            if !layout.fixed[j] {
                self.row_norms[i] += v * v;
            }
        }
    }

    /// Assembles the matrix at `p` with the Hessian `hessian` (triplet values; the Lagrangian's
    /// or a proximal diagonal when empty), the shift `delta`, `extra` added to every primal
    /// diagonal entry and `weight` replacing the rows' regularization when given (the
    /// restoration phase's least-squares weight).
    #[allow(clippy::too_many_arguments)]
    fn assemble(
        &mut self,
        problem: &Problem<'_>,
        layout: &Layout,
        p: &Point,
        hessian: &[f64],
        delta: f64,
        extra: f64,
        weight: Option<f64>,
        settings: &InteriorSettings,
    ) {
        for j in 0..self.n {
            self.primal[j] = if layout.fixed[j] {
                1.0
            } else {
                let mut sigma = extra + delta;
                if layout.lower[j] {
                    sigma += p.zl[j] / (p.x[j] - problem.x_lower[j]);
                }
                if layout.upper[j] {
                    sigma += p.zu[j] / (problem.x_upper[j] - p.x[j]);
                }
                sigma
            };
        }
        for (i, row) in layout.rows.iter().enumerate() {
            let regularization = weight
                .unwrap_or(settings.dual_regularization * self.row_norms[i] / self.hessian_scale);
            self.dual[i] = match row {
                Row::Equality => regularization,
                Row::Inequality => {
                    let mut sigma = extra + delta;
                    if layout.s_lower[i] {
                        sigma += p.vl[i] / (p.s[i] - problem.c_lower[i]);
                    }
                    if layout.s_upper[i] {
                        sigma += p.vu[i] / (problem.c_upper[i] - p.s[i]);
                    }
                    self.slack_curvature[i] = sigma;
                    1.0 / sigma + regularization
                }
                Row::Free => 1.0,
            };
        }
        self.kkt.assemble(hessian, &p.jac, &self.primal, &self.dual);
    }

    /// Factors the Newton matrix at `p` with the Hessian values `hessian` and the smallest
    /// shift of IPOPT's schedule `schedule` that gives it the right inertia; `false` if none
    /// up to `shift_max` does.
    pub(super) fn factor(
        &mut self,
        problem: &Problem<'_>,
        layout: &Layout,
        p: &Point,
        hessian: &[f64],
        settings: &InteriorSettings,
        schedule: &InertiaSettings,
    ) -> bool {
        self.measure(problem, layout, p, hessian);
        let (first, growth) = schedule.shift_schedule(self.last_shift);
        let found = smallest_shift(Some(0.0), first, growth, schedule.shift_max, |delta| {
            self.assemble(problem, layout, p, hessian, delta, 0.0, None, settings);
            self.kkt.factor()
        });
        let Some(delta) = found else {
            return false;
        };
        self.shift = delta;
        if delta > 0.0 {
            self.last_shift = delta;
        }
        true
    }

    /// Factors `[I Jᵀ; J −D]` at `p`, with `D` the rows' regularization plus 1 on inequality
    /// rows: the least-squares multipliers' system.
    pub(super) fn factor_identity(
        &mut self,
        problem: &Problem<'_>,
        layout: &Layout,
        p: &Point,
        settings: &InteriorSettings,
    ) -> bool {
        self.measure(problem, layout, p, &p.hess);
        self.primal.fill(1.0);
        for (i, row) in layout.rows.iter().enumerate() {
            let regularization =
                settings.dual_regularization * self.row_norms[i] / self.hessian_scale;
            self.dual[i] = match row {
                Row::Equality => regularization,
                Row::Inequality => 1.0 + regularization,
                Row::Free => 1.0,
            };
        }
        self.kkt.assemble(&[], &p.jac, &self.primal, &self.dual);
        self.kkt.factor()
    }

    /// Whether the triplet values `hessian` (the objective's Hessian) are positive
    /// semidefinite on the variables that move: `H + εI` with `ε = 1e-8 max(1, max |H_jj|)`
    /// factors with the right inertia (the rows left out).
    pub(super) fn positive_semidefinite(
        &mut self,
        problem: &Problem<'_>,
        layout: &Layout,
        hessian: &[f64],
    ) -> bool {
        let mut scale: f64 = 1.0;
        if let Some(structure) = &problem.hessian_structure {
            for (&(r, c), &v) in structure.iter().zip(hessian) {
                if r == c && !layout.fixed[r] {
                    scale = scale.max(v.abs());
                }
            }
        }
        self.primal.fill(SEMIDEFINITE_TEST_SHIFT * scale);
        self.dual.fill(1.0);
        let zeros = vec![0.0; problem.jacobian_structure.len()];
        self.kkt.assemble(hessian, &zeros, &self.primal, &self.dual);
        self.kkt.factor()
    }

    /// Factors the restoration phase's matrix at `p`: the Levenberg–Marquardt regularization
    /// `zeta` in place of the Hessian and unit least-squares weights on the rows (positive
    /// definite primal block: always the right inertia).
    pub(super) fn factor_restoration(
        &mut self,
        problem: &Problem<'_>,
        layout: &Layout,
        p: &Point,
        zeta: f64,
        settings: &InteriorSettings,
    ) -> bool {
        self.measure(problem, layout, p, &p.hess);
        self.assemble(problem, layout, p, &[], 0.0, zeta, Some(1.0), settings);
        self.shift = 0.0;
        self.kkt.factor()
    }

    /// Solves for the step at `p` with barrier parameter `mu` into `d`, on the matrix last
    /// factored. The rows' residuals are `residual(i)` (the equalities' residuals for the
    /// Newton step, corrected ones for a second-order correction). With `restoration` (the
    /// restoration phase's regularization, see [`NewtonSystem::factor_restoration`]) the
    /// objective and the multipliers drop out: the step of `½‖r‖²` and the barrier terms.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve(
        &mut self,
        problem: &Problem<'_>,
        layout: &Layout,
        p: &Point,
        mu: f64,
        settings: &InteriorSettings,
        residual: impl Fn(usize) -> f64,
        restoration: Option<f64>,
        d: &mut Direction,
    ) {
        let (n, damping) = (self.n, settings.damping);
        let stationary = restoration.is_none();
        // Top: −(∇_x φ_μ + Jᵀy).
        let top = &mut self.rhs[..n];
        top.fill(0.0);
        if stationary {
            for (&(i, j), &v) in problem.jacobian_structure.iter().zip(&p.jac) {
                if layout.rows[i] != Row::Free {
                    top[j] += v * p.y[i];
                }
            }
        }
        for (j, t) in top.iter_mut().enumerate() {
            *t = if layout.fixed[j] {
                0.0
            } else {
                let objective = if stationary { p.g[j] } else { 0.0 };
                let bounds = (problem.x_lower[j], problem.x_upper[j]);
                let has = (layout.lower[j], layout.upper[j]);
                -(*t + objective + barrier_gradient(p.x[j], bounds, has, mu, damping))
            };
        }
        for (i, row) in layout.rows.iter().enumerate() {
            self.rhs[n + i] = match row {
                Row::Equality => -residual(i),
                Row::Inequality => {
                    let bounds = (problem.c_lower[i], problem.c_upper[i]);
                    let has = (layout.s_lower[i], layout.s_upper[i]);
                    let multiplier = if stationary { p.y[i] } else { 0.0 };
                    let r_s = barrier_gradient(p.s[i], bounds, has, mu, damping) - multiplier;
                    self.slack_residual[i] = r_s;
                    -(residual(i) + r_s / self.slack_curvature[i])
                }
                Row::Free => 0.0,
            };
        }
        self.solve_error = self.kkt.solve(&mut self.rhs);
        d.dx.copy_from_slice(&self.rhs[..n]);
        for (i, row) in layout.rows.iter().enumerate() {
            let dy = self.rhs[n + i];
            d.dy[i] = if *row == Row::Free { 0.0 } else { dy };
            d.ds[i] = if *row == Row::Inequality {
                (dy - self.slack_residual[i]) / self.slack_curvature[i]
            } else {
                0.0
            };
        }
        bound_steps(problem, layout, p, mu, d);
    }
}

/// The bound multipliers' steps `dz = μ/slack − z ∓ (z/slack) dx` from the primal step.
pub(super) fn bound_steps(
    problem: &Problem<'_>,
    layout: &Layout,
    p: &Point,
    mu: f64,
    d: &mut Direction,
) {
    let step = |multiplier: f64, distance: f64, toward: f64| {
        mu / distance - multiplier - multiplier / distance * toward
    };
    for j in 0..p.x.len() {
        d.dzl[j] = if layout.lower[j] {
            step(p.zl[j], p.x[j] - problem.x_lower[j], d.dx[j])
        } else {
            0.0
        };
        d.dzu[j] = if layout.upper[j] {
            step(p.zu[j], problem.x_upper[j] - p.x[j], -d.dx[j])
        } else {
            0.0
        };
    }
    for i in 0..p.s.len() {
        d.dvl[i] = if layout.s_lower[i] {
            step(p.vl[i], p.s[i] - problem.c_lower[i], d.ds[i])
        } else {
            0.0
        };
        d.dvu[i] = if layout.s_upper[i] {
            step(p.vu[i], problem.c_upper[i] - p.s[i], -d.ds[i])
        } else {
            0.0
        };
    }
}
