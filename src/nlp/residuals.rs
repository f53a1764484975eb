//! Optimality measures (KKT residuals) at a point, scaled like IPOPT's.
//!
//! With `s_max = 100` and `s_d = max(s_max, (‖λ‖₁ + ‖z‖₁) / (m + n)) / s_max`:
//!
//! - primal infeasibility: the largest absolute violation of a row or bound;
//! - dual infeasibility: `‖∇f + Jᵀλ + z‖∞ / s_d`;
//! - complementarity: the largest `|λ_i| × (distance of c_i to the bound λ_i points at)` over
//!   inequality rows, and the same for bounds, divided by `s_d`; a multiplier that points at
//!   an infinite bound counts with distance 1.

use super::outcome::Residuals;
use super::problem::Problem;
use crate::qp::sparse::add_transpose_triplets;

/// `Σ_i max(0, lower_i - c_i, c_i - upper_i)`.
pub(crate) fn violation(c: &[f64], lower: &[f64], upper: &[f64]) -> f64 {
    c.iter()
        .zip(lower.iter().zip(upper))
        .map(|(&ci, (&l, &u))| (l - ci).max(ci - u).max(0.0))
        .sum()
}

/// Largest single violation `max_i max(0, lower_i - c_i, c_i - upper_i)`.
pub(crate) fn max_violation(c: &[f64], lower: &[f64], upper: &[f64]) -> f64 {
    c.iter()
        .zip(lower.iter().zip(upper))
        .map(|(&ci, (&l, &u))| (l - ci).max(ci - u).max(0.0))
        .fold(0.0, f64::max)
}

const S_MAX: f64 = 100.0;

fn complementarity(value: f64, lower: f64, upper: f64, multiplier: f64) -> f64 {
    if lower == upper || multiplier == 0.0 {
        return 0.0;
    }
    let bound = if multiplier > 0.0 { upper } else { lower };
    let distance = if bound.is_finite() {
        (value - bound).abs()
    } else {
        1.0
    };
    multiplier.abs() * distance
}

/// The point and multipliers the residuals are measured at: `x`, `∇f`, `c`, the Jacobian's
/// values and every row's and bound's multiplier.
pub(crate) struct KktPoint<'a> {
    x: &'a [f64],
    gradient: &'a [f64],
    c: &'a [f64],
    jacobian: &'a [f64],
    lambda: &'a [f64],
    z: &'a [f64],
}

impl<'a> KktPoint<'a> {
    pub(crate) fn new(
        x: &'a [f64],
        gradient: &'a [f64],
        c: &'a [f64],
        jacobian: &'a [f64],
        lambda: &'a [f64],
        z: &'a [f64],
    ) -> Self {
        Self {
            x,
            gradient,
            c,
            jacobian,
            lambda,
            z,
        }
    }
}

/// The residuals of `problem` at `p`, the complementarity pairs' violation included;
/// `stationarity` is scratch of length `n`.
pub(crate) fn residuals(
    problem: &Problem<'_>,
    p: &KktPoint<'_>,
    stationarity: &mut [f64],
) -> Residuals {
    stationarity.copy_from_slice(p.gradient);
    add_transpose_triplets(
        &problem.jacobian_structure,
        p.jacobian,
        p.lambda,
        stationarity,
    );
    for (s, &zj) in stationarity.iter_mut().zip(p.z) {
        *s += zj;
    }
    let count = (p.lambda.len() + p.z.len()).max(1) as f64;
    let multiplier_norm: f64 = p.lambda.iter().chain(p.z).map(|v| v.abs()).sum();
    let s_d = (multiplier_norm / count).max(S_MAX) / S_MAX;
    let dual = stationarity.iter().fold(0.0_f64, |a, s| a.max(s.abs())) / s_d;
    let (xl, xu, cl, cu) = problem.bounds();
    let primal = max_violation(p.c, cl, cu).max(max_violation(p.x, xl, xu));
    let mut compl: f64 = 0.0;
    for (i, &ci) in p.c.iter().enumerate() {
        compl = compl.max(complementarity(ci, cl[i], cu[i], p.lambda[i]));
    }
    for (j, &xj) in p.x.iter().enumerate() {
        compl = compl.max(complementarity(xj, xl[j], xu[j], p.z[j]));
    }
    Residuals {
        primal_infeasibility: primal,
        dual_infeasibility: dual,
        complementarity: compl / s_d,
        complementarity_violation: problem.complementarity_violation(p.x, &p.c[..problem.m_nlp]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_sum_and_take_the_largest() {
        let (l, u) = ([0.0, f64::NEG_INFINITY, 1.0], [0.0, 2.0, f64::INFINITY]);
        assert_eq!(violation(&[0.5, 3.0, 0.0], &l, &u), 0.5 + 1.0 + 1.0);
        assert_eq!(max_violation(&[0.5, 3.0, 0.0], &l, &u), 1.0);
    }
}
