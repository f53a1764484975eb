//! Shared helpers for the integration tests: random robots and states.
#![allow(dead_code)]

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::fmt::Write;
use vito::model::{BaseKind, Model, load_urdf, parse_urdf};

/// A seeded generator.
pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// A vector of `n` values uniform in `[-r, r]`.
pub fn uniform(rng: &mut Xoshiro256PlusPlus, n: usize, r: f64) -> Vec<f64> {
    (0..n).map(|_| rng.random_range(-r..r)).collect()
}

/// The robots shipped in `robots/`, each with the base it is meant for.
pub fn shipped_robots() -> Vec<(String, Model)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("robots/ exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "urdf"))
        .collect();
    entries.sort();
    for path in entries {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let base = natural_base(&stem);
        let model = load_urdf(&path, base).unwrap_or_else(|e| panic!("{e}"));
        out.push((format!("{stem} ({base})"), model));
    }
    assert!(!out.is_empty());
    out
}

/// The base a shipped robot is meant for, from its file name.
pub fn natural_base(stem: &str) -> BaseKind {
    if stem.contains("biped") {
        BaseKind::Planar
    } else if stem.contains("quadruped") || stem.contains("humanoid") {
        BaseKind::Floating
    } else {
        BaseKind::Fixed
    }
}

/// Inertia tensor entries (ixx, ixy, ixz, iyy, iyz, izz) of a solid box of mass `m` and sides
/// `a, b, c` — always physically possible.
fn box_inertia(m: f64, a: f64, b: f64, c: f64) -> [f64; 6] {
    [
        m * (b * b + c * c) / 12.0,
        0.0,
        0.0,
        m * (a * a + c * c) / 12.0,
        0.0,
        m * (a * a + b * b) / 12.0,
    ]
}

fn triple(rng: &mut Xoshiro256PlusPlus, r: f64) -> String {
    let v = uniform(rng, 3, r);
    format!("{} {} {}", v[0], v[1], v[2])
}

/// A random branching tree of `joints` joints: revolute, continuous, prismatic and fixed joints
/// with random unit axes, rotated origins and rotated, offset inertias.
pub fn random_tree_urdf(seed: u64, joints: usize) -> String {
    let mut r = rng(seed);
    let mut s = String::from("<robot name=\"random\">\n");
    let link = |s: &mut String, r: &mut Xoshiro256PlusPlus, name: &str| {
        let m = r.random_range(0.2..3.0);
        let dims: Vec<f64> = (0..3).map(|_| r.random_range(0.05..0.6)).collect();
        let i = box_inertia(m, dims[0], dims[1], dims[2]);
        let xyz = triple(r, 0.3);
        let rpy = triple(r, 3.0);
        let _ = writeln!(
            s,
            "<link name=\"{name}\"><inertial><origin xyz=\"{xyz}\" rpy=\"{rpy}\"/><mass value=\"{m}\"/>\
             <inertia ixx=\"{}\" ixy=\"{}\" ixz=\"{}\" iyy=\"{}\" iyz=\"{}\" izz=\"{}\"/></inertial></link>",
            i[0], i[1], i[2], i[3], i[4], i[5]
        );
    };
    link(&mut s, &mut r, "l0");
    let mut moving = 0;
    for k in 1..=joints {
        link(&mut s, &mut r, &format!("l{k}"));
        let parent = r.random_range(0..k);
        // At least one moving joint in three; never a fixed joint as the last one.
        let kind = match r.random_range(0..8) {
            0 | 1 if k < joints => "fixed",
            2 => "prismatic",
            3 => "continuous",
            _ => "revolute",
        };
        if kind != "fixed" {
            moving += 1;
        }
        let axis = triple(&mut r, 1.0);
        let dynamics = if r.random_range(0..3) == 0 {
            format!(
                "<dynamics damping=\"{}\" spring_stiffness=\"{}\" spring_reference=\"{}\"/>",
                r.random_range(0.0..0.5),
                r.random_range(0.0..20.0),
                r.random_range(-0.5..0.5)
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "<joint name=\"j{k}\" type=\"{kind}\"><parent link=\"l{parent}\"/><child link=\"l{k}\"/>\
             <origin xyz=\"{}\" rpy=\"{}\"/><axis xyz=\"{axis}\"/>\
             <limit lower=\"-2\" upper=\"2\" effort=\"100\" velocity=\"10\"/>{dynamics}</joint>",
            triple(&mut r, 0.5),
            triple(&mut r, 3.0)
        );
    }
    assert!(moving > 0);
    s.push_str("</robot>\n");
    s
}

/// A random tree model with the given base.
pub fn random_tree(seed: u64, joints: usize, base: BaseKind) -> Model {
    parse_urdf(&random_tree_urdf(seed, joints), "random.urdf", base)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Relative difference `|a − b| / max(1, |b|)` over two vectors.
pub fn rel_err(a: &[f64], b: &[f64]) -> f64 {
    let num: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt();
    let den: f64 = b.iter().map(|y| y * y).sum::<f64>().sqrt();
    num / den.max(1.0)
}
