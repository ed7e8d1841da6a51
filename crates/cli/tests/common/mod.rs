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
