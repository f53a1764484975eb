//! Shared test problems: a dense-callback `Nlp` for small problems written by hand.

#![allow(dead_code)]

use vito::nlp::{Complementarity, EvalError, Nlp};

/// Dense first and second derivatives given by plain functions.
///
/// `jac` writes the `m × n` Jacobian row-major; `hess` adds `σ∇²f + Σλ_i∇²c_i` into an
/// `n × n` row-major buffer, of which only the lower triangle (`i >= j`) is read.
#[derive(Clone)]
pub struct Dense {
    pub name: &'static str,
    pub n: usize,
    pub m: usize,
    pub x0: Vec<f64>,
    pub x_lower: Vec<f64>,
    pub x_upper: Vec<f64>,
    pub c_lower: Vec<f64>,
    pub c_upper: Vec<f64>,
    pub f: fn(&[f64]) -> f64,
    pub grad: fn(&[f64], &mut [f64]),
    pub cons: fn(&[f64], &mut [f64]),
    pub jac: fn(&[f64], &mut [f64]),
    pub hess: fn(&[f64], f64, &[f64], &mut [f64]),
    pub f_star: f64,
    pub x_star: Vec<f64>,
    pub hessian: bool,
    pub pairs: Vec<Complementarity>,
}

pub const INF: f64 = f64::INFINITY;

impl Dense {
    /// Largest violation of the constraints and bounds at `x`.
    pub fn violation(&self, x: &[f64]) -> f64 {
        let mut c = vec![0.0; self.m];
        (self.cons)(x, &mut c);
        let rows = c
            .iter()
            .zip(self.c_lower.iter().zip(&self.c_upper))
            .map(|(&ci, (&l, &u))| (l - ci).max(ci - u).max(0.0));
        let bounds = x
            .iter()
            .zip(self.x_lower.iter().zip(&self.x_upper))
            .map(|(&xi, (&l, &u))| (l - xi).max(xi - u).max(0.0));
        rows.chain(bounds).fold(0.0, f64::max)
    }

    /// Full lower-triangle Hessian at `(x, σ, λ)`, row-major dense.
    pub fn dense_hessian(&self, x: &[f64], sigma: f64, lambda: &[f64]) -> Vec<f64> {
        let mut h = vec![0.0; self.n * self.n];
        (self.hess)(x, sigma, lambda, &mut h);
        h
    }
}

impl Nlp for Dense {
    fn num_variables(&self) -> usize {
        self.n
    }
    fn num_constraints(&self) -> usize {
        self.m
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.copy_from_slice(&self.x_lower);
        upper.copy_from_slice(&self.x_upper);
    }
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.copy_from_slice(&self.c_lower);
        upper.copy_from_slice(&self.c_upper);
    }
    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.x0);
    }
    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        Ok((self.f)(x))
    }
    fn gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        (self.grad)(x, grad);
        Ok(())
    }
    fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError> {
        (self.cons)(x, c);
        Ok(())
    }
    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        (0..self.m)
            .flat_map(|i| (0..self.n).map(move |j| (i, j)))
            .collect()
    }
    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        (self.jac)(x, values);
        Ok(())
    }
    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        self.hessian.then(|| {
            (0..self.n)
                .flat_map(|i| (0..=i).map(move |j| (i, j)))
                .collect()
        })
    }
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        if !self.hessian {
            return Err(EvalError::Unsupported("hessian_values"));
        }
        let h = self.dense_hessian(x, obj_factor, lambda);
        let lower = (0..self.n).flat_map(|i| (0..=i).map(move |j| (i, j)));
        for (v, (i, j)) in values.iter_mut().zip(lower) {
            *v = h[i * self.n + j];
        }
        Ok(())
    }
    fn complementarities(&self) -> Vec<Complementarity> {
        self.pairs.clone()
    }
}

/// Checks the hand-written derivatives of `p` against central differences at `x`.
pub fn check_derivatives(p: &Dense, x: &[f64]) {
    let (n, m) = (p.n, p.m);
    let h = 1e-6;
    let mut grad = vec![0.0; n];
    (p.grad)(x, &mut grad);
    let mut jac = vec![0.0; m * n];
    (p.jac)(x, &mut jac);
    let lambda: Vec<f64> = (0..m).map(|i| 0.3 + 0.7 * i as f64).collect();
    let sigma = 0.9;
    let hess = p.dense_hessian(x, sigma, &lambda);
    let lag_grad = |x: &[f64]| {
        let mut g = vec![0.0; n];
        (p.grad)(x, &mut g);
        let mut j = vec![0.0; m * n];
        (p.jac)(x, &mut j);
        (0..n)
            .map(|k| sigma * g[k] + (0..m).map(|i| lambda[i] * j[i * n + k]).sum::<f64>())
            .collect::<Vec<f64>>()
    };
    for k in 0..n {
        let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
        xp[k] += h;
        xm[k] -= h;
        let fd = ((p.f)(&xp) - (p.f)(&xm)) / (2.0 * h);
        let tol = 1e-5 * (1.0 + fd.abs());
        assert!(
            (fd - grad[k]).abs() < tol,
            "{}: df/dx{k} {fd} vs {}",
            p.name,
            grad[k]
        );
        let (mut cp, mut cm) = (vec![0.0; m], vec![0.0; m]);
        (p.cons)(&xp, &mut cp);
        (p.cons)(&xm, &mut cm);
        for i in 0..m {
            let fd = (cp[i] - cm[i]) / (2.0 * h);
            let tol = 1e-5 * (1.0 + fd.abs());
            let v = jac[i * n + k];
            assert!((fd - v).abs() < tol, "{}: dc{i}/dx{k} {fd} vs {v}", p.name);
        }
        let (gp, gm) = (lag_grad(&xp), lag_grad(&xm));
        for i in k..n {
            let fd = (gp[i] - gm[i]) / (2.0 * h);
            let tol = 1e-4 * (1.0 + fd.abs());
            let v = hess[i * n + k];
            assert!(
                (fd - v).abs() < tol,
                "{}: d2L/dx{i}dx{k} {fd} vs {v}",
                p.name
            );
        }
    }
}
pub mod hs;
pub mod infeasible;
