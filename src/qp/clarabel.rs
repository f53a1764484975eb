//! The Clarabel backend (interior point, the default).
//!
//! Clarabel solves `min ½xᵀPx + qᵀx` subject to `A_c x + s = b`, `s ∈ K`. Each equality row
//! `l == u` becomes a row of the zero cone; each finite side of an inequality becomes a row
//! of the nonnegative cone (`aᵢᵀx <= uᵢ` and `-aᵢᵀx <= -lᵢ`); infinite sides are skipped.
//! The conic matrix `A_c` is built once, with the source of every value remembered, and the
//! solver object is kept: later calls refresh `P`, `q`, `A_c` and `b` through Clarabel's
//! `update_*` data updates (presolve and zero dropping are disabled so that updates are
//! allowed). An interior-point method cannot use a warm start, so the guess is ignored.

use std::fmt::Write;

use clarabel::algebra::CscMatrix as ClarabelCsc;
use clarabel::solver::{
    DefaultSettings, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus, SupportedConeT,
    ZeroConeT,
};

use super::{QpProblem, QpSolution, QpSolver, QpStatus, RowKind, row_kinds, shape};

/// One row of the conic constraint matrix: the QP row it comes from and its sign.
#[derive(Debug, Clone, Copy)]
struct ConicRow {
    source: usize,
    upper_side: bool,
}

/// The fixed layout of the conic problem for one QP pattern.
struct Layout {
    kinds: Vec<RowKind>,
    p_shape: (usize, usize, usize),
    a_shape: (usize, usize, usize),
    rows: Vec<ConicRow>,
    /// For each value of `A_c`: the index into the QP's `A` values and the sign.
    a_sources: Vec<(usize, f64)>,
    a_conic: ClarabelCsc<f64>,
    p_conic: ClarabelCsc<f64>,
    q: Vec<f64>,
    b: Vec<f64>,
    cones: Vec<SupportedConeT<f64>>,
}

/// Clarabel QP backend; see the module documentation.
pub struct ClarabelQp {
    settings: DefaultSettings<f64>,
    kinds: Vec<RowKind>,
    layout: Option<Layout>,
    solver: Option<DefaultSolver<f64>>,
}

impl ClarabelQp {
    /// A backend that asks Clarabel for gap and feasibility tolerances `tolerance` and at
    /// most `max_iterations` interior-point iterations.
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        let settings = DefaultSettings {
            verbose: false,
            presolve_enable: false,
            input_sparse_dropzeros: false,
            max_iter: u32::try_from(max_iterations).unwrap_or(u32::MAX),
            tol_gap_abs: tolerance,
            tol_gap_rel: tolerance,
            tol_feas: tolerance,
            // Stop on the κ/τ ratio (infeasibility detection) later than Clarabel's 1e-6: the
            // SQP's elastic subproblems are feasible and must not be declared otherwise.
            tol_ktratio: 1e-7,
            ..DefaultSettings::default()
        };
        Self {
            settings,
            kinds: Vec::new(),
            layout: None,
            solver: None,
        }
    }
}

impl Layout {
    fn new(qp: &QpProblem<'_>, kinds: &[RowKind]) -> Self {
        let mut rows = Vec::new();
        for (i, kind) in kinds.iter().enumerate() {
            if *kind == RowKind::Equality {
                rows.push(ConicRow {
                    source: i,
                    upper_side: true,
                });
            }
        }
        let num_equalities = rows.len();
        for (i, kind) in kinds.iter().enumerate() {
            if matches!(kind, RowKind::Upper | RowKind::Range) {
                rows.push(ConicRow {
                    source: i,
                    upper_side: true,
                });
            }
            if matches!(kind, RowKind::Lower | RowKind::Range) {
                rows.push(ConicRow {
                    source: i,
                    upper_side: false,
                });
            }
        }
        let mut conic_rows_of: Vec<Vec<usize>> = vec![Vec::new(); kinds.len()];
        for (r, row) in rows.iter().enumerate() {
            conic_rows_of[row.source].push(r);
        }
        let a = qp.constraints;
        let (offsets, row_idx) = (a.col_offsets(), a.row_indices());
        let mut colptr = vec![0usize; a.ncols() + 1];
        let mut rowval = Vec::new();
        let mut a_sources = Vec::new();
        let mut column: Vec<(usize, usize, f64)> = Vec::new();
        for j in 0..a.ncols() {
            column.clear();
            for k in offsets[j]..offsets[j + 1] {
                for &r in &conic_rows_of[row_idx[k]] {
                    let sign = if rows[r].upper_side { 1.0 } else { -1.0 };
                    column.push((r, k, sign));
                }
            }
            column.sort_unstable_by_key(|&(r, _, _)| r);
            for &(r, k, sign) in &column {
                rowval.push(r);
                a_sources.push((k, sign));
            }
            colptr[j + 1] = rowval.len();
        }
        let nnz = rowval.len();
        let a_conic = ClarabelCsc::new(rows.len(), a.ncols(), colptr, rowval, vec![0.0; nnz]);
        let p = qp.hessian;
        let p_conic = ClarabelCsc::new(
            p.nrows(),
            p.ncols(),
            p.col_offsets().to_vec(),
            p.row_indices().to_vec(),
            p.values().to_vec(),
        );
        let mut cones = Vec::new();
        if num_equalities > 0 {
            cones.push(ZeroConeT(num_equalities));
        }
        if rows.len() > num_equalities {
            cones.push(NonnegativeConeT(rows.len() - num_equalities));
        }
        Self {
            kinds: kinds.to_vec(),
            p_shape: shape(p),
            a_shape: shape(a),
            q: qp.linear.to_vec(),
            b: vec![0.0; rows.len()],
            rows,
            a_sources,
            a_conic,
            p_conic,
            cones,
        }
    }

    fn matches(&self, qp: &QpProblem<'_>, kinds: &[RowKind]) -> bool {
        shape(qp.hessian) == self.p_shape
            && shape(qp.constraints) == self.a_shape
            && self.kinds == kinds
    }

    fn refresh(&mut self, qp: &QpProblem<'_>) {
        self.p_conic.nzval.copy_from_slice(qp.hessian.values());
        self.q.copy_from_slice(qp.linear);
        let a_values = qp.constraints.values();
        for (dest, &(k, sign)) in self.a_conic.nzval.iter_mut().zip(&self.a_sources) {
            *dest = sign * a_values[k];
        }
        for (b, row) in self.b.iter_mut().zip(&self.rows) {
            *b = if row.upper_side {
                qp.upper[row.source]
            } else {
                -qp.lower[row.source]
            };
        }
    }
}

impl QpSolver for ClarabelQp {
    fn name(&self) -> &'static str {
        "clarabel"
    }

    fn solve(
        &mut self,
        qp: &QpProblem<'_>,
        _warm_x: &[f64],
        _warm_y: &[f64],
        solution: &mut QpSolution,
    ) {
        row_kinds(qp, &mut self.kinds);
        if !self
            .layout
            .as_ref()
            .is_some_and(|l| l.matches(qp, &self.kinds))
        {
            self.layout = Some(Layout::new(qp, &self.kinds));
            self.solver = None;
        }
        let Some(layout) = self.layout.as_mut() else {
            unreachable!("the layout was just built")
        };
        layout.refresh(qp);
        let updated = match self.solver.as_mut() {
            Some(solver) => solver
                .update_data(
                    &layout.p_conic.nzval,
                    &layout.q,
                    &layout.a_conic.nzval,
                    &layout.b,
                )
                .is_ok(),
            None => false,
        };
        if !updated {
            match DefaultSolver::new(
                &layout.p_conic,
                &layout.q,
                &layout.a_conic,
                &layout.b,
                &layout.cones,
                self.settings.clone(),
            ) {
                Ok(solver) => self.solver = Some(solver),
                Err(err) => {
                    self.solver = None;
                    solution.status = QpStatus::Failed;
                    solution.iterations = 0;
                    solution.factorizations = 0;
                    solution.message.clear();
                    let _ = write!(solution.message, "clarabel setup: {err}");
                    return;
                }
            }
        }
        let Some(solver) = self.solver.as_mut() else {
            unreachable!("the solver was just built")
        };
        solver.solve();
        let result = &solver.solution;
        solution.iterations = result.iterations as usize;
        solution.factorizations = solution.iterations + 1;
        solution.status = match result.status {
            SolverStatus::Solved => QpStatus::Solved,
            SolverStatus::AlmostSolved => QpStatus::SolvedInaccurate,
            SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
                QpStatus::PrimalInfeasible
            }
            SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => {
                QpStatus::DualInfeasible
            }
            SolverStatus::MaxIterations | SolverStatus::MaxTime => QpStatus::IterationLimit,
            _ => QpStatus::Failed,
        };
        solution.message.clear();
        let _ = write!(solution.message, "clarabel: {:?}", result.status);
        solution.x.clear();
        solution.x.extend_from_slice(&result.x);
        solution.y.clear();
        solution.y.resize(qp.lower.len(), 0.0);
        for (row, &z) in layout.rows.iter().zip(&result.z) {
            solution.y[row.source] += if row.upper_side { z } else { -z };
        }
    }
}
