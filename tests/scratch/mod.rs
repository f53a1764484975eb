//! Temporary directories for test fixtures.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A new directory `<temp>/<prefix>-<pid>-<call>`, one per call: the tests of a
/// binary run in parallel and may write files of the same name.
pub fn fresh_dir(prefix: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("{prefix}-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
