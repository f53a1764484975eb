//! Holonomic constraints and the constrained Newton direction of seed 000 §3.3 (Eq. 6).
//!
//! A [`PointConstraint`] keeps `eᵀ(p_A − p_B) = target` for a point `p_A` on one body and a point
//! `p_B` on another body or fixed in the world, along a unit world direction `e` — pins, sliders
//! and loop closures are sets of these. Its force `A(q)ᵀλ` is a pair of opposite world point
//! forces `±λ e`, so it enters the DEL equations as [`PointLoad`]s and Algorithm I.2 already
//! accounts for how it turns with the bodies. Per stage the unknowns are `q^{k,1..=s}` and
//! `λ^{k,0..s−1}` (forces at the control points where Eqs. 6a–6b hold) and the equations are
//! 6a–6b and `h(q^{k,γ}) = 0` for `γ = 1..=s` (Eq. 6d).
//!
//! The model's mimic couplings ([`crate::model::Coupling`]) join them as joint couplings
//! `h = q_a − m q_b − o` with the generalized force `λ (e_a − m e_b)`, which enters the DEL
//! equations like a joint torque (`w^α Δt` times it in equation α). Both kinds share the
//! structure below: `B = ∂r/∂λ = w^α Δt ∇h(q^α)ᵀ` and `C = ∇h(q^γ)`.
//!
//! [`constrained_newton_direction`] follows §3.3: one O(n) factorization (Algorithm I.2), the
//! solve `δq_r = −J⁻¹r`, `s·m` more O(n) solves for `W = J⁻¹ B`, then the `s·m × s·m` system
//! `(C W) δλ = h + C δq_r` and `δq = δq_r − W δλ` — O(mn) + O(m³) per stage.

use super::del::{Detail, evaluate};
use super::newton::{SingularJacobian, factor, solve};
use super::{Galerkin, PointLoad, Stage, StageWorkspace};
use crate::model::{Coupling, Model};
use crate::spatial::{Vec3, lower, upper};
use nalgebra::{DMatrix, DVector};

/// `eᵀ(p_A − p_B) = target` between a point on body A and a point on body B or the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointConstraint {
    /// The constrained point on its body.
    pub a: PointLoad,
    /// The other point on its body, or `None` for the world origin.
    pub b: Option<PointLoad>,
    /// Unit world direction `e`.
    pub direction: Vec3,
    /// Target value of `eᵀ(p_A − p_B)`.
    pub target: f64,
}

/// Constraint buffers for one stage: the loads the constraints apply and the dense blocks of
/// the §3.3 elimination.
#[derive(Clone, Debug)]
pub struct ConstraintWorkspace {
    constraints: Vec<PointConstraint>,
    /// The model's mimic couplings: constraints `constraints.len() + k`.
    couplings: Vec<Coupling>,
    loads: Vec<PointLoad>,
    /// Load index of each constraint's point A (B follows when present).
    first_load: Vec<usize>,
    forces: Vec<f64>,
    w: DMatrix<f64>,
    c: DMatrix<f64>,
    rhs: Vec<f64>,
    col: Vec<f64>,
    grad: Vec<f64>,
    r: Vec<f64>,
    dq_r: Vec<f64>,
    h: Vec<f64>,
}

impl ConstraintWorkspace {
    /// Buffers for `constraints` and the model's mimic couplings on `model` under `gal`.
    pub fn new(model: &Model, gal: &Galerkin, constraints: &[PointConstraint]) -> Self {
        let (n, s) = (model.dof(), gal.s());
        let mut loads = Vec::new();
        let mut first_load = Vec::new();
        for c in constraints {
            first_load.push(loads.len());
            loads.push(c.a);
            if let Some(b) = c.b {
                loads.push(b);
            }
        }
        let couplings = model.couplings().to_vec();
        let m = constraints.len() + couplings.len();
        Self {
            constraints: constraints.to_vec(),
            couplings,
            forces: vec![0.0; (s + 1) * loads.len() * 3],
            loads,
            first_load,
            w: DMatrix::zeros(s * n, s * m),
            c: DMatrix::zeros(s * m, s * n),
            rhs: vec![0.0; n * (s + 1)],
            col: vec![0.0; s * n],
            grad: vec![0.0; n],
            r: vec![0.0; n * (s + 1)],
            dq_r: vec![0.0; s * n],
            h: vec![0.0; s * m],
        }
    }

    /// Number of scalar constraints `m` (point constraints, then couplings).
    pub fn len(&self) -> usize {
        self.constraints.len() + self.couplings.len()
    }

    /// Whether there are no constraints.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The loads through which the constraint forces act.
    pub fn loads(&self) -> &[PointLoad] {
        &self.loads
    }

    /// Sets the load forces from `λ` (`lambda[α·m + c]`, α = 0..s−1; none at α = s), laid out as
    /// [`Stage::forces`].
    fn set_forces(&mut self, s: usize, lambda: &[f64]) {
        let (m, nl) = (self.len(), self.loads.len());
        assert_eq!(lambda.len(), s * m, "λ must have s·m entries");
        self.forces.fill(0.0);
        for al in 0..s {
            for (c, con) in self.constraints.iter().enumerate() {
                let f = con.direction * lambda[al * m + c];
                let la = self.first_load[c];
                let base = (al * nl + la) * 3;
                self.forces[base..base + 3].copy_from_slice(f.as_slice());
                if con.b.is_some() {
                    let bb = base + 3;
                    self.forces[bb..bb + 3].copy_from_slice((-f).as_slice());
                }
            }
        }
    }

    /// The load forces of the last [`constrained_residual`] or
    /// [`constrained_newton_direction`], laid out as [`Stage::forces`].
    pub fn forces(&self) -> &[f64] {
        &self.forces
    }

    /// Constraint values `h(q^{k,γ})`, γ = 1..=s, into `out[(γ−1)·m + c]`, from the poses of the
    /// last stage evaluation in `ws` and the control points `q`.
    fn values(&self, ws: &StageWorkspace, q: &[f64], out: &mut [f64]) {
        let (m, s, n, mp) = (self.len(), ws.s, ws.n, self.constraints.len());
        for ga in 1..=s {
            for (c, con) in self.constraints.iter().enumerate() {
                out[(ga - 1) * m + c] = constraint_value(con, ws, ga);
            }
            for (k, cp) in self.couplings.iter().enumerate() {
                let qa = &q[ga * n..(ga + 1) * n];
                out[(ga - 1) * m + mp + k] = qa[cp.follower] - cp.follower_value(qa[cp.leader]);
            }
        }
    }

    /// Adds `w^α Δt λ^α (e_a − m e_b)`, the couplings' joint forces, to the DEL residuals.
    fn add_coupling_forces(
        &self,
        gal: &Galerkin,
        ws: &mut StageWorkspace,
        dt: f64,
        lambda: &[f64],
    ) {
        let (m, mp) = (self.len(), self.constraints.len());
        for al in 0..ws.s {
            let wdt = gal.w(al) * dt;
            for (k, cp) in self.couplings.iter().enumerate() {
                let l = lambda[al * m + mp + k];
                let (ia, ib) = (ws.idx(cp.follower, al), ws.idx(cp.leader, al));
                ws.r[ia] += wdt * l;
                ws.r[ib] -= wdt * cp.multiplier * l;
            }
        }
    }

    /// Calls `f(j, ∂h_c/∂q_j)` at control point `al` for constraint `c`.
    fn gradient(
        &self,
        model: &Model,
        ws: &StageWorkspace,
        c: usize,
        al: usize,
        mut f: impl FnMut(usize, f64),
    ) {
        match self.constraints.get(c) {
            Some(con) => {
                point_gradient(model, ws, &con.a, &con.direction, al, &mut f);
                if let Some(b) = con.b {
                    point_gradient(model, ws, &b, &con.direction, al, |j, g| f(j, -g));
                }
            }
            None => {
                let cp = &self.couplings[c - self.constraints.len()];
                f(cp.follower, 1.0);
                f(cp.leader, -cp.multiplier);
            }
        }
    }
}

/// `h = eᵀ(p_A − p_B) − target` at control point `al` of the last stage evaluation.
fn constraint_value(con: &PointConstraint, ws: &StageWorkspace, al: usize) -> f64 {
    let pa = ws.g[ws.idx(con.a.body, al)].transform_point(&con.a.offset);
    let pb = con.b.map_or_else(Vec3::zeros, |b| {
        ws.g[ws.idx(b.body, al)].transform_point(&b.offset)
    });
    con.direction.dot(&(pa - pb)) - con.target
}

/// Calls `f(j, ∂(eᵀp)/∂q_j)` for the joints moving the point of `load` at control point `al`: the
/// generalized force of a unit world force `e` at the point (Eq. K.52).
fn point_gradient(
    model: &Model,
    ws: &StageWorkspace,
    load: &PointLoad,
    e: &Vec3,
    al: usize,
    mut f: impl FnMut(usize, f64),
) {
    let p = ws.g[ws.idx(load.body, al)].transform_point(&load.offset);
    for j in model.ancestors_inclusive(load.body) {
        let sj = &ws.sb[ws.idx(j, al)];
        f(j, e.dot(&(lower(sj) + upper(sj).cross(&p))));
    }
}

/// Residual norms of the constrained stage at `(q, λ)`: returns `(‖r‖_∞, ‖h‖_∞)` and writes
/// `p^{k+1}` when asked.
///
/// # Panics
/// If the buffers or the stage do not match.
pub fn constrained_residual(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    cws: &mut ConstraintWorkspace,
    stage: &Stage,
    lambda: &[f64],
    p_next: Option<&mut [f64]>,
) -> (f64, f64) {
    residual(model, gal, ws, cws, stage, lambda, p_next, Detail::Residual)
}

/// [`constrained_residual`], leaving what `detail` asks for in `ws`.
#[allow(clippy::too_many_arguments)]
fn residual(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    cws: &mut ConstraintWorkspace,
    stage: &Stage,
    lambda: &[f64],
    p_next: Option<&mut [f64]>,
    detail: Detail,
) -> (f64, f64) {
    let s = gal.s();
    cws.set_forces(s, lambda);
    let st = Stage {
        loads: &cws.loads,
        forces: &cws.forces,
        ..*stage
    };
    evaluate(model, gal, ws, &st, detail);
    cws.add_coupling_forces(gal, ws, stage.dt, lambda);
    let n = model.dof();
    let mut rmax: f64 = 0.0;
    for i in 0..n {
        for al in 0..s {
            rmax = rmax.max(ws.r[ws.idx(i, al)].abs());
        }
    }
    if let Some(pn) = p_next {
        for (i, p) in pn.iter_mut().enumerate() {
            *p = ws.r[ws.idx(i, s)];
        }
    }
    let mut h = std::mem::take(&mut cws.h);
    cws.values(ws, stage.q, &mut h);
    let hmax = h.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    cws.h = h;
    (rmax, hmax)
}

/// The Newton direction `(δq̄, δλ)` of the constrained stage (Eqs. 6a, 6b, 6d) at `(q, λ)`:
/// `dq[(γ−1)·n + i]`, `dlambda[α·m + c]`. Returns `(‖r‖_∞, ‖h‖_∞)` at the current point.
///
/// # Errors
/// [`SingularJacobian`] when `J` or the reduced matrix `C J⁻¹ B` is singular.
///
/// # Panics
/// If the buffers or the stage do not match.
#[allow(clippy::too_many_arguments)]
pub fn constrained_newton_direction(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    cws: &mut ConstraintWorkspace,
    stage: &Stage,
    lambda: &[f64],
    dq: &mut [f64],
    dlambda: &mut [f64],
) -> Result<(f64, f64), SingularJacobian> {
    let (n, s) = (model.dof(), gal.s());
    let m = cws.len();
    let norms = residual(model, gal, ws, cws, stage, lambda, None, Detail::Newton);
    factor(model, gal, ws, stage.dt).map_err(|i| SingularJacobian {
        joint: model.joint(i).name.clone(),
    })?;
    let cw = &mut *cws;
    cw.r.copy_from_slice(&ws.r);
    solve(model, gal, ws, stage.dt, &cw.r, &mut cw.dq_r);
    // W = J⁻¹ B, column (α, c) from B = ∂r/∂λ = w^α Δt ∇h(q^α)ᵀ in the rows of eq. α.
    for al in 0..s {
        let wdt = gal.w(al) * stage.dt;
        for c in 0..m {
            let mut rhs = std::mem::take(&mut cw.rhs);
            rhs.fill(0.0);
            cw.gradient(model, ws, c, al, |j, g| rhs[j * (s + 1) + al] += wdt * g);
            cw.rhs = rhs;
            solve(model, gal, ws, stage.dt, &cw.rhs, &mut cw.col);
            for (k, v) in cw.col.iter().enumerate() {
                cw.w[(k, al * m + c)] = -v;
            }
        }
    }
    // C = ∂h(q^γ)/∂q^γ, rows (γ−1)·m + c, columns (γ−1)·n + j.
    cw.c.fill(0.0);
    for ga in 1..=s {
        for c in 0..m {
            let mut grad = std::mem::take(&mut cw.grad);
            grad.fill(0.0);
            cw.gradient(model, ws, c, ga, |j, g| grad[j] += g);
            cw.grad = grad;
            for (j, g) in cw.grad.iter().enumerate() {
                cw.c[((ga - 1) * m + c, (ga - 1) * n + j)] = *g;
            }
        }
    }
    let reduced = &cw.c * &cw.w;
    let rhs_l = DVector::from_column_slice(&cw.h) + &cw.c * DVector::from_column_slice(&cw.dq_r);
    let dl = reduced.lu().solve(&rhs_l).ok_or_else(|| SingularJacobian {
        joint: "constraint coupling C J⁻¹ B".into(),
    })?;
    dlambda.copy_from_slice(dl.as_slice());
    let correction = &cw.w * &dl;
    for (k, d) in dq.iter_mut().enumerate() {
        *d = cw.dq_r[k] - correction[k];
    }
    Ok(norms)
}
