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

/// The point and multipliers the residuals are measured at.
pub(crate) struct KktPoint<'a> {
    pub(crate) x: &'a [f64],
    pub(crate) gradient: &'a [f64],
    pub(crate) c: &'a [f64],
    pub(crate) jacobian_structure: &'a [(usize, usize)],
    pub(crate) jacobian: &'a [f64],
    pub(crate) lambda: &'a [f64],
    pub(crate) z: &'a [f64],
}

/// Bounds of the problem.
pub(crate) struct Bounds<'a> {
    pub(crate) x_lower: &'a [f64],
    pub(crate) x_upper: &'a [f64],
    pub(crate) c_lower: &'a [f64],
    pub(crate) c_upper: &'a [f64],
}

/// Computes the residuals; `stationarity` is scratch of length `n`. The complementarity-pair
/// violation is left at 0 for the caller to fill.
pub(crate) fn residuals(p: &KktPoint<'_>, b: &Bounds<'_>, stationarity: &mut [f64]) -> Residuals {
    stationarity.copy_from_slice(p.gradient);
    add_transpose_triplets(p.jacobian_structure, p.jacobian, p.lambda, stationarity);
    for (s, &zj) in stationarity.iter_mut().zip(p.z) {
        *s += zj;
    }
    let count = (p.lambda.len() + p.z.len()).max(1) as f64;
    let multiplier_norm: f64 = p.lambda.iter().chain(p.z).map(|v| v.abs()).sum();
    let s_d = (multiplier_norm / count).max(S_MAX) / S_MAX;
    let dual = stationarity.iter().fold(0.0_f64, |a, s| a.max(s.abs())) / s_d;
    let primal =
        max_violation(p.c, b.c_lower, b.c_upper).max(max_violation(p.x, b.x_lower, b.x_upper));
    let mut compl: f64 = 0.0;
    for (i, &ci) in p.c.iter().enumerate() {
        compl = compl.max(complementarity(ci, b.c_lower[i], b.c_upper[i], p.lambda[i]));
    }
    for (j, &xj) in p.x.iter().enumerate() {
        compl = compl.max(complementarity(xj, b.x_lower[j], b.x_upper[j], p.z[j]));
    }
    Residuals {
        primal_infeasibility: primal,
        dual_infeasibility: dual,
        complementarity: compl / s_d,
        complementarity_violation: 0.0,
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
