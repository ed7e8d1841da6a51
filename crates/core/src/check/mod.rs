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

mod context;
mod end;
mod explore;
mod footprint;
mod judge;
mod random;
mod run;
mod search;
mod state;
mod suite;

pub use explore::Strategy;
pub use search::{Progress, Purpose, ScenarioSearch};
pub use suite::{SUITE_SCENARIOS_OF_BUDGET, SuiteBudget, SuiteSearch};

use crate::error::Error;
use crate::history::{Event, ResultRows, TableRows, Values};
use crate::hunt::{Hunt, HuntVerdict};
use crate::monitor::Belief;
use crate::procedure::Procedure;
use crate::report::{
    Drive, ErrorKind, Exploration, Lane, Misfit, ScenarioError, ScenarioReport, ScenarioResult,
};
use crate::scenario::{Action, Scenario};
use crate::schedule::Schedule;
use crate::world::World;
use end::End;
use explore::Chooser;
use fencelab_model::exercise::{Journal, Rules};
use run::Run;
use serde::{Deserialize, Serialize};
use state::{Resume, State};
use std::sync::Arc;

/// The bounds on one scenario's exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Complete schedules run before exploration stops.
    pub schedules_max: u64,
    /// Steps taken inside concurrent sections along one schedule.
    pub section_steps_max: usize,
    /// Procedure steps run by one check of a scenario, over every run it
    /// explores, the pruned ones included: the bound on its time, whatever
    /// the scenario's shape (complete schedules alone do not bound it). The
    /// bundled suites need at most 1,600 for any scenario, reference or
    /// mutant; the default leaves two orders of magnitude.
    pub steps_max: u64,
    /// SQLite steps (VM instructions, and the metered text functions' work
    /// in the same unit) run by one check of a scenario, over every run:
    /// the bound on the time its statements take, which the procedure-step
    /// limit alone is not (one statement may take a million). The bundled
    /// suites need at most 22,000 for any scenario, reference or mutant.
    pub sqlite_steps_max: u64,
    /// Bytes the check may hold at once of explored states (the keys that
    /// let it prune) and recorded history, by the engine's own accounting.
    /// SQLite's own heap is bounded separately, for the whole program
    /// ([`crate::sqlite::HEAP_BYTES_MAX`]).
    pub memory_bytes_max: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            schedules_max: 20_000,
            section_steps_max: 400,
            steps_max: 100_000,
            sqlite_steps_max: 5_000_000,
            memory_bytes_max: 16 * 1024 * 1024,
        }
    }
}

/// What the checker's current public call has spent against its [`Limits`]
/// (SQLite steps are counted by the world's meter).
#[derive(Clone, Copy, Debug, Default)]
struct Spent {
    procedure_steps: u64,
    /// The most bytes of explored states and history held at once.
    memory_bytes: u64,
}

/// Runs scenarios against one set of procedures.
pub struct Checker {
    world: World,
    /// What the run's beliefs and effects tables hold.
    run_tables: context::Loaded,
    rules: Rules,
    limits: Limits,
    strategy: Strategy,
    /// Whether the depth-first search resumes runs from images of the
    /// world instead of replaying each from the seed.
    resuming: bool,
    /// Runs resumed from an image since the checker was made.
    resumed_runs: u64,
    /// See [`Checker::set_recording_first_runs`].
    recording_first_runs: bool,
    /// Whether the run under way is recorded before it is known to be the
    /// one shown (a search's first run): its history is then not counted
    /// against the memory limit, as exploring does not hold it (see
    /// `ScenarioSearch::advance`).
    recording_speculatively: bool,
    /// Spent since the current public call (or its replay) began.
    spent: Spent,
}

impl Checker {
    pub fn new(
        schema_sql: &str,
        procedures: impl IntoIterator<Item = Procedure>,
        constants: Values,
        rules: Rules,
    ) -> Result<Checker, Error> {
        Checker::with_journal(schema_sql, procedures, constants, rules, Journal::Delete)
    }

    /// As [`Checker::new`], on a world whose tables live on `server`, which
    /// already holds the exercise's schema and seed rows (`crate::server`).
    pub fn on_server(
        server: Box<dyn crate::server::Server>,
        procedures: impl IntoIterator<Item = Procedure>,
        constants: Values,
        rules: Rules,
    ) -> Result<Checker, Error> {
        Ok(Checker::around(
            World::on_server(server, procedures, constants)?,
            rules,
        ))
    }

    /// As [`Checker::new`], with the world's database in `journal` mode.
    pub fn with_journal(
        schema_sql: &str,
        procedures: impl IntoIterator<Item = Procedure>,
        constants: Values,
        rules: Rules,
        journal: Journal,
    ) -> Result<Checker, Error> {
        let world = World::with_journal(schema_sql, procedures, constants, journal)?;
        Ok(Checker::around(world, rules))
    }

    fn around(world: World, rules: Rules) -> Checker {
        Checker {
            world,
            run_tables: context::Loaded::default(),
            rules,
            limits: Limits::default(),
            strategy: Strategy::default(),
            resuming: true,
            resumed_runs: 0,
            recording_first_runs: true,
            recording_speculatively: false,
            spent: Spent::default(),
        }
    }

    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// How the world finds the rows each recorded step changed (the tests
    /// compare the two recorders).
    pub fn set_recorder(&mut self, recorder: crate::world::Recorder) {
        self.world.set_recorder(recorder);
    }

    /// How [`Checker::check`] and [`Checker::search`] explore: reduced (the
    /// default) or plain, which the differential test and the benchmark
    /// compare, or random.
    pub fn set_strategy(&mut self, strategy: Strategy) {
        self.strategy = strategy;
    }

    /// Whether exploring resumes each run from the deepest image of the
    /// world kept at a choice it replays (the default), or replays it from
    /// the seed: the same reports, figures included, which the differential
    /// test and the benchmark compare.
    pub fn set_resuming(&mut self, resuming: bool) {
        self.resuming = resuming;
    }

    /// Whether a search records its first run as it explores it, to show
    /// it without a replay when it is the run to show (the default), or
    /// explores unrecorded and replays the run to show: the same reports,
    /// figures included, which the differential test compares.
    pub fn set_recording_first_runs(&mut self, recording: bool) {
        self.recording_first_runs = recording;
    }

    /// How many runs resumed from an image since the checker was made
    /// (the rest started from the seed).
    pub fn resumed_runs(&self) -> u64 {
        self.resumed_runs
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// Replaces (or adds) a procedure: the next check runs its text. The
    /// world is reset before every run, so nothing of the old text's runs
    /// reaches the new one's.
    pub fn set_procedure(&mut self, procedure: Procedure) {
        self.world.set_procedure(procedure);
    }

    /// Serves another set of texts of the same exercise: `procedures` in
    /// place of every procedure held, and the limits, strategy and budget a
    /// new checker starts with. What [`Checker::with_journal`] would build
    /// for them, without building the schema, the seed rows and the
    /// connections again, or preparing again the statements its cache
    /// keeps: every run starts from the seed image ([`World::reset`]), so
    /// nothing of an earlier text's runs reaches a report (the suite's
    /// `kept_checker` tests compare every bundled text both ways). Fails
    /// only if the world cannot be reset, giving `procedures` back: build a
    /// new checker with them then. A text that did not change need not be
    /// parsed again: [`Checker::parsed`] has it.
    pub fn renew(&mut self, procedures: Vec<Arc<Procedure>>) -> Result<(), Vec<Arc<Procedure>>> {
        if self.world.reset().is_err() {
            return Err(procedures);
        }
        self.world.replace_procedures(procedures);
        self.limits = Limits::default();
        self.strategy = Strategy::default();
        self.resuming = true;
        self.spent = Spent::default();
        Ok(())
    }

    /// The procedure `name` this checker holds, if it was parsed from
    /// exactly `source` ([`World::parsed`]).
    pub fn parsed(&self, name: &str, source: &str) -> Option<Arc<Procedure>> {
        self.world.parsed(name, source)
    }

    /// Starts the budget of a public call (or of its replay) afresh.
    fn begin_budget(&mut self) {
        self.spent = Spent::default();
        self.world.meter().start(self.limits.sqlite_steps_max);
    }

    /// Adds what the current budget spent to `exploration`'s figures.
    fn add_spent(&self, exploration: &mut Exploration) {
        exploration.procedure_steps += self.spent.procedure_steps;
        exploration.sqlite_steps += self.world.meter().spent();
        exploration.memory_bytes = exploration.memory_bytes.max(self.spent.memory_bytes);
    }

    /// Checks a scenario over every interleaving of its concurrent sections,
    /// then replays the schedule it reports to record its history. The
    /// same as advancing [`Checker::search`] to its end.
    pub fn check(&mut self, scenario: &Scenario) -> ScenarioReport {
        let search = self.search(scenario);
        self.finish(search)
    }

    /// `search` advanced to its end, in one go.
    fn finish(&mut self, mut search: ScenarioSearch) -> ScenarioReport {
        loop {
            if let Progress::Done(report) = search.advance(self, u64::MAX) {
                return *report;
            }
        }
    }

    /// Runs `runs` schedules chosen at random from `seed`, for scenarios too
    /// large to explore exhaustively: [`Checker::check`] with
    /// [`Strategy::Random`] for this scenario. The sequence is portable, so
    /// a seed that fails reproduces the same schedule natively and in wasm.
    /// Reports the first failing schedule (replayed, with its history), or
    /// the last, and the seed in its exploration figures.
    /// The search owns its strategy, so the checker's own is left as it was.
    pub fn check_random(&mut self, scenario: &Scenario, seed: u64, runs: u64) -> ScenarioReport {
        let search = self.search_by(scenario, Strategy::Random { seed, runs });
        self.finish(search)
    }

    /// Replays one schedule and reports its verdict and history.
    pub fn replay(&mut self, scenario: &Scenario, schedule: &Schedule) -> ScenarioReport {
        self.begin_budget();
        let actions = match validate(scenario) {
            Ok(actions) => actions,
            Err(error) => return ScenarioReport::errored(scenario, error),
        };
        self.world.set_recording(true);
        let mut chooser = Chooser::Names {
            schedule,
            interactive: false,
        };
        let path = self.run_path(scenario, &actions, &mut chooser, None, None);
        let mut report = self.report(scenario, path);
        report.exploration.sections = sections(&actions);
        report.exploration.schedules = 1;
        self.add_spent(&mut report.exploration);
        report
    }

    /// Follows `schedule` and stops at the next choice, reporting which
    /// processes may move: the learner drives a concurrent section by hand.
    /// Undo is a shorter schedule.
    pub fn drive(&mut self, scenario: &Scenario, schedule: &Schedule) -> Drive {
        self.begin_budget();
        let actions = match validate(scenario) {
            Ok(actions) => actions,
            Err(error) => {
                return Drive {
                    report: ScenarioReport::errored(scenario, error),
                    options: Vec::new(),
                    finished: true,
                    next: Vec::new(),
                };
            }
        };
        self.world.set_recording(true);
        let mut chooser = Chooser::Names {
            schedule,
            interactive: true,
        };
        let mut path = self.run_path(scenario, &actions, &mut chooser, None, None);
        let options = match std::mem::take(&mut path.end) {
            End::Awaiting(options) => Some(options),
            end => {
                path.end = end;
                None
            }
        };
        let next = std::mem::take(&mut path.next);
        Drive {
            report: self.report(scenario, path),
            finished: options.is_none(),
            options: options.unwrap_or_default(),
            next,
        }
    }

    /// A drive judged as a hunt ("break it yourself"): [`Checker::drive`],
    /// and once the drive has broken a guarantee, the scenario explored over
    /// every interleaving, so the learner's break is measured against the
    /// shortest one (the check's shown schedule).
    pub fn hunt(&mut self, scenario: &Scenario, schedule: &Schedule) -> Hunt {
        let drive = self.drive(scenario, schedule);
        let verdict = HuntVerdict::judge(&drive, || self.check(scenario));
        Hunt { drive, verdict }
    }

    /// Replays `schedule` up to the step that recorded history event
    /// `event_index`, then runs a read-only query against the world as the
    /// process of that event saw it (its own uncommitted writes included).
    /// A query that reads the run's own `beliefs` or `effects` tables (as
    /// scenario queries may) sees them as they were after that event, beside
    /// the committed rows.
    pub fn query_after(
        &mut self,
        scenario: &Scenario,
        schedule: &Schedule,
        event_index: usize,
        sql: &str,
    ) -> Result<ResultRows, Error> {
        self.begin_budget();
        let actions = validate(scenario).map_err(|error| Error::Query {
            sql: sql.to_string(),
            message: error.message(),
        })?;
        self.world.set_recording(true);
        let chooser = || Chooser::Names {
            schedule,
            interactive: true,
        };
        // The beliefs after an event include what the call that ended there
        // returned, which a run stopped at that event has not judged yet:
        // they come from a whole run first.
        let beliefs = reads_run_tables(sql).then(|| {
            let whole = self.run_path(scenario, &actions, &mut chooser(), None, None);
            let last = whole.beliefs.len().saturating_sub(1);
            whole
                .beliefs
                .get(event_index.min(last))
                .cloned()
                .unwrap_or_default()
        });
        self.run_path(scenario, &actions, &mut chooser(), Some(event_index), None);
        let history = self.world.take_history();
        if let Some(beliefs) = beliefs {
            return self
                .run_tables
                .query(&self.world, sql, &beliefs)?
                .ok_or_else(|| Error::Query {
                    sql: sql.to_string(),
                    message: "a process holds the write lock at this step, so the committed rows \
                          the beliefs and effects are read beside cannot be; choose a step \
                          after its COMMIT"
                        .into(),
                });
        }
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
        let path = self.run_path(
            scenario,
            actions,
            &mut Chooser::Indices(choices),
            None,
            None,
        );
        self.report(scenario, path)
    }

    fn report(&mut self, scenario: &Scenario, path: Path) -> ScenarioReport {
        let history = self.world.take_history();
        report_of(scenario, path, history)
    }

    /// Runs the scenario once from the prepared image, or from `resume`,
    /// taking choices from `chooser`.
    fn run_path(
        &mut self,
        scenario: &Scenario,
        actions: &[Action],
        chooser: &mut Chooser<'_>,
        stop_after_event: Option<usize>,
        resume: Option<&Resume>,
    ) -> Path {
        let spent_before = (self.spent.procedure_steps, self.world.meter().spent());
        self.resumed_runs += u64::from(resume.is_some());
        // A server's sessions, opened as the run starts its processes, take
        // the scenario's isolation level; a SQLite world has none.
        self.world
            .set_isolation(scenario.isolation.unwrap_or_default());
        let mut run = Run {
            world: &mut self.world,
            run_tables: &mut self.run_tables,
            rules: &self.rules,
            scenario,
            limits: self.limits,
            names: run::process_names(actions),
            state: State::default(),
            stop_after_event,
            path: Path::default(),
            spent: &mut self.spent,
            spent_before,
            held: None,
            invariants_read_run_tables: None,
            history_counted: !self.recording_speculatively,
        };
        let put_back = match resume {
            Some(resume) => run.world.resume(resume.world()).map(|()| {
                // What the replay of the path down to the image would spend.
                let (procedure_steps, sqlite_steps) = resume.cost();
                run.spent.procedure_steps += procedure_steps;
                run.world.meter().charge(sqlite_steps);
            }),
            None => run.world.reset(),
        };
        let end = match put_back {
            Ok(()) => {
                if run.world.recording() {
                    run.path.initial_tables = run.world.tables().unwrap_or_default();
                }
                run.run(actions, chooser, resume)
            }
            Err(error) => run::engine_error(error),
        };
        run.into_path(end)
    }
}

/// The report of one run: its trace and the history it recorded.
fn report_of(scenario: &Scenario, path: Path, history: Vec<Event>) -> ScenarioReport {
    let result = match path.end {
        End::Completed if scenario.limit => ScenarioResult::LimitShown,
        End::Completed => ScenarioResult::Passed,
        End::Failed(failure) => ScenarioResult::Failed { failure: *failure },
        End::Error(error) => ScenarioResult::Error { error: *error },
        // A replay follows a fixed schedule and never prunes or waits.
        End::Pruned | End::Awaiting(_) | End::Stopped => ScenarioResult::Error {
            error: ScenarioError::of(ErrorKind::Misfit {
                misfit: Misfit::ReplayCutShort,
            }),
        },
    };
    ScenarioReport {
        name: scenario.name.clone(),
        summary: scenario.summary.clone(),
        result,
        schedule: path.names.into_iter().collect(),
        exploration: Exploration::default(),
        lanes: path.lanes,
        initial_tables: path.initial_tables,
        history,
        beliefs: path.beliefs,
    }
}

/// One run's trace.
#[derive(Default)]
struct Path {
    end: End,
    /// The option index taken at each choice, in order.
    choices: Vec<usize>,
    /// The process names taken at each choice: the schedule.
    names: Vec<String>,
    /// Whether the step taken at each choice met another process's lock
    /// (and so waits for it).
    waited: Vec<bool>,
    lanes: Vec<Lane>,
    initial_tables: Vec<TableRows>,
    /// What the processes believe after each recorded event.
    beliefs: Vec<Vec<Belief>>,
    /// A drive awaiting the learner's move: the statement each process
    /// that may move would run next, by option.
    next: Vec<Option<String>>,
}

impl Path {
    /// Whether some process met a lock at a choice and, at a later one,
    /// moved on: a wait and then the step going through.
    fn waits_then_goes_through(&self) -> bool {
        self.waited.iter().enumerate().any(|(at, &waited)| {
            waited
                && self.names[at + 1..]
                    .iter()
                    .zip(&self.waited[at + 1..])
                    .any(|(name, &again)| *name == self.names[at] && !again)
        })
    }
}

/// Whether `sql` may read the run's own `beliefs` or `effects` table, or
/// see that they exist: it names one, or the temp schema, or the list of
/// every schema's tables, as a word or quoted (SQLite takes `'beliefs'`
/// for a name where only a name can stand), or it cannot be read as
/// tokens at all. Comments do not count.
fn reads_run_tables(sql: &str) -> bool {
    use crate::procedure::lexer::TokenKind;
    const NAMES: [&str; 7] = [
        "beliefs",
        "effects",
        "temp",
        "sqlite_temp_master",
        "sqlite_temp_schema",
        "table_list",
        "pragma_table_list",
    ];
    let Ok(tokens) = crate::procedure::lexer::tokens(sql) else {
        return true;
    };
    tokens.iter().any(|token| {
        let text = token.text(sql);
        let name = match token.kind {
            TokenKind::Word => text,
            TokenKind::QuotedName | TokenKind::String => text
                .get(1..text.len().saturating_sub(1))
                .unwrap_or_default(),
            _ => return false,
        };
        NAMES.iter().any(|known| name.eq_ignore_ascii_case(known))
    })
}

fn validate(scenario: &Scenario) -> Result<Vec<Action>, ScenarioError> {
    scenario
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            step.to_action()
                .map_err(|error| ScenarioError::of(ErrorKind::Step { step: i + 1, error }))
        })
        .collect::<Result<_, _>>()
        .map_err(|error| in_scenario(scenario, error))
}

/// Names the scenario in an error about the scenario as a whole (a step
/// that is malformed, an exploration limit).
fn in_scenario(scenario: &Scenario, error: ScenarioError) -> ScenarioError {
    error.in_scenario(&scenario.name)
}

/// The number of concurrent sections among `actions`.
fn sections(actions: &[Action]) -> u32 {
    let count = actions
        .iter()
        .filter(|a| matches!(a, Action::Concurrent { .. }))
        .count();
    u32::try_from(count).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::reads_run_tables;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A query that may see the run's tables fills (and first makes) them;
    /// one that cannot is spared that. A miss here would read stale beliefs,
    /// so every way SQLite lets a text name them counts.
    #[test]
    fn a_query_reads_the_run_tables_however_it_names_them() {
        for sql in [
            "SELECT * FROM beliefs",
            "select * from Effects",
            "SELECT * FROM \"beliefs\"",
            "SELECT * FROM [effects]",
            "SELECT * FROM `beliefs`",
            "SELECT * FROM 'beliefs'",
            "SELECT * FROM temp.messages",
            "SELECT name FROM sqlite_temp_master",
            "SELECT name FROM pragma_table_list",
            "SELECT 'unclosed",
        ] {
            assert!(reads_run_tables(sql), "{sql}");
        }
        for sql in [
            "SELECT * FROM messages",
            "SELECT 1 -- beliefs",
            "SELECT /* effects */ 1",
            "SELECT * FROM belief_log",
        ] {
            assert!(!reads_run_tables(sql), "{sql}");
        }
    }
}
