//! The scenario interpreter: one run of a scenario from the world's seed,
//! or from a [`Resume`] (the world's image and a clone of the
//! interpreter's [`State`]), taking the choices inside concurrent sections
//! from a [`Chooser`], and judging as it goes (judge.rs: expectations when
//! calls end, invariants after every step). It records what every process
//! believes after each event, for the report. How choices are made (depth
//! first, at random, by name) is the chooser's business, not the
//! interpreter's.

use super::context;
use super::end::{End, denied, limit_hit, memory_exceeded, misfit};
use super::explore::Chooser;
use super::footprint::{Footprint, Observed};
use super::judge::Held;
use super::state::{CallInfo, Resume, State};
use super::{Limits, Path, Spent};
use crate::error::Error;
use crate::history::Values;
use crate::procedure::{StatementClass, StepKind};
use crate::report::{ErrorKind, FailureCause, Lane, Limit, Misfit, ScenarioError};
use crate::scenario::{Action, Arg, ConcurrentCall, Expect, Point, Scenario};
use crate::value::Value;
use crate::world::{ProcessId, StepResult, World};
use fencelab_model::exercise::Rules;
use std::collections::BTreeMap;

pub(super) struct Run<'a> {
    pub(super) world: &'a mut World,
    /// What the run's own tables hold (see context.rs).
    pub(super) run_tables: &'a mut context::Loaded,
    pub(super) rules: &'a Rules,
    pub(super) scenario: &'a Scenario,
    pub(super) limits: Limits,
    /// Scenario name -> what a reader calls the process (`naming`), for
    /// every process the scenario starts.
    pub(super) names: BTreeMap<String, String>,
    /// What the run has done so far, as later steps read it.
    pub(super) state: State,
    pub(super) stop_after_event: Option<usize>,
    pub(super) path: Path,
    /// What the checker's current call has spent, over all its runs.
    pub(super) spent: &'a mut Spent,
    /// Procedure steps and SQLite steps spent before this run began: what
    /// a [`Resume`] taken in it says reaching it cost.
    pub(super) spent_before: (u64, u64),
    /// The last time every invariant held, if it is known what then.
    pub(super) held: Option<Held>,
    /// Whether any invariant reads the run's own tables: worked out at
    /// the first judgement.
    pub(super) invariants_read_run_tables: Option<bool>,
    /// Whether the history the run records counts against the check's
    /// memory; not while it is recorded speculatively, when a history past
    /// the limit stops being recorded instead.
    pub(super) history_counted: bool,
}

/// Stops the run with an end, from inside helper methods.
pub(super) type Flow<T = ()> = Result<T, End>;

impl Run<'_> {
    /// Runs `actions` from the first, or, resuming, from the choice where
    /// `resume` was taken (the world already put back as it was there).
    pub(super) fn run(
        &mut self,
        actions: &[Action],
        chooser: &mut Chooser<'_>,
        resume: Option<&Resume>,
    ) -> End {
        let mut end = End::Completed;
        let first = resume.map_or(0, |r| r.action);
        for (index, action) in actions.iter().enumerate().skip(first) {
            let acted = match resume {
                Some(resume) if index == first => self.resume(resume, chooser),
                _ => self.act(index, action, chooser),
            };
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

    /// Takes up the interpreter's state at `resume` and goes on with its
    /// concurrent section.
    fn resume(&mut self, resume: &Resume, chooser: &mut Chooser<'_>) -> Flow {
        self.state.clone_from(&resume.state);
        self.interleave(
            resume.action,
            resume.members.clone(),
            resume.section_steps,
            chooser,
        )
    }

    /// The state at a choice of the concurrent section `action`, if the
    /// world can be imaged there (no transaction open).
    fn resume_here(
        &self,
        action: usize,
        members: &[(String, ProcessId)],
        section_steps: usize,
    ) -> Option<Resume> {
        let world = self.world.image()?;
        let (procedure_steps, sqlite_steps) = self.spent_before;
        Some(Resume {
            world,
            action,
            members: members.to_vec(),
            section_steps,
            state: self.state.clone(),
            procedure_steps: self.spent.procedure_steps - procedure_steps,
            sqlite_steps: self.world.meter().spent() - sqlite_steps,
        })
    }

    /// The run's trace, once it has ended with `end`.
    pub(super) fn into_path(self, end: End) -> Path {
        let lanes = self.lanes();
        let State {
            choices,
            names,
            waited,
            ..
        } = self.state;
        Path {
            end,
            choices,
            names,
            waited,
            lanes,
            ..self.path
        }
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
            self.path
                .beliefs
                .push(self.state.monitor.live_beliefs(clock));
        }
    }

    /// The lanes of the processes started so far.
    pub(super) fn lanes(&self) -> Vec<Lane> {
        self.state
            .processes
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
    pub(super) fn called(&self, name: &str) -> String {
        self.names
            .get(name)
            .map_or(name, String::as_str)
            .to_string()
    }

    /// Ends the run with an error once the check has spent its SQLite steps
    /// or holds more history than its memory allows: a limit is never a pass.
    fn within_budget(&mut self) -> Flow {
        if let Some(denial) = self.world.meter().exceeded() {
            return Err(End::Error(Box::new(denied(denial, None))));
        }
        let held = self.world.history_bytes();
        if !self.history_counted {
            // A speculative history past the limit is of no use (its run
            // would be replayed to meet the limit), and nothing would
            // bound it: the run goes on unrecorded, as exploring runs do.
            if held > self.limits.memory_bytes_max && self.world.recording() {
                self.world.set_recording(false);
                drop(self.world.take_history());
            }
            return Ok(());
        }
        self.spent.memory_bytes = self.spent.memory_bytes.max(held);
        if held > self.limits.memory_bytes_max {
            return Err(limit_hit(memory_exceeded(self.limits.memory_bytes_max)));
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
            Action::Start { process, actor } => self.start(process, actor)?,
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
            Action::Finish { process, expect } => self.finish(process, expect.as_ref())?,
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
                self.state.calls.remove(&id);
                self.state.monitor.crashed(&id.to_string());
                self.after_step()?;
            }
            Action::Sql { sql } => {
                self.run_tables
                    .make_for(self.world, sql)
                    .map_err(engine_error)?;
                self.world.execute_direct(sql).map_err(engine_error)?;
                self.after_step()?;
            }
            Action::Query { sql, rows, checks } => self.query(sql, rows, checks.as_deref())?,
        }
        Ok(())
    }

    /// Starts the scenario's process `process`, hosting `actor`.
    fn start(&mut self, process: &str, actor: &str) -> Flow {
        if self.state.processes.contains_key(process) {
            return Err(misfit(Misfit::StartedTwice {
                process: process.to_string(),
            }));
        }
        let id = self.world.start_process(actor).map_err(engine_error)?;
        self.state
            .monitor
            .name_process(&id.to_string(), &self.called(process));
        self.state
            .processes
            .insert(process.to_string(), (id, actor.to_string()));
        Ok(())
    }

    /// Runs the call `process` began to its end, judged by `expect`.
    fn finish(&mut self, process: &str, expect: Option<&Expect>) -> Flow {
        let id = self.id(process)?;
        match self.state.calls.get_mut(&id) {
            Some(call) => call.expect = expect.cloned(),
            None => {
                return Err(misfit(Misfit::FinishWithoutCall {
                    process: process.to_string(),
                }));
            }
        }
        self.run_to_end(id, process)
    }

    /// Reads `sql` and fails the run unless it returns `rows`; `checks`
    /// says what the query checks, in the exercise's words.
    fn query(&mut self, sql: &str, rows: &[Vec<Value>], checks: Option<&str>) -> Flow {
        let got = self
            .run_tables
            .query(self.world, sql, self.state.monitor.beliefs())
            .map_err(engine_error)?
            .ok_or_else(|| {
                misfit(Misfit::ReadWhileLocked {
                    sql: sql.to_string(),
                })
            })?;
        if got.rows != rows {
            return Err(self.failed(FailureCause::QueryRows {
                sql: sql.to_string(),
                expected: rows.to_vec(),
                got: got.rows,
                columns: got.columns,
                checks: checks.map(str::to_string),
            }));
        }
        Ok(())
    }

    fn id(&self, process: &str) -> Flow<ProcessId> {
        self.state
            .processes
            .get(process)
            .map(|(id, _)| *id)
            .ok_or_else(|| {
                misfit(Misfit::UnknownProcess {
                    process: process.to_string(),
                })
            })
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
                    misfit(Misfit::UnknownValue {
                        process: process.to_string(),
                        key: key.clone(),
                    })
                })?,
            };
            arguments.insert(name.clone(), value);
        }
        self.world
            .call(id, procedure, arguments.clone())
            .map_err(engine_error)?;
        self.state.calls.insert(
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
            return Err(limit_hit(Limit::ProcedureSteps {
                maximum: self.limits.steps_max,
                explored: None,
            }));
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
            return Err(misfit(Misfit::RunWithoutCall {
                process: name.to_string(),
            }));
        };
        let procedure = self.world.procedure(&view).cloned().ok_or_else(|| {
            misfit(Misfit::UnknownProcedure {
                procedure: view.to_string(),
            })
        })?;
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
            return Err(misfit(Misfit::NoSuchPoint {
                process: name.to_string(),
                procedure: procedure.name.clone(),
                point: until.describe().to_string(),
            }));
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
                        return Err(misfit(Misfit::EndedBeforePoint {
                            process: name.to_string(),
                            procedure: procedure.name.clone(),
                            point: until.describe().to_string(),
                        }));
                    }
                },
                Some(_) => return Ok(()),
                None => {
                    return Err(misfit(Misfit::EndedBeforePoint {
                        process: name.to_string(),
                        procedure: procedure.name.clone(),
                        point: until.describe().to_string(),
                    }));
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
                    match self.state.calls.get_mut(&id) {
                        Some(info) => info.expect = call.expect.clone(),
                        None => {
                            return Err(misfit(Misfit::ResumeWithoutCall {
                                process: call.process.clone(),
                            }));
                        }
                    }
                    id
                }
            };
            if members.iter().any(|(_, other)| *other == id) {
                return Err(misfit(Misfit::TwiceInSection {
                    process: call.process.clone(),
                }));
            }
            members.push((call.process.clone(), id));
        }
        members.sort();
        self.interleave(index, members, 0, chooser)
    }

    /// Moves the `members` of the concurrent section `index`, as the
    /// chooser picks, until each has ended its call.
    fn interleave(
        &mut self,
        index: usize,
        members: Vec<(String, ProcessId)>,
        mut section_steps: usize,
        chooser: &mut Chooser<'_>,
    ) -> Flow {
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
                self.stalled(&waiting)?;
                continue;
            }
            if section_steps >= self.limits.section_steps_max {
                return Err(limit_hit(Limit::SectionSteps {
                    maximum: u64::try_from(self.limits.section_steps_max).unwrap_or(u64::MAX),
                }));
            }
            let depth = self.state.choices.len();
            let names: Vec<String> = options.iter().map(|(n, _)| n.clone()).collect();
            let choice = match chooser.choose(depth, index, &names, || {
                self.resume_here(index, &members, section_steps)
            }) {
                // A drive waits for the learner's move: what each move
                // would run goes with the options, so the page can say it.
                Err(End::Awaiting(names)) => {
                    self.path.next = options
                        .iter()
                        .map(|(_, id)| self.world.next_sql(*id))
                        .collect();
                    return Err(End::Awaiting(names));
                }
                chosen => chosen?,
            };
            let (name, id) = options
                .get(choice)
                .cloned()
                .ok_or_else(|| misfit(Misfit::ChoseStuckProcess))?;
            self.state.choices.push(choice);
            self.state.names.push(name.clone());
            section_steps += 1;
            let before = self.world.transaction_mode(id);
            let statement = matches!(
                self.world.next_step(id).map(|s| &s.kind),
                Some(StepKind::Sql { .. })
            );
            let result = self.step(id, &name)?;
            self.state.waited.push(result == StepResult::Blocked);
            let made = self.state.choices.len();
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

    /// Every member of a section still in its call waits on a lock: on a
    /// server, one of them may move once the server breaks the deadlock,
    /// which it is given the time to do; otherwise the run fails with it.
    fn stalled(&mut self, waiting: &[&(String, ProcessId)]) -> Flow {
        let ids: Vec<ProcessId> = waiting.iter().map(|(_, id)| *id).collect();
        if self.world.await_server(&ids).map_err(engine_error)? {
            return Ok(());
        }
        let processes = waiting.iter().map(|(n, _)| self.called(n)).collect();
        Err(self.failed(FailureCause::Deadlock { processes }))
    }

    fn state_key(&self, index: usize) -> Option<Vec<u8>> {
        let mut key = self.world.fingerprint()?;
        key.extend_from_slice(&(index as u64).to_le_bytes());
        key.extend(serde_json::to_vec(&self.state.monitor).ok()?);
        Some(key)
    }

    fn blocked_alone(&self, id: ProcessId, name: &str) -> End {
        let sql = match self.world.next_step(id).map(|s| &s.kind) {
            Some(StepKind::Sql { sql, .. }) => sql.clone(),
            _ => String::new(),
        };
        misfit(Misfit::BlockedAlone {
            process: name.to_string(),
            sql,
        })
    }
}

/// The end of a run that `error` stopped: a denial of a statement the
/// scenario wrote is the sandbox's ([`denied`]), anything else the engine's.
pub(super) fn engine_error(error: Error) -> End {
    End::Error(Box::new(match error {
        Error::Denied { sql, denial } => denied(denial, Some(sql)),
        error => ScenarioError::of(ErrorKind::Engine { error }),
    }))
}

/// What a reader calls each process the actions start, by its label.
pub(super) fn process_names(actions: &[Action]) -> BTreeMap<String, String> {
    fencelab_model::naming::process_names(actions.iter().filter_map(|action| match action {
        Action::Start { process, actor } => Some((process.as_str(), actor.as_str())),
        _ => None,
    }))
}
