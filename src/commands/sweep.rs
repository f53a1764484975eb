//! `vito sweep`'s work: every instance of a family of one problem ([`crate::problem::sweep`])
//! solved in parallel, each into a directory of its own, and one table of them all.
//!
//! Each instance's directory is named after a hash of the instance (its YAML, the robot's URDF
//! and the solver choices of the command line) and holds `problem.yaml`, `vito solve`'s result
//! files and `row.json`, its line of the table, written last: a sweep run again over the same
//! directory takes the rows of finished instances from there and solves only the others. A
//! failed solve is a row with its status; an instance that cannot be loaded or solved at all
//! is a row with status `Error` and the message. Neither stops the sweep.

use super::{CommandError, io_error, solve};
use crate::output::{Formats, OutputError, SweepPoint, write_atomic, write_sweep_figure};
use crate::problem::sweep::{Design, Instance, Variation, instances};
use crate::problem::{
    ProblemOverrides, anchor_paths, base_dir_of, fnv1a, load_problem_str, read_text,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The status of an instance that could not be loaded or solved at all.
pub const ERROR_STATUS: &str = "Error";

/// One instance's line of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// The instance's directory name (a hash of the instance).
    pub instance: String,
    /// The value of each variation, in the order given.
    pub values: Vec<f64>,
    /// The solver's status (`Converged`, `MaxIterations`, …) or `Error`.
    pub status: String,
    /// Iterations of the solver.
    pub iterations: usize,
    /// Wall-clock time of the solve, continuation steps included (s).
    pub solve_s: f64,
    /// Objective at the final iterate (none for an `Error` row).
    pub objective: Option<f64>,
    /// Largest constraint violation at the final iterate (none for an `Error` row).
    pub constraint_violation: Option<f64>,
    /// Positive work of the ground (J), for problems with terrain.
    pub ground_positive_work: Option<f64>,
    /// That work over the actuators' positive work.
    pub ground_share: Option<f64>,
    /// Deepest penetration of a contact point at the trajectory's points (m).
    pub deepest_penetration: Option<f64>,
    /// Deepest penetration of a contact point along the interpolant, sampled on the grid of
    /// `trajectory.csv` (m; none in rows written before it was measured).
    pub deepest_penetration_between_points: Option<f64>,
    /// Why an `Error` row has no solve.
    pub error: Option<String>,
}

/// A finished sweep.
pub struct Sweep {
    /// The varied paths (the columns of the values).
    pub keys: Vec<String>,
    /// One row per instance, in the family's order.
    pub rows: Vec<SweepRow>,
    /// How many rows came from a previous run's directories.
    pub resumed: usize,
    /// The table and figure files written.
    pub files: Vec<PathBuf>,
}

/// The problem a family varies: its YAML text, the directory its relative paths start from and
/// the name messages give it.
#[derive(Clone, Debug)]
pub struct SweepSource {
    /// The problem's YAML.
    pub text: String,
    /// Where its relative paths (`robot`, `initial_guess.from`) start.
    pub base_dir: PathBuf,
    /// The file (or other name) messages name.
    pub shown: String,
}

impl SweepSource {
    /// The problem file `file`.
    ///
    /// # Errors
    /// When it cannot be read.
    pub fn read(file: &Path) -> Result<Self, CommandError> {
        Ok(Self {
            text: read_text(file)?,
            base_dir: base_dir_of(file).to_path_buf(),
            shown: file.display().to_string(),
        })
    }
}

/// How a sweep runs.
#[derive(Clone, Debug, Default)]
pub struct SweepOptions {
    /// The solver choices of the command line, for every instance (its `output` is not used).
    pub overrides: ProblemOverrides,
    /// Instances solved at once (0: one per core).
    pub jobs: usize,
    /// Show a progress bar on stderr.
    pub progress: bool,
}

/// Solves the family of the problem `source` under `variations` chosen by `design`, writing each
/// instance into `output/<hash>/` and the table into `output/sweep.csv` and `sweep.json`, with
/// a figure `sweep-<key>.svg` per variation (solve time over its value, by status).
///
/// # Errors
/// A [`CommandError`] when the file cannot be read, a variation's path is not in it, or the
/// table cannot be written. Instances that fail are rows, not errors.
pub fn sweep(
    source: &SweepSource,
    variations: &[Variation],
    design: Design,
    output: &Path,
    options: &SweepOptions,
) -> Result<Sweep, CommandError> {
    let family = instances(&source.text, &source.shown, variations, design)?;
    let jobs = match options.jobs {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        j => j,
    };
    // `jobs` workers, each solving one instance at a time on threads of its own (one where
    // instances outnumber the jobs): a solve's stage evaluations split over a pool the other
    // instances also use cost more in stealing than they gain (8 walks on 2 cores: 104 s
    // shared, 86 s on one thread each). Workers are plain threads, not a rayon pool's: a rayon
    // worker waiting for another pool runs more of its own pool's jobs meanwhile, which started
    // up to one solve per instance at once (12 jumps on 2 cores ran into their time limit).
    let inner = (jobs / family.len().clamp(1, jobs)).max(1);
    let next = AtomicUsize::new(0);
    let bar = progress_bar(family.len(), options.progress);
    let mut done: Vec<(usize, (SweepRow, bool))> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.min(family.len()))
            .map(|_| {
                scope.spawn(|| {
                    let own = rayon::ThreadPoolBuilder::new()
                        .num_threads(inner)
                        .build()
                        .ok();
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(instance) = family.get(i) else {
                            break;
                        };
                        let solve = || {
                            solve_sweep_instance(source, i, instance, output, &options.overrides)
                        };
                        // A panic is a bug in vito: it costs its own instance's row, not the
                        // worker's other instances.
                        let run = catch_unwind(AssertUnwindSafe(|| match &own {
                            Some(pool) => pool.install(solve),
                            None => solve(),
                        }))
                        .unwrap_or_else(|_| {
                            let message = "its solve panicked (a bug in vito: please report it)";
                            let key = fnv1a(&[instance.text.as_bytes()]);
                            (error_row(key, instance, message.into()), false)
                        });
                        bar.inc(1);
                        done.push((i, run));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    let runs: Vec<(SweepRow, bool)> = done.into_iter().map(|(_, run)| run).collect();
    bar.finish_and_clear();
    let resumed = runs.iter().filter(|(_, resumed)| *resumed).count();
    let rows: Vec<SweepRow> = runs.into_iter().map(|(row, _)| row).collect();
    let keys: Vec<String> = variations.iter().map(|v| v.key.clone()).collect();
    let files = write_sweep_table(&source.shown, output, &keys, &rows)?;
    Ok(Sweep {
        keys,
        rows,
        resumed,
        files,
    })
}

/// The row of an instance that could not be loaded or solved at all.
fn error_row(key: String, instance: &Instance, message: String) -> SweepRow {
    SweepRow {
        instance: key,
        values: instance.values.clone(),
        status: ERROR_STATUS.to_string(),
        iterations: 0,
        solve_s: 0.0,
        objective: None,
        constraint_violation: None,
        ground_positive_work: None,
        ground_share: None,
        deepest_penetration: None,
        deepest_penetration_between_points: None,
        error: Some(message),
    }
}

/// Loads and solves instance `i` of the family of `source` ([`instances`]) into its directory
/// under `output`, or takes its row from a previous run there; `(row, resumed)`: for callers
/// that distribute the instances themselves (then [`write_sweep_table`]). Never fails: an
/// instance that cannot be loaded or solved is a row with status [`ERROR_STATUS`].
pub fn solve_sweep_instance(
    source: &SweepSource,
    i: usize,
    instance: &Instance,
    output: &Path,
    overrides: &ProblemOverrides,
) -> (SweepRow, bool) {
    let error = |key: String, message: String| error_row(key, instance, message);
    let label = format!("{} (instance {i})", source.shown);
    let mut prob = match load_problem_str(&instance.text, &source.base_dir, &label, overrides) {
        Ok(p) => p,
        Err(e) => {
            let key = fnv1a(&[instance.text.as_bytes()]);
            return (error(key, e.to_string()), false);
        }
    };
    let choices = format!(
        "{:?} {:?} {:?}",
        overrides.method, overrides.qp, overrides.transcription
    );
    let key = fnv1a(&[prob.hash.as_bytes(), choices.as_bytes()]);
    let dir = output.join(&key);
    let row_file = dir.join("row.json");
    if let Some(row) = std::fs::read_to_string(&row_file)
        .ok()
        .and_then(|t| serde_json::from_str::<SweepRow>(&t).ok())
    {
        return (row, true);
    }
    // The sweep's bar is the progress shown, not one per solve.
    prob.solver.progress_bar = false;
    let problem_file = dir.join("problem.yaml");
    // Its paths made absolute, so that it can be solved (and checked) where it is.
    let anchored = anchor_paths(&instance.text, &source.base_dir);
    if let Err(e) = write_atomic(&problem_file, anchored.as_bytes()) {
        return (error(key, e.to_string()), false);
    }
    let row = match solve(&prob, Some(&dir), Formats::default(), false) {
        Ok(solved) => {
            let r = &solved.outcome.result;
            let energy = &solved.outcome.energy;
            let contact = solved.outcome.contact.as_ref();
            SweepRow {
                instance: key,
                values: instance.values.clone(),
                status: format!("{:?}", r.status),
                iterations: r.iterations,
                solve_s: solved.outcome.total_time_s(),
                objective: Some(r.objective),
                constraint_violation: Some(r.residuals.primal_infeasibility),
                ground_positive_work: contact.map(|_| energy.ground_positive_work),
                ground_share: contact.and_then(|_| energy.ground_share()),
                deepest_penetration: contact.map(|c| c.deepest_penetration),
                deepest_penetration_between_points: contact
                    .map(|c| c.deepest_penetration_between_points),
                error: None,
            }
        }
        Err(e) => error(key, e.to_string()),
    };
    // The row is written last: its presence marks the instance finished.
    if let Ok(json) = serde_json::to_string_pretty(&row) {
        let _ = write_atomic(&row_file, json.as_bytes());
    }
    (row, false)
}

fn progress_bar(len: usize, shown: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len as u64),
        if shown {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} instances, {elapsed} (eta {eta})")
    {
        bar.set_style(style);
    }
    bar
}

/// Writes the table of a family of the problem `shown` into `output`: `sweep.csv` (one column
/// per varied path), `sweep.json` (the keys and the rows) and a figure `sweep-<key>.svg` per
/// key; returns the files.
///
/// # Errors
/// An [`OutputError`] naming the file that could not be written.
pub fn write_sweep_table(
    shown: &str,
    output: &Path,
    keys: &[String],
    rows: &[SweepRow],
) -> Result<Vec<PathBuf>, OutputError> {
    let mut files = write_table(output, keys, rows)?;
    let points: Vec<SweepPoint> = rows
        .iter()
        .map(|r| SweepPoint {
            values: r.values.clone(),
            status: r.status.clone(),
            solve_s: r.solve_s,
        })
        .collect();
    files.extend(write_sweep_figure(
        &output.join("sweep"),
        &format!("{shown} ({} instances)", rows.len()),
        keys,
        &points,
        Formats::default(),
    )?);
    Ok(files)
}

/// `sweep.csv` and `sweep.json`.
fn write_table(
    output: &Path,
    keys: &[String],
    rows: &[SweepRow],
) -> Result<Vec<PathBuf>, OutputError> {
    let csv_path = output.join("sweep.csv");
    let json_path = output.join("sweep.json");
    let csv_err = |message: String| OutputError::Csv {
        path: csv_path.clone(),
        message,
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = std::iter::once("instance")
        .chain(keys.iter().map(String::as_str))
        .chain([
            "status",
            "iterations",
            "solve_s",
            "objective",
            "constraint_violation",
            "ground_positive_work_J",
            "ground_share",
            "deepest_penetration_m",
            "deepest_penetration_between_points_m",
            "error",
        ]);
    w.write_record(header).map_err(|e| csv_err(e.to_string()))?;
    let optional = |x: Option<f64>| x.map_or_else(String::new, |x| x.to_string());
    for r in rows {
        let record = std::iter::once(r.instance.clone())
            .chain(r.values.iter().map(f64::to_string))
            .chain([
                r.status.clone(),
                r.iterations.to_string(),
                r.solve_s.to_string(),
                optional(r.objective),
                optional(r.constraint_violation),
                optional(r.ground_positive_work),
                optional(r.ground_share),
                optional(r.deepest_penetration),
                optional(r.deepest_penetration_between_points),
                r.error.clone().unwrap_or_default(),
            ]);
        w.write_record(record).map_err(|e| csv_err(e.to_string()))?;
    }
    let bytes = w.into_inner().map_err(|e| csv_err(e.to_string()))?;
    write_atomic(&csv_path, &bytes).map_err(|e| io_error(csv_path.clone(), e))?;
    let json = serde_json::to_string_pretty(&serde_json::json!({ "keys": keys, "rows": rows }))
        .map_err(|e| OutputError::Io {
            path: json_path.clone(),
            source: std::io::Error::other(e),
        })?;
    write_atomic(&json_path, json.as_bytes()).map_err(|e| io_error(json_path.clone(), e))?;
    Ok(vec![csv_path, json_path])
}
