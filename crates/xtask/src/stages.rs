//! The checks `cargo xtask test` runs, and the playground server.
//!
//! Every stage is one command whose output goes straight to the terminal, so
//! CI shows each test runner's own report. A failing stage does not stop the
//! later ones: one run reports everything that is wrong. The last line is the
//! plain count CI reads: `xtask: N passed, M failed`, with `, K skipped`
//! after it when a stage could not run here (the PostgreSQL stages on a
//! machine without a server that cannot install one).

use crate::bench::{self, Part};
use crate::cmd;
use crate::postgres::{self, Server};
use crate::sizes;
use crate::tools::{CHROMEDRIVER, Tools, WASM_TARGET};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// wasm-bindgen-test-runner gives up on a test run after about 20 s by
/// default; the engine's exploration tests may need longer in a loaded CI.
const WASM_TEST_TIMEOUT_SECONDS: &str = "600";

struct Stage {
    name: String,
    command: Command,
}

pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

fn cargo(args: &[&str]) -> Command {
    let mut command = Command::new("cargo");
    command.args(args);
    command
}

/// `command` (a native cargo build) with clippy's driver as the compiler
/// of the workspace's own crates, and every warning an error: what `cargo
/// clippy -- -D warnings` sets for `cargo check`, set for the build that
/// makes the test binaries instead. clippy's driver is rustc with clippy's
/// lints added, so one compile both lints and builds: `cargo clippy` and
/// `cargo test` compiled the tree twice (metadata only, then in full), and
/// the clippy stage was 241 s of a 36-minute run. The dependencies are
/// compiled by rustc as in any build (cargo gives the wrapper only to
/// workspace members), and cargo keeps the linted members' artifacts
/// apart from a plain build's, so neither build spoils the other.
///
/// Every later cargo command that builds those members natively must
/// carry the same variables, or it compiles them again: the later stages
/// run the binaries this build made instead ([`cmd::BUILT_ENV`]).
fn linted(mut command: Command, tools: &Tools) -> Command {
    command
        .env("RUSTC_WORKSPACE_WRAPPER", &tools.clippy_driver)
        .env("CLIPPY_ARGS", CLIPPY_ARGS);
    command
}

/// `-D warnings` in the form clippy's driver reads from `CLIPPY_ARGS`
/// (cargo-clippy joins its arguments with this separator).
const CLIPPY_ARGS: &str = "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__";

/// `cargo test` of `targets` for the wasm32 target, run by
/// wasm-bindgen-test-runner in Node, or in headless Chromium through
/// chromedriver when `browser` is set.
fn wasm_tests(targets: &[&str], browser: bool) -> Command {
    let mut command = cargo(&["test", "--locked", "--target", WASM_TARGET]);
    command.args(targets);
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

/// The crates whose tests run in wasm32, in Node and again in headless
/// Chromium: one set for both runs, so the second compiles nothing. cargo
/// unifies the dependencies' features over the packages a command names,
/// and `-p fencelab-core` alone builds js-sys, SQLite and the engine with
/// other features than `-p fencelab-core -p fencelab-hostile` (whose page
/// crate asks for more of the browser's APIs): three sets compiled the
/// tree three times (about 40 s each in a cold run).
const WASM_TESTED: [&str; 8] = [
    "-p",
    "fencelab-model",
    "-p",
    "fencelab-protocol",
    "-p",
    "fencelab-core",
    "-p",
    "fencelab-hostile",
];

/// `fencelab mutate` on the bundled exercises: every scenario against
/// every generated mutant.
fn fencelab_mutate() -> Command {
    cmd::fencelab(&["mutate"])
}

/// Every bundled scenario's shown schedule (references, starting texts,
/// named broken variants), and for a scenario where a process waits for a
/// lock every complete schedule the explorer visits, replayed on a real
/// database file in both journal modes, each scenario process an operating
/// system process, and through the exported Python scripts: any step that
/// differs from the simulator fails the stage (docs/REPLAY.md).
///
/// The files live in memory where the machine has a tmpfs (`/dev/shm`):
/// still files, with the operating system's locks and WAL's shared memory
/// as on any disk, but a commit's fsync costs nothing there. On this
/// machine's disk the fsyncs were most of the stage: without python3, 48 s
/// of wall time for 12 s of CPU, against 5 s in memory.
fn fencelab_replay() -> Command {
    let mut command = cmd::fencelab(&[
        "replay",
        "--bundled",
        "--journal",
        "both",
        "--processes",
        "--python",
        "--explored",
        "all",
    ]);
    let memory = Path::new("/dev/shm");
    if memory.is_dir() {
        command.env("TMPDIR", memory);
    }
    command
}

/// This very driver, for checks that are its own subcommands.
fn xtask(args: &[&str]) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap_or_else(|_| "xtask".into()));
    command.args(args);
    command
}

fn trunk(tools: &Tools, args: &[&str]) -> Command {
    let mut command = Command::new("trunk");
    command.args(args).env("PATH", tools.path_var());
    command
}

/// The e2e files that took longest in a clean clone's run (3a7966e, in
/// seconds: loop 177, playground 120, embed-layout 98, site 61,
/// accessibility 60, take-home 54, prerender 53; the other twelve 36 at
/// most), started first so that the lanes end close together: started last,
/// loop.mjs alone would run for minutes after the other lane had finished.
const E2E_LONGEST_FIRST: [&str; 7] = [
    "loop.mjs",
    "playground.mjs",
    "embed-layout.mjs",
    "site.mjs",
    "accessibility.mjs",
    "take-home.mjs",
    "prerender.mjs",
];

/// How many e2e files run at once. Two at a time took 587 to 690 s against
/// 882 s one at a time (the machine is then CPU-bound). The load brought out
/// three page races, each a real one a slow device meets too, each fixed
/// with a test: a prerendered page's confirming check moving the learner's
/// timeline, a theme written before hydration, and a typed schedule undone
/// by a render.
const E2E_LANES: usize = 2;

/// Every browser test file under tests/e2e (all `*.mjs` but the shared
/// harness), each its own stage: the longest first, then by name.
fn e2e_stages(root: &Path) -> Vec<Stage> {
    let dir = root.join("tests/e2e");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".mjs") && name != "harness.mjs")
                .collect()
        })
        .unwrap_or_default();
    let rank = |name: &str| {
        E2E_LONGEST_FIRST
            .iter()
            .position(|long| *long == name)
            .unwrap_or(E2E_LONGEST_FIRST.len())
    };
    files.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    files
        .into_iter()
        .map(|name| {
            let mut command = Command::new("node");
            command.arg(format!("tests/e2e/{name}"));
            Stage {
                name: format!("browser end to end: {name}"),
                command,
            }
        })
        .collect()
}

// long: the stages in the order `test` runs them, one entry each; cut into
// parts, that order would be spread over several functions.
/// The run's steps in order: most stages alone, a few side by side.
fn plan(root: &Path, tools: &Tools) -> Vec<Step> {
    let alone = [
        Stage {
            name: "format".into(),
            command: cargo(&["fmt", "--all", "--", "--check"]),
        },
        Stage {
            name: "tidy (the map's paths, the crate walls, the lints, npm imports)".into(),
            command: xtask(&["tidy"]),
        },
        Stage {
            name: "clippy (wasm32)".into(),
            command: cargo(&[
                "clippy",
                "--locked",
                "-p",
                "fencelab-model",
                "-p",
                "fencelab-core",
                "-p",
                "fencelab-protocol",
                "-p",
                "fencelab-web",
                "-p",
                "fencelab-worker",
                "-p",
                "fencelab-reader",
                "--target",
                WASM_TARGET,
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]),
        },
        Stage {
            name: "clippy and the native build (one compile)".into(),
            command: linted(
                cargo(&[
                    "test",
                    "--locked",
                    "--workspace",
                    "--all-targets",
                    "--no-run",
                ]),
                tools,
            ),
        },
        Stage {
            name: NATIVE_TESTS_STAGE.into(),
            command: linted(cargo(&["test", "--locked", "--workspace"]), tools),
        },
        Stage {
            name: "exercise checks (fencelab check)".into(),
            command: cmd::fencelab(&["check"]),
        },
        Stage {
            name: "mutation testing of the bundled suites (fencelab mutate)".into(),
            command: fencelab_mutate(),
        },
        Stage {
            name: "JUnit output against junit-10.xsd (xmllint)".into(),
            command: xtask(&["junit-check"]),
        },
        Stage {
            name: "bundled scenarios replayed on a real file (fencelab replay)".into(),
            command: fencelab_replay(),
        },
        Stage {
            name: "model, wire and core tests and the hostile corpus (wasm32 in Node)".into(),
            command: wasm_tests(&WASM_TESTED, false),
        },
        Stage {
            name: "model, wire and core tests and the hostile corpus (wasm32 in headless Chromium)"
                .into(),
            command: wasm_tests(&WASM_TESTED, true),
        },
        Stage {
            name: "page tests (wasm32 in headless Chromium)".into(),
            command: wasm_tests(
                &[
                    "-p",
                    "fencelab-web",
                    "--test",
                    "panic_notice",
                    "--test",
                    "parent_origin",
                    "--test",
                    "host_messages",
                ],
                true,
            ),
        },
    ];
    let mut steps: Vec<Step> = alone.into_iter().map(Step::Alone).collect();
    // After the SQLite checks and mutation testing: the bundled exercises
    // that have PostgreSQL texts, checked and mutated on the run's server.
    let after_mutate = steps
        .iter()
        .position(
            |step| matches!(step, Step::Alone(stage) if stage.name.contains("fencelab mutate")),
        )
        .map_or(steps.len(), |at| at + 1);
    steps.splice(
        after_mutate..after_mutate,
        on_server().into_iter().map(Step::Postgres),
    );
    // After the two cheap checks (format, tidy), before the builds: a
    // server that does not answer is known in seconds.
    steps.insert(2, Step::Postgres(server_answers()));
    // trunk's release build leaves a core idle for stretches (fat LTO and
    // one codegen unit, each wasm in turn: 1.7 of 2 cores busy on average,
    // sampled here), so the fuzz targets, in a target directory of their
    // own, are type-checked meanwhile.
    steps.push(Step::Beside {
        lanes: 2,
        stages: vec![
            Stage {
                name: "playground build (trunk, release)".into(),
                command: trunk(tools, &["build", "--offline", "--release"]),
            },
            Stage {
                name: "fuzz targets type-check (cargo fuzz check)".into(),
                command: xtask(&["fuzz-check"]),
            },
            Stage {
                name: "static release build (musl; cargo xtask dist-static)".into(),
                command: xtask(&["dist-static"]),
            },
        ],
    });
    steps.push(Step::Alone(Stage {
        name: "static release in an empty root (sha256sum, unshare --root)".into(),
        command: xtask(&["static-check"]),
    }));
    steps.push(Step::Alone(Stage {
        name: "grader walkthroughs installing the static release".into(),
        command: walkthroughs(tools),
    }));
    steps.push(Step::Alone(Stage {
        name: "first-load sizes; no SQLite in the page, no TOML parser in the page or the worker"
            .into(),
        command: xtask(&["sizes"]),
    }));
    steps.push(Step::Beside {
        lanes: E2E_LANES,
        stages: e2e_stages(root),
    });
    steps
}

/// The CLI's walkthrough tests again, installing the static release
/// (`cargo xtask walkthroughs`, [`release::walkthroughs`]), as the native
/// stage built them: the same cargo command and environment, so nothing
/// compiles (`cargo test -p fencelab-cli --test ...` unified the features
/// otherwise and compiled the workspace's crates again, 134 s of a run).
fn walkthroughs(tools: &Tools) -> Command {
    linted(xtask(&["walkthroughs"]), tools)
}

/// The first stage that needs the run's PostgreSQL server: psql, a real
/// client, asks it its version through the address every stage gets
/// ([`postgres::URL_ENV`]).
fn server_answers() -> Stage {
    let mut command = Command::new("sh");
    command
        .args([
            "-c",
            "exec \"$PSQL\" \"$FENCELAB_POSTGRES\" --no-psqlrc -v ON_ERROR_STOP=1 \
             -c 'select version()'",
        ])
        .env(
            "PSQL",
            postgres::server_bin().map_or_else(|| "psql".into(), |bin| bin.join("psql")),
        );
    Stage {
        name: "PostgreSQL: the server answers (psql)".into(),
        command,
    }
}

/// The stages that run the bundled exercises on the run's server: their
/// check on both engines, their mutants judged on both, naming every
/// mutant only one engine kills, and every shown run replayed on the
/// server around the engine, waits included (docs/POSTGRES.md).
fn on_server() -> [Stage; 3] {
    [
        Stage {
            name: "PostgreSQL: exercise checks on both engines (fencelab check --postgres)".into(),
            command: cmd::fencelab(&["check", "--postgres"]),
        },
        Stage {
            name: "PostgreSQL: mutation testing on both engines (fencelab mutate --postgres)"
                .into(),
            command: cmd::fencelab(&["mutate", "--postgres"]),
        },
        Stage {
            name: "PostgreSQL: bundled runs replayed on the server (fencelab replay --postgres)"
                .into(),
            command: cmd::fencelab(&["replay", "--bundled", "--postgres"]),
        },
    ]
}

/// One step of the run.
enum Step {
    /// A stage by itself, its output straight to the terminal.
    Alone(Stage),
    /// A stage that needs the run's PostgreSQL server: alone when it runs;
    /// skipped, saying why, on a machine without one; failed if it did not
    /// start.
    Postgres(Stage),
    /// Stages side by side, `lanes` at a time ([`run_in_lanes`]).
    Beside { lanes: usize, stages: Vec<Stage> },
}

/// The last stage: the test command must leave the tree as it found it, so
/// a build that rewrites a tracked file (a lock file, a generated asset)
/// fails here instead of leaving a change behind for someone to commit.
const CLEAN_TREE_STAGE: &str = "the tree is as the tests found it (git status --porcelain)";

/// Whether `git status --porcelain` lists nothing; otherwise what it lists.
fn tree_is_clean(root: &Path) -> Result<(), String> {
    let output = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `git status --porcelain`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`git status --porcelain` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let listed = String::from_utf8_lossy(&output.stdout);
    if listed.trim().is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the tests changed or left files in the tree (`git status --porcelain`):\n{}",
            listed.trim_end()
        ))
    }
}

/// The stage whose build makes the binaries the later stages run.
const NATIVE_TESTS_STAGE: &str = "tests (native)";

/// `command` with the CLI binary `built` in place of `cargo run` of the
/// CLI ([`cmd::cargo_run_cli`], what [`cmd::fencelab`] gives before
/// [`cmd::BUILT_ENV`] is set), its arguments, environment and folder kept;
/// any other command as it is.
fn cli_built_as(command: Command, built: &Path) -> Command {
    let cargo_run = cmd::cargo_run_cli(&[]);
    let prefix: Vec<&std::ffi::OsStr> = cargo_run.get_args().collect();
    let args: Vec<&std::ffi::OsStr> = command.get_args().collect();
    if command.get_program() != cargo_run.get_program() || !args.starts_with(&prefix) {
        return command;
    }
    let mut replaced = Command::new(built);
    replaced.args(&args[prefix.len()..]);
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => replaced.env(key, value),
            None => replaced.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        replaced.current_dir(dir);
    }
    replaced
}

/// What one stage came to.
struct Outcome {
    name: String,
    verdict: Verdict,
    took: Duration,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Passed,
    Failed,
    /// Not run on this machine, for this reason.
    Skipped(String),
}

impl Verdict {
    fn of(outcome: &Result<(), String>) -> Verdict {
        if outcome.is_ok() {
            Verdict::Passed
        } else {
            Verdict::Failed
        }
    }

    /// The word of the summary's table.
    fn word(&self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "FAILED",
            Verdict::Skipped(_) => "skipped",
        }
    }
}

/// `stage` not run for want of a server: skipped, saying why, where the
/// machine has none; failed where the one it has did not start.
fn without_server(stage: Stage, server: &Server) -> Outcome {
    let verdict = match server {
        Server::Missing(reason) => {
            println!("xtask: stage `{}` skipped: {reason}", stage.name);
            Verdict::Skipped(reason.clone())
        }
        Server::Broken(_) | Server::Running(_) => {
            println!("xtask: stage `{}` FAILED", stage.name);
            if let Server::Broken(error) = server {
                eprintln!("xtask: the PostgreSQL server did not start: {error}");
            }
            Verdict::Failed
        }
    };
    Outcome {
        name: stage.name,
        verdict,
        took: Duration::ZERO,
    }
}

/// `stage` as the run so far sets it up: the address of the run's
/// PostgreSQL server, if it runs; once the native tests have built
/// the binaries (`built`), every later stage, and what it starts (xtask's
/// own checks, trunk's post_build hook, the e2e tests), runs those.
fn prepared(
    mut stage: Stage,
    built: Option<&Path>,
    server: &Server,
    psycopg: Option<&Path>,
) -> Stage {
    server.export(&mut stage.command);
    if let Some(python) = psycopg {
        stage.command.env(crate::tools::PSYCOPG_ENV, python);
    }
    if let Some(built) = built {
        stage.command.env(cmd::BUILT_ENV, built);
        stage.command = cli_built_as(stage.command, &cmd::cli_in(built));
    }
    stage
}

fn said_done(name: &str, outcome: &Result<(), String>, took: Duration) {
    let verdict = if outcome.is_ok() { "passed" } else { "FAILED" };
    println!(
        "xtask: stage `{name}` {verdict} in {:.1} s",
        took.as_secs_f64()
    );
    if let Err(message) = outcome {
        eprintln!("xtask: {message}");
    }
}

/// Runs `stage` with its output going straight to the terminal.
fn run_alone(mut stage: Stage) -> Outcome {
    println!(
        "xtask: stage `{}` starting: {}",
        stage.name,
        cmd::describe(&stage.command)
    );
    let started = Instant::now();
    let outcome = cmd::status(&mut stage.command);
    let took = started.elapsed();
    said_done(&stage.name, &outcome, took);
    Outcome {
        name: stage.name,
        verdict: Verdict::of(&outcome),
        took,
    }
}

/// Runs `stages` in `lanes` threads, each taking the next stage when its
/// last one ends. A stage's output is kept in a log under `logs` and shown
/// whole when it ends, one stage's after another's, so the terminal reads
/// as if they had run in turn. The outcomes come back in `stages`' order.
fn run_in_lanes(stages: Vec<Stage>, lanes: usize, logs: &Path) -> Vec<Outcome> {
    use std::sync::{Mutex, PoisonError};
    let count = stages.len();
    let queue = Mutex::new(stages.into_iter().enumerate());
    let outcomes: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::with_capacity(count));
    let terminal = Mutex::new(());
    std::thread::scope(|scope| {
        for _ in 0..lanes {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
                    let Some((index, mut stage)) = next else {
                        break;
                    };
                    let log = logs.join(format!("stage-{index:02}.log"));
                    let shown = cmd::describe(&stage.command);
                    let started = Instant::now();
                    let outcome = cmd::status_into(&mut stage.command, &log);
                    let took = started.elapsed();
                    let output = std::fs::read_to_string(&log)
                        .unwrap_or_else(|e| format!("xtask: cannot read {}: {e}\n", log.display()));
                    {
                        let _turn = terminal.lock().unwrap_or_else(PoisonError::into_inner);
                        println!(
                            "xtask: stage `{}` (in a lane, its output as it ended): {shown}",
                            stage.name
                        );
                        print!("{output}");
                        said_done(&stage.name, &outcome, took);
                    }
                    let ended = Outcome {
                        name: stage.name,
                        verdict: Verdict::of(&outcome),
                        took,
                    };
                    outcomes
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push((index, ended));
                }
            });
        }
    });
    let mut outcomes = outcomes
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    outcomes.sort_by_key(|(index, _)| *index);
    outcomes.into_iter().map(|(_, outcome)| outcome).collect()
}

/// Every stage of the plan, or with `only` those whose names contain it
/// (the tree's check is one by its name too), with the run's PostgreSQL
/// server up while they run ([`postgres::for_tests`]); then the summary.
pub fn run_all(root: &Path, tools: &Tools, only: Option<&str>) -> Result<Summary, String> {
    let started_all = Instant::now();
    let steps = chosen(plan(root, tools), only);
    let check_tree = only.is_none_or(|text| CLEAN_TREE_STAGE.contains(text));
    if steps.is_empty() && !check_tree {
        return Err(format!(
            "no stage's name contains `{}`",
            only.unwrap_or_default()
        ));
    }
    let mut results = Vec::new();
    if !steps.is_empty() {
        // Dropped when the stages end, or while a panic unwinds: the
        // server stops and its folder goes.
        let server = postgres::for_tests(root);
        results = run_steps(root, steps, &server, tools.psycopg.as_deref());
    }
    if check_tree {
        let started = Instant::now();
        let clean = tree_is_clean(root);
        if let Err(message) = &clean {
            eprintln!("xtask: {message}");
        }
        results.push(Outcome {
            name: CLEAN_TREE_STAGE.into(),
            verdict: Verdict::of(&clean),
            took: started.elapsed(),
        });
    }
    Ok(summarize(&results, started_all.elapsed()))
}

/// `steps` with only the stages whose names contain `only`, if given.
fn chosen(steps: Vec<Step>, only: Option<&str>) -> Vec<Step> {
    let Some(text) = only else {
        return steps;
    };
    let wanted = |stage: &Stage| stage.name.contains(text);
    steps
        .into_iter()
        .filter_map(|step| match step {
            Step::Alone(stage) => wanted(&stage).then_some(Step::Alone(stage)),
            Step::Postgres(stage) => wanted(&stage).then_some(Step::Postgres(stage)),
            Step::Beside { lanes, stages } => {
                let stages: Vec<Stage> = stages.into_iter().filter(wanted).collect();
                (!stages.is_empty()).then_some(Step::Beside { lanes, stages })
            }
        })
        .collect()
}

/// Runs `steps` in order, each stage given the address of `server`.
fn run_steps(
    root: &Path,
    steps: Vec<Step>,
    server: &Server,
    psycopg: Option<&Path>,
) -> Vec<Outcome> {
    let mut results: Vec<Outcome> = Vec::new();
    let mut built: Option<std::path::PathBuf> = None;
    for (index, step) in steps.into_iter().enumerate() {
        let prepare = |stage| prepared(stage, built.as_deref(), server, psycopg);
        match step {
            Step::Alone(stage) => {
                let outcome = run_alone(prepare(stage));
                if outcome.name == NATIVE_TESTS_STAGE && outcome.verdict == Verdict::Passed {
                    built = Some(cmd::test_build_dir(root));
                }
                results.push(outcome);
            }
            Step::Postgres(stage) => results.push(match server {
                Server::Running(_) => run_alone(prepare(stage)),
                _ => without_server(stage, server),
            }),
            // One lane is no side by side: each stage alone, its output
            // shown as it comes rather than kept until it ends.
            Step::Beside {
                lanes: 0 | 1,
                stages,
            } => {
                for stage in stages {
                    results.push(run_alone(prepare(stage)));
                }
            }
            Step::Beside { lanes, stages } => {
                println!(
                    "xtask: {} stages side by side, {lanes} at a time, each shown whole when it ends",
                    stages.len()
                );
                let started = Instant::now();
                let stages = stages.into_iter().map(prepare).collect();
                let logs = root.join(format!("target/xtask-logs/step-{index:02}"));
                results.extend(run_in_lanes(stages, lanes, &logs));
                println!(
                    "xtask: those stages took {:.1} s side by side",
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    results
}

/// The summary's table, the run's time and the last line, `xtask: N
/// passed, M failed` (`, K skipped` after it when a stage was skipped).
fn summarize(results: &[Outcome], took: Duration) -> Summary {
    println!("\nxtask: summary");
    for outcome in results {
        let why = match &outcome.verdict {
            Verdict::Skipped(reason) => format!(": {reason}"),
            _ => String::new(),
        };
        println!(
            "  {:<7}  {:>7.1} s  {}{why}",
            outcome.verdict.word(),
            outcome.took.as_secs_f64(),
            outcome.name
        );
    }
    println!("xtask: the whole run took {:.1} s", took.as_secs_f64());
    let summary = count(results);
    println!("xtask: {}", summary.line());
    summary
}

fn count(results: &[Outcome]) -> Summary {
    let of = |verdict: fn(&Verdict) -> bool| {
        results
            .iter()
            .filter(|outcome| verdict(&outcome.verdict))
            .count()
    };
    Summary {
        passed: of(|verdict| *verdict == Verdict::Passed),
        failed: of(|verdict| *verdict == Verdict::Failed),
        skipped: of(|verdict| matches!(verdict, Verdict::Skipped(_))),
    }
}

impl Summary {
    /// `N passed, M failed`, and `, K skipped` when K is not 0.
    fn line(&self) -> String {
        let mut line = format!("{} passed, {} failed", self.passed, self.failed);
        if self.skipped > 0 {
            line.push_str(&format!(", {} skipped", self.skipped));
        }
        line
    }
}

/// Every benchmark in one run (see `bench.rs`): a release build of the
/// site and its first-load bytes, the browser figures (tests/bench), each
/// criterion benchmark of the core natively and each wasm benchmark of the
/// core in Node (release), and the mutation run's figures; then one table
/// per section. Fails (after printing the tables) if a part failed.
pub fn bench(root: &Path, tools: &Tools, only: Option<&str>) -> Result<(), String> {
    let wanted = |section: &str| only.is_none_or(|text| section.contains(text));
    let mut figures = Vec::new();
    let mut failures = Vec::new();
    let mut parts = Vec::new();
    if wanted("first load") || wanted("browser") {
        let site = cmd::status(&mut trunk(tools, &["build", "--offline", "--release"]));
        match site.and_then(|()| sizes::figures(root)) {
            Ok(sizes) => {
                figures.extend(sizes.into_iter().filter(|f| wanted(&f.section)));
                let mut browser = Command::new("node");
                browser.arg("tests/bench/browser.mjs");
                parts.push(Part {
                    section: "browser",
                    command: browser,
                    read: bench::no_own_words,
                });
            }
            Err(message) => failures.push(format!("the site: {message}")),
        }
    }
    parts.extend(core_parts(root));
    // Survivors make `fencelab mutate` exit 1: a test failure, reported
    // here as a failed part, with its figures kept.
    parts.push(Part {
        section: "mutate",
        command: fencelab_mutate(),
        read: bench::mutate_figures,
    });
    parts.retain(|part| wanted(part.section));
    let (more, failed) = bench::run(parts);
    figures.extend(more);
    failures.extend(failed);
    if wanted("postgres") {
        let (more, failed) = postgres_bench(root);
        figures.extend(more);
        failures.extend(failed);
    }

    println!("\nxtask: bench: one table per section\n");
    print!("{}", bench::tables(&figures));
    println!("Machine: {}.", bench::machine());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} part(s) of the benchmark failed: {}",
            failures.len(),
            failures.join("; ")
        ))
    }
}

/// The sections "postgres" and "postgres time"
/// (`crates/postgres/benches/check.rs`): on the server
/// [`postgres::URL_ENV`] names, else on a throwaway cluster started for
/// the part and stopped after it; skipped, saying why, on a machine with
/// neither.
fn postgres_bench(root: &Path) -> (Vec<bench::Figure>, Vec<String>) {
    let mut command = cargo(&[
        "bench",
        "--locked",
        "-p",
        "fencelab-postgres",
        "--bench",
        "check",
    ]);
    let given = std::env::var(postgres::URL_ENV).is_ok_and(|spec| !spec.trim().is_empty());
    // Dropped when the part ends (or while a panic unwinds): the server
    // stops and its folder goes.
    let server = (!given).then(|| postgres::for_tests(root));
    match &server {
        Some(Server::Missing(reason)) => {
            println!("xtask: bench: no section postgres: {reason}");
            return (Vec::new(), Vec::new());
        }
        Some(Server::Broken(error)) => {
            return (Vec::new(), vec![format!("the PostgreSQL server: {error}")]);
        }
        Some(running) => running.export(&mut command),
        None => println!("xtask: bench: PostgreSQL on {}", postgres::URL_ENV),
    }
    bench::run(vec![Part {
        section: "postgres",
        command,
        read: bench::no_own_words,
    }])
}

/// The core's benchmarks, as parts of `bench`: each criterion benchmark
/// natively, and each wasm benchmark in Node (release), but the line
/// marks', which are timed in Chromium.
fn core_parts(root: &Path) -> Vec<Part> {
    let mut parts = Vec::new();
    for stem in bench::stems(&root.join("crates/core/benches"), "") {
        parts.push(Part {
            section: if stem == "explore" {
                "explore"
            } else {
                "engine"
            },
            command: cargo(&["bench", "--locked", "-p", "fencelab-core", "--bench", &stem]),
            read: bench::no_own_words,
        });
    }
    for stem in bench::stems(&root.join("crates/core/tests"), "wasm_") {
        if !stem.contains("bench") {
            continue;
        }
        // The line marks' target is the page's: timed in Chromium.
        let line_marks = stem.contains("line_marks");
        let mut wasm = wasm_tests(&["-p", "fencelab-core"], line_marks);
        wasm.args([
            "--release",
            "--features",
            "bench",
            "--test",
            &stem,
            "--",
            "--nocapture",
        ]);
        parts.push(Part {
            section: if line_marks {
                "line marks"
            } else if stem.contains("explore") {
                "explore"
            } else {
                "engine"
            },
            command: wasm,
            read: bench::no_own_words,
        });
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(steps: &[Step]) -> Vec<&str> {
        steps
            .iter()
            .flat_map(|step| match step {
                Step::Alone(stage) | Step::Postgres(stage) => std::slice::from_ref(stage),
                Step::Beside { stages, .. } => stages.as_slice(),
            })
            .map(|stage| stage.name.as_str())
            .collect()
    }

    #[test]
    fn only_keeps_the_stages_whose_names_contain_its_text() {
        let tools = Tools {
            node_bin: "/node/bin".into(),
            clippy_driver: "/rust/clippy-driver".into(),
            psycopg: None,
        };
        let root = crate::workspace_root();
        let every = names(&plan(&root, &tools)).len();
        assert_eq!(names(&chosen(plan(&root, &tools), None)).len(), every);
        let postgres = chosen(plan(&root, &tools), Some("PostgreSQL"));
        // The server's check first, then every stage that runs on it.
        assert_eq!(
            postgres.len(),
            1 + on_server().len(),
            "{:?}",
            names(&postgres)
        );
        assert!(
            matches!(postgres.first(), Some(Step::Postgres(first)) if first.name.contains("answers")),
            "{:?}",
            names(&postgres)
        );
        assert!(
            postgres
                .iter()
                .all(|step| matches!(step, Step::Postgres(_)))
        );
        let fuzz = chosen(plan(&root, &tools), Some("fuzz targets"));
        assert!(
            matches!(fuzz.as_slice(), [Step::Beside { stages, .. }] if stages.len() == 1),
            "{:?}",
            names(&fuzz)
        );
        assert!(chosen(plan(&root, &tools), Some("no such stage")).is_empty());
    }

    #[test]
    fn a_stage_skipped_for_want_of_a_server_is_counted_apart_with_its_reason() {
        let why = "no PostgreSQL server here".to_string();
        let skipped = without_server(server_answers(), &Server::Missing(why.clone()));
        assert_eq!(skipped.verdict, Verdict::Skipped(why));
        let broken = without_server(server_answers(), &Server::Broken("initdb failed".into()));
        assert_eq!(
            broken.verdict,
            Verdict::Failed,
            "a server that did not start"
        );
        let passed = Outcome {
            name: "format".into(),
            verdict: Verdict::Passed,
            took: Duration::ZERO,
        };
        let summary = count(&[passed, skipped, broken]);
        assert_eq!((summary.passed, summary.failed, summary.skipped), (1, 1, 1));
        assert_eq!(summary.line(), "1 passed, 1 failed, 1 skipped");
        let none_skipped = Summary {
            skipped: 0,
            ..summary
        };
        assert_eq!(none_skipped.line(), "1 passed, 1 failed");
    }

    #[test]
    fn a_cargo_run_of_the_cli_becomes_the_built_binary_and_nothing_else_changes() {
        let built = Path::new("/t/debug/fencelab");
        let mut check = cmd::cargo_run_cli(&["check", "--json"]);
        check.env("TMPDIR", "/dev/shm").current_dir("/work");
        let replaced = cli_built_as(check, built);
        assert_eq!(replaced.get_program(), built.as_os_str());
        let args: Vec<_> = replaced.get_args().collect();
        assert_eq!(args, ["check", "--json"]);
        let envs: Vec<_> = replaced.get_envs().collect();
        assert_eq!(
            envs,
            [(
                std::ffi::OsStr::new("TMPDIR"),
                Some(std::ffi::OsStr::new("/dev/shm"))
            )]
        );
        assert_eq!(replaced.get_current_dir(), Some(Path::new("/work")));

        for other in [
            cargo(&["test", "--locked", "--workspace"]),
            cmd::prerender(Path::new("/site")),
            xtask(&["junit-check"]),
        ] {
            let before: Vec<_> = other.get_args().map(|a| a.to_owned()).collect();
            let program = other.get_program().to_owned();
            let after = cli_built_as(other, built);
            assert_eq!(after.get_program(), program);
            assert_eq!(after.get_args().collect::<Vec<_>>(), before);
        }
    }
}
