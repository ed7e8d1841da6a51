//! `cargo xtask fuzz`: the libFuzzer targets of fuzz/ (docs/FUZZING.md).
//!
//! Installs cargo-fuzz when missing, seeds each target's corpus from the
//! project's own data (crates/fuzzing's `fuzz-seeds`: the bundled exercises,
//! their procedures, links and saved entries made of them, and
//! tests/hostile/), runs each target for a given time and prints one line per
//! target: executions, executions per second, findings (crashes, hangs,
//! leaks, running out of memory: the command fails on any) and slow units
//! (inputs libFuzzer noted as slow and went on past: the command does not
//! fail on those). Their inputs are in fuzz/artifacts/<target>/; `cargo fuzz
//! tmin` shrinks a finding's, and a shrunk copy under
//! fuzz/regressions/<target>/ keeps it fixed in `cargo test`.
//!
//! cargo-fuzz passes nightly flags to rustc; the toolchain is stable, so its
//! commands run with RUSTC_BOOTSTRAP=1.

use crate::cmd;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

pub const TARGETS: [&str; 9] = [
    "procedure_parser",
    "exercise_loader",
    "share_link",
    "saved_state",
    "whole_run",
    "host_message",
    "book_directive",
    "site_index",
    "take_home_script",
];
pub const DEFAULT_SECONDS: u64 = 60;
/// Seconds one input may take before libFuzzer calls it a hang. A whole run
/// under the fuzz target's limits takes milliseconds.
const INPUT_TIMEOUT_SECONDS: u64 = 20;

pub struct Options {
    pub seconds: u64,
    /// Stop each target after this many executions (libFuzzer's `-runs`),
    /// or at `seconds`, whichever comes first.
    pub runs: Option<u64>,
    pub sanitizer: String,
    pub targets: Vec<String>,
}

pub fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        seconds: DEFAULT_SECONDS,
        runs: None,
        sanitizer: "address".into(),
        targets: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| -> Result<String, String> {
            match arg.strip_prefix(&format!("{flag}=")) {
                Some(value) => Ok(value.to_string()),
                None => args
                    .next()
                    .cloned()
                    .ok_or_else(|| format!("{flag} needs a value")),
            }
        };
        if arg == "--seconds" || arg.starts_with("--seconds=") {
            let text = value("--seconds")?;
            options.seconds = text
                .parse()
                .map_err(|_| format!("--seconds takes a whole number, not `{text}`"))?;
        } else if arg == "--runs" || arg.starts_with("--runs=") {
            let text = value("--runs")?;
            options.runs = Some(
                text.parse()
                    .map_err(|_| format!("--runs takes a whole number, not `{text}`"))?,
            );
        } else if arg == "--sanitizer" || arg.starts_with("--sanitizer=") {
            options.sanitizer = value("--sanitizer")?;
            if !matches!(options.sanitizer.as_str(), "address" | "none") {
                return Err(format!(
                    "--sanitizer is `address` (the default) or `none`, not `{}`",
                    options.sanitizer
                ));
            }
        } else if TARGETS.contains(&arg.as_str()) {
            options.targets.push(arg.clone());
        } else {
            return Err(format!(
                "fuzz takes --seconds N, --runs N, --sanitizer address|none and target names ({}), not `{arg}`",
                TARGETS.join(", ")
            ));
        }
    }
    if options.targets.is_empty() {
        options.targets = TARGETS.iter().map(|t| t.to_string()).collect();
    }
    Ok(options)
}

/// `cargo fuzz` in fuzz/, on the stable toolchain, building into the
/// workspace's target folder (one per sanitizer, so neither rebuilds the other).
fn cargo_fuzz(root: &Path, subcommand: &str, sanitizer: &str) -> Command {
    let mut command = Command::new("cargo");
    command
        .args(["fuzz", subcommand, "--sanitizer", sanitizer, "--target-dir"])
        .arg(root.join(format!("target/fuzz-{sanitizer}")))
        .current_dir(root.join("fuzz"))
        .env("RUSTC_BOOTSTRAP", "1");
    command
}

/// Fails when fuzz/Cargo.lock is not the lock file a build of fuzz/ would
/// use, without changing it. `cargo fuzz build` has no `--locked` (cargo-fuzz
/// issue #312, open), and resolves the lock file before it builds: once this
/// has passed, that resolution finds nothing to change, so no build here
/// rewrites the tracked lock file.
fn lock_file_is_current(root: &Path) -> Result<(), String> {
    let mut command = Command::new("cargo");
    command
        .args([
            "metadata",
            "--locked",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(root.join("fuzz/Cargo.toml"))
        .stdout(std::process::Stdio::null());
    cmd::status(&mut command)
        .map_err(|e| format!("fuzz/Cargo.lock is out of date (commit what a build writes): {e}"))
}

/// Type-checks every target with cargo-fuzz's own flags, without fuzzing:
/// the `cargo xtask test` stage. The targets are one call each into
/// crates/fuzzing, whose bodies the native tests run on fuzz/regressions/;
/// what is left to prove is that each target still compiles against them,
/// and `check` proves it for 70 % of a build's CPU (measured cold here:
/// 287 s against 413 s, the build's being codegen and links of an
/// unoptimised tree that nothing runs). `cargo xtask fuzz` builds them for
/// real.
pub fn check_only(root: &Path) -> Result<(), String> {
    lock_file_is_current(root)?;
    let mut command = cargo_fuzz(root, "check", "none");
    command.arg("--dev");
    cmd::status(&mut command)
}

pub fn run(root: &Path, options: &Options) -> Result<bool, String> {
    seed(root)?;
    let logs = root.join("target/xtask-logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
    println!(
        "xtask: building the fuzz targets (sanitizer: {})",
        options.sanitizer
    );
    lock_file_is_current(root)?;
    cmd::status(&mut cargo_fuzz(root, "build", &options.sanitizer))?;
    let mut results = Vec::new();
    for target in &options.targets {
        match options.runs {
            Some(runs) => println!(
                "xtask: fuzzing {target} for {runs} executions or {} s",
                options.seconds
            ),
            None => println!("xtask: fuzzing {target} for {} s", options.seconds),
        }
        let result = run_target(root, &logs, target, options)?;
        println!("{}", result.line(target));
        results.push((target, result));
    }
    if results.len() > 1 {
        println!("\nxtask: fuzz summary");
        for (target, result) in &results {
            println!("{}", result.line(target));
        }
    }
    Ok(results.iter().all(|(_, r)| r.findings.is_empty()))
}

/// Writes the seeds of every corpus (fuzz/corpus/<target>/from-*).
fn seed(root: &Path) -> Result<(), String> {
    let output = Command::new("cargo")
        .args([
            "run",
            "--locked",
            "--quiet",
            "-p",
            "fencelab-fuzzing",
            "--bin",
            "fuzz-seeds",
            "--",
        ])
        .arg(root)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "seeding the corpus failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let counts = String::from_utf8_lossy(&output.stdout).replace('\n', ", ");
    println!(
        "xtask: corpus seeded from the bundled exercises and tests/hostile/: {}",
        counts.trim_end_matches(", ")
    );
    Ok(())
}

struct Outcome {
    executions: u64,
    per_second: u64,
    seconds: f64,
    /// The inputs libFuzzer saved as crashes, hangs, leaks or out of memory.
    findings: Vec<PathBuf>,
    /// The inputs it saved as slow units, and went on past.
    slow_units: Vec<PathBuf>,
}

/// Whether libFuzzer saved `artifact` as a slow unit (`slow-unit-<sha1>`),
/// a note that the run went on past, rather than a finding (`crash-`,
/// `timeout-`, `leak-`, `oom-`, and any name it may use for one later).
fn is_slow_unit(artifact: &Path) -> bool {
    artifact
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("slow-unit-"))
}

impl Outcome {
    fn line(&self, target: &str) -> String {
        let listed = |one: &str, many: &str, files: &[PathBuf]| match files {
            [] => format!("0 {many}"),
            files => {
                let word = if files.len() == 1 { one } else { many };
                let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
                format!("{} {word}: {}", files.len(), names.join(", "))
            }
        };
        let findings = listed("finding", "findings", &self.findings);
        let slow = listed("slow unit", "slow units", &self.slow_units);
        format!(
            "xtask: fuzz {target}: {} executions, {} exec/s, {findings}, {slow} ({:.0} s)",
            self.executions, self.per_second, self.seconds
        )
    }
}

fn run_target(
    root: &Path,
    logs: &Path,
    target: &str,
    options: &Options,
) -> Result<Outcome, String> {
    let artifacts = root.join("fuzz/artifacts").join(target);
    let before = files_in(&artifacts);
    let corpus = root.join("fuzz/corpus").join(target);
    std::fs::create_dir_all(&corpus)
        .map_err(|e| format!("cannot create {}: {e}", corpus.display()))?;
    let log = logs.join(format!("fuzz-{target}.log"));
    let started = Instant::now();
    let mut command = cargo_fuzz(root, "run", &options.sanitizer);
    command.arg(target).arg(&corpus).arg("--").args([
        format!("-max_total_time={}", options.seconds),
        format!("-timeout={INPUT_TIMEOUT_SECONDS}"),
        "-print_final_stats=1".into(),
    ]);
    if let Some(runs) = options.runs {
        command.arg(format!("-runs={runs}"));
    }
    // A crash is an outcome to report, not an error of this command.
    let _ = cmd::logged(&mut command, &log);
    let seconds = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let stat = |name: &str| -> Option<u64> {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.trim().strip_prefix(':'))
            .and_then(|value| value.trim().parse().ok())
    };
    let executions = stat("stat::number_of_executed_units").unwrap_or(0);
    let per_second = stat("stat::average_exec_per_sec").unwrap_or(0);
    let (slow_units, findings): (Vec<PathBuf>, Vec<PathBuf>) = files_in(&artifacts)
        .into_iter()
        .filter(|file| !before.contains(file))
        .partition(|file| is_slow_unit(file));
    if executions == 0 && findings.is_empty() {
        return Err(format!(
            "fuzzing {target} ran nothing; see {}",
            log.display()
        ));
    }
    Ok(Outcome {
        executions,
        per_second,
        seconds,
        findings,
        slow_units,
    })
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libFuzzer's own artifact names: only a slow unit lets the command
    /// pass, and the line says which is which.
    #[test]
    fn a_slow_unit_is_reported_apart_from_findings() {
        let dir = Path::new("fuzz/artifacts/whole_run");
        for finding in [
            "crash-ab12",
            "timeout-cd34",
            "leak-ef56",
            "oom-0789",
            "unknown-1",
        ] {
            assert!(!is_slow_unit(&dir.join(finding)), "{finding}");
        }
        assert!(is_slow_unit(&dir.join("slow-unit-9f00")));
        let outcome = Outcome {
            executions: 10,
            per_second: 5,
            seconds: 2.0,
            findings: Vec::new(),
            slow_units: vec![dir.join("slow-unit-9f00")],
        };
        assert_eq!(
            outcome.line("whole_run"),
            "xtask: fuzz whole_run: 10 executions, 5 exec/s, 0 findings, 1 slow unit: \
             fuzz/artifacts/whole_run/slow-unit-9f00 (2 s)"
        );
    }
}
