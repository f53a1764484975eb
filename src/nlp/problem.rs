//! The problem with its complementarity product rows appended, behind counted, timed and
//! finiteness-checked evaluations.
//!
//! Internally the solver sees `m = m_nlp + pairs` constraint rows. Every evaluation returns
//! `Err(message)` when the callback fails or returns a non-finite value, so that the caller
//! can back off (line search) or stop (starting point).

use std::time::{Duration, Instant};

use super::complementarity::ProductRows;
use super::error::SolverError;
use super::outcome::{EvaluationCounts, Residuals};
use super::program::{EvalError, Nlp};
use super::settings::Settings;

/// A validated problem and its evaluation bookkeeping.
pub(crate) struct Problem<'a> {
    nlp: &'a mut dyn Nlp,
    /// Number of variables.
    pub(crate) n: usize,
    /// Number of the problem's own constraint rows.
    pub(crate) m_nlp: usize,
    /// Variable bounds.
    pub(crate) x_lower: Vec<f64>,
    pub(crate) x_upper: Vec<f64>,
    /// Row bounds, product rows included (`-∞ <= a·b <= ε`).
    pub(crate) c_lower: Vec<f64>,
    pub(crate) c_upper: Vec<f64>,
    /// Jacobian triplets: the problem's, then the product rows'.
    pub(crate) jacobian_structure: Vec<(usize, usize)>,
    /// Hessian lower-triangle triplets (problem's, then product outer products), if the
    /// problem provides second derivatives.
    pub(crate) hessian_structure: Option<Vec<(usize, usize)>>,
    /// Variable groups for the quasi-Newton model.
    pub(crate) groups: Option<Vec<std::ops::Range<usize>>>,
    pub(crate) products: ProductRows,
    nlp_jacobian_len: usize,
    nlp_hessian_len: usize,
    lambda_scratch: Vec<f64>,
    pub(crate) counts: EvaluationCounts,
    pub(crate) time: Duration,
}

fn checked(what: &str, result: Result<(), EvalError>, values: &[f64]) -> Result<(), String> {
    result.map_err(|e| format!("{what}: {e}"))?;
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => Err(format!("{what}: entry {i} is {}", values[i])),
        None => Ok(()),
    }
}

fn check_triplets(
    what: &str,
    triplets: &[(usize, usize)],
    rows: usize,
    cols: usize,
    lower: bool,
) -> Result<(), SolverError> {
    for (t, &(r, c)) in triplets.iter().enumerate() {
        if r >= rows || c >= cols {
            return Err(SolverError::InvalidProblem(format!(
                "{what} triplet {t} = ({r}, {c}) is outside {rows} × {cols}"
            )));
        }
        if lower && r < c {
            return Err(SolverError::InvalidProblem(format!(
                "{what} triplet {t} = ({r}, {c}) is above the diagonal; give the lower triangle"
            )));
        }
    }
    Ok(())
}

fn check_bounds(what: &str, lower: &[f64], upper: &[f64]) -> Result<(), SolverError> {
    for (i, (&l, &u)) in lower.iter().zip(upper).enumerate() {
        if l.is_nan() || u.is_nan() || l > u || l == f64::INFINITY || u == f64::NEG_INFINITY {
            return Err(SolverError::InvalidProblem(format!(
                "{what} {i} has bounds [{l}, {u}]"
            )));
        }
    }
    Ok(())
}

impl<'a> Problem<'a> {
    /// Reads sizes, bounds and structures once and checks that they fit together.
    pub(crate) fn new(nlp: &'a mut dyn Nlp, need_hessian: bool) -> Result<Self, SolverError> {
        let n = nlp.num_variables();
        let m_nlp = nlp.num_constraints();
        if n == 0 {
            return Err(SolverError::InvalidProblem(
                "the problem has no variables".into(),
            ));
        }
        let (mut x_lower, mut x_upper) = (vec![0.0; n], vec![0.0; n]);
        nlp.variable_bounds(&mut x_lower, &mut x_upper);
        check_bounds("variable", &x_lower, &x_upper)?;
        let (mut c_lower, mut c_upper) = (vec![0.0; m_nlp], vec![0.0; m_nlp]);
        nlp.constraint_bounds(&mut c_lower, &mut c_upper);
        check_bounds("constraint row", &c_lower, &c_upper)?;
        let mut jacobian_structure = nlp.jacobian_structure();
        check_triplets("Jacobian", &jacobian_structure, m_nlp, n, false)?;
        let nlp_jacobian_len = jacobian_structure.len();
        let products = ProductRows::new(
            &nlp.complementarities(),
            n,
            &x_lower,
            &c_lower,
            &jacobian_structure,
        )?;
        jacobian_structure.extend(products.jacobian_structure());
        c_lower.extend(std::iter::repeat_n(f64::NEG_INFINITY, products.len()));
        c_upper.extend(std::iter::repeat_n(0.0, products.len()));
        let (hessian_structure, nlp_hessian_len) = match nlp.hessian_structure() {
            Some(mut h) if need_hessian => {
                check_triplets("Hessian", &h, n, n, true)?;
                let len = h.len();
                h.extend(products.hessian_structure());
                (Some(h), len)
            }
            None if need_hessian => {
                return Err(SolverError::InvalidProblem(
                    "exact Hessians were requested but the problem provides no \
                     hessian_structure(); use `hessian: bfgs`"
                        .into(),
                ));
            }
            _ => (None, 0),
        };
        let groups = nlp.variable_groups();
        if let Some(groups) = &groups {
            let mut owner = vec![false; n];
            for g in groups {
                if g.start >= g.end || g.end > n {
                    return Err(SolverError::InvalidProblem(format!(
                        "variable group {g:?} is empty or outside 0..{n}"
                    )));
                }
                for taken in &mut owner[g.clone()] {
                    if *taken {
                        return Err(SolverError::InvalidProblem(format!(
                            "variable group {g:?} overlaps another group"
                        )));
                    }
                    *taken = true;
                }
            }
        }
        Ok(Self {
            nlp,
            n,
            m_nlp,
            x_lower,
            x_upper,
            c_lower,
            c_upper,
            jacobian_structure,
            hessian_structure,
            groups,
            products,
            nlp_jacobian_len,
            nlp_hessian_len,
            lambda_scratch: vec![0.0; m_nlp],
            counts: EvaluationCounts::default(),
            time: Duration::ZERO,
        })
    }

    /// The bounds `(x_L, x_U, c_L, c_U)`.
    pub(crate) fn bounds(&self) -> (&[f64], &[f64], &[f64], &[f64]) {
        (&self.x_lower, &self.x_upper, &self.c_lower, &self.c_upper)
    }

    /// Total number of rows, product rows included.
    pub(crate) fn m(&self) -> usize {
        self.c_lower.len()
    }

    /// The relaxation the homotopy ends at: `0.1 · complementarity_tolerance²`, small enough
    /// that `a·b <= ε` forces `min(a, b) <= complementarity_tolerance`.
    pub(crate) fn relaxation_final(settings: &Settings) -> f64 {
        0.1 * settings.complementarity_tolerance.powi(2)
    }

    /// The next relaxation `ε` of the product rows once the problem relaxed by `eps` is solved
    /// to its accuracy at a point with rows `c` and residuals `r`: KKT residuals within
    /// `max(tolerance, ε)` and every product within `2ε`; `None` while it is not, without
    /// pairs, and at the end of the homotopy.
    pub(crate) fn next_relaxation(
        &self,
        eps: f64,
        c: &[f64],
        r: &Residuals,
        settings: &Settings,
    ) -> Option<f64> {
        let s = settings;
        let eps_final = Self::relaxation_final(s);
        let products_violation = c[self.m_nlp..]
            .iter()
            .fold(0.0, |a: f64, &p| a.max(p - eps));
        let solved = self.products.len() > 0
            && eps > eps_final
            && r.complementarity_violation > s.complementarity_tolerance
            && products_violation <= eps
            && r.primal_infeasibility <= s.constraint_tolerance.max(eps)
            && r.dual_infeasibility <= s.tolerance.max(eps)
            && r.complementarity <= s.tolerance.max(eps);
        solved.then(|| (s.relaxation_decrease * eps).max(eps_final))
    }

    /// Sets the relaxation `ε` of the product rows.
    pub(crate) fn set_relaxation(&mut self, epsilon: f64) {
        for u in &mut self.c_upper[self.m_nlp..] {
            *u = epsilon;
        }
    }

    /// Sets the smoothing of the problem's rows ([`Nlp::set_smoothing`]).
    pub(crate) fn set_smoothing(&mut self, mu: f64) {
        self.nlp.set_smoothing(mu);
    }

    /// The starting point, moved into the variable bounds.
    pub(crate) fn initial_point(&self) -> Result<Vec<f64>, String> {
        let mut x = vec![0.0; self.n];
        self.nlp.initial_point(&mut x);
        checked("initial point", Ok(()), &x)?;
        for ((xi, &l), &u) in x.iter_mut().zip(&self.x_lower).zip(&self.x_upper) {
            *xi = xi.clamp(l, u);
        }
        Ok(x)
    }

    /// `f(x)`.
    pub(crate) fn objective(&mut self, x: &[f64]) -> Result<f64, String> {
        let start = Instant::now();
        self.counts.objective += 1;
        let value = self.nlp.objective(x);
        self.time += start.elapsed();
        let value = value.map_err(|e| format!("objective: {e}"))?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(format!("objective: the value is {value}"))
        }
    }

    /// `∇f(x)`.
    pub(crate) fn gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<(), String> {
        let start = Instant::now();
        self.counts.gradient += 1;
        let result = self.nlp.gradient(x, grad);
        self.time += start.elapsed();
        checked("gradient", result, grad)
    }

    /// `c(x)` including the product rows.
    pub(crate) fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), String> {
        let start = Instant::now();
        let (own, products) = c.split_at_mut(self.m_nlp);
        let result = if self.m_nlp > 0 {
            self.counts.constraints += 1;
            self.nlp.constraints(x, own)
        } else {
            Ok(())
        };
        self.time += start.elapsed();
        checked("constraints", result, own)?;
        self.products.values(x, own, products);
        Ok(())
    }

    /// Jacobian values in the order of `jacobian_structure`, given `c = c(x)`.
    pub(crate) fn jacobian(
        &mut self,
        x: &[f64],
        c: &[f64],
        values: &mut [f64],
    ) -> Result<(), String> {
        let start = Instant::now();
        let (own, products) = values.split_at_mut(self.nlp_jacobian_len);
        let result = if self.m_nlp > 0 {
            self.counts.jacobian += 1;
            self.nlp.jacobian_values(x, own)
        } else {
            Ok(())
        };
        self.time += start.elapsed();
        checked("Jacobian", result, own)?;
        self.products.jacobian_values(x, c, own, products);
        Ok(())
    }

    /// Hessian values of the Lagrangian `∇²f + Σ λ_i ∇²c_i` (product rows included) in the
    /// order of `hessian_structure`, given `c = c(x)` and the Jacobian values at `x`.
    pub(crate) fn hessian(
        &mut self,
        x: &[f64],
        c: &[f64],
        jacobian: &[f64],
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), String> {
        let (own_lambda, mu) = lambda.split_at(self.m_nlp);
        self.lambda_scratch.copy_from_slice(own_lambda);
        self.products
            .fold_multipliers(x, c, mu, &mut self.lambda_scratch);
        let (own, products) = values.split_at_mut(self.nlp_hessian_len);
        let start = Instant::now();
        self.counts.hessian += 1;
        let result = self.nlp.hessian_values(x, 1.0, &self.lambda_scratch, own);
        self.time += start.elapsed();
        checked("Hessian", result, own)?;
        self.products
            .hessian_values(mu, &jacobian[..self.nlp_jacobian_len], products);
        Ok(())
    }

    /// Largest `|min(a, b)|` over the complementarity pairs at `(x, c(x))`.
    pub(crate) fn complementarity_violation(&self, x: &[f64], c: &[f64]) -> f64 {
        self.products.violation(x, c)
    }
}
