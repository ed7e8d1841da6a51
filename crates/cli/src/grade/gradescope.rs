//! Gradescope's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/,
//! "Autograder Specifications"): a top-level `score`, `execution_time`
//! (seconds), `output` and `visibility`, and one test per case with its
//! `name`, `score`, `max_score`, `status` (`passed` or `failed`, the only
//! two it knows: an errored case is failed), `output` and `output_format`.
//! A file that did not load is a failed test worth nothing, so the student
//! sees why.
//!
//! A test's output is Markdown (`"output_format": "md"`, which "will
//! render some basic Markdown"): Gradescope shows the default, `text`, with
//! "No HTML, Markdown, or ANSI" rendered, so a counterexample's link would
//! not be one to click. Every sentence is escaped where Markdown would read
//! it, so a learner's text shows as written.

use super::{Case, Document, case_summary, qualified_name};
use serde::Serialize;
use std::fmt::Write;

#[derive(Serialize)]
struct Results {
    score: u64,
    execution_time: f64,
    output: String,
    /// Said, not left to the default, so the file shows what a student
    /// sees: every test, as soon as it is graded.
    visibility: &'static str,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    score: u64,
    max_score: u64,
    status: &'static str,
    output: String,
    output_format: &'static str,
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
                output: markdown_text(&problem.sentence()),
                output_format: "md",
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
                output: markdown(case),
                output_format: "md",
            });
        }
    }
    let results = Results {
        score: document.score.points,
        // Milliseconds are as fine as a person reads a grader's time.
        execution_time: (document.seconds * 1000.0).round() / 1000.0,
        output: document.summary_line(),
        visibility: "visible",
        tests,
    };
    serde_json::to_string_pretty(&results).expect("results of strings and numbers are JSON")
}

/// A case as Markdown: its summary, its sentence, the schedule as code and
/// the counterexample as a link, each a paragraph of its own.
fn markdown(case: &Case) -> String {
    let mut out = markdown_text(&case_summary(case));
    if let Some(message) = &case.message {
        let _ = write!(out, "\n\n{}", markdown_text(message));
    }
    if let Some(schedule) = &case.schedule {
        let _ = write!(out, "\n\nshortest failing schedule: `{schedule}`");
    }
    if let Some(link) = &case.link {
        // The angle brackets let the address hold what a bare destination
        // cannot (spaces, parentheses); a share link holds neither bracket.
        let _ = write!(out, "\n\n[open the counterexample](<{link}>)");
    }
    out
}

/// `raw` as Markdown that renders as `raw`: every character CommonMark may
/// read as markup backslash-escaped, line breaks kept as hard breaks.
fn markdown_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '\n' => out.push_str("\\\n"),
            '\r' => {}
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_a_sentence_is_escaped() {
        assert_eq!(markdown_text("a *b* [c](d)"), "a \\*b\\* \\[c\\]\\(d\\)");
        assert_eq!(markdown_text("one\ntwo"), "one\\\ntwo");
    }
}
