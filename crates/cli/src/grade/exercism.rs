//! Exercism's results.json, version 3
//! (https://exercism.org/docs/building/tooling/test-runners/interface):
//! `version`, `status` (`pass`, `fail`, or `error` when no test could run),
//! a top-level `message` only with `error`, and `tests` in the order of the
//! exercise file, each with `name`, `status` (`pass`, `fail`, `error`),
//! `message` and `test_code`.
//!
//! A test's `message` is everything the runner has to say about it ("used
//! to return the results of a failed test", "not limited in length"): the
//! failure's sentence, the schedule, the link and the counterexample's
//! events. `output` is for "content outputted by a user manually", "not
//! automatic output by the test-runner", capped at 500 characters; a
//! procedure prints nothing, so no test has one. `test_code` ("the body of
//! the command that is being tested") is a scenario's steps as its file
//! writes them.

use super::{Case, CaseKind, Document, Status, qualified_name};
use serde::Serialize;
use std::fmt::Write;

#[derive(Serialize)]
struct Results {
    version: u32,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    test_code: String,
}

pub fn render(document: &Document) -> String {
    let mut tests = Vec::new();
    for entry in &document.entries {
        for case in &entry.cases {
            let status = match case.status {
                Status::Passed | Status::LimitShown => "pass",
                Status::Failed => "fail",
                Status::Errored => "error",
            };
            let message = (!case.status.passed()).then(|| message(case));
            let test_code = match (case.kind, &case.steps) {
                (CaseKind::Scenario, Some(steps)) => steps.clone(),
                _ => case.name.clone(),
            };
            tests.push(Test {
                name: qualified_name(entry, case),
                status,
                message,
                test_code,
            });
        }
    }
    let problems: Vec<String> = document
        .entries
        .iter()
        .filter_map(|e| e.error.as_ref().map(|p| p.sentence()))
        .collect();
    let nothing_ran = tests.iter().all(|t| t.status == "error");
    let (status, message) = if !problems.is_empty() || nothing_ran {
        let mut sentences = problems;
        if sentences.is_empty() {
            sentences.extend(tests.iter().filter_map(|t| t.message.clone()).take(1));
        }
        ("error", Some(sentences.join("\n")))
    } else if document.passed() {
        ("pass", None)
    } else {
        ("fail", None)
    };
    let results = Results {
        version: 3,
        status,
        message,
        tests,
    };
    serde_json::to_string_pretty(&results).expect("results of strings and numbers are JSON")
}

/// What a test that did not pass says: its sentence, the shortest failing
/// schedule, the link, then the counterexample's events, one a line.
fn message(case: &Case) -> String {
    let mut message = case.message.clone().unwrap_or_default();
    if let Some(schedule) = &case.schedule {
        let _ = write!(message, "\nshortest failing schedule: {schedule}");
    }
    if let Some(link) = &case.link {
        let _ = write!(message, "\nopen the counterexample: {link}");
    }
    if let Some(history) = case.history.as_ref().filter(|h| !h.is_empty()) {
        message.push_str("\n\ncounterexample:");
        for line in history {
            let who = line.process.as_deref().unwrap_or("");
            let flag = if line.flagged { ">> " } else { "" };
            let _ = write!(
                message,
                "\n{flag}t={} {who} {}",
                line.clock_seconds, line.event
            );
        }
    }
    message
}
