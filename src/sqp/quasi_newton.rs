//! Damped block BFGS: a positive-definite Hessian model that keeps the block sparsity the
//! problem declares.
//!
//! Each block `B_b` (a dense matrix over one variable group) is updated with the block parts
//! `s_b` of the step and `y_b` of the change of the Lagrangian gradient, with Powell's
//! damping: if `s_bᵀy_b < 0.2 s_bᵀB_b s_b`, `y_b` is replaced by `θy_b + (1-θ)B_b s_b` with
//! `θ = 0.8 s_bᵀB_b s_b / (s_bᵀB_b s_b - s_bᵀy_b)`, which keeps `B_b` positive definite.
//! Before its first update a block is scaled to `(yᵀy / sᵀy) I` (Shanno–Phua). Couplings
//! between blocks are modelled as zero.
//!
//! The blocks are the problem's [`variable_groups`](crate::nlp::Nlp::variable_groups), with
//! every variable outside the groups in a block of its own. Without groups, a problem with
//! `n <= dense_quasi_newton_limit` gets one dense block (full BFGS); a larger one gets `n`
//! blocks of size one, a diagonal secant model whose pattern stays sparse.

use std::ops::Range;

use nalgebra::{DMatrix, DVector};

use crate::qp::sparse::CscAssembly;

/// Powell's damping (Nocedal & Wright, Procedure 18.2): a block whose curvature `sᵀy` is below
/// this share of `sᵀBs` is damped ...
const POWELL_THRESHOLD: f64 = 0.2;

/// ... to `sᵀy = 0.8 sᵀBs` (`1 −` the threshold, written out so that it is the literal 0.8).
const POWELL_TARGET: f64 = 0.8;

/// Blocks whose step is shorter than this (squared norm) carry no curvature information and
/// are not updated.
const TINY_STEP_SQUARED: f64 = 1e-24;

/// Block-diagonal damped BFGS model stored in a fixed upper-triangle CSC pattern.
pub(crate) struct BlockBfgs {
    blocks: Vec<Range<usize>>,
    matrices: Vec<DMatrix<f64>>,
    scaled: Vec<bool>,
    pub(crate) assembly: CscAssembly,
    triplet_values: Vec<f64>,
}

impl BlockBfgs {
    /// The model for `n` variables with the given groups (validated as disjoint and in range).
    pub(crate) fn new(n: usize, groups: Option<&[Range<usize>]>, dense_limit: usize) -> Self {
        let mut blocks: Vec<Range<usize>> = match groups {
            Some(groups) => {
                let mut covered = vec![false; n];
                let mut blocks = groups.to_vec();
                for g in groups {
                    covered[g.clone()].fill(true);
                }
                blocks.extend((0..n).filter(|&j| !covered[j]).map(|j| j..j + 1));
                blocks
            }
            None if n <= dense_limit => std::iter::once(0..n).collect(),
            None => (0..n).map(|j| j..j + 1).collect(),
        };
        blocks.sort_by_key(|b| b.start);
        let mut upper = Vec::new();
        for b in &blocks {
            for j in b.clone() {
                for i in b.start..=j {
                    upper.push((i, j));
                }
            }
        }
        let assembly = CscAssembly::new(n, n, &upper);
        let matrices = blocks
            .iter()
            .map(|b| DMatrix::identity(b.len(), b.len()))
            .collect();
        let mut model = Self {
            scaled: vec![false; blocks.len()],
            blocks,
            matrices,
            triplet_values: vec![0.0; upper.len()],
            assembly,
        };
        model.assemble();
        model
    }

    /// Restarts every block from the identity.
    pub(crate) fn reset(&mut self) {
        for (m, scaled) in self.matrices.iter_mut().zip(&mut self.scaled) {
            m.fill_with_identity();
            *scaled = false;
        }
        self.assemble();
    }

    fn assemble(&mut self) {
        let mut k = 0;
        for (b, m) in self.blocks.iter().zip(&self.matrices) {
            for j in 0..b.len() {
                for i in 0..=j {
                    self.triplet_values[k] = m[(i, j)];
                    k += 1;
                }
            }
        }
        self.assembly.fill(&self.triplet_values);
    }

    /// Updates every block with the step `s` and gradient change `y`; returns the number of
    /// blocks whose update was damped.
    pub(crate) fn update(&mut self, s: &[f64], y: &[f64]) -> usize {
        let mut damped = 0;
        for ((b, m), scaled) in self
            .blocks
            .iter()
            .zip(&mut self.matrices)
            .zip(&mut self.scaled)
        {
            let sb = DVector::from_column_slice(&s[b.clone()]);
            let mut yb = DVector::from_column_slice(&y[b.clone()]);
            let ss = sb.norm_squared();
            if ss.is_nan() || ss <= TINY_STEP_SQUARED || !yb.iter().all(|v| v.is_finite()) {
                continue;
            }
            let sy = sb.dot(&yb);
            if !*scaled && sy > 0.0 {
                m.fill_with_identity();
                *m *= yb.norm_squared() / sy;
                *scaled = true;
            }
            let bs = &*m * &sb;
            let sbs = sb.dot(&bs);
            if sbs.is_nan() || sbs <= 0.0 {
                continue;
            }
            let mut sy = sy;
            if sy < POWELL_THRESHOLD * sbs {
                let theta = POWELL_TARGET * sbs / (sbs - sy);
                yb = &yb * theta + &bs * (1.0 - theta);
                sy = sb.dot(&yb);
                damped += 1;
            }
            *m -= &bs * bs.transpose() / sbs;
            *m += &yb * yb.transpose() / sy;
        }
        self.assemble();
        damped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_follow_groups_satisfy_the_secant_and_stay_positive_definite() {
        let groups: Vec<_> = std::iter::once(0..2).collect();
        let mut bfgs = BlockBfgs::new(3, Some(&groups), 200);
        // Pattern: dense 2×2 upper block plus one diagonal entry.
        assert_eq!(bfgs.assembly.matrix.nnz(), 4);
        let a = nalgebra::Matrix2::new(4.0, 1.0, 1.0, 3.0);
        for s in [[1.0, 0.0], [0.0, 1.0], [1.0, -2.0]] {
            let y = a * nalgebra::Vector2::new(s[0], s[1]);
            assert_eq!(bfgs.update(&[s[0], s[1], 0.0], &[y[0], y[1], 0.0]), 0);
        }
        let m = &bfgs.matrices[0];
        let s = nalgebra::DVector::from_column_slice(&[1.0, -2.0]);
        let y = nalgebra::DVector::from_column_slice(&[2.0, -5.0]);
        assert!((m * &s - y).amax() < 1e-12);
        // Negative curvature is damped, not taken.
        assert_eq!(bfgs.update(&[1.0, 0.0, 0.0], &[-1.0, 0.0, 0.0]), 1);
        let eig = bfgs.matrices[0].clone().symmetric_eigen();
        assert!(eig.eigenvalues.iter().all(|&l| l > 0.0));
    }
}
