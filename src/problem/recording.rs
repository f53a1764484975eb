//! A recorded trajectory a solve starts from: a previous result's `trajectory.csv`
//! (`initial_guess: {from: …}`), or the trajectory of a problem solved just before
//! (`initial_guess: {solve: …}`, continuation).

use crate::model::Model;
use std::path::Path;

/// Rows of values, one per time.
pub type Rows = Vec<Vec<f64>>;

/// Configurations and torques at increasing times, named by joint.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// Names of the columns of `q`.
    pub joint_names: Vec<String>,
    /// Names of the columns of `u`.
    pub actuated_names: Vec<String>,
    /// Times, increasing, from 0.
    pub times: Vec<f64>,
    /// Configuration at each time.
    pub q: Rows,
    /// Torques at each time.
    pub u: Rows,
}

impl Recording {
    /// Reads a `trajectory.csv` (columns `t`, `q_<joint>`, `u_<joint>`; others are ignored).
    ///
    /// # Errors
    /// A message naming the file and what is wrong with it.
    pub fn read_csv(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let mut reader = csv::Reader::from_path(path).map_err(|e| format!("{shown}: {e}"))?;
        let header = reader
            .headers()
            .map_err(|e| format!("{shown}: {e}"))?
            .clone();
        let t_col = header
            .iter()
            .position(|h| h == "t")
            .ok_or_else(|| format!("{shown}: no column 't'"))?;
        let named = |prefix: &str| -> Vec<(usize, String)> {
            header
                .iter()
                .enumerate()
                .filter_map(|(c, h)| h.strip_prefix(prefix).map(|j| (c, j.to_string())))
                .collect()
        };
        let (q_cols, u_cols) = (named("q_"), named("u_"));
        let mut rec = Self {
            joint_names: q_cols.iter().map(|(_, j)| j.clone()).collect(),
            actuated_names: u_cols.iter().map(|(_, j)| j.clone()).collect(),
            times: Vec::new(),
            q: Vec::new(),
            u: Vec::new(),
        };
        for (line, row) in reader.records().enumerate() {
            let row = row.map_err(|e| format!("{shown}: {e}"))?;
            let value = |c: usize| -> Result<f64, String> {
                row.get(c)
                    .and_then(|s| s.trim().parse::<f64>().ok())
                    .ok_or_else(|| format!("{shown}: line {}: a value is not a number", line + 2))
            };
            let t = value(t_col)?;
            if rec.times.last().is_some_and(|&last| t < last) {
                return Err(format!(
                    "{shown}: line {}: time {t} comes before the line above's",
                    line + 2
                ));
            }
            rec.times.push(t);
            rec.q.push(
                q_cols
                    .iter()
                    .map(|(c, _)| value(*c))
                    .collect::<Result<_, _>>()?,
            );
            rec.u.push(
                u_cols
                    .iter()
                    .map(|(c, _)| value(*c))
                    .collect::<Result<_, _>>()?,
            );
        }
        if rec.times.is_empty() {
            return Err(format!("{shown}: no data rows"));
        }
        Ok(rec)
    }

    /// `(q, u)` of `model`'s joints at `times` of a horizon `duration`: the recording's horizon
    /// stretched onto it, linear between the recorded times, matched by joint name (a joint the
    /// recording lacks is 0).
    ///
    /// # Errors
    /// A message when no joint of the recording is one of `model`'s.
    pub fn resample(
        &self,
        model: &Model,
        duration: f64,
        times: &[f64],
    ) -> Result<(Rows, Rows), String> {
        let column = |names: &[String], name: &str| names.iter().position(|j| j == name);
        let q_cols: Vec<Option<usize>> = model
            .joint_names()
            .iter()
            .map(|j| column(&self.joint_names, j))
            .collect();
        if q_cols.iter().all(Option::is_none) {
            return Err(format!(
                "no q_<joint> column matches robot '{}' ({})",
                model.name(),
                model.joint_names().join(", ")
            ));
        }
        let u_cols: Vec<Option<usize>> = model
            .actuated_joints()
            .iter()
            .map(|&i| column(&self.actuated_names, &model.joint(i).name))
            .collect();
        let t_end = self.times.last().copied().unwrap_or(0.0);
        let scale = if t_end > 0.0 { t_end / duration } else { 1.0 };
        let sample = |rows: &Rows, cols: &[Option<usize>], t: f64| -> Vec<f64> {
            let t = t * scale;
            let k = self.times.partition_point(|&s| s <= t);
            cols.iter()
                .map(|c| {
                    c.map_or(0.0, |c| {
                        if k == 0 {
                            rows[0][c]
                        } else if k == self.times.len() {
                            rows[k - 1][c]
                        } else {
                            let (a, b) = (self.times[k - 1], self.times[k]);
                            let w = (t - a) / (b - a);
                            (1.0 - w) * rows[k - 1][c] + w * rows[k][c]
                        }
                    })
                })
                .collect()
        };
        Ok((
            times.iter().map(|&t| sample(&self.q, &q_cols, t)).collect(),
            times.iter().map(|&t| sample(&self.u, &u_cols, t)).collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BaseKind, load_urdf};

    fn pendulum() -> Model {
        let urdf = concat!(env!("CARGO_MANIFEST_DIR"), "/robots/pendulum2.urdf");
        load_urdf(urdf, BaseKind::Fixed).unwrap()
    }

    /// `q = (a + b t, c)`, `u = (d t, −d t)` sampled at a few uneven times over `[0, 2]`, the
    /// columns in another order than the model's, with a column of an unknown joint.
    fn linear() -> Recording {
        let times = vec![0.0, 0.3, 0.5, 1.4, 2.0];
        Recording {
            joint_names: vec!["joint2".into(), "elsewhere".into(), "joint1".into()],
            actuated_names: vec!["joint1".into(), "joint2".into()],
            q: times
                .iter()
                .map(|t| vec![0.7, 9.0, 0.1 + 0.5 * t])
                .collect(),
            u: times.iter().map(|t| vec![3.0 * t, -3.0 * t]).collect(),
            times,
        }
    }

    #[test]
    fn a_linear_recording_is_resampled_exactly_by_name_onto_a_stretched_horizon() {
        let model = pendulum();
        let times = [0.0, 0.1, 0.37, 0.5, 0.95, 1.0];
        // The recording's 2 s are stretched onto 1 s: t here is 2t there.
        let (q, u) = linear().resample(&model, 1.0, &times).unwrap();
        for (k, t) in times.iter().enumerate() {
            let t = 2.0 * t;
            assert!((q[k][0] - (0.1 + 0.5 * t)).abs() < 1e-14, "{q:?}");
            assert!((q[k][1] - 0.7).abs() < 1e-14);
            assert!((u[k][0] - 3.0 * t).abs() < 1e-13 && (u[k][1] + 3.0 * t).abs() < 1e-13);
        }
    }

    #[test]
    fn a_recording_without_the_robots_joints_is_refused() {
        let mut rec = linear();
        rec.joint_names = vec!["a".into(), "b".into(), "c".into()];
        let e = rec.resample(&pendulum(), 1.0, &[0.0]).unwrap_err();
        assert!(e.contains("joint1") && e.contains("q_<joint>"), "{e}");
    }

    #[test]
    fn a_csv_reads_back_as_the_recording_it_was_written_from() {
        let rec = linear();
        let dir = std::env::temp_dir().join(format!("vito-recording-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("trajectory.csv");
        let mut text =
            String::from("t,q_joint2,q_elsewhere,v_joint1,q_joint1,u_joint1,u_joint2,fn_toe\n");
        for k in 0..rec.times.len() {
            let (q, u) = (&rec.q[k], &rec.u[k]);
            text += &format!(
                "{},{},{},5,{},{},{},1\n",
                rec.times[k], q[0], q[1], q[2], u[0], u[1]
            );
        }
        std::fs::write(&path, &text).unwrap();
        assert_eq!(Recording::read_csv(&path).unwrap(), rec);
        std::fs::write(&path, "t,q_joint1\n0,1\n0.5,x\n").unwrap();
        let e = Recording::read_csv(&path).unwrap_err();
        assert!(e.contains("line 3") && e.contains("not a number"), "{e}");
        std::fs::write(&path, "t,q_joint1\n0.5,1\n0.2,1\n").unwrap();
        let e = Recording::read_csv(&path).unwrap_err();
        assert!(e.contains("line 3") && e.contains("before"), "{e}");
        std::fs::write(&path, "t,q_joint1\n").unwrap();
        assert!(
            Recording::read_csv(&path)
                .unwrap_err()
                .contains("no data rows")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
