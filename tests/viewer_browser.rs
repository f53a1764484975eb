//! `view.html` in a real browser (headless Chromium): for a solve, a simulation, a comparison,
//! a result with contact forces and terrain, the humanoid, the 12-link pendulum, a robot
//! drawn from mesh files (with its meshes, without them, and with a mesh far over the page's
//! triangle budget), and the committed pages of the public robots. The page's self-test (`#selftest`) reports console errors, how much of the
//! canvas is drawn, how much moving the time slider changes it, its transforms against the
//! forward kinematics, and its load time; Chromium's own log must show no console message
//! (but the one naming the meshes a page could not draw, where meshes are missing, and the
//! GPU process's notes on its software WebGL); screenshots at the first and the last time are
//! saved to `target/tmp/view-screenshots/` and must differ.
//!
//! Without Chromium (`apt-get install -y chromium`; `.ci/run` installs it) each test says it
//! was skipped and passes. `VITO_CHROMIUM` names another browser binary.

mod result_dirs;
mod scratch;

use scratch::fresh_dir;
use serde::Deserialize;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longest a browser run may take before it is killed.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);
/// Acceptance: a viewer page loads within this and stays below this size (a page with meshes,
/// which carries three.js and the meshes, below the larger one).
const MAX_LOAD_MS: f64 = 1000.0;
const MAX_BYTES: u64 = 2_000_000;
const MAX_MESHED_BYTES: u64 = 5_000_000;
/// What the page logs when meshes are missing (a `console.warn`).
const MISSING_MESHES: &str = "vito viewer: meshes not drawn";

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("VITO_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// The browser, or `None` after saying the test is skipped.
fn browser(test: &str) -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        // Straight to the process's stderr: the test harness captures eprintln! of a test that
        // passes, and a skip must be seen.
        let _ = writeln!(
            std::io::stderr(),
            "skipped {test}: no Chromium found (install it with `apt-get install -y chromium`, \
             or set VITO_CHROMIUM)"
        );
    }
    found
}

/// Runs headless Chromium on `url` with `extra` flags (own profile, no network services). One
/// browser runs at a time, so that a page's load time is its own: two browsers drawing WebGL
/// in software on two cores took 0.6–1.1 s for pages that open in 0.35 s alone.
fn run_browser(bin: &Path, url: &str, extra: &[String]) -> Output {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let profile = fresh_dir("vito-chromium-profile");
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            // WebGL in software (SwiftShader) for pages with meshes, without the console
            // warning that Chromium gives when it falls back to it by itself.
            "--enable-unsafe-swiftshader",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,800",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the browser starts");
    // The pipes are drained while the browser runs: a page's DOM fills a pipe's buffer.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the browser runs") {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            panic!("the browser did not finish {url} within {BROWSER_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = Output {
        status,
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    };
    let _ = std::fs::remove_dir_all(&profile);
    out
}

fn url(html: &Path, fragment: &str) -> String {
    format!(
        "file://{}#{fragment}",
        html.canonicalize().unwrap().display()
    )
}

/// The page's verdict on itself.
#[derive(Debug, Deserialize)]
struct Verdict {
    errors: Vec<String>,
    transform_error: Option<f64>,
    filled: f64,
    changed: f64,
    time_after_slider: f64,
    end_time: f64,
    load_ms: f64,
    /// Who draws the solids: "webgl" (three.js, for meshes), "none" (the 2-D renderer).
    solids: String,
    mesh_triangles: usize,
    missing_meshes: usize,
}

/// The page's verdict and its DOM, in a browser run with `flags` too. Chromium's log may only
/// hold console messages that contain one of `allowed`, and the notes of its GPU process on the
/// software WebGL of the test ("GL Driver Message ... GPU stall due to ReadPixels": the
/// browser's, not the page's).
fn selftest_allowing(
    bin: &Path,
    html: &Path,
    allowed: &[&str],
    flags: &[&str],
) -> (Verdict, String) {
    let mut args = vec!["--dump-dom".to_string()];
    args.extend(flags.iter().map(|f| f.to_string()));
    let out = run_browser(bin, &url(html, "selftest"), &args);
    let log = String::from_utf8_lossy(&out.stderr);
    let console: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(":CONSOLE") && !l.contains("GL Driver Message"))
        .filter(|l| !allowed.iter().any(|a| l.contains(a)))
        .collect();
    assert!(
        console.is_empty(),
        "{}: console messages: {console:#?}",
        html.display()
    );
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let marker = "id=\"vito-selftest\">";
    let start = dom
        .find(marker)
        .unwrap_or_else(|| panic!("{}: no self-test element in {dom:.400}", html.display()))
        + marker.len();
    let text = &dom[start..start + dom[start..].find('<').unwrap()];
    let json = text
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let verdict = serde_json::from_str(&json).unwrap_or_else(|e| {
        panic!(
            "{}: the self-test did not run ({e}): {json}",
            html.display()
        )
    });
    (verdict, dom)
}

/// A screenshot of `html` at time `t`; returns its RGB pixels.
fn screenshot(bin: &Path, html: &Path, name: &str, t: f64) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("view-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(format!("{name}-t{t:.3}.png"));
    let _ = std::fs::remove_file(&png);
    run_browser(
        bin,
        &url(html, &format!("t={t}")),
        &[format!("--screenshot={}", png.display())],
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display())),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert!(info.width >= 800 && info.height >= 600, "{info:?}");
    let channels = info.color_type.samples();
    buf.truncate(info.buffer_size());
    buf.chunks_exact(channels)
        .flat_map(|px| [px[0], px[1], px[2]])
        .collect()
}

/// Loads `html` in the browser and checks it as the module documentation says.
fn check_page(bin: &Path, html: &Path, name: &str) -> Verdict {
    check_page_within(bin, html, name, MAX_BYTES, &[]).0
}

/// [`check_page`] with a size limit and the console messages allowed; also returns the DOM.
fn check_page_within(
    bin: &Path,
    html: &Path,
    name: &str,
    max_bytes: u64,
    allowed: &[&str],
) -> (Verdict, String) {
    let bytes = std::fs::metadata(html).unwrap().len();
    assert!(bytes < max_bytes, "{name}: {bytes} bytes");
    let (v, dom) = selftest_allowing(bin, html, allowed, &[]);
    eprintln!("{name}: {bytes} bytes, {v:?}");
    assert!(v.errors.is_empty(), "{name}: {:?}", v.errors);
    assert!(
        v.filled > 0.02,
        "{name}: the canvas is blank ({})",
        v.filled
    );
    assert!(
        v.changed > 1e-3,
        "{name}: the slider does not move the picture"
    );
    assert_eq!(v.time_after_slider, v.end_time, "{name}");
    assert!(v.transform_error.is_some_and(|e| e < 2e-3), "{name}: {v:?}");
    assert!(
        v.load_ms < MAX_LOAD_MS,
        "{name}: loaded in {} ms",
        v.load_ms
    );
    let first = screenshot(bin, html, name, 0.0);
    let last = screenshot(bin, html, name, v.end_time);
    let uniform = first.chunks_exact(3).all(|px| px == &first[..3]);
    assert!(!uniform, "{name}: blank screenshot");
    assert_eq!(first.len(), last.len());
    let differ = first
        .chunks_exact(3)
        .zip(last.chunks_exact(3))
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        differ > 100,
        "{name}: the screenshots at both ends are alike ({differ} px)"
    );
    (v, dom)
}

fn vito(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_vito"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("vito runs");
    assert!(
        out.status.success(),
        "vito {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_solve_in_the_browser() {
    let Some(bin) = browser("a_solve_in_the_browser") else {
        return;
    };
    let dir = fresh_dir("vito-browser-solve");
    vito(&[
        "solve",
        "problems/pendulum_swingup_1.yaml",
        "-o",
        dir.to_str().unwrap(),
    ]);
    check_page(&bin, &dir.join("view.html"), "solve");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_simulation_of_the_twelve_link_pendulum_in_the_browser() {
    let Some(bin) = browser("a_simulation_of_the_twelve_link_pendulum_in_the_browser") else {
        return;
    };
    let dir = fresh_dir("vito-browser-sim");
    vito(&[
        "simulate",
        "problems/sim_pendulum12.yaml",
        "-o",
        dir.to_str().unwrap(),
    ]);
    check_page(&bin, &dir.join("view.html"), "simulation-pendulum12");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_comparison_in_the_browser() {
    let Some(bin) = browser("a_comparison_in_the_browser") else {
        return;
    };
    let dir = fresh_dir("vito-browser-compare");
    vito(&[
        "compare",
        "problems/pendulum_swingup_1.yaml",
        "-o",
        dir.to_str().unwrap(),
    ]);
    check_page(&bin, &dir.join("view.html"), "compare");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn contact_and_terrain_in_the_browser() {
    let Some(bin) = browser("contact_and_terrain_in_the_browser") else {
        return;
    };
    let dir = fresh_dir("vito-browser-contact");
    result_dirs::quadruped_on_terrain(&dir);
    vito(&["view", dir.to_str().unwrap()]);
    check_page(&bin, &dir.join("view.html"), "contact");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_humanoid_in_the_browser() {
    let Some(bin) = browser("the_humanoid_in_the_browser") else {
        return;
    };
    let dir = fresh_dir("vito-browser-humanoid");
    result_dirs::humanoid_walk(&dir);
    vito(&["view", dir.to_str().unwrap()]);
    check_page(&bin, &dir.join("view.html"), "humanoid");
    let _ = std::fs::remove_dir_all(&dir);
}

/// How many pixels of a screenshot's view (left of the panel, above the time bar) the robot and
/// its markers cover: those far (more than 60 in some channel) from both the background and the
/// floor, so that the floor's grid lines do not count.
fn robot_pixels(rgb: &[u8], width: usize) -> usize {
    const BACKGROUND: [u8; 3] = [244, 245, 247];
    const FLOOR: [u8; 3] = [231, 233, 238];
    let far = |px: &[u8], c: [u8; 3]| (0..3).any(|k| px[k].abs_diff(c[k]) > 60);
    view_pixels(rgb, width)
        .filter(|px| far(px, BACKGROUND) && far(px, FLOOR))
        .count()
}

/// The pixels of a screenshot's view: left of the panel, above the time bar.
fn view_pixels(rgb: &[u8], width: usize) -> impl Iterator<Item = &[u8]> {
    rgb.chunks_exact(3 * width)
        .take(rgb.len() / (3 * width) - 40)
        .flat_map(move |row| row.chunks_exact(3).take(width - 250))
}

#[test]
fn a_robot_with_meshes_in_the_browser() {
    let Some(bin) = browser("a_robot_with_meshes_in_the_browser") else {
        return;
    };
    // With its meshes: three.js draws the 52 triangles of its three mesh files.
    let dir = fresh_dir("vito-browser-meshes");
    result_dirs::meshed_arm_swing(&dir, &result_dirs::meshed_arm_urdf());
    vito(&["view", dir.to_str().unwrap()]);
    let html = dir.join("view.html");
    let (v, _) = check_page_within(&bin, &html, "meshes", MAX_MESHED_BYTES, &[]);
    assert_eq!(
        (v.solids.as_str(), v.mesh_triangles, v.missing_meshes),
        ("webgl", 52, 0)
    );
    // A browser without WebGL says so and draws the meshed links as sticks.
    let (plain, dom) = selftest_allowing(&bin, &html, &[], &["--disable-3d-apis"]);
    assert_eq!(plain.solids, "no-webgl");
    assert!(plain.errors.is_empty() && plain.filled > 0.02 && plain.changed > 1e-3);
    assert!(dom.contains("This browser has no WebGL 2: the meshes are not drawn."));
    // Without them (the URDF alone in another folder): the stick figure, and the page names
    // the files it did not find.
    let bare = fresh_dir("vito-browser-no-meshes");
    let urdf = bare.join("arm.urdf");
    std::fs::copy(result_dirs::meshed_arm_urdf(), &urdf).unwrap();
    result_dirs::meshed_arm_swing(&bare, &urdf);
    vito(&["view", bare.to_str().unwrap()]);
    let (stick, dom) = check_page_within(
        &bin,
        &bare.join("view.html"),
        "meshes-missing",
        MAX_BYTES,
        &[MISSING_MESHES],
    );
    assert_eq!((stick.solids.as_str(), stick.missing_meshes), ("none", 3));
    for file in [
        "meshes/base.stl",
        "meshes/upper_arm.stl",
        "package://vito_arm_meshes/meshes/forearm.obj",
    ] {
        assert!(dom.contains(file), "the page names {file}");
    }
    // The same moment seen by the same camera preset: the meshes cover much more than sticks.
    let width = 1280;
    let meshed = robot_pixels(&screenshot(&bin, &html, "meshes-side", 1.0), width);
    let sticks = robot_pixels(
        &screenshot(&bin, &bare.join("view.html"), "meshes-missing-side", 1.0),
        width,
    );
    eprintln!("robot pixels: {meshed} with meshes, {sticks} as sticks");
    assert!(
        meshed > 2 * sticks && sticks > 500,
        "{meshed} pixels with meshes against {sticks} as sticks"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&bare);
}

/// The committed pages of the public robots (`robots/README.md`, "Public robots") draw their
/// bundled meshes within the meshed page's size and load time, and change more of the picture
/// than the stick figure covers when the same result is drawn as sticks (its URDF copied where
/// no meshes are).
#[test]
fn public_robots_pages_draw_their_meshes() {
    let Some(bin) = browser("public_robots_pages_draw_their_meshes") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (result, urdf) in [
        ("talos_ball_pick", "robots/talos/talos.urdf"),
        ("solo12_walk", "robots/solo12/solo12.urdf"),
        ("go1_walk", "robots/go1/go1.urdf"),
    ] {
        let html = root.join("results").join(result).join("view.html");
        let (v, _) = check_page_within(&bin, &html, result, MAX_MESHED_BYTES, &[]);
        assert_eq!(
            (v.solids.as_str(), v.missing_meshes),
            ("webgl", 0),
            "{result}"
        );
        assert!(v.mesh_triangles > 5_000, "{result}: {v:?}");
        let bare = fresh_dir(&format!("vito-browser-{result}-sticks"));
        let copy = bare.join("robot.urdf");
        std::fs::copy(root.join(urdf), &copy).unwrap();
        let out = bare.join("page");
        let dir = root.join("results").join(result);
        vito(&[
            "view",
            dir.to_str().unwrap(),
            "--robot",
            copy.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        // Grey meshes on the light floor are not "far" from it (`robot_pixels`), so the
        // meshes are measured as what they change in the picture against the sticks: more
        // pixels than the stick figure covers.
        let width = 1280;
        let meshed = screenshot(&bin, &html, result, 0.0);
        let sticks = screenshot(
            &bin,
            &out.join("view.html"),
            &format!("{result}-sticks"),
            0.0,
        );
        let changed = view_pixels(&meshed, width)
            .zip(view_pixels(&sticks, width))
            .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 30))
            .count();
        let stick_pixels = robot_pixels(&sticks, width);
        eprintln!("{result}: the meshes change {changed} pixels; the sticks cover {stick_pixels}");
        assert!(
            changed > stick_pixels && stick_pixels > 500,
            "{result}: the meshes change {changed} pixels, the sticks cover {stick_pixels}"
        );
        let _ = std::fs::remove_dir_all(&bare);
    }
}

/// Writes a binary STL of a wavy tube (radius about 0.035 m, 0.4 m long) of `2 n m` triangles.
fn wavy_tube(path: &Path, n: usize, m: usize) {
    let point = |i: usize, j: usize| {
        let a = std::f32::consts::TAU * i as f32 / n as f32;
        let z = 0.4 * j as f32 / m as f32;
        let r = 0.035 + 0.006 * (12.0 * a).sin() * (50.0 * z).sin();
        [r * a.cos(), r * a.sin(), z]
    };
    let mut bytes = vec![b' '; 80];
    bytes.extend(((2 * n * m) as u32).to_le_bytes());
    for i in 0..n {
        for j in 0..m {
            let (a, b, c, d) = (
                point(i, j),
                point(i + 1, j),
                point(i + 1, j + 1),
                point(i, j + 1),
            );
            for t in [[a, b, c], [a, c, d]] {
                bytes.extend([0u8; 12]);
                bytes.extend(t.iter().flatten().flat_map(|v| v.to_le_bytes()));
                bytes.extend([0u8; 2]);
            }
        }
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_mesh_over_the_budget_is_decimated_into_the_page_limits() {
    let Some(bin) = browser("a_mesh_over_the_budget_is_decimated_into_the_page_limits") else {
        return;
    };
    // The meshed arm with an upper arm of 480 000 triangles (24 MB of STL).
    let dir = fresh_dir("vito-browser-big-mesh");
    let fixture = result_dirs::meshed_arm_urdf();
    let fixture_dir = fixture.parent().unwrap();
    std::fs::create_dir_all(dir.join("meshes")).unwrap();
    std::fs::copy(&fixture, dir.join("arm.urdf")).unwrap();
    std::fs::copy(
        fixture_dir.join("meshes/base.stl"),
        dir.join("meshes/base.stl"),
    )
    .unwrap();
    wavy_tube(&dir.join("meshes/upper_arm.stl"), 600, 400);
    result_dirs::meshed_arm_swing(&dir, &dir.join("arm.urdf"));
    let started = Instant::now();
    vito(&[
        "view",
        dir.to_str().unwrap(),
        "--package-path",
        fixture_dir.to_str().unwrap(),
    ]);
    let writing = started.elapsed();
    let html = dir.join("view.html");
    let (v, _) = check_page_within(&bin, &html, "big-mesh", MAX_MESHED_BYTES, &[]);
    let bytes = std::fs::metadata(&html).unwrap().len();
    eprintln!("big mesh: page {bytes} bytes, written in {writing:?}");
    assert_eq!((v.solids.as_str(), v.missing_meshes), ("webgl", 0));
    assert!(
        (10_000..=20_000).contains(&v.mesh_triangles),
        "decimated to {} triangles",
        v.mesh_triangles
    );
    let _ = std::fs::remove_dir_all(&dir);
}
