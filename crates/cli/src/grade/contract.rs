//! The grading document's types: docs/GRADING.md's JSON contract, of the
//! CLI's own (never the engine's serde derives), and the counts and points
//! a document sums from its entries.

use fencelab_core::Verdict;
use fencelab_model::exercise::LoadError;
use serde::Serialize;

/// The version of the JSON document's shape; a change a reader could
/// notice (a field renamed, removed or given another meaning) raises it.
pub const FORMAT_VERSION: u32 = 1;

/// Everything a command found, in the order it was asked for.
#[derive(Debug, Serialize)]
pub struct Document {
    pub format_version: u32,
    /// `check` or `run`.
    pub command: &'static str,
    pub counts: Counts,
    pub score: Score,
    pub entries: Vec<Entry>,
    /// How long the command took to judge them, in seconds, as its caller
    /// measured it (this module reads no clock). Not in the JSON document,
    /// which stays the same from one run to the next.
    #[serde(skip)]
    pub seconds: f64,
}

/// How many cases came to what; `total` is their sum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub limit_shown: usize,
    pub total: usize,
}

impl Counts {
    pub(super) fn add(&mut self, status: Status) {
        match status {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed += 1,
            Status::Errored => self.errored += 1,
            Status::LimitShown => self.limit_shown += 1,
        }
        self.total += 1;
    }

    fn plus(self, other: Counts) -> Counts {
        Counts {
            passed: self.passed + other.passed,
            failed: self.failed + other.failed,
            errored: self.errored + other.errored,
            limit_shown: self.limit_shown + other.limit_shown,
            total: self.total + other.total,
        }
    }
}

/// Points awarded of points possible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Score {
    pub points: u64,
    pub max: u64,
}

impl Score {
    fn plus(self, other: Score) -> Score {
        Score {
            points: self.points + other.points,
            max: self.max + other.max,
        }
    }
}

/// One exercise file (or bundled exercise) and its cases.
#[derive(Debug, Serialize)]
pub struct Entry {
    /// The file as it was named (a bundled exercise: its path in the
    /// fencelab repository).
    pub file: String,
    /// The exercise's id and title; absent when the file did not load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exercise: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub status: EntryStatus,
    /// Why the file did not load, and where.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Problem>,
    pub counts: Counts,
    pub score: Score,
    pub cases: Vec<Case>,
    /// Seconds spent judging the file's cases (see [`Document::seconds`]).
    #[serde(skip)]
    pub seconds: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryStatus {
    /// Every case passed (or showed its limit).
    Passed,
    /// A case failed or errored.
    Failed,
    /// The file could not be read or loaded: bad input.
    Unloadable,
}

/// A problem with an input file, at a place when one is known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The field at fault, such as `scenarios[2].steps[1]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl Problem {
    /// A problem without a place (a file that cannot be read).
    pub fn unplaced(message: String) -> Problem {
        Problem {
            message,
            file: None,
            line: None,
            column: None,
            field: None,
        }
    }

    /// The loader's error, with its file, line, column and field.
    pub fn of_load_error(error: &LoadError) -> Problem {
        Problem {
            message: error.message.clone(),
            file: Some(error.file.clone()),
            line: Some(error.line),
            column: Some(error.column),
            field: Some(error.field.clone()),
        }
    }

    /// The one-line form stderr shows: `file:line:column: field: message`.
    pub fn sentence(&self) -> String {
        match (&self.file, self.line, self.column, &self.field) {
            (Some(file), Some(line), Some(column), Some(field)) => {
                format!("{file}:{line}:{column}: {field}: {}", self.message)
            }
            _ => self.message.clone(),
        }
    }
}

/// One test case.
#[derive(Debug, Serialize)]
pub struct Case {
    pub name: String,
    pub kind: CaseKind,
    pub status: Status,
    /// Points awarded: `max_points` when the case passed, else 0.
    pub points: u64,
    pub max_points: u64,
    /// The failure's or the error's sentence, or what a passing case found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The shortest failing schedule, for a failed scenario with a
    /// concurrent step (one without runs in its one order only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// A link that opens the counterexample in the page (`--site URL`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Where to look: the case's declaration in its file, or for an error in
    /// a procedure text given with `--set`, that file and line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The shown schedule's events, one line each (see `--history`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<HistoryLine>>,
    /// What the search did (`explore` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exploration: Option<Exploration>,
    /// A scenario's steps as its file writes them (TOML): the test's code,
    /// for a grader that shows it. Not in the JSON document.
    #[serde(skip)]
    pub steps: Option<String>,
    /// Seconds spent judging the case (see [`Entry::with_check_seconds`]).
    #[serde(skip)]
    pub seconds: f64,
}

/// A scenario's search, as `fencelab explore` prints it: how many
/// interleavings it ran and cut, and what it spent in the units its limits
/// are set in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exploration {
    pub sections: u32,
    pub schedules: u64,
    pub pruned: u64,
    pub states: u64,
    pub procedure_steps: u64,
    pub sqlite_steps: u64,
    pub memory_bytes: u64,
    /// A random search's seed (`explore --random N --seed S` replays it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseKind {
    /// A scenario, run against the reference (`check`) or the given texts (`run`).
    Scenario,
    /// A named broken variant (`[[mutants]]`), which some scenario must catch.
    BrokenVariant,
    /// An `[[equivalent]]` declaration, which must name a generated mutant.
    Equivalent,
}

impl CaseKind {
    pub(super) fn word(self) -> &'static str {
        match self {
            CaseKind::Scenario => "scenario",
            CaseKind::BrokenVariant => "broken variant",
            CaseKind::Equivalent => "equivalent",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Passed,
    Failed,
    /// Could not be judged (an SQL error, an exploration limit): never a pass.
    Errored,
    /// A `limit` scenario whose expectations held: a pass.
    LimitShown,
}

impl Status {
    pub fn passed(self) -> bool {
        matches!(self, Status::Passed | Status::LimitShown)
    }

    pub(super) fn of(verdict: Verdict) -> Status {
        match verdict {
            Verdict::Passed => Status::Passed,
            Verdict::Failed => Status::Failed,
            Verdict::Error => Status::Errored,
            Verdict::LimitShown => Status::LimitShown,
        }
    }

    pub(super) fn word(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Errored => "error",
            Status::LimitShown => "limit shown",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    pub file: String,
    pub line: usize,
}

/// One event of a shown schedule.
#[derive(Debug, Serialize)]
pub struct HistoryLine {
    pub index: usize,
    pub clock_seconds: i64,
    /// The scenario's name for the process that acted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    /// The event in words, as the text report prints it.
    pub event: String,
    /// The event after which the failure was seen.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flagged: bool,
}

impl Document {
    pub fn new(command: &'static str, entries: Vec<Entry>) -> Document {
        Document {
            format_version: FORMAT_VERSION,
            command,
            counts: entries
                .iter()
                .fold(Counts::default(), |sum, e| sum.plus(e.counts)),
            score: entries
                .iter()
                .fold(Score::default(), |sum, e| sum.plus(e.score)),
            entries,
            seconds: 0.0,
        }
    }

    /// The document, saying it took `seconds` in all.
    pub fn timed(self, seconds: f64) -> Document {
        Document { seconds, ..self }
    }

    /// Whether a file could not be read or loaded.
    pub fn unloadable(&self) -> bool {
        self.entries
            .iter()
            .any(|e| e.status == EntryStatus::Unloadable)
    }

    /// Whether every case passed.
    pub fn passed(&self) -> bool {
        self.counts.failed == 0 && self.counts.errored == 0
    }

    /// `fencelab run: 2 of 3 points; 2 passed, 1 failed, 0 errored, 0 limit
    /// shown, 3 in all`: the one-line summary a grader shows.
    pub fn summary_line(&self) -> String {
        let c = self.counts;
        format!(
            "fencelab {}: {} of {} points; {} passed, {} failed, {} errored, {} limit shown, {} in all",
            self.command,
            self.score.points,
            self.score.max,
            c.passed,
            c.failed,
            c.errored,
            c.limit_shown,
            c.total
        )
    }

    /// `score S/M`, the line `--points` prints.
    pub fn score_line(&self) -> String {
        format!("score {}/{}", self.score.points, self.score.max)
    }
}
