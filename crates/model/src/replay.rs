//! A run as what a database file must do: the statements of a report's
//! history in the order they ran, each with what fencelab saw it do, for a
//! replay outside the engine (`fencelab replay` on a real file, and the
//! Python script `export.rs` writes).
//!
//! A plan is read off one [`ScenarioReport`]: one connection per process,
//! opened when it starts and closed when it crashes; each statement with its
//! bound parameters and its result (rows changed and returned, a wait for
//! the lock, or a failure); the rollback of a call that ended inside its
//! transaction; direct SQL on a connection of the world's own. Everything
//! else in the history (calls starting and ending, effects, the clock) is a
//! line to print and nothing to run.
//!
//! What a replay compares is [`Expected`] against [`Observed`], with one
//! rule for both replays ([`Expected::differs`]). Pure data: this module
//! never touches a file or runs SQL.

use crate::exercise::{Exercise, Journal};
use crate::history::{ErrorCause, Event, Outcome, ResultRows, Values, What};
use crate::procedure::{Procedure, StepKind, parameter_names};
use crate::report::{ScenarioReport, Verdict};
use crate::schedule::Schedule;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Everything a replay of one report needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub exercise: String,
    pub scenario: String,
    pub schedule: Schedule,
    pub journal: Journal,
    /// The exercise's schema and seed rows: a fresh file starts from them.
    pub schema: String,
    pub steps: Vec<PlanStep>,
    /// How fencelab judged the run: what the replay ends on.
    pub verdict: Verdict,
    /// The sentence fencelab ends on when the run broke a guarantee (or
    /// could not be judged), as the page shows it.
    pub problem: Option<String>,
}

/// One history event and what to do for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// The event's index in the report's history.
    pub event: usize,
    /// Who acted, by the scenario's name for the process; empty for the world.
    pub who: String,
    /// The event as the timeline words it.
    pub line: String,
    pub action: Action,
}

/// What one step does to the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// A process starts: a connection of its own.
    Open { process: String },
    /// A process crashes: its connection closes (an open transaction rolls
    /// back with it).
    Close { process: String },
    /// A statement of a process's call.
    Run {
        process: String,
        sql: String,
        parameters: Values,
        expected: Expected,
    },
    /// A call ended inside its transaction, which the engine rolled back.
    Rollback { process: String },
    /// SQL run directly against the world, on a connection of its own.
    Direct { sql: String, changed: u64 },
    /// Nothing to run: a line of the timeline.
    Note,
}

/// What fencelab saw a statement do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Expected {
    /// It ran: rows changed (INSERT, UPDATE and DELETE only) and returned.
    Ran { changed: u64, returned: ResultRows },
    /// It met another process's lock: on SQLite (SQLITE_BUSY) it did not
    /// run, and runs again later; on a server it waits in flight, and the
    /// process's next statement step is its finish.
    Waits,
    /// SQLite failed it; `stale_snapshot` when that was WAL's
    /// SQLITE_BUSY_SNAPSHOT.
    Fails { stale_snapshot: bool },
}

/// What a replay saw a statement do on a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Observed {
    Ran {
        changed: u64,
        returned: ResultRows,
    },
    Waits,
    Fails {
        stale_snapshot: bool,
        message: String,
    },
}

impl Expected {
    /// How `observed` differs from this, in words, or `None` when it does
    /// not. A failure matches a failure whatever SQLite's message says (the
    /// engine words some of them itself); a stale snapshot must be one.
    /// `place` says where the replay ran, as the words end: `on the file`.
    pub fn differs(&self, observed: &Observed, place: &str) -> Option<String> {
        match (self, observed) {
            (
                Expected::Ran { changed, returned },
                Observed::Ran {
                    changed: seen_changed,
                    returned: seen_returned,
                },
            ) => {
                if changed != seen_changed {
                    Some(format!(
                        "changed {changed} in fencelab, {seen_changed} {place}"
                    ))
                } else if returned != seen_returned {
                    Some(format!(
                        "returned {} in fencelab, {} {place}",
                        show_rows(returned),
                        show_rows(seen_returned)
                    ))
                } else {
                    None
                }
            }
            (Expected::Waits, Observed::Waits) => None,
            (
                Expected::Fails { stale_snapshot },
                Observed::Fails {
                    stale_snapshot: seen,
                    ..
                },
            ) if stale_snapshot == seen => None,
            (expected, observed) => Some(format!("{expected} in fencelab, {observed} {place}")),
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Ran { changed, returned } => f.write_str(&ran(*changed, returned)),
            Expected::Waits => f.write_str(WAITS),
            Expected::Fails {
                stale_snapshot: true,
            } => f.write_str("fails on its stale snapshot"),
            Expected::Fails {
                stale_snapshot: false,
            } => f.write_str("fails"),
        }
    }
}

impl fmt::Display for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Observed::Ran { changed, returned } => f.write_str(&ran(*changed, returned)),
            Observed::Waits => f.write_str(WAITS),
            Observed::Fails { message, .. } => write!(f, "fails ({message})"),
        }
    }
}

/// A statement that met a lock, in the timeline's words.
const WAITS: &str = "waits for the lock";

/// A statement that ran, as both sides of a comparison say it.
fn ran(changed: u64, returned: &ResultRows) -> String {
    format!("ran (changed {changed}, returned {})", show_rows(returned))
}

/// Rows as `[(1, 'a'), (2, 'b')]`.
pub fn show_rows(rows: &ResultRows) -> String {
    let shown: Vec<String> = rows
        .rows
        .iter()
        .map(|row| {
            let values: Vec<String> = row.iter().map(Value::to_string).collect();
            format!("({})", values.join(", "))
        })
        .collect();
    format!("[{}]", shown.join(", "))
}

impl Plan {
    /// The plan of `report`, a run of `exercise` with `procedures` (the
    /// texts it ran), in `journal` mode.
    ///
    /// A statement SQLite failed leaves no statement event in the history,
    /// only the call's error; its text comes from the procedure (the step
    /// after the call's last) and its parameters from the call's scope, as
    /// the engine bound them.
    pub fn of(
        exercise: &Exercise,
        procedures: &[Procedure],
        report: &ScenarioReport,
        journal: Journal,
    ) -> Plan {
        let mut calls: BTreeMap<String, CallSoFar> = BTreeMap::new();
        let mut steps = Vec::new();
        let run = Run {
            exercise,
            procedures,
            report,
        };
        for (index, event) in report.history.iter().enumerate() {
            steps.extend(run.steps_of(&mut calls, index, event));
        }
        Plan {
            exercise: exercise.id.clone(),
            scenario: report.name.clone(),
            schedule: report.schedule.clone(),
            journal,
            schema: exercise.schema.clone(),
            steps,
            verdict: report.verdict(),
            problem: report.problem(),
        }
    }

    /// The scenario's process names, in the order they start.
    pub fn processes(&self) -> Vec<&str> {
        self.steps
            .iter()
            .filter_map(|step| match &step.action {
                Action::Open { process } => Some(process.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The statements the plan runs (waits included): its size in steps.
    pub fn statements(&self) -> usize {
        self.steps
            .iter()
            .filter(|step| matches!(step.action, Action::Run { .. } | Action::Direct { .. }))
            .count()
    }
}

/// What a plan is made from: the exercise, the texts it ran and the run's
/// report.
struct Run<'a> {
    exercise: &'a Exercise,
    procedures: &'a [Procedure],
    report: &'a ScenarioReport,
}

impl Run<'_> {
    /// The lane name of the process that made `event` (none for the
    /// world's own events).
    fn lane_name(&self, event: &Event) -> String {
        event
            .process
            .as_deref()
            .map(|p| self.report.lane_name(p).to_string())
            .unwrap_or_default()
    }

    /// The steps that replay event `index`, the calls under way kept in
    /// `calls` (each one's procedure, next step and scope).
    fn steps_of(
        &self,
        calls: &mut BTreeMap<String, CallSoFar>,
        index: usize,
        event: &Event,
    ) -> Vec<PlanStep> {
        let process = event.process.clone().unwrap_or_default();
        let who = self.lane_name(event);
        let step = |line: String, action: Action| PlanStep {
            event: index,
            who: who.clone(),
            line,
            action,
        };
        let failed = match &event.what {
            What::CallFinished { outcome, .. } => calls
                .get(&process)
                .and_then(|call| failed_statement(call, outcome, self, event, &process)),
            _ => None,
        };
        let action = self.action_of(calls, event, process);
        failed
            .into_iter()
            .map(|(line, action)| step(line, action))
            .chain([step(event.to_string(), action)])
            .collect()
    }

    /// The action that replays `event` itself (a failed statement before a
    /// call's end is [`failed_statement`]'s), `calls` kept up to date.
    fn action_of(
        &self,
        calls: &mut BTreeMap<String, CallSoFar>,
        event: &Event,
        process: String,
    ) -> Action {
        match &event.what {
            What::ProcessStarted => Action::Open { process },
            What::ProcessCrashed { .. } => {
                calls.remove(&process);
                Action::Close { process }
            }
            What::CallStarted { arguments } => {
                calls.insert(
                    process,
                    CallSoFar {
                        procedure: event.procedure.clone().unwrap_or_default(),
                        next_step: 0,
                        scope: arguments.clone(),
                    },
                );
                Action::Note
            }
            What::Statement {
                sql,
                parameters,
                changed,
                returned,
            } => {
                if let Some(call) = calls.get_mut(&process) {
                    call.ran(event.step, returned);
                }
                Action::Run {
                    process,
                    sql: sql.clone(),
                    parameters: parameters.clone(),
                    expected: Expected::Ran {
                        changed: *changed,
                        returned: returned.clone(),
                    },
                }
            }
            What::Blocked { sql } => {
                let parameters = calls
                    .get(&process)
                    .map(|call| call.bind(sql, self.exercise, event))
                    .unwrap_or_default();
                Action::Run {
                    process,
                    sql: sql.clone(),
                    parameters,
                    expected: Expected::Waits,
                }
            }
            What::Effect { .. } => {
                if let Some(call) = calls.get_mut(&process) {
                    call.next_step = event.step.map_or(call.next_step, |s| s + 1);
                }
                Action::Note
            }
            What::CallFinished { rolled_back, .. } => {
                calls.remove(&process);
                if *rolled_back {
                    Action::Rollback { process }
                } else {
                    Action::Note
                }
            }
            What::DirectSql { sql, changed } => Action::Direct {
                sql: sql.clone(),
                changed: *changed,
            },
            What::ClockSet { .. } => Action::Note,
        }
    }
}

/// The statement a call failed on, as a step of its own (its line and
/// action): SQLite left no statement event for it, so its text comes from
/// the procedure (the step after the call's last) and its parameters from
/// the call's scope. None when the call ended any other way.
fn failed_statement(
    call: &CallSoFar,
    outcome: &Outcome,
    run: &Run<'_>,
    event: &Event,
    process: &str,
) -> Option<(String, Action)> {
    let Outcome::Error(error) = outcome else {
        return None;
    };
    // A server's deadlock, serialization failure and timeout fail the
    // statement as SQLite's errors do: it was sent, and it failed.
    if !matches!(
        error.cause,
        ErrorCause::Sql
            | ErrorCause::StaleSnapshot
            | ErrorCause::Deadlock
            | ErrorCause::SerializationFailure
            | ErrorCause::StatementTimeout
    ) {
        return None;
    }
    let sql = call.next_sql(run.procedures)?;
    Some((
        format!("{}: {}", call.procedure, crate::history::one_line(&sql)),
        Action::Run {
            process: process.to_string(),
            parameters: call.bind(&sql, run.exercise, event),
            sql,
            expected: Expected::Fails {
                stale_snapshot: error.cause == ErrorCause::StaleSnapshot,
            },
        },
    ))
}

/// A call in progress, as far as the history shows it.
struct CallSoFar {
    procedure: String,
    /// The index of the step after the last one that ran.
    next_step: usize,
    /// Its arguments and every column its statements returned so far.
    scope: Values,
}

impl CallSoFar {
    fn ran(&mut self, step: Option<usize>, returned: &ResultRows) {
        self.next_step = step.map_or(self.next_step, |s| s + 1);
        if let Some(first) = returned.rows.first() {
            for (column, value) in returned.columns.iter().zip(first) {
                self.scope.insert(column.clone(), value.clone());
            }
        }
    }

    /// The text of the statement the call was at.
    fn next_sql(&self, procedures: &[Procedure]) -> Option<String> {
        let procedure = procedures.iter().find(|p| p.name == self.procedure)?;
        match &procedure.steps.get(self.next_step)?.kind {
            StepKind::Sql { sql, .. } => Some(sql.clone()),
            StepKind::Effect { .. } => None,
        }
    }

    /// The values `sql`'s parameters had in this call, as the engine looks
    /// them up: the built-ins, then the call's scope, then the constants.
    /// A name without a value is left out (SQLite binds it NULL).
    fn bind(&self, sql: &str, exercise: &Exercise, event: &Event) -> Values {
        // Inserted, not collected (a collected map sorts its input, with a
        // sort compiled for each iterator type: the page's wasm).
        let mut values = Values::new();
        for name in parameter_names(sql) {
            let value = match name.as_str() {
                "now" => Some(Value::Integer(event.clock_seconds)),
                "actor" => event.actor.clone().map(Value::Text),
                "process" => event.process.clone().map(Value::Text),
                _ => self
                    .scope
                    .get(&name)
                    .or_else(|| exercise.constants.get(&name))
                    .cloned(),
            };
            if let Some(value) = value {
                values.insert(name, value);
            }
        }
        values
    }
}
