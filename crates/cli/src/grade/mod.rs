//! Grading output: what `fencelab check` and `fencelab run` found, as test
//! cases a grader or a CI job reads (`--format`), with points.
//!
//! One case per scenario, per broken variant (`check`) and per
//! `[[equivalent]]` declaration (`check`); one entry per exercise file,
//! including a file that fails to load. The [`Document`] is the JSON
//! contract docs/GRADING.md describes: it is built from these types of the
//! CLI's own, never from the engine's serde derives, so the engine may
//! change its reports without changing what graders read. Every other
//! format (JUnit XML, Gradescope, Exercism, GitHub annotations) is rendered
//! from the same document.
//!
//! Must never: compute a verdict. Statuses, sentences and schedules are the
//! core's; this module only names and counts them.

//!
//! `contract.rs` holds the document's types, `entries.rs` builds its
//! entries, and this file and one file per format render it.

mod contract;
mod entries;
mod exercism;
mod github;
mod gradescope;
mod junit;

pub use contract::{
    Case, CaseKind, Counts, Document, Entry, EntryStatus, Exploration, HistoryLine, Location,
    Problem, Score, Status,
};
pub use entries::{CheckSeconds, History, Options, Source, scenario_locations};
pub use github::write_step_summary;

/// How a command prints what it found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines for a terminal (the default).
    Text,
    /// One JSON document, docs/GRADING.md's contract.
    Json,
    /// JUnit XML: one testsuite per exercise, one testcase per case.
    Junit,
    /// Gradescope's results.json.
    Gradescope,
    /// Exercism's results.json, version 3.
    Exercism,
    /// The text report, then a GitHub Actions `::error` line per failing
    /// case, and a Markdown summary appended to $GITHUB_STEP_SUMMARY.
    Github,
}

impl Format {
    /// Whether the text report is printed (alone, or before annotations).
    pub fn prints_text(self) -> bool {
        matches!(self, Format::Text | Format::Github)
    }

    /// Whether the document is JSON, whose hidden characters are written
    /// out as JSON's own escapes so that it stays valid.
    pub fn is_json(self) -> bool {
        matches!(self, Format::Json | Format::Gradescope | Format::Exercism)
    }
}

impl Document {
    /// The document in `format`; `None` for the text format, which the
    /// command prints itself.
    pub fn render(&self, format: Format) -> Option<String> {
        match format {
            Format::Text | Format::Github => None,
            Format::Json => Some(
                serde_json::to_string_pretty(self)
                    .expect("a document of strings and numbers is JSON"),
            ),
            Format::Junit => Some(junit::render(self)),
            Format::Gradescope => Some(gradescope::render(self)),
            Format::Exercism => Some(exercism::render(self)),
        }
    }

    /// The GitHub Actions annotations of the failing cases, one per line.
    pub fn annotations(&self) -> String {
        github::annotations(self)
    }
}

/// A case's title in a grader that lists every exercise's cases together.
fn qualified_name(entry: &Entry, case: &Case) -> String {
    let exercise = entry.exercise.as_deref().unwrap_or(&entry.file);
    format!("{exercise}: {}", case.name)
}

/// A case's verdict, kind and points: `failed (scenario, 0/1 points)`.
fn case_summary(case: &Case) -> String {
    format!(
        "{} ({}, {}/{} points)",
        case.status.word(),
        case.kind.word(),
        case.points,
        case.max_points
    )
}

/// What a grader shows under a case: its sentence, schedule and link.
fn case_details(case: &Case) -> String {
    let mut out = case_summary(case);
    if let Some(message) = &case.message {
        out.push_str(&format!("\n{message}"));
    }
    if let Some(schedule) = &case.schedule {
        out.push_str(&format!("\nshortest failing schedule: {schedule}"));
    }
    if let Some(link) = &case.link {
        out.push_str(&format!("\nopen the counterexample: {link}"));
    }
    out
}
