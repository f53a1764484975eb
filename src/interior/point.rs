//! The primal-dual point of the interior-point method, the shape of its bounds, and the
//! barrier problem's values there.
//!
//! Every inequality row `c_L <= c(x) <= c_U` gets a slack `s` with the row's bounds and the
//! equality `c(x) − s = 0`; equality rows keep `c(x) = c_L`; rows without finite bounds are no
//! constraints (their multiplier is zero). Variables with `x_L = x_U` are fixed: they never
//! move and their multiplier is whatever closes stationarity. The barrier problem (Wächter &
//! Biegler 2006, Eq. 3, with IPOPT's damping `κ_d μ` of one-sided bounds) is
//!
//! ```text
//! min φ_μ(x, s) = f(x) − μ Σ ln(x − x_L) − μ Σ ln(x_U − x) − μ Σ ln(s − c_L) − μ Σ ln(c_U − s)
//!                 + κ_d μ Σ_{one-sided} distance to the bound
//! s.t. c_E(x) = c_L,   c_I(x) − s = 0
//! ```
//!
//! over the bounds that are finite. Multipliers: `y` of the rows (vito's sign convention, see
//! [`Nlp`](crate::nlp::Nlp)), `z_L, z_U ≥ 0` of the variable bounds, `v_L, v_U ≥ 0` of the
//! slack bounds; vito's bound multiplier is `z = z_U − z_L`.

use crate::nlp::problem::Problem;

/// What a constraint row is to the barrier problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Row {
    /// `c_L = c_U`.
    Equality,
    /// At least one finite bound: a slack carries them.
    Inequality,
    /// No finite bound: not a constraint.
    Free,
}

/// Which bounds are finite, fixed once per solve.
pub(super) struct Layout {
    pub(super) fixed: Vec<bool>,
    /// A finite lower (upper) bound of a variable that is not fixed.
    pub(super) lower: Vec<bool>,
    pub(super) upper: Vec<bool>,
    pub(super) rows: Vec<Row>,
    /// A finite lower (upper) bound of an inequality row's slack.
    pub(super) s_lower: Vec<bool>,
    pub(super) s_upper: Vec<bool>,
}

impl Layout {
    pub(super) fn new(problem: &Problem<'_>) -> Self {
        let fixed: Vec<bool> = problem
            .x_lower
            .iter()
            .zip(&problem.x_upper)
            .map(|(l, u)| l == u)
            .collect();
        let lower = (0..problem.n)
            .map(|j| !fixed[j] && problem.x_lower[j].is_finite())
            .collect();
        let upper = (0..problem.n)
            .map(|j| !fixed[j] && problem.x_upper[j].is_finite())
            .collect();
        let rows: Vec<Row> = problem
            .c_lower
            .iter()
            .zip(&problem.c_upper)
            .map(|(&l, &u)| {
                if l == u {
                    Row::Equality
                } else if l.is_finite() || u.is_finite() {
                    Row::Inequality
                } else {
                    Row::Free
                }
            })
            .collect();
        let s_lower = (0..rows.len())
            .map(|i| rows[i] == Row::Inequality && problem.c_lower[i].is_finite())
            .collect();
        let s_upper = (0..rows.len())
            .map(|i| rows[i] == Row::Inequality && problem.c_upper[i].is_finite())
            .collect();
        Self {
            fixed,
            lower,
            upper,
            rows,
            s_lower,
            s_upper,
        }
    }

    /// Which variables and rows take part in the Newton system.
    pub(super) fn kept(&self) -> (Vec<bool>, Vec<bool>) {
        (
            self.fixed.iter().map(|f| !f).collect(),
            self.rows.iter().map(|r| *r != Row::Free).collect(),
        )
    }
}

/// A primal-dual point and the problem's functions evaluated there.
#[derive(Clone)]
pub(super) struct Point {
    pub(super) x: Vec<f64>,
    /// Slacks (used on inequality rows only).
    pub(super) s: Vec<f64>,
    pub(super) y: Vec<f64>,
    pub(super) zl: Vec<f64>,
    pub(super) zu: Vec<f64>,
    pub(super) vl: Vec<f64>,
    pub(super) vu: Vec<f64>,
    pub(super) f: f64,
    pub(super) g: Vec<f64>,
    pub(super) c: Vec<f64>,
    pub(super) jac: Vec<f64>,
    pub(super) hess: Vec<f64>,
}

impl Point {
    pub(super) fn new(problem: &Problem<'_>) -> Self {
        let (n, m) = (problem.n, problem.m());
        let hess = problem.hessian_structure.as_ref().map_or(0, Vec::len);
        Self {
            x: vec![0.0; n],
            s: vec![0.0; m],
            y: vec![0.0; m],
            zl: vec![0.0; n],
            zu: vec![0.0; n],
            vl: vec![0.0; m],
            vu: vec![0.0; m],
            f: f64::NAN,
            g: vec![0.0; n],
            c: vec![0.0; m],
            jac: vec![0.0; problem.jacobian_structure.len()],
            hess: vec![0.0; hess],
        }
    }

    /// `f` and `c` at `x`.
    pub(super) fn evaluate_values(&mut self, problem: &mut Problem<'_>) -> Result<(), String> {
        self.f = problem.objective(&self.x)?;
        problem.constraints(&self.x, &mut self.c)
    }

    /// `∇f`, `J` and `∇²L(x, y)` at `x`, after [`Point::evaluate_values`].
    pub(super) fn evaluate_derivatives(
        &mut self,
        problem: &mut Problem<'_>,
        tau: f64,
        scaled: &mut [f64],
    ) -> Result<(), String> {
        problem.gradient(&self.x, &mut self.g)?;
        problem.jacobian(&self.x, &self.c, &mut self.jac)?;
        for (s, y) in scaled.iter_mut().zip(&self.y) {
            *s = tau * y;
        }
        problem.hessian(&self.x, &self.c, &self.jac, scaled, &mut self.hess)
    }

    /// The residual of row `i` of the barrier problem's equalities: `c − c_L` or `c − s`.
    pub(super) fn row_residual(&self, layout: &Layout, problem: &Problem<'_>, i: usize) -> f64 {
        match layout.rows[i] {
            Row::Equality => self.c[i] - problem.c_lower[i],
            Row::Inequality => self.c[i] - self.s[i],
            Row::Free => 0.0,
        }
    }

    /// The largest absolute residual of the barrier problem's equalities.
    pub(super) fn largest_residual(&self, layout: &Layout, problem: &Problem<'_>) -> f64 {
        (0..self.c.len())
            .map(|i| self.row_residual(layout, problem, i).abs())
            .fold(0.0, f64::max)
    }

    /// `θ`: the ℓ1 norm of the barrier problem's equality residuals.
    pub(super) fn theta(&self, layout: &Layout, problem: &Problem<'_>) -> f64 {
        (0..self.c.len())
            .map(|i| self.row_residual(layout, problem, i).abs())
            .sum()
    }

    /// `φ_μ`, or `+∞` outside the bounds' interior.
    pub(super) fn barrier(
        &self,
        layout: &Layout,
        problem: &Problem<'_>,
        mu: f64,
        damping: f64,
    ) -> f64 {
        let mut phi = self.f;
        let mut add = |distance: f64, one_sided: bool| {
            phi -= mu * distance.ln();
            if one_sided {
                phi += damping * mu * distance;
            }
            distance > 0.0
        };
        let mut inside = true;
        for j in 0..self.x.len() {
            let (l, u) = (layout.lower[j], layout.upper[j]);
            if l {
                inside &= add(self.x[j] - problem.x_lower[j], !u);
            }
            if u {
                inside &= add(problem.x_upper[j] - self.x[j], !l);
            }
        }
        for i in 0..self.s.len() {
            let (l, u) = (layout.s_lower[i], layout.s_upper[i]);
            if l {
                inside &= add(self.s[i] - problem.c_lower[i], !u);
            }
            if u {
                inside &= add(problem.c_upper[i] - self.s[i], !l);
            }
        }
        if inside && phi.is_finite() {
            phi
        } else {
            f64::INFINITY
        }
    }
}

/// The gradient of the barrier terms of one variable (or slack) at `value` with bounds
/// `[lower, upper]` of which `has_lower`, `has_upper` are finite.
pub(super) fn barrier_gradient(
    value: f64,
    (lower, upper): (f64, f64),
    (has_lower, has_upper): (bool, bool),
    mu: f64,
    damping: f64,
) -> f64 {
    let mut g = 0.0;
    if has_lower {
        g -= mu / (value - lower);
        if !has_upper {
            g += damping * mu;
        }
    }
    if has_upper {
        g += mu / (upper - value);
        if !has_lower {
            g -= damping * mu;
        }
    }
    g
}
