//! `vito._vito`: the native half of the Python package `vito` (`python/vito/__init__.py` is
//! the other). It loads problems from YAML text with the library's own loaders
//! (`vito::problem::load_problem_str`, `load_simulation_str`), runs what `vito solve`,
//! `vito compare` and `vito simulate` run (`vito::commands`) with the interpreter released, and
//! evaluates `vito model`'s dynamics (`vito::dynamics`). Results come back as plain Python
//! values: numbers, strings, lists, JSON text and tables of `f64` as little-endian bytes that
//! the Python layer turns into NumPy arrays.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use vito::commands::{self, Solved, SweepOptions, SweepRow, SweepSource};
use vito::dynamics::{Workspace, bias_forces, forward_dynamics, inverse_dynamics, mass_matrix};
use vito::model::{BaseKind, Model, UrdfOptions, load_urdf_with};
use vito::output::{Formats, sampled_rows, simulation_table, trajectory_header};
use vito::problem::sweep::{Design, Instance, Variation, instances};
use vito::problem::{
    Integrator, ProblemOverrides, SimulationOverrides, TrajectoryProblem, TranscriptionKind,
    load_problem_str, load_simulation_str,
};
use vito::spatial::Vec3;
use vito::nlp::{Method, QpBackend};

create_exception!(
    vito,
    VitoError,
    PyValueError,
    "An error of vito's: an input that cannot be used (its message names the file, the field \
     and the value) or a result file that cannot be written."
);

/// A [`VitoError`] with `message`.
fn vito_error(message: impl std::fmt::Display) -> PyErr {
    VitoError::new_err(message.to_string())
}

/// Parses the keyword argument `name` with the parser the command line uses for its flag.
fn parse_arg<T: FromStr<Err = String>>(name: &str, value: Option<&str>) -> PyResult<Option<T>> {
    value
        .map(|s| {
            s.parse()
                .map_err(|e: String| vito_error(format!("{name}: {e}")))
        })
        .transpose()
}

/// Appends `v` as JSON to `out`, with the non-finite numbers of YAML (`.inf`, `-.inf`, `.nan`)
/// as the `Infinity`, `-Infinity` and `NaN` that Python's `json.loads` reads; `at` is the field
/// path for messages.
fn write_json(v: &serde_yaml_ng::Value, at: &str, out: &mut String) -> Result<(), String> {
    use serde_yaml_ng::Value;
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => out.push_str(&i.to_string()),
            (None, Some(u), _) => out.push_str(&u.to_string()),
            (None, None, Some(x)) if x.is_nan() => out.push_str("NaN"),
            (None, None, Some(x)) if x.is_infinite() => {
                out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
            }
            // `{:?}` is the shortest representation that reads back to the same f64.
            (None, None, Some(x)) => out.push_str(&format!("{x:?}")),
            (None, None, None) => return Err(format!("{at}: {n} is not a number")),
        },
        Value::String(s) => out.push_str(&serde_json::Value::from(s.as_str()).to_string()),
        Value::Sequence(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_json(item, &format!("{at}[{k}]"), out)?;
            }
            out.push(']');
        }
        Value::Mapping(map) => {
            out.push('{');
            for (k, (key, item)) in map.iter().enumerate() {
                let key = match key {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    other => {
                        return Err(format!(
                            "{at}: a key must be a string, got {}",
                            serde_yaml_ng::to_string(other)
                                .map_or_else(|_| "?".into(), |s| s.trim().to_string())
                        ));
                    }
                };
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(&serde_json::Value::from(key.as_str()).to_string());
                out.push_str(": ");
                let at = if at.is_empty() {
                    key
                } else {
                    format!("{at}.{key}")
                };
                write_json(item, &at, out)?;
            }
            out.push('}');
        }
        Value::Tagged(t) => {
            return Err(format!(
                "{}: YAML tags ({}) are not supported",
                if at.is_empty() { "document" } else { at },
                t.tag
            ));
        }
    }
    Ok(())
}

/// The YAML document `text` (from `source`, for messages) as JSON text for Python's
/// `json.loads` (non-finite numbers as `Infinity`, `-Infinity`, `NaN`).
#[pyfunction]
fn yaml_to_json(text: &str, source: &str) -> PyResult<String> {
    let value: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(text).map_err(|e| vito_error(format!("{source}: {e}")))?;
    let mut out = String::new();
    write_json(&value, "", &mut out).map_err(|e| vito_error(format!("{source}: {e}")))?;
    Ok(out)
}

/// The text of the file at `path` (a [`VitoError`] naming it when it cannot be read).
#[pyfunction]
fn read_text(path: PathBuf) -> PyResult<String> {
    std::fs::read_to_string(&path)
        .map_err(|e| vito_error(format!("{}: cannot read: {e}", path.display())))
}

/// A table of numbers: its column names, its row count and its values row by row as
/// little-endian `f64` bytes.
struct Table {
    columns: Vec<String>,
    rows: usize,
    bytes: Vec<u8>,
}

impl Table {
    fn new(columns: Vec<String>, rows: &[Vec<f64>]) -> Self {
        let mut bytes = Vec::with_capacity(rows.len() * columns.len() * 8);
        for row in rows {
            for x in row {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        Self {
            columns,
            rows: rows.len(),
            bytes,
        }
    }

    fn put(&self, py: Python<'_>, d: &Bound<'_, PyDict>) -> PyResult<()> {
        d.set_item("columns", &self.columns)?;
        d.set_item("rows", self.rows)?;
        d.set_item("table", PyBytes::new(py, &self.bytes))
    }
}

/// What Python gets of one solve.
struct SolveData {
    status: String,
    objective: f64,
    iterations: usize,
    transcription: String,
    method: String,
    report: String,
    log: String,
    files: Vec<String>,
    joint_names: Vec<String>,
    actuated_names: Vec<String>,
    contact_names: Vec<String>,
    warnings: Vec<String>,
    trajectory: Table,
}

impl SolveData {
    /// The solve's report and `trajectory.csv`'s table (the same rows, made by the same
    /// functions).
    fn new(prob: &TrajectoryProblem, solved: &Solved) -> Result<Self, String> {
        let sol = &solved.outcome.solution;
        let r = &solved.outcome.result;
        let rows = sampled_rows(prob, sol, &sol.fine_grid(prob.stages));
        Ok(Self {
            status: solved.report.status.clone(),
            objective: r.objective,
            iterations: r.iterations,
            transcription: solved.report.transcription.clone(),
            method: solved.report.method.clone(),
            report: serde_json::to_string(&solved.report).map_err(|e| e.to_string())?,
            log: String::from_utf8_lossy(&solved.log).into_owned(),
            files: paths(&solved.files),
            joint_names: sol.joint_names.clone(),
            actuated_names: sol.actuated_names.clone(),
            contact_names: sol
                .contact
                .as_ref()
                .map_or_else(Vec::new, |c| c.names.clone()),
            warnings: prob.model.report().warnings.clone(),
            trajectory: Table::new(trajectory_header(sol), &rows),
        })
    }

    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("status", self.status)?;
        d.set_item("objective", self.objective)?;
        d.set_item("iterations", self.iterations)?;
        d.set_item("transcription", self.transcription)?;
        d.set_item("method", self.method)?;
        d.set_item("report", self.report)?;
        d.set_item("log", self.log)?;
        d.set_item("files", self.files)?;
        d.set_item("joint_names", self.joint_names)?;
        d.set_item("actuated_names", self.actuated_names)?;
        d.set_item("contact_names", self.contact_names)?;
        d.set_item("warnings", self.warnings)?;
        self.trajectory.put(py, &d)?;
        Ok(d)
    }
}

/// `files` as the strings Python gets.
fn paths(files: &[PathBuf]) -> Vec<String> {
    files.iter().map(|p| p.display().to_string()).collect()
}

/// Loads the motion problem `text` with the command line's overrides, parsed by its parsers.
fn load(
    text: &str,
    base_dir: &Path,
    source: &str,
    overrides: ProblemOverrides,
    log: bool,
) -> Result<TrajectoryProblem, String> {
    let mut prob =
        load_problem_str(text, base_dir, source, &overrides).map_err(|e| e.to_string())?;
    if !log {
        // Quiet: nothing on stderr, not even the progress bar.
        prob.solver.progress_bar = false;
    }
    Ok(prob)
}

/// Solves the motion problem `text` as `vito solve` does (`vito::commands::solve`), with the
/// interpreter released; `method`, `transcription` and `qp` are the command line's flags,
/// parsed by the same parsers. With `output` the command's files are written there. Returns a
/// dict of plain values (the trajectory table as bytes).
#[pyfunction]
#[pyo3(signature = (text, base_dir, source, method=None, transcription=None, qp=None, output=None, log=false))]
#[allow(clippy::too_many_arguments)]
fn solve<'py>(
    py: Python<'py>,
    text: &str,
    base_dir: PathBuf,
    source: &str,
    method: Option<&str>,
    transcription: Option<&str>,
    qp: Option<&str>,
    output: Option<PathBuf>,
    log: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let overrides = ProblemOverrides {
        method: parse_arg::<Method>("method", method)?,
        transcription: parse_arg::<TranscriptionKind>("transcription", transcription)?,
        qp: parse_arg::<QpBackend>("qp", qp)?,
        output: output.clone(),
    };
    let data = py
        .detach(|| -> Result<SolveData, String> {
            let prob = load(text, &base_dir, source, overrides, log)?;
            let solved = commands::solve(&prob, output.as_deref(), Formats::default(), log)
                .map_err(|e| e.to_string())?;
            SolveData::new(&prob, &solved)
        })
        .map_err(vito_error)?;
    data.into_dict(py)
}

/// Solves the motion problem `text` with `simpson_vi` and with `hermite_simpson` as
/// `vito compare` does (`vito::commands::compare`), with the interpreter released. Returns a
/// dict: `runs` (one solve dict each, with its `initial_guess`), `markdown` and `files`.
#[pyfunction]
#[pyo3(signature = (text, base_dir, source, method=None, qp=None, warm_start=false, output=None, log=false))]
#[allow(clippy::too_many_arguments)]
fn compare<'py>(
    py: Python<'py>,
    text: &str,
    base_dir: PathBuf,
    source: &str,
    method: Option<&str>,
    qp: Option<&str>,
    warm_start: bool,
    output: Option<PathBuf>,
    log: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let overrides = ProblemOverrides {
        method: parse_arg::<Method>("method", method)?,
        qp: parse_arg::<QpBackend>("qp", qp)?,
        ..ProblemOverrides::default()
    };
    let (runs, markdown, files) = py
        .detach(|| -> Result<_, String> {
            let base = load(text, &base_dir, source, overrides, log)?;
            let c = commands::compare(
                &base,
                output.as_deref(),
                warm_start,
                Formats::default(),
                log,
            )
            .map_err(|e| e.to_string())?;
            let runs = c
                .runs
                .iter()
                .map(|r| {
                    Ok((
                        SolveData::new(&r.problem, &r.solved)?,
                        r.initial_guess.clone(),
                    ))
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok((runs, c.markdown, paths(&c.files)))
        })
        .map_err(vito_error)?;
    let d = PyDict::new(py);
    let list = runs
        .into_iter()
        .map(|(data, initial_guess)| {
            let run = data.into_dict(py)?;
            run.set_item("initial_guess", initial_guess)?;
            Ok(run)
        })
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("runs", list)?;
    d.set_item("markdown", markdown)?;
    d.set_item("files", files)?;
    Ok(d)
}

/// Simulates the simulation file `text` as `vito simulate` does (`vito::commands::simulate`),
/// with the interpreter released; `integrator`, `dt` and `duration` are the command line's
/// overrides. Returns a dict of plain values (the knot table as bytes); a simulation that
/// stops early is no error: its `status` is `StepFailed` and `failure` says why.
#[pyfunction]
#[pyo3(signature = (text, base_dir, source, integrator=None, dt=None, duration=None, output=None, log=false))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    text: &str,
    base_dir: PathBuf,
    source: &str,
    integrator: Option<&str>,
    dt: Option<f64>,
    duration: Option<f64>,
    output: Option<PathBuf>,
    log: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let overrides = SimulationOverrides {
        integrator: parse_arg::<Integrator>("integrator", integrator)?,
        dt,
        duration,
        output: output.clone(),
    };
    let data = py
        .detach(|| -> Result<SimulationData, String> {
            let prob = load_simulation_str(text, &base_dir, source, &overrides)
                .map_err(|e| e.to_string())?;
            let s = commands::simulate(&prob, output.as_deref(), Formats::default(), log)
                .map_err(|e| e.to_string())?;
            let traj = &s.simulation.trajectory;
            let (columns, rows) = simulation_table(traj);
            Ok(SimulationData {
                status: s.report.status.clone(),
                message: s.report.message.clone(),
                failure: s.simulation.failure.as_ref().map(ToString::to_string),
                report: serde_json::to_string(&s.report).map_err(|e| e.to_string())?,
                files: paths(&s.files),
                joint_names: traj.joint_names.clone(),
                contact_names: traj
                    .contact
                    .as_ref()
                    .map_or_else(Vec::new, |c| c.names.clone()),
                warnings: prob.model.report().warnings.clone(),
                knots: Table::new(columns, &rows),
            })
        })
        .map_err(vito_error)?;
    let d = PyDict::new(py);
    d.set_item("status", data.status)?;
    d.set_item("message", data.message)?;
    d.set_item("failure", data.failure)?;
    d.set_item("report", data.report)?;
    d.set_item("files", data.files)?;
    d.set_item("joint_names", data.joint_names)?;
    d.set_item("contact_names", data.contact_names)?;
    d.set_item("warnings", data.warnings)?;
    data.knots.put(py, &d)?;
    Ok(d)
}

/// What Python gets of one simulation.
struct SimulationData {
    status: String,
    message: String,
    failure: Option<String>,
    report: String,
    files: Vec<String>,
    joint_names: Vec<String>,
    contact_names: Vec<String>,
    warnings: Vec<String>,
    knots: Table,
}

/// A robot loaded from URDF, for `vito model`'s dynamics (`vito::dynamics`). Vectors are
/// lists in joint order (base joints first); the mass matrix comes row by row.
#[pyclass(name = "Robot", module = "vito._vito", frozen)]
struct Robot {
    model: Model,
}

impl Robot {
    /// `values` as a vector of the robot's size, or a [`VitoError`] naming the argument.
    fn check<'a>(&self, name: &str, values: &'a [f64]) -> PyResult<&'a [f64]> {
        let n = self.model.dof();
        if values.len() != n {
            return Err(vito_error(format!(
                "{name}: has {} values but robot '{}' has {n} DoF ({})",
                values.len(),
                self.model.name(),
                self.model.joint_names().join(", ")
            )));
        }
        if let Some(i) = values.iter().position(|x| !x.is_finite()) {
            return Err(vito_error(format!(
                "{name}[{i}]: must be a finite number, got {}",
                values[i]
            )));
        }
        Ok(values)
    }
}

#[pymethods]
impl Robot {
    /// Loads `urdf` (`vito::model::load_urdf_with`) with the root link attached as `base`
    /// (`fixed`, `planar` or `floating`, as `vito model --base`), under `gravity` (m/s²,
    /// world frame) and, with `fix_inertia`, non-physical inertias projected as
    /// `vito model --fix-inertia` does.
    #[new]
    #[pyo3(signature = (urdf, base="fixed", gravity=(0.0, 0.0, -9.81), fix_inertia=false))]
    fn new(
        py: Python<'_>,
        urdf: PathBuf,
        base: &str,
        gravity: (f64, f64, f64),
        fix_inertia: bool,
    ) -> PyResult<Self> {
        let base: BaseKind = base
            .parse()
            .map_err(|e: String| vito_error(format!("base: {e}")))?;
        let gravity = Vec3::new(gravity.0, gravity.1, gravity.2);
        if !gravity.iter().all(|g| g.is_finite()) {
            return Err(vito_error("gravity: must be three finite numbers"));
        }
        let options = UrdfOptions { fix_inertia };
        let model = py
            .detach(|| load_urdf_with(&urdf, base, &options))
            .map_err(vito_error)?
            .with_gravity(gravity);
        Ok(Self { model })
    }

    /// The robot's name.
    #[getter]
    fn name(&self) -> String {
        self.model.name().to_string()
    }

    /// How the root link is attached: `fixed`, `planar` or `floating`.
    #[getter]
    fn base(&self) -> String {
        self.model.base().to_string()
    }

    /// Degrees of freedom (the length of `q`).
    #[getter]
    fn dof(&self) -> usize {
        self.model.dof()
    }

    /// The joints in `q` order, base joints first.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.model.joint_names()
    }

    /// The joints with a motor, in the order of a trajectory's `u`.
    #[getter]
    fn actuated_joint_names(&self) -> Vec<String> {
        self.model
            .actuated_joints()
            .into_iter()
            .map(|i| self.model.joint(i).name.clone())
            .collect()
    }

    /// What loading warned about (`vito model` lists the same).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.model.report().warnings.clone()
    }

    /// The mass matrix `M(q)` (`vito::dynamics::mass_matrix`, CRBA), row by row.
    fn mass_matrix(&self, q: Vec<f64>) -> PyResult<Vec<f64>> {
        let q = self.check("q", &q)?;
        let n = self.model.dof();
        let mut ws = Workspace::new(&self.model);
        let mut m = nalgebra::DMatrix::zeros(n, n);
        mass_matrix(&self.model, &mut ws, q, &mut m);
        Ok(m.row_iter()
            .flat_map(|r| r.iter().copied().collect::<Vec<_>>())
            .collect())
    }

    /// The bias forces `C(q, v) v + g(q)` (`vito::dynamics::bias_forces`).
    fn bias(&self, q: Vec<f64>, v: Vec<f64>) -> PyResult<Vec<f64>> {
        let (q, v) = (self.check("q", &q)?, self.check("v", &v)?);
        let mut ws = Workspace::new(&self.model);
        let mut out = vec![0.0; self.model.dof()];
        bias_forces(&self.model, &mut ws, q, v, &mut out);
        Ok(out)
    }

    /// The joint forces `τ = M(q) a + C(q, v) v + g(q)` (`vito::dynamics::inverse_dynamics`,
    /// RNEA).
    fn inverse_dynamics(&self, q: Vec<f64>, v: Vec<f64>, a: Vec<f64>) -> PyResult<Vec<f64>> {
        let (q, v, a) = (
            self.check("q", &q)?,
            self.check("v", &v)?,
            self.check("a", &a)?,
        );
        let mut ws = Workspace::new(&self.model);
        let mut out = vec![0.0; self.model.dof()];
        inverse_dynamics(&self.model, &mut ws, q, v, a, &mut out);
        Ok(out)
    }

    /// The accelerations `a = M(q)⁻¹ (τ − C(q, v) v − g(q))`
    /// (`vito::dynamics::forward_dynamics`, ABA).
    fn forward_dynamics(&self, q: Vec<f64>, v: Vec<f64>, tau: Vec<f64>) -> PyResult<Vec<f64>> {
        let (q, v, tau) = (
            self.check("q", &q)?,
            self.check("v", &v)?,
            self.check("tau", &tau)?,
        );
        let mut ws = Workspace::new(&self.model);
        let mut out = vec![0.0; self.model.dof()];
        forward_dynamics(&self.model, &mut ws, q, v, tau, &mut out);
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!(
            "Robot('{}', base='{}', dof={})",
            self.model.name(),
            self.model.base(),
            self.model.dof()
        )
    }
}

/// The command line's solver flags as overrides, parsed by its parsers.
fn solver_overrides(
    method: Option<&str>,
    transcription: Option<&str>,
    qp: Option<&str>,
) -> PyResult<ProblemOverrides> {
    Ok(ProblemOverrides {
        method: parse_arg::<Method>("method", method)?,
        transcription: parse_arg::<TranscriptionKind>("transcription", transcription)?,
        qp: parse_arg::<QpBackend>("qp", qp)?,
        output: None,
    })
}

/// `vito sweep`'s `--vary` values, `--samples`/`--seed` or `--grid`, parsed by its parsers.
fn family(
    vary: &[String],
    samples: usize,
    seed: u64,
    grid: bool,
) -> PyResult<(Vec<Variation>, Design)> {
    let variations = vary
        .iter()
        .map(|v| v.parse::<Variation>().map_err(vito_error))
        .collect::<PyResult<Vec<_>>>()?;
    let design = if grid {
        Design::Grid
    } else {
        Design::Samples {
            count: samples,
            seed,
        }
    };
    Ok((variations, design))
}

/// The family's problem: YAML `text` whose relative paths start from `base_dir`, named `source`.
fn source_of(text: String, base_dir: PathBuf, source: String) -> SweepSource {
    SweepSource {
        text,
        base_dir,
        shown: source,
    }
}

/// Solves the family of the problem `text` as `vito sweep` does (`vito::commands::sweep`:
/// every instance in parallel on `jobs` threads, 0 for one per core, into `output`), with the
/// interpreter released. Returns JSON: `keys`, `rows` (the `sweep.json` rows), `resumed` and
/// `files`.
#[pyfunction]
#[pyo3(signature = (text, base_dir, source, vary, output, samples=8, seed=0, grid=false, jobs=0, method=None, transcription=None, qp=None))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    text: String,
    base_dir: PathBuf,
    source: String,
    vary: Vec<String>,
    output: PathBuf,
    samples: usize,
    seed: u64,
    grid: bool,
    jobs: usize,
    method: Option<&str>,
    transcription: Option<&str>,
    qp: Option<&str>,
) -> PyResult<String> {
    let (variations, design) = family(&vary, samples, seed, grid)?;
    let options = SweepOptions {
        overrides: solver_overrides(method, transcription, qp)?,
        jobs,
        progress: false,
    };
    let source = source_of(text, base_dir, source);
    let done = py
        .detach(|| commands::sweep(&source, &variations, design, &output, &options))
        .map_err(vito_error)?;
    serde_json::to_string(&serde_json::json!({
        "keys": done.keys,
        "rows": done.rows,
        "resumed": done.resumed,
        "files": paths(&done.files),
    }))
    .map_err(vito_error)
}

/// The varied keys and the instances of the family of the problem `text`
/// (`vito::problem::sweep::instances`): `(values, YAML text)` each, for a caller that
/// distributes them (`sweep_instance` each, then `write_sweep_table`).
#[pyfunction]
#[pyo3(signature = (text, source, vary, samples=8, seed=0, grid=false))]
fn sweep_instances(
    text: &str,
    source: &str,
    vary: Vec<String>,
    samples: usize,
    seed: u64,
    grid: bool,
) -> PyResult<(Vec<String>, Vec<(Vec<f64>, String)>)> {
    let (variations, design) = family(&vary, samples, seed, grid)?;
    let family = instances(text, source, &variations, design).map_err(vito_error)?;
    Ok((
        variations.into_iter().map(|v| v.key).collect(),
        family.into_iter().map(|i| (i.values, i.text)).collect(),
    ))
}

/// Solves instance `i` (`values`, YAML `instance`) of the family of the problem `text` into its
/// directory under `output`, or takes its row from there
/// (`vito::commands::solve_sweep_instance`), with the interpreter released. Returns
/// `(row as JSON, resumed)`; the instance's own failure is an `Error` row, not an exception.
#[pyfunction]
#[pyo3(signature = (text, base_dir, source, i, values, instance, output, method=None, transcription=None, qp=None))]
#[allow(clippy::too_many_arguments)]
fn sweep_instance(
    py: Python<'_>,
    text: String,
    base_dir: PathBuf,
    source: String,
    i: usize,
    values: Vec<f64>,
    instance: String,
    output: PathBuf,
    method: Option<&str>,
    transcription: Option<&str>,
    qp: Option<&str>,
) -> PyResult<(String, bool)> {
    let overrides = solver_overrides(method, transcription, qp)?;
    let source = source_of(text, base_dir, source);
    let instance = Instance {
        values,
        text: instance,
    };
    let (row, resumed) =
        py.detach(|| commands::solve_sweep_instance(&source, i, &instance, &output, &overrides));
    Ok((serde_json::to_string(&row).map_err(vito_error)?, resumed))
}

/// Writes `sweep.csv`, `sweep.json` and the figures of the family of the problem `source` into
/// `output` from its `keys` and `rows` (JSON, as `sweep_instance` returns them;
/// `vito::commands::write_sweep_table`). Returns the files.
#[pyfunction]
fn write_sweep_table(
    source: &str,
    output: PathBuf,
    keys: Vec<String>,
    rows: Vec<String>,
) -> PyResult<Vec<String>> {
    let rows = rows
        .iter()
        .map(|r| serde_json::from_str::<SweepRow>(r).map_err(vito_error))
        .collect::<PyResult<Vec<_>>>()?;
    let files = commands::write_sweep_table(source, &output, &keys, &rows).map_err(vito_error)?;
    Ok(paths(&files))
}

/// The native half of `vito` (see the package `vito` for the documented API).
#[pymodule]
mod _vito {
    #[pymodule_export]
    use super::{
        Robot, VitoError, compare, read_text, simulate, solve, sweep, sweep_instance,
        sweep_instances, write_sweep_table, yaml_to_json,
    };
}
