//! A submission that cannot be graded still gives the grader a document
//! (issue 51, "A missing or misnamed submission leaves the grader
//! empty-handed"): for each way a `--set` file can be unusable, every
//! grader format holds every scenario as errored, with a message that names
//! the file and says what to do, and the command exits 2. Each document is
//! read as its consumer reads it: JSON through serde_json, Gradescope's
//! Markdown through a CommonMark parser, JUnit XML through python3's
//! ElementTree (tests/data/read_junit.py), GitHub's workflow commands line
//! by line.
//!
//! fencelab runs in the submission's folder with `--set claim=claim.sql`,
//! as the walkthroughs' scripts run it (docs/graders/), so the messages
//! name the file as the learner knows it.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{EXERCISE, Submission, assert_says, spawn_fencelab_in, text};

const FORMATS: [&str; 6] = ["json", "junit", "gradescope", "exercism", "github", "text"];

/// The exercise's scenarios, in its file's order.
const SCENARIOS: [&str; 3] = [
    "one winner",
    "first come, first served",
    "each claim takes one message",
];

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fencelab-submissions-")
        .tempdir()
        .expect("a scratch folder")
}

/// `fencelab run EXERCISE --set claim=claim.sql --format F` in `folder`,
/// for every format at once.
fn run_every_format(folder: &Path) -> Vec<(&'static str, Output)> {
    let children: Vec<_> = FORMATS
        .iter()
        .map(|format| {
            let args = [
                "run",
                EXERCISE,
                "--set",
                "claim=claim.sql",
                "--format",
                format,
            ];
            (*format, spawn_fencelab_in(folder, &args))
        })
        .collect();
    children
        .into_iter()
        .map(|(format, child)| (format, child.wait_with_output().expect("fencelab ends")))
        .collect()
}

/// Checks what every format says about the submission in `folder`, whose
/// messages must each contain every one of `says`.
fn check_every_format(folder: &Path, says: &dyn Fn(&str)) {
    for (format, output) in run_every_format(folder) {
        let stderr = text(&output.stderr);
        match format {
            "text" => assert_eq!(text(&output.stdout), "", "text prints no report"),
            "json" => json_document(&output, says),
            "junit" => junit_report(&output, says),
            "gradescope" => gradescope_results(&output, says),
            "exercism" => exercism_results(&output, says),
            "github" => github_commands(&output, says),
            _ => unreachable!("{format}"),
        }
        assert_eq!(output.status.code(), Some(2), "{format}: {stderr}");
        // Standard error says it, as for any bad input.
        says(&stderr);
    }
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&output.stdout)))
}

fn json_document(output: &Output, says: &dyn Fn(&str)) {
    let document = json(output);
    assert_eq!(document["counts"]["errored"], 3, "{document}");
    assert_eq!(document["counts"]["total"], 3, "{document}");
    assert_eq!(document["score"]["points"], 0);
    assert_eq!(document["score"]["max"], 3);
    let cases = document["entries"][0]["cases"].as_array().unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, SCENARIOS);
    for case in cases {
        assert_eq!(case["status"], "errored", "{case}");
        assert_eq!(case["location"]["file"], "claim.sql", "{case}");
        says(case["message"].as_str().unwrap());
    }
}

fn junit_report(output: &Output, says: &dyn Fn(&str)) {
    let report = common::read_junit(&output.stdout);
    let cases = report["cases"].as_array().unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, SCENARIOS);
    for case in cases {
        assert_eq!(case["outcome"]["kind"], "error", "{case}");
        says(case["outcome"]["text"].as_str().unwrap());
    }
}

fn gradescope_results(output: &Output, says: &dyn Fn(&str)) {
    let results = json(output);
    assert_eq!(results["score"], 0, "{results}");
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3, "{results}");
    for (test, scenario) in tests.iter().zip(SCENARIOS) {
        assert_eq!(test["name"], format!("{EXERCISE}: {scenario}"));
        assert_eq!(test["status"], "failed", "{test}");
        assert_eq!(test["score"], 0);
        assert_eq!(test["max_score"], 1);
        assert_eq!(test["output_format"], "md");
        says(&common::markdown_text(test["output"].as_str().unwrap()));
    }
}

fn exercism_results(output: &Output, says: &dyn Fn(&str)) {
    // exercism.org/docs/building/tooling/test-runners/interface: "error: No
    // test was executed"; "Where the status is error [...] the top level
    // message key should be provided".
    let results = json(output);
    assert_eq!(results["version"], 3);
    assert_eq!(results["status"], "error", "{results}");
    says(results["message"].as_str().expect("a top-level message"));
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3, "{results}");
    for test in tests {
        assert_eq!(test["status"], "error", "{test}");
        assert!(test.get("output").is_none(), "{test}");
        assert!(test["test_code"].as_str().unwrap().starts_with("steps = ["));
        says(test["message"].as_str().unwrap());
    }
}

/// A workflow command's data as the runner reads it back.
fn unescaped(data: &str) -> String {
    data.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

fn github_commands(output: &Output, says: &dyn Fn(&str)) {
    let out = text(&output.stdout);
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    // The three scenarios say one thing at one place: one annotation,
    // titled with all three, not three copies of it.
    assert_eq!(errors.len(), 1, "{out}");
    for line in errors {
        assert!(
            line.starts_with("::error file=claim.sql,line=1,title="),
            "{line}"
        );
        assert!(
            line.contains(
                "one winner%2C first come%2C first served%2C each claim takes one message (error)"
            ),
            "{line}"
        );
        let (_, data) = line[2..].split_once("::").expect("a message");
        says(&unescaped(data));
    }
    // The text report, for the log, says it too.
    says(&out);
}

/// Lays out `submission` in a fresh folder and checks every format on it.
fn check(submission: Submission) {
    let dir = scratch();
    submission.lay_out(dir.path());
    check_every_format(dir.path(), &|message| assert_says(submission, message));
}

#[test]
fn a_missing_file_is_every_test_errored_saying_what_to_name_it() {
    check(Submission::Missing);
}

#[test]
fn a_file_named_in_other_cases_is_named_with_what_to_rename_it_to() {
    check(Submission::Misnamed);
}

#[test]
fn the_folders_one_other_sql_file_is_named_with_what_to_rename_it_to() {
    check(Submission::OtherName);
}

#[test]
fn an_empty_file_is_said_to_be_empty() {
    check(Submission::Empty);
}

#[test]
fn a_file_that_is_not_utf8_is_said_not_to_be_text() {
    check(Submission::NotUtf8);
}

#[test]
fn a_file_with_a_nul_is_said_not_to_be_text() {
    check(Submission::Nul);
}

#[test]
fn a_megabyte_file_is_said_to_be_too_large() {
    check(Submission::Large);
}

#[test]
fn a_directory_is_said_not_to_be_a_file() {
    check(Submission::Directory);
}

#[test]
fn a_fifo_nobody_writes_to_is_said_to_be_silent() {
    // Every format at once: each waits files::PIPE_SILENCE_MS_MAX (10 s).
    let dir = scratch();
    let made = Command::new("mkfifo")
        .arg(dir.path().join("claim.sql"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    check_every_format(dir.path(), &|message| {
        for fragment in [
            "claim.sql: is a FIFO, and nothing was written to it for 10 s",
            "as a text file named `claim.sql`",
        ] {
            assert!(message.contains(fragment), "`{fragment}` not in: {message}");
        }
    });
}
