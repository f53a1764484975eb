//! Assembly of the QP subproblems from the linearization at the current point.
//!
//! The regular subproblem in the step `d` is
//!
//! ```text
//! minimize    ½ dᵀHd + ∇fᵀd
//! subject to  c_L - r <= J d <= c_U - r        (r = c(x); for a second-order correction
//!             x_L - x <=  d  <= x_U - x         r = c(x + d) - J d)
//! ```
//!
//! with one identity row per variable that has a finite bound, and `H` the Hessian model (for
//! the backends its convexified copy, see `hessian.rs`). The elastic subproblem, used when the
//! linearization is inconsistent, relaxes every row with nonnegative elastic variables `p, q`
//! and penalizes them:
//!
//! ```text
//! minimize    ½ dᵀHd + w ∇fᵀd + ρ Σ (p + q)
//! subject to  c_L - c <= J d + p - q <= c_U - c,   x_L - x <= d <= x_U - x,   p, q >= 0
//! ```
//!
//! The restoration subproblem has the regular constraints, `H = I` and no linear term (see
//! `restoration.rs`).
//!
//! (`w = 1` for the elastic step; `w = 0, ρ = 1` gives the feasibility subproblem that
//! measures how much the linearized violation can be reduced at all.) Both patterns are built
//! once; the elastic one only when first needed.

use nalgebra_sparse::{CscMatrix, pattern::SparsityPattern};

use crate::qp::QpProblem;
use crate::qp::sparse::{CscAssembly, add_product};

/// The QP data of one iteration, with fixed patterns.
pub(crate) struct Subproblem {
    n: usize,
    m: usize,
    bounded: Vec<usize>,
    jacobian: Vec<(usize, usize)>,
    jacobian_len: usize,
    product: Vec<f64>,
    gradient: Vec<f64>,
    linear: Vec<f64>,
    regular: CscAssembly,
    regular_values: Vec<f64>,
    pub(crate) lower: Vec<f64>,
    pub(crate) upper: Vec<f64>,
    elastic: Option<Elastic>,
    identity: CscMatrix<f64>,
    zeros: Vec<f64>,
}

struct Elastic {
    hessian: CscMatrix<f64>,
    linear: Vec<f64>,
    constraints: CscAssembly,
    values: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Subproblem {
    /// Patterns for `n` variables (bounds `x_lower`, `x_upper`) and `m` rows with Jacobian
    /// triplets `jacobian`.
    pub(crate) fn new(
        n: usize,
        m: usize,
        x_lower: &[f64],
        x_upper: &[f64],
        jacobian: &[(usize, usize)],
    ) -> Self {
        let bounded: Vec<usize> = (0..n)
            .filter(|&j| x_lower[j].is_finite() || x_upper[j].is_finite())
            .collect();
        let mut triplets = jacobian.to_vec();
        triplets.extend(bounded.iter().enumerate().map(|(k, &j)| (m + k, j)));
        let rows = m + bounded.len();
        let mut regular_values = vec![0.0; triplets.len()];
        regular_values[jacobian.len()..].fill(1.0);
        Self {
            n,
            m,
            jacobian: jacobian.to_vec(),
            jacobian_len: jacobian.len(),
            product: vec![0.0; rows],
            gradient: vec![0.0; n],
            linear: vec![0.0; n],
            regular: CscAssembly::new(rows, n, &triplets),
            regular_values,
            lower: vec![0.0; rows],
            upper: vec![0.0; rows],
            bounded,
            elastic: None,
            identity: CscMatrix::identity(n),
            zeros: vec![0.0; n],
        }
    }

    /// Indices of the variables with a bound row, in row order after the `m` constraint rows.
    pub(crate) fn bounded(&self) -> &[usize] {
        &self.bounded
    }

    /// Refreshes the Jacobian values.
    pub(crate) fn set_jacobian(&mut self, jacobian: &[f64]) {
        self.regular_values[..self.jacobian_len].copy_from_slice(jacobian);
        self.regular.fill(&self.regular_values);
    }

    /// The objective gradient `∇f`.
    pub(crate) fn set_gradient(&mut self, gradient: &[f64]) {
        self.gradient.copy_from_slice(gradient);
    }

    /// `linear = w ∇f`.
    fn compose_linear(&mut self, weight: f64) {
        for (q, &g) in self.linear.iter_mut().zip(&self.gradient) {
            *q = weight * g;
        }
    }

    /// Row bounds for the constant part `r` of the linearization at `x`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn set_bounds(
        &mut self,
        r: &[f64],
        c_lower: &[f64],
        c_upper: &[f64],
        x: &[f64],
        x_lower: &[f64],
        x_upper: &[f64],
    ) {
        for i in 0..self.m {
            self.lower[i] = c_lower[i] - r[i];
            self.upper[i] = c_upper[i] - r[i];
        }
        for (k, &j) in self.bounded.iter().enumerate() {
            self.lower[self.m + k] = x_lower[j] - x[j];
            self.upper[self.m + k] = x_upper[j] - x[j];
        }
    }

    /// `out = J d` for the constraint rows.
    pub(crate) fn jacobian_product(&mut self, d: &[f64], out: &mut [f64]) {
        self.product.fill(0.0);
        add_product(&self.regular.matrix, d, &mut self.product);
        out.copy_from_slice(&self.product[..self.m]);
    }

    /// The regular QP with Hessian `hessian`.
    pub(crate) fn regular<'a>(&'a mut self, hessian: &'a CscMatrix<f64>) -> QpProblem<'a> {
        self.compose_linear(1.0);
        QpProblem {
            hessian,
            linear: &self.linear,
            constraints: &self.regular.matrix,
            lower: &self.lower,
            upper: &self.upper,
        }
    }

    /// The restoration QP `min ½‖d‖²` subject to the regular QP's constraints: the shortest
    /// step to the linearized feasible set.
    pub(crate) fn restoration(&self) -> QpProblem<'_> {
        QpProblem {
            hessian: &self.identity,
            linear: &self.zeros,
            constraints: &self.regular.matrix,
            lower: &self.lower,
            upper: &self.upper,
        }
    }

    /// The elastic QP with objective weight `weight` on `∇fᵀd` and penalty `rho`, using the
    /// gradient and row bounds last set.
    pub(crate) fn elastic<'a>(
        &'a mut self,
        hessian: &CscMatrix<f64>,
        weight: f64,
        rho: f64,
    ) -> QpProblem<'a> {
        self.compose_linear(weight);
        let (n, m, nb) = (self.n, self.m, self.bounded.len());
        let elastic = self
            .elastic
            .get_or_insert_with(|| Elastic::new(n, m, &self.bounded, &self.jacobian, hessian));
        elastic
            .hessian
            .values_mut()
            .copy_from_slice(hessian.values());
        elastic.linear[..n].copy_from_slice(&self.linear);
        elastic.linear[n..].fill(rho);
        elastic.values[..self.jacobian_len]
            .copy_from_slice(&self.regular_values[..self.jacobian_len]);
        elastic.constraints.fill(&elastic.values);
        elastic.lower[..m + nb].copy_from_slice(&self.lower);
        elastic.upper[..m + nb].copy_from_slice(&self.upper);
        QpProblem {
            hessian: &elastic.hessian,
            linear: &elastic.linear,
            constraints: &elastic.constraints.matrix,
            lower: &elastic.lower,
            upper: &elastic.upper,
        }
    }
}

impl Elastic {
    fn new(
        n: usize,
        m: usize,
        bounded: &[usize],
        jacobian: &[(usize, usize)],
        hessian: &CscMatrix<f64>,
    ) -> Self {
        let nb = bounded.len();
        // Rows: m relaxed constraint rows, nb bound rows, then p >= 0 and q >= 0.
        let mut triplets = jacobian.to_vec();
        let mut values = vec![0.0; jacobian.len()];
        for i in 0..m {
            triplets.extend([(i, n + i), (i, n + m + i)]);
            values.extend([1.0, -1.0]);
        }
        for (k, &j) in bounded.iter().enumerate() {
            triplets.push((m + k, j));
            values.push(1.0);
        }
        for i in 0..2 * m {
            triplets.push((m + nb + i, n + i));
            values.push(1.0);
        }
        let total_rows = m + nb + 2 * m;
        let constraints = CscAssembly::new(total_rows, n + 2 * m, &triplets);
        let mut offsets = hessian.col_offsets().to_vec();
        offsets.extend(std::iter::repeat_n(hessian.nnz(), 2 * m));
        let pattern = SparsityPattern::try_from_offsets_and_indices(
            n + 2 * m,
            n + 2 * m,
            offsets,
            hessian.row_indices().to_vec(),
        )
        .unwrap_or_else(|_| unreachable!("a padded valid pattern is valid"));
        let hessian = CscMatrix::try_from_pattern_and_values(pattern, hessian.values().to_vec())
            .unwrap_or_else(|_| unreachable!("one value per pattern entry"));
        let mut lower = vec![0.0; total_rows];
        let mut upper = vec![f64::INFINITY; total_rows];
        lower[..m + nb].fill(0.0);
        upper[..m + nb].fill(0.0);
        Self {
            hessian,
            linear: vec![0.0; n + 2 * m],
            constraints,
            values,
            lower,
            upper,
        }
    }
}
