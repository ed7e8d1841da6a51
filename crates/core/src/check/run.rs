//! The scenario interpreter: one run of a scenario from the world's seed,
//! taking the choices inside concurrent sections from a [`Chooser`], and
//! judging as it goes (expectations when calls end, invariants after every
//! step). It records what every process believes after each event, for the
//! report. How choices are made (depth first, at random, by name) is the
//! chooser's business, not the interpreter's.

use super::context;
use super::explore::{Chooser, End};
use super::footprint::{Footprint, Observed};
use super::{Limits, Path, Spent};
use crate::error::Error;
use crate::history::{Outcome, Values};
use crate::monitor::{Monitor, OkCall, RuleError, Violation};
use crate::procedure::{StatementClass, StepKind};
use crate::report::{Failure, FailureCause, Lane, Place, ScenarioError};
use crate::scenario::{Action, Arg, ConcurrentCall, Expect, Point, Scenario};
use crate::world::{ProcessId, StepResult, World};
use fencelab_model::exercise::Model;
use std::collections::BTreeMap;

pub(super) struct CallInfo {
    procedure: String,
    arguments: Values,
    expect: Option<Expect>,
}

pub(super) struct Run<'a> {
    pub(super) world: &'a mut World,
    /// What the run's own tables hold (see context.rs).
    pub(super) run_tables: &'a mut context::Loaded,
    pub(super) model: &'a Model,
    pub(super) scenario: &'a Scenario,
    pub(super) limits: Limits,
    /// Scenario name -> (process, actor).
    pub(super) processes: BTreeMap<String, (ProcessId, String)>,
    /// Scenario name -> what a reader calls the process (`naming`), for
    /// every process the scenario starts.
    pub(super) names: BTreeMap<String, String>,
    /// Calls in progress, by process.
    pub(super) calls: BTreeMap<ProcessId, CallInfo>,
    pub(super) monitor: Monitor,
    pub(super) effects_seen: usize,
    pub(super) stop_after_event: Option<usize>,
    pub(super) path: Path,
    /// What the checker's current call has spent, over all its runs.
    pub(super) spent: &'a mut Spent,
}

/// Stops the run with an end, from inside helper methods.
type Flow<T = ()> = Result<T, End>;

impl Run<'_> {
    pub(super) fn run(&mut self, actions: &[Action], chooser: &mut Chooser<'_>) -> End {
        let mut end = End::Completed;
        for (index, action) in actions.iter().enumerate() {
            let acted = self.act(index, action, chooser);
            self.record_beliefs(self.world.history().len());
            if let Err(stop) = acted
                .and_then(|()| self.within_budget())
                .and_then(|()| self.stop_here())
            {
                end = stop;
                break;
            }
        }
        self.record_beliefs(self.world.history().len());
        end
    }

    /// What every process believes after each history event up to `events`
    /// (leases lapsed by the event's clock left out), as the monitor has it
    /// now. Only a recording run keeps them.
    fn record_beliefs(&mut self, events: usize) {
        if !self.world.recording() {
            return;
        }
        let history = self.world.history();
        while self.path.beliefs.len() < events.min(history.len()) {
            let clock = history[self.path.beliefs.len()].clock_seconds;
            self.path.beliefs.push(self.monitor.live_beliefs(clock));
        }
    }

    /// The lanes of the processes started so far.
    pub(super) fn lanes(&self) -> Vec<Lane> {
        self.processes
            .iter()
            .map(|(name, (id, actor))| Lane {
                name: name.clone(),
                process: id.to_string(),
                actor: actor.clone(),
                called: self.called(name),
            })
            .collect()
    }

    /// What a reader calls the scenario's process `name` (`naming`).
    fn called(&self, name: &str) -> String {
        self.names
            .get(name)
            .map_or(name, String::as_str)
            .to_string()
    }

    /// Ends the run with an error once the check has spent its SQLite steps
    /// or holds more history than its memory allows: a limit is never a pass.
    fn within_budget(&mut self) -> Flow {
        if let Some(denial) = self.world.meter().exceeded() {
            return Err(scenario_error(denial.to_string()));
        }
        let held = self.world.history_bytes();
        self.spent.memory_bytes = self.spent.memory_bytes.max(held);
        if held > self.limits.memory_bytes_max {
            return Err(scenario_error(memory_exceeded(
                self.limits.memory_bytes_max,
            )));
        }
        Ok(())
    }

    /// Ends the run once the requested history event has been recorded.
    fn stop_here(&self) -> Flow {
        match self.stop_after_event {
            Some(index) if self.world.history().len() > index => Err(End::Stopped),
            _ => Ok(()),
        }
    }

    fn act(&mut self, index: usize, action: &Action, chooser: &mut Chooser<'_>) -> Flow {
        match action {
            Action::Start { process, actor } => {
                if self.processes.contains_key(process) {
                    return Err(scenario_error(format!(
                        "process `{process}` is started twice"
                    )));
                }
                let id = self.world.start_process(actor).map_err(engine_error)?;
                self.monitor
                    .name_process(&id.to_string(), &self.called(process));
                self.processes.insert(process.clone(), (id, actor.clone()));
            }
            Action::Call {
                process,
                procedure,
                args,
                expect,
            } => {
                let id = self.begin(process, procedure, args, expect.clone())?;
                self.run_to_end(id, process)?;
            }
            Action::Begin {
                process,
                procedure,
                args,
            } => {
                self.begin(process, procedure, args, None)?;
            }
            Action::Run { process, until } => {
                let id = self.id(process)?;
                self.run_until(id, process, *until)?;
            }
            Action::Finish { process, expect } => {
                let id = self.id(process)?;
                match self.calls.get_mut(&id) {
                    Some(call) => call.expect = expect.clone(),
                    None => {
                        return Err(scenario_error(format!(
                            "`finish` needs a call in progress, and {process} has none"
                        )));
                    }
                }
                self.run_to_end(id, process)?;
            }
            Action::Concurrent { calls } => self.concurrent(index, calls, chooser)?,
            Action::SetClock { seconds } => {
                self.world.set_clock(*seconds);
                self.after_step()?;
            }
            Action::Advance { seconds } => {
                self.world.advance_clock(*seconds);
                self.after_step()?;
            }
            Action::Crash { process } => {
                let id = self.id(process)?;
                self.world.crash(id).map_err(engine_error)?;
                self.calls.remove(&id);
                self.monitor.crashed(&id.to_string());
                self.after_step()?;
            }
            Action::Sql { sql } => {
                self.world.execute_direct(sql).map_err(engine_error)?;
                self.after_step()?;
            }
            Action::Query { sql, rows } => {
                let got = self
                    .run_tables
                    .query(self.world, sql, self.monitor.beliefs())
                    .map_err(engine_error)?
                    .ok_or_else(|| {
                        scenario_error(format!(
                            "`{sql}` cannot read the committed rows now: a process is paused \
                             inside its transaction, holding the write lock"
                        ))
                    })?;
                if &got.rows != rows {
                    return Err(self.failed(FailureCause::QueryRows {
                        sql: sql.clone(),
                        expected: rows.clone(),
                        got: got.rows,
                    }));
                }
            }
        }
        Ok(())
    }

    fn id(&self, process: &str) -> Flow<ProcessId> {
        self.processes
            .get(process)
            .map(|(id, _)| *id)
            .ok_or_else(|| scenario_error(format!("no process named `{process}` has been started")))
    }

    fn begin(
        &mut self,
        process: &str,
        procedure: &str,
        args: &BTreeMap<String, Arg>,
        expect: Option<Expect>,
    ) -> Flow<ProcessId> {
        let id = self.id(process)?;
        let memory = self
            .world
            .process_view(id)
            .map_err(engine_error)?
            .memory
            .clone();
        let mut arguments = Values::new();
        for (name, arg) in args {
            let value = match arg {
                Arg::Literal(value) => value.clone(),
                Arg::Memory { memory: key } => memory.get(key).cloned().ok_or_else(|| {
                    scenario_error(format!(
                        "{process} remembers no `{key}`: none of its calls returned it"
                    ))
                })?,
            };
            arguments.insert(name.clone(), value);
        }
        self.world
            .call(id, procedure, arguments.clone())
            .map_err(engine_error)?;
        self.calls.insert(
            id,
            CallInfo {
                procedure: procedure.to_string(),
                arguments,
                expect,
            },
        );
        Ok(id)
    }

    /// Runs one step of `id` and handles the end of its call.
    fn step(&mut self, id: ProcessId, name: &str) -> Flow<StepResult> {
        self.spent.procedure_steps += 1;
        if self.spent.procedure_steps > self.limits.steps_max {
            return Err(scenario_error(format!(
                "this check ran {} procedure steps, its limit, before covering every \
                 interleaving (pruned ones included): this is not a pass. Simplify the \
                 scenario, or raise the limit (`fencelab run --max-steps`)",
                self.limits.steps_max
            )));
        }
        let result = self.world.step(id).map_err(engine_error)?;
        self.within_budget()?;
        self.stop_here()?;
        if let StepResult::Finished(outcome) = &result {
            // The events before the call's end show the beliefs from before it.
            self.record_beliefs(self.world.history().len().saturating_sub(1));
            self.finished(id, name, outcome)?;
        }
        self.after_step()?;
        Ok(result)
    }

    fn run_to_end(&mut self, id: ProcessId, name: &str) -> Flow {
        loop {
            match self.step(id, name)? {
                StepResult::Ran => {}
                StepResult::Finished(_) => return Ok(()),
                StepResult::Blocked => return Err(self.blocked_alone(id, name)),
            }
        }
    }

    fn run_until(&mut self, id: ProcessId, name: &str, until: Point) -> Flow {
        let Some(view) = self
            .world
            .process_view(id)
            .ok()
            .and_then(|v| v.call.map(|c| c.0.to_string()))
        else {
            return Err(scenario_error(format!(
                "`run` needs a call in progress, and {name} has none"
            )));
        };
        let procedure = self
            .world
            .procedure(&view)
            .cloned()
            .ok_or_else(|| scenario_error(format!("no procedure `{view}`")))?;
        let classes: Vec<Option<StatementClass>> = procedure
            .steps
            .iter()
            .map(|s| match s.kind {
                StepKind::Sql { class, .. } => Some(class),
                StepKind::Effect { .. } => None,
            })
            .collect();
        let target = match until {
            Point::BeforeFirstWrite => classes
                .iter()
                .position(|c| *c == Some(StatementClass::Write)),
            Point::BeforeBegin => classes
                .iter()
                .position(|c| *c == Some(StatementClass::Begin)),
            Point::BeforeCommit => classes
                .iter()
                .position(|c| *c == Some(StatementClass::Commit)),
            Point::AfterLastRead => classes
                .iter()
                .rposition(|c| *c == Some(StatementClass::Read))
                .map(|i| i + 1),
        };
        let Some(target) = target else {
            return Err(scenario_error(format!(
                "{name}'s {} has no point {}: the scenario's order no longer applies to this text",
                procedure.name,
                until.describe()
            )));
        };
        loop {
            let next = self
                .world
                .process_view(id)
                .ok()
                .and_then(|v| v.call.map(|c| c.1));
            match next {
                Some(next) if next < target => match self.step(id, name)? {
                    StepResult::Ran => {}
                    StepResult::Blocked => return Err(self.blocked_alone(id, name)),
                    StepResult::Finished(_) => {
                        return Err(scenario_error(format!(
                            "{name}'s {} ended before reaching the point {}",
                            procedure.name,
                            until.describe()
                        )));
                    }
                },
                Some(_) => return Ok(()),
                None => {
                    return Err(scenario_error(format!(
                        "{name}'s {} ended before reaching the point {}",
                        procedure.name,
                        until.describe()
                    )));
                }
            }
        }
    }

    fn concurrent(
        &mut self,
        index: usize,
        calls: &[ConcurrentCall],
        chooser: &mut Chooser<'_>,
    ) -> Flow {
        let mut members: Vec<(String, ProcessId)> = Vec::new();
        for call in calls {
            let id = match &call.call {
                Some(procedure) => {
                    self.begin(&call.process, procedure, &call.args, call.expect.clone())?
                }
                None => {
                    let id = self.id(&call.process)?;
                    match self.calls.get_mut(&id) {
                        Some(info) => info.expect = call.expect.clone(),
                        None => {
                            return Err(scenario_error(format!(
                                "{} is to resume its call, but has none in progress",
                                call.process
                            )));
                        }
                    }
                    id
                }
            };
            if members.iter().any(|(_, other)| *other == id) {
                return Err(scenario_error(format!(
                    "{} appears twice in one concurrent section",
                    call.process
                )));
            }
            members.push((call.process.clone(), id));
        }
        members.sort();
        let mut section_steps = 0;
        loop {
            let in_call = self.world.in_call();
            let waiting: Vec<&(String, ProcessId)> = members
                .iter()
                .filter(|(_, id)| in_call.contains(id))
                .collect();
            if waiting.is_empty() {
                return Ok(());
            }
            let movable = self.world.movable();
            let options: Vec<(String, ProcessId)> = waiting
                .iter()
                .filter(|(_, id)| movable.contains(id))
                .map(|(n, id)| (n.clone(), *id))
                .collect();
            if options.is_empty() {
                let processes = waiting.iter().map(|(n, _)| self.called(n)).collect();
                return Err(self.failed(FailureCause::Deadlock { processes }));
            }
            if section_steps >= self.limits.section_steps_max {
                return Err(scenario_error(format!(
                    "a concurrent section took more than {} steps: exploration stopped, \
                     this is not a pass",
                    self.limits.section_steps_max
                )));
            }
            let depth = self.path.choices.len();
            let names: Vec<String> = options.iter().map(|(n, _)| n.clone()).collect();
            let choice = chooser.choose(depth, index, &names)?;
            let (name, id) = options.get(choice).cloned().ok_or_else(|| {
                scenario_error("the schedule chose a process that cannot move".into())
            })?;
            self.path.choices.push(choice);
            self.path.names.push(name.clone());
            section_steps += 1;
            let before = self.world.transaction_mode(id);
            let statement = matches!(
                self.world.next_step(id).map(|s| &s.kind),
                Some(StepKind::Sql { .. })
            );
            let result = self.step(id, &name)?;
            self.path.waited.push(result == StepResult::Blocked);
            let made = self.path.choices.len();
            chooser.moved(
                made,
                || {
                    Footprint::of(Observed {
                        before,
                        after: self.world.transaction_mode(id),
                        statement: statement.then(|| self.world.last_access(id)),
                        blocked: result == StepResult::Blocked,
                        ended_call: matches!(result, StepResult::Finished(_)),
                    })
                },
                || self.state_key(index),
            )?;
        }
    }

    /// Updates beliefs and checks expectations when a call ends.
    fn finished(&mut self, id: ProcessId, name: &str, outcome: &Outcome) -> Flow {
        let Some(info) = self.calls.remove(&id) else {
            return Ok(());
        };
        if let Outcome::Error(error) = outcome
            && info.expect.as_ref().and_then(|e| e.outcome.as_deref()) != Some("error")
        {
            return Err(End::Error(ScenarioError {
                message: format!(
                    "{}'s {}: {}",
                    self.called(name),
                    info.procedure,
                    error.message
                ),
                place: Some(Place {
                    procedure: error.procedure.clone(),
                    position: error.position,
                }),
            }));
        }
        if let Outcome::Ok { values } = outcome {
            let actor = self
                .processes
                .get(name)
                .map(|(_, a)| a.clone())
                .unwrap_or_default();
            let call = OkCall {
                process: &id.to_string(),
                actor: &actor,
                procedure: &info.procedure,
                arguments: &info.arguments,
                returned: values,
            };
            // Beliefs follow every ok outcome, in limit scenarios too (the
            // timeline shows them); only judging is left out there. The
            // invariants come first: a broken fence is the news, an
            // expectation that then fails is its consequence.
            let broken = self
                .monitor
                .call_ok(&self.model.beliefs, &call)
                .map_err(rule_error)?
                .or_else(|| self.monitor.check_exclusive(self.world.clock_seconds()));
            if let Some(violation) = broken
                && !self.scenario.limit
            {
                return Err(self.violated(violation));
            }
        }
        if let Some(expect) = &info.expect
            && let Some(mismatch) = expect.check(outcome)
        {
            return Err(self.failed(FailureCause::Expectation {
                process: self.called(name),
                procedure: info.procedure.clone(),
                mismatch,
            }));
        }
        Ok(())
    }

    /// The invariants checked after every step.
    fn after_step(&mut self) -> Flow {
        let clock = self.world.clock_seconds();
        while let Some(effect) = self.world.effects().get(self.effects_seen) {
            self.effects_seen += 1;
            let broken = self
                .monitor
                .effect(&self.model.effects, effect, clock)
                .map_err(rule_error)?;
            if let Some(violation) = broken
                && !self.scenario.limit
            {
                return Err(self.violated(violation));
            }
        }
        if self.scenario.limit {
            return Ok(());
        }
        if let Some(violation) = self.monitor.check_exclusive(clock) {
            return Err(self.violated(violation));
        }
        for invariant in &self.scenario.invariants {
            let Some(rows) = self
                .run_tables
                .query(self.world, &invariant.sql, self.monitor.beliefs())
                .map_err(engine_error)?
            else {
                // A process holds the write lock; the committed state has
                // not changed, and it is checked again at the commit.
                return Ok(());
            };
            if !rows.rows.is_empty() {
                return Err(self.violated(Violation::ScenarioInvariant {
                    name: invariant.name.clone(),
                    columns: rows.columns,
                    rows: rows.rows,
                }));
            }
        }
        Ok(())
    }

    fn state_key(&self, index: usize) -> Option<Vec<u8>> {
        let mut key = self.world.fingerprint()?;
        key.extend_from_slice(&(index as u64).to_le_bytes());
        key.extend(serde_json::to_vec(&self.monitor).ok()?);
        Some(key)
    }

    /// A failure seen after the latest history event.
    fn failed(&self, cause: FailureCause) -> End {
        End::Failed(Box::new(Failure {
            cause,
            event_index: self.world.history().len().checked_sub(1),
        }))
    }

    fn violated(&self, violation: Violation) -> End {
        self.failed(FailureCause::Invariant { violation })
    }

    fn blocked_alone(&self, id: ProcessId, name: &str) -> End {
        let sql = match self.world.next_step(id).map(|s| &s.kind) {
            Some(StepKind::Sql { sql, .. }) => sql.clone(),
            _ => String::new(),
        };
        scenario_error(format!(
            "{name} is blocked at `{sql}` by another process's open transaction, and nothing \
             else moves in this part of the scenario (use a concurrent section)"
        ))
    }
}

pub(super) fn scenario_error(message: String) -> End {
    End::Error(ScenarioError::new(message))
}

fn engine_error(error: Error) -> End {
    End::Error(ScenarioError::new(error.to_string()))
}

fn rule_error(error: RuleError) -> End {
    End::Error(ScenarioError::new(format!(
        "the exercise's belief rules do not fit this call: {error}"
    )))
}

/// The error of a check that held more than `bytes_max` of explored states
/// and history.
pub(super) fn memory_exceeded(bytes_max: u64) -> String {
    format!(
        "this check held {} MiB of explored states and history, its limit, before covering \
         every interleaving: this is not a pass. Make the statements return and change fewer \
         rows, simplify the scenario, or raise the limit (`fencelab run --max-memory-mib`)",
        bytes_max / (1024 * 1024)
    )
}

/// What a reader calls each process the actions start, by its label.
pub(super) fn process_names(actions: &[Action]) -> BTreeMap<String, String> {
    fencelab_model::naming::process_names(actions.iter().filter_map(|action| match action {
        Action::Start { process, actor } => Some((process.as_str(), actor.as_str())),
        _ => None,
    }))
}
