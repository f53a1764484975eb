//! The Hessian model of the QP: the problem's exact Hessian of the Lagrangian, or damped block
//! BFGS (`quasi_newton.rs`), in a fixed upper-triangle CSC pattern that holds the diagonal.
//!
//! The exact model is used as it is: the working-set solver (`active_set.rs`) shifts it only
//! when it is not positive definite on the null space of the QP's active rows. The QP backends
//! need a convex objective, so when one is called (a cold start, an elastic or failed QP) it is
//! given a convex model: for exact Hessians the objective's curvature `∇²f`, shifted by the
//! smallest `δI` of a geometric grid that makes it positive definite (`inertia.rs`); for BFGS
//! the model itself. Far from a solution `∇²L` itself is a poor convex model: on the arm
//! problem its shift reached 10⁶ and the backend's steps (elastic steps in particular) stalled,
//! while `∇²f` needs a shift of at most the objective's own scale.

use nalgebra_sparse::CscMatrix;

use super::inertia::InertiaCorrection;
use super::quasi_newton::BlockBfgs;
use crate::nlp::settings::Tuning;
use crate::qp::sparse::CscAssembly;

/// The Hessian model and the convex model for the backends.
pub(crate) struct HessianModel {
    kind: Kind,
    convex: CscAssembly,
    convex_triplets: Vec<f64>,
    correction: Option<InertiaCorrection>,
}

enum Kind {
    /// The problem's lower-triangle triplets, transposed, then the diagonal.
    Exact {
        assembly: CscAssembly,
        triplet_values: Vec<f64>,
    },
    Bfgs(BlockBfgs),
}

impl HessianModel {
    /// The exact model for an `n × n` Hessian with lower-triangle triplets `structure`.
    pub(crate) fn exact(n: usize, structure: &[(usize, usize)]) -> Self {
        let mut upper: Vec<(usize, usize)> = structure.iter().map(|&(r, c)| (c, r)).collect();
        upper.extend((0..n).map(|i| (i, i)));
        let assembly = CscAssembly::new(n, n, &upper);
        let correction = Some(InertiaCorrection::new(&assembly));
        Self {
            convex: assembly.clone(),
            convex_triplets: vec![0.0; upper.len()],
            correction,
            kind: Kind::Exact {
                triplet_values: vec![0.0; upper.len()],
                assembly,
            },
        }
    }

    /// The block BFGS model.
    pub(crate) fn bfgs(bfgs: BlockBfgs) -> Self {
        Self {
            convex: bfgs.assembly.clone(),
            convex_triplets: Vec::new(),
            correction: None,
            kind: Kind::Bfgs(bfgs),
        }
    }

    /// Whether the model is the exact Hessian.
    pub(crate) fn is_exact(&self) -> bool {
        matches!(self.kind, Kind::Exact { .. })
    }

    /// Writes the exact model from the Hessian triplet values `values` (nothing for BFGS).
    pub(crate) fn set_exact(&mut self, values: &[f64]) {
        if let Kind::Exact {
            assembly,
            triplet_values,
        } = &mut self.kind
        {
            triplet_values[..values.len()].copy_from_slice(values);
            assembly.fill(triplet_values);
        }
    }

    /// The model `H`.
    pub(crate) fn matrix(&self) -> &CscMatrix<f64> {
        match &self.kind {
            Kind::Exact { assembly, .. } => &assembly.matrix,
            Kind::Bfgs(b) => &b.assembly.matrix,
        }
    }

    /// Builds the convex model from the objective's Hessian triplet values `objective`
    /// (exact model; BFGS uses its own matrix), shifted by the smallest grid shift of at least
    /// `floor` and `convex_damping · max |∇²f_jj|` that makes it positive definite; returns
    /// that shift, or `None` if no shift does (non-finite entries). The damping bounds the
    /// steps along the variables the objective does not weigh (configurations, velocities):
    /// on the 12-link pendulum's Hermite–Simpson QPs, `∇²f` shifted by 10⁻⁴ alone left OSQP at
    /// its iteration limit (10⁵ ADMM iterations, 50 s per QP).
    pub(crate) fn prepare_convex(
        &mut self,
        objective: &[f64],
        floor: f64,
        tuning: &Tuning,
    ) -> Option<f64> {
        let mut floor = floor;
        match &self.kind {
            Kind::Exact { .. } => {
                self.convex_triplets[..objective.len()].copy_from_slice(objective);
                self.convex.fill(&self.convex_triplets);
                let m = &self.convex.matrix;
                let largest = (0..m.ncols())
                    .filter_map(|j| {
                        let (start, end) = (m.col_offsets()[j], m.col_offsets()[j + 1]);
                        (start..end).find(|&k| m.row_indices()[k] == j)
                    })
                    .fold(0.0, |a: f64, k| a.max(m.values()[k].abs()));
                floor = floor.max(tuning.convex_damping * largest);
            }
            Kind::Bfgs(b) => {
                let source = b.assembly.matrix.values();
                self.convex.matrix.values_mut().copy_from_slice(source);
            }
        }
        let shift = match &mut self.correction {
            Some(correction) => {
                correction.shift(self.convex.matrix.values(), floor, &tuning.inertia)?
            }
            None => floor,
        };
        let m = &mut self.convex.matrix;
        for j in 0..m.ncols() {
            let (start, end) = (m.col_offsets()[j], m.col_offsets()[j + 1]);
            let k = start + m.row_indices()[start..end].partition_point(|&r| r < j);
            if k < end && m.row_indices()[k] == j {
                m.values_mut()[k] += shift;
            }
        }
        Some(shift)
    }

    /// The convex model last prepared.
    pub(crate) fn convex(&self) -> &CscMatrix<f64> {
        &self.convex.matrix
    }

    /// Numeric factorizations of the convexification so far.
    pub(crate) fn factorizations(&self) -> usize {
        self.correction.as_ref().map_or(0, |c| c.factorizations())
    }

    /// The BFGS update with step `s` and gradient change `y` (nothing for the exact model).
    pub(crate) fn secant_update(&mut self, s: &[f64], y: &[f64]) {
        if let Kind::Bfgs(b) = &mut self.kind {
            b.update(s, y);
        }
    }

    /// Restarts the BFGS model (nothing for the exact model).
    pub(crate) fn reset(&mut self) {
        if let Kind::Bfgs(b) = &mut self.kind {
            b.reset();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_model_is_assembled_and_the_objective_convexified() {
        let mut h = HessianModel::exact(2, &[(0, 0), (1, 0), (1, 1)]);
        h.set_exact(&[-1.0, 3.0, 1.0]);
        let dense = nalgebra::DMatrix::from(h.matrix());
        assert_eq!(
            (dense[(0, 0)], dense[(0, 1)], dense[(1, 1)]),
            (-1.0, 3.0, 1.0)
        );
        // ∇²f = [[1, 2], [2, 1]] has eigenvalues 3 and -1: a shift in (1, 8] makes it convex.
        let tuning = Tuning::default();
        let shift = h.prepare_convex(&[1.0, 2.0, 1.0], 0.0, &tuning).unwrap();
        assert!(shift > 1.0 && shift <= 8.0, "{shift}");
        let convex = nalgebra::DMatrix::from(h.convex());
        assert_eq!(convex[(0, 0)], 1.0 + shift);
        assert_eq!(convex[(0, 1)], 2.0);
        assert!(convex.symmetric_eigen().eigenvalues.min() > 0.0);
        // The model itself is left as it was.
        assert_eq!(nalgebra::DMatrix::from(h.matrix())[(0, 0)], -1.0);
        // A positive definite ∇²f gets only the damping, relative to its largest diagonal.
        let damping = tuning.convex_damping * 2.0;
        assert_eq!(
            h.prepare_convex(&[2.0, 0.0, 1.0], 0.0, &tuning),
            Some(damping)
        );
    }
}
