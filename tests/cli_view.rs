//! `vito view` end to end: it draws again exactly what `vito solve` drew, reads the contact
//! formats, finds a robot's meshes (beside its URDF, through `package://` and `--package-path`)
//! and names those it cannot draw, and refuses what is not a result of the robot with a
//! one-line error naming the file.

mod result_dirs;
mod scratch;

use scratch::fresh_dir;
use std::path::Path;
use std::process::{Command, Output};

fn vito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vito"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("vito runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The one line of a failed `vito view`, which must name `file`.
fn one_line_error(out: &Output, file: &str, says: &str) {
    assert!(!out.status.success(), "should fail");
    let err = stderr(out);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(
        err.starts_with("error: ") && err.contains(file) && err.contains(says),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// Decodes a GIF: (width, height, frames).
fn gif_frames(path: &Path) -> (u16, u16, usize) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut d = options
        .read_info(std::fs::File::open(path).unwrap())
        .unwrap();
    let (w, h) = (d.width(), d.height());
    let mut n = 0;
    while d.read_next_frame().unwrap().is_some() {
        n += 1;
    }
    (w, h, n)
}

#[test]
fn view_draws_again_what_solve_drew() {
    let dir = fresh_dir("vito-view-solve");
    let solve = ["solve", "problems/pendulum_swingup_1.yaml", "-o", s(&dir)];
    let out = vito(&[&solve[..], &["--raster"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read(dir.join("view.html")).unwrap();
    let gif = std::fs::read(dir.join("animation.gif")).unwrap();
    let report = std::fs::read_to_string(dir.join("report.json")).unwrap();
    assert!(report.contains("\"robot_file\"") && report.contains("\"base\": \"fixed\""));
    std::fs::remove_file(dir.join("view.html")).unwrap();
    std::fs::remove_file(dir.join("animation.gif")).unwrap();
    let out = vito(&["view", s(&dir), "--raster"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("view.html") && printed.contains("animation.gif"));
    assert_eq!(std::fs::read(dir.join("view.html")).unwrap(), html);
    assert_eq!(std::fs::read(dir.join("animation.gif")).unwrap(), gif);
    // A 3 s swing-up plays in 3 s at 20 frames per second, plus the first frame.
    let (w, _, frames) = gif_frames(&dir.join("animation.gif"));
    assert_eq!((w, frames), (480, 61));
    // Without the raster the page alone; the animation of the same motion stays.
    let out = vito(&["view", s(&dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        s(&dir.join("view.html"))
    );
    assert_eq!(std::fs::read(dir.join("animation.gif")).unwrap(), gif);
    // Solving again without it leaves no picture of the earlier motion.
    let out = vito(&solve);
    assert!(out.status.success(), "{}", stderr(&out));
    for stale in ["animation.gif", "trajectory.png", "filmstrip.png"] {
        assert!(
            !dir.join(stale).exists(),
            "{stale} left from the earlier solve"
        );
    }
    assert!(dir.join("trajectory.svg").is_file() && dir.join("view.html").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A result of a robot reduced by the problem's `lock:` and given contact points by it (the
/// Talos ball pick: grippers and head locked, the lifted sole's corners) is drawn again from
/// its directory alone, as its solve drew it: the report records both.
#[test]
fn a_reduced_robot_is_drawn_again_with_its_locks() {
    let dir = fresh_dir("vito-view-locked");
    let out = vito(&["view", "results/talos_ball_pick", "-o", s(&dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let again = std::fs::read(dir.join("view.html")).unwrap();
    let committed = std::fs::read("results/talos_ball_pick/view.html").unwrap();
    assert!(
        again == committed,
        "the page differs from the committed one"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_result_without_a_robot_file_takes_one_on_the_command_line() {
    let dir = fresh_dir("vito-view-old");
    let out = vito(&["solve", "problems/pendulum_swingup_1.yaml", "-o", s(&dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&report).unwrap();
    let map = json.as_object_mut().unwrap();
    for key in ["robot_file", "base", "kind", "targets", "contact_points"] {
        map.remove(key);
    }
    std::fs::write(dir.join("report.json"), json.to_string()).unwrap();
    let out = vito(&["view", s(&dir)]);
    one_line_error(&out, "report.json", "--robot");
    let views = fresh_dir("vito-view-old-out");
    let out = vito(&[
        "view",
        s(&dir),
        "--robot",
        "robots/pendulum1.urdf",
        "-o",
        s(&views),
        "--raster",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(views.join("view.html").is_file() && views.join("animation.gif").is_file());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&views);
}

#[test]
fn bad_inputs_are_one_line_errors_naming_the_file() {
    let empty = fresh_dir("vito-view-empty");
    one_line_error(
        &vito(&["view", s(&empty)]),
        "report.json",
        "not a result directory",
    );
    let missing = empty.join("nothing-here");
    one_line_error(
        &vito(&["view", s(&missing)]),
        "nothing-here",
        "no such directory",
    );
    std::fs::write(empty.join("report.json"), "{ not json").unwrap();
    one_line_error(
        &vito(&["view", s(&empty)]),
        "report.json",
        "not a vito report",
    );

    // The 2-link swing-up's CSV against the 3-link and the 1-link pendulum.
    let dir = fresh_dir("vito-view-mismatch");
    let out = vito(&["solve", "problems/pendulum_swingup_2.yaml", "-o", s(&dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    for (robot, says) in [
        ("robots/pendulum3.urdf", "no column q_joint3"),
        ("robots/pendulum1.urdf", "q_joint2 is not a joint"),
    ] {
        let out = vito(&["view", s(&dir), "--robot", robot, "-o", s(&empty)]);
        one_line_error(&out, "trajectory.csv", says);
    }
    std::fs::remove_file(dir.join("trajectory.csv")).unwrap();
    one_line_error(&vito(&["view", s(&dir)]), "trajectory.csv", "cannot read");
    let _ = std::fs::remove_dir_all(&empty);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn contact_forces_terrain_and_targets_reach_the_viewer() {
    let dir = fresh_dir("vito-view-contact");
    result_dirs::quadruped_on_terrain(&dir);
    let out = vito(&["view", s(&dir), "--raster"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(dir.join("view.html")).unwrap();
    let start = html.find("id=\"vito-scene\">").unwrap() + "id=\"vito-scene\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let scene: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
    let run = &scene["runs"][0];
    assert_eq!(run["times"].as_array().unwrap().len(), 201);
    let forces = run["forces"].as_array().unwrap();
    assert_eq!(forces.len(), 4, "one force series per foot");
    // The world columns win over the normal force: (0.2 fn, 0.05 fn, fn).
    let f = &forces[0]["values"][25];
    let normal = f[2].as_f64().unwrap();
    assert!(normal > 13.0, "{f}");
    assert!((f[0].as_f64().unwrap() - 0.2 * normal).abs() < 1e-3, "{f}");
    let points = scene["points"].as_array().unwrap();
    let foot = forces[0]["point"].as_u64().unwrap() as usize;
    assert_eq!(points[foot]["name"], "fl_foot");
    assert_eq!(scene["terrain"]["boxes"][0]["top"], 0.05);
    assert_eq!(scene["terrain"]["gaps"][0]["depth"], 0.1);
    assert_eq!(scene["ground"], 0.0);
    assert_eq!(scene["targets"][0]["frame"], "body");
    assert!(scene["force_scale"].as_f64().unwrap() > 0.0);
    let traced: Vec<&str> = scene["traced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            points[i.as_u64().unwrap() as usize]["name"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(traced, result_dirs::FEET, "the feet are traced");
    // The side view holds the whole course: the gap's bottom and the box's far end.
    let (w, h, frames) = gif_frames(&dir.join("animation.gif"));
    assert_eq!(w, 480);
    assert!(h >= 200 && frames == 41, "{h} {frames}");

    // A force column of a point the robot does not have.
    let csv = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    std::fs::write(
        dir.join("trajectory.csv"),
        csv.replacen("fn_hr_foot", "fn_tail", 1),
    )
    .unwrap();
    one_line_error(
        &vito(&["view", s(&dir)]),
        "trajectory.csv",
        "fn_tail names no contact point",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulate_and_compare_write_the_viewer_too() {
    let sim = fresh_dir("vito-view-sim");
    let out = vito(&[
        "simulate",
        "problems/sim_pendulum12.yaml",
        "--duration",
        "0.3",
        "-o",
        s(&sim),
        "--raster",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = std::fs::read_to_string(sim.join("report.json")).unwrap();
    assert!(report.contains("\"kind\": \"simulation\"") && report.contains("\"Completed\""));
    assert!(sim.join("view.html").is_file() && sim.join("animation.gif").is_file());
    let cmp = fresh_dir("vito-view-compare");
    let out = vito(&["compare", "problems/pendulum_swingup_1.yaml", "-o", s(&cmp)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(cmp.join("view.html")).unwrap();
    assert_eq!(
        html.matches("\"label\":").count(),
        2,
        "both solutions in one view"
    );
    assert!(html.contains("simpson_vi vs hermite_simpson"));
    for sub in ["simpson_vi", "hermite_simpson"] {
        assert!(cmp.join(sub).join("view.html").is_file(), "{sub}");
    }
    let again = fresh_dir("vito-view-compare-again");
    let out = vito(&["view", s(&cmp), "-o", s(&again)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(again.join("view.html")).unwrap(),
        html
    );
    let _ = std::fs::remove_dir_all(&again);
    // `--warm-start` starts Hermite–Simpson at the VI's solution, says so, and needs fewer
    // iterations than from the problem's guess.
    let warm = fresh_dir("vito-view-compare-warm");
    let out = vito(&[
        "compare",
        "problems/pendulum_swingup_1.yaml",
        "--warm-start",
        "-o",
        s(&warm),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let entries = |dir: &Path| -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(dir.join("compare.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (cold, hot) = (entries(&cmp), entries(&warm));
    assert_eq!(cold[1]["initial_guess"], "problem");
    let guess = hot[1]["initial_guess"].as_str().unwrap();
    assert!(guess.ends_with("simpson_vi/trajectory.csv"), "{guess}");
    assert_eq!(hot[1]["report"]["status"], "Converged");
    let iterations = |e: &serde_json::Value| e["report"]["iterations"].as_u64().unwrap();
    assert!(
        iterations(&hot[1]) < iterations(&cold[1]),
        "{} iterations warm against {} cold",
        iterations(&hot[1]),
        iterations(&cold[1])
    );
    assert!(
        std::fs::read_to_string(warm.join("compare.md"))
            .unwrap()
            .contains("simpson_vi/trajectory.csv")
    );
    let _ = std::fs::remove_dir_all(&warm);
    let _ = std::fs::remove_dir_all(&sim);
    let _ = std::fs::remove_dir_all(&cmp);
}

#[test]
fn view_draws_meshes_found_beside_the_urdf_or_in_package_path() {
    let fixture = result_dirs::meshed_arm_urdf();
    let fixture_dir = fixture.parent().unwrap();
    // The fixture: one mesh beside the URDF, one through package://, one on the welded base.
    let dir = fresh_dir("vito-view-meshes");
    result_dirs::meshed_arm_swing(&dir, &fixture);
    let out = vito(&["view", s(&dir), "--raster"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "every mesh is found");
    let html = std::fs::read_to_string(dir.join("view.html")).unwrap();
    assert!(html.contains("\"mesh_shapes\":[") && html.contains("three.js 0.187.0"));
    assert!(!html.contains("\"missing_meshes\":["));
    let (w, _, frames) = gif_frames(&dir.join("animation.gif"));
    assert_eq!((w, frames), (480, 41), "2 s at 20 frames per second");
    let out = vito(&["view", s(&dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("view.html")).unwrap(),
        html,
        "drawn again byte for byte"
    );

    // The URDF alone: a warning naming each mesh, a hint, and a page that lists them (and
    // carries no three.js, having no mesh to draw).
    let bare = fresh_dir("vito-view-no-meshes");
    std::fs::copy(&fixture, bare.join("arm.urdf")).unwrap();
    result_dirs::meshed_arm_swing(&bare, &bare.join("arm.urdf"));
    let out = vito(&["view", s(&bare)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 4, "{err}");
    for (line, file) in lines.iter().zip([
        "meshes/base.stl",
        "meshes/upper_arm.stl",
        "package://vito_arm_meshes/meshes/forearm.obj",
    ]) {
        assert!(
            line.starts_with("warning: ") && line.contains("arm.urdf") && line.contains(file),
            "{line}"
        );
    }
    assert!(lines[3].starts_with("hint: ") && lines[3].contains("--package-path DIR"));
    let page = std::fs::read_to_string(bare.join("view.html")).unwrap();
    assert!(page.contains("\"missing_meshes\":[") && !page.contains("three.js 0.187.0"));

    // The fixture's folder named with --package-path: found again.
    let out = vito(&["view", s(&bare), "--package-path", s(fixture_dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let page = std::fs::read_to_string(bare.join("view.html")).unwrap();
    assert!(page.contains("\"mesh_shapes\":[") && !page.contains("\"missing_meshes\":["));

    // A mesh file that is not a mesh: named with the reason, the others still drawn.
    std::fs::create_dir_all(bare.join("meshes")).unwrap();
    std::fs::write(
        bare.join("meshes/upper_arm.stl"),
        "solid arm\n  facet oops\n",
    )
    .unwrap();
    let out = vito(&["view", s(&bare), "--package-path", s(fixture_dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("warning: ")
            && err.contains("link 'upper_arm': meshes/upper_arm.stl (")
            && err.lines().count() == 1,
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let page = std::fs::read_to_string(bare.join("view.html")).unwrap();
    assert!(page.contains("\"mesh_shapes\":[") && page.contains("\"missing_meshes\":["));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&bare);
}
