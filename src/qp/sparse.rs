//! CSC patterns assembled once from triplets, with the slot of every triplet remembered so
//! that values can be refilled each iteration without searching.

use nalgebra_sparse::{CscMatrix, pattern::SparsityPattern};

/// A CSC matrix with a fixed pattern and, for each input triplet, the index of its value.
/// Duplicate triplets share a slot; their values are summed by [`CscAssembly::fill`].
#[derive(Debug, Clone)]
pub(crate) struct CscAssembly {
    /// The matrix; its values are overwritten by [`CscAssembly::fill`].
    pub(crate) matrix: CscMatrix<f64>,
    /// `slots[t]` is the value index of triplet `t`.
    pub(crate) slots: Vec<usize>,
}

impl CscAssembly {
    /// Builds the pattern of an `nrows × ncols` matrix from `(row, column)` triplets, which
    /// must be in range (the caller validates them).
    pub(crate) fn new(nrows: usize, ncols: usize, triplets: &[(usize, usize)]) -> Self {
        let mut order: Vec<(usize, usize)> = triplets.iter().map(|&(r, c)| (c, r)).collect();
        order.sort_unstable();
        order.dedup();
        let mut offsets = vec![0usize; ncols + 1];
        for &(c, _) in &order {
            offsets[c + 1] += 1;
        }
        for c in 0..ncols {
            offsets[c + 1] += offsets[c];
        }
        let rows: Vec<usize> = order.iter().map(|&(_, r)| r).collect();
        let slots = triplets
            .iter()
            .map(|&(r, c)| {
                let (start, end) = (offsets[c], offsets[c + 1]);
                // The entry exists: every triplet went into `order`.
                start + rows[start..end].partition_point(|&row| row < r)
            })
            .collect();
        let nnz = rows.len();
        let pattern = SparsityPattern::try_from_offsets_and_indices(ncols, nrows, offsets, rows)
            .unwrap_or_else(|_| unreachable!("offsets and indices are sorted and in range"));
        let matrix = CscMatrix::try_from_pattern_and_values(pattern, vec![0.0; nnz])
            .unwrap_or_else(|_| unreachable!("one value per pattern entry"));
        Self { matrix, slots }
    }

    /// Overwrites the matrix values with the triplet values `values` (summing duplicates).
    pub(crate) fn fill(&mut self, values: &[f64]) {
        let dest = self.matrix.values_mut();
        dest.fill(0.0);
        for (&slot, &v) in self.slots.iter().zip(values) {
            dest[slot] += v;
        }
    }
}

/// `out += Jᵀλ` for a matrix `J` given as `(row, column)` triplets with values.
pub(crate) fn add_transpose_triplets(
    structure: &[(usize, usize)],
    values: &[f64],
    lambda: &[f64],
    out: &mut [f64],
) {
    for (&(row, col), &v) in structure.iter().zip(values) {
        out[col] += v * lambda[row];
    }
}

/// `y += A x` for a CSC matrix `A`.
pub(crate) fn add_product(a: &CscMatrix<f64>, x: &[f64], y: &mut [f64]) {
    let (offsets, rows, values) = (a.col_offsets(), a.row_indices(), a.values());
    for (j, &xj) in x.iter().enumerate() {
        for k in offsets[j]..offsets[j + 1] {
            y[rows[k]] += values[k] * xj;
        }
    }
}

/// `dᵀ H d` for a symmetric `H` stored as its upper triangle in CSC.
pub(crate) fn symmetric_quadratic_form(upper: &CscMatrix<f64>, d: &[f64]) -> f64 {
    let (offsets, rows, values) = (upper.col_offsets(), upper.row_indices(), upper.values());
    let mut sum = 0.0;
    for (j, &dj) in d.iter().enumerate() {
        for k in offsets[j]..offsets[j + 1] {
            let i = rows[k];
            let term = values[k] * d[i] * dj;
            sum += if i == j { term } else { 2.0 * term };
        }
    }
    sum
}

/// `‖H d‖∞` for a symmetric `H` stored as its upper triangle; `out` is scratch of length `n`.
pub(crate) fn symmetric_product_norm(upper: &CscMatrix<f64>, d: &[f64], out: &mut [f64]) -> f64 {
    out.fill(0.0);
    let (offsets, rows, values) = (upper.col_offsets(), upper.row_indices(), upper.values());
    for j in 0..d.len() {
        for k in offsets[j]..offsets[j + 1] {
            let i = rows[k];
            out[i] += values[k] * d[j];
            if i != j {
                out[j] += values[k] * d[i];
            }
        }
    }
    out.iter().fold(0.0, |a: f64, v| a.max(v.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_share_a_slot_and_are_summed() {
        let triplets = [(1, 0), (0, 0), (1, 0), (2, 1)];
        let mut a = CscAssembly::new(3, 2, &triplets);
        assert_eq!(a.matrix.nnz(), 3);
        a.fill(&[1.0, 2.0, 3.0, 4.0]);
        let dense = nalgebra::DMatrix::from(&a.matrix);
        assert_eq!(dense[(0, 0)], 2.0);
        assert_eq!(dense[(1, 0)], 4.0);
        assert_eq!(dense[(2, 1)], 4.0);
        let mut y = vec![0.0; 3];
        add_product(&a.matrix, &[1.0, 2.0], &mut y);
        assert_eq!(y, vec![2.0, 4.0, 8.0]);
    }
}
