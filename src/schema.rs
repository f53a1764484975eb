//! Reading problem files: the error that names the file, the field and the value; the values
//! their fields name (per-joint ranges, a time along the motion, a point on the robot); and
//! [`Fields`], the validators that read them, shared by the problem loaders (`problem`) and
//! the cost and constraint kinds that own their part of the schema (`terms`).

use crate::model::{Model, UrdfError};
use crate::spatial::{Transform, Vec3};
use serde_yaml_ng::Value;

/// An input file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProblemError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The YAML does not parse or does not fit the schema (message has the field path, line and
    /// column).
    #[error("{path}: {message}")]
    Yaml {
        /// The file.
        path: String,
        /// The parser's message.
        message: String,
    },
    /// A field has a value that is not allowed.
    #[error("{path}: {field}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The field path.
        field: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// The robot file named by the problem could not be loaded.
    #[error("{path}: robot: {source}")]
    Robot {
        /// The problem file.
        path: String,
        /// The URDF error.
        source: UrdfError,
    },
}

/// Per-joint lower and upper values; equal bounds fix a value, infinite ones leave it free.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranges {
    /// Lower bounds.
    pub lower: Vec<f64>,
    /// Upper bounds.
    pub upper: Vec<f64>,
}

impl Ranges {
    /// Every entry free.
    pub fn free(n: usize) -> Self {
        Self {
            lower: vec![f64::NEG_INFINITY; n],
            upper: vec![f64::INFINITY; n],
        }
    }

    /// Whether every entry is fixed (`lower == upper`).
    pub fn all_fixed(&self) -> bool {
        self.lower.iter().zip(&self.upper).all(|(l, u)| l == u)
    }

    /// Whether every entry is free (both bounds infinite).
    pub fn all_free(&self) -> bool {
        self.lower.iter().all(|l| l.is_infinite()) && self.upper.iter().all(|u| u.is_infinite())
    }

    /// A representative value: the fixed value, the midpoint of a finite range, the finite end
    /// of a half range, or `fallback`.
    pub fn guess(&self, i: usize, fallback: f64) -> f64 {
        let (l, u) = (self.lower[i], self.upper[i]);
        match (l.is_finite(), u.is_finite()) {
            (true, true) => 0.5 * (l + u),
            (true, false) => l.max(fallback),
            (false, true) => u.min(fallback),
            (false, false) => fallback,
        }
    }
}

/// When a cost or constraint applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeSpec {
    /// At `t = 0`.
    Start,
    /// At `t = T`.
    End,
    /// At the control point nearest to this time (s).
    At(f64),
}

/// A point fixed on a body: a frame's origin or a contact point.
impl TimeSpec {
    /// The time in seconds on a horizon of `duration`.
    pub fn seconds(self, duration: f64) -> f64 {
        match self {
            TimeSpec::Start => 0.0,
            TimeSpec::End => duration,
            TimeSpec::At(t) => t,
        }
    }

    /// The index of the first of `times` nearest to it (0 when `times` is empty).
    pub fn nearest(self, times: &[f64], duration: f64) -> usize {
        let t = self.seconds(duration);
        let mut best = 0;
        for (p, tp) in times.iter().enumerate() {
            if (tp - t).abs() < (times[best] - t).abs() {
                best = p;
            }
        }
        best
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyPoint {
    /// Body index.
    pub body: usize,
    /// Placement in the body frame.
    pub placement: Transform,
}

/// The fields of one problem file: its name for messages and the robot its names refer to.
pub(crate) struct Fields<'a> {
    /// The file, as messages show it.
    pub path: &'a str,
    /// The robot.
    pub model: &'a Model,
}

impl Fields<'_> {
    pub(crate) fn invalid(&self, field: &str, message: impl Into<String>) -> ProblemError {
        ProblemError::Invalid {
            path: self.path.to_string(),
            field: field.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn number(&self, field: &str, v: &Value) -> Result<f64, ProblemError> {
        match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(self.invalid(field, format!("expected a finite number, got {}", show(v)))),
        }
    }

    pub(crate) fn range(&self, field: &str, v: &Value) -> Result<(f64, f64), ProblemError> {
        let seq = v.as_sequence().filter(|s| s.len() == 2).ok_or_else(|| {
            self.invalid(field, format!("expected [lower, upper], got {}", show(v)))
        })?;
        let lo = self.bound(&format!("{field}[0]"), &seq[0])?;
        let hi = self.bound(&format!("{field}[1]"), &seq[1])?;
        if lo > hi {
            return Err(self.invalid(field, format!("lower bound {lo} exceeds upper bound {hi}")));
        }
        Ok((lo, hi))
    }

    /// A bound: a number, or `.inf` / `-.inf`.
    pub(crate) fn bound(&self, field: &str, v: &Value) -> Result<f64, ProblemError> {
        match v.as_f64() {
            Some(x) if !x.is_nan() => Ok(x),
            _ => Err(self.invalid(field, format!("expected a number, got {}", show(v)))),
        }
    }

    /// Joint names of `joints` (indices), for messages.
    pub(crate) fn names(&self, joints: &[usize]) -> String {
        joints
            .iter()
            .map(|&i| self.model.joint(i).name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Parses a per-joint specification: a sequence over `joints`, or a map by joint name
    /// (joints not listed keep their entry of `defaults`). `entry` reads one value.
    pub(crate) fn per_joint<T: Clone>(
        &self,
        field: &str,
        v: &Value,
        joints: &[usize],
        defaults: Vec<T>,
        entry: &dyn Fn(&str, &Value) -> Result<T, ProblemError>,
    ) -> Result<Vec<T>, ProblemError> {
        let mut out = defaults;
        match v {
            Value::Sequence(seq) => {
                if seq.len() != joints.len() {
                    return Err(self.invalid(
                        field,
                        format!(
                            "has {} entries but needs {} ({})",
                            seq.len(),
                            joints.len(),
                            self.names(joints)
                        ),
                    ));
                }
                for (k, item) in seq.iter().enumerate() {
                    out[k] = entry(&format!("{field}[{k}]"), item)?;
                }
            }
            Value::Mapping(map) => {
                for (key, item) in map {
                    let name = key.as_str().unwrap_or_default();
                    let k = joints
                        .iter()
                        .position(|&i| self.model.joint(i).name == name)
                        .ok_or_else(|| {
                            self.invalid(
                                field,
                                format!(
                                    "'{}' is not one of the joints here ({})",
                                    show(key),
                                    self.names(joints)
                                ),
                            )
                        })?;
                    out[k] = entry(&format!("{field}.{name}"), item)?;
                }
            }
            other => {
                return Err(self.invalid(
                    field,
                    format!(
                        "expected a list (one entry per joint) or a map by joint name, got {}",
                        show(other)
                    ),
                ));
            }
        }
        Ok(out)
    }

    /// A boundary state: each joint a number (fixed), `[lo, hi]` or `free`.
    pub(crate) fn state(
        &self,
        field: &str,
        v: Option<&Value>,
        n: usize,
    ) -> Result<Ranges, ProblemError> {
        let Some(v) = v else {
            return Ok(Ranges::free(n));
        };
        let all: Vec<usize> = (0..n).collect();
        let entry = |f: &str, item: &Value| -> Result<(f64, f64), ProblemError> {
            match item {
                Value::String(s) if s == "free" => Ok((f64::NEG_INFINITY, f64::INFINITY)),
                Value::Sequence(_) => self.range(f, item),
                _ => match item.as_f64() {
                    Some(x) if x.is_finite() => Ok((x, x)),
                    _ => Err(self.invalid(
                        f,
                        format!(
                            "expected a number (fixed), [lower, upper] (bounded) or free, got {}",
                            show(item)
                        ),
                    )),
                },
            }
        };
        let free = vec![(f64::NEG_INFINITY, f64::INFINITY); n];
        let pairs = self.per_joint(field, v, &all, free, &entry)?;
        Ok(Ranges {
            lower: pairs.iter().map(|p| p.0).collect(),
            upper: pairs.iter().map(|p| p.1).collect(),
        })
    }

    /// Path bounds over `joints`: one `[lo, hi]` for all, a list of ranges, or a map.
    pub(crate) fn bounds(
        &self,
        field: &str,
        v: Option<&Value>,
        joints: &[usize],
        defaults: Ranges,
    ) -> Result<Ranges, ProblemError> {
        let Some(v) = v else {
            return Ok(defaults);
        };
        let pairs: Vec<(f64, f64)> = defaults
            .lower
            .iter()
            .copied()
            .zip(defaults.upper.iter().copied())
            .collect();
        let is_single = v
            .as_sequence()
            .is_some_and(|s| s.len() == 2 && s.iter().all(|x| x.as_f64().is_some()));
        let pairs = if is_single {
            let r = self.range(field, v)?;
            vec![r; joints.len()]
        } else {
            self.per_joint(field, v, joints, pairs, &|f, item| self.range(f, item))?
        };
        Ok(Ranges {
            lower: pairs.iter().map(|p| p.0).collect(),
            upper: pairs.iter().map(|p| p.1).collect(),
        })
    }

    pub(crate) fn time(
        &self,
        field: &str,
        v: Option<&Value>,
        duration: f64,
    ) -> Result<TimeSpec, ProblemError> {
        match v {
            None => Ok(TimeSpec::End),
            Some(Value::String(s)) if s == "end" => Ok(TimeSpec::End),
            Some(Value::String(s)) if s == "start" => Ok(TimeSpec::Start),
            Some(other) => match other.as_f64() {
                Some(t) if (0.0..=duration).contains(&t) => Ok(TimeSpec::At(t)),
                _ => Err(self.invalid(
                    field,
                    format!(
                        "expected start, end or a time in [0, {duration}] s, got {}",
                        show(other)
                    ),
                )),
            },
        }
    }

    pub(crate) fn point(&self, field: &str, name: &str) -> Result<BodyPoint, ProblemError> {
        if let Some(f) = self.model.frame(name) {
            return Ok(BodyPoint {
                body: f.body,
                placement: f.placement,
            });
        }
        if let Some(c) = self.model.contact_points().iter().find(|c| c.name == name) {
            return Ok(BodyPoint {
                body: c.body,
                placement: Transform::from_translation(c.offset),
            });
        }
        let mut known: Vec<&str> = self
            .model
            .frames()
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        known.extend(self.model.contact_points().iter().map(|c| c.name.as_str()));
        Err(self.invalid(
            field,
            format!(
                "'{name}' is not a frame or contact point of the robot (known: {})",
                known.join(", ")
            ),
        ))
    }

    pub(crate) fn joint(&self, field: &str, name: &str) -> Result<usize, ProblemError> {
        self.model.joint_index(name).ok_or_else(|| {
            self.invalid(
                field,
                format!(
                    "'{name}' is not a joint (joints: {})",
                    self.model.joint_names().join(", ")
                ),
            )
        })
    }

    pub(crate) fn vector(
        &self,
        field: &str,
        v: &[f64],
        n: usize,
    ) -> Result<Vec<f64>, ProblemError> {
        if v.len() != n {
            return Err(self.invalid(
                field,
                format!(
                    "has {} values but the robot has {n} DoF ({})",
                    v.len(),
                    self.model.joint_names().join(", ")
                ),
            ));
        }
        if let Some(k) = v.iter().position(|x| !x.is_finite()) {
            return Err(self.invalid(&format!("{field}[{k}]"), "must be a finite number"));
        }
        Ok(v.to_vec())
    }

    /// Non-negative weights over `joints`: one number for all, a list, or a map by joint name
    /// (joints not listed weigh 0).
    pub(crate) fn weights(
        &self,
        field: &str,
        v: &Value,
        joints: &[usize],
    ) -> Result<Vec<f64>, ProblemError> {
        if v.as_f64().is_some() {
            return Ok(vec![
                self.nonnegative(field, self.number(field, v)?)?;
                joints.len()
            ]);
        }
        self.per_joint(field, v, joints, vec![0.0; joints.len()], &|f, item| {
            self.nonnegative(f, self.number(f, item)?)
        })
    }

    /// Three finite numbers as a vector.
    pub(crate) fn finite3(&self, field: &str, v: [f64; 3]) -> Result<Vec3, ProblemError> {
        if v.iter().all(|x| x.is_finite()) {
            Ok(Vec3::from(v))
        } else {
            Err(self.invalid(field, format!("must be three finite numbers, got {v:?}")))
        }
    }

    pub(crate) fn nonnegative(&self, field: &str, w: f64) -> Result<f64, ProblemError> {
        if w >= 0.0 && w.is_finite() {
            Ok(w)
        } else {
            Err(self.invalid(field, format!("must be a non-negative number, got {w}")))
        }
    }
}

/// A YAML value as the user wrote it, for messages.
pub(crate) fn show(v: &Value) -> String {
    serde_yaml_ng::to_string(v)
        .map(|s| s.trim().replace('\n', " "))
        .unwrap_or_else(|_| "?".into())
}
