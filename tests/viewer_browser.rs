//! `view.html` in a real browser (headless Chromium): for a solve, a simulation, a comparison,
//! a result with contact forces and terrain, the humanoid and the 12-link pendulum. The page's
//! self-test (`#selftest`) reports console errors, how much of the canvas is drawn, how much
//! moving the time slider changes it, its transforms against the forward kinematics, and its
//! load time; Chromium's own log must show no console message; screenshots at the first and
//! the last time are saved to `target/tmp/view-screenshots/` and must differ.
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
use std::time::{Duration, Instant};

/// Longest a browser run may take before it is killed.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);
/// Acceptance: a viewer page loads within this and stays below this size.
const MAX_LOAD_MS: f64 = 1000.0;
const MAX_BYTES: u64 = 2_000_000;

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

/// Runs headless Chromium on `url` with `extra` flags (own profile, no network services).
fn run_browser(bin: &Path, url: &str, extra: &[String]) -> Output {
    let profile = fresh_dir("vito-chromium-profile");
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
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
}

fn selftest(bin: &Path, html: &Path) -> Verdict {
    let out = run_browser(bin, &url(html, "selftest"), &["--dump-dom".to_string()]);
    let log = String::from_utf8_lossy(&out.stderr);
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "{}: console messages: {console:#?}",
        html.display()
    );
    let dom = String::from_utf8_lossy(&out.stdout);
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
    serde_json::from_str(&json).unwrap_or_else(|e| {
        panic!(
            "{}: the self-test did not run ({e}): {json}",
            html.display()
        )
    })
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
    let bytes = std::fs::metadata(html).unwrap().len();
    assert!(bytes < MAX_BYTES, "{name}: {bytes} bytes");
    let v = selftest(bin, html);
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
    v
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
