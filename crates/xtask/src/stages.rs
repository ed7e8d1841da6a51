//! The checks `cargo xtask test` runs, and the playground server.
//!
//! Every stage is one command whose output goes straight to the terminal, so
//! CI shows each test runner's own report. A failing stage does not stop the
//! later ones: one run reports everything that is wrong. The last line is the
//! plain count CI reads: `xtask: N passed, M failed`.

use crate::cmd;
use crate::tools::{CHROMEDRIVER, Tools, WASM_TARGET};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// wasm-bindgen-test-runner gives up on a test run after about 20 s by
/// default; the engine's exploration tests may need longer in a loaded CI.
const WASM_TEST_TIMEOUT_SECONDS: &str = "600";

struct Stage {
    name: &'static str,
    command: Command,
}

pub struct Summary {
    pub passed: usize,
    pub failed: usize,
}

fn cargo(args: &[&str]) -> Command {
    let mut command = Command::new("cargo");
    command.args(args);
    command
}

/// `cargo test` for the wasm32 target, run by wasm-bindgen-test-runner in
/// Node, or in headless Chromium through chromedriver when `browser` is set.
fn wasm_tests(browser: bool) -> Command {
    let mut command = cargo(&[
        "test",
        "--locked",
        "-p",
        "fencelab-core",
        "--target",
        WASM_TARGET,
    ]);
    command
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .env("WASM_BINDGEN_TEST_TIMEOUT", WASM_TEST_TIMEOUT_SECONDS);
    if browser {
        command
            .env("WASM_BINDGEN_USE_BROWSER", "1")
            .env("CHROMEDRIVER", CHROMEDRIVER);
    }
    command
}

fn trunk(tools: &Tools, args: &[&str]) -> Command {
    let mut command = Command::new("trunk");
    command.args(args).env("PATH", tools.path_var());
    command
}

fn plan(tools: &Tools) -> Vec<Stage> {
    let mut e2e = Command::new("node");
    e2e.arg("tests/e2e/smoke.mjs");
    vec![
        Stage {
            name: "format",
            command: cargo(&["fmt", "--all", "--", "--check"]),
        },
        Stage {
            name: "clippy (native)",
            command: cargo(&[
                "clippy",
                "--locked",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]),
        },
        Stage {
            name: "clippy (wasm32)",
            command: cargo(&[
                "clippy",
                "--locked",
                "-p",
                "fencelab-core",
                "-p",
                "fencelab-web",
                "--target",
                WASM_TARGET,
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]),
        },
        Stage {
            name: "tests (native)",
            command: cargo(&["test", "--locked", "--workspace"]),
        },
        Stage {
            name: "exercise checks (fencelab check)",
            command: cargo(&[
                "run",
                "--locked",
                "--quiet",
                "-p",
                "fencelab-cli",
                "--",
                "check",
            ]),
        },
        Stage {
            name: "core tests (wasm32 in Node)",
            command: wasm_tests(false),
        },
        Stage {
            name: "core tests (wasm32 in headless Chromium)",
            command: wasm_tests(true),
        },
        Stage {
            name: "playground build (trunk, release)",
            command: trunk(tools, &["build", "--offline", "--release"]),
        },
        Stage {
            name: "playground in headless Chromium (end to end)",
            command: e2e,
        },
    ]
}

pub fn run_all(_root: &Path, tools: &Tools) -> Summary {
    let mut results: Vec<(&'static str, bool, Duration)> = Vec::new();
    for mut stage in plan(tools) {
        println!(
            "xtask: stage `{}` starting: {}",
            stage.name,
            cmd::describe(&stage.command)
        );
        let started = Instant::now();
        let outcome = cmd::status(&mut stage.command);
        let took = started.elapsed();
        let verdict = if outcome.is_ok() { "passed" } else { "FAILED" };
        println!(
            "xtask: stage `{}` {verdict} in {:.1} s",
            stage.name,
            took.as_secs_f64()
        );
        if let Err(message) = &outcome {
            eprintln!("xtask: {message}");
        }
        results.push((stage.name, outcome.is_ok(), took));
    }

    println!("\nxtask: summary");
    for (name, ok, took) in &results {
        let verdict = if *ok { "passed" } else { "FAILED" };
        println!("  {verdict:<6}  {:>7.1} s  {name}", took.as_secs_f64());
    }
    let passed = results.iter().filter(|(_, ok, _)| *ok).count();
    let summary = Summary {
        passed,
        failed: results.len() - passed,
    };
    println!(
        "xtask: {} passed, {} failed",
        summary.passed, summary.failed
    );
    summary
}

/// Native criterion benchmarks, then the same workload timed in wasm (Node,
/// release build), so the figures can be compared as ratios within one run.
pub fn bench() -> Result<(), String> {
    cmd::status(&mut cargo(&[
        "bench",
        "--locked",
        "-p",
        "fencelab-core",
        "--bench",
        "engine",
    ]))?;
    let mut wasm = wasm_tests(false);
    wasm.args([
        "--release",
        "--features",
        "bench",
        "--test",
        "wasm_bench",
        "--",
        "--nocapture",
    ]);
    cmd::status(&mut wasm)
}

pub fn serve(_root: &Path, tools: &Tools, port: u16) -> Result<(), String> {
    let port = port.to_string();
    println!("xtask: building the playground; it will be served at http://127.0.0.1:{port}/");
    cmd::status(&mut trunk(
        tools,
        &[
            "serve",
            "--offline",
            "--release",
            "--address",
            "127.0.0.1",
            "--port",
            &port,
        ],
    ))
}
