//! Complementarity pairs `0 <= a(x) ⟂ b(x) >= 0` as relaxed product rows `a(x)·b(x) <= ε`.
//!
//! Each pair adds one constraint row after the problem's own rows. Its Jacobian row is
//! `b∇a + a∇b` and its contribution to the Hessian of the Lagrangian, with multiplier `μ`, is
//! `μ(∇a∇bᵀ + ∇b∇aᵀ) + μ b ∇²a + μ a ∇²b`. The outer-product part is added here as extra
//! Hessian triplets; the curvature of a constraint side is passed to the problem's own
//! Hessian callback by adding `μ b` (or `μ a`) to that row's multiplier.

use super::error::SolverError;
use super::program::{Complementarity, ComplementarityTerm};

/// Where a partial derivative of one side comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// The side is a variable: the derivative is 1.
    Unit,
    /// The side is a constraint row: the derivative is this Jacobian triplet of the problem.
    Jacobian(usize),
}

/// One nonzero of the gradient of one side of a pair.
#[derive(Debug, Clone, Copy)]
struct Partial {
    column: usize,
    source: Source,
}

#[derive(Debug, Clone)]
struct Pair {
    a: ComplementarityTerm,
    b: ComplementarityTerm,
    grad_a: Vec<Partial>,
    grad_b: Vec<Partial>,
}

/// The product rows of all pairs, with their derivative structure.
#[derive(Debug, Clone)]
pub(crate) struct ProductRows {
    first_row: usize,
    pairs: Vec<Pair>,
}

impl ProductRows {
    /// Validates the pairs against the problem's sizes and bounds and records which Jacobian
    /// triplets form each side's gradient.
    pub(crate) fn new(
        pairs: &[Complementarity],
        n: usize,
        x_lower: &[f64],
        c_lower: &[f64],
        jacobian: &[(usize, usize)],
    ) -> Result<Self, SolverError> {
        let m = c_lower.len();
        let mut triplets_of_row: Vec<Vec<usize>> = vec![Vec::new(); m];
        for (t, &(row, _)) in jacobian.iter().enumerate() {
            triplets_of_row[row].push(t);
        }
        let gradient = |term: ComplementarityTerm, k: usize| -> Result<Vec<Partial>, SolverError> {
            let (lower, partials) = match term {
                ComplementarityTerm::Variable(j) if j < n => (
                    x_lower[j],
                    vec![Partial {
                        column: j,
                        source: Source::Unit,
                    }],
                ),
                ComplementarityTerm::Constraint(i) if i < m => (
                    c_lower[i],
                    triplets_of_row[i]
                        .iter()
                        .map(|&t| Partial {
                            column: jacobian[t].1,
                            source: Source::Jacobian(t),
                        })
                        .collect(),
                ),
                _ => {
                    return Err(SolverError::InvalidProblem(format!(
                        "complementarity pair {k} refers to {term:?}, which is out of range \
                         (n = {n}, m = {m})"
                    )));
                }
            };
            if lower.is_nan() || lower < 0.0 {
                return Err(SolverError::InvalidProblem(format!(
                    "complementarity pair {k}: {term:?} has lower bound {lower}; each side \
                     needs a lower bound >= 0"
                )));
            }
            Ok(partials)
        };
        let pairs = pairs
            .iter()
            .enumerate()
            .map(|(k, p)| {
                Ok(Pair {
                    a: p.a,
                    b: p.b,
                    grad_a: gradient(p.a, k)?,
                    grad_b: gradient(p.b, k)?,
                })
            })
            .collect::<Result<_, SolverError>>()?;
        Ok(Self {
            first_row: m,
            pairs,
        })
    }

    /// Number of pairs (and product rows).
    pub(crate) fn len(&self) -> usize {
        self.pairs.len()
    }

    fn side(term: ComplementarityTerm, x: &[f64], c: &[f64]) -> f64 {
        match term {
            ComplementarityTerm::Variable(j) => x[j],
            ComplementarityTerm::Constraint(i) => c[i],
        }
    }

    fn partial(source: Source, jacobian: &[f64]) -> f64 {
        match source {
            Source::Unit => 1.0,
            Source::Jacobian(t) => jacobian[t],
        }
    }

    /// The values `a·b` of the product rows, given `c` with the problem's rows.
    pub(crate) fn values(&self, x: &[f64], c: &[f64], products: &mut [f64]) {
        for (p, out) in self.pairs.iter().zip(products) {
            *out = Self::side(p.a, x, c) * Self::side(p.b, x, c);
        }
    }

    /// Largest `|min(a, b)|` over the pairs.
    pub(crate) fn violation(&self, x: &[f64], c: &[f64]) -> f64 {
        self.pairs
            .iter()
            .map(|p| Self::side(p.a, x, c).min(Self::side(p.b, x, c)).abs())
            .fold(0.0, f64::max)
    }

    /// The `(row, column)` Jacobian triplets of the product rows.
    pub(crate) fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (k, p) in self.pairs.iter().enumerate() {
            let row = self.first_row + k;
            out.extend(p.grad_a.iter().chain(&p.grad_b).map(|d| (row, d.column)));
        }
        out
    }

    /// Values for [`ProductRows::jacobian_structure`], from the problem's Jacobian values.
    pub(crate) fn jacobian_values(&self, x: &[f64], c: &[f64], jacobian: &[f64], out: &mut [f64]) {
        let mut out = out.iter_mut();
        for p in &self.pairs {
            let (a, b) = (Self::side(p.a, x, c), Self::side(p.b, x, c));
            let terms = p
                .grad_a
                .iter()
                .map(|d| b * Self::partial(d.source, jacobian))
                .chain(
                    p.grad_b
                        .iter()
                        .map(|d| a * Self::partial(d.source, jacobian)),
                );
            // `terms` first: `zip` must not pull a slot past the pair's last term.
            for (v, dest) in terms.zip(out.by_ref()) {
                *dest = v;
            }
        }
    }

    /// The lower-triangle Hessian triplets of the outer products `∇a∇bᵀ + ∇b∇aᵀ`.
    pub(crate) fn hessian_structure(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for p in &self.pairs {
            for da in &p.grad_a {
                for db in &p.grad_b {
                    out.push((da.column.max(db.column), da.column.min(db.column)));
                }
            }
        }
        out
    }

    /// Values for [`ProductRows::hessian_structure`] with the product-row multipliers `mu`.
    pub(crate) fn hessian_values(&self, mu: &[f64], jacobian: &[f64], out: &mut [f64]) {
        let mut out = out.iter_mut();
        for (p, &mu) in self.pairs.iter().zip(mu) {
            for da in &p.grad_a {
                for db in &p.grad_b {
                    let both = if da.column == db.column { 2.0 } else { 1.0 };
                    if let Some(dest) = out.next() {
                        *dest = both
                            * mu
                            * Self::partial(da.source, jacobian)
                            * Self::partial(db.source, jacobian);
                    }
                }
            }
        }
    }

    /// Adds the product rows' second-order terms to the multipliers of the problem's rows:
    /// `λ_i += μ b` for a side `a = c_i`, and likewise for `b`.
    pub(crate) fn fold_multipliers(&self, x: &[f64], c: &[f64], mu: &[f64], lambda: &mut [f64]) {
        for (p, &mu) in self.pairs.iter().zip(mu) {
            if let ComplementarityTerm::Constraint(i) = p.a {
                lambda[i] += mu * Self::side(p.b, x, c);
            }
            if let ComplementarityTerm::Constraint(i) = p.b {
                lambda[i] += mu * Self::side(p.a, x, c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_row_derivatives_match_finite_differences() {
        // a = x0 (variable), b = c0 = x0 * x1 + x2^2 (constraint row 0).
        let jac = [(0, 0), (0, 1), (0, 2)];
        let pairs = [Complementarity {
            a: ComplementarityTerm::Variable(0),
            b: ComplementarityTerm::Constraint(0),
        }];
        let rows = ProductRows::new(&pairs, 3, &[0.0; 3], &[0.0], &jac).unwrap();
        let c_of = |x: &[f64]| vec![x[0] * x[1] + x[2] * x[2]];
        let j_of = |x: &[f64]| vec![x[1], x[0], 2.0 * x[2]];
        let product = |x: &[f64]| {
            let mut p = [0.0];
            rows.values(x, &c_of(x), &mut p);
            p[0]
        };
        let x = [0.7, 1.3, -0.4];
        let structure = rows.jacobian_structure();
        let mut values = vec![0.0; structure.len()];
        rows.jacobian_values(&x, &c_of(&x), &j_of(&x), &mut values);
        let mut grad = [0.0; 3];
        for (&(_, col), v) in structure.iter().zip(&values) {
            grad[col] += v;
        }
        let h = 1e-6;
        for (j, g) in grad.iter().enumerate() {
            let (mut xp, mut xm) = (x, x);
            xp[j] += h;
            xm[j] -= h;
            let fd = (product(&xp) - product(&xm)) / (2.0 * h);
            assert!((fd - g).abs() < 1e-8, "d/dx{j}: {fd} vs {g}");
        }
        // Hessian of a*b = x0*(x0 x1 + x2^2): outer part + b-side curvature folded into λ.
        let hs = rows.hessian_structure();
        let mut hv = vec![0.0; hs.len()];
        rows.hessian_values(&[1.0], &j_of(&x), &mut hv);
        let mut hess = nalgebra::Matrix3::<f64>::zeros();
        for (&(r, c), v) in hs.iter().zip(&hv) {
            hess[(r, c)] += v;
            if r != c {
                hess[(c, r)] += v;
            }
        }
        let mut lambda = [0.0];
        rows.fold_multipliers(&x, &c_of(&x), &[1.0], &mut lambda);
        // ∇²c0 = [[0,1,0],[1,0,0],[0,0,2]] scaled by the folded multiplier a = x0.
        let curvature = nalgebra::Matrix3::new(0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0);
        hess += curvature * lambda[0];
        let exact = nalgebra::Matrix3::new(
            2.0 * x[1],
            2.0 * x[0],
            2.0 * x[2],
            2.0 * x[0],
            0.0,
            0.0,
            2.0 * x[2],
            0.0,
            2.0 * x[0],
        );
        assert!((hess - exact).abs().max() < 1e-12, "{hess} vs {exact}");
    }

    #[test]
    fn consecutive_pairs_keep_their_slots() {
        // Pairs (x0, c0) and (x1, c1) with c0 = x0 + x1, c1 = x1 - x0.
        let jac = [(0, 0), (0, 1), (1, 0), (1, 1)];
        let pairs = [
            Complementarity {
                a: ComplementarityTerm::Variable(0),
                b: ComplementarityTerm::Constraint(0),
            },
            Complementarity {
                a: ComplementarityTerm::Variable(1),
                b: ComplementarityTerm::Constraint(1),
            },
        ];
        let rows = ProductRows::new(&pairs, 2, &[0.0; 2], &[0.0; 2], &jac).unwrap();
        let x = [2.0, 3.0];
        let c = [5.0, 1.0];
        let structure = rows.jacobian_structure();
        let mut values = vec![0.0; structure.len()];
        rows.jacobian_values(&x, &c, &[1.0, 1.0, -1.0, 1.0], &mut values);
        let mut dense = [[0.0; 2]; 2];
        for (&(row, col), v) in structure.iter().zip(&values) {
            dense[row - 2][col] += v;
        }
        // ∇(x0 c0) = (c0 + x0, x0), ∇(x1 c1) = (-x1, c1 + x1).
        assert_eq!(dense, [[7.0, 2.0], [-3.0, 4.0]]);
    }

    #[test]
    fn negative_lower_bound_is_rejected() {
        let pairs = [Complementarity {
            a: ComplementarityTerm::Variable(0),
            b: ComplementarityTerm::Variable(1),
        }];
        let err = ProductRows::new(&pairs, 2, &[0.0, -1.0], &[], &[]).unwrap_err();
        assert!(err.to_string().contains("lower bound"));
    }
}
