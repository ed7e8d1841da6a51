//! docs/graders/exercism/ run as Exercism runs a test runner (issue 51, item
//! 3: "Exercism: a test runner that follows interface v3 (status `error`
//! with a message for a missing file)").
//!
//! "The Test Runner Interface"
//! (https://exercism.org/docs/building/tooling/test-runners/interface):
//! the script receives the slug, "a path to an input directory (with a
//! trailing slash)" and "a path to an output directory (with a trailing
//! slash)"; it "must write a results.json file to the output directory"
//! and "must exit with an exit code of 0 if it has run successfully,
//! regardless of the status of the tests". Each results.json is checked
//! against the interface's fields as the website reads them.
//!
//! fencelab comes from the release archive (`common::release_tarball`),
//! unpacked and put on PATH, as the runner's image would install it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{EXERCISE, RELEASE_NAME, Submission, assert_says, release_tarball, text};

fn run_sh() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/graders/exercism/bin/run.sh"
    ))
}

/// A scratch folder with fencelab unpacked from the release archive.
struct Runner {
    scratch: tempfile::TempDir,
    path: String,
}

impl Runner {
    fn new() -> Runner {
        let scratch = tempfile::Builder::new()
            .prefix("fencelab-exercism-")
            .tempdir()
            .expect("a scratch folder");
        let packing = scratch.path().join("packing");
        let installed = scratch.path().join("installed");
        for folder in [&packing, &installed] {
            std::fs::create_dir_all(folder).expect("a scratch folder");
        }
        let archive = release_tarball(&packing);
        let unpacked = Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(&installed)
            .status()
            .expect("tar runs");
        assert!(unpacked.success());
        let path = format!("{}:/usr/bin:/bin", installed.join(RELEASE_NAME).display());
        Runner { scratch, path }
    }

    /// `bin/run.sh SLUG INPUT/ OUTPUT/` on `submission`, and the
    /// results.json it wrote.
    fn run(&self, slug: &str, submission: Submission) -> (Output, Value) {
        let name = format!("{submission:?}-{slug}").to_lowercase();
        let input = self.scratch.path().join(&name).join("input");
        let output = self.scratch.path().join(&name).join("output");
        std::fs::create_dir_all(&input).unwrap();
        std::fs::create_dir_all(&output).unwrap();
        submission.lay_out(&input);
        let ran = Command::new("bash")
            .arg(run_sh())
            .arg(slug)
            .arg(with_slash(&input))
            .arg(with_slash(&output))
            .env("PATH", &self.path)
            .output()
            .expect("bash runs");
        let written = std::fs::read_to_string(output.join("results.json"))
            .unwrap_or_else(|e| panic!("{name}: no results.json ({e}): {}", text(&ran.stderr)));
        let results = serde_json::from_str(&written)
            .unwrap_or_else(|e| panic!("{name}: results.json is not JSON ({e}): {written}"));
        (ran, results)
    }
}

fn with_slash(path: &Path) -> String {
    format!("{}/", path.display())
}

/// Checks `results` against the interface's fields, and returns its status.
fn v3(results: &Value) -> &str {
    let top = results.as_object().expect("an object");
    for key in top.keys() {
        assert!(
            ["version", "status", "message", "tests"].contains(&key.as_str()),
            "`{key}` is not a top-level field: {results}"
        );
    }
    // "version [...] 3: For tracks which test runner can link individual
    // tests to a task."
    assert_eq!(results["version"], 3);
    // "pass: All tests passed"; "fail: At least one test has the status
    // fail or error"; "error: No test was executed".
    let status = results["status"].as_str().expect("a status");
    assert!(["pass", "fail", "error"].contains(&status), "{status}");
    // "message [...] presence: required if status = error"; "When the
    // status is not error, either set the value to null or omit the key".
    match results.get("message") {
        Some(Value::String(message)) => {
            assert_eq!(status, "error", "{results}");
            assert!(!message.is_empty());
        }
        Some(Value::Null) | None => assert_ne!(status, "error", "{results}"),
        Some(other) => panic!("message is not a string: {other}"),
    }
    let tests = results["tests"].as_array().expect("tests");
    for test in tests {
        for key in test.as_object().expect("a test").keys() {
            assert!(
                [
                    "name",
                    "status",
                    "message",
                    "output",
                    "test_code",
                    "task_id"
                ]
                .contains(&key.as_str()),
                "`{key}` is not a test's field: {test}"
            );
        }
        assert!(test["name"].is_string(), "{test}");
        assert!(test["test_code"].is_string(), "{test}");
        let test_status = test["status"].as_str().expect("a test's status");
        assert!(["pass", "fail", "error"].contains(&test_status), "{test}");
        assert!(test.get("message").is_none_or(Value::is_string), "{test}");
        // "The output must be limited to 500 chars."
        if let Some(output) = test.get("output") {
            assert!(output.as_str().unwrap().chars().count() <= 500, "{test}");
        }
    }
    let statuses: Vec<&str> = tests
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    let expected = if statuses.iter().all(|s| *s == "pass") && !statuses.is_empty() {
        "pass"
    } else if statuses.iter().all(|s| *s == "error") {
        "error"
    } else {
        "fail"
    };
    assert_eq!(status, expected, "{results}");
    status
}

fn names(results: &Value) -> Vec<String> {
    results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

const SCENARIOS: [&str; 3] = [
    "one winner",
    "first come, first served",
    "each claim takes one message",
];

#[test]
fn every_solution_gets_a_version_3_results_json_and_exit_0() {
    let runner = Runner::new();
    let expected: Vec<String> = SCENARIOS
        .iter()
        .map(|s| format!("{EXERCISE}: {s}"))
        .collect();

    let (ran, passing) = runner.run(EXERCISE, Submission::Correct);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    assert_eq!(v3(&passing), "pass");
    assert_eq!(names(&passing), expected);

    let (ran, failing) = runner.run(EXERCISE, Submission::Wrong);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    assert_eq!(v3(&failing), "fail");
    assert_eq!(names(&failing), expected);
    assert_eq!(failing["tests"][0]["status"], "fail");
    let message = failing["tests"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("shortest failing schedule: a a b a b b"),
        "{message}"
    );

    for submission in Submission::UNUSABLE {
        let (ran, errored) = runner.run(EXERCISE, submission);
        assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
        assert_eq!(v3(&errored), "error", "{submission:?}");
        assert_says(submission, errored["message"].as_str().unwrap());
        // The message names the file as the learner knows it, not the
        // runner's folders ("<solution-dir>/relative/path").
        let input = runner.scratch.path().display().to_string();
        assert!(!errored.to_string().contains(&input), "{errored}");
        assert_eq!(names(&errored), expected);
        for test in errored["tests"].as_array().unwrap() {
            assert_says(submission, test["message"].as_str().unwrap());
        }
    }
}

#[test]
fn a_slug_the_runner_does_not_know_is_an_error_that_names_it() {
    let runner = Runner::new();
    let (ran, results) = runner.run("no-such-exercise", Submission::Correct);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    assert_eq!(v3(&results), "error");
    let message = results["message"].as_str().unwrap();
    assert!(message.contains("`no-such-exercise`"), "{message}");
}

#[test]
fn every_bundled_exercise_is_in_the_runners_table_with_its_procedures() {
    let table = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/graders/exercism/exercises.txt"
    ))
    .unwrap();
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect())
        .collect();
    let exercises = fencelab_core::bundled::exercises().unwrap();
    assert_eq!(rows.len(), exercises.len(), "{table}");
    for exercise in &exercises {
        let row = rows
            .iter()
            .find(|row| row[1] == exercise.id)
            .unwrap_or_else(|| panic!("{} is not in exercises.txt", exercise.id));
        assert_eq!(row[0], exercise.id, "the slug is the id");
        let mut listed: Vec<&str> = row[2..].to_vec();
        let mut editable: Vec<&str> = exercise
            .procedures
            .iter()
            .filter(|p| p.editable)
            .map(|p| p.name.as_str())
            .collect();
        listed.sort_unstable();
        editable.sort_unstable();
        assert_eq!(listed, editable, "{}", exercise.id);
    }
}
