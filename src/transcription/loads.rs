//! The generalized force of the per-point terms' loads at one point, `Q = Σ_l J_l(q)ᵀ f_l`, with
//! its derivatives: what Hermite–Simpson's inverse-dynamics rows and the static balance rows
//! subtract.

use super::terms::ForceScratch;
use crate::dynamics::{Workspace, forward_kinematics, point_force_derivative, point_jacobian};
use crate::model::Model;
use crate::vi::PointLoad;
use nalgebra::DMatrix;

/// The generalized force `Q = Σ_l J_l(q)ᵀ f_l` of the loads at one point and its derivatives.
pub(crate) struct LoadTerms {
    /// `Q` (n).
    pub q: Vec<f64>,
    /// `∂Q/∂q` (n×n): the loads' stiffness plus `J_lᵀ ∂f_l/∂q`.
    pub dq: DMatrix<f64>,
    /// `∂Q/∂x_j` for the force variables, column by column.
    pub dvars: DMatrix<f64>,
    jac: DMatrix<f64>,
    stiffness: DMatrix<f64>,
}

impl LoadTerms {
    /// Buffers for `n` degrees of freedom and `vars` force variables.
    pub fn new(n: usize, vars: usize) -> Self {
        Self {
            q: vec![0.0; n],
            dq: DMatrix::zeros(n, n),
            dvars: DMatrix::zeros(n, vars),
            jac: DMatrix::zeros(3, n),
            stiffness: DMatrix::zeros(n, n),
        }
    }

    /// Evaluates `Q` and its derivatives from the forces in `fs` at configuration `q`.
    pub fn evaluate(
        &mut self,
        model: &Model,
        loads: &[PointLoad],
        ws: &mut Workspace,
        q: &[f64],
        fs: &ForceScratch,
    ) {
        forward_kinematics(model, ws, q);
        self.q.fill(0.0);
        self.dq.fill(0.0);
        self.dvars.fill(0.0);
        for (l, f, dfdq) in fs.each() {
            let load = &loads[l];
            point_jacobian(model, ws, load.body, &load.offset, &mut self.jac);
            point_force_derivative(model, ws, load.body, &load.offset, f, &mut self.stiffness);
            for j in 0..model.dof() {
                self.q[j] += (0..3).map(|d| self.jac[(d, j)] * f[d]).sum::<f64>();
            }
            self.dq += &self.stiffness;
            self.dq.gemm_tr(1.0, &self.jac, dfdq, 1.0);
        }
        for (c, (l, _, dv)) in fs.variables().enumerate() {
            let load = &loads[l];
            point_jacobian(model, ws, load.body, &load.offset, &mut self.jac);
            for j in 0..model.dof() {
                self.dvars[(j, c)] = (0..3).map(|d| self.jac[(d, j)] * dv[d]).sum::<f64>();
            }
        }
    }
}
