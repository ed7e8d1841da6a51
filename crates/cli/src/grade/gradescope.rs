//! Gradescope's results.json (gradescope-autograders.readthedocs.io,
//! "Autograder Specifications"): a top-level `score` and `output`, and one
//! test per case with its `name`, `score`, `max_score`, `status` (`passed`
//! or `failed`, the only two it knows: an errored case is failed) and
//! `output`. A file that did not load is a failed test worth nothing, so
//! the student sees why.

use super::{Document, case_details, qualified_name};
use serde::Serialize;

#[derive(Serialize)]
struct Results {
    score: u64,
    output: String,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    score: u64,
    max_score: u64,
    status: &'static str,
    output: String,
}

pub fn render(document: &Document) -> String {
    let mut tests = Vec::new();
    for entry in &document.entries {
        if let Some(problem) = &entry.error {
            tests.push(Test {
                name: format!("{}: load", entry.file),
                score: 0,
                max_score: 0,
                status: "failed",
                output: problem.sentence(),
            });
        }
        for case in &entry.cases {
            tests.push(Test {
                name: qualified_name(entry, case),
                score: case.points,
                max_score: case.max_points,
                status: if case.status.passed() {
                    "passed"
                } else {
                    "failed"
                },
                output: case_details(case),
            });
        }
    }
    let results = Results {
        score: document.score.points,
        output: document.summary_line(),
        tests,
    };
    serde_json::to_string_pretty(&results).expect("results of strings and numbers are JSON")
}
