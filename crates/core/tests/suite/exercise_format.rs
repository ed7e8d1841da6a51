//! The exercise loader: every error names the file, the line and the field.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::ExerciseExt;

const GOOD: &str = r#"format = 1
id = "tiny"
title = "Tiny"
lesson = "Tests"
narrative = "A counter."
schema = """
CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO counters VALUES ('a', 0);
"""

[procedures.bump]
editable = true
reference = """
UPDATE counters SET value = value + 1 WHERE name = 'a';
-- @refuse missing unless changed 1
"""

[[scenarios]]
name = "bumps"
steps = [
  { start = "a", actor = "worker-a" },
  { call = "bump", process = "a", expect = { outcome = "ok" } },
  { query = "SELECT value FROM counters", rows = [[1]] },
]
"#;

fn error_for(text: &str) -> fencelab_core::LoadError {
    fencelab_core::exercise::load("tiny.toml", text).expect_err("the file should be rejected")
}

#[test]
fn a_good_file_loads_and_runs() {
    let exercise = fencelab_core::exercise::load("tiny.toml", GOOD).unwrap();
    assert_eq!(exercise.id, "tiny");
    let check = exercise.check();
    assert!(check.ok(), "{check:#?}");
}

#[test]
fn unknown_fields_are_rejected_with_their_line() {
    let error = error_for(&GOOD.replace("title = \"Tiny\"", "title = \"Tiny\"\ncolour = \"red\""));
    assert_eq!((error.file.as_str(), error.line), ("tiny.toml", 4));
    assert!(error.message.contains("colour"), "{error}");
}

#[test]
fn duplicate_scenario_names_are_rejected() {
    let twice = format!("{GOOD}\n{}", &GOOD[GOOD.find("[[scenarios]]").unwrap()..]);
    let error = error_for(&twice);
    assert_eq!(error.field, "scenarios[1].name");
    assert!(
        error.message.contains("a second scenario is named `bumps`"),
        "{error}"
    );
    assert!(error.line > 20, "{error}");
}

#[test]
fn a_broken_procedure_is_placed_at_its_line_in_the_file() {
    let error = error_for(&GOOD.replace(
        "-- @refuse missing unless changed 1",
        "-- @refuse missing unless changed one",
    ));
    assert_eq!(error.field, "procedures.bump.reference");
    assert_eq!(error.line, 15, "{error}");
    assert!(error.message.contains("not a row count"), "{error}");
}

#[test]
fn a_bad_step_names_its_scenario_and_step() {
    let error =
        error_for(&GOOD.replace("{ call = \"bump\", process = \"a\",", "{ call = \"bump\","));
    assert_eq!(error.field, "scenarios[0].steps[1]");
    assert!(error.message.contains("needs `process`"), "{error}");
}

#[test]
fn a_query_that_expects_no_rows_says_what_it_checks() {
    // Such a query is an invariant; its SQL is no sentence for a learner.
    let invariant = "{ query = \"SELECT value FROM counters WHERE value > 1\", rows = [] },";
    let bare = GOOD.replace(
        "  { query = \"SELECT value FROM counters\", rows = [[1]] },",
        &format!("  {invariant}"),
    );
    let error = error_for(&bare);
    assert_eq!(
        (error.field.as_str(), error.line),
        ("scenarios[0].steps[2]", 23)
    );
    assert!(error.message.contains("say in `checks`"), "{error}");
    let said = bare.replace(
        "rows = [] }",
        "rows = [], checks = \"the counter moves by one\" }",
    );
    let exercise = fencelab_core::exercise::load("tiny.toml", &said).unwrap();
    assert!(exercise.check().ok());
    let error = error_for(&said.replace(
        "{ call = \"bump\", process = \"a\",",
        "{ checks = \"x\", call = \"bump\", process = \"a\",",
    ));
    assert!(
        error.message.contains("`call` does not take checks"),
        "{error}"
    );
}

#[test]
fn unknown_procedures_and_versions_are_rejected() {
    let error = error_for(&GOOD.replace("{ call = \"bump\"", "{ call = \"bumpp\""));
    assert!(
        error.message.contains("no procedure named `bumpp`"),
        "{error}"
    );
    let error = error_for(&GOOD.replace("format = 1", "format = 2"));
    assert_eq!(error.field, "format");
    let error = error_for(&GOOD.replace("editable = true\n", ""));
    assert!(error.message.contains("editable"), "{error}");
}

#[test]
fn a_schema_that_fails_is_reported_on_the_schema_field() {
    let error = error_for(&GOOD.replace("INSERT INTO counters", "INSERT INTO nowhere"));
    assert_eq!(error.field, "schema");
    assert!(error.message.contains("no such table: nowhere"), "{error}");
    let error = error_for(&GOOD.replace(
        "CREATE TABLE counters",
        "ATTACH ':memory:' AS x; CREATE TABLE counters",
    ));
    assert_eq!(error.field, "schema");
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for text in ["", "format = ", "\u{0}\u{1}", "[[[", "format = 1\nid = 3"] {
        let error = error_for(text);
        assert_eq!(error.file, "tiny.toml");
    }
}
