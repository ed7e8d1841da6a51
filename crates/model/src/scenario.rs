//! Scenarios: counterexample tests written as data, in terms that survive a
//! learner's edits.
//!
//! A scenario never says "step 2 of a's claim": a repaired claim has fewer
//! statements than the naive one, and a learner may add a re-read. Instead it
//! says *these calls run concurrently* (and the checker tries every
//! interleaving of their steps), or it names a point by meaning: *run a until
//! just before its first write*, *until after its last read*, *until it would
//! commit*. A point that no longer exists after an edit is a scenario error,
//! never a silent pass.
//!
//! In an exercise file a scenario reads like this (TOML):
//!
//! ```toml
//! [[scenarios]]
//! name = "one winner"
//! summary = "Two workers claim msg-1 at once; exactly one may believe it owns it."
//! steps = [
//!   { start = "a", actor = "worker-a" },
//!   { start = "b", actor = "worker-b" },
//!   { concurrent = [
//!       { process = "a", call = "claim", args = { message_id = "msg-1" } },
//!       { process = "b", call = "claim", args = { message_id = "msg-1" } },
//!   ] },
//!   { query = "SELECT count(*) FROM messages WHERE state = 'CLAIMED'", rows = [[1]] },
//! ]
//! ```
//!
//! Each step is a table with exactly one verb: `start`, `call`, `begin`,
//! `run`, `finish`, `concurrent`, `clock`, `advance`, `crash`, `sql` or
//! `query`. An argument may be a literal or `{ memory = "token" }`: the value
//! the process remembers from its own earlier calls (a stale process presents
//! its old token; nothing re-derives it from the row).

use crate::history::{Outcome, OutcomeKind, Values};
use crate::value::{Blob, Value, ValueVisitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A scenario as written in an exercise file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// One sentence: what the scenario shows.
    #[serde(default)]
    pub summary: String,
    /// The scenario demonstrates where the protection ends (a direct write,
    /// a restored old generation). Its expectations describe the limit, and
    /// when they hold its verdict is "limit shown", never a plain pass.
    #[serde(default)]
    pub limit: bool,
    /// The scenario is about contention: when it passes, the schedule shown
    /// is one in which a process waits for a lock and then goes through
    /// (the first such one in the explorer's order), rather than the first
    /// schedule, where the processes may never meet. Verdicts do not change:
    /// every schedule was judged; this only chooses which passing one is
    /// shown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub show_wait: bool,
    pub steps: Vec<StepSpec>,
    /// Extra invariants: SQL queries over the world and the `beliefs` table
    /// that must return no rows after every step.
    #[serde(default)]
    pub invariants: Vec<InvariantSpec>,
    /// What passing this scenario is worth when a submission is graded
    /// (`fencelab run --points`, `--min-score`, the graders' formats): a
    /// whole number from 0 to [`SCENARIO_POINTS_MAX`], 1 when not given.
    #[serde(default = "one_point", skip_serializing_if = "is_one_point")]
    pub points: u32,
    /// The isolation level of the scenario's transactions on PostgreSQL,
    /// in place of its exercise's (`[postgres] isolation`); SQLite runs
    /// ignore it. `Exercise::isolation_for` says which level applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<crate::exercise::Isolation>,
}

/// The most points one scenario may be worth: enough for any gradebook's
/// weighting, and small enough that no sum over an exercise overflows.
pub const SCENARIO_POINTS_MAX: u32 = 1000;

impl Scenario {
    /// What is wrong with the scenario's `points`, if anything: the one rule
    /// exercise files and scenario files are both held to.
    pub fn points_problem(&self) -> Option<String> {
        (self.points > SCENARIO_POINTS_MAX).then(|| {
            format!(
                "a scenario is worth 0 to {SCENARIO_POINTS_MAX} points, not {}",
                self.points
            )
        })
    }
}

impl Scenario {
    /// Whether any step of the scenario, as written, names `procedure` (a
    /// call, a begin, or a call in a concurrent section). Procedures never
    /// call one another, so a scenario that names a procedure nowhere runs
    /// none of its text: its report is the same whatever that text is.
    pub fn names_procedure(&self, procedure: &str) -> bool {
        self.steps.iter().any(|step| {
            step.call.as_deref() == Some(procedure)
                || step.begin.as_deref() == Some(procedure)
                || step
                    .concurrent
                    .iter()
                    .flatten()
                    .any(|call| call.call.as_deref() == Some(procedure))
        })
    }

    /// The processes the scenario interleaves, by their names in it: those
    /// of its concurrent sections, in order of first appearance. These are
    /// the words a schedule moves them by (`a b b a`).
    pub fn interleaved(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let calls = self
            .steps
            .iter()
            .filter_map(|step| step.concurrent.as_ref());
        for call in calls.flatten() {
            if !names.contains(&call.process) {
                names.push(call.process.clone());
            }
        }
        names
    }
}

/// Where in a scenario an SQL text is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlField {
    /// Step `step`'s `sql` or `query` (`verb`), 0-based.
    Step { step: usize, verb: &'static str },
    /// Invariant `invariant`'s `sql`, 0-based.
    Invariant(usize),
}

impl fmt::Display for SqlField {
    /// The field's path inside its scenario, as the loader names fields:
    /// `steps[2].sql`, `invariants[0].sql`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SqlField::Step { step, verb } => write!(f, "steps[{step}].{verb}"),
            SqlField::Invariant(invariant) => write!(f, "invariants[{invariant}].sql"),
        }
    }
}

/// An SQL text of a scenario holding a character SQL cannot contain
/// ([`crate::procedure::sql_characters`]): where, the character's place
/// inside the text, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlCharacterProblem {
    pub field: SqlField,
    pub position: crate::procedure::Position,
    pub message: String,
}

impl SqlCharacterProblem {
    /// The sentence a loader reports at the step or invariant: the file's
    /// place is the field's, so the character's place in the text is said.
    pub fn sentence(&self) -> String {
        format!(
            "at line {}, column {} of the SQL: {}",
            self.position.line, self.position.column, self.message
        )
    }
}

impl Scenario {
    /// Every SQL text the scenario runs, in file order: each step's `sql`
    /// or `query`, then each invariant's.
    pub fn sql_texts(&self) -> impl Iterator<Item = (SqlField, &str)> {
        let steps = self.steps.iter().enumerate().flat_map(|(step, spec)| {
            [("sql", &spec.sql), ("query", &spec.query)]
                .into_iter()
                .filter_map(move |(verb, text)| {
                    text.as_deref()
                        .map(|text| (SqlField::Step { step, verb }, text))
                })
        });
        let invariants = self
            .invariants
            .iter()
            .enumerate()
            .map(|(i, invariant)| (SqlField::Invariant(i), invariant.sql.as_str()));
        steps.chain(invariants)
    }

    /// The first SQL text of the scenario that holds a character SQL cannot
    /// contain, by the rule procedures are held to: exercise files and
    /// scenario files both refuse it as they load.
    pub fn sql_character_problem(&self) -> Option<SqlCharacterProblem> {
        self.sql_texts().find_map(|(field, text)| {
            crate::procedure::sql_characters(text)
                .err()
                .map(|(offset, message)| SqlCharacterProblem {
                    field,
                    position: crate::procedure::position_at(text, offset),
                    message,
                })
        })
    }
}

fn one_point() -> u32 {
    1
}

fn is_one_point(points: &u32) -> bool {
    *points == 1
}

/// One step of a scenario, as written: exactly one verb field is set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// Start a process with this scenario name; `actor` says which actor it hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Call this procedure and run it to its end (`process`, `args`, `expect`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// Begin a call of this procedure without running it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub begin: Option<String>,
    /// Run this process's call in progress up to the point `until`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Point>,
    /// Run this process's call in progress to its end (`expect`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<String>,
    /// These calls run concurrently: every interleaving of their steps is checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrent: Option<Vec<ConcurrentCall>>,
    /// Set the fake clock to this many seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<i64>,
    /// Move the fake clock forward by this many seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advance: Option<i64>,
    /// Crash this process: its connection closes, an open transaction rolls back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<String>,
    /// Run SQL directly against the world, bypassing every procedure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    /// Run a read-only query and compare its rows with `rows`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<Vec<Value>>>,
    /// What the query checks, one sentence in the exercise's words: a
    /// failure says it instead of the SQL. Required when `rows` is empty:
    /// such a query is an invariant, every row it returns a violation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<BTreeMap<String, Arg>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// One call of a concurrent section: a new call, or (`resume = true`) the
/// process's call already in progress.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConcurrentCall {
    pub process: String,
    #[serde(default)]
    pub call: Option<String>,
    #[serde(default)]
    pub resume: bool,
    #[serde(default)]
    pub args: BTreeMap<String, Arg>,
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// An argument: a literal value, or what the process remembers. Written
/// untagged (`{"memory": "token"}`, or the value), and read by
/// [`ArgVisitor`], which asks the format for what it holds once, as
/// [`Value`]'s reader does: serde's derived untagged form buffered each
/// argument and tried the variants in turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Arg {
    Memory { memory: String },
    Literal(Value),
}

/// Seen by authors: a sentence, not serde's "data did not match any variant
/// of untagged enum Arg" (Rust's names).
const ARG_EXPECTED: &str = "an argument: a value (a number, a string, a boolean) or \
                            `{ memory = \"NAME\" }` for a value the process remembers";

impl<'de> Deserialize<'de> for Arg {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Arg, D::Error> {
        d.deserialize_any(ArgVisitor)
    }
}

/// Reads an [`Arg`]: a map with a `memory` string names a remembered value
/// (other keys ignored, as the derived form's struct ignored them); any
/// other map or scalar is a [`Value`], read by its own visitor's rules (a
/// map with one `blob` string is a blob). Anything else (a list) is refused
/// with [`ARG_EXPECTED`].
struct ArgVisitor;

impl<'de> serde::de::Visitor<'de> for ArgVisitor {
    type Value = Arg;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(ARG_EXPECTED)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Arg, E> {
        ValueVisitor.visit_unit().map(Arg::Literal)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Arg, E> {
        ValueVisitor.visit_none().map(Arg::Literal)
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Arg, E> {
        ValueVisitor.visit_bool(v).map(Arg::Literal)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Arg, E> {
        ValueVisitor.visit_i64(v).map(Arg::Literal)
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Arg, E> {
        ValueVisitor.visit_u64(v).map(Arg::Literal)
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Arg, E> {
        ValueVisitor.visit_f64(v).map(Arg::Literal)
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Arg, E> {
        ValueVisitor.visit_str(v).map(Arg::Literal)
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Arg, E> {
        ValueVisitor.visit_string(v).map(Arg::Literal)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Arg, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Arg, A::Error> {
        use serde::de::Error;
        // What the derived form made of a map: the `Memory` struct when
        // exactly one `memory` holds a string, else a `Value`, which is a
        // blob when exactly one `blob` holds a string.
        let (mut memory, mut memories) = (None, 0);
        let (mut blob, mut blobs) = (None, 0);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "memory" => {
                    memories += 1;
                    memory = string(map.next_value()?);
                }
                "blob" => {
                    blobs += 1;
                    blob = string(map.next_value()?);
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        match (memory, blob) {
            (Some(memory), _) if memories == 1 => Ok(Arg::Memory { memory }),
            (_, Some(blob)) if blobs == 1 => Ok(Arg::Literal(Value::Blob(Blob { blob }))),
            _ => Err(A::Error::custom(ARG_EXPECTED)),
        }
    }
}

/// A string, or `None` for anything else (read whole and dropped).
fn string(value: serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(text) => Some(text),
        _ => None,
    }
}

/// What a call's outcome must be. Reasons are never compared: a learner who
/// rewords a refusal does not fail a test.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `ok`, `refused` or `error`.
    #[serde(default)]
    pub outcome: Option<OutcomeKind>,
    /// The refusal category.
    #[serde(default)]
    pub category: Option<String>,
    /// Values the call must return (a subset).
    #[serde(default)]
    pub values: Values,
}

impl Expect {
    /// How `outcome` differs from this expectation, if it does.
    pub fn check(&self, outcome: &Outcome) -> Option<Mismatch> {
        if let Some(kind) = self.outcome
            && kind != outcome.of_kind()
        {
            return Some(Mismatch::Outcome {
                expected: kind,
                got: outcome.clone(),
            });
        }
        if let Some(category) = &self.category {
            match outcome {
                Outcome::Refused { category: got, .. } if got == category => {}
                _ => {
                    return Some(Mismatch::Category {
                        expected: category.clone(),
                        got: outcome.clone(),
                    });
                }
            }
        }
        if !self.values.is_empty() {
            let Outcome::Ok { values } = outcome else {
                return Some(Mismatch::NoValues {
                    got: outcome.clone(),
                });
            };
            for (name, wanted) in &self.values {
                if values.get(name) != Some(wanted) {
                    return Some(Mismatch::Value {
                        name: name.clone(),
                        expected: wanted.clone(),
                        got: values.get(name).cloned(),
                    });
                }
            }
        }
        None
    }
}

/// How a call's outcome differs from what a scenario expects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mismatch {
    /// Another kind of outcome (`ok`, `refused`, `error`).
    Outcome { expected: OutcomeKind, got: Outcome },
    /// Not refused, or refused for another category.
    Category { expected: String, got: Outcome },
    /// Values were expected, and the call did not end ok.
    NoValues { got: Outcome },
    /// A returned value differs, or is missing.
    Value {
        name: String,
        expected: Value,
        got: Option<Value>,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Outcome { expected, got } => write!(f, "expected {expected}, got {got}"),
            Mismatch::Category { expected, got } => {
                write!(f, "expected refused ({expected}), got {got}")
            }
            Mismatch::NoValues { got } => write!(f, "expected ok with values, got {got}"),
            Mismatch::Value {
                name,
                expected,
                got: Some(got),
            } => write!(f, "expected {name} = {expected}, got {name} = {got}"),
            Mismatch::Value {
                name,
                expected,
                got: None,
            } => write!(f, "expected {name} = {expected}, but it returned no {name}"),
        }
    }
}

/// A point in a call, named by meaning so it survives edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Point {
    /// Just before the first statement that writes.
    BeforeFirstWrite,
    /// Just after the last statement that only reads.
    AfterLastRead,
    /// Just before COMMIT.
    BeforeCommit,
    /// Just before its BEGIN: the transaction has not started, and nothing
    /// the call read before it is protected by it.
    BeforeBegin,
}

impl Point {
    pub fn describe(self) -> &'static str {
        match self {
            Point::BeforeFirstWrite => "just before its first write",
            Point::AfterLastRead => "just after its last read",
            Point::BeforeCommit => "just before its COMMIT",
            Point::BeforeBegin => "just before its BEGIN",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvariantSpec {
    pub name: String,
    /// A read-only query; every row it returns is a violation.
    pub sql: String,
}

/// A scenario step, validated: what the checker runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Start {
        process: String,
        actor: String,
    },
    Call {
        process: String,
        procedure: String,
        args: BTreeMap<String, Arg>,
        expect: Option<Expect>,
    },
    Begin {
        process: String,
        procedure: String,
        args: BTreeMap<String, Arg>,
    },
    Run {
        process: String,
        until: Point,
    },
    Finish {
        process: String,
        expect: Option<Expect>,
    },
    Concurrent {
        calls: Vec<ConcurrentCall>,
    },
    SetClock {
        seconds: i64,
    },
    Advance {
        seconds: i64,
    },
    Crash {
        process: String,
    },
    Sql {
        sql: String,
    },
    Query {
        sql: String,
        rows: Vec<Vec<Value>>,
        /// What the query checks, in the exercise's words.
        checks: Option<String>,
    },
}

/// What is wrong with a written step: the loader and the checker say it
/// where the step is (its Display is the sentence).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    /// The step sets none of the verbs.
    NoVerb,
    /// The step sets more than one verb.
    ManyVerbs { verbs: Vec<Verb> },
    /// A call or a begin names no process.
    NoProcess { verb: Verb },
    /// A `start` names no actor.
    NoActor,
    /// A `run` says no point to stop at.
    NoPoint,
    /// A `query` gives no rows.
    NoRows,
    /// A `query`'s `checks` is empty.
    ChecksEmpty,
    /// A `query`'s `checks` runs over more than one line.
    ChecksOnManyLines,
    /// A `query` that expects no rows says nothing in `checks`.
    InvariantUnsaid,
    /// A `concurrent` section of fewer than two calls.
    FewConcurrentCalls,
    /// A concurrent entry with both a call and a resume, or neither.
    CallOrResume { process: String },
    /// Fields the verb does not take, by name.
    Unused {
        verb: Verb,
        fields: Vec<&'static str>,
    },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::NoVerb => f.write_str(
                "a step needs one verb: start, call, begin, run, finish, concurrent, clock, \
                 advance, crash, sql or query",
            ),
            StepError::ManyVerbs { verbs } => write!(
                f,
                "a step has one verb, this one has {}",
                verbs
                    .iter()
                    .map(|v| v.word())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            StepError::NoProcess { verb } => write!(
                f,
                "`{}` needs `process`: which process makes the call",
                verb.word()
            ),
            StepError::NoActor => {
                f.write_str("`start` needs `actor`: the durable identity the process hosts")
            }
            StepError::NoPoint => f.write_str(
                "`run` needs `until`: before_first_write, after_last_read, before_begin or \
                 before_commit",
            ),
            StepError::NoRows => f.write_str("`query` needs `rows`: the rows it must return"),
            StepError::ChecksEmpty => {
                f.write_str("`checks` is empty: say in one sentence what the query checks")
            }
            StepError::ChecksOnManyLines => f.write_str("`checks` is one sentence on one line"),
            StepError::InvariantUnsaid => f.write_str(
                "a `query` that expects no rows is an invariant: say in `checks` what it \
                 checks, in the exercise's words (`checks = \"each write carries the \
                 generation installed when it lands\"`), for the learner to read when a row \
                 turns up",
            ),
            StepError::FewConcurrentCalls => f.write_str("`concurrent` needs at least two calls"),
            StepError::CallOrResume { process } => write!(
                f,
                "each concurrent entry has either `call` or `resume = true` (process {process})"
            ),
            StepError::Unused { verb, fields } => {
                write!(f, "`{}` does not take {}", verb.word(), fields.join(", "))
            }
        }
    }
}

/// A step's verb: the one field that says what the step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Start,
    Call,
    Begin,
    Run,
    Finish,
    Concurrent,
    Clock,
    Advance,
    Crash,
    Sql,
    Query,
}

impl Verb {
    /// Its field's name in an exercise file.
    fn word(self) -> &'static str {
        match self {
            Verb::Start => "start",
            Verb::Call => "call",
            Verb::Begin => "begin",
            Verb::Run => "run",
            Verb::Finish => "finish",
            Verb::Concurrent => "concurrent",
            Verb::Clock => "clock",
            Verb::Advance => "advance",
            Verb::Crash => "crash",
            Verb::Sql => "sql",
            Verb::Query => "query",
        }
    }
}

impl StepSpec {
    /// Turns the written step into an action, or says what is wrong with it.
    pub fn to_action(&self) -> Result<Action, StepError> {
        let verb = self.verb()?;
        let action = self.action(verb)?;
        self.check_unused(verb)?;
        Ok(action)
    }

    /// The step's one verb.
    fn verb(&self) -> Result<Verb, StepError> {
        let verbs: Vec<Verb> = [
            (Verb::Start, self.start.is_some()),
            (Verb::Call, self.call.is_some()),
            (Verb::Begin, self.begin.is_some()),
            (Verb::Run, self.run.is_some()),
            (Verb::Finish, self.finish.is_some()),
            (Verb::Concurrent, self.concurrent.is_some()),
            (Verb::Clock, self.clock.is_some()),
            (Verb::Advance, self.advance.is_some()),
            (Verb::Crash, self.crash.is_some()),
            (Verb::Sql, self.sql.is_some()),
            (Verb::Query, self.query.is_some()),
        ]
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(verb, _)| verb)
        .collect();
        match verbs.as_slice() {
            [verb] => Ok(*verb),
            [] => Err(StepError::NoVerb),
            many => Err(StepError::ManyVerbs {
                verbs: many.to_vec(),
            }),
        }
    }

    /// The action of `verb`, with the fields it needs.
    fn action(&self, verb: Verb) -> Result<Action, StepError> {
        let process = |verb: Verb| self.process.clone().ok_or(StepError::NoProcess { verb });
        let args = self.args.clone().unwrap_or_default();
        Ok(match verb {
            Verb::Start => Action::Start {
                process: self.start.clone().unwrap_or_default(),
                actor: self.actor.clone().ok_or(StepError::NoActor)?,
            },
            Verb::Call => Action::Call {
                process: process(Verb::Call)?,
                procedure: self.call.clone().unwrap_or_default(),
                args,
                expect: self.expect.clone(),
            },
            Verb::Begin => Action::Begin {
                process: process(Verb::Begin)?,
                procedure: self.begin.clone().unwrap_or_default(),
                args,
            },
            Verb::Run => Action::Run {
                process: self.run.clone().unwrap_or_default(),
                until: self.until.ok_or(StepError::NoPoint)?,
            },
            Verb::Finish => Action::Finish {
                process: self.finish.clone().unwrap_or_default(),
                expect: self.expect.clone(),
            },
            Verb::Concurrent => Action::Concurrent {
                calls: self.concurrent_calls()?,
            },
            Verb::Clock => Action::SetClock {
                seconds: self.clock.unwrap_or_default(),
            },
            Verb::Advance => Action::Advance {
                seconds: self.advance.unwrap_or_default(),
            },
            Verb::Crash => Action::Crash {
                process: self.crash.clone().unwrap_or_default(),
            },
            Verb::Sql => Action::Sql {
                sql: self.sql.clone().unwrap_or_default(),
            },
            Verb::Query => self.query_action()?,
        })
    }

    /// A `query` step: its rows, and what it checks where the failure
    /// needs the exercise's words (a query that expects no rows is an
    /// invariant, and its SQL is no sentence).
    fn query_action(&self) -> Result<Action, StepError> {
        let rows = self.rows.clone().ok_or(StepError::NoRows)?;
        let checks = self.checks.as_deref().map(str::trim);
        match checks {
            Some("") => return Err(StepError::ChecksEmpty),
            Some(checks) if checks.contains('\n') => return Err(StepError::ChecksOnManyLines),
            None if rows.is_empty() => return Err(StepError::InvariantUnsaid),
            _ => {}
        }
        Ok(Action::Query {
            sql: self.query.clone().unwrap_or_default(),
            rows,
            checks: checks.map(str::to_string),
        })
    }

    /// A concurrent section's calls: at least two, each a call or a resume.
    fn concurrent_calls(&self) -> Result<Vec<ConcurrentCall>, StepError> {
        let calls = self.concurrent.clone().unwrap_or_default();
        if calls.len() < 2 {
            return Err(StepError::FewConcurrentCalls);
        }
        if let Some(call) = calls.iter().find(|c| c.call.is_some() == c.resume) {
            return Err(StepError::CallOrResume {
                process: call.process.clone(),
            });
        }
        Ok(calls)
    }

    /// Refuses a field that `verb` does not take.
    fn check_unused(&self, verb: Verb) -> Result<(), StepError> {
        let unused: Vec<&'static str> = [
            ("actor", self.actor.is_some() && verb != Verb::Start),
            ("until", self.until.is_some() && verb != Verb::Run),
            ("rows", self.rows.is_some() && verb != Verb::Query),
            ("checks", self.checks.is_some() && verb != Verb::Query),
            (
                "process",
                self.process.is_some() && !matches!(verb, Verb::Call | Verb::Begin),
            ),
            (
                "args",
                self.args.is_some() && !matches!(verb, Verb::Call | Verb::Begin),
            ),
            (
                "expect",
                self.expect.is_some() && !matches!(verb, Verb::Call | Verb::Finish),
            ),
        ]
        .into_iter()
        .filter(|(_, unused)| *unused)
        .map(|(field, _)| field)
        .collect();
        if !unused.is_empty() {
            return Err(StepError::Unused {
                verb,
                fields: unused,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived untagged form `Arg` had before its own visitor: what
    /// every input must still read as, errors included.
    #[derive(Debug, Deserialize)]
    #[serde(
        untagged,
        expecting = "an argument: a value (a number, a string, a boolean) or `{ memory = \"NAME\" }` for a value the process remembers"
    )]
    enum Derived {
        Memory { memory: String },
        Literal(Value),
    }

    impl From<Derived> for Arg {
        fn from(derived: Derived) -> Arg {
            match derived {
                Derived::Memory { memory } => Arg::Memory { memory },
                Derived::Literal(value) => Arg::Literal(value),
            }
        }
    }

    /// Every shape an argument can take in JSON, valid or not.
    const SHAPES: &[&str] = &[
        "null",
        "0",
        "-9223372036854775808",
        "18446744073709551615",
        "1.5",
        "\"worker-a\"",
        "true",
        "[]",
        "[\"token\"]",
        "{}",
        "{\"memory\": \"token\"}",
        "{\"memory\": \"token\", \"other\": [1, {\"a\": 2}]}",
        "{\"other\": 1, \"memory\": \"token\"}",
        "{\"memory\": 5}",
        "{\"memory\": null}",
        "{\"memory\": {\"memory\": \"token\"}}",
        "{\"memory\": \"a\", \"memory\": \"b\"}",
        "{\"memory\": \"token\", \"blob\": \"00\"}",
        "{\"memory\": 5, \"blob\": \"00\"}",
        "{\"memory\": [\"x\"], \"blob\": \"00ff\"}",
        "{\"blob\": \"00ff\"}",
        "{\"blob\": 1}",
        "{\"blob\": \"a\", \"blob\": \"b\"}",
    ];

    /// Both readings of `input`, or their errors: the same arguments, or
    /// errors that say the same.
    fn same<E: std::fmt::Display>(
        input: &str,
        own: Result<Vec<Arg>, E>,
        derived: Result<Vec<Derived>, E>,
    ) {
        let read = crate::value::read_as_derived(input, own, derived);
        assert_eq!(read, None, "{input}: read where the derived form refused");
    }

    #[test]
    fn json_reads_as_the_derived_form_read() {
        use serde_json::from_str;
        for shape in SHAPES {
            same(
                shape,
                from_str::<Arg>(shape).map(|a| vec![a]),
                from_str::<Derived>(shape).map(|a| vec![a]),
            );
            let keyed = format!("{{\"a\": {shape}, \"b\": {shape}}}");
            same(
                &keyed,
                from_str::<BTreeMap<String, Arg>>(&keyed).map(|m| m.into_values().collect()),
                from_str::<BTreeMap<String, Derived>>(&keyed).map(|m| m.into_values().collect()),
            );
        }
    }

    #[cfg(feature = "toml")]
    #[test]
    fn toml_reads_as_the_derived_form_read() {
        #[derive(Debug, Deserialize)]
        struct Own {
            v: Arg,
        }
        #[derive(Debug, Deserialize)]
        struct Old {
            v: Derived,
        }
        for shape in SHAPES
            .iter()
            .filter(|shape| !shape.contains("\"a\", \"memory\""))
        {
            let shape = shape
                .replace("\": ", "\" = ")
                .replace("{\"", "{ ")
                .replace(", \"", ", ")
                .replace("\" = ", " = ")
                .replace("null", "\"null\"");
            let file = format!("v = {shape}\n");
            same(
                &file,
                toml::from_str::<Own>(&file).map(|own| vec![own.v]),
                toml::from_str::<Old>(&file).map(|old| vec![old.v]),
            );
        }
    }
}
