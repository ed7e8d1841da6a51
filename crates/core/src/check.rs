//! The checker: runs scenarios against procedures and explores every
//! interleaving of their concurrent sections.
//!
//! A scenario is deterministic except inside concurrent sections, where the
//! next process to move is a choice. The checker enumerates those choices
//! depth first, re-running the scenario from the world's prepared image for
//! each branch (a step costs microseconds; an open transaction cannot be
//! copied, so re-running is the honest way back). It prunes a branch when it
//! reaches a state it has already seen at the same or a smaller depth: the
//! world's committed rows, every process's position, scope, memory and
//! transaction, the clock, the effects and the beliefs. What follows a state
//! depends on nothing else, so pruning loses no failure, and keeping the
//! smaller depth keeps the shortest one.
//!
//! A schedule is the order in which processes moved inside the concurrent
//! sections, written with the scenario's process names: `a b b a`. It
//! replays exactly into a history.
//!
//! Exploration is bounded by [`Limits`]; a run that hits a bound says so and
//! is never a pass.

use crate::error::Error;
use crate::history::{Event, Outcome, Values};
use crate::monitor::{BeliefRule, EffectRule, Monitor, OkCall};
use crate::procedure::{Procedure, StatementClass, StepKind};
use crate::scenario::{Action, Arg, ConcurrentCall, Expect, Point, Scenario};
use crate::value::Value;
use crate::world::{ProcessId, StepResult, World};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The bounds on one scenario's exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Complete schedules run before exploration stops.
    pub schedules_max: u64,
    /// Steps taken inside concurrent sections along one schedule.
    pub section_steps_max: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            schedules_max: 20_000,
            section_steps_max: 400,
        }
    }
}

/// What an exercise adds to its procedures for checking: the rules that turn
/// ok outcomes into beliefs, and the effects that need a current claim.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Model {
    #[serde(default)]
    pub beliefs: Vec<BeliefRule>,
    #[serde(default)]
    pub effects: Vec<EffectRule>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed,
    Error,
    /// The scenario demonstrates a limit of the protection, as intended.
    LimitShown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Expectation,
    Invariant,
    Deadlock,
}

/// Why a scenario failed, in one sentence, and where in the history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    /// The index of the history event after which it was detected.
    pub event_index: Option<usize>,
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
}

/// A scenario process's name, id and actor, for the timeline's lanes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    pub name: String,
    pub process: String,
    pub actor: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    pub name: String,
    pub summary: String,
    pub verdict: Verdict,
    /// True for "passed" and "limit shown".
    pub passed: bool,
    pub failure: Option<Failure>,
    /// For the "error" verdict: what went wrong (an SQL error, a bad
    /// scenario, a limit hit).
    pub error: Option<String>,
    /// Line and column in the procedure, for an SQL error.
    pub error_procedure: Option<String>,
    pub error_position: Option<crate::procedure::Position>,
    /// The schedule whose history is shown: the shortest failing one, or the
    /// first one explored.
    pub schedule: String,
    pub exploration: Exploration,
    pub lanes: Vec<Lane>,
    /// The exercise's tables before the scenario's first step; with each
    /// event's row changes they give the tables after any step.
    pub initial_tables: Vec<crate::history::TableRows>,
    pub history: Vec<Event>,
}

/// A scenario driven by hand, one chosen step at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drive {
    /// The history so far; once finished, the verdict of this schedule.
    pub report: ScenarioReport,
    /// The processes that may move next (empty once finished).
    pub options: Vec<String>,
    pub finished: bool,
}

impl ScenarioReport {
    /// The report of a scenario that could not run at all (its procedures do
    /// not parse, its steps are malformed).
    pub fn errored(
        scenario: &Scenario,
        message: &str,
        place: Option<(String, crate::procedure::Position)>,
    ) -> ScenarioReport {
        let (error_procedure, error_position) = match place {
            Some((procedure, position)) => (Some(procedure), Some(position)),
            None => (None, None),
        };
        ScenarioReport {
            name: scenario.name.clone(),
            summary: scenario.summary.clone(),
            verdict: Verdict::Error,
            passed: false,
            failure: None,
            error: Some(message.to_string()),
            error_procedure,
            error_position,
            schedule: String::new(),
            exploration: Exploration::default(),
            lanes: Vec::new(),
            initial_tables: Vec::new(),
            history: Vec::new(),
        }
    }
}

/// Runs scenarios against one set of procedures.
pub struct Checker {
    world: World,
    model: Model,
    limits: Limits,
}

impl Checker {
    pub fn new(
        schema_sql: &str,
        procedures: impl IntoIterator<Item = Procedure>,
        constants: Values,
        model: Model,
    ) -> Result<Checker, Error> {
        Ok(Checker {
            world: World::new(schema_sql, procedures, constants)?,
            model,
            limits: Limits::default(),
        })
    }

    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// Checks a scenario over every interleaving of its concurrent sections,
    /// then replays the schedule it reports to record its history.
    pub fn check(&mut self, scenario: &Scenario) -> ScenarioReport {
        let actions = match validate(scenario) {
            Ok(actions) => actions,
            Err(message) => return self.error_report(scenario, message),
        };
        let sections = actions
            .iter()
            .filter(|a| matches!(a, Action::Concurrent { .. }))
            .count() as u32;
        let mut exploration = Exploration {
            sections,
            ..Exploration::default()
        };
        let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut stack: Vec<Vec<usize>> = vec![Vec::new()];
        let mut worst: Option<(Vec<usize>, End)> = None;
        let mut first_complete: Option<Vec<usize>> = None;
        self.world.set_recording(false);
        while let Some(prefix) = stack.pop() {
            if exploration.schedules >= self.limits.schedules_max {
                self.world.set_recording(true);
                return self.error_report(
                    scenario,
                    format!(
                        "exploration stopped at its limit of {} schedules before covering \
                         every interleaving: this is not a pass",
                        self.limits.schedules_max
                    ),
                );
            }
            let mut chooser = Chooser::Explore {
                prefix: &prefix,
                seen: &mut seen,
            };
            let path = self.run_path(scenario, &actions, &mut chooser, None);
            for &(depth, options) in &path.branch_points {
                if depth >= prefix.len() {
                    for option in (1..options).rev() {
                        let mut sibling = path.choices[..depth].to_vec();
                        sibling.push(option);
                        stack.push(sibling);
                    }
                }
            }
            match &path.end {
                End::Pruned => exploration.pruned += 1,
                // Exploration never waits for a person nor stops early.
                End::Awaiting(_) | End::Stopped => {}
                End::Completed => {
                    exploration.schedules += 1;
                    first_complete.get_or_insert(path.choices.clone());
                }
                End::Failed(_) | End::Error(..) => {
                    exploration.schedules += 1;
                    let better = worst.as_ref().is_none_or(|(choices, end)| {
                        // Errors outrank failures; then shorter, then earlier.
                        let rank = |e: &End| matches!(e, End::Error(..)) as u8;
                        (rank(&path.end), std::cmp::Reverse(path.choices.len()))
                            > (rank(end), std::cmp::Reverse(choices.len()))
                    });
                    if better {
                        worst = Some((path.choices.clone(), path.end.clone()));
                    }
                }
            }
        }
        exploration.states = seen.len() as u64;
        self.world.set_recording(true);
        let shown = worst
            .as_ref()
            .map(|(choices, _)| choices.clone())
            .or(first_complete)
            .unwrap_or_default();
        let mut report = self.replay_choices(scenario, &actions, &shown);
        report.exploration = exploration;
        report
    }

    /// Runs `runs` schedules chosen at random from `seed`, for scenarios too
    /// large to explore exhaustively. The sequence is portable, so a seed
    /// that fails reproduces the same schedule natively and in wasm. Reports
    /// the first failing schedule (replayed, with its history), or the last.
    pub fn check_random(&mut self, scenario: &Scenario, seed: u64, runs: u64) -> ScenarioReport {
        let actions = match validate(scenario) {
            Ok(actions) => actions,
            Err(message) => return self.error_report(scenario, message),
        };
        let mut rng = crate::random::SplitMix64::new(seed);
        self.world.set_recording(false);
        let mut last = Vec::new();
        let mut done = 0;
        for _ in 0..runs {
            let mut chooser = Chooser::Random { rng: &mut rng };
            let path = self.run_path(scenario, &actions, &mut chooser, None);
            done += 1;
            last = path.choices;
            if matches!(path.end, End::Failed(_) | End::Error(..)) {
                break;
            }
        }
        self.world.set_recording(true);
        let mut report = self.replay_choices(scenario, &actions, &last);
        report.exploration.sections = actions
            .iter()
            .filter(|a| matches!(a, Action::Concurrent { .. }))
            .count() as u32;
        report.exploration.schedules = done;
        report
    }

    /// Replays one schedule (`a b b a`) and reports its verdict and history.
    pub fn replay(&mut self, scenario: &Scenario, schedule: &str) -> ScenarioReport {
        let actions = match validate(scenario) {
            Ok(actions) => actions,
            Err(message) => return self.error_report(scenario, message),
        };
        self.world.set_recording(true);
        let names: Vec<String> = schedule.split_whitespace().map(String::from).collect();
        let mut chooser = Chooser::Names {
            names: &names,
            interactive: false,
        };
        let path = self.run_path(scenario, &actions, &mut chooser, None);
        let mut report = self.report(scenario, path);
        report.exploration.sections = actions
            .iter()
            .filter(|a| matches!(a, Action::Concurrent { .. }))
            .count() as u32;
        report.exploration.schedules = 1;
        report
    }

    /// Follows `schedule` and stops at the next choice, reporting which
    /// processes may move: the learner drives a concurrent section by hand.
    /// Undo is a shorter schedule.
    pub fn drive(&mut self, scenario: &Scenario, schedule: &[String]) -> Drive {
        let actions = match validate(scenario) {
            Ok(actions) => actions,
            Err(message) => {
                return Drive {
                    report: self.error_report(scenario, message),
                    options: Vec::new(),
                    finished: true,
                };
            }
        };
        self.world.set_recording(true);
        let mut chooser = Chooser::Names {
            names: schedule,
            interactive: true,
        };
        let mut path = self.run_path(scenario, &actions, &mut chooser, None);
        let options = match std::mem::take(&mut path.end) {
            End::Awaiting(options) => Some(options),
            end => {
                path.end = end;
                None
            }
        };
        Drive {
            report: self.report(scenario, path),
            finished: options.is_none(),
            options: options.unwrap_or_default(),
        }
    }

    /// Replays `schedule` up to the step that recorded history event
    /// `event_index`, then runs a read-only query against the world as the
    /// process of that event saw it (its own uncommitted writes included).
    pub fn query_after(
        &mut self,
        scenario: &Scenario,
        schedule: &str,
        event_index: usize,
        sql: &str,
    ) -> Result<crate::history::ResultRows, Error> {
        let actions = validate(scenario).map_err(|message| Error::Query {
            sql: sql.to_string(),
            message,
        })?;
        self.world.set_recording(true);
        let names: Vec<String> = schedule.split_whitespace().map(String::from).collect();
        let mut chooser = Chooser::Names {
            names: &names,
            interactive: true,
        };
        self.run_path(scenario, &actions, &mut chooser, Some(event_index));
        let history = self.world.take_history();
        let process = history
            .get(event_index)
            .and_then(|e| e.process.as_deref())
            .and_then(|p| self.world.process_id(p));
        self.world.query_as(process, sql, &Values::new())
    }

    fn replay_choices(
        &mut self,
        scenario: &Scenario,
        actions: &[Action],
        choices: &[usize],
    ) -> ScenarioReport {
        let mut chooser = Chooser::Indices { choices };
        let path = self.run_path(scenario, actions, &mut chooser, None);
        self.report(scenario, path)
    }

    fn report(&mut self, scenario: &Scenario, path: Path) -> ScenarioReport {
        let history = self.world.take_history();
        let (verdict, failure, error) = match path.end {
            End::Completed if scenario.limit => (Verdict::LimitShown, None, None),
            End::Completed => (Verdict::Passed, None, None),
            End::Failed(failure) => (Verdict::Failed, Some(failure), None),
            End::Error(message, place) => (Verdict::Error, None, Some((message, place))),
            // A replay follows a fixed schedule and never prunes or waits.
            End::Pruned | End::Awaiting(_) | End::Stopped => (
                Verdict::Error,
                None,
                Some(("the replay was cut short".into(), None)),
            ),
        };
        let (error, error_procedure, error_position) = match error {
            Some((message, Some((procedure, position)))) => {
                (Some(message), Some(procedure), position)
            }
            Some((message, None)) => (Some(message), None, None),
            None => (None, None, None),
        };
        ScenarioReport {
            name: scenario.name.clone(),
            summary: scenario.summary.clone(),
            passed: matches!(verdict, Verdict::Passed | Verdict::LimitShown),
            verdict,
            failure,
            error,
            error_procedure,
            error_position,
            schedule: path.names.join(" "),
            exploration: Exploration::default(),
            lanes: path.lanes,
            initial_tables: path.initial_tables,
            history,
        }
    }

    fn error_report(&self, scenario: &Scenario, message: String) -> ScenarioReport {
        ScenarioReport::errored(
            scenario,
            &format!("scenario `{}`: {message}", scenario.name),
            None,
        )
    }

    /// Runs the scenario once from the prepared image, taking choices from
    /// `chooser`.
    fn run_path(
        &mut self,
        scenario: &Scenario,
        actions: &[Action],
        chooser: &mut Chooser<'_>,
        stop_after_event: Option<usize>,
    ) -> Path {
        let mut run = Run {
            world: &mut self.world,
            model: &self.model,
            scenario,
            limits: self.limits,
            processes: BTreeMap::new(),
            calls: BTreeMap::new(),
            monitor: Monitor::default(),
            effects_seen: 0,
            stop_after_event,
            path: Path::default(),
        };
        let end = match run.world.reset() {
            Ok(()) => {
                if run.world.recording() {
                    run.path.initial_tables = run.world.tables().unwrap_or_default();
                }
                run.run(actions, chooser)
            }
            Err(error) => End::Error(error.to_string(), None),
        };
        run.path.end = end;
        run.path.lanes = run
            .processes
            .iter()
            .map(|(name, (id, actor))| Lane {
                name: name.clone(),
                process: id.to_string(),
                actor: actor.clone(),
            })
            .collect();
        run.path
    }
}

fn validate(scenario: &Scenario) -> Result<Vec<Action>, String> {
    scenario
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| step.to_action().map_err(|e| format!("step {}: {e}", i + 1)))
        .collect()
}

/// Where a call failed with an SQL error: its procedure and position.
type Place = Option<(String, Option<crate::procedure::Position>)>;

#[derive(Clone, Debug, Default)]
enum End {
    #[default]
    Completed,
    Pruned,
    Failed(Failure),
    Error(String, Place),
    /// Driving by hand: the schedule ran out where these processes may move.
    Awaiting(Vec<String>),
    /// Stopped after the requested history event.
    Stopped,
}

#[derive(Default)]
struct Path {
    end: End,
    /// The option index taken at each choice, in order.
    choices: Vec<usize>,
    /// The process names taken at each choice: the schedule.
    names: Vec<String>,
    /// (choice index, number of options) wherever there was a choice.
    branch_points: Vec<(usize, usize)>,
    lanes: Vec<Lane>,
    initial_tables: Vec<crate::history::TableRows>,
}

enum Chooser<'a> {
    /// Follow `prefix`, then always the first option, pruning seen states.
    Explore {
        prefix: &'a [usize],
        seen: &'a mut HashMap<Vec<u8>, usize>,
    },
    Indices {
        choices: &'a [usize],
    },
    /// Choose at random from a seeded, portable sequence.
    Random {
        rng: &'a mut crate::random::SplitMix64,
    },
    /// Follow the named processes; when they run out, take the first option,
    /// or (`interactive`) stop and report the options.
    Names {
        names: &'a [String],
        interactive: bool,
    },
}

struct CallInfo {
    procedure: String,
    arguments: Values,
    expect: Option<Expect>,
}

struct Run<'a> {
    world: &'a mut World,
    model: &'a Model,
    scenario: &'a Scenario,
    limits: Limits,
    /// Scenario name -> (process, actor).
    processes: BTreeMap<String, (ProcessId, String)>,
    /// Calls in progress, by process.
    calls: BTreeMap<ProcessId, CallInfo>,
    monitor: Monitor,
    effects_seen: usize,
    stop_after_event: Option<usize>,
    path: Path,
}

/// Stops the run with an end, from inside helper methods.
type Flow<T = ()> = Result<T, End>;

impl Run<'_> {
    fn run(&mut self, actions: &[Action], chooser: &mut Chooser<'_>) -> End {
        for (index, action) in actions.iter().enumerate() {
            if let Err(end) = self
                .act(index, action, chooser)
                .and_then(|()| self.stop_here())
            {
                return end;
            }
        }
        End::Completed
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
                    .world
                    .query_in_context(sql, self.monitor.beliefs())
                    .map_err(engine_error)?
                    .ok_or_else(|| {
                        scenario_error(format!(
                            "`{sql}` cannot read the committed rows now: a process is paused \
                             inside its transaction, holding the write lock"
                        ))
                    })?;
                if &got.rows != rows {
                    return Err(self.failed(
                        FailureKind::Expectation,
                        format!(
                            "`{sql}` returned {}, expected {}",
                            show_rows(&got.rows),
                            show_rows(rows)
                        ),
                    ));
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
        let result = self.world.step(id).map_err(engine_error)?;
        self.stop_here()?;
        if let StepResult::Finished(outcome) = &result {
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
                let names: Vec<&str> = waiting.iter().map(|(n, _)| n.as_str()).collect();
                return Err(self.failed(
                    FailureKind::Deadlock,
                    format!(
                        "deadlock: {} each wait for a lock another holds",
                        names.join(" and ")
                    ),
                ));
            }
            if section_steps >= self.limits.section_steps_max {
                return Err(End::Error(
                    format!(
                        "a concurrent section took more than {} steps: exploration stopped, \
                         this is not a pass",
                        self.limits.section_steps_max
                    ),
                    None,
                ));
            }
            let depth = self.path.choices.len();
            let choice = match chooser {
                Chooser::Explore { prefix, .. } => {
                    if options.len() > 1 {
                        self.path.branch_points.push((depth, options.len()));
                    }
                    prefix.get(depth).copied().unwrap_or(0)
                }
                Chooser::Indices { choices } => choices.get(depth).copied().unwrap_or(0),
                Chooser::Random { rng } => rng.below(options.len()),
                Chooser::Names { names, interactive } => match names.get(depth) {
                    Some(wanted) => options.iter().position(|(n, _)| n == wanted).ok_or_else(
                        || {
                            scenario_error(format!(
                                "the schedule's step {} names {wanted}, but only {} can move then",
                                depth + 1,
                                options
                                    .iter()
                                    .map(|(n, _)| n.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        },
                    )?,
                    None if *interactive => {
                        return Err(End::Awaiting(options.into_iter().map(|(n, _)| n).collect()));
                    }
                    None => 0,
                },
            };
            let (name, id) = options.get(choice).cloned().ok_or_else(|| {
                scenario_error("the schedule chose a process that cannot move".into())
            })?;
            self.path.choices.push(choice);
            self.path.names.push(name.clone());
            section_steps += 1;
            self.step(id, &name)?;
            if let Chooser::Explore { prefix, seen } = chooser
                && self.path.choices.len() >= prefix.len()
                && let Some(key) = self.state_key(index)
            {
                let depth = self.path.choices.len();
                match seen.get(&key) {
                    Some(&earlier) if earlier <= depth => return Err(End::Pruned),
                    _ => {
                        seen.insert(key, depth);
                    }
                }
            }
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
            return Err(End::Error(
                format!("{name}'s {}: {}", info.procedure, error.message),
                Some((error.procedure.clone(), error.position)),
            ));
        }
        if let Outcome::Ok { values } = outcome
            && !self.scenario.limit
        {
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
            // The invariants come first: a broken fence is the news, an
            // expectation that then fails is its consequence.
            if let Err(message) = self
                .monitor
                .call_ok(&self.model.beliefs, &call)
                .and_then(|()| self.monitor.check_exclusive(self.world.clock_seconds()))
            {
                return Err(self.failed(FailureKind::Invariant, message));
            }
        }
        if let Some(expect) = &info.expect
            && let Err(message) = expectation_met(expect, outcome)
        {
            return Err(self.failed(
                FailureKind::Expectation,
                format!("{name}'s {}: {message}", info.procedure),
            ));
        }
        Ok(())
    }

    /// The invariants checked after every step.
    fn after_step(&mut self) -> Flow {
        if self.scenario.limit {
            return Ok(());
        }
        let clock = self.world.clock_seconds();
        while let Some(effect) = self.world.effects().get(self.effects_seen) {
            self.effects_seen += 1;
            if let Err(message) = self.monitor.effect(&self.model.effects, effect, clock) {
                return Err(self.failed(FailureKind::Invariant, message));
            }
        }
        if let Err(message) = self.monitor.check_exclusive(clock) {
            return Err(self.failed(FailureKind::Invariant, message));
        }
        if !self.scenario.invariants.is_empty() {
            for invariant in &self.scenario.invariants {
                let Some(rows) = self
                    .world
                    .query_in_context(&invariant.sql, self.monitor.beliefs())
                    .map_err(engine_error)?
                else {
                    // A process holds the write lock; the committed state has
                    // not changed, and it is checked again at the commit.
                    return Ok(());
                };
                if let Some(row) = rows.rows.first() {
                    let shown: Vec<String> = row.iter().map(Value::to_string).collect();
                    return Err(self.failed(
                        FailureKind::Invariant,
                        format!("{}: violated by ({})", invariant.name, shown.join(", ")),
                    ));
                }
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

    fn failed(&self, kind: FailureKind, message: String) -> End {
        let history = self.world.history().len();
        End::Failed(Failure {
            kind,
            message,
            event_index: history.checked_sub(1),
        })
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

fn scenario_error(message: String) -> End {
    End::Error(message, None)
}

fn engine_error(error: Error) -> End {
    End::Error(error.to_string(), None)
}

/// Whether an outcome meets an expectation; if not, what differs.
pub fn expectation_met(expect: &Expect, outcome: &Outcome) -> Result<(), String> {
    let described = describe_outcome(outcome);
    if let Some(kind) = &expect.outcome
        && kind != outcome.kind()
    {
        return Err(format!("expected {kind}, got {described}"));
    }
    if let Some(category) = &expect.category {
        match outcome {
            Outcome::Refused { category: got, .. } if got == category => {}
            _ => return Err(format!("expected refused ({category}), got {described}")),
        }
    }
    if !expect.values.is_empty() {
        let Outcome::Ok { values } = outcome else {
            return Err(format!("expected ok with values, got {described}"));
        };
        for (name, wanted) in &expect.values {
            match values.get(name) {
                Some(got) if got == wanted => {}
                Some(got) => return Err(format!("expected {name} = {wanted}, got {name} = {got}")),
                None => {
                    return Err(format!(
                        "expected {name} = {wanted}, but it returned no {name}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// An outcome in a few words: `ok (token = 3)`, `refused (not_claimable)`.
pub fn describe_outcome(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok { values } if values.is_empty() => "ok".into(),
        Outcome::Ok { values } => {
            let shown: Vec<String> = values.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!("ok ({})", shown.join(", "))
        }
        Outcome::Refused { category, .. } => format!("refused ({category})"),
        Outcome::Error(error) => format!("error ({})", error.message),
    }
}

fn show_rows(rows: &[Vec<Value>]) -> String {
    let shown: Vec<String> = rows
        .iter()
        .map(|row| {
            let cells: Vec<String> = row.iter().map(Value::to_string).collect();
            format!("({})", cells.join(", "))
        })
        .collect();
    format!("[{}]", shown.join(", "))
}
