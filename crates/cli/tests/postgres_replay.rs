//! The independent replay of PostgreSQL runs (issue 53, item 6): for every
//! exercise with a `[postgres]` table (the bundled ones that have one, and
//! tests/fixtures/claim-on-postgres.toml, so the test never runs empty),
//! under its reference, its starting texts and each named broken variant,
//! every scenario's shown history (and up to two explored ones where a
//! process waits on a lock) is exported with `fencelab export --python
//! --postgres` and its psycopg script run against the same server: each
//! must reproduce every step, waits included (exit 0 or 1 as fencelab's
//! verdict says, never 2; as many waits printed as the history holds), and
//! leave no database behind.
//!
//! Needs FENCELAB_POSTGRES and FENCELAB_PSYCOPG_PYTHON (an interpreter with
//! psycopg 3; `cargo xtask test` sets both). Without them the tests print
//! a line and skip, unless FENCELAB_REQUIRE_POSTGRES=1: then they fail.

use fencelab_core::export::{EXIT_DIFFERED, EXIT_NOT_RUN};
use fencelab_core::history::What;
use fencelab_core::target::Target;
use fencelab_core::{Exercise, ScenarioReport, Verdict, bundled};
use fencelab_postgres::PgWorlds;
use fencelab_postgres::testing::{REQUIRE_VARIABLE, SPEC_VARIABLE, server_for_tests};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

const PSYCOPG_VARIABLE: &str = "FENCELAB_PSYCOPG_PYTHON";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claim-on-postgres.toml")
}

/// The server's spec and psycopg's interpreter, or `None` (a line
/// printed) when either is missing and not required.
fn setting() -> Option<(String, PathBuf, Target)> {
    let server = server_for_tests()?;
    let spec = std::env::var(SPEC_VARIABLE).expect("server_for_tests read it");
    let Some(python) = std::env::var_os(PSYCOPG_VARIABLE).filter(|p| !p.is_empty()) else {
        if std::env::var(REQUIRE_VARIABLE).is_ok_and(|v| v == "1") {
            panic!(
                "{REQUIRE_VARIABLE}=1 and {PSYCOPG_VARIABLE} is not set: `cargo xtask test` installs psycopg and sets it"
            );
        }
        println!("skipped: {PSYCOPG_VARIABLE} is not set (an interpreter with psycopg 3)");
        return None;
    };
    let target = Target::Server(Arc::new(PgWorlds::new(server)));
    Some((spec, PathBuf::from(python), target))
}

/// One exercise to replay: how the command line names it, and the
/// exercise as PostgreSQL runs it.
struct Named {
    argument: String,
    exercise: Exercise,
}

fn exercises_with_postgres() -> Vec<Named> {
    let mut all: Vec<Named> = bundled::exercises()
        .expect("the bundled exercises load")
        .into_iter()
        .filter_map(|e| {
            Some(Named {
                argument: e.id.clone(),
                exercise: e.on_postgres()?,
            })
        })
        .collect();
    let path = fixture();
    let text = std::fs::read_to_string(&path).expect("the fixture is there");
    let exercise = fencelab_core::exercise::load(&path.display().to_string(), &text)
        .expect("the fixture loads");
    all.push(Named {
        argument: path.display().to_string(),
        exercise: exercise
            .on_postgres()
            .expect("the fixture has a [postgres] table"),
    });
    all
}

/// Texts to replay: a label, the texts, and the `--start` or `--set`
/// arguments that give them to `fencelab export`.
type Labelled = (String, Vec<(String, String)>, Vec<String>);

/// The exercise's texts to replay (the `--set` files written in `folder`).
fn every_text(exercise: &Exercise, folder: &Path) -> Vec<Labelled> {
    let reference = exercise.texts_with(&Default::default());
    let mut all = vec![("reference".to_string(), reference.clone(), Vec::new())];
    let start = exercise.texts_with(&exercise.start_edits());
    if start != reference {
        all.push(("starting texts".into(), start, vec!["--start".into()]));
    }
    for (index, variant) in exercise.variants.iter().enumerate() {
        let texts = exercise.texts_of_variant(variant);
        let mut args = Vec::new();
        for ((name, text), (_, original)) in texts.iter().zip(&reference) {
            if text != original {
                let file = folder.join(format!("variant-{index}-{name}.sql"));
                std::fs::write(&file, text).expect("the scratch folder is writable");
                args.push("--set".into());
                args.push(format!("{name}={}", file.display()));
            }
        }
        all.push((format!("broken variant {}", variant.name), texts, args));
    }
    all
}

/// `fencelab export ... --python --postgres SPEC -o SCRIPT`, then the
/// script run with `python` against the server: what it printed.
fn export_and_run(spec: &str, python: &Path, script: &Path, export_args: &[String]) -> Output {
    let exported = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .arg("export")
        .args(export_args)
        .args(["--python", "--force", "--postgres", spec, "-o"])
        .arg(script)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("the fencelab binary runs");
    assert!(
        exported.status.success(),
        "fencelab export {export_args:?}: {}",
        String::from_utf8_lossy(&exported.stderr)
    );
    Command::new(python)
        .arg(script)
        .arg(spec)
        .output()
        .expect("the psycopg interpreter runs")
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// How many schedules of a scenario's exploration are looked through for
/// ones where a process waits on a lock, and how many of those are
/// replayed beside the shown one.
const EXPLORED_LOOKED_AT: usize = 40;
const CONTENDED_REPLAYED: usize = 2;

/// The reports to replay for `scenario`: the shown one, and up to
/// [`CONTENDED_REPLAYED`] explored ones where a process waits.
fn reports_to_replay(
    checker: &mut fencelab_core::Checker,
    scenario: &fencelab_core::Scenario,
) -> Vec<ScenarioReport> {
    let (shown, visited) = checker.check_keeping_schedules(scenario, EXPLORED_LOOKED_AT);
    let waits = |report: &ScenarioReport| {
        report
            .history
            .iter()
            .any(|event| matches!(event.what, What::Blocked { .. }))
    };
    let contended: Vec<ScenarioReport> = visited
        .iter()
        .filter(|schedule| **schedule != shown.schedule)
        .map(|schedule| checker.replay(scenario, schedule))
        .filter(waits)
        .take(CONTENDED_REPLAYED)
        .collect();
    std::iter::once(shown).chain(contended).collect()
}

/// What the replays counted.
#[derive(Default)]
struct Counted {
    runs: usize,
    waits: usize,
    broken: usize,
}

#[test]
fn every_shown_postgres_history_replays_through_its_psycopg_script() {
    let Some((spec, python, target)) = setting() else {
        return;
    };
    let folder = tempfile::tempdir().expect("a scratch folder");
    let script = folder.path().join("replay.py");
    let mut counted = Counted::default();
    let exercises = exercises_with_postgres();
    for named in &exercises {
        let exercise = &named.exercise;
        for (label, texts, text_args) in every_text(exercise, folder.path()) {
            let mut checker = target.checker(exercise, &texts).expect("the texts build");
            for scenario in &exercise.scenarios {
                for report in reports_to_replay(&mut checker, scenario) {
                    let mut args = vec![
                        named.argument.clone(),
                        "--scenario".into(),
                        scenario.name.clone(),
                        "--schedule".into(),
                        report.schedule.to_string(),
                    ];
                    args.extend(text_args.iter().cloned());
                    let output = export_and_run(&spec, &python, &script, &args);
                    let wanted = match report.verdict() {
                        Verdict::Failed | Verdict::Error if report.problem().is_some() => 1,
                        _ => 0,
                    };
                    let out = said(&output);
                    let place = format!(
                        "{} / {label} / {} / {}",
                        exercise.id, scenario.name, report.schedule
                    );
                    assert_ne!(
                        output.status.code(),
                        Some(EXIT_DIFFERED),
                        "{place}: a step differed:\n{out}"
                    );
                    assert_ne!(
                        output.status.code(),
                        Some(EXIT_NOT_RUN),
                        "{place}: it could not run:\n{out}"
                    );
                    assert_eq!(output.status.code(), Some(wanted), "{place}:\n{out}");
                    let recorded = report
                        .history
                        .iter()
                        .filter(|event| matches!(event.what, What::Blocked { .. }))
                        .count();
                    let printed = out.matches(": waits for the lock at ").count();
                    assert_eq!(printed, recorded, "{place}: the waits printed:\n{out}");
                    counted.runs += 1;
                    counted.waits += printed;
                    counted.broken += usize::from(wanted == 1);
                }
            }
        }
    }
    println!(
        "replayed {} PostgreSQL histories of {} exercises through psycopg ({} ending on a broken guarantee, {} waits reproduced)",
        counted.runs,
        exercises.len(),
        counted.broken,
        counted.waits
    );
    assert!(counted.runs > 0 && counted.waits > 0);
    no_database_left(&spec, &python);
}

/// No scratch database of a script is left on the server.
fn no_database_left(spec: &str, python: &Path) {
    let left = Command::new(python)
        .args(["-c", "import psycopg, sys; print(psycopg.connect(sys.argv[1]).execute(\"SELECT count(*) FROM pg_database WHERE datname LIKE 'fencelab\\_%' AND length(datname) = 25\").fetchone()[0])"])
        .arg(spec)
        .output()
        .expect("the psycopg interpreter runs");
    assert_eq!(
        String::from_utf8_lossy(&left.stdout).trim(),
        "0",
        "a script left its database: {}",
        said(&left)
    );
}

/// Exercise 1's "one winner" with the PostgreSQL reference, under `a a a b
/// b b a b`: b's UPDATE waits on a's row lock, and the script must see it
/// wait, then finish (changing nothing) once a has committed.
#[test]
fn the_losers_update_waits_on_the_winners_row_lock_in_the_script_too() {
    let Some((spec, python, _)) = setting() else {
        return;
    };
    let folder = tempfile::tempdir().expect("a scratch folder");
    let script = folder.path().join("one-winner.py");
    let args: Vec<String> = [
        fixture().display().to_string(),
        "--scenario".into(),
        "one winner".into(),
        "--schedule".into(),
        "a a a b b b a b".into(),
    ]
    .into();
    let output = export_and_run(&spec, &python, &script, &args);
    let out = said(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("b      claim: waits for the lock at UPDATE messages"),
        "{out}"
    );
    assert!(out.contains("Reproduced on this server"), "{out}");
    assert!(!out.contains("DIFFERS"), "{out}");
}
