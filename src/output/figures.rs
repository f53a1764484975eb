//! The standard figures of a solve and of a simulation.

use super::{
    ContactSchedule, FilmstripOptions, Formats, LinePlot, OutputError, Series, SoleFigure,
    SolePanel, write_contact_schedule, write_filmstrip, write_line_plot, write_panels,
    write_sole_figure,
};
use crate::contact::Terrain;
use crate::model::{BaseKind, Model};
use crate::problem::TrajectoryProblem;
use crate::spatial::Vec3;
use crate::transcription::{Outcome, StanceTrajectory};
use crate::vi::simulate::Trajectory;
use std::path::{Path, PathBuf};

/// One series per column of `values` (rows over `times`).
fn columns(names: &[String], times: &[f64], values: &[Vec<f64>]) -> Vec<Series> {
    names
        .iter()
        .enumerate()
        .map(|(c, name)| Series {
            label: name.clone(),
            points: times
                .iter()
                .zip(values)
                .map(|(t, row)| (*t, row[c]))
                .collect(),
        })
        .collect()
}

/// The joint-position and joint-velocity panels over time.
fn state_panels<'a>(qs: &'a [Series], vs: &'a [Series]) -> [LinePlot<'a>; 2] {
    [
        LinePlot {
            title: "Positions q",
            x_label: "t [s]",
            y_label: "q [rad or m]",
            series: qs,
            log_y: false,
        },
        LinePlot {
            title: "Velocities v = dq/dt",
            x_label: "t [s]",
            y_label: "v [rad/s or m/s]",
            series: vs,
            log_y: false,
        },
    ]
}

/// Ground line for robots that stand on it.
fn ground(model: &Model) -> Option<f64> {
    (model.base() != BaseKind::Fixed && !model.contact_points().is_empty()).then_some(0.0)
}

/// Writes `trajectory` (positions, velocities and torques over time, from the interpolant),
/// `convergence` (constraint violation and dual infeasibility per SQP iteration) and
/// `filmstrip` (with the terrain, the contact forces and the stance forces at their centres
/// of pressure), with contact `contact_forces` and `contact_schedule`, with stances
/// `stance_wrench` and `centre_of_pressure`, each as SVG and with `formats.raster` PNG; returns
/// the files written.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_solve_figures(
    dir: &Path,
    prob: &TrajectoryProblem,
    outcome: &Outcome,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    let sol = &outcome.solution;
    let times = sol.fine_grid(prob.stages);
    let samples: Vec<_> = times.iter().map(|&t| sol.sample(t)).collect();
    let q: Vec<Vec<f64>> = samples.iter().map(|s| s.0.clone()).collect();
    let v: Vec<Vec<f64>> = samples.iter().map(|s| s.1.clone()).collect();
    let u: Vec<Vec<f64>> = samples.iter().map(|s| s.2.clone()).collect();
    let (qs, vs, us) = (
        columns(&sol.joint_names, &times, &q),
        columns(&sol.joint_names, &times, &v),
        columns(&sol.actuated_names, &times, &u),
    );
    let title = format!(
        "{} — {} ({:?}, objective {:.4e})",
        prob.name, prob.transcription, outcome.result.status, outcome.result.objective
    );
    let mut panels = state_panels(&qs, &vs).to_vec();
    if !us.is_empty() {
        panels.push(LinePlot {
            title: "Torques u",
            x_label: "t [s]",
            y_label: "u [N·m or N]",
            series: &us,
            log_y: false,
        });
    }
    let mut files = write_panels(&dir.join("trajectory"), &title, &panels, formats)?;
    let history = &outcome.result.history;
    let conv = [
        Series {
            label: "constraint violation".into(),
            points: history
                .iter()
                .map(|h| (h.iteration as f64, h.primal_infeasibility))
                .collect(),
        },
        Series {
            label: "dual infeasibility".into(),
            points: history
                .iter()
                .map(|h| (h.iteration as f64, h.dual_infeasibility))
                .collect(),
        },
    ];
    files.extend(write_line_plot(
        &dir.join("convergence"),
        &LinePlot {
            title: &format!(
                "{} — SQP convergence ({:?})",
                prob.name, outcome.result.status
            ),
            x_label: "iteration",
            y_label: "residual",
            series: &conv,
            log_y: true,
        },
        formats,
    )?);
    let film: Vec<(f64, Vec<f64>)> = times.iter().copied().zip(q).collect();
    let contact = sol.contact.as_ref();
    let forces: Vec<(f64, Vec<(Vec3, Vec3)>)> = sol
        .times
        .iter()
        .enumerate()
        .map(|(p, &t)| {
            let mut f: Vec<(Vec3, Vec3)> = contact.map_or_else(Vec::new, |c| {
                c.positions[p]
                    .iter()
                    .copied()
                    .zip(c.forces[p].iter().copied())
                    .collect()
            });
            if let Some(st) = &sol.stance {
                f.extend(st.feet.iter().filter_map(|foot| foot.world_force(p)));
            }
            (t, f)
        })
        .collect();
    files.extend(write_filmstrip(
        &dir.join("filmstrip"),
        &prob.model,
        &film,
        &FilmstripOptions {
            frames: 8,
            title: format!("{} — {}", prob.name, prob.transcription),
            ground_height: ground(&prob.model),
            terrain: contact.map(|c| c.terrain.clone()),
            forces,
        },
        formats,
    )?);
    if let Some(st) = &sol.stance {
        files.extend(write_stance_figures(
            dir,
            &format!("{} — {}", prob.name, prob.transcription),
            &sol.times,
            st,
            formats,
        )?);
    }
    if let Some(c) = contact {
        let points = sol.times.len();
        files.extend(write_contact_figures(
            dir,
            &format!("{} — {}", prob.name, prob.transcription),
            &ContactSeries {
                names: &c.names,
                times: &sol.times,
                normal: &(0..points)
                    .map(|p| (0..c.names.len()).map(|l| c.normal_force(p, l)).collect())
                    .collect::<Vec<_>>(),
                forces: &c.forces,
                gaps: &(0..points)
                    .map(|p| (0..c.names.len()).map(|l| c.gap(p, l)).collect())
                    .collect::<Vec<_>>(),
            },
            formats,
        )?);
    }
    Ok(files)
}

/// Writes `stance_wrench` (each stance foot's force and torque at its sole centre over time,
/// in its frame's axes) and `centre_of_pressure` (the centre of pressure and the projected
/// centre of mass inside each sole); returns the files written.
fn write_stance_figures(
    dir: &Path,
    title: &str,
    times: &[f64],
    st: &StanceTrajectory,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    let component = |c: usize, label: &str| -> Vec<Series> {
        st.feet
            .iter()
            .map(|f| Series {
                label: format!("{label} {}", f.name),
                points: times
                    .iter()
                    .zip(&f.wrench)
                    .map(|(t, w)| (*t, w[c]))
                    .collect(),
            })
            .collect()
    };
    let forces: Vec<Series> = ["f_x", "f_y", "f_z"]
        .iter()
        .enumerate()
        .flat_map(|(c, l)| component(c, l))
        .collect();
    let torques: Vec<Series> = ["τ_x", "τ_y", "τ_z"]
        .iter()
        .enumerate()
        .flat_map(|(c, l)| component(3 + c, l))
        .collect();
    let mut files = write_panels(
        &dir.join("stance_wrench"),
        &format!("{title} — stance wrench at the sole centre (sole axes)"),
        &[
            LinePlot {
                title: "Force",
                x_label: "t [s]",
                y_label: "f [N]",
                series: &forces,
                log_y: false,
            },
            LinePlot {
                title: "Torque",
                x_label: "t [s]",
                y_label: "τ [N·m]",
                series: &torques,
                log_y: false,
            },
        ],
        formats,
    )?;
    files.extend(write_sole_figure(
        &dir.join("centre_of_pressure"),
        &SoleFigure {
            title: format!("{title} — centre of pressure in the sole"),
            panels: st
                .feet
                .iter()
                .map(|f| SolePanel {
                    name: f.name.clone(),
                    sole: f.sole,
                    cop: f
                        .cop
                        .iter()
                        .map(|c| c.unwrap_or((f64::NAN, f64::NAN)))
                        .collect(),
                    com: f.com.iter().map(|c| (c.x, c.y)).collect(),
                })
                .collect(),
        },
        formats,
    )?);
    Ok(files)
}

/// Contact values over time: `[sample][contact]` normal force (N), world force (N), gap (m).
struct ContactSeries<'a> {
    names: &'a [String],
    times: &'a [f64],
    normal: &'a [Vec<f64>],
    forces: &'a [Vec<Vec3>],
    gaps: &'a [Vec<f64>],
}

/// A contact point counts as touching when it is within this distance of the terrain (m) and
/// pushes with more than this fraction of the largest normal force of the motion.
const TOUCH_DISTANCE: f64 = 1e-3;
const TOUCH_FORCE: f64 = 1e-3;

/// Writes `contact_forces` (normal and friction force of each contact point over time) and
/// `contact_schedule` (which point touches when); returns the files written.
fn write_contact_figures(
    dir: &Path,
    title: &str,
    c: &ContactSeries,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    // One series per contact point of `value(sample, point)`.
    let per_point = |value: &dyn Fn(usize, usize) -> f64| -> Vec<Series> {
        c.names
            .iter()
            .enumerate()
            .map(|(l, name)| Series {
                label: name.clone(),
                points: c
                    .times
                    .iter()
                    .enumerate()
                    .map(|(k, t)| (*t, value(k, l)))
                    .collect(),
            })
            .collect()
    };
    let normal = per_point(&|k, l| c.normal[k][l]);
    let friction = per_point(&|k, l| {
        let fn_ = c.normal[k][l];
        (c.forces[k][l].norm_squared() - fn_ * fn_).max(0.0).sqrt()
    });
    let mut files = write_panels(
        &dir.join("contact_forces"),
        &format!("{title} — contact forces"),
        &[
            LinePlot {
                title: "Normal forces",
                x_label: "t [s]",
                y_label: "f_n [N]",
                series: &normal,
                log_y: false,
            },
            LinePlot {
                title: "Friction forces (magnitude)",
                x_label: "t [s]",
                y_label: "|f_t| [N]",
                series: &friction,
                log_y: false,
            },
        ],
        formats,
    )?;
    let largest = c.normal.iter().flatten().fold(0.0f64, |a, &f| a.max(f));
    files.extend(write_contact_schedule(
        &dir.join("contact_schedule"),
        &ContactSchedule {
            title: format!("{title} — contact schedule"),
            names: c.names.to_vec(),
            times: c.times.to_vec(),
            touching: c
                .gaps
                .iter()
                .zip(c.normal)
                .map(|(g, f)| {
                    g.iter()
                        .zip(f)
                        .map(|(&g, &f)| g <= TOUCH_DISTANCE && f > TOUCH_FORCE * largest)
                        .collect()
                })
                .collect(),
        },
        formats,
    )?);
    Ok(files)
}

/// Writes `joints` (positions and velocities over time), `energy` (change of the total energy)
/// and `filmstrip` of a simulation (with the terrain and the contact forces), and with contact
/// `contact_forces` and `contact_schedule`, each as SVG and with `formats.raster` PNG; returns
/// the files written.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_simulation_figures(
    dir: &Path,
    name: &str,
    model: &Model,
    traj: &Trajectory,
    terrain: Option<&Terrain>,
    formats: Formats,
) -> Result<Vec<PathBuf>, OutputError> {
    let qs = columns(&traj.joint_names, &traj.time, &traj.q);
    let vs = columns(&traj.joint_names, &traj.time, &traj.v);
    let mut files = write_panels(
        &dir.join("joints"),
        &format!("{name} — simulated joints"),
        &state_panels(&qs, &vs),
        formats,
    )?;
    let e0 = traj.energy.first().copied().unwrap_or(0.0);
    let energy = [Series {
        label: "E(t) − E(0)".into(),
        points: traj
            .time
            .iter()
            .zip(&traj.energy)
            .map(|(t, e)| (*t, e - e0))
            .collect(),
    }];
    files.extend(write_line_plot(
        &dir.join("energy"),
        &LinePlot {
            title: &format!("{name} — total energy change (E(0) = {e0:.6} J)"),
            x_label: "t [s]",
            y_label: "ΔE [J]",
            series: &energy,
            log_y: false,
        },
        formats,
    )?);
    let film: Vec<(f64, Vec<f64>)> = traj
        .time
        .iter()
        .copied()
        .zip(traj.q.iter().cloned())
        .collect();
    let contact = traj.contact.as_ref();
    let forces = contact.map_or_else(Vec::new, |c| {
        let mut ws = crate::dynamics::Workspace::new(model);
        traj.time
            .iter()
            .zip(&traj.q)
            .zip(&c.forces)
            .map(|((&t, q), f)| {
                crate::dynamics::forward_kinematics(model, &mut ws, q);
                let points = c.names.iter().zip(f).filter_map(|(n, &f)| {
                    let p = model.contact_points().iter().find(|p| &p.name == n)?;
                    Some((ws.body_pose(p.body).transform_point(&p.offset), f))
                });
                (t, points.collect())
            })
            .collect()
    });
    files.extend(write_filmstrip(
        &dir.join("filmstrip"),
        model,
        &film,
        &FilmstripOptions {
            frames: 8,
            title: format!("{name} — simulation"),
            ground_height: ground(model),
            terrain: terrain.cloned(),
            forces,
        },
        formats,
    )?);
    if let Some(c) = contact {
        files.extend(write_contact_figures(
            dir,
            name,
            &ContactSeries {
                names: &c.names,
                times: &traj.time,
                normal: &c.normal,
                forces: &c.forces,
                gaps: &c.gaps,
            },
            formats,
        )?);
    }
    Ok(files)
}
