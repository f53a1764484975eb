//! Where each collocation variable sits in the decision vector.

/// The four per-point variable blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Var {
    /// Joint positions `q_p` (n).
    Q,
    /// Joint velocities `v_p = q̇(t_p)` (n).
    V,
    /// Joint accelerations `a_p = q̈(t_p)` (n).
    A,
    /// Actuator torques `u_p` on [`Model::actuated_joints`](crate::model::Model::actuated_joints)
    /// (n_u).
    U,
}

/// The variable layout of the Hermite–Simpson transcription on `2N + 1` points: point `p`
/// occupies `[q_p, v_p, a_p, u_p]` (`3n + n_u` entries) starting at
/// `offset + p (3n + n_u)`, points one after another. Knot `k` (time `k h`) is point `2k`; the
/// midpoint of interval `k` (time `(k + ½) h`) is point `2k + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HermiteSimpsonLayout {
    n: usize,
    n_u: usize,
    points: usize,
    offset: usize,
}

impl HermiteSimpsonLayout {
    /// The layout of `intervals` intervals (`2·intervals + 1` points) for `n` joints and `n_u`
    /// actuators, starting at index 0 of the decision vector.
    pub fn new(n: usize, n_u: usize, intervals: usize) -> Self {
        Self {
            n,
            n_u,
            points: 2 * intervals + 1,
            offset: 0,
        }
    }

    /// The same layout starting at `offset` in a larger decision vector.
    pub fn with_offset(self, offset: usize) -> Self {
        Self { offset, ..self }
    }

    /// Degrees of freedom `n`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Actuators `n_u`.
    pub fn n_u(&self) -> usize {
        self.n_u
    }

    /// Number of points `2N + 1`.
    pub fn points(&self) -> usize {
        self.points
    }

    /// Number of intervals `N`.
    pub fn intervals(&self) -> usize {
        (self.points - 1) / 2
    }

    /// Index of the first collocation variable in the decision vector.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// One past the index of the last collocation variable: `offset + num_variables()`.
    pub fn end(&self) -> usize {
        self.offset + self.num_variables()
    }

    /// Entries per point, `3n + n_u`.
    pub fn point_len(&self) -> usize {
        3 * self.n + self.n_u
    }

    /// Number of collocation variables, `(2N + 1)(3n + n_u)`; `(8N + 4) n` when fully actuated
    /// (seed 000, Table 1 with `m = 0`).
    pub fn num_variables(&self) -> usize {
        self.points * self.point_len()
    }

    /// Length of a block: `n` for `Q`, `V`, `A`; `n_u` for `U`.
    pub fn block_len(&self, var: Var) -> usize {
        match var {
            Var::U => self.n_u,
            _ => self.n,
        }
    }

    /// Index of the first entry of `var` at `point`.
    ///
    /// # Panics
    /// If `point` is not below [`Self::points`].
    #[track_caller]
    pub fn start(&self, point: usize, var: Var) -> usize {
        assert!(point < self.points, "point {point} of {}", self.points);
        let shift = match var {
            Var::Q => 0,
            Var::V => self.n,
            Var::A => 2 * self.n,
            Var::U => 3 * self.n,
        };
        self.offset + point * self.point_len() + shift
    }

    /// Index of entry `j` of `var` at `point`.
    ///
    /// # Panics
    /// If `point` or `j` is out of range.
    #[track_caller]
    pub fn index(&self, point: usize, var: Var, j: usize) -> usize {
        assert!(
            j < self.block_len(var),
            "entry {j} of a block of {}",
            self.block_len(var)
        );
        self.start(point, var) + j
    }

    /// The block `var` of `point` in the decision vector `x`.
    ///
    /// # Panics
    /// If `point` is out of range or `x` is too short.
    #[track_caller]
    pub fn slice<'a>(&self, x: &'a [f64], point: usize, var: Var) -> &'a [f64] {
        let s = self.start(point, var);
        &x[s..s + self.block_len(var)]
    }

    /// The point of knot `k` (time `k h`), `2k`.
    pub fn knot(&self, k: usize) -> usize {
        2 * k
    }

    /// The point of the midpoint of interval `k` (time `(k + ½) h`), `2k + 1`.
    pub fn midpoint(&self, k: usize) -> usize {
        2 * k + 1
    }
}
