//! Families of motion problems (`vito sweep`): one problem file and variations of its fields,
//! each a YAML path and the values it takes, drawn at random or on a grid.
//!
//! ```text
//! terrain.boxes.0.top=0.05:0.2        the box's height, uniform in [0.05, 0.2] (or 4 grid points: 0.05:0.2:4)
//! terrain.boxes.0.x+=-0.06:0.06       the box moved: the value added to each number at the path
//! duration=1.0,1.2,1.5                one of these values
//! ```
//!
//! A path names mapping keys and sequence indices separated by dots (`final.q.base_x`,
//! `constraints.2.frame_position.position.0`). `=` replaces the node with the value (or adds
//! the path's last key to its mapping); `+=` adds the value to the number there, or to every
//! number of the sequence there (an interval moved as a whole). Each instance is the file's YAML with its edits, solved as if it were the
//! file (relative paths start from the file's directory).

use super::ProblemError;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde_yaml_ng::Value;

/// How a variation changes the node at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// `KEY=…`: the node becomes the value.
    Set,
    /// `KEY+=…`: the value is added to the number, or to every number of the sequence.
    Add,
}

/// The values a variation takes.
#[derive(Clone, Debug, PartialEq)]
pub enum Spread {
    /// `lo:hi` (uniform when drawn) or `lo:hi:n` (`n` evenly spaced points on a grid).
    Interval {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
        /// Grid points, where given.
        points: Option<usize>,
    },
    /// `a,b,c` (one of them, uniformly, when drawn).
    Values(Vec<f64>),
}

/// One varied field: `KEY=RANGE` or `KEY+=RANGE`.
#[derive(Clone, Debug, PartialEq)]
pub struct Variation {
    /// The YAML path.
    pub key: String,
    /// Replace or add.
    pub edit: Edit,
    /// Its values.
    pub spread: Spread,
}

impl std::str::FromStr for Variation {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (key, edit, range) = match (s.find("+="), s.find('=')) {
            (Some(i), _) => (&s[..i], Edit::Add, &s[i + 2..]),
            (None, Some(i)) => (&s[..i], Edit::Set, &s[i + 1..]),
            (None, None) => {
                return Err(format!(
                    "'{s}': expected KEY=RANGE or KEY+=RANGE (RANGE: lo:hi, lo:hi:n or a,b,c)"
                ));
            }
        };
        let key = key.trim();
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(format!(
                "'{s}': '{key}' is not a YAML path (keys joined by dots)"
            ));
        }
        let number = |t: &str| -> Result<f64, String> {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("'{s}': '{}' is not a finite number", t.trim()))
        };
        let parts: Vec<&str> = range.split(':').collect();
        let spread = match parts.as_slice() {
            [lo, hi] | [lo, hi, _] => {
                let (lo, hi) = (number(lo)?, number(hi)?);
                if lo > hi {
                    return Err(format!("'{s}': the interval {lo}:{hi} is empty"));
                }
                let points = match parts.get(2) {
                    None => None,
                    Some(n) => match n.trim().parse::<usize>() {
                        Ok(n) if n >= 1 => Some(n),
                        _ => {
                            return Err(format!(
                                "'{s}': '{}' is not a number of grid points (1 or more)",
                                n.trim()
                            ));
                        }
                    },
                };
                Spread::Interval { lo, hi, points }
            }
            [values] => Spread::Values(values.split(',').map(number).collect::<Result<_, _>>()?),
            _ => return Err(format!("'{s}': expected lo:hi, lo:hi:n or a,b,c")),
        };
        Ok(Self {
            key: key.to_string(),
            edit,
            spread,
        })
    }
}

/// How the instances are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// `count` instances, each variation drawn independently from a generator seeded with
    /// `seed`.
    Samples {
        /// Number of instances.
        count: usize,
        /// Seed of the generator.
        seed: u64,
    },
    /// Every combination of the variations' grid points (intervals need `lo:hi:n`).
    Grid,
}

/// One member of a family: the value of each variation and the problem's YAML text.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// The value of each variation, in the order given.
    pub values: Vec<f64>,
    /// The problem file's YAML with the edits.
    pub text: String,
}

/// The instances of the family of the problem `text` (from the file `shown`, named in errors)
/// under `variations`, chosen by `design`.
///
/// # Errors
/// A [`ProblemError`] naming the file and the path that is not in it (or not a number where
/// `+=` adds), or a grid variation without its number of points.
pub fn instances(
    text: &str,
    shown: &str,
    variations: &[Variation],
    design: Design,
) -> Result<Vec<Instance>, ProblemError> {
    let base: Value = super::parse_yaml(text, shown)?;
    let invalid = |field: &str, message: String| ProblemError::Invalid {
        path: shown.to_string(),
        field: field.to_string(),
        message,
    };
    let rows: Vec<Vec<f64>> = match design {
        Design::Samples { count, seed } => {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            (0..count)
                .map(|_| {
                    variations
                        .iter()
                        .map(|v| match &v.spread {
                            Spread::Interval { lo, hi, .. } if lo < hi => {
                                rng.random_range(*lo..*hi)
                            }
                            Spread::Interval { lo, .. } => *lo,
                            Spread::Values(values) => values[rng.random_range(0..values.len())],
                        })
                        .collect()
                })
                .collect()
        }
        Design::Grid => {
            let mut rows = vec![Vec::new()];
            for v in variations {
                let points: Vec<f64> = match &v.spread {
                    Spread::Values(values) => values.clone(),
                    Spread::Interval {
                        lo,
                        hi,
                        points: Some(n),
                    } => (0..*n)
                        .map(|i| match n {
                            1 => *lo,
                            _ => lo + (hi - lo) * i as f64 / (n - 1) as f64,
                        })
                        .collect(),
                    Spread::Interval { points: None, .. } => {
                        return Err(invalid(
                            &v.key,
                            "a grid needs the number of points of each interval, lo:hi:n".into(),
                        ));
                    }
                };
                rows = rows
                    .iter()
                    .flat_map(|row| {
                        points.iter().map(move |x| {
                            let mut r = row.clone();
                            r.push(*x);
                            r
                        })
                    })
                    .collect();
            }
            rows
        }
    };
    rows.into_iter()
        .map(|values| {
            let mut doc = base.clone();
            for (v, x) in variations.iter().zip(&values) {
                edit(&mut doc, &v.key, v.edit, *x).map_err(|m| invalid(&v.key, m))?;
            }
            let text = serde_yaml_ng::to_string(&doc)
                .map_err(|e| invalid(&variations[0].key, e.to_string()))?;
            Ok(Instance { values, text })
        })
        .collect()
}

/// Applies `edit` with the value `x` to the node of `doc` at the dotted `path`.
///
/// # Errors
/// Which part of the path is missing, or what `+=` found instead of numbers.
pub fn edit(doc: &mut Value, path: &str, edit: Edit, x: f64) -> Result<(), String> {
    let mut node = doc;
    let mut walked = String::new();
    let parts: Vec<&str> = path.split('.').collect();
    for (depth, &part) in parts.iter().enumerate() {
        let last = depth + 1 == parts.len();
        // `=` may add the last key to a mapping (the problem's schema then judges it).
        if let Value::Mapping(m) = &mut *node
            && last
            && edit == Edit::Set
            && !m.contains_key(part)
        {
            m.insert(Value::from(part), Value::Null);
        }
        node = match node {
            Value::Mapping(m) => m
                .get_mut(part)
                .ok_or_else(|| format!("no key '{part}' in {}", shown(&walked)))?,
            Value::Sequence(s) => {
                let len = s.len();
                part.parse::<usize>()
                    .ok()
                    .and_then(|i| s.get_mut(i))
                    .ok_or_else(|| {
                        format!(
                            "'{part}' is not an index of {} ({len} items)",
                            shown(&walked)
                        )
                    })?
            }
            _ => {
                return Err(format!(
                    "{} is a single value, not a mapping",
                    shown(&walked)
                ));
            }
        };
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(part);
    }
    match edit {
        Edit::Set => *node = number(x),
        Edit::Add => match node {
            Value::Sequence(items) => {
                for item in items {
                    add(item, x, path)?;
                }
            }
            other => add(other, x, path)?,
        },
    }
    Ok(())
}

fn add(node: &mut Value, x: f64, path: &str) -> Result<(), String> {
    match node.as_f64() {
        Some(y) => {
            *node = number(y + x);
            Ok(())
        }
        None => Err(format!(
            "'+=' adds to numbers, and {path} holds {}",
            serde_yaml_ng::to_string(node)
                .map_or_else(|_| "another value".into(), |t| t.trim().to_string())
        )),
    }
}

/// `x` as YAML: a whole number as an integer (`stages: 20`, not `20.0`, which a count refuses).
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 2f64.powi(53) {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

fn shown(walked: &str) -> String {
    if walked.is_empty() {
        "the file".to_string()
    } else {
        format!("'{walked}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "name: jump\nterrain:\n  boxes: [{x: [0.45, 0.6], top: 0.16}]\nduration: 1.0\n";

    fn parse(s: &str) -> Variation {
        s.parse().unwrap()
    }

    #[test]
    fn variations_parse_and_bad_ones_say_why() {
        assert_eq!(
            parse("terrain.boxes.0.top=0.05:0.2"),
            Variation {
                key: "terrain.boxes.0.top".into(),
                edit: Edit::Set,
                spread: Spread::Interval {
                    lo: 0.05,
                    hi: 0.2,
                    points: None
                }
            }
        );
        let v = parse("terrain.boxes.0.x+=-0.06:0.06:3");
        assert_eq!(v.edit, Edit::Add);
        assert_eq!(
            v.spread,
            Spread::Interval {
                lo: -0.06,
                hi: 0.06,
                points: Some(3)
            }
        );
        assert_eq!(
            parse("duration=1,1.5").spread,
            Spread::Values(vec![1.0, 1.5])
        );
        for (bad, says) in [
            ("duration", "expected KEY=RANGE"),
            ("=1", "not a YAML path"),
            ("a..b=1", "not a YAML path"),
            ("duration=x", "'x' is not a finite number"),
            ("duration=2:1", "is empty"),
            ("duration=1:2:0", "grid points"),
            ("duration=1:2:3:4", "expected lo:hi"),
        ] {
            let e = bad.parse::<Variation>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn a_grid_is_every_combination_and_edits_land_where_the_path_says() {
        let family = instances(
            TEXT,
            "jump.yaml",
            &[
                parse("terrain.boxes.0.top=0.1:0.2:3"),
                parse("terrain.boxes.0.x+=-0.05,0.05"),
            ],
            Design::Grid,
        )
        .unwrap();
        assert_eq!(family.len(), 6);
        let last: Value = serde_yaml_ng::from_str(&family[5].text).unwrap();
        assert_eq!(family[5].values, vec![0.2, 0.05]);
        let b = &last["terrain"]["boxes"][0];
        assert_eq!(b["top"].as_f64(), Some(0.2));
        let x: Vec<f64> = b["x"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!(
            (x[0] - 0.5).abs() < 1e-12 && (x[1] - 0.65).abs() < 1e-12,
            "{x:?}"
        );
        assert_eq!(last["duration"].as_f64(), Some(1.0));
        let added = instances(TEXT, "jump.yaml", &[parse("solver.x=1")], Design::Grid);
        assert!(added.unwrap_err().to_string().contains("no key 'solver'"));
        let added = instances(
            TEXT,
            "jump.yaml",
            &[parse("terrain.friction=0.5")],
            Design::Grid,
        )
        .unwrap();
        let doc: Value = serde_yaml_ng::from_str(&added[0].text).unwrap();
        assert_eq!(doc["terrain"]["friction"].as_f64(), Some(0.5));
        assert_eq!(family[0].values, vec![0.1, -0.05]);
    }

    #[test]
    fn samples_are_reproducible_and_inside_their_ranges() {
        let vars = [
            parse("duration=0.8:1.2"),
            parse("terrain.boxes.0.top=0.1,0.2"),
        ];
        let design = Design::Samples { count: 50, seed: 7 };
        let a = instances(TEXT, "jump.yaml", &vars, design).unwrap();
        assert_eq!(a, instances(TEXT, "jump.yaml", &vars, design).unwrap());
        assert_ne!(
            a,
            instances(
                TEXT,
                "jump.yaml",
                &vars,
                Design::Samples { count: 50, seed: 8 }
            )
            .unwrap()
        );
        assert!(a.iter().all(|i| (0.8..1.2).contains(&i.values[0])));
        assert!(a.iter().all(|i| i.values[1] == 0.1 || i.values[1] == 0.2));
        assert!(a.iter().any(|i| i.values[1] == 0.1) && a.iter().any(|i| i.values[1] == 0.2));
    }

    #[test]
    fn a_path_not_in_the_file_is_named() {
        for (var, says) in [
            ("terrain.walls.0=1", "no key 'walls' in 'terrain'"),
            (
                "terrain.boxes.3.top=1",
                "'3' is not an index of 'terrain.boxes' (1 items)",
            ),
            ("name+=1", "'+=' adds to numbers, and name holds jump"),
            ("duration.x=1", "'duration' is a single value"),
        ] {
            let e = instances(
                TEXT,
                "jump.yaml",
                &[parse(var)],
                Design::Samples { count: 1, seed: 0 },
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.starts_with("jump.yaml: ") && e.contains(says),
                "{var}: {e}"
            );
        }
        let e = instances(TEXT, "jump.yaml", &[parse("duration=1:2")], Design::Grid)
            .unwrap_err()
            .to_string();
        assert!(e.contains("lo:hi:n"), "{e}");
    }
}
