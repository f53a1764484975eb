//! The scene of a result, as the 3-D viewer and the animation draw it: the robot's solid
//! shapes and stick figure as points fixed on its bodies, the world pose of every body at each
//! shown time of each motion (one motion, or the two of a comparison), contact forces, targets
//! and terrain. Kinematics is done here, once: the pictures only move rigid bodies.

use super::meshes::MeshPaths;
use super::recorded::TargetRecord;
use super::shapes::{MeshAsset, Shape, Solids, robot_solids};
use super::skeleton::{Anchor, Skeleton};
use crate::contact::Terrain;
use crate::dynamics::{Workspace, forward_kinematics};
use crate::model::{BaseKind, Model};
use crate::spatial::{Transform, Vec3};

/// Most times shown per motion; longer motions are thinned evenly (the first and last kept).
pub(super) const MAX_FRAMES: usize = 600;

/// Arrows of the largest contact force are this fraction of the scene's size long.
const FORCE_ARROW: f64 = 0.3;

/// Name fragments of the frames traced by default (feet, hands, tools, tips).
const TRACED_BY_DEFAULT: [&str; 4] = ["sole", "palm", "tool", "tip"];

/// A motion read from a result: times, joint positions and contact forces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Motion {
    /// What it is (a transcription, an integrator).
    pub label: String,
    /// Times (s), increasing.
    pub times: Vec<f64>,
    /// `q` at each time, in the model's joint order.
    pub q: Vec<Vec<f64>>,
    /// The world force on each contact point that has one: the point's index in
    /// `SceneInput::contacts` and the force (N) at each time.
    pub forces: Vec<(usize, Vec<Vec3>)>,
}

/// A named point fixed on a body: a contact point or a frame.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct NamedPoint {
    pub name: String,
    pub anchor: Anchor,
    pub contact: bool,
}

/// What a scene is made of.
pub struct SceneInput<'a> {
    /// Title.
    pub title: String,
    /// Lines of facts shown beside the picture (status, objective, integrator, ...).
    pub info: Vec<String>,
    /// The robot.
    pub model: &'a Model,
    /// The text of its URDF (for the solid shapes; empty: stick figure only).
    pub urdf: &'a str,
    /// Where its mesh files are looked for.
    pub mesh_paths: &'a MeshPaths,
    /// The contact points: name, link of the body, offset in the body frame.
    pub contacts: Vec<(String, usize, Vec3)>,
    /// The motions (one, or one per compared solution).
    pub motions: Vec<Motion>,
    /// Frame-position targets.
    pub targets: Vec<TargetRecord>,
    /// Terrain, when the problem has one.
    pub terrain: Option<Terrain>,
}

/// One motion at its shown times.
#[derive(Clone, Debug)]
pub(super) struct Run {
    pub label: String,
    pub times: Vec<f64>,
    /// World pose of every body at each time.
    pub poses: Vec<Vec<Transform>>,
    /// World force on the contact points with one, at each time (N).
    pub forces: Vec<(usize, Vec<Vec3>)>,
}

/// An axis-aligned box in the world (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Bounds {
    pub lo: Vec3,
    pub hi: Vec3,
}

impl Bounds {
    fn empty() -> Self {
        Self {
            lo: Vec3::repeat(f64::INFINITY),
            hi: Vec3::repeat(f64::NEG_INFINITY),
        }
    }

    fn add(&mut self, p: &Vec3, pad: f64) {
        if p.iter().all(|c| c.is_finite() && c.abs() < 1e6) {
            self.lo = self.lo.inf(&p.add_scalar(-pad));
            self.hi = self.hi.sup(&p.add_scalar(pad));
        }
    }

    fn or_unit(self) -> Self {
        if self.lo.x <= self.hi.x {
            self
        } else {
            Self {
                lo: Vec3::repeat(-0.5),
                hi: Vec3::repeat(0.5),
            }
        }
    }

    /// The largest side.
    pub(super) fn size(&self) -> f64 {
        (self.hi - self.lo).max().max(0.1)
    }
}

/// Everything the viewer and the animation draw.
#[derive(Clone, Debug)]
pub(super) struct Scene {
    pub title: String,
    pub info: Vec<String>,
    pub skeleton: Skeleton,
    pub shapes: Vec<Shape>,
    /// The meshes the shapes show.
    pub meshes: Vec<MeshAsset>,
    /// The meshes not drawn: link, file and why, one line each.
    pub missing_meshes: Vec<String>,
    /// How many of those were not found.
    pub meshes_not_found: usize,
    /// Contact points, then the model's frames.
    pub points: Vec<NamedPoint>,
    /// Indices into `points` traced by default.
    pub traced: Vec<usize>,
    pub runs: Vec<Run>,
    pub targets: Vec<TargetRecord>,
    pub terrain: Option<Terrain>,
    /// Height of the ground, when there is one.
    pub ground: Option<f64>,
    /// Everything the robot reaches over all runs.
    pub bounds: Bounds,
    /// World positions of every point at the middle time of the first run, from the forward
    /// kinematics directly (the viewer checks its own transforms against them).
    pub check: Option<(usize, Vec<Vec3>)>,
}

/// Indices of at most `max` of `n` items, evenly spread, first and last kept.
fn thin(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    let mut k: Vec<usize> = (0..max)
        .map(|i| ((i * (n - 1)) as f64 / (max - 1) as f64).round() as usize)
        .collect();
    k.dedup();
    k
}

impl Scene {
    /// The scene of `input`.
    pub(super) fn new(input: SceneInput) -> Self {
        let model = input.model;
        let mut ws = Workspace::new(model);
        let skeleton = Skeleton::new(model, &mut ws);
        let Solids {
            shapes,
            meshes,
            missing: missing_meshes,
            not_found: meshes_not_found,
        } = robot_solids(model, input.urdf, input.mesh_paths);
        let mut points: Vec<NamedPoint> = input
            .contacts
            .iter()
            .map(|(name, body, offset)| NamedPoint {
                name: name.clone(),
                anchor: Anchor {
                    body: Some(*body),
                    offset: *offset,
                },
                contact: true,
            })
            .collect();
        points.extend(model.frames().iter().map(|f| NamedPoint {
            name: f.name.clone(),
            anchor: Anchor {
                body: Some(f.body),
                offset: f.placement.translation,
            },
            contact: false,
        }));
        let named: Vec<usize> = (0..points.len())
            .filter(|&i| {
                !points[i].contact && TRACED_BY_DEFAULT.iter().any(|n| points[i].name.contains(n))
            })
            .collect();
        let traced = if !named.is_empty() {
            named
        } else if (1..=4).contains(&input.contacts.len()) {
            (0..input.contacts.len()).collect()
        } else {
            // The end of the chain: the last frame of the last body.
            (0..points.len())
                .rev()
                .find(|&i| points[i].anchor.body == Some(model.dof().saturating_sub(1)))
                .into_iter()
                .collect()
        };
        let mut bounds = Bounds::empty();
        let mut runs = Vec::new();
        for motion in &input.motions {
            let valid: Vec<usize> = (0..motion.times.len())
                .filter(|&k| {
                    motion.times[k].is_finite()
                        && motion.q[k].len() == model.dof()
                        && motion.q[k].iter().all(|v| v.is_finite())
                })
                .collect();
            let shown: Vec<usize> = thin(valid.len(), MAX_FRAMES)
                .into_iter()
                .map(|i| valid[i])
                .collect();
            let mut poses = Vec::with_capacity(shown.len());
            for &k in &shown {
                forward_kinematics(model, &mut ws, &motion.q[k]);
                for b in &skeleton.bones {
                    bounds.add(&b.a.world(&ws), 0.0);
                    bounds.add(&b.b.world(&ws), 0.0);
                }
                for p in &points {
                    bounds.add(&p.anchor.world(&ws), 0.0);
                }
                for s in &shapes {
                    let local = s.placement.transform_point(&s.geometry.centre());
                    let centre = s
                        .body
                        .map_or(local, |i| ws.body_pose(i).transform_point(&local));
                    bounds.add(&centre, s.geometry.radius());
                }
                poses.push((0..model.dof()).map(|i| *ws.body_pose(i)).collect());
            }
            runs.push(Run {
                label: motion.label.clone(),
                times: shown.iter().map(|&k| motion.times[k]).collect(),
                poses,
                forces: motion
                    .forces
                    .iter()
                    .map(|(c, f)| (*c, shown.iter().map(|&k| f[k]).collect()))
                    .collect(),
            });
        }
        for t in &input.targets {
            bounds.add(&Vec3::from(t.position), 0.0);
        }
        if let Some(t) = &input.terrain {
            // The course along x; across, the boxes and gaps that span the whole width only
            // reach as far as the robot does.
            let y = |r: &Option<[f64; 2]>| r.unwrap_or([0.0, 0.0]);
            for b in &t.boxes {
                bounds.add(&Vec3::new(b.x[0], y(&b.y)[0], t.ground), 0.0);
                bounds.add(&Vec3::new(b.x[1], y(&b.y)[1], b.top), 0.0);
            }
            for g in &t.gaps {
                bounds.add(&Vec3::new(g.x[0], y(&g.y)[0], t.ground - g.depth), 0.0);
                bounds.add(&Vec3::new(g.x[1], y(&g.y)[1], t.ground), 0.0);
            }
        }
        let bounds = bounds.or_unit();
        let ground = input.terrain.as_ref().map(|t| t.ground).or_else(|| {
            (model.base() != BaseKind::Fixed && !input.contacts.is_empty()).then_some(0.0)
        });
        let check = input
            .motions
            .first()
            .zip(runs.first())
            .filter(|(_, run)| !run.times.is_empty())
            .map(|(motion, run)| {
                let k = run.times.len() / 2;
                let row = motion
                    .times
                    .iter()
                    .position(|t| *t == run.times[k])
                    .unwrap_or(0);
                forward_kinematics(model, &mut ws, &motion.q[row]);
                (k, points.iter().map(|p| p.anchor.world(&ws)).collect())
            });
        Scene {
            title: input.title,
            info: input.info,
            skeleton,
            shapes,
            meshes,
            missing_meshes,
            meshes_not_found,
            points,
            traced,
            runs,
            targets: input.targets,
            terrain: input.terrain,
            ground,
            bounds,
            check,
        }
    }

    /// The longest run's end time.
    pub(super) fn duration(&self) -> f64 {
        self.runs
            .iter()
            .filter_map(|r| r.times.last())
            .fold(0.0, |a, b| a.max(*b))
    }

    /// Metres of force arrow per newton (0 without forces): the largest contact force over
    /// all runs is drawn [`FORCE_ARROW`] of the scene's size long.
    pub(super) fn force_scale(&self) -> f64 {
        let largest = self
            .runs
            .iter()
            .flat_map(|r| &r.forces)
            .flat_map(|(_, f)| f)
            .map(|f| f.norm())
            .filter(|f| f.is_finite())
            .fold(0.0, f64::max);
        if largest > 0.0 {
            FORCE_ARROW * self.bounds.size() / largest
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{PendulumSpec, parse_urdf, pendulum_urdf};

    fn pendulum2() -> (Model, String) {
        let urdf = pendulum_urdf(&PendulumSpec {
            links: 2,
            ..PendulumSpec::default()
        })
        .unwrap();
        (parse_urdf(&urdf, "p", BaseKind::Fixed).unwrap(), urdf)
    }

    fn swing(n: usize) -> Motion {
        Motion {
            label: "swing".into(),
            times: (0..n).map(|k| k as f64 * 0.01).collect(),
            q: (0..n)
                .map(|k| {
                    vec![
                        0.9 * (k as f64 * 0.02).sin(),
                        -0.5 * (k as f64 * 0.03).cos(),
                    ]
                })
                .collect(),
            forces: Vec::new(),
        }
    }

    fn scene(model: &Model, urdf: &str, motion: Motion) -> Scene {
        Scene::new(SceneInput {
            title: "t".into(),
            info: Vec::new(),
            model,
            urdf,
            mesh_paths: &MeshPaths::default(),
            contacts: Vec::new(),
            motions: vec![motion],
            targets: Vec::new(),
            terrain: None,
        })
    }

    #[test]
    fn pendulum_tip_follows_the_closed_form() {
        // Rods of 0.5 m about +y hanging along -z: the tip of the two-link chain is at
        // x = -l (sin q1 + sin(q1 + q2)), z = -l (cos q1 + cos(q1 + q2)).
        let (model, urdf) = pendulum2();
        let motion = swing(50);
        let s = scene(&model, &urdf, motion.clone());
        let tip = s.points.iter().find(|p| p.name == "tip").unwrap();
        assert_eq!(
            s.traced,
            vec![s.points.iter().position(|p| p.name == "tip").unwrap()]
        );
        for (k, poses) in s.runs[0].poses.iter().enumerate() {
            let body = tip.anchor.body.unwrap();
            let p = poses[body].transform_point(&tip.anchor.offset);
            let (q1, q2) = (motion.q[k][0], motion.q[k][1]);
            let x = -0.5 * (q1.sin() + (q1 + q2).sin());
            let z = -0.5 * (q1.cos() + (q1 + q2).cos());
            assert!((p - Vec3::new(x, 0.0, z)).norm() < 1e-12, "{k}: {p:?}");
        }
        assert!(s.bounds.lo.z >= -1.0 - 1e-12 && s.bounds.hi.z <= 1.0 + 1e-12);
        assert_eq!(s.ground, None, "a fixed pendulum stands on nothing");
        let (k, check) = s.check.as_ref().unwrap();
        let pose = &s.runs[0].poses[*k];
        for (p, want) in s.points.iter().zip(check) {
            let got = p.anchor.body.map_or(p.anchor.offset, |b| {
                pose[b].transform_point(&p.anchor.offset)
            });
            assert!((got - want).norm() < 1e-12);
        }
    }

    #[test]
    fn long_motions_are_thinned_and_bad_rows_skipped() {
        let (model, urdf) = pendulum2();
        let mut motion = swing(2000);
        motion.q[10][1] = f64::NAN;
        motion.times[20] = f64::INFINITY;
        let s = scene(&model, &urdf, motion);
        let times = &s.runs[0].times;
        assert_eq!(times.len(), MAX_FRAMES);
        assert_eq!(times[0], 0.0);
        assert_eq!(
            *times.last().unwrap(),
            1999.0 * 0.01,
            "the last sample is kept"
        );
        assert!(times.windows(2).all(|w| w[1] > w[0]));
        assert_eq!(s.duration(), 1999.0 * 0.01);
        let empty = scene(&model, &urdf, Motion::default());
        assert!(empty.runs[0].times.is_empty() && empty.check.is_none());
        assert_eq!(empty.bounds.size(), 1.0);
    }

    #[test]
    fn thinning_keeps_the_ends() {
        assert_eq!(thin(5, 10), vec![0, 1, 2, 3, 4]);
        assert_eq!(thin(11, 3), vec![0, 5, 10]);
        assert_eq!(thin(1000, 600).len(), 600);
    }
}
