//! `--postgres` as a course author and a CI job meet it: the same commands
//! on a real PostgreSQL server (the test command's throwaway cluster,
//! `FENCELAB_POSTGRES`), their exit codes and what they say. Exercise 1
//! with a `[postgres]` table is the fixture (data/claim-on-postgres.toml).

use fencelab_postgres::testing::server_for_tests;
use std::process::{Command, Output};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/claim-on-postgres.toml"
);

/// `fencelab ARGS --postgres`, the server named by FENCELAB_POSTGRES;
/// `None` when the tests skip (no server, none required).
fn on_server(args: &[&str]) -> Option<Output> {
    server_for_tests()?;
    Some(
        Command::new(env!("CARGO_BIN_EXE_fencelab"))
            .args(args)
            .arg("--postgres")
            .output()
            .expect("the fencelab binary runs"),
    )
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_reference_passes_on_the_server_and_the_report_names_it() {
    let Some(output) = on_server(&["run", FIXTURE]) else {
        return;
    };
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.starts_with("on PostgreSQL "), "{said}");
    assert!(said.contains("3 passed, 0 failed"), "{said}");
}

#[test]
fn the_starting_text_fails_one_winner_on_the_server_with_its_schedule() {
    let Some(output) = on_server(&["run", FIXTURE, "--start"]) else {
        return;
    };
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("worker-a and worker-b both believe they hold message msg-1"),
        "{said}"
    );
    assert!(said.contains("shortest failing schedule:"), "{said}");
}

#[test]
fn an_exercise_without_postgresql_texts_is_sqlite_only_exit_2() {
    let sqlite_only = fencelab_core::bundled::exercises()
        .expect("the bundled exercises load")
        .into_iter()
        .find(|e| e.postgres.is_none())
        .expect("a bundled exercise without PostgreSQL texts");
    let Some(output) = on_server(&["run", &sqlite_only.id]) else {
        return;
    };
    let said = text(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("is SQLite only"), "{said}");
}

/// The fixture's `[[postgres.equivalent]]` names a mutant of the PostgreSQL
/// reference, generated with the server's own tables (its schema, with an
/// identity column, is not SQLite's): the check passes only if it matches.
#[test]
fn check_checks_both_dialects_and_each_catches_the_broken_variants() {
    let Some(output) = on_server(&["check", FIXTURE]) else {
        return;
    };
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert_eq!(said.matches("mutants: 2/2 caught").count(), 2, "{said}");
    assert!(said.contains("on PostgreSQL "), "{said}");
    assert!(!said.contains("STALE"), "{said}");
}

#[test]
fn a_bare_postgres_without_an_address_is_bad_input_that_says_what_to_give() {
    let output = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(["run", FIXTURE, "--postgres"])
        .env_remove("FENCELAB_POSTGRES")
        .output()
        .expect("the fencelab binary runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("FENCELAB_POSTGRES is not set"), "{said}");
}

#[test]
fn an_unreachable_server_is_bad_input_naming_the_cause() {
    let output = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args([
            "run",
            FIXTURE,
            "--postgres",
            "host=/nonexistent/socket user=nobody",
        ])
        .output()
        .expect("the fencelab binary runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("cannot use the PostgreSQL server"), "{said}");
}

/// The summary line's count of `name`, as in `12 runs` or `2 waits`.
fn counted(said: &str, name: &str) -> u64 {
    let line = said
        .lines()
        .find(|l| l.starts_with("replay: "))
        .unwrap_or_else(|| panic!("no summary line: {said}"));
    let words: Vec<&str> = line.split([' ', '(', ',']).collect();
    let at = words
        .iter()
        .position(|w| *w == name)
        .unwrap_or_else(|| panic!("no `{name}` in {line}"));
    words[at - 1]
        .parse()
        .unwrap_or_else(|_| panic!("no count before `{name}` in {line}"))
}

/// Exercise 25's runs on the server hold statements that wait on a row
/// lock (an insert waiting on another's uncommitted key): replayed on
/// fresh connections, each is seen waiting again and finishes as the
/// engine saw it, and every other step agrees.
#[test]
fn replay_on_the_server_agrees_with_every_step_waits_included() {
    let Some(output) = on_server(&["replay", "insert-if-absent", "--variants"]) else {
        return;
    };
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.contains(", on PostgreSQL "), "{said}");
    assert!(said.trim_end().ends_with(": 0 differ"), "{said}");
    assert!(counted(&said, "runs") >= 4, "{said}");
    assert!(counted(&said, "waits") >= 1, "no run waited: {said}");
}

/// One scenario replayed with its steps printed, as on SQLite; and through
/// the psycopg script too, when the test command's interpreter with
/// psycopg is at hand (FENCELAB_PSYCOPG_PYTHON).
#[test]
fn replay_of_one_scenario_prints_its_steps_and_its_script_agrees() {
    let Some(output) = on_server(&["replay", FIXTURE, "--start", "--scenario", "one winner"])
    else {
        return;
    };
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.contains("UPDATE"), "the steps are printed: {said}");
    let Some(python) = std::env::var_os("FENCELAB_PSYCOPG_PYTHON") else {
        println!("the script's part skipped: FENCELAB_PSYCOPG_PYTHON is not set");
        return;
    };
    let folder = std::path::Path::new(&python)
        .parent()
        .expect("the interpreter's folder");
    let path = std::env::join_paths(std::iter::once(folder.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    let output = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args([
            "replay",
            "insert-if-absent",
            "--variants",
            "--python",
            "--postgres",
        ])
        .env("PATH", path)
        .output()
        .expect("the fencelab binary runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    let runs = counted(&said, "runs");
    assert!(
        said.contains(&format!(", {runs} also through python3: 0 differ")),
        "{said}"
    );
}

#[test]
fn replay_on_the_server_refuses_what_only_sqlite_has() {
    for extra in [
        &["--file", "x.db"][..],
        &["--journal", "wal"],
        &["--processes"],
    ] {
        let mut args = vec!["replay", FIXTURE];
        args.extend_from_slice(extra);
        let Some(output) = on_server(&args) else {
            return;
        };
        let said = text(&output);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {said}");
        assert!(said.contains("SQLite's"), "{extra:?}: {said}");
    }
}
