//! Exercism's results.json, version 3 (exercism/docs,
//! building/tooling/test-runners/interface.md): `version`, `status`
//! (`pass`, `fail`, or `error` when no test could run), a top-level
//! `message` only with `error`, and `tests` in the order of the exercise
//! file, each with `name`, `status` (`pass`, `fail`, `error`), `message`
//! for a failed or errored test, `test_code` and at most 500 characters of
//! `output`.

use super::{CaseKind, Document, Status, qualified_name};
use serde::Serialize;

/// The interface's limit on a test's `output`.
const OUTPUT_CHARS_MAX: usize = 500;
const TRUNCATED: &str = "\nOutput was truncated. Please limit to 500 chars";

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
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
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
            let message = (!case.status.passed()).then(|| {
                let mut message = case.message.clone().unwrap_or_default();
                if let Some(schedule) = &case.schedule {
                    message.push_str(&format!("\nshortest failing schedule: {schedule}"));
                }
                if let Some(link) = &case.link {
                    message.push_str(&format!("\nopen the counterexample: {link}"));
                }
                message
            });
            let output = case.history.as_ref().map(|history| {
                let lines: Vec<String> = history
                    .iter()
                    .map(|line| {
                        let who = line.process.as_deref().unwrap_or("");
                        format!("t={} {who} {}", line.clock_seconds, line.event)
                    })
                    .collect();
                limited(&lines.join("\n"))
            });
            let test_code = match case.kind {
                CaseKind::Scenario => format!("scenario `{}`", case.name),
                CaseKind::BrokenVariant | CaseKind::Equivalent => case.name.clone(),
            };
            tests.push(Test {
                name: qualified_name(entry, case),
                status,
                message,
                output,
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

/// `text` cut to the interface's limit, saying so when it was cut.
fn limited(text: &str) -> String {
    if text.chars().count() <= OUTPUT_CHARS_MAX {
        return text.to_string();
    }
    let keep = OUTPUT_CHARS_MAX - TRUNCATED.chars().count();
    let mut out: String = text.chars().take(keep).collect();
    out.push_str(TRUNCATED);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_cut_to_500_characters_and_says_so() {
        let long = "é".repeat(800);
        let cut = limited(&long);
        assert_eq!(cut.chars().count(), OUTPUT_CHARS_MAX);
        assert!(cut.ends_with("Please limit to 500 chars"));
        assert_eq!(limited("short"), "short");
    }
}
