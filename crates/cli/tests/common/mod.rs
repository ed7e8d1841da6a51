//! What the grading tests (grading.rs, specs.rs) share: running the built
//! `fencelab` as a grader does, and reading what it printed.
//!
//! Each test file compiles this module on its own and uses part of it, so
//! the parts a file leaves unused are allowed to be.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `fencelab ARGS`, with `env` added and no step summary of the CI it runs
/// in (a GitHub runner's `GITHUB_STEP_SUMMARY` would catch its output).
pub fn fencelab_with(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fencelab"));
    command.args(args).env_remove("GITHUB_STEP_SUMMARY");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the fencelab binary runs")
}

pub fn fencelab(args: &[&str]) -> Output {
    fencelab_with(args, &[])
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Standard output read as the JSON document it must be.
pub fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&output.stdout)))
}

/// A file under crates/cli/tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).join(name)
}

/// The name of the release archive a grader downloads, without `.tar.gz`:
/// also the one folder inside it, which holds `fencelab` (and, in the
/// static build, `mdbook-fencelab`). The walkthroughs name it as written
/// here, so a version bump fails their tests until they are updated.
pub const RELEASE_NAME: &str = concat!(
    "fencelab-",
    env!("CARGO_PKG_VERSION"),
    "-x86_64-unknown-linux-musl"
);

/// The release archive the walkthroughs install from, with its `.sha256`
/// beside it (one line as `sha256sum` writes it).
///
/// `cargo xtask test` builds the static one (`cargo xtask dist-static`) and
/// names it in `FENCELAB_TARBALL`. A plain `cargo test` has none, so this
/// packs the binary under test in the same layout: the scripts then run as
/// written, on this machine's libc instead of none.
pub fn release_tarball(scratch: &Path) -> PathBuf {
    if let Some(built) = std::env::var_os("FENCELAB_TARBALL") {
        return PathBuf::from(built);
    }
    let folder = scratch.join("packing").join(RELEASE_NAME);
    std::fs::create_dir_all(&folder).expect("a packing folder");
    std::fs::copy(env!("CARGO_BIN_EXE_fencelab"), folder.join("fencelab"))
        .expect("the binary under test is copied");
    let archive = scratch.join(format!("{RELEASE_NAME}.tar.gz"));
    let packed = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(scratch.join("packing"))
        .arg(RELEASE_NAME)
        .status()
        .expect("tar runs");
    assert!(packed.success(), "tar packs the binary under test");
    let summed = Command::new("sha256sum")
        .arg(format!("{RELEASE_NAME}.tar.gz"))
        .current_dir(scratch)
        .output()
        .expect("sha256sum runs");
    assert!(summed.status.success(), "sha256sum sums the archive");
    std::fs::write(scratch.join(format!("{RELEASE_NAME}.tar.gz.sha256")), summed.stdout)
        .expect("the sum is written");
    archive
}
