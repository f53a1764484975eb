//! The SQP state: a point with its multipliers and everything the iteration evaluates there.

use crate::nlp::problem::Problem;
use crate::nlp::residuals::violation;

/// A point `x` with multipliers `(λ, z)` and `f`, `∇f`, `c`, `J` and (exact Hessians) `∇²L`
/// evaluated there. Vectors are allocated once and reused.
pub(crate) struct Iterate {
    pub(crate) x: Vec<f64>,
    pub(crate) f: f64,
    pub(crate) g: Vec<f64>,
    pub(crate) c: Vec<f64>,
    /// Jacobian values in the order of the problem's structure.
    pub(crate) jac: Vec<f64>,
    /// `∇²L(x, λ)` triplet values (empty without exact Hessians).
    pub(crate) hess: Vec<f64>,
    pub(crate) lambda: Vec<f64>,
    pub(crate) z: Vec<f64>,
    /// `τλ` for the Hessian.
    scaled_lambda: Vec<f64>,
}

impl Iterate {
    /// Zeros for `problem`'s sizes.
    pub(crate) fn new(problem: &Problem<'_>) -> Self {
        let (n, m) = (problem.n, problem.m());
        let nnz_hess = problem.hessian_structure.as_ref().map_or(0, Vec::len);
        Self {
            x: vec![0.0; n],
            f: f64::NAN,
            g: vec![0.0; n],
            c: vec![0.0; m],
            jac: vec![0.0; problem.jacobian_structure.len()],
            hess: vec![0.0; nnz_hess],
            lambda: vec![0.0; m],
            z: vec![0.0; n],
            scaled_lambda: vec![0.0; m],
        }
    }

    /// `f` and `c` at `x`.
    pub(crate) fn evaluate_values(&mut self, problem: &mut Problem<'_>) -> Result<(), String> {
        self.f = problem.objective(&self.x)?;
        problem.constraints(&self.x, &mut self.c)
    }

    /// `∇f`, `J` and (exact Hessians) `∇²f + τ Σ λᵢ∇²cᵢ` at `x` with the multipliers `λ`
    /// scaled by `tau` (see `solver.rs`), after [`Iterate::evaluate_values`].
    pub(crate) fn evaluate_derivatives(
        &mut self,
        problem: &mut Problem<'_>,
        tau: f64,
    ) -> Result<(), String> {
        problem.gradient(&self.x, &mut self.g)?;
        problem.jacobian(&self.x, &self.c, &mut self.jac)?;
        if problem.hessian_structure.is_some() {
            for (s, l) in self.scaled_lambda.iter_mut().zip(&self.lambda) {
                *s = tau * l;
            }
            problem.hessian(
                &self.x,
                &self.c,
                &self.jac,
                &self.scaled_lambda,
                &mut self.hess,
            )?;
        }
        Ok(())
    }

    /// `θ = Σ viol(c)`, the ℓ1 constraint violation.
    pub(crate) fn theta(&self, problem: &Problem<'_>) -> f64 {
        violation(&self.c, &problem.c_lower, &problem.c_upper)
    }

    /// `x + α d` clamped into the variable bounds.
    pub(crate) fn set_step(&mut self, from: &[f64], alpha: f64, d: &[f64], problem: &Problem<'_>) {
        let bounds = problem.x_lower.iter().zip(&problem.x_upper);
        for (((t, &x), &d), (&l, &u)) in self.x.iter_mut().zip(from).zip(d).zip(bounds) {
            *t = (x + alpha * d).clamp(l, u);
        }
    }
}
