//! Stepping a process: running the next statement or effect of its call,
//! judging the result with the step's decisions, and ending the call.

use super::statement::{Executed, execute};
use super::{Call, Process, ProcessId, StepResult, World, index};
use crate::error::Error;
use crate::history::{CallError, Effect, ErrorCause, Outcome, RowChange, Values, What};
use crate::procedure::{Action, Position, StatementClass, Step, StepKind};
use crate::value::Value;

impl World {
    /// Process `id`'s call in progress.
    pub(super) fn call_of(&self, id: ProcessId) -> Result<&Call, Error> {
        self.process(id)?
            .call
            .as_ref()
            .ok_or_else(|| Error::NoCallInProgress { id: id.to_string() })
    }

    pub(super) fn run_effect(
        &mut self,
        id: ProcessId,
        step: &Step,
        name: &str,
        names: &[String],
    ) -> Result<StepResult, Error> {
        let call = self.call_of(id)?;
        let values = match self.resolve(id, call, names) {
            Ok(values) => values,
            Err(missing) => {
                let error = call_error(
                    call,
                    ErrorCause::MissingValue,
                    format!("@effect {name} names `{missing}`, which has no value in this call"),
                    Some(step.position),
                );
                return Ok(StepResult::Finished(self.finish(id, Outcome::Error(error))));
            }
        };
        let process = &self.processes[index(id)];
        self.effects.push(Effect {
            name: name.to_string(),
            process: id.to_string(),
            actor: process.actor.clone(),
            values: values.clone(),
            clock_seconds: self.clock_seconds,
        });
        let event = self.step_event(
            id,
            self.call_of(id)?,
            step,
            What::Effect {
                name: name.to_string(),
                values,
            },
        );
        self.record(event);
        Ok(self.advance(id))
    }

    pub(super) fn run_statement(
        &mut self,
        id: ProcessId,
        step: &Step,
        sql: &str,
        class: StatementClass,
    ) -> Result<StepResult, Error> {
        if self.server.is_some() {
            return self.run_on_server(id, step, sql, class);
        }
        let before = self.before_step(Some(id), || class == StatementClass::Rollback);
        let process = self.process(id)?;
        let connection = process
            .connection
            .as_ref()
            .ok_or_else(|| Error::ProcessCrashed { id: id.to_string() })?;
        let call = self.call_of(id)?;
        let executed = execute(connection, &process.sandbox, sql, |name| {
            self.lookup(process, call, name)
        });
        let executed = match executed {
            Ok(executed) => executed,
            Err(failure) if failure.busy => {
                self.abandon_step(before, id);
                return self.blocked(id, step, sql);
            }
            Err(failure) => {
                self.abandon_step(before, id);
                let call = self.call_of(id)?;
                let position = failure
                    .offset
                    .map(|offset| {
                        crate::procedure::position_at(&call.procedure.source, step.offset + offset)
                    })
                    .or(Some(step.position));
                let error = call_error(call, failure.cause, failure.message, position);
                return Ok(StepResult::Finished(self.finish(id, Outcome::Error(error))));
            }
        };

        let row_changes = self.row_changes_since(before, Some(id));
        self.statement_ran(id, step, sql, executed, row_changes)
    }

    /// Records the statement process `id` ran, its first row's columns put
    /// in the call's scope, and judges it.
    pub(super) fn statement_ran(
        &mut self,
        id: ProcessId,
        step: &Step,
        sql: &str,
        executed: Executed,
        row_changes: Vec<RowChange>,
    ) -> Result<StepResult, Error> {
        if let (Some(first), Some(call)) = (
            executed.rows.rows.first(),
            self.processes[index(id)].call.as_mut(),
        ) {
            for (column, value) in executed.rows.columns.iter().zip(first) {
                call.scope.insert(column.clone(), value.clone());
            }
        }
        let returned = executed.rows.rows.len() as u64;
        let changed = executed.changed;
        let mut event = self.step_event(
            id,
            self.call_of(id)?,
            step,
            What::Statement {
                sql: sql.to_string(),
                parameters: executed.parameters,
                changed,
                returned: executed.rows,
            },
        );
        event.row_changes = row_changes;
        self.record(event);

        self.judge(id, step, changed, returned)
    }

    /// Judges the statement just run, which `changed` and `returned` rows,
    /// with `step`'s decisions: the first whose condition holds ends the
    /// call (refused, or returning its values); when none does, the call
    /// moves on.
    fn judge(
        &mut self,
        id: ProcessId,
        step: &Step,
        changed: u64,
        returned: u64,
    ) -> Result<StepResult, Error> {
        let call = self.call_of(id)?;
        for decision in &step.decisions {
            if !decision
                .condition
                .is_none_or(|c| c.holds(changed, returned))
            {
                continue;
            }
            let outcome = match &decision.action {
                Action::Refuse { category, reason } => Outcome::Refused {
                    category: category.clone(),
                    reason: interpolate(reason, &call.scope),
                },
                Action::Return { names } => match self.resolve(id, call, names) {
                    Ok(values) => {
                        let returned = Returned {
                            names,
                            position: decision.position,
                        };
                        return Ok(StepResult::Finished(self.end(
                            id,
                            ok(values),
                            Some(returned),
                        )));
                    }
                    Err(missing) => Outcome::Error(call_error(
                        call,
                        ErrorCause::MissingValue,
                        format!("@return names `{missing}`, which has no value in this call"),
                        Some(decision.position),
                    )),
                },
            };
            return Ok(StepResult::Finished(self.finish(id, outcome)));
        }
        Ok(self.advance(id))
    }

    /// Marks `id` blocked at `step` and records the wait (SQLite's lock met,
    /// or a server's statement held in flight: served.rs).
    pub(super) fn blocked(
        &mut self,
        id: ProcessId,
        step: &Step,
        sql: &str,
    ) -> Result<StepResult, Error> {
        self.processes[index(id)].blocked = true;
        let event = self.step_event(
            id,
            self.call_of(id)?,
            step,
            What::Blocked {
                sql: sql.to_string(),
            },
        );
        self.record(event);
        Ok(StepResult::Blocked)
    }

    /// Moves the call past the step just run, finishing it after its last.
    pub(super) fn advance(&mut self, id: ProcessId) -> StepResult {
        let done = match self.processes[index(id)].call.as_mut() {
            Some(call) => {
                call.next_step += 1;
                call.next_step >= call.procedure.steps.len()
            }
            None => true,
        };
        if done {
            StepResult::Finished(self.finish(id, ok(Values::new())))
        } else {
            StepResult::Ran
        }
    }

    /// Ends process `id`'s call with `outcome`, rolling back a transaction
    /// the call left open. A call that would have succeeded with its
    /// transaction still open is an error: its writes were never committed.
    pub(super) fn finish(&mut self, id: ProcessId, outcome: Outcome) -> Outcome {
        self.end(id, outcome, None)
    }

    /// [`World::finish`], for a call that `returned` (its `@return`, when
    /// one ended it early) names in the error if the transaction is open.
    fn end(&mut self, id: ProcessId, outcome: Outcome, returned: Option<Returned>) -> Outcome {
        let process = &mut self.processes[index(id)];
        let call = process.call.take();
        let procedure = call
            .as_ref()
            .map(|c| c.procedure.name.clone())
            .unwrap_or_default();
        let before = self.before_rollback(id);
        let open = self.in_transaction(&self.processes[index(id)]);
        let process = &mut self.processes[index(id)];
        let mut outcome = outcome;
        if open {
            if let Some(server) = self.server.as_deref_mut() {
                server.roll_back(id);
            } else if let Some(connection) = &process.connection {
                let _ = connection.execute_batch("ROLLBACK");
            }
            if matches!(outcome, Outcome::Ok { .. }) {
                // The rollback itself is said once, by the call's event
                // (`its transaction rolled back`): the error names the cause.
                let (message, position) = match &call {
                    Some(call) => left_open(call, returned.as_ref()),
                    None => (format!("{procedure} ended inside its transaction"), None),
                };
                outcome = Outcome::Error(CallError {
                    cause: ErrorCause::TransactionLeftOpen,
                    message,
                    procedure: procedure.clone(),
                    position,
                });
            }
        }
        if let Outcome::Ok { values } = &outcome {
            process
                .memory
                .extend(values.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let row_changes = if open {
            self.row_changes_since(before, Some(id))
        } else {
            Vec::new()
        };
        let mut event = self.process_event(
            id,
            What::CallFinished {
                outcome: outcome.clone(),
                rolled_back: open,
            },
        );
        event.procedure = Some(procedure);
        event.row_changes = row_changes;
        self.record(event);
        outcome
    }

    /// The value of `:name` for a statement of `call`: the built-ins first,
    /// then the call's arguments and returned columns, then the constants.
    pub(super) fn lookup(&self, process: &Process, call: &Call, name: &str) -> Option<Value> {
        lookup(self.clock_seconds, &self.constants, process, call, name)
    }

    /// The named values, or the first name without one.
    pub(super) fn resolve(
        &self,
        id: ProcessId,
        call: &Call,
        names: &[String],
    ) -> Result<Values, String> {
        let process = &self.processes[index(id)];
        names
            .iter()
            .map(|name| match self.lookup(process, call, name) {
                Some(value) => Ok((name.clone(), value)),
                None => Err(name.clone()),
            })
            .collect()
    }

    /// Clears every blocked mark but a server statement's still waiting
    /// (served.rs clears that when the statement has finished).
    pub(super) fn unblock_all(&mut self) {
        for process in &mut self.processes {
            if !matches!(process.in_flight, super::InFlight::Waiting(_)) {
                process.blocked = false;
            }
        }
    }
}

/// The value of `:name` for a statement of `call` by `process`, at
/// `clock_seconds`: see [`World::lookup`].
pub(super) fn lookup(
    clock_seconds: i64,
    constants: &Values,
    process: &Process,
    call: &Call,
    name: &str,
) -> Option<Value> {
    match name {
        "now" => Some(Value::Integer(clock_seconds)),
        "actor" => Some(Value::Text(process.actor.clone())),
        "process" => Some(Value::Text(process.id.to_string())),
        _ => call
            .scope
            .get(name)
            .or_else(|| constants.get(name))
            .cloned(),
    }
}

/// The `@return` that ended a call early: what it returns and where it is.
struct Returned<'a> {
    names: &'a [String],
    position: Position,
}

/// Why `call`, which would have ended ok, ended inside its transaction, in
/// words that point at the fix, and the line to mark: an `@return` placed
/// before the COMMIT (the COMMIT is there, the call never reached it), or a
/// transaction with no COMMIT after it at all.
fn left_open(call: &Call, returned: Option<&Returned>) -> (String, Option<Position>) {
    let procedure = &call.procedure;
    let name = &procedure.name;
    let commit_after = |from: usize| {
        procedure.steps[from.min(procedure.steps.len())..]
            .iter()
            .find(|step| {
                matches!(
                    step.kind,
                    StepKind::Sql {
                        class: StatementClass::Commit,
                        ..
                    }
                )
            })
            .map(|step| step.position)
    };
    match returned {
        Some(returned) => {
            let directive = format!("-- @return {}", returned.names.join(", "));
            let line = returned.position.line;
            let message = match commit_after(call.next_step + 1) {
                Some(commit) => format!(
                    "{name}'s `{directive}` on line {line} ends the call inside its transaction, \
                     before the COMMIT on line {}: nothing it wrote is committed; \
                     put the `@return` after the COMMIT",
                    commit.line
                ),
                None => format!(
                    "{name}'s `{directive}` on line {line} ends the call inside its transaction, \
                     with no COMMIT after it (is a COMMIT missing?)"
                ),
            };
            (message, Some(returned.position))
        }
        None => {
            let begin = procedure.steps.iter().rev().find(|step| {
                matches!(
                    step.kind,
                    StepKind::Sql {
                        class: StatementClass::Begin,
                        ..
                    }
                )
            });
            match begin {
                Some(begin) => (
                    format!(
                        "{name} ended inside the transaction its BEGIN on line {} opened \
                         (is a COMMIT missing?)",
                        begin.position.line
                    ),
                    Some(begin.position),
                ),
                None => (
                    format!("{name} ended inside its transaction (is a COMMIT missing?)"),
                    None,
                ),
            }
        }
    }
}

pub(super) fn ok(values: Values) -> Outcome {
    Outcome::Ok { values }
}

pub(super) fn call_error(
    call: &Call,
    cause: ErrorCause,
    message: String,
    position: Option<Position>,
) -> CallError {
    CallError {
        cause,
        message,
        procedure: call.procedure.name.clone(),
        position,
    }
}

/// The longest refusal reason, in bytes, after its `{name}`s are filled in.
pub const REASON_BYTES_MAX: usize = 1024;

/// `{name}` in a refusal reason becomes the value of `name` in the call, in
/// one pass over the template: a value is never read again as a template
/// (a value holding `{b}` stays `{b}`), and the result is cut at
/// [`REASON_BYTES_MAX`], so no text a learner's SQL returns can blow it up.
fn interpolate(reason: &str, scope: &Values) -> String {
    let mut out = String::new();
    let mut rest = reason;
    while out.len() < REASON_BYTES_MAX {
        let Some(open) = rest.find('{') else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').map(|close| (&after[..close], close)) {
            Some((name, close)) if scope.contains_key(name) => {
                match &scope[name] {
                    Value::Text(text) => out.push_str(text),
                    other => out.push_str(&other.to_string()),
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    if out.len() > REASON_BYTES_MAX {
        let mut cut = REASON_BYTES_MAX;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn scope(pairs: &[(&str, &str)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::from(*v)))
            .collect()
    }

    #[test]
    fn values_are_filled_in_once_and_never_read_as_templates() {
        let scope = scope(&[("a", "{b}{b}"), ("b", "x")]);
        assert_eq!(
            interpolate("got {a} and {b}, not {c}", &scope),
            "got {b}{b} and x, not {c}"
        );
    }

    #[test]
    fn a_huge_value_is_cut_at_the_limit() {
        let big = "y".repeat(1 << 20);
        let scope = scope(&[("a", big.as_str())]);
        let reason = interpolate(&"{a}".repeat(10), &scope);
        assert!(reason.len() <= REASON_BYTES_MAX + '…'.len_utf8());
        assert!(reason.ends_with('…'));
    }
}
