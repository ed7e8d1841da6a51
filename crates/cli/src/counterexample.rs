//! `fencelab export` and `fencelab replay`: which runs of the engine to
//! take out of it, and what to say about them. The file work is replay.rs;
//! the plan and the script are the model's (`replay.rs`, `export.rs`).
//!
//! A replay works in a scratch folder of its own (`fencelab_cli::scratch`):
//! made fresh, private and under a name no one can guess, so no other user
//! can have made it first or put a script of theirs where `--python` runs
//! one, and removed however the replay ends, SIGTERM and SIGINT included.

use crate::postgres::Engine;
use crate::replay::{Replayed, replay, run_python};
use crate::server_replay;
use crate::{BadInput, Ended, parallel};
use fencelab_cli::output::{Existing, names_stdout, write_file};
use fencelab_core::Exercise;
use fencelab_core::Journal;
use fencelab_core::export::{EXIT_DIFFERED, postgres_script, python_script};
use fencelab_core::history::What;
use fencelab_core::replay::Plan;
use fencelab_core::target::Target;
use fencelab_core::{Procedure, Scenario, ScenarioReport, Schedule};
use std::path::{Path, PathBuf};

macro_rules! outln {
    ($($arg:tt)*) => { crate::emit(&format!("{}\n", format!($($arg)*))) };
}

/// One set of procedure texts to run, and what to call it.
pub struct Texts {
    pub label: String,
    pub texts: Vec<(String, String)>,
}

/// The reference, the starting texts (when they differ) and every named
/// broken variant of `exercise`.
pub fn every_text(exercise: &Exercise) -> Vec<Texts> {
    let mut all = vec![Texts {
        label: "reference".into(),
        texts: exercise.texts_with(&Default::default()),
    }];
    let start: std::collections::BTreeMap<String, String> = exercise.start_edits();
    let start = exercise.texts_with(&start);
    if start != all[0].texts {
        all.push(Texts {
            label: "starting texts".into(),
            texts: start,
        });
    }
    for variant in &exercise.variants {
        all.push(Texts {
            label: format!("broken variant {}", variant.name),
            texts: exercise.texts_of_variant(variant),
        });
    }
    all
}

fn parse(texts: &[(String, String)]) -> Result<Vec<Procedure>, String> {
    texts
        .iter()
        .map(|(name, text)| Procedure::parse(name, text).map_err(|e| e.message))
        .collect()
}

fn find_scenario<'a>(exercise: &'a Exercise, name: &str) -> Result<&'a Scenario, BadInput> {
    exercise
        .scenarios
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = exercise.scenarios.iter().map(|s| s.name.as_str()).collect();
            BadInput(format!(
                "{} has no scenario named `{name}` (it has {})",
                exercise.id,
                names.join(", ")
            ))
        })
}

fn with_journal(exercise: &Exercise, journal: Option<Journal>) -> Exercise {
    let mut exercise = exercise.clone();
    if let Some(journal) = journal {
        exercise.journal = journal;
    }
    exercise
}

fn made_by() -> String {
    format!(
        "fencelab {} (SQLite {})",
        env!("CARGO_PKG_VERSION"),
        fencelab_core::sqlite_version()
    )
}

/// What `fencelab export` takes a run of: the exercise as its engine runs
/// it, the texts, and where its checker is built.
pub struct Exported<'a> {
    pub exercise: &'a Exercise,
    pub texts: &'a [(String, String)],
    pub engine: &'a Engine,
    pub target: &'a Target,
}

/// `fencelab export --python`: the script of one scenario's schedule, on
/// standard output or in a new file (`existing` says whether a file there
/// may be replaced); with `--postgres`, the psycopg script of its run on
/// the server.
pub fn export(
    exported: &Exported<'_>,
    scenario: &str,
    schedule: Option<&Schedule>,
    journal: Option<Journal>,
    output: Option<&Path>,
    existing: Existing,
) -> Result<Ended, BadInput> {
    let exercise = with_journal(exported.exercise, journal);
    let scenario = find_scenario(&exercise, scenario)?;
    let mut checker = exported
        .target
        .checker(&exercise, exported.texts)
        .map_err(|unusable| BadInput(format!("{}: {}", exercise.id, unusable.error)))?;
    let report = match schedule {
        Some(schedule) => checker.replay(scenario, schedule),
        None => checker.check(scenario),
    };
    let procedures = parse(exported.texts).map_err(BadInput)?;
    let plan = Plan::of(&exercise, &procedures, &report, exercise.journal);
    let script = script_of(&plan, scenario, exported.engine);
    match output {
        Some(path) if !names_stdout(path) => {
            write_file(path, script.as_bytes(), existing).map_err(BadInput)?;
        }
        _ => crate::emit(&script),
    }
    Ok(Ended::Passed)
}

/// The Python script of `plan`, a run of `scenario`, for the engine it ran
/// on: SQLite's (the standard library's sqlite3) or PostgreSQL's (psycopg,
/// at the scenario's isolation level).
fn script_of(plan: &Plan, scenario: &Scenario, engine: &Engine) -> String {
    match engine {
        Engine::Sqlite => python_script(plan, &made_by()),
        Engine::Postgres { version, .. } => postgres_script(
            plan,
            scenario.isolation.unwrap_or_default(),
            &fencelab_postgres::positional,
            &format!("fencelab {} ({version})", env!("CARGO_PKG_VERSION")),
        ),
    }
}

/// What `fencelab replay` was asked to do.
pub struct ReplayArgs {
    pub exercises: Vec<Exercise>,
    /// With one exercise: the texts given; `None` for every text.
    pub texts: Option<Vec<(String, String)>>,
    pub scenario: Option<String>,
    pub schedule: Option<Schedule>,
    pub file: Option<PathBuf>,
    /// `--force`: the file may replace what is at its path.
    pub force: bool,
    pub journals: Vec<Journal>,
    pub processes: bool,
    pub explored: usize,
    pub python: bool,
    /// Where the runs are made and replayed: SQLite and a file, or a
    /// PostgreSQL server (then `exercises` are as it runs them,
    /// `Exercise::on_postgres`).
    pub engine: Engine,
}

#[derive(Default)]
struct Totals {
    runs: u64,
    /// Of `runs`, those of explored schedules beside the shown ones.
    explored_runs: u64,
    statements: u64,
    waits: u64,
    python_runs: u64,
    differing_runs: u64,
}

impl Totals {
    fn add(&mut self, other: &Totals) {
        self.runs += other.runs;
        self.explored_runs += other.explored_runs;
        self.statements += other.statements;
        self.waits += other.waits;
        self.python_runs += other.python_runs;
        self.differing_runs += other.differing_runs;
    }
}

/// One exercise in one journal mode under one set of texts, with the
/// scenarios to replay: the unit `fencelab replay` shares out among its
/// threads. Each batch has a folder of its own (its database file, its
/// Python script), so batches never share a file.
struct Batch<'a> {
    number: usize,
    exercise: &'a Exercise,
    journal: Journal,
    texts: &'a Texts,
    scenarios: Vec<&'a Scenario>,
}

/// What one batch counted, and what it has to say, in the order it ran.
#[derive(Default)]
struct Found {
    totals: Totals,
    said: String,
}

impl Found {
    fn say(&mut self, line: std::fmt::Arguments) {
        use std::fmt::Write;
        let _ = writeln!(self.said, "{line}");
    }
}

/// `fencelab replay`.
pub fn run(args: &ReplayArgs) -> Result<Ended, BadInput> {
    // Before anything is made: a --file that names what the replay may not
    // replace is refused with nothing touched.
    if let Some(file) = &args.file {
        crate::replay::claim_file(file, args.force).map_err(BadInput)?;
    }
    let folder = fencelab_cli::scratch::folder("fencelab-replay-").map_err(BadInput)?;
    let result = replay_all(args, folder.path());
    drop(folder);
    let totals = result?;
    let modes: Vec<&str> = args.journals.iter().map(|j| j.pragma_name()).collect();
    let place = match &args.engine {
        Engine::Sqlite => format!("journal {}", modes.join(" and ")),
        Engine::Postgres { version, .. } => format!("on {version}"),
    };
    outln!(
        "replay: {} runs ({} of explored schedules), {} statements ({} waits for the lock), \
         {place}, {}{}: {} differ",
        totals.runs,
        totals.explored_runs,
        totals.statements,
        totals.waits,
        if args.processes {
            "a process per scenario process"
        } else {
            "a connection per scenario process"
        },
        if args.python {
            format!(", {} also through python3", totals.python_runs)
        } else {
            String::new()
        },
        totals.differing_runs
    );
    Ok(Ended::passed_if(totals.differing_runs == 0))
}

/// Every batch the arguments ask for, on as many threads as there are
/// cores, each batch's lines printed in the batches' order as soon as it
/// and those before it are done: the output is the same on one core or
/// many. A file the user named is one file, so then the batches take turns.
fn replay_all(args: &ReplayArgs, folder: &Path) -> Result<Totals, BadInput> {
    let texts: Vec<Vec<Texts>> = args
        .exercises
        .iter()
        .map(|exercise| match &args.texts {
            Some(texts) => vec![Texts {
                label: "texts given".into(),
                texts: texts.clone(),
            }],
            None => every_text(exercise),
        })
        .collect();
    let mut batches = Vec::new();
    for (exercise, all) in args.exercises.iter().zip(&texts) {
        let scenarios: Vec<&Scenario> = match &args.scenario {
            Some(name) => vec![find_scenario(exercise, name)?],
            None => exercise.scenarios.iter().collect(),
        };
        for &journal in &args.journals {
            for texts in all {
                batches.push(Batch {
                    number: batches.len(),
                    exercise,
                    journal,
                    texts,
                    scenarios: scenarios.clone(),
                });
            }
        }
    }
    let verbose = args.exercises.len() == 1 && args.scenario.is_some() && args.explored == 0;
    let threads = if args.file.is_some() {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    let mut totals = Totals::default();
    let mut failure = None;
    let work = |batch: &Batch| batch.replay(args, folder, verbose);
    parallel::on_threads(threads, &batches, work, |index, found| {
        if failure.is_some() {
            return;
        }
        match found {
            Some(Ok(found)) => {
                crate::emit(&found.said);
                totals.add(&found.totals);
            }
            Some(Err(error)) => failure = Some(error),
            None => {
                let batch = &batches[index];
                failure = Some(BadInput(format!(
                    "{} / {}: replaying it crashed (a bug in fencelab; the message above says where)",
                    batch.exercise.id, batch.texts.label
                )));
            }
        }
    });
    match failure {
        Some(error) => Err(error),
        None => Ok(totals),
    }
}

impl Batch<'_> {
    fn replay(&self, args: &ReplayArgs, folder: &Path, verbose: bool) -> Result<Found, BadInput> {
        let exercise = with_journal(self.exercise, Some(self.journal));
        let procedures = parse(&self.texts.texts).map_err(BadInput)?;
        let mut checker = args
            .engine
            .target()
            .checker(&exercise, &self.texts.texts)
            .map_err(|u| BadInput(format!("{}: {}", exercise.id, u.error)))?;
        // Made in the replay's own fresh folder, so never one that was
        // there before (create_dir, not create_dir_all: once a signal has
        // removed the folder, nothing makes it again).
        let own = folder.join(format!("batch-{}", self.number));
        std::fs::create_dir(&own)
            .map_err(|e| BadInput(format!("{}: cannot create: {e}", own.display())))?;
        let file = args.file.clone().unwrap_or_else(|| own.join("replay.db"));
        let mut found = Found::default();
        for scenario in &self.scenarios {
            for report in reports_to_replay(&mut checker, scenario, args, &mut found.totals) {
                let plan = Plan::of(&exercise, &procedures, &report, self.journal);
                let place = format!(
                    "{} / {} / {} (schedule {}, {})",
                    exercise.id,
                    self.texts.label,
                    scenario.name,
                    report.schedule,
                    match args.engine {
                        Engine::Sqlite => format!("journal {}", self.journal.pragma_name()),
                        Engine::Postgres { .. } => "on the server".to_string(),
                    }
                );
                let at = Where {
                    file: &file,
                    folder: &own,
                    scenario,
                };
                if replay_one(&plan, &place, &at, verbose, args, &mut found)? {
                    found.totals.differing_runs += 1;
                }
            }
        }
        let _ = std::fs::remove_dir_all(&own);
        Ok(found)
    }
}

/// The reports of `scenario` to replay: the given schedule's, or the shown
/// one's and, where a process waits for the lock, those of up to
/// `--explored` more schedules the explorer ran (counted in `totals`).
fn reports_to_replay(
    checker: &mut fencelab_core::Checker,
    scenario: &Scenario,
    args: &ReplayArgs,
    totals: &mut Totals,
) -> Vec<ScenarioReport> {
    if let Some(schedule) = &args.schedule {
        return vec![checker.replay(scenario, schedule)];
    }
    let (shown, visited) = checker.check_keeping_schedules(scenario, args.explored);
    let explored: Vec<ScenarioReport> = visited
        .iter()
        .filter(|s| **s != shown.schedule)
        .map(|s| checker.replay(scenario, s))
        .collect();
    let contended = std::iter::once(&shown).chain(&explored).any(|r| {
        r.history
            .iter()
            .any(|e| matches!(e.what, What::Blocked { .. }))
    });
    let mut reports = vec![shown];
    if contended {
        totals.explored_runs += explored.len() as u64;
        reports.extend(explored);
    }
    reports
}

/// Where one plan is replayed: the batch's file and folder (SQLite's
/// replay and the Python script), and the scenario (its isolation level
/// on a server).
struct Where<'a> {
    file: &'a Path,
    folder: &'a Path,
    scenario: &'a Scenario,
}

/// Replays one plan on the file or the server (and through python3 when
/// asked), says what differs and counts it in `found`; whether anything
/// differed.
fn replay_one(
    plan: &Plan,
    place: &str,
    at: &Where<'_>,
    verbose: bool,
    args: &ReplayArgs,
    found: &mut Found,
) -> Result<bool, BadInput> {
    let replayed = match &args.engine {
        Engine::Sqlite => replay(plan, at.file, args.processes),
        Engine::Postgres { worlds, .. } => server_replay::replay(
            plan,
            at.scenario.isolation.unwrap_or_default().into(),
            worlds,
        ),
    }
    .map_err(|e| BadInput(format!("{place}: {e}")))?;
    let mut differs = !replayed.differences.is_empty();
    if verbose {
        say_plan(found, plan, &replayed);
    }
    say_differences(found, place, &replayed);
    found.totals.runs += 1;
    found.totals.statements += replayed.statements as u64;
    found.totals.waits += replayed.waits as u64;
    if args.python {
        found.totals.python_runs += 1;
        if !python_agrees(found, plan, at, &args.engine, place)? {
            differs = true;
        }
    }
    Ok(differs)
}

fn say_plan(found: &mut Found, plan: &Plan, replayed: &Replayed) {
    found.say(format_args!(
        "{} / {}: schedule {}, journal {} ({})",
        plan.exercise,
        plan.scenario,
        plan.schedule,
        plan.journal.pragma_name(),
        plan.journal
    ));
    for step in &plan.steps {
        let mark = if replayed.differences.iter().any(|d| d.event == step.event) {
            ">>"
        } else {
            "  "
        };
        found.say(format_args!(
            "  {mark} {:>3}  {:<4} {}",
            step.event, step.who, step.line
        ));
    }
}

fn say_differences(found: &mut Found, place: &str, replayed: &Replayed) {
    for difference in &replayed.differences {
        found.say(format_args!(
            "DIFFERS {place}, event {} ({} {}): {}",
            difference.event, difference.who, difference.line, difference.what
        ));
    }
}

/// Writes the plan's script, runs it with python3, and says whether it
/// ended as fencelab's verdict says it must (0 held, 1 broke), saying
/// what it printed when it did not.
fn python_agrees(
    found: &mut Found,
    plan: &Plan,
    at: &Where<'_>,
    engine: &Engine,
    place: &str,
) -> Result<bool, BadInput> {
    let script = at.folder.join("counterexample.py");
    // PostgreSQL's script imports psycopg and takes the server on its
    // command line.
    let (arguments, packages) = match engine {
        Engine::Sqlite => (Vec::new(), false),
        Engine::Postgres { spec, .. } => (vec![spec.as_str()], true),
    };
    std::fs::write(&script, script_of(plan, at.scenario, engine))
        .map_err(|e| BadInput(format!("{}: cannot write: {e}", script.display())))?;
    let (code, output) = run_python(&script, &arguments, packages).map_err(BadInput)?;
    let wanted = if plan.problem.is_some() { 1 } else { 0 };
    if code == wanted {
        return Ok(true);
    }
    found.say(format_args!(
        "DIFFERS {place}: the Python script exited {code} ({}), not {wanted}:",
        if code == EXIT_DIFFERED {
            "a step differed"
        } else {
            "unexpected"
        }
    ));
    for line in output
        .lines()
        .filter(|l| l.contains("DIFFERS") || l.contains("Error"))
    {
        found.say(format_args!("    {line}"));
    }
    Ok(false)
}
