//! `vito model ROBOT.urdf [--base ..] [--lock J[=V],..] [--fix-inertia] [--state STATE.json]
//! [--json]`: a robot summary (with what loading merged, locked, coupled and warned about), or
//! its dynamics at a state as JSON.

use super::{print_model_warnings, print_stdout};
use anyhow::{Context, bail};
use clap::Args;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use vito::dynamics::{
    Workspace, bias_forces, center_of_mass, forward_dynamics, inverse_dynamics, kinetic_energy,
    mass_matrix, potential_energy,
};
use vito::model::{
    BaseKind, FOOT_TOLERANCE, JointKind, LikelyFoot, LockReason, Model, UrdfOptions,
    contact_points_yaml, likely_feet, load_urdf_with,
};
use vito::spatial::Vec3;

#[derive(Args, Debug)]
pub struct ModelArgs {
    /// The robot's URDF file.
    urdf: PathBuf,
    /// How the root link is attached to the world.
    #[arg(long, default_value = "fixed", value_parser = parse_base)]
    base: BaseKind,
    /// A JSON state {"q":[..],"v":[..],"a":[..],"tau":[..]} in the printed joint order
    /// (base joints first); v, a and tau default to zero.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Gravity vector in m/s² (world frame).
    #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], allow_negative_numbers = true,
          default_values_t = [0.0, 0.0, -9.81])]
    gravity: Vec<f64>,
    /// Print the summary as JSON (a state always gives JSON).
    #[arg(long)]
    json: bool,
    /// Weld joints: `JOINT[=VALUE],…` (default value 0, or the middle of the joint's range).
    #[arg(long, value_delimiter = ',', value_parser = parse_lock)]
    lock: Vec<(String, Option<f64>)>,
    /// Replace inertias that miss physical consistency by the nearest physical ones (and say by
    /// how much each moved) instead of using them as given.
    #[arg(long)]
    fix_inertia: bool,
}

/// `JOINT` or `JOINT=VALUE`.
pub fn parse_lock(s: &str) -> Result<(String, Option<f64>), String> {
    match s.split_once('=') {
        None if !s.trim().is_empty() => Ok((s.trim().to_string(), None)),
        Some((j, v)) if !j.trim().is_empty() => match v.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => Ok((j.trim().to_string(), Some(x))),
            _ => Err(format!("'{v}' in '{s}' is not a finite number")),
        },
        _ => Err(format!("'{s}' is not JOINT or JOINT=VALUE")),
    }
}

fn parse_base(s: &str) -> Result<BaseKind, String> {
    s.parse()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct State {
    q: Vec<f64>,
    #[serde(default)]
    v: Option<Vec<f64>>,
    #[serde(default)]
    a: Option<Vec<f64>>,
    #[serde(default)]
    tau: Option<Vec<f64>>,
}

#[derive(Serialize)]
struct DynamicsReport {
    joint_names: Vec<String>,
    mass_matrix: Vec<Vec<f64>>,
    bias_forces: Vec<f64>,
    inverse_dynamics: Vec<f64>,
    forward_dynamics: Vec<f64>,
    kinetic_energy: f64,
    potential_energy: f64,
    com: [f64; 3],
}

pub fn run(args: ModelArgs) -> anyhow::Result<ExitCode> {
    let gravity = Vec3::new(args.gravity[0], args.gravity[1], args.gravity[2]);
    if !gravity.iter().all(|g| g.is_finite()) {
        bail!("--gravity must be three finite numbers");
    }
    let options = UrdfOptions {
        fix_inertia: args.fix_inertia,
    };
    let mut model = load_urdf_with(&args.urdf, args.base, &options)?.with_gravity(gravity);
    if !args.lock.is_empty() {
        model = model
            .locked(&args.lock)
            .map_err(|m| anyhow::anyhow!("{}: --lock: {m}", args.urdf.display()))?;
    }
    print_model_warnings(&model);
    match &args.state {
        Some(path) => {
            let report = evaluate(&model, path)?;
            print_stdout(&(serde_json::to_string_pretty(&report)? + "\n"))?;
        }
        None => {
            // The file just loaded; were it gone since, the summary goes without the hint.
            let text = std::fs::read_to_string(&args.urdf).unwrap_or_default();
            let feet = likely_feet(&model, &text);
            if args.json {
                let json = summary_json(&model, &feet);
                print_stdout(&(serde_json::to_string_pretty(&json)? + "\n"))?;
            } else {
                print_stdout(&summary_text(&model, &feet))?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn evaluate(model: &Model, path: &PathBuf) -> anyhow::Result<DynamicsReport> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("{shown}: cannot read"))?;
    let state: State =
        serde_json::from_str(&text).with_context(|| format!("{shown}: not a valid state"))?;
    let n = model.dof();
    let take = |name: &str, v: Option<Vec<f64>>| -> anyhow::Result<Vec<f64>> {
        let v = v.unwrap_or_else(|| vec![0.0; n]);
        if v.len() != n {
            bail!(
                "{shown}: '{name}' has {} values but robot '{}' has {n} DoF ({})",
                v.len(),
                model.name(),
                model.joint_names().join(", ")
            );
        }
        Ok(v)
    };
    let q = take("q", Some(state.q))?;
    let v = take("v", state.v)?;
    let a = take("a", state.a)?;
    let tau = take("tau", state.tau)?;
    let mut ws = Workspace::new(model);
    let mut mm = DMatrix::zeros(n, n);
    mass_matrix(model, &mut ws, &q, &mut mm);
    let mut bias = vec![0.0; n];
    bias_forces(model, &mut ws, &q, &v, &mut bias);
    let mut id = vec![0.0; n];
    inverse_dynamics(model, &mut ws, &q, &v, &a, &mut id);
    let mut fd = vec![0.0; n];
    forward_dynamics(model, &mut ws, &q, &v, &tau, &mut fd);
    let com = center_of_mass(model, &mut ws, &q);
    Ok(DynamicsReport {
        joint_names: model.joint_names(),
        mass_matrix: mm.row_iter().map(|r| r.iter().copied().collect()).collect(),
        bias_forces: bias,
        inverse_dynamics: id,
        forward_dynamics: fd,
        kinetic_energy: kinetic_energy(model, &mut ws, &q, &v),
        potential_energy: potential_energy(model, &mut ws, &q),
        com: [com.x, com.y, com.z],
    })
}

fn kind_name(k: JointKind) -> &'static str {
    match k {
        JointKind::Revolute => "revolute",
        JointKind::Prismatic => "prismatic",
    }
}

fn summary_text(model: &Model, feet: &[LikelyFoot]) -> String {
    let mut s = String::new();
    let g = model.gravity();
    let _ = writeln!(
        s,
        "robot '{}': base {}, {} DoF, total mass {:.4} kg, gravity ({}, {}, {}) m/s²",
        model.name(),
        model.base(),
        model.dof(),
        model.total_mass(),
        g.x,
        g.y,
        g.z
    );
    let _ = writeln!(s, "\njoints (q order, base first):");
    let _ = writeln!(
        s,
        "  {:>3}  {:<18} {:<9} {:<24} {:>9} {:>9} {:>8} {:>8}  {:<7} body",
        "#", "name", "type", "axis (body frame)", "lower", "upper", "vel", "effort", "drive"
    );
    for (i, j) in model.joints().iter().enumerate() {
        let drive = if j.is_base {
            "base"
        } else if j.actuated {
            "motor"
        } else {
            "passive"
        };
        let _ = writeln!(
            s,
            "  {:>3}  {:<18} {:<9} ({:>6.3},{:>6.3},{:>6.3})   {:>9.4} {:>9.4} {:>8.3} {:>8.2}  {:<7} {}",
            i,
            j.name,
            kind_name(j.kind),
            j.axis.x,
            j.axis.y,
            j.axis.z,
            j.limits.lower,
            j.limits.upper,
            j.limits.velocity,
            j.limits.effort,
            drive,
            j.body
        );
    }
    let _ = writeln!(s, "\nbodies:");
    let _ = writeln!(
        s,
        "  {:>3}  {:<22} {:>10}  {:<28} extras",
        "#", "name", "mass (kg)", "centre of mass (body frame)"
    );
    for (i, j) in model.joints().iter().enumerate() {
        let mut extras = Vec::new();
        if let Some(sp) = j.spring {
            extras.push(format!("spring k={} rest={}", sp.stiffness, sp.rest));
        }
        if j.damping > 0.0 {
            extras.push(format!("damping {}", j.damping));
        }
        let _ = writeln!(
            s,
            "  {:>3}  {:<22} {:>10.4}  ({:>7.4},{:>7.4},{:>7.4})     {}",
            i,
            j.body,
            j.mass,
            j.com.x,
            j.com.y,
            j.com.z,
            extras.join(", ")
        );
    }
    let _ = writeln!(s, "\ncontact points: {}", model.contact_points().len());
    for c in model.contact_points() {
        let _ = writeln!(
            s,
            "  {:<24} on {:<20} at ({:>7.4},{:>7.4},{:>7.4}) radius {}",
            c.name,
            model.joint(c.body).body,
            c.offset.x,
            c.offset.y,
            c.offset.z,
            c.radius
        );
    }
    if !feet.is_empty() {
        let links: Vec<&str> = feet.iter().map(|f| f.link.as_str()).collect();
        let _ = write!(
            s,
            "  likely feet (leaf links reaching within {FOOT_TOLERANCE} m of the robot's lowest \
             point with every joint at 0 or mid-range): {}\n  to make contact points of them, \
             add this to the problem or simulation file (at the bottom of each link's shapes; \
             check the offsets):\n\n{}",
            links.join(", "),
            contact_points_yaml(feet)
        );
    }
    let names: Vec<&str> = model.frames().iter().map(|f| f.name.as_str()).collect();
    let _ = writeln!(s, "\nframes: {}", names.join(", "));
    let report = model.report();
    let _ = writeln!(s, "\ncoupled (mimic) joints: {}", model.couplings().len());
    for c in model.couplings() {
        let _ = writeln!(
            s,
            "  {} = {} · {} + {}",
            model.joint(c.follower).name,
            c.multiplier,
            model.joint(c.leader).name,
            c.offset
        );
    }
    let _ = writeln!(s, "\nlocked joints: {}", report.locked.len());
    for l in &report.locked {
        let _ = writeln!(
            s,
            "  {} at {} ({})",
            l.joint,
            l.value,
            reason_text(&l.reason)
        );
    }
    let _ = writeln!(
        s,
        "\nmerged links (fixed or locked joints): {}",
        report.merged.len()
    );
    for (link, into) in &report.merged {
        let _ = writeln!(s, "  {link} into {into}");
    }
    if !report.inertia_fixes.is_empty() {
        let _ = writeln!(s, "\ninertias projected onto the nearest physical ones:");
        for (link, moved) in &report.inertia_fixes {
            let _ = writeln!(
                s,
                "  {link}: moved by {moved:.3e} (relative Frobenius norm)"
            );
        }
    }
    let _ = writeln!(s, "\nwarnings: {}", report.warnings.len());
    for w in &report.warnings {
        let _ = writeln!(s, "  {w}");
    }
    s
}

fn reason_text(r: &LockReason) -> String {
    match r {
        LockReason::Requested => "requested".into(),
        LockReason::MovesNoMass => "moves no mass".into(),
        LockReason::LeaderLocked(l) => format!("its mimic leader {l} is locked"),
    }
}

fn summary_json(model: &Model, feet: &[LikelyFoot]) -> serde_json::Value {
    let finite = |x: f64| if x.is_finite() { Some(x) } else { None };
    serde_json::json!({
        "name": model.name(),
        "base": model.base().to_string(),
        "dof": model.dof(),
        "total_mass": model.total_mass(),
        "joints": model.joints().iter().map(|j| serde_json::json!({
            "name": j.name,
            "type": kind_name(j.kind),
            "body": j.body,
            "parent": j.parent.map(|p| model.joint(p).body.clone()),
            "axis": [j.axis.x, j.axis.y, j.axis.z],
            "lower": finite(j.limits.lower),
            "upper": finite(j.limits.upper),
            "velocity": finite(j.limits.velocity),
            "effort": finite(j.limits.effort),
            "actuated": j.actuated,
            "base": j.is_base,
            "mass": j.mass,
            "com": [j.com.x, j.com.y, j.com.z],
            "spring": j.spring.map(|s| serde_json::json!({"stiffness": s.stiffness, "rest": s.rest})),
            "damping": j.damping,
        })).collect::<Vec<_>>(),
        "contact_points": model.contact_points().iter().map(|c| serde_json::json!({
            "name": c.name,
            "body": model.joint(c.body).body,
            "offset": [c.offset.x, c.offset.y, c.offset.z],
            "radius": c.radius,
        })).collect::<Vec<_>>(),
        "likely_feet": feet.iter().map(|f| serde_json::json!({
            "link": f.link,
            "name": f.name,
            "offset": [f.offset.x, f.offset.y, f.offset.z],
            "height": f.height,
        })).collect::<Vec<_>>(),
        "frames": model.frames().iter().map(|f| f.name.clone()).collect::<Vec<_>>(),
        "couplings": model.couplings().iter().map(|c| serde_json::json!({
            "joint": model.joint(c.follower).name,
            "leader": model.joint(c.leader).name,
            "multiplier": c.multiplier,
            "offset": c.offset,
        })).collect::<Vec<_>>(),
        "locked": model.report().locked.iter().map(|l| serde_json::json!({
            "joint": l.joint,
            "value": l.value,
            "reason": reason_text(&l.reason),
        })).collect::<Vec<_>>(),
        "merged": model.report().merged.iter().map(|(link, into)| serde_json::json!({
            "link": link,
            "into": into,
        })).collect::<Vec<_>>(),
        "inertia_fixes": model.report().inertia_fixes.iter().map(|(link, moved)| serde_json::json!({
            "link": link,
            "moved": moved,
        })).collect::<Vec<_>>(),
        "warnings": model.report().warnings,
    })
}
