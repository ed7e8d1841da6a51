//! Why a scenario could not be judged, as data a program can branch on: a
//! limit the check reached (which one, and its maximum), a call that ended
//! in an error its scenario did not expect (SQLite's or the sandbox's), texts
//! that cannot run, a malformed step, a scenario that does not fit the texts
//! ([`Misfit`]), belief rules that do not fit a call, or a fault of the
//! engine. One `Display` words each for the learner; the page and the CLI
//! show that sentence (the CLI adds the flag that raises a limit, which the
//! page does not have), and the page, which reads errors back from JSON
//! (said.rs), tells the kinds apart by their names.

use super::Place;
use super::said::{DataJson, Said, TagRead, Tagged};
pub use crate::engine::Denial;
use crate::engine::Error as EngineError;
use crate::history::ErrorCause;
use crate::monitor::RuleError;
use crate::scenario::StepError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a scenario could not be judged: an error verdict, never a pass. Its
/// kind is data where the check ran; read back from JSON, the kind's name
/// and the sentence only (said.rs says why). Two errors are equal when they
/// say the same thing about the same scenario and place.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "ErrorJson", from = "ErrorRead")]
pub struct ScenarioError {
    /// The scenario, when the error is about it as a whole (a malformed
    /// step, an exploration limit): the sentence then names it.
    pub scenario: Option<String>,
    /// Words hold the sentence as [`ScenarioError::message`] says it.
    said: Said<ErrorKind, ErrorTag>,
    /// The procedure and position, for an error in a procedure's text.
    pub place: Option<Place>,
}

/// An error as JSON: its kind as data and its sentence (without the place,
/// which is beside it), for readers without this crate and for the page.
#[derive(Serialize)]
struct ErrorJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    scenario: Option<String>,
    kind: DataJson<ErrorKind, ErrorTag>,
    place: Option<Place>,
    message: String,
}

/// An error as a reader takes it from JSON: of the kind, only its name.
#[derive(Deserialize)]
struct ErrorRead {
    #[serde(default)]
    scenario: Option<String>,
    kind: TagRead<ErrorTag>,
    place: Option<Place>,
    message: String,
}

impl From<ScenarioError> for ErrorJson {
    fn from(error: ScenarioError) -> ErrorJson {
        ErrorJson {
            message: error.message(),
            scenario: error.scenario,
            kind: error.said.into_json(),
            place: error.place,
        }
    }
}

impl From<ErrorRead> for ScenarioError {
    fn from(json: ErrorRead) -> ScenarioError {
        ScenarioError {
            scenario: json.scenario,
            said: Said::Words {
                tag: json.kind.kind,
                message: json.message,
            },
            place: json.place,
        }
    }
}

impl ScenarioError {
    /// An error of this kind, about no scenario as a whole and no place.
    pub fn of(kind: ErrorKind) -> ScenarioError {
        ScenarioError {
            scenario: None,
            said: Said::Data(Box::new(kind)),
            place: None,
        }
    }

    /// The same error, about `scenario` as a whole. For an error the check
    /// made: one read back keeps the sentence it was written with.
    pub fn in_scenario(self, scenario: &str) -> ScenarioError {
        ScenarioError {
            scenario: Some(scenario.to_string()),
            ..self
        }
    }

    /// The same error, at `place` in a procedure's text.
    pub fn at(self, place: Place) -> ScenarioError {
        ScenarioError {
            place: Some(place),
            ..self
        }
    }

    /// The kind as data: `None` for an error read from JSON.
    pub fn kind(&self) -> Option<&ErrorKind> {
        self.said.data()
    }

    /// The kind's name, as its JSON tag says it (`limit`, `call`, ...): the
    /// page marks each error with it, and styles a limit apart.
    pub fn kind_name(&self) -> &'static str {
        self.said.tag().name()
    }

    /// The sentence without its place (which the page shows in the editor
    /// instead).
    pub fn message(&self) -> String {
        match (&self.said, &self.scenario) {
            (Said::Words { message, .. }, _) => message.clone(),
            (Said::Data(kind), Some(scenario)) => format!("scenario `{scenario}`: {kind}"),
            (Said::Data(kind), None) => kind.to_string(),
        }
    }

    /// Whether a bound of the check stopped it (the texts may be right).
    pub fn is_limit(&self) -> bool {
        self.said.tag() == ErrorTag::Limit
    }
}

impl PartialEq for ScenarioError {
    fn eq(&self, other: &ScenarioError) -> bool {
        self.scenario == other.scenario
            && self.place == other.place
            && self.said.tag() == other.said.tag()
            && self.message() == other.message()
    }
}

impl Eq for ScenarioError {}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        if let Some(Place {
            procedure,
            position: Some(position),
        }) = &self.place
        {
            write!(f, " ({procedure}, {position})")?;
        }
        Ok(())
    }
}

/// An [`ErrorKind`]'s name, as its JSON tag says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum ErrorTag {
    Limit,
    Call,
    Unusable,
    Step,
    Misfit,
    Rule,
    /// Serialised as `refused`, as before the kind was named a denial.
    #[serde(rename = "refused")]
    Denied,
    Engine,
}

impl ErrorTag {
    fn name(self) -> &'static str {
        match self {
            ErrorTag::Limit => "limit",
            ErrorTag::Call => "call",
            ErrorTag::Unusable => "unusable",
            ErrorTag::Step => "step",
            ErrorTag::Misfit => "misfit",
            ErrorTag::Rule => "rule",
            ErrorTag::Denied => "refused",
            ErrorTag::Engine => "engine",
        }
    }
}

/// What kind of problem stopped a scenario. A typed cause is written to
/// JSON as its sentence, under `message`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ErrorKind {
    /// A bound of the check was reached before it covered every
    /// interleaving.
    Limit { limit: Limit },
    /// A call ended in an error its scenario did not expect.
    Call {
        /// The process, by the name the scenario's reader knows it by.
        process: String,
        procedure: String,
        /// SQLite's refusal, the sandbox's, or the engine's own bound.
        cause: ErrorCause,
        message: String,
    },
    /// The procedure texts cannot run: one does not parse, or the world
    /// cannot be built with them.
    Unusable { message: String },
    /// A step of the scenario (1-based) is malformed.
    Step {
        step: usize,
        #[serde(rename = "message", serialize_with = "sentence")]
        error: StepError,
    },
    /// The scenario does not fit the texts, or asks what cannot happen.
    Misfit { misfit: Misfit },
    /// The exercise's belief rules do not fit a call.
    Rule {
        #[serde(rename = "message", serialize_with = "sentence")]
        error: RuleError,
    },
    /// The sandbox denied what the check itself tried: a denial, not a
    /// procedure's refusal (`Outcome::Refused`). Its tag stays `refused`.
    #[serde(rename = "refused")]
    Denied {
        #[serde(rename = "message", serialize_with = "sentence")]
        denial: Denial,
        /// The statement denied, when the scenario wrote it (a direct
        /// statement or a query): the sentence names it; the kind's JSON
        /// has the denial's sentence alone.
        #[serde(skip)]
        sql: Option<String>,
    },
    /// The engine failed: a fault of fencelab's, not of the exercise.
    Engine {
        #[serde(rename = "message", serialize_with = "sentence")]
        error: EngineError,
    },
}

impl Tagged for ErrorKind {
    type Tag = ErrorTag;

    fn tag(&self) -> ErrorTag {
        match self {
            ErrorKind::Limit { .. } => ErrorTag::Limit,
            ErrorKind::Call { .. } => ErrorTag::Call,
            ErrorKind::Unusable { .. } => ErrorTag::Unusable,
            ErrorKind::Step { .. } => ErrorTag::Step,
            ErrorKind::Misfit { .. } => ErrorTag::Misfit,
            ErrorKind::Rule { .. } => ErrorTag::Rule,
            ErrorKind::Denied { .. } => ErrorTag::Denied,
            ErrorKind::Engine { .. } => ErrorTag::Engine,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Limit { limit } => limit.fmt(f),
            ErrorKind::Call {
                process,
                procedure,
                message,
                ..
            } => write!(f, "{process}'s {procedure}: {message}"),
            ErrorKind::Step { step, error } => write!(f, "step {step}: {error}"),
            ErrorKind::Misfit { misfit } => misfit.fmt(f),
            ErrorKind::Rule { error } => write!(
                f,
                "the exercise's belief rules do not fit this call: {error}"
            ),
            ErrorKind::Denied { denial, sql: None } => denial.fmt(f),
            ErrorKind::Denied {
                denial,
                sql: Some(sql),
            } => write!(f, "{denial} (in `{sql}`)"),
            ErrorKind::Engine { error } => error.fmt(f),
            ErrorKind::Unusable { message } => f.write_str(message),
        }
    }
}

/// Writes a typed cause as the sentence it says: the JSON keeps the
/// `message` it had when the cause was a string.
fn sentence<S: serde::Serializer>(cause: &impl fmt::Display, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(cause)
}

// `Denial` is `engine.rs`'s (an engine error carries it); its sentence is
// here, beside the limit its check budget shares a sentence with.
impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Denial::StepBudget { steps_max } => write!(
                f,
                "step budget exceeded: the statement ran more than {steps_max} \
                 SQLite steps (a WITH RECURSIVE query that never ends, or LIKE, instr() or \
                 replace() over long text in every row?)"
            ),
            // The same bound as the limit a check ends in: one sentence.
            Denial::CheckBudget { steps_max } => Limit::SqliteSteps {
                maximum: *steps_max,
            }
            .fmt(f),
            Denial::Refused(reason) => f.write_str(reason),
        }
    }
}

/// A bound of the check, reached. Each says it is not a pass, and how to
/// go on in words that hold wherever it is shown: the page has no flags, so
/// the sentence names none, and the CLI adds its flag to it (a `, or ...`
/// clause after the sentence's own advice).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "limit", rename_all = "snake_case")]
pub enum Limit {
    /// Complete schedules explored (`--max-schedules`).
    Schedules { maximum: u64 },
    /// Procedure steps over every run of the scenario (`--max-steps`),
    /// found between two runs (with what was explored) or inside one.
    ProcedureSteps {
        maximum: u64,
        explored: Option<Explored>,
    },
    /// Steps of one concurrent section in one run.
    SectionSteps { maximum: u64 },
    /// SQLite steps over the whole check (`--max-sqlite-steps`).
    SqliteSteps { maximum: u64 },
    /// Bytes of explored states and history held (`--max-memory-mib`).
    Memory { maximum_bytes: u64 },
    /// The suite's budget, spent by the scenarios before this one.
    Suite { scenarios: u64 },
}

/// How far an exploration got before a limit stopped it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explored {
    pub schedules: u64,
    pub pruned: u64,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Schedules { maximum } => write!(
                f,
                "exploration stopped at its limit of {maximum} schedules before covering \
                 every interleaving: this is not a pass. Simplify the scenario"
            ),
            Limit::ProcedureSteps {
                maximum,
                explored: Some(Explored { schedules, pruned }),
            } => write!(
                f,
                "exploration stopped at its limit of {maximum} procedure steps (over \
                 {schedules} schedules and {pruned} pruned branches) before covering every \
                 interleaving: this is not a pass. Simplify the scenario"
            ),
            Limit::ProcedureSteps {
                maximum,
                explored: None,
            } => write!(
                f,
                "this check ran {maximum} procedure steps, its limit, before covering every \
                 interleaving (pruned ones included): this is not a pass. Simplify the \
                 scenario"
            ),
            Limit::SectionSteps { maximum } => write!(
                f,
                "a concurrent section took more than {maximum} steps: exploration stopped, \
                 this is not a pass"
            ),
            Limit::SqliteSteps { maximum } => write!(
                f,
                "this check ran {maximum} SQLite steps, its limit, before covering every \
                 interleaving: this is not a pass. Make the statements do less work"
            ),
            Limit::Memory { maximum_bytes } => write!(
                f,
                "this check held {} MiB of explored states and history, its limit, before \
                 covering every interleaving: this is not a pass. Make the statements return \
                 and change fewer rows, or simplify the scenario",
                maximum_bytes / (1024 * 1024)
            ),
            Limit::Suite { scenarios } => write!(
                f,
                "not checked: the scenarios before it spent this check's budget ({scenarios} \
                 scenarios' worth of steps); this is not a pass. Make each scenario do less \
                 work"
            ),
        }
    }
}

/// How a scenario does not fit the texts it runs, or asks what cannot
/// happen: each names what it is about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "misfit", rename_all = "snake_case")]
pub enum Misfit {
    /// A process is started a second time.
    StartedTwice { process: String },
    /// A step names a process no step has started.
    UnknownProcess { process: String },
    /// A call names a procedure the exercise does not have.
    UnknownProcedure { procedure: String },
    /// An argument names a value none of the process's calls returned.
    UnknownValue { process: String, key: String },
    /// `finish` for a process with no call in progress.
    FinishWithoutCall { process: String },
    /// `run` for a process with no call in progress.
    RunWithoutCall { process: String },
    /// A concurrent section resumes a call the process does not have.
    ResumeWithoutCall { process: String },
    /// A process appears twice in one concurrent section.
    TwiceInSection { process: String },
    /// A step stops a call at a point its procedure's text does not have.
    NoSuchPoint {
        process: String,
        procedure: String,
        point: String,
    },
    /// A call ended before the point a step stops it at.
    EndedBeforePoint {
        process: String,
        procedure: String,
        point: String,
    },
    /// A direct query while a paused transaction holds the write lock.
    ReadWhileLocked { sql: String },
    /// A process waits for a lock and nothing else in its part of the
    /// scenario can move.
    BlockedAlone { process: String, sql: String },
    /// A given schedule names a process that cannot move at that step.
    NotMovable {
        step: usize,
        named: String,
        movable: Vec<String>,
    },
    /// A schedule chose a process that cannot move.
    ChoseStuckProcess,
    /// A replay followed its schedule to a point where it cannot go on.
    ReplayCutShort,
}

impl fmt::Display for Misfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Misfit::StartedTwice { process } => write!(f, "process `{process}` is started twice"),
            Misfit::UnknownProcess { process } => {
                write!(f, "no process named `{process}` has been started")
            }
            Misfit::UnknownProcedure { procedure } => write!(f, "no procedure `{procedure}`"),
            Misfit::UnknownValue { process, key } => write!(
                f,
                "{process} remembers no `{key}`: none of its calls returned it"
            ),
            Misfit::FinishWithoutCall { process } => write!(
                f,
                "`finish` needs a call in progress, and {process} has none"
            ),
            Misfit::RunWithoutCall { process } => {
                write!(f, "`run` needs a call in progress, and {process} has none")
            }
            Misfit::ResumeWithoutCall { process } => write!(
                f,
                "{process} is to resume its call, but has none in progress"
            ),
            Misfit::TwiceInSection { process } => {
                write!(f, "{process} appears twice in one concurrent section")
            }
            Misfit::NoSuchPoint {
                process,
                procedure,
                point,
            } => write!(
                f,
                "{process}'s {procedure} has no point {point}: the scenario's order no \
                 longer applies to this text"
            ),
            Misfit::EndedBeforePoint {
                process,
                procedure,
                point,
            } => write!(
                f,
                "{process}'s {procedure} ended before reaching the point {point}"
            ),
            Misfit::ReadWhileLocked { sql } => write!(
                f,
                "`{sql}` cannot read the committed rows now: a process is paused inside its \
                 transaction, holding the write lock"
            ),
            Misfit::BlockedAlone { process, sql } => write!(
                f,
                "{process} is blocked at `{sql}` by another process's open transaction, and \
                 nothing else moves in this part of the scenario (use a concurrent section)"
            ),
            Misfit::NotMovable {
                step,
                named,
                movable,
            } => write!(
                f,
                "the schedule's step {step} names {named}, but only {} can move then",
                movable.join(", ")
            ),
            Misfit::ChoseStuckProcess => {
                f.write_str("the schedule chose a process that cannot move")
            }
            Misfit::ReplayCutShort => f.write_str("the replay was cut short"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::procedure::Position;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// One error of every kind, with the sentence each says.
    fn every_kind() -> Vec<(ScenarioError, &'static str)> {
        let of = ScenarioError::of;
        vec![
            (
                of(ErrorKind::Limit {
                    limit: Limit::Schedules { maximum: 20 },
                })
                .in_scenario("one winner"),
                "scenario `one winner`: exploration stopped at its limit of 20 schedules \
                 before covering every interleaving: this is not a pass. Simplify the scenario",
            ),
            (
                of(ErrorKind::Limit {
                    limit: Limit::Memory {
                        maximum_bytes: 16 * 1024 * 1024,
                    },
                }),
                "this check held 16 MiB of explored states and history, its limit, before \
                 covering every interleaving: this is not a pass. Make the statements return \
                 and change fewer rows, or simplify the scenario",
            ),
            (
                of(ErrorKind::Call {
                    process: "worker-a".into(),
                    procedure: "claim".into(),
                    cause: ErrorCause::Sql,
                    message: "no such column: nope".into(),
                })
                .at(Place {
                    procedure: "claim".into(),
                    position: Some(Position { line: 2, column: 5 }),
                }),
                "worker-a's claim: no such column: nope (claim, line 2, column 5)",
            ),
            (
                of(ErrorKind::Step {
                    step: 3,
                    error: StepError::NoActor,
                })
                .in_scenario("s"),
                "scenario `s`: step 3: `start` needs `actor`: the durable identity the process \
                 hosts",
            ),
            (
                of(ErrorKind::Misfit {
                    misfit: Misfit::NotMovable {
                        step: 2,
                        named: "c".into(),
                        movable: vec!["a".into(), "b".into()],
                    },
                }),
                "the schedule's step 2 names c, but only a, b can move then",
            ),
            (
                of(ErrorKind::Rule {
                    error: RuleError {
                        message: "`until` names no value".into(),
                    },
                }),
                "the exercise's belief rules do not fit this call: `until` names no value",
            ),
            (
                of(ErrorKind::Denied {
                    denial: Denial::Refused("not authorized to read sqlite_master".into()),
                    sql: None,
                }),
                "not authorized to read sqlite_master",
            ),
            (
                of(ErrorKind::Denied {
                    denial: Denial::Refused("PRAGMA journal_mode is not allowed".into()),
                    sql: Some("PRAGMA journal_mode = OFF".into()),
                }),
                "PRAGMA journal_mode is not allowed (in `PRAGMA journal_mode = OFF`)",
            ),
            (
                of(ErrorKind::Engine {
                    error: EngineError::NoCallInProgress { id: "p2".into() },
                }),
                "process p2 has no call in progress",
            ),
            (
                of(ErrorKind::Unusable {
                    message: "unknown directive `@bogus`".into(),
                }),
                "unknown directive `@bogus`",
            ),
        ]
    }

    /// One limit of each variant, and one of each kind of exploration
    /// stopped by the procedure-step limit.
    fn every_limit() -> Vec<Limit> {
        let limits = vec![
            Limit::Schedules { maximum: 20 },
            Limit::ProcedureSteps {
                maximum: 100,
                explored: Some(Explored {
                    schedules: 3,
                    pruned: 1,
                }),
            },
            Limit::ProcedureSteps {
                maximum: 100,
                explored: None,
            },
            Limit::SectionSteps { maximum: 400 },
            Limit::SqliteSteps { maximum: 5_000 },
            Limit::Memory {
                maximum_bytes: 1024 * 1024,
            },
            Limit::Suite { scenarios: 4 },
        ];
        // A variant added to `Limit` stops this match compiling, which
        // sends whoever adds it here to give it a value in the list above.
        for limit in &limits {
            match limit {
                Limit::Schedules { .. }
                | Limit::ProcedureSteps { .. }
                | Limit::SectionSteps { .. }
                | Limit::SqliteSteps { .. }
                | Limit::Memory { .. }
                | Limit::Suite { .. } => {}
            }
        }
        limits
    }

    /// The page shows these sentences as they are, and a learner there has
    /// no command line: what to do is said in words that hold anywhere, and
    /// the CLI adds its flags itself (its render).
    #[test]
    fn no_limit_or_denial_sentence_names_a_command_line() {
        let denials = [
            Denial::StepBudget { steps_max: 7 },
            Denial::CheckBudget { steps_max: 7 },
            Denial::Refused("not authorized to read sqlite_master".into()),
        ];
        let sentences = every_limit()
            .into_iter()
            .map(|limit| ScenarioError::of(ErrorKind::Limit { limit }))
            .chain(denials.map(|denial| ScenarioError::of(ErrorKind::Denied { denial, sql: None })))
            .map(|error| error.to_string());
        for sentence in sentences {
            assert!(!sentence.contains("--"), "{sentence}");
            assert!(!sentence.contains("fencelab "), "{sentence}");
        }
    }

    #[test]
    fn every_kind_says_its_sentence_and_round_trips_through_json() {
        for (error, sentence) in every_kind() {
            assert_eq!(error.to_string(), sentence);
            let json = serde_json::to_string(&error).expect("serializes");
            assert_eq!(
                serde_json::from_str::<ScenarioError>(&json).ok(),
                Some(error.clone()),
                "{json}"
            );
            assert!(
                json.contains(&format!("\"kind\":\"{}\"", error.kind_name())),
                "{json}"
            );
        }
    }

    /// A reader keeps an error's kind by name and its sentence, not the
    /// kind's data, and writes what it kept so that it reads back the same.
    #[test]
    fn an_error_read_from_json_keeps_its_name_sentence_and_place() {
        for (error, sentence) in every_kind() {
            let json = serde_json::to_value(&error).expect("serializes");
            assert_eq!(json["message"], error.message(), "{json}");
            let read: ScenarioError = serde_json::from_value(json).expect("reads");
            assert!(error.kind().is_some());
            assert_eq!(read.kind(), None);
            assert_eq!(read.kind_name(), error.kind_name());
            assert_eq!(read.is_limit(), error.is_limit());
            assert_eq!(read.to_string(), sentence);
            assert_eq!(read.place, error.place);
            let again = serde_json::to_string(&read).expect("serializes");
            assert_eq!(
                serde_json::from_str::<ScenarioError>(&again).ok(),
                Some(read)
            );
        }
        let unknown = r#"{"kind":{"kind":"weather"},"place":null,"message":"rain"}"#;
        assert!(serde_json::from_str::<ScenarioError>(unknown).is_err());
        let unsaid = r#"{"kind":{"kind":"engine","message":"x"},"place":null}"#;
        assert!(serde_json::from_str::<ScenarioError>(unsaid).is_err());
    }

    /// A sandbox denial is named apart from a procedure's refusal in code,
    /// and keeps the JSON tag it has always had.
    #[test]
    fn a_denial_keeps_its_json_tag_refused() {
        let error = ScenarioError::of(ErrorKind::Denied {
            denial: Denial::StepBudget { steps_max: 7 },
            sql: Some("SELECT 1".into()),
        });
        assert_eq!(error.kind_name(), "refused");
        let json = serde_json::to_value(&error).expect("serializes");
        assert_eq!(json["kind"]["kind"], "refused", "{json}");
        // The typed denial is written as the sentence it says, as before;
        // the error's sentence names the statement denied, too.
        let denial = Denial::StepBudget { steps_max: 7 }.to_string();
        assert_eq!(json["kind"]["message"], denial, "{json}");
        assert_eq!(json["message"], format!("{denial} (in `SELECT 1`)"));
    }

    #[test]
    fn a_limit_is_told_from_an_sql_error_by_its_kind() {
        let kinds: Vec<(bool, &str)> = every_kind()
            .iter()
            .map(|(e, _)| (e.is_limit(), e.kind_name()))
            .collect();
        assert_eq!(kinds[0], (true, "limit"));
        assert_eq!(kinds[2], (false, "call"));
        // The place is shown apart (in the editor): the message leaves it out.
        let (call, _) = &every_kind()[2];
        assert_eq!(call.message(), "worker-a's claim: no such column: nope");
    }
}
