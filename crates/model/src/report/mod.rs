//! What the checker found, as data: one [`ScenarioReport`] per scenario, with
//! its result, the schedule it shows, its history and what every process
//! believed after each event.
//!
//! The checker is the only producer of these reports; the CLI and the page
//! only read them. Sentences for people are `Display` impls on the typed
//! results, so every reader words a failure the same way.

use crate::history::{Event, TableRows};
use crate::monitor::{Belief, Violation};
use crate::mutate::StaleEquivalent;
use crate::procedure::Position;
use crate::scenario::{Mismatch, Scenario};
use crate::schedule::Schedule;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::fmt;

mod error;
mod said;
pub use error::{Denial, ErrorKind, Explored, Limit, Misfit, ScenarioError};
use said::{DataJson, Said, TagRead};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed,
    Error,
    /// The scenario demonstrates a limit of the protection, as intended.
    LimitShown,
}

impl Verdict {
    /// The verdict in words, for text that must not rely on colour.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Error => "error",
            Verdict::LimitShown => "limit shown",
        }
    }
}

/// A scenario's result: exactly one of these, so a report cannot say
/// "passed" and carry a failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum ScenarioResult {
    Passed,
    /// A `limit` scenario whose expectations held: it shows where the
    /// protection ends, as intended.
    LimitShown,
    /// A counterexample: the schedule shown breaks the failure's guarantee.
    Failed {
        failure: Failure,
    },
    /// The scenario could not be judged: an SQL error, a scenario that no
    /// longer applies to the text, an exploration limit. Never a pass.
    Error {
        error: ScenarioError,
    },
}

impl ScenarioResult {
    pub fn verdict(&self) -> Verdict {
        match self {
            ScenarioResult::Passed => Verdict::Passed,
            ScenarioResult::LimitShown => Verdict::LimitShown,
            ScenarioResult::Failed { .. } => Verdict::Failed,
            ScenarioResult::Error { .. } => Verdict::Error,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Expectation,
    Invariant,
    Deadlock,
}

/// What broke, as data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FailureCause {
    /// A general or scenario invariant broke.
    Invariant { violation: Violation },
    /// A call's outcome was not what the scenario expects.
    Expectation {
        process: String,
        procedure: String,
        mismatch: Mismatch,
    },
    /// A `query` step returned other rows than the scenario expects.
    QueryRows {
        sql: String,
        expected: Vec<Vec<Value>>,
        got: Vec<Vec<Value>>,
        /// The columns of `got`, which a sentence names.
        #[serde(default)]
        columns: Vec<String>,
        /// What the query checks, in the exercise's words (the step's
        /// `checks`): the sentence then says it instead of the SQL.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        checks: Option<String>,
    },
    /// Every process of a concurrent section waits for a lock another holds.
    Deadlock { processes: Vec<String> },
}

impl said::Tagged for FailureCause {
    type Tag = CauseTag;

    fn tag(&self) -> CauseTag {
        match self {
            FailureCause::Invariant { .. } => CauseTag::Invariant,
            FailureCause::Expectation { .. } => CauseTag::Expectation,
            FailureCause::QueryRows { .. } => CauseTag::QueryRows,
            FailureCause::Deadlock { .. } => CauseTag::Deadlock,
        }
    }
}

impl fmt::Display for FailureCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCause::Invariant { violation } => write!(f, "{violation}"),
            FailureCause::Expectation {
                process,
                procedure,
                mismatch,
            } => write!(f, "{process}'s {procedure}: {mismatch}"),
            FailureCause::QueryRows {
                checks: Some(checks),
                expected,
                got,
                columns,
                ..
            } if expected.is_empty() => write!(f, "{checks}: {}", violated_by(columns, got)),
            FailureCause::QueryRows {
                checks: Some(checks),
                expected,
                got,
                ..
            } => write!(
                f,
                "{checks}: expected {}, found {}",
                show_rows(expected),
                show_rows(got)
            ),
            FailureCause::QueryRows {
                sql,
                expected,
                got,
                checks: None,
                ..
            } => write!(
                f,
                "`{sql}` returned {}, expected {}",
                show_rows(got),
                show_rows(expected)
            ),
            FailureCause::Deadlock { processes } => write!(
                f,
                "deadlock: {} each wait for a lock another holds",
                processes.join(" and ")
            ),
        }
    }
}

/// A [`FailureCause`]'s kind, as its JSON tag names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum CauseTag {
    Invariant,
    Expectation,
    QueryRows,
    Deadlock,
}

/// Why a scenario failed, and after which history event it was seen: the
/// cause as data where the check ran; read back from JSON, its kind and
/// sentence only (said.rs says why). Two failures are equal when they say
/// the same thing after the same event; compare [`Failure::cause`] for the
/// data.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "FailureJson", from = "FailureRead")]
pub struct Failure {
    said: Said<FailureCause, CauseTag>,
    /// The index of the history event after which it was detected.
    pub event_index: Option<usize>,
}

/// A failure as JSON: its cause and its sentence, for readers without this
/// crate (a CI job reading `fencelab run --json`) and for the page.
#[derive(Serialize)]
struct FailureJson {
    cause: DataJson<FailureCause, CauseTag>,
    event_index: Option<usize>,
    message: String,
}

/// A failure as a reader takes it from JSON: of the cause, only its tag.
#[derive(Deserialize)]
struct FailureRead {
    cause: TagRead<CauseTag>,
    event_index: Option<usize>,
    message: String,
}

impl From<Failure> for FailureJson {
    fn from(failure: Failure) -> FailureJson {
        FailureJson {
            message: failure.message(),
            cause: failure.said.into_json(),
            event_index: failure.event_index,
        }
    }
}

impl From<FailureRead> for Failure {
    fn from(json: FailureRead) -> Failure {
        Failure {
            said: Said::Words {
                tag: json.cause.kind,
                message: json.message,
            },
            event_index: json.event_index,
        }
    }
}

impl Failure {
    pub fn new(cause: FailureCause, event_index: Option<usize>) -> Failure {
        Failure {
            said: Said::Data(Box::new(cause)),
            event_index,
        }
    }

    /// The cause as data: `None` for a failure read from JSON.
    pub fn cause(&self) -> Option<&FailureCause> {
        self.said.data()
    }

    pub fn kind(&self) -> FailureKind {
        match self.said.tag() {
            CauseTag::Invariant => FailureKind::Invariant,
            CauseTag::Expectation | CauseTag::QueryRows => FailureKind::Expectation,
            CauseTag::Deadlock => FailureKind::Deadlock,
        }
    }

    /// The sentence shown to learners.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl PartialEq for Failure {
    fn eq(&self, other: &Failure) -> bool {
        self.event_index == other.event_index
            && self.said.tag() == other.said.tag()
            && self.message() == other.message()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.said {
            Said::Data(cause) => cause.fmt(f),
            Said::Words { message, .. } => f.write_str(message),
        }
    }
}

/// `violated by seq = 4, generation = 1`: what an invariant (a
/// scenario's, or a `query` that expects no rows) says of the first row
/// that broke it, each value by its column's name, as a call's values are
/// shown; `(and 2 more rows)` after it when there are others.
pub fn violated_by(columns: &[String], rows: &[Vec<Value>]) -> String {
    let Some(first) = rows.first() else {
        return "violated".into();
    };
    let cells: Vec<String> = first
        .iter()
        .enumerate()
        .map(|(i, value)| match columns.get(i) {
            // A column named by an expression (`'m-1'`, `count(*)`) has no
            // name a reader would say: its value stands alone.
            Some(column) if is_name(column) => format!("{column} = {value}"),
            _ => value.to_string(),
        })
        .collect();
    let more = match rows.len() - 1 {
        0 => String::new(),
        1 => " (and 1 more row)".into(),
        n => format!(" (and {n} more rows)"),
    };
    format!("violated by {}{more}", cells.join(", "))
}

/// A column name as a reader would say it: letters, digits and `_`.
fn is_name(column: &str) -> bool {
    !column.is_empty() && column.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// `[(1, 'a'), (2, 'b')]`.
pub fn show_rows(rows: &[Vec<Value>]) -> String {
    let shown: Vec<String> = rows
        .iter()
        .map(|row| {
            let cells: Vec<String> = row.iter().map(Value::to_string).collect();
            format!("({})", cells.join(", "))
        })
        .collect();
    format!("[{}]", shown.join(", "))
}

/// Where in the learner's text an error belongs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub procedure: String,
    pub position: Option<Position>,
}

/// How much exploring a scenario took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exploration {
    /// Concurrent sections in the scenario.
    pub sections: u32,
    /// Schedules run to the scenario's end.
    pub schedules: u64,
    /// Branches cut because their state had been reached before.
    pub pruned: u64,
    /// Distinct states seen inside concurrent sections, at the points where
    /// no process holds the write lock (only there can the committed rows be
    /// read, and only there are states compared).
    pub states: u64,
    /// What the check spent, over every run it made (pruned ones and the
    /// replay of the shown schedule included), in the units its limits are
    /// set in: procedure steps, SQLite steps (VM instructions and metered
    /// text work), and the most bytes it held at once of explored states and
    /// recorded history, by the engine's own accounting. Every VM
    /// instruction SQLite counts for a learner's statement or a scenario's
    /// query is charged, whatever ran before it; direct SQL and the
    /// schema are charged 1,000 instructions at a time (the budget's check
    /// interval).
    #[serde(default)]
    pub procedure_steps: u64,
    #[serde(default)]
    pub sqlite_steps: u64,
    #[serde(default)]
    pub memory_bytes: u64,
    /// For a random search: the seed its schedules were drawn from, which
    /// `fencelab explore --random N --seed S` replays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// A scenario process's label, id, actor and name, for the timeline's lanes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    /// The scenario's label for the process: the word its schedule moves
    /// it by (`a1`).
    pub name: String,
    pub process: String,
    pub actor: String,
    /// What a reader calls it (crate::naming): `host-a #1`.
    pub called: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScenarioReportJson")]
pub struct ScenarioReport {
    pub name: String,
    pub summary: String,
    /// In JSON, flattened: `"verdict"` beside the name, with `"failure"` or
    /// `"error"` when there is one, as a CI job reading `--json` expects.
    /// Read back through [`ScenarioReportJson`], not serde's `flatten`.
    #[serde(flatten)]
    pub result: ScenarioResult,
    /// The schedule whose history is shown: the shortest failing one, or the
    /// first one explored.
    pub schedule: Schedule,
    pub exploration: Exploration,
    pub lanes: Vec<Lane>,
    /// The exercise's tables before the scenario's first step; with each
    /// event's row changes they give the tables after any step.
    pub initial_tables: Vec<TableRows>,
    pub history: Vec<Event>,
    /// What the processes believe they hold after each event of `history`
    /// (leases that lapsed by the event's clock left out), as the checker's
    /// monitor saw it: one entry per event.
    pub beliefs: Vec<Vec<Belief>>,
}

/// A [`ScenarioReport`] as its JSON is read: the result's fields beside the
/// others, as `flatten` writes them. Reading them with `flatten` made serde
/// buffer each whole report (its history, tables and beliefs) as untyped
/// content and read it a second time from there, and compiled every type
/// inside a report twice, once for each reader: the page's wasm reads the
/// worker's reports, and carried both.
#[derive(Deserialize)]
struct ScenarioReportJson {
    name: String,
    summary: String,
    verdict: Verdict,
    #[serde(default)]
    failure: Option<Failure>,
    #[serde(default)]
    error: Option<ScenarioError>,
    schedule: Schedule,
    exploration: Exploration,
    lanes: Vec<Lane>,
    initial_tables: Vec<TableRows>,
    history: Vec<Event>,
    beliefs: Vec<Vec<Belief>>,
}

impl TryFrom<ScenarioReportJson> for ScenarioReport {
    type Error = String;

    fn try_from(json: ScenarioReportJson) -> Result<ScenarioReport, String> {
        let result = match (json.verdict, json.failure, json.error) {
            (Verdict::Passed, None, None) => ScenarioResult::Passed,
            (Verdict::LimitShown, None, None) => ScenarioResult::LimitShown,
            (Verdict::Failed, Some(failure), None) => ScenarioResult::Failed { failure },
            (Verdict::Error, None, Some(error)) => ScenarioResult::Error { error },
            (verdict, _, _) => {
                let carries = match verdict {
                    Verdict::Passed | Verdict::LimitShown => "neither `failure` nor `error`",
                    Verdict::Failed => "a `failure` and no `error`",
                    Verdict::Error => "an `error` and no `failure`",
                };
                return Err(format!(
                    "scenario `{}`: a {} verdict carries {carries}",
                    json.name,
                    verdict.word()
                ));
            }
        };
        Ok(ScenarioReport {
            name: json.name,
            summary: json.summary,
            result,
            schedule: json.schedule,
            exploration: json.exploration,
            lanes: json.lanes,
            initial_tables: json.initial_tables,
            history: json.history,
            beliefs: json.beliefs,
        })
    }
}

impl ScenarioReport {
    /// The report of a scenario that could not run at all (its procedures do
    /// not parse, its steps are malformed).
    pub fn errored(scenario: &Scenario, error: ScenarioError) -> ScenarioReport {
        ScenarioReport {
            name: scenario.name.clone(),
            summary: scenario.summary.clone(),
            result: ScenarioResult::Error { error },
            schedule: Schedule::new(),
            exploration: Exploration::default(),
            lanes: Vec::new(),
            initial_tables: Vec::new(),
            history: Vec::new(),
            beliefs: Vec::new(),
        }
    }

    pub fn verdict(&self) -> Verdict {
        self.result.verdict()
    }

    /// True for "passed" and "limit shown".
    pub fn passed(&self) -> bool {
        matches!(
            self.result,
            ScenarioResult::Passed | ScenarioResult::LimitShown
        )
    }

    pub fn failure(&self) -> Option<&Failure> {
        match &self.result {
            ScenarioResult::Failed { failure } => Some(failure),
            _ => None,
        }
    }

    pub fn error(&self) -> Option<&ScenarioError> {
        match &self.result {
            ScenarioResult::Error { error } => Some(error),
            _ => None,
        }
    }

    /// The failure's or the error's sentence, if there is one.
    pub fn problem(&self) -> Option<String> {
        match &self.result {
            ScenarioResult::Failed { failure } => Some(failure.to_string()),
            ScenarioResult::Error { error } => Some(error.to_string()),
            _ => None,
        }
    }

    /// The event a reader should look at first: where it broke, or the end.
    pub fn focus_event(&self) -> usize {
        self.failure()
            .and_then(|f| f.event_index)
            .unwrap_or(self.history.len().saturating_sub(1))
    }

    /// The scenario's name for the process `process` (`proc-2`), if it has one.
    pub fn lane_name<'a>(&'a self, process: &'a str) -> &'a str {
        self.lanes
            .iter()
            .find(|l| l.process == process)
            .map_or(process, |l| l.name.as_str())
    }

    /// What a reader calls the process `process` (crate::naming): the same
    /// name its lane, its beliefs and the failure sentences use.
    pub fn called<'a>(&'a self, process: &'a str) -> &'a str {
        self.lanes
            .iter()
            .find(|l| l.process == process)
            .map_or(process, |l| l.called.as_str())
    }
}

/// A scenario driven by hand, one chosen step at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drive {
    /// The history so far; once finished, the verdict of this schedule.
    pub report: ScenarioReport,
    /// The processes that may move next (empty once finished).
    pub options: Vec<String>,
    pub finished: bool,
    /// The statement each of `options` runs if it moves next, by index (an
    /// effect as `@effect NAME`; none where the move ends its call).
    /// Absent in older drives, which read it as empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<Option<String>>,
}

/// Every scenario's verdict for one set of procedure texts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExerciseReport {
    pub exercise: String,
    pub scenarios: Vec<ScenarioReport>,
    /// Scenarios whose verdict is passed or limit shown.
    pub passed: usize,
    pub failed: usize,
}

impl ExerciseReport {
    /// Counts the passing (passed or limit shown) and failing scenarios.
    pub fn new(exercise: &str, scenarios: Vec<ScenarioReport>) -> ExerciseReport {
        let passed = scenarios.iter().filter(|s| s.passed()).count();
        ExerciseReport {
            exercise: exercise.to_string(),
            failed: scenarios.len() - passed,
            passed,
            scenarios,
        }
    }

    /// The passes and the limits shown, counted apart, as every reader
    /// says them.
    pub fn tally(&self) -> Tally {
        Tally::of(self.scenarios.iter().map(ScenarioReport::verdict))
    }
}

/// How many scenarios pass out of those that test the texts, and how many
/// show a limit, counted apart: a limit shown is never a pass, so a count
/// of passes never includes one. Its `Display` is the one sentence of the
/// count ("7 of 7 scenarios pass, 4 limits shown"); the page, its
/// announcement and the CLI all say it so. (`ExerciseReport::passed`, on
/// the wire, still counts both: a reader asking "did anything fail" wants
/// that.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Scenarios whose verdict is "passed".
    pub passed: usize,
    /// Scenarios that test the texts: every one but the limits shown.
    pub tested: usize,
    /// Scenarios whose verdict is "limit shown".
    pub limits: usize,
}

impl Tally {
    /// The count of `verdicts`.
    pub fn of(verdicts: impl IntoIterator<Item = Verdict>) -> Tally {
        let mut tally = Tally::default();
        for verdict in verdicts {
            match verdict {
                Verdict::LimitShown => tally.limits += 1,
                Verdict::Passed => {
                    tally.passed += 1;
                    tally.tested += 1;
                }
                Verdict::Failed | Verdict::Error => tally.tested += 1,
            }
        }
        tally
    }

    /// Whether nothing failed or errored (limits shown are no failure).
    pub fn all_pass(&self) -> bool {
        self.passed == self.tested
    }

    /// The limits shown in words ("1 limit shown", "4 limits shown"), or
    /// `None` when there are none.
    pub fn limits_shown(&self) -> Option<String> {
        let plural = if self.limits == 1 { "" } else { "s" };
        (self.limits > 0).then(|| format!("{} limit{plural} shown", self.limits))
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tested > 0 || self.limits == 0 {
            let said = if self.tested == 1 {
                "scenario passes"
            } else {
                "scenarios pass"
            };
            write!(f, "{} of {} {said}", self.passed, self.tested)?;
        }
        if let Some(limits) = self.limits_shown() {
            if self.tested > 0 {
                f.write_str(", ")?;
            }
            f.write_str(&limits)?;
        }
        Ok(())
    }
}

/// Why procedure texts cannot be checked at all: one does not parse, or the
/// world cannot be built. Every scenario's verdict is then this error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unusable {
    pub error: ScenarioError,
}

impl Unusable {
    /// The "error" report of `scenario` for these texts.
    pub fn report(&self, scenario: &Scenario) -> ScenarioReport {
        ScenarioReport::errored(scenario, self.error.clone())
    }
}

/// What `fencelab check` finds in an exercise, and the authoring view
/// shows of a draft: the reference's run (each scenario must pass), the
/// starting texts' verdicts (what a learner first sees; nothing is required
/// of them), the kill matrix of its named broken variants, and its
/// `[[equivalent]]` declarations that no longer name a generated mutant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ExerciseCheckJson")]
pub struct ExerciseCheck {
    pub title: String,
    /// The reference's run: `exercise`, `scenarios`, `passed`, `failed`.
    /// Read back through [`ExerciseCheckJson`], as a scenario report is.
    #[serde(flatten)]
    pub reference: ExerciseReport,
    pub start: Vec<VerdictCell>,
    pub matrix: KillMatrix,
    /// The declarations that match no generated mutant of the references
    /// (`fencelab check` says each; a mutant killed is `mutate`'s to find).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_equivalents: Vec<StaleEquivalent>,
}

/// An [`ExerciseCheck`] as its JSON is read: the reference's report's
/// fields beside the others, without serde's `flatten`
/// ([`ScenarioReportJson`] says why).
#[derive(Deserialize)]
struct ExerciseCheckJson {
    title: String,
    exercise: String,
    scenarios: Vec<ScenarioReport>,
    passed: usize,
    failed: usize,
    start: Vec<VerdictCell>,
    matrix: KillMatrix,
    #[serde(default)]
    stale_equivalents: Vec<StaleEquivalent>,
}

impl From<ExerciseCheckJson> for ExerciseCheck {
    fn from(json: ExerciseCheckJson) -> ExerciseCheck {
        ExerciseCheck {
            title: json.title,
            reference: ExerciseReport {
                exercise: json.exercise,
                scenarios: json.scenarios,
                passed: json.passed,
                failed: json.failed,
            },
            start: json.start,
            matrix: json.matrix,
            stale_equivalents: json.stale_equivalents,
        }
    }
}

impl ExerciseCheck {
    /// The reference passes (or shows its limit in) every scenario, every
    /// named variant is caught by a failure and makes no scenario error, and
    /// every equivalent declaration names a generated mutant: what `fencelab
    /// check` and the authoring view require, by this one rule. (Whether a
    /// scenario kills a declared mutant is `fencelab mutate`'s question: it
    /// runs every generated mutant.)
    pub fn ok(&self) -> bool {
        self.stale_equivalents.is_empty()
            && self.reference.failed == 0
            && self
                .matrix
                .rows
                .iter()
                .all(|r| matches!(r.outcome(), VariantOutcome::Caught(_)))
    }
}

// ----- a draft exercise, as the authoring view shows it -----

/// One scenario's verdict against one set of texts, in brief: a cell of
/// the authoring view's tables. The sentence is the checker's own, made
/// once here so the page never words a failure itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerdictCell {
    pub scenario: String,
    pub verdict: Verdict,
    /// The failure's or the error's sentence, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl VerdictCell {
    /// Every scenario's cell of one run, in the run's order.
    pub fn row(report: &ExerciseReport) -> Vec<VerdictCell> {
        report
            .scenarios
            .iter()
            .map(|s| VerdictCell {
                scenario: s.name.clone(),
                verdict: s.verdict(),
                problem: s.problem(),
            })
            .collect()
    }
}

/// One named broken variant (`[[mutants]]`) against every scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KillRow {
    /// The variant's name; `mutant` on the wire, as it always was.
    #[serde(rename = "mutant")]
    pub variant: String,
    pub explanation: String,
    /// One per scenario, in the matrix's order.
    pub cells: Vec<VerdictCell>,
}

impl KillRow {
    /// The scenarios that caught the variant: those whose verdict is
    /// "failed". An error is not a counterexample, so it catches nothing
    /// (as `fencelab check` counts).
    pub fn caught_by(&self) -> impl Iterator<Item = &VerdictCell> {
        self.cells.iter().filter(|c| c.verdict == Verdict::Failed)
    }

    /// No scenario failed against the variant: the suite cannot tell it
    /// from the reference.
    pub fn survived(&self) -> bool {
        self.caught_by().next().is_none()
    }

    /// The scenarios the variant made stop with an error (a flaw in the
    /// exercise: a variant should be caught by a counterexample, not crash).
    pub fn errored(&self) -> impl Iterator<Item = &VerdictCell> {
        self.cells.iter().filter(|c| c.verdict == Verdict::Error)
    }

    /// What the suite made of the variant, the one rule `fencelab check`,
    /// its grade documents and [`ExerciseCheck::ok`] all read: an error in
    /// any scenario spoils it whatever else caught it; otherwise it is
    /// caught or it survived.
    pub fn outcome(&self) -> VariantOutcome<'_> {
        let errored: Vec<&VerdictCell> = self.errored().collect();
        if !errored.is_empty() {
            VariantOutcome::Errored(errored)
        } else if self.survived() {
            VariantOutcome::Survived
        } else {
            VariantOutcome::Caught(self.caught_by().collect())
        }
    }
}

/// A named broken variant's outcome against the suite (see
/// [`KillRow::outcome`]).
#[derive(Clone, Debug, PartialEq)]
pub enum VariantOutcome<'a> {
    /// Caught by these scenarios, with no scenario erroring: as it should be.
    Caught(Vec<&'a VerdictCell>),
    /// No scenario catches it: the suite has a gap.
    Survived,
    /// These scenarios stopped with an error: a flaw in the exercise.
    Errored(Vec<&'a VerdictCell>),
}

/// Every named broken variant against every scenario: which scenarios
/// catch each one, and which variants survive them all.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KillMatrix {
    /// The scenarios' names, the matrix's columns.
    pub scenarios: Vec<String>,
    pub rows: Vec<KillRow>,
}

impl KillMatrix {
    /// An empty matrix over these scenarios.
    pub fn new(scenarios: Vec<String>) -> KillMatrix {
        KillMatrix {
            scenarios,
            rows: Vec::new(),
        }
    }

    /// Adds a variant's row from the run of the whole suite against it.
    pub fn push(&mut self, variant: &str, explanation: &str, run: &ExerciseReport) {
        self.rows.push(KillRow {
            variant: variant.to_string(),
            explanation: explanation.to_string(),
            cells: VerdictCell::row(run),
        });
    }

    /// The variants no scenario caught.
    pub fn survivors(&self) -> impl Iterator<Item = &KillRow> {
        self.rows.iter().filter(|r| r.survived())
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;

    fn scenario(name: &str, result: ScenarioResult) -> ScenarioReport {
        let scenario: Scenario =
            toml::from_str(&format!("name = \"{name}\"\nsteps = []")).expect("a scenario");
        ScenarioReport {
            result,
            ..ScenarioReport::errored(
                &scenario,
                ScenarioError::of(ErrorKind::Unusable {
                    message: "replaced".into(),
                }),
            )
        }
    }

    fn failed(name: &str) -> ScenarioReport {
        scenario(
            name,
            ScenarioResult::Failed {
                failure: Failure::new(
                    FailureCause::Deadlock {
                        processes: vec!["proc-1".into(), "proc-2".into()],
                    },
                    Some(3),
                ),
            },
        )
    }

    fn run(scenarios: Vec<ScenarioReport>) -> ExerciseReport {
        ExerciseReport::new("draft", scenarios)
    }

    #[test]
    fn a_tally_counts_limits_apart_from_passes() {
        let report = run(vec![
            scenario("one", ScenarioResult::Passed),
            scenario("two", ScenarioResult::LimitShown),
            scenario("three", ScenarioResult::LimitShown),
            failed("four"),
        ]);
        let tally = report.tally();
        assert_eq!((tally.passed, tally.tested, tally.limits), (1, 2, 2));
        assert!(!tally.all_pass());
        assert_eq!(tally.to_string(), "1 of 2 scenarios pass, 2 limits shown");
        let plain = run(vec![scenario("one", ScenarioResult::Passed), failed("two")]);
        assert_eq!(plain.tally().to_string(), "1 of 2 scenarios pass");
        let one = run(vec![
            scenario("one", ScenarioResult::Passed),
            scenario("two", ScenarioResult::LimitShown),
        ]);
        assert_eq!(
            one.tally().to_string(),
            "1 of 1 scenario passes, 1 limit shown"
        );
        assert!(one.tally().all_pass());
        let limits = run(vec![scenario("two", ScenarioResult::LimitShown)]);
        assert_eq!(limits.tally().to_string(), "1 limit shown");
    }

    #[test]
    fn a_variant_is_caught_by_the_scenarios_that_fail_and_an_error_catches_nothing() {
        let mut matrix = KillMatrix::new(vec!["one".into(), "two".into(), "three".into()]);
        matrix.push(
            "caught",
            "fails one",
            &run(vec![
                scenario("one", ScenarioResult::Passed),
                failed("two"),
                scenario("three", ScenarioResult::LimitShown),
            ]),
        );
        matrix.push(
            "survivor",
            "errors only",
            &run(vec![
                scenario("one", ScenarioResult::Passed),
                scenario(
                    "two",
                    ScenarioResult::Error {
                        error: ScenarioError::of(ErrorKind::Unusable {
                            message: "no such table: t".into(),
                        }),
                    },
                ),
                scenario("three", ScenarioResult::Passed),
            ]),
        );
        let caught = &matrix.rows[0];
        assert_eq!(
            caught
                .caught_by()
                .map(|c| c.scenario.as_str())
                .collect::<Vec<_>>(),
            ["two"]
        );
        assert!(!caught.survived());
        let sentence = caught.cells[1].problem.as_deref().unwrap_or_default();
        assert!(
            sentence.contains("proc-1"),
            "the failure's sentence: {sentence}"
        );
        assert_eq!(caught.cells[0].problem, None);
        let survivors: Vec<_> = matrix.survivors().map(|r| r.variant.as_str()).collect();
        assert_eq!(survivors, ["survivor"]);
        assert_eq!(
            matrix.rows[1].cells[1].problem.as_deref(),
            Some("no such table: t")
        );
        // The one rule every reader of the matrix reads.
        let scenarios = |cells: &[&VerdictCell]| -> Vec<String> {
            cells.iter().map(|c| c.scenario.clone()).collect()
        };
        match caught.outcome() {
            VariantOutcome::Caught(by) => assert_eq!(scenarios(&by), ["two"]),
            other => panic!("caught, not {other:?}"),
        }
        match matrix.rows[1].outcome() {
            VariantOutcome::Errored(cells) => assert_eq!(scenarios(&cells), ["two"]),
            other => panic!("errored, not {other:?}"),
        }
    }

    #[test]
    fn a_draft_is_ok_when_the_reference_passes_and_every_variant_is_caught_cleanly() {
        let passing = run(vec![
            scenario("one", ScenarioResult::Passed),
            scenario("two", ScenarioResult::LimitShown),
        ]);
        let mut matrix = KillMatrix::new(vec!["one".into(), "two".into()]);
        matrix.push(
            "m",
            "",
            &run(vec![failed("one"), scenario("two", ScenarioResult::Passed)]),
        );
        let mut draft = ExerciseCheck {
            title: "Draft".into(),
            reference: passing.clone(),
            start: VerdictCell::row(&run(vec![failed("one"), failed("two")])),
            matrix: matrix.clone(),
            stale_equivalents: Vec::new(),
        };
        assert!(draft.ok(), "the start failing is what a learner should see");
        draft.stale_equivalents = vec![StaleEquivalent::MatchesNothing {
            mutant: "claim:1:1:x".into(),
        }];
        assert!(!draft.ok(), "a stale equivalent declaration, as in check");
        draft.stale_equivalents.clear();
        draft.reference = run(vec![failed("one"), scenario("two", ScenarioResult::Passed)]);
        assert!(!draft.ok(), "a failing reference");
        draft.reference = run(vec![
            scenario(
                "one",
                ScenarioResult::Error {
                    error: ScenarioError::of(ErrorKind::Unusable {
                        message: "boom".into(),
                    }),
                },
            ),
            scenario("two", ScenarioResult::Passed),
        ]);
        assert!(!draft.ok(), "a reference that errors");
        draft.reference = passing;
        matrix.push(
            "caught, but crashes another",
            "",
            &run(vec![
                failed("one"),
                scenario(
                    "two",
                    ScenarioResult::Error {
                        error: ScenarioError::of(ErrorKind::Unusable {
                            message: "boom".into(),
                        }),
                    },
                ),
            ]),
        );
        draft.matrix = matrix;
        assert!(
            !draft.ok(),
            "an error against a variant is a flaw, as in check"
        );
    }

    #[test]
    fn every_result_round_trips_beside_the_name_and_a_contradiction_is_refused() {
        let error = ScenarioResult::Error {
            error: ScenarioError::of(ErrorKind::Unusable {
                message: "no such table: t".into(),
            }),
        };
        for (report, verdict) in [
            (scenario("one", ScenarioResult::Passed), "passed"),
            (scenario("two", ScenarioResult::LimitShown), "limit_shown"),
            (failed("three"), "failed"),
            (scenario("four", error), "error"),
        ] {
            let json = serde_json::to_value(&report).expect("serializes");
            assert_eq!(json["verdict"], verdict, "{json}");
            assert_eq!(
                serde_json::from_value::<ScenarioReport>(json).ok(),
                Some(report)
            );
        }
        let mut json = serde_json::to_value(failed("five")).expect("serializes");
        let failure = json
            .as_object_mut()
            .and_then(|report| report.remove("failure"))
            .expect("a failed report's JSON has its failure");
        let refused = serde_json::from_value::<ScenarioReport>(json.clone())
            .expect_err("a failed verdict without its failure");
        assert!(
            refused
                .to_string()
                .contains("scenario `five`: a failed verdict carries a `failure` and no `error`"),
            "{refused}"
        );
        json["verdict"] = "passed".into();
        json["failure"] = failure;
        let refused = serde_json::from_value::<ScenarioReport>(json)
            .expect_err("a passed verdict with a failure");
        assert!(
            refused
                .to_string()
                .contains("a passed verdict carries neither `failure` nor `error`"),
            "{refused}"
        );
    }

    /// A reader keeps a failure's kind, sentence and event, not the cause's
    /// data, and writes what it kept so that it reads back the same.
    #[test]
    fn a_failure_read_from_json_keeps_its_kind_sentence_and_event() {
        let rows = Failure::new(
            FailureCause::QueryRows {
                sql: "SELECT n FROM t".into(),
                expected: vec![vec![Value::Integer(1)]],
                got: vec![],
                columns: vec!["n".into()],
                checks: None,
            },
            Some(2),
        );
        let deadlock = failed("one").failure().cloned().expect("a failure");
        for (failure, kind, sentence) in [
            (
                rows,
                FailureKind::Expectation,
                "`SELECT n FROM t` returned [], expected [(1)]",
            ),
            (
                deadlock,
                FailureKind::Deadlock,
                "deadlock: proc-1 and proc-2 each wait for a lock another holds",
            ),
        ] {
            let json = serde_json::to_value(&failure).expect("serializes");
            assert_eq!(json["message"], sentence, "{json}");
            let read: Failure = serde_json::from_value(json).expect("reads");
            assert!(failure.cause().is_some());
            assert_eq!(read.cause(), None);
            assert_eq!(read.kind(), kind);
            assert_eq!(read.to_string(), sentence);
            assert_eq!(read.event_index, failure.event_index);
            assert_eq!(read, failure);
            let again = serde_json::to_string(&read).expect("serializes");
            assert_eq!(serde_json::from_str::<Failure>(&again).ok(), Some(read));
        }
        let other = Failure::new(
            FailureCause::Deadlock {
                processes: vec!["proc-1".into(), "proc-3".into()],
            },
            Some(3),
        );
        assert_ne!(failed("one").failure(), Some(&other));
    }

    #[test]
    fn a_violation_names_each_value_by_its_column_where_the_column_has_a_name() {
        let rows = vec![
            vec![Value::Integer(4), Value::Text("m-1".into())],
            vec![Value::Integer(5), Value::Text("m-2".into())],
        ];
        let columns = ["seq".to_string(), "'m-1'".to_string()];
        assert_eq!(
            violated_by(&columns, &rows),
            "violated by seq = 4, 'm-1' (and 1 more row)"
        );
        assert_eq!(
            violated_by(&columns, &rows[..1]),
            "violated by seq = 4, 'm-1'"
        );
    }

    #[test]
    fn an_exercise_check_round_trips_through_json() {
        let mut matrix = KillMatrix::new(vec!["one".into()]);
        matrix.push("m", "why", &run(vec![failed("one")]));
        let draft = ExerciseCheck {
            title: "Draft".into(),
            reference: run(vec![scenario("one", ScenarioResult::Passed)]),
            start: VerdictCell::row(&run(vec![failed("one")])),
            matrix,
            stale_equivalents: vec![StaleEquivalent::MatchesNothing {
                mutant: "p:1:1:x".into(),
            }],
        };
        let json = serde_json::to_string(&draft).expect("serializes");
        assert_eq!(
            serde_json::from_str::<ExerciseCheck>(&json).ok(),
            Some(draft)
        );
    }
}
