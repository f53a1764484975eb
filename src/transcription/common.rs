//! What both transcriptions share: the points where the trajectory is sampled, the objective
//! (integrated with the transcription's own quadrature weights) and the path constraints.

use crate::dynamics::{Workspace, forward_kinematics, frame_jacobian};
use crate::model::Model;
use crate::problem::{BodyPoint, PathConstraint, TimeSpec, TrajectoryProblem};
use crate::spatial::{Mat3, Transform, Vec3, hat, vee};
use crate::sqp::EvalError;
use nalgebra::DMatrix;

/// The sample points of a transcription: times, quadrature weights (so that
/// `∫ f dt ≈ Σ_p weight_p f(t_p)`), and where `q_p` and `u_p` sit in the decision vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Points {
    /// Times `t_p`, increasing from 0 to T.
    pub times: Vec<f64>,
    /// Quadrature weights.
    pub weights: Vec<f64>,
    /// Start index of `q_p` (n entries).
    pub q: Vec<usize>,
    /// Start index of `u_p` (n_u entries).
    pub u: Vec<usize>,
    /// Start index of the final velocity, if it is a decision variable.
    pub final_v: Option<usize>,
}

impl Points {
    /// Index of the point nearest to `time`.
    pub fn at(&self, time: TimeSpec, duration: f64) -> usize {
        let t = match time {
            TimeSpec::Start => 0.0,
            TimeSpec::End => duration,
            TimeSpec::At(t) => t,
        };
        let mut best = 0;
        for (p, tp) in self.times.iter().enumerate() {
            if (tp - t).abs() < (self.times[best] - t).abs() {
                best = p;
            }
        }
        best
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

/// The objective of a problem on a point set, with its gradient.
pub(crate) struct Objective {
    ws: Workspace,
    jac: DMatrix<f64>,
}

impl Objective {
    /// Buffers for `model`.
    pub fn new(model: &Model) -> Self {
        Self {
            ws: Workspace::new(model),
            jac: DMatrix::zeros(6, model.dof()),
        }
    }

    /// `f(x)` for the SQP: a non-finite value is an evaluation error.
    pub fn value(
        &mut self,
        prob: &TrajectoryProblem,
        pts: &Points,
        x: &[f64],
    ) -> Result<f64, EvalError> {
        let f = self.evaluate(prob, pts, x, None);
        if f.is_finite() {
            Ok(f)
        } else {
            Err(EvalError::Failed("non-finite objective".into()))
        }
    }

    /// `∇f(x)` for the SQP into `grad`.
    pub fn gradient(
        &mut self,
        prob: &TrajectoryProblem,
        pts: &Points,
        x: &[f64],
        grad: &mut [f64],
    ) -> Result<(), EvalError> {
        self.evaluate(prob, pts, x, Some(grad));
        check_finite(grad, "objective gradient")
    }

    /// `f(x)`; when `grad` is given it receives `∇f(x)` (overwritten).
    pub fn evaluate(
        &mut self,
        prob: &TrajectoryProblem,
        pts: &Points,
        x: &[f64],
        mut grad: Option<&mut [f64]>,
    ) -> f64 {
        let model = &prob.model;
        let n = model.dof();
        let costs = &prob.costs;
        if let Some(g) = grad.as_deref_mut() {
            g.fill(0.0);
        }
        let mut f = 0.0;
        for p in 0..pts.len() {
            let c = pts.weights[p];
            for (k, &w) in costs.effort.iter().enumerate() {
                let u = x[pts.u[p] + k];
                f += c * w * u * u;
                if let Some(g) = grad.as_deref_mut() {
                    g[pts.u[p] + k] += 2.0 * c * w * u;
                }
            }
            if let Some((w, qref)) = &costs.tracking {
                for i in 0..n {
                    let d = x[pts.q[p] + i] - qref[i];
                    f += c * w * d * d;
                    if let Some(g) = grad.as_deref_mut() {
                        g[pts.q[p] + i] += 2.0 * c * w * d;
                    }
                }
            }
        }
        if let Some(crate::problem::Terminal {
            weight: w,
            q: qt,
            v: vt,
        }) = &costs.terminal
        {
            let last = pts.len() - 1;
            if let Some(qt) = qt {
                for i in 0..n {
                    let d = x[pts.q[last] + i] - qt[i];
                    f += w * d * d;
                    if let Some(g) = grad.as_deref_mut() {
                        g[pts.q[last] + i] += 2.0 * w * d;
                    }
                }
            }
            if let (Some(vt), Some(iv)) = (vt, pts.final_v) {
                for i in 0..n {
                    let d = x[iv + i] - vt[i];
                    f += w * d * d;
                    if let Some(g) = grad.as_deref_mut() {
                        g[iv + i] += 2.0 * w * d;
                    }
                }
            }
        }
        for t in &costs.targets {
            let mut one = |p: usize, scale: f64, grad: Option<&mut [f64]>| -> f64 {
                let q = &x[pts.q[p]..pts.q[p] + n];
                forward_kinematics(model, &mut self.ws, q);
                let pos = frame_origin(&self.ws, &t.point);
                let d = pos - t.position;
                if let Some(g) = grad {
                    frame_jacobian(
                        model,
                        &self.ws,
                        t.point.body,
                        &t.point.placement,
                        &mut self.jac,
                    );
                    for j in 0..n {
                        let col = Vec3::new(self.jac[(3, j)], self.jac[(4, j)], self.jac[(5, j)]);
                        g[pts.q[p] + j] += 2.0 * scale * d.dot(&col);
                    }
                }
                scale * d.norm_squared()
            };
            match t.time {
                Some(time) => f += one(pts.at(time, prob.duration), t.weight, grad.as_deref_mut()),
                None => {
                    for p in 0..pts.len() {
                        f += one(p, t.weight * pts.weights[p], grad.as_deref_mut());
                    }
                }
            }
        }
        f
    }
}

/// An evaluation error when any value is NaN or infinite.
pub(crate) fn check_finite(values: &[f64], what: &str) -> Result<(), EvalError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(EvalError::Failed(format!("non-finite {what}")))
    }
}

/// World position of a frame origin after [`forward_kinematics`].
fn frame_origin(ws: &Workspace, point: &BodyPoint) -> Vec3 {
    ws.body_pose(point.body)
        .transform_point(&point.placement.translation)
}

/// World orientation of a frame after [`forward_kinematics`].
fn frame_rotation(ws: &Workspace, point: &BodyPoint) -> Mat3 {
    let g: Transform = ws.body_pose(point.body).compose(&point.placement);
    g.rotation
}

/// The rows of the path constraints (frame positions and orientations at given times, joint
/// equalities at every point), all equalities.
pub(crate) struct PathRows {
    /// One entry per row: (point, constraint index, component).
    rows: Vec<(usize, usize, usize)>,
    ws: Workspace,
    jac: DMatrix<f64>,
}

impl PathRows {
    /// Lays out the rows of `prob`'s path constraints on `pts`.
    pub fn new(prob: &TrajectoryProblem, pts: &Points) -> Self {
        let mut rows = Vec::new();
        for (c, con) in prob.constraints.iter().enumerate() {
            match con {
                PathConstraint::FramePosition { axes, time, .. } => {
                    let p = pts.at(*time, prob.duration);
                    rows.extend((0..axes.len()).map(|k| (p, c, k)));
                }
                PathConstraint::FrameOrientation { time, .. } => {
                    let p = pts.at(*time, prob.duration);
                    rows.extend((0..3).map(|k| (p, c, k)));
                }
                PathConstraint::JointEquality { .. } => {
                    rows.extend((0..pts.len()).map(|p| (p, c, 0)));
                }
            }
        }
        Self {
            rows,
            ws: Workspace::new(&prob.model),
            jac: DMatrix::zeros(6, prob.model.dof()),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Jacobian triplets with rows offset by `first_row`, in the order of
    /// [`PathRows::jacobian_values`].
    pub fn structure(
        &self,
        prob: &TrajectoryProblem,
        pts: &Points,
        first_row: usize,
    ) -> Vec<(usize, usize)> {
        let model = &prob.model;
        let mut out = Vec::new();
        for (r, &(p, c, _)) in self.rows.iter().enumerate() {
            let row = first_row + r;
            match &prob.constraints[c] {
                PathConstraint::FramePosition { point, .. }
                | PathConstraint::FrameOrientation { point, .. } => {
                    for j in model.ancestors_inclusive(point.body) {
                        out.push((row, pts.q[p] + j));
                    }
                }
                PathConstraint::JointEquality { a, b, .. } => {
                    out.push((row, pts.q[p] + a));
                    out.push((row, pts.q[p] + b));
                }
            }
        }
        out
    }

    /// Row values `h(x)`.
    pub fn values(&mut self, prob: &TrajectoryProblem, pts: &Points, x: &[f64], out: &mut [f64]) {
        self.evaluate(prob, pts, x, out, None);
    }

    /// Jacobian values in the order of [`PathRows::structure`].
    pub fn jacobian_values(
        &mut self,
        prob: &TrajectoryProblem,
        pts: &Points,
        x: &[f64],
        out: &mut [f64],
    ) {
        let mut scratch = vec![0.0; self.rows.len()];
        self.evaluate(prob, pts, x, &mut scratch, Some(out));
    }

    fn evaluate(
        &mut self,
        prob: &TrajectoryProblem,
        pts: &Points,
        x: &[f64],
        values: &mut [f64],
        mut jac: Option<&mut [f64]>,
    ) {
        let model = &prob.model;
        let n = model.dof();
        let mut k = 0;
        let mut last_point = usize::MAX;
        for (r, &(p, c, comp)) in self.rows.iter().enumerate() {
            let q = &x[pts.q[p]..pts.q[p] + n];
            match &prob.constraints[c] {
                PathConstraint::FramePosition {
                    point,
                    position,
                    axes,
                    ..
                } => {
                    if last_point != p {
                        forward_kinematics(model, &mut self.ws, q);
                        last_point = p;
                    }
                    let e = axes[comp];
                    values[r] = e.dot(&(frame_origin(&self.ws, point) - position));
                    if let Some(jv) = jac.as_deref_mut() {
                        frame_jacobian(
                            model,
                            &self.ws,
                            point.body,
                            &point.placement,
                            &mut self.jac,
                        );
                        for j in model.ancestors_inclusive(point.body) {
                            let col =
                                Vec3::new(self.jac[(3, j)], self.jac[(4, j)], self.jac[(5, j)]);
                            jv[k] = e.dot(&col);
                            k += 1;
                        }
                    }
                }
                PathConstraint::FrameOrientation {
                    point, rotation, ..
                } => {
                    if last_point != p {
                        forward_kinematics(model, &mut self.ws, q);
                        last_point = p;
                    }
                    let rm = frame_rotation(&self.ws, point);
                    let h = 0.5 * vee(&(rotation.transpose() * rm - rm.transpose() * rotation));
                    values[r] = h[comp];
                    if let Some(jv) = jac.as_deref_mut() {
                        frame_jacobian(
                            model,
                            &self.ws,
                            point.body,
                            &point.placement,
                            &mut self.jac,
                        );
                        for j in model.ancestors_inclusive(point.body) {
                            let w = hat(&Vec3::new(
                                self.jac[(0, j)],
                                self.jac[(1, j)],
                                self.jac[(2, j)],
                            ));
                            let d = 0.5
                                * vee(&(rotation.transpose() * w * rm
                                    + rm.transpose() * w * rotation));
                            jv[k] = d[comp];
                            k += 1;
                        }
                    }
                }
                PathConstraint::JointEquality {
                    a,
                    b,
                    ratio,
                    offset,
                } => {
                    values[r] = q[*a] - ratio * q[*b] - offset;
                    if let Some(jv) = jac.as_deref_mut() {
                        jv[k] = 1.0;
                        jv[k + 1] = -ratio;
                        k += 2;
                    }
                }
            }
        }
    }
}

/// Central differences of a gradient over a block of variables, symmetrized: writes the lower
/// triangle (`a ≥ b` in the order of `vars`) of `∂g_{vars[a]}/∂x_{vars[b]}` into `out`.
/// `gradient(x, g)` overwrites `g` (full length) with the gradient at `x`.
pub(crate) fn fd_hessian_block(
    vars: &[usize],
    x: &[f64],
    gradient: &mut dyn FnMut(&[f64], &mut [f64]),
    out: &mut [f64],
) {
    let mut xp = x.to_vec();
    let (mut gp, mut gm) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    let mut block = DMatrix::zeros(vars.len(), vars.len());
    for (j, &vj) in vars.iter().enumerate() {
        let h = FD_STEP * x[vj].abs().max(1.0);
        xp[vj] = x[vj] + h;
        gradient(&xp, &mut gp);
        xp[vj] = x[vj] - h;
        gradient(&xp, &mut gm);
        xp[vj] = x[vj];
        for (a, &va) in vars.iter().enumerate() {
            block[(a, j)] = (gp[va] - gm[va]) / (2.0 * h);
        }
    }
    write_lower_triangle(&block, out);
}

/// The lower-triangle triplets `(vars[a], vars[b])`, `a ≥ b`, of a dense block whose variables
/// are increasing (so that every triplet has row ≥ column).
pub(crate) fn lower_triangle(vars: &[usize], out: &mut Vec<(usize, usize)>) {
    for a in 0..vars.len() {
        for b in 0..=a {
            out.push((vars[a], vars[b]));
        }
    }
}

/// Writes the lower triangle of the symmetric part `(B + Bᵀ)/2` of a square block, row by row,
/// in the order of [`lower_triangle`].
pub(crate) fn write_lower_triangle(block: &DMatrix<f64>, out: &mut [f64]) {
    let mut idx = 0;
    for a in 0..block.nrows() {
        for b in 0..=a {
            out[idx] = 0.5 * (block[(a, b)] + block[(b, a)]);
            idx += 1;
        }
    }
}

/// Relative step of the central differences that give the Hessians' curvature terms.
pub(crate) const FD_STEP: f64 = 1e-6;
