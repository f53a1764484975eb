//! Positive-definiteness tests by sparse `LDLᵀ` and IPOPT's shift schedule.
//!
//! A symmetric matrix (upper-triangle CSC with the full diagonal) is positive definite exactly
//! when its `LDLᵀ` factorization has `n` positive pivots. The factorization is Clarabel's QDLDL
//! with AMD ordering and no internal regularization: it does not pivot, which is safe here
//! because every matrix it is asked about either is positive definite (then any order is
//! stable) or is rejected (a zero or negative pivot is all the answer needs).
//!
//! [`InertiaCorrection::shift`] finds a shift `δI` that makes a matrix positive definite, on a
//! geometric grid from `δ₀` (constants in [`Tuning`]).

use clarabel::algebra::CscMatrix as ClarabelCsc;
use clarabel::qdldl::{QDLDLFactorisation, QDLDLSettings};

use crate::nlp::settings::Tuning;
use crate::qp::kkt::smallest_shift;
use crate::qp::sparse::CscAssembly;

/// Positive-definiteness tests and shifts for one fixed pattern.
pub(crate) struct InertiaCorrection {
    factor: Option<QDLDLFactorisation<f64>>,
    pattern: ClarabelCsc<f64>,
    indices: Vec<usize>,
    /// Value index of each diagonal entry.
    diagonal: Vec<usize>,
    shifted: Vec<f64>,
    /// Numeric factorizations performed so far.
    pub(crate) factorizations: usize,
}

impl InertiaCorrection {
    /// Prepares the tests for the pattern of `assembly` (which must contain the diagonal).
    pub(crate) fn new(assembly: &CscAssembly) -> Self {
        let a = &assembly.matrix;
        let diagonal = (0..a.ncols())
            .map(|j| {
                let (start, end) = (a.col_offsets()[j], a.col_offsets()[j + 1]);
                start + a.row_indices()[start..end].partition_point(|&r| r < j)
            })
            .collect();
        let pattern = ClarabelCsc::new(
            a.nrows(),
            a.ncols(),
            a.col_offsets().to_vec(),
            a.row_indices().to_vec(),
            vec![1.0; a.nnz()],
        );
        Self {
            factor: None,
            indices: (0..a.nnz()).collect(),
            diagonal,
            shifted: vec![0.0; a.nnz()],
            pattern,
            factorizations: 0,
        }
    }

    /// Whether `values + δI` is positive definite.
    pub(crate) fn positive_definite(&mut self, values: &[f64], delta: f64) -> bool {
        self.shifted.copy_from_slice(values);
        for &k in &self.diagonal {
            self.shifted[k] += delta;
        }
        let n = self.diagonal.len();
        self.factorizations += 1;
        let factor = match self.factor.as_mut() {
            Some(f) => {
                f.update_values(&self.indices, &self.shifted);
                if f.refactor().is_err() {
                    return false;
                }
                f
            }
            None => {
                self.pattern.nzval.copy_from_slice(&self.shifted);
                let settings = QDLDLSettings {
                    regularize_enable: false,
                    ..QDLDLSettings::default()
                };
                match QDLDLFactorisation::new(&self.pattern, Some(settings)) {
                    Ok(f) => self.factor.insert(f),
                    Err(_) => return false,
                }
            }
        };
        factor.positive_inertia() == n && factor.D.iter().all(|d| d.is_finite())
    }

    /// The smallest shift `max(floor, δ₀)·κ^k` (`κ = shift_increase`), or 0 when `floor` is 0
    /// and `values` already is positive definite, that makes `values` positive definite;
    /// `None` if even `δ_max` fails (non-finite entries). Each call starts afresh: the
    /// convexified model is built only for the backend's occasional QPs, whose models can
    /// differ by orders of magnitude from one call to the next.
    pub(crate) fn shift(&mut self, values: &[f64], floor: f64, tuning: &Tuning) -> Option<f64> {
        smallest_shift(
            (floor == 0.0).then_some(0.0),
            floor.max(tuning.qp.shift_first),
            tuning.qp.shift_increase,
            tuning.qp.shift_max,
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
        let tuning = Tuning::default();
        let delta = correction.shift(&[1.0, 2.0, 1.0], 0.0, &tuning).unwrap();
        assert!(delta > 1.0 && delta <= 8.0, "{delta}");
        assert_eq!(correction.shift(&[1.0, 0.0, 3.0], 0.0, &tuning), Some(0.0));
        assert!(correction.shift(&[1.0, 0.0, 3.0], 0.5, &tuning).unwrap() >= 0.5);
    }
}
