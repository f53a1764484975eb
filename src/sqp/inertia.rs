//! Positive-definiteness tests by sparse `LDLᵀ` and IPOPT's shift schedule, for the backends'
//! convex model (`hessian.rs`).
//!
//! A symmetric matrix is positive definite exactly when its `LDLᵀ` factorization has `n`
//! positive pivots. The factorization is the KKT matrix's ([`KktMatrix`]) without dual rows:
//! `H + δI` in AMD order without pivoting, which is safe here because every matrix it is asked
//! about either is positive definite (then any order is stable) or is rejected (a zero or
//! negative pivot is all the answer needs).
//!
//! [`InertiaCorrection::shift`] finds a shift `δI` that makes a matrix positive definite, on a
//! geometric grid from `δ₀` ([`InertiaSettings`]).

use crate::qp::InertiaSettings;
use crate::qp::kkt::{KktMatrix, smallest_shift};
use crate::qp::sparse::CscAssembly;

/// Positive-definiteness tests and shifts for one fixed pattern.
pub(crate) struct InertiaCorrection {
    kkt: KktMatrix,
    /// The shift on each diagonal entry.
    shift: Vec<f64>,
}

impl InertiaCorrection {
    /// Prepares the tests for the upper-triangle pattern of `upper` (which must contain the
    /// diagonal); the values given to the tests follow its CSC order.
    pub(crate) fn new(upper: &CscAssembly) -> Self {
        let a = &upper.matrix;
        let n = a.ncols();
        // Entry `(r, c)`, `r <= c`, of the upper triangle is the triplet `(c, r)` of the lower
        // triangle the KKT matrix takes, in CSC order: value `k` goes to triplet `k`.
        let lower: Vec<(usize, usize)> = (0..n)
            .flat_map(|c| {
                let rows = &a.row_indices()[a.col_offsets()[c]..a.col_offsets()[c + 1]];
                rows.iter().map(move |&r| (c, r))
            })
            .collect();
        // Without rows every unknown is ordered by AMD, whatever `dense_row` says.
        let kkt = KktMatrix::new(n, &lower, &[], &vec![true; n], &[], 0);
        Self {
            kkt,
            shift: vec![0.0; n],
        }
    }

    /// Numeric factorizations performed so far.
    pub(crate) fn factorizations(&self) -> usize {
        self.kkt.factorizations()
    }

    /// Whether `values + δI` is positive definite.
    fn positive_definite(&mut self, values: &[f64], delta: f64) -> bool {
        self.shift.fill(delta);
        self.kkt.assemble(values, &[], &self.shift, &[]);
        self.kkt.factor()
    }

    /// The smallest shift `max(floor, δ₀)·κ^k` (`κ = shift_increase`), or 0 when `floor` is 0
    /// and `values` already is positive definite, that makes `values` positive definite;
    /// `None` if even `δ_max` fails (non-finite entries). Each call starts afresh: the
    /// convexified model is built only for the backend's occasional QPs, whose models can
    /// differ by orders of magnitude from one call to the next.
    pub(crate) fn shift(
        &mut self,
        values: &[f64],
        floor: f64,
        inertia: &InertiaSettings,
    ) -> Option<f64> {
        smallest_shift(
            (floor == 0.0).then_some(0.0),
            floor.max(inertia.shift_first),
            inertia.shift_increase,
            inertia.shift_max,
            |delta| self.positive_definite(values, delta),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indefinite_matrix_is_shifted_just_enough() {
        // [[1, 2], [2, 1]] has eigenvalues 3 and -1.
        let assembly = CscAssembly::new(2, 2, &[(0, 0), (0, 1), (1, 1)]);
        let mut correction = InertiaCorrection::new(&assembly);
        let inertia = InertiaSettings::default();
        let delta = correction.shift(&[1.0, 2.0, 1.0], 0.0, &inertia).unwrap();
        assert!(delta > 1.0 && delta <= 8.0, "{delta}");
        assert_eq!(correction.shift(&[1.0, 0.0, 3.0], 0.0, &inertia), Some(0.0));
        assert!(correction.shift(&[1.0, 0.0, 3.0], 0.5, &inertia).unwrap() >= 0.5);
        assert_eq!(correction.factorizations(), 9);
    }
}
