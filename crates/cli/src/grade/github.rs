//! GitHub Actions: an `::error` workflow command per failing case and per
//! file that did not load, with the file and line where they are known, and
//! a Markdown summary for the job's page in $GITHUB_STEP_SUMMARY.
//!
//! "GitHub Actions are limited to 10 warning annotations and 10 error
//! annotations per step" (docs.github.com/en/rest/checks/runs, the
//! `annotations` parameter; actions/toolkit docs/problem-matchers.md), and
//! drops the rest without a word. So at most [`ERROR_ANNOTATIONS_MAX`]
//! errors are written, the first of each file before any file's second (a
//! class of forty fails each file once, not one file forty times), then one
//! `::notice` that counts the ones left out. The step summary lists every
//! one.
//!
//! Escaping follows @actions/toolkit's `command.ts`: in a message `%`, CR
//! and LF become `%25`, `%0D`, `%0A`; in a property also `:` and `,` become
//! `%3A` and `%2C`. Untrusted text (a learner's SQL in a message) therefore
//! cannot start a command of its own on a new line.

use super::{Document, Entry, Location, Status, qualified_name};
use std::fmt::Write;

/// Error annotations GitHub shows for one step.
pub const ERROR_ANNOTATIONS_MAX: usize = 10;

pub fn annotations(document: &Document) -> String {
    let per_file: Vec<Vec<String>> = document.entries.iter().map(entry_errors).collect();
    let total: usize = per_file.iter().map(Vec::len).sum();
    // Round by round: each file's first error, then each file's second, ...
    let mut shown = Vec::new();
    let mut round = 0;
    while shown.len() < total.min(ERROR_ANNOTATIONS_MAX) {
        shown.extend(per_file.iter().filter_map(|errors| errors.get(round)));
        round += 1;
    }
    shown.truncate(ERROR_ANNOTATIONS_MAX);
    let mut out: String = shown.iter().map(|line| format!("{line}\n")).collect();
    let left_out = total - shown.len();
    if left_out > 0 {
        let _ = writeln!(
            out,
            "::notice title={}::{}",
            property("fencelab: more cases did not pass"),
            data(&format!(
                "{left_out} more annotations than GitHub shows \
                 ({ERROR_ANNOTATIONS_MAX} a step): the job's summary lists every case \
                 that did not pass"
            ))
        );
    }
    out
}

/// One entry's error annotations: its load error, then each case that did
/// not pass, in the file's order.
fn entry_errors(entry: &Entry) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(problem) = &entry.error {
        let file = problem.file.clone().unwrap_or_else(|| entry.file.clone());
        let mut properties = format!("file={}", property(&file));
        if let Some(line) = problem.line {
            let _ = write!(properties, ",line={line}");
        }
        if let Some(column) = problem.column {
            let _ = write!(properties, ",col={column}");
        }
        out.push(format!(
            "::error {properties},title={}::{}",
            property(&format!("{} does not load", entry.file)),
            data(&problem.sentence())
        ));
    }
    // Cases that would say the same thing at the same place (every
    // scenario of a submission that cannot be read) are one annotation.
    let mut folded: Vec<(Location, &str, String, Vec<String>)> = Vec::new();
    for case in entry.cases.iter().filter(|c| !c.status.passed()) {
        let location = case.location.clone().unwrap_or(Location {
            file: entry.file.clone(),
            line: 1,
        });
        let mut message = case.message.clone().unwrap_or_default();
        if let Some(schedule) = &case.schedule {
            let _ = write!(message, "\nshortest failing schedule: {schedule}");
        }
        if let Some(link) = &case.link {
            let _ = write!(message, "\nopen the counterexample: {link}");
        }
        let verdict = if case.status == Status::Failed {
            "failed"
        } else {
            "error"
        };
        match folded
            .iter_mut()
            .find(|(at, said, text, _)| *at == location && *said == verdict && *text == message)
        {
            Some((.., names)) => names.push(case.name.clone()),
            None => folded.push((
                location,
                verdict,
                message,
                vec![qualified_name(entry, case)],
            )),
        }
    }
    for (location, verdict, message, names) in folded {
        out.push(format!(
            "::error file={},line={},title={}::{}",
            property(&location.file),
            location.line,
            property(&format!("{} ({verdict})", names.join(", "))),
            data(&message)
        ));
    }
    out
}

/// The Markdown the job's summary page shows: the counts, the score and a
/// row per case that did not pass, every one (annotations stop at
/// [`ERROR_ANNOTATIONS_MAX`]), with its sentence, schedule and link.
pub fn summary(document: &Document) -> String {
    let mut out = format!("### {}", document.summary_line());
    let unloadable = document
        .entries
        .iter()
        .filter(|e| e.error.is_some())
        .count();
    if unloadable > 0 {
        let _ = write!(out, "; {unloadable} file(s) did not load");
    }
    out.push_str("\n\n");
    let rows: Vec<String> = document
        .entries
        .iter()
        .flat_map(|entry| {
            let load = entry.error.as_ref().map(|problem| {
                format!(
                    "| {} | load | unloadable | {} |",
                    cell(&entry.file),
                    cell(&problem.sentence())
                )
            });
            let cases = entry
                .cases
                .iter()
                .filter(|c| !c.status.passed())
                .map(move |case| {
                    let mut message = case.message.clone().unwrap_or_default();
                    if let Some(schedule) = &case.schedule {
                        let _ = write!(message, "; shortest failing schedule: `{schedule}`");
                    }
                    if let Some(link) = &case.link {
                        let _ = write!(message, " ([open the counterexample]({link}))");
                    }
                    format!(
                        "| {} | {} | {} | {} |",
                        cell(entry.exercise.as_deref().unwrap_or(&entry.file)),
                        cell(&case.name),
                        case.status.word(),
                        cell(&message)
                    )
                });
            load.into_iter().chain(cases)
        })
        .collect();
    if rows.is_empty() {
        out.push_str("Every case passed.\n");
    } else {
        out.push_str("| exercise | case | status | why |\n| --- | --- | --- | --- |\n");
        for row in rows {
            out.push_str(&row);
            out.push('\n');
        }
    }
    out
}

/// Appends the summary to the file $GITHUB_STEP_SUMMARY names, when it is
/// set (GitHub sets it for every step); the job's page shows that file.
pub fn write_step_summary(document: &Document) -> Result<(), String> {
    use std::io::Write;
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") else {
        return Ok(());
    };
    let cannot = |e: std::io::Error| {
        format!(
            "{}: cannot write the step summary: {e}",
            std::path::Path::new(&path).display()
        )
    };
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .map_err(cannot)?;
    file.write_all(summary(document).as_bytes()).map_err(cannot)
}

fn data(raw: &str) -> String {
    raw.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn property(raw: &str) -> String {
    data(raw).replace(':', "%3A").replace(',', "%2C")
}

/// A Markdown table cell: one line, its pipes escaped.
fn cell(raw: &str) -> String {
    raw.replace('|', "\\|").replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_cannot_start_a_command_of_its_own() {
        assert_eq!(data("50%\n::error::x"), "50%25%0A::error::x");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
