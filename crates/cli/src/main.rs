//! `fencelab`: the command line for course authors and CI.
//!
//! A thin shell over fencelab-core: it parses arguments, reads and writes
//! files and prints reports. Everything it checks, the core computes.
//!
//! Exit codes: 0 when everything passed, 1 when a scenario failed or a
//! mutant survived, 2 for bad input (an unreadable file, a parse error, an
//! unknown exercise, a usage error), with a message naming the file and
//! position or the option. With `--min-score N`, `check` and `run` exit 0
//! when the score is at least N and 1 when it is lower; bad input is still 2
//! (docs/GRADING.md).

mod args;
mod check;
mod counterexample;
mod grade;
mod index;
mod mutation_document;
mod new;
mod parallel;
mod postgres;
mod record;
mod replay;
mod scorm;
mod server_replay;

use fencelab_cli::{files, render, submission};

use args::{Command, Edit, GradeArgs, LimitArgs, Texts};
use fencelab_core::ExerciseReport;
use fencelab_core::check::{Limits, Progress, Strategy};
use fencelab_core::target::Target;
use fencelab_core::{Exercise, Scenario, bundled};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use fencelab_core::EXERCISE_FILE_BYTES_MAX;
use fencelab_core::procedure::PROCEDURE_TEXT_BYTES_MAX;
use fencelab_core::text::visible;

/// Writes to standard output, as `fencelab_cli::shown` makes it safe for a
/// terminal. A reader that stops early (`| head`) closes the pipe; that
/// ends the output quietly instead of panicking.
fn emit(text: &str) {
    write_out(&fencelab_cli::shown(text));
}

fn write_out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        // Ending here drops no guard: what the command made goes first.
        fencelab_cli::scratch::remove_registered();
        std::process::exit(0);
    }
}

macro_rules! out {
    ($($arg:tt)*) => { emit(&format!($($arg)*)) };
}

macro_rules! outln {
    ($($arg:tt)*) => { emit(&format!("{}\n", format!($($arg)*))) };
}

/// Bad input: the message says which file and where.
struct BadInput(String);

impl BadInput {
    fn report(&self) {
        eprintln!("fencelab: {}", fencelab_cli::shown(&self.0));
    }
}

/// How a command ended, as its exit code tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    /// Everything passed (exit 0).
    Passed,
    /// A scenario failed or a mutant survived (exit 1).
    Failed,
    /// Some input was bad and has been reported (exit 2).
    BadInput,
}

impl Ended {
    fn passed_if(ok: bool) -> Ended {
        if ok { Ended::Passed } else { Ended::Failed }
    }
}

fn main() -> ExitCode {
    let version = format!(
        "{} (SQLite {})",
        env!("CARGO_PKG_VERSION"),
        fencelab_core::sqlite_version()
    );
    let cli = args::parse(version.clone());
    let ended = run(cli.command, &version).unwrap_or_else(|bad| {
        bad.report();
        Ended::BadInput
    });
    match ended {
        Ended::Passed => ExitCode::SUCCESS,
        Ended::Failed => ExitCode::from(1),
        Ended::BadInput => ExitCode::from(2),
    }
}

/// Runs a command.
// long: one arm per subcommand, each only unpacking its arguments for the
// function that runs it; split, the list of commands would be in two places.
fn run(command: Command, version: &str) -> Result<Ended, BadInput> {
    match command {
        Command::Version => {
            outln!("fencelab {version}");
            Ok(Ended::Passed)
        }
        Command::List => {
            for exercise in bundled_exercises()? {
                outln!("{:<36} {}", exercise.id, exercise.title);
            }
            Ok(Ended::Passed)
        }
        Command::Check {
            paths,
            grading,
            postgres,
        } => check::run(&paths, &grading, &postgres),
        Command::Mutate {
            exercises,
            json,
            postgres,
        } => mutate(&exercises, json, &postgres),
        Command::Record {
            exercises,
            out,
            postgres,
        } => record::run(&exercises, &out, &postgres),
        Command::Protect {
            exercise,
            texts,
            json,
        } => protect(&exercise, &texts, json),
        Command::New { id, dir, postgres } => new::run(&id, &dir, postgres),
        Command::Index { dir, check } => index::run(&dir, check),
        Command::Scorm {
            site,
            scorm,
            out,
            title,
            identifier,
            each_exercise,
            force,
        } => scorm::run(&scorm::Request {
            site: &site,
            version: scorm,
            out: &out,
            title: &title,
            identifier: identifier.as_ref(),
            packaging: if each_exercise {
                scorm::Packaging::EachExercise
            } else {
                scorm::Packaging::Course
            },
            existing: fencelab_cli::output::Existing::replace_if(force),
        }),
        Command::Export {
            exercise,
            scenario,
            schedule,
            texts,
            journal,
            postgres,
            python: _,
            output,
            force,
        } => {
            let engine = postgres::PostgresArg { postgres }.engine()?;
            let (exercise, target) = engine.exercise(&find_exercise(&exercise)?)?;
            let texts = exercise.texts_with(&edits(&exercise, &texts)?);
            counterexample::export(
                &counterexample::Exported {
                    exercise: &exercise,
                    texts: &texts,
                    engine: &engine,
                    target: &target,
                },
                &scenario,
                schedule.as_ref(),
                journal,
                output.as_deref(),
                fencelab_cli::output::Existing::replace_if(force),
            )
        }
        Command::Replay {
            exercise,
            bundled,
            scenario,
            schedule,
            texts,
            variants,
            file,
            force,
            journal,
            processes,
            explored,
            python,
            postgres,
        } => {
            let engine = postgres.engine()?;
            if matches!(engine, postgres::Engine::Postgres { .. })
                && (file.is_some() || journal.is_some() || processes)
            {
                return Err(BadInput(
                    "--postgres replays on the server: --file, --journal and --processes are \
                     SQLite's"
                        .into(),
                ));
            }
            let (exercises, texts) = match exercise {
                Some(name) if !bundled => {
                    let (exercise, _) = engine.exercise(&find_exercise(&name)?)?;
                    let given = (!variants)
                        .then(|| edits(&exercise, &texts).map(|e| exercise.texts_with(&e)))
                        .transpose()?;
                    (vec![exercise], given)
                }
                _ => {
                    let mut exercises = Vec::new();
                    for exercise in bundled_exercises()? {
                        if engine.runs(&exercise) {
                            exercises.push(engine.exercise(&exercise)?.0);
                        }
                    }
                    (exercises, None)
                }
            };
            let journals = match journal {
                Some(args::Journals(journals)) => journals,
                None if exercises.len() == 1 => vec![exercises[0].journal],
                None if matches!(engine, postgres::Engine::Postgres { .. }) => {
                    vec![fencelab_core::Journal::default()]
                }
                None => fencelab_core::Journal::ALL.to_vec(),
            };
            counterexample::run(&counterexample::ReplayArgs {
                exercises,
                texts,
                scenario,
                schedule,
                file,
                force,
                journals,
                processes,
                explored: explored.unwrap_or(0),
                python,
                engine,
            })
        }
        Command::ReplayChild { file } => replay::child(&file).map(|()| Ended::Passed),
        Command::Run {
            exercise,
            texts,
            scenario_files,
            limits,
            grading,
            postgres,
        } => run_exercise(&RunArgs {
            exercise,
            texts,
            scenario_files,
            only: None,
            limits,
            json: false,
            grading: Some(grading),
            random: None,
            postgres,
        }),
        Command::Explore {
            exercise,
            texts,
            only,
            limits,
            random,
            seed,
            json,
            postgres,
        } => run_exercise(&RunArgs {
            exercise,
            texts,
            scenario_files: Vec::new(),
            only,
            limits,
            json,
            grading: None,
            random: random.map(|runs| (runs, seed)),
            postgres,
        }),
    }
}

/// What `run` and `explore` share.
struct RunArgs {
    exercise: String,
    texts: Texts,
    scenario_files: Vec<PathBuf>,
    /// Only this scenario (explore --scenario NAME).
    only: Option<String>,
    limits: LimitArgs,
    /// explore --json: the grading document, with each scenario's search.
    json: bool,
    /// `run`'s grading options; `None` for `explore`.
    grading: Option<GradeArgs>,
    /// explore --random N --seed S: N random schedules from seed S.
    random: Option<(u64, Option<u64>)>,
    /// `--postgres [URL]`: on a PostgreSQL server.
    postgres: postgres::PostgresArg,
}

fn bundled_exercises() -> Result<Vec<Exercise>, BadInput> {
    bundled::exercises().map_err(|e| BadInput(format!("a bundled exercise is broken: {e}")))
}

/// Reads a text file of at most `bytes_max` bytes, without blocking on a
/// FIFO or reading a device (`fencelab_cli::files`).
fn read(path: &Path, bytes_max: usize) -> Result<String, BadInput> {
    files::read_text(path, bytes_max).map_err(BadInput)
}

/// The exercise files named by `paths`: files as they are, directories by
/// their `*.toml` files in name order.
fn exercise_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, BadInput> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path)
                .map_err(|e| BadInput(format!("{}: cannot read: {e}", path.display())))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|p| p.extension().is_some_and(|ext| ext == "toml"))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(BadInput(format!(
                    "{}: no .toml exercise files here",
                    path.display()
                )));
            }
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn load(path: &Path) -> Result<Exercise, BadInput> {
    let text = read(path, EXERCISE_FILE_BYTES_MAX)?;
    fencelab_core::exercise::load(&path.display().to_string(), &text)
        .map_err(|e| BadInput(e.to_string()))
}

/// The exercises `names` gives (bundled ids, files, directories of
/// them); with none, the bundled ones `engine` runs (on a server, those
/// that have its texts).
fn named_exercises(names: &[String], engine: &postgres::Engine) -> Result<Vec<Exercise>, BadInput> {
    if names.is_empty() {
        let mut bundled = bundled_exercises()?;
        bundled.retain(|e| engine.runs(e));
        return Ok(bundled);
    }
    let mut found = Vec::new();
    for name in names {
        let path = Path::new(name);
        if path.is_dir() {
            for file in exercise_files(&[path.to_path_buf()])? {
                found.push(load(&file)?);
            }
        } else {
            found.push(find_exercise(name)?);
        }
    }
    Ok(found)
}

/// Runs every exercise's suite against its generated mutants.
fn mutate(
    names: &[String],
    json: bool,
    postgres: &postgres::PostgresArg,
) -> Result<Ended, BadInput> {
    let engine = postgres.engine()?;
    let exercises = named_exercises(names, &engine)?;
    if exercises.is_empty() {
        return Err(BadInput(
            "no bundled exercise has PostgreSQL texts ([postgres]) to mutate".into(),
        ));
    }
    let mut runs = Vec::new();
    let mut on_server = Vec::new();
    for exercise in &exercises {
        let started = std::time::Instant::now();
        let run = fencelab_core::mutation::run(exercise, &parallel::Cores);
        runs.push((run, started.elapsed().as_secs_f64()));
        if let postgres::Engine::Postgres { .. } = engine {
            let (server_exercise, target) = engine.exercise(exercise)?;
            let started = std::time::Instant::now();
            let run = fencelab_core::mutation::run_on(&target, &server_exercise, &parallel::Cores);
            let exercise = server_exercise;
            on_server.push((run, started.elapsed().as_secs_f64(), exercise));
        }
    }
    if !on_server.is_empty() {
        return postgres::print_mutations(&engine, &exercises, &runs, &on_server, json);
    }
    if json {
        print_json(&mutation_document::Document::new(&runs))?;
    } else {
        for (run, seconds) in &runs {
            let exercise = exercises.iter().find(|e| e.id == run.exercise);
            out!("{}", render::mutation(run, exercise, *seconds));
        }
        out!("{}", render::mutation_totals(&runs));
    }
    Ok(Ended::passed_if(runs.iter().all(|(run, _)| run.ok())))
}

/// The line marks of an exercise's texts (its references by default), run
/// to the end by the core judgement the page's worker runs a piece at a time.
fn protect(name: &str, texts: &Texts, json: bool) -> Result<Ended, BadInput> {
    let exercise = find_exercise(name)?;
    let judged = edits(&exercise, texts)?;
    let context =
        fencelab_core::mutation::context(&exercise).map_err(|error| BadInput(error.to_string()))?;
    let texts = exercise.texts_with(&judged);
    let started = std::time::Instant::now();
    let exercise = std::rc::Rc::new(exercise);
    let answer = fencelab_core::protection::LineMarks::new(
        std::rc::Rc::clone(&exercise),
        texts.clone(),
        &context,
    )
    .finish(&parallel::Cores);
    let seconds = started.elapsed().as_secs_f64();
    let report = match answer {
        Ok(report) => report,
        Err(why) => {
            eprintln!(
                "fencelab: {}",
                fencelab_cli::shown(&format!("{}: {why}", exercise.id))
            );
            return Ok(Ended::Failed);
        }
    };
    if json {
        /// docs/EXERCISES.md's document: the marks exactly as the page's
        /// worker sends them (crates/cli/tests/protect.rs holds the two
        /// equal), so a change to the wire that a reader could notice
        /// raises `format_version`.
        #[derive(serde::Serialize)]
        struct Json<'a> {
            format_version: u32,
            command: &'static str,
            exercise: &'a str,
            #[serde(flatten)]
            report: &'a fencelab_core::protection::ProtectionReport,
            seconds: f64,
        }
        print_json(&Json {
            format_version: 1,
            command: "protect",
            exercise: &exercise.id,
            report: &report,
            seconds,
        })?;
    } else {
        out!(
            "{}",
            render::protection(&exercise.id, &texts, &report, seconds)
        );
    }
    Ok(Ended::passed_if(!report.has_unprotected()))
}

/// Finds an exercise by bundled id, or loads it from a file.
fn find_exercise(name: &str) -> Result<Exercise, BadInput> {
    find_exercise_source(name).map(|(exercise, _)| exercise)
}

/// An exercise file's name and text: where a grader's cases point.
struct ExerciseSource {
    file: String,
    text: String,
}

/// As [`find_exercise`], with the file it came from (a bundled exercise's
/// path in the fencelab repository).
fn find_exercise_source(name: &str) -> Result<(Exercise, ExerciseSource), BadInput> {
    let path = Path::new(name);
    if path.is_file() {
        let text = read(path, EXERCISE_FILE_BYTES_MAX)?;
        let file = path.display().to_string();
        let exercise =
            fencelab_core::exercise::load(&file, &text).map_err(|e| BadInput(e.to_string()))?;
        return Ok((exercise, ExerciseSource { file, text }));
    }
    let exercises = bundled_exercises()?;
    exercises
        .iter()
        .zip(bundled::FILES)
        .find(|(e, _)| e.id == name)
        .map(|(exercise, (file, text))| {
            let source = ExerciseSource {
                file: format!("crates/model/exercises/{file}"),
                text: text.to_string(),
            };
            (exercise.clone(), source)
        })
        .ok_or_else(|| {
            let ids: Vec<&str> = exercises.iter().map(|e| e.id.as_str()).collect();
            BadInput(format!(
                "no exercise `{}`: give a bundled id ({}) or an exercise file",
                visible(name),
                ids.join(", ")
            ))
        })
}

/// Extra scenarios from a file of `[[scenarios]]` tables, each step
/// checked, with each scenario's place in the file.
fn scenario_file(path: &Path) -> Result<Vec<(Scenario, Option<grade::Location>)>, BadInput> {
    let text = read(path, EXERCISE_FILE_BYTES_MAX)?;
    let file = path.display().to_string();
    let scenarios = fencelab_core::exercise::scenarios_from_toml(&file, &text)
        .map_err(|e| BadInput(e.to_string()))?;
    let source = grade::Source {
        file: &file,
        text: &text,
    };
    let locations = grade::scenario_locations(&source, scenarios.len());
    Ok(scenarios.into_iter().zip(locations).collect())
}

/// The texts `--start` and `--set` ask for, as a run takes them.
struct Given {
    /// The editable procedures' texts, by name.
    edits: BTreeMap<String, String>,
    /// The file each `--set` text came from, by procedure.
    files: BTreeMap<String, String>,
    /// The first `--set` text that does not parse, as bad input naming its
    /// file and place (the text is still among `edits`).
    unparsable: Option<BadInput>,
    /// Every `--set` file that could not be read as a text to grade, each
    /// with its path as given (not among `edits`).
    unusable: Vec<(String, submission::Unusable)>,
}

impl Given {
    /// Why the `--set` files cannot be graded, one sentence a file.
    fn unusable_sentence(&self) -> Option<String> {
        let sentences: Vec<String> = self.unusable.iter().map(|(_, u)| u.to_string()).collect();
        (!sentences.is_empty()).then(|| sentences.join("\n"))
    }
}

/// Reads `--start` and every `--set` file; a procedure that does not exist
/// or is not editable is bad input at once, a file that cannot be read is
/// kept among `unusable` for the caller to report as it needs.
fn given_texts(exercise: &Exercise, texts: &Texts) -> Result<Given, BadInput> {
    let mut given = Given {
        edits: BTreeMap::new(),
        files: BTreeMap::new(),
        unparsable: None,
        unusable: Vec::new(),
    };
    if texts.start {
        for spec in exercise.procedures.iter().filter(|p| p.editable) {
            given.edits.insert(spec.name.clone(), spec.start.clone());
        }
    }
    for Edit {
        procedure,
        file: path,
    } in &texts.set
    {
        let Some(spec) = exercise.procedures.iter().find(|p| &p.name == procedure) else {
            let procedure = visible(procedure);
            return Err(BadInput(format!(
                "--set {procedure}=...: {} has no procedure `{procedure}` (it has {})",
                exercise.id,
                exercise
                    .procedures
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        if !spec.editable {
            return Err(BadInput(format!(
                "--set {procedure}=...: `{procedure}` is not editable in {}",
                exercise.id
            )));
        }
        let text = match submission::read(procedure, path, PROCEDURE_TEXT_BYTES_MAX) {
            Ok(text) => text,
            Err(unusable) => {
                given.unusable.push((path.display().to_string(), unusable));
                continue;
            }
        };
        if let Err(e) = fencelab_core::Procedure::parse(procedure, &text) {
            let bad = BadInput(format!(
                "{}:{}:{}: {}",
                path.display(),
                e.position.line,
                e.position.column,
                e.message
            ));
            given.unparsable.get_or_insert(bad);
        }
        given
            .files
            .insert(procedure.clone(), path.display().to_string());
        given.edits.insert(procedure.clone(), text);
    }
    Ok(given)
}

/// The editable procedures' texts that `--start` and `--set` ask for, by
/// name, for a command that needs every one to parse (export, replay).
fn edits(exercise: &Exercise, texts: &Texts) -> Result<BTreeMap<String, String>, BadInput> {
    let given = given_texts(exercise, texts)?;
    if let Some(why) = given.unusable_sentence() {
        return Err(BadInput(why));
    }
    match given.unparsable {
        Some(bad) => Err(bad),
        None => Ok(given.edits),
    }
}

fn run_exercise(args: &RunArgs) -> Result<Ended, BadInput> {
    let (exercise, source) = find_exercise_source(&args.exercise)?;
    let engine = args.postgres.engine()?;
    let (exercise, target) = engine.exercise(&exercise)?;
    let format = args
        .grading
        .as_ref()
        .map_or(grade::Format::Text, GradeArgs::format);
    let given = given_texts(&exercise, &args.texts)?;
    if !given.unusable.is_empty() {
        return grade_unusable(&exercise, &source, args, &given);
    }
    let Given {
        edits,
        files: given_files,
        unparsable,
        unusable: _,
    } = given;
    // A given text that does not parse is bad input, named by its file; a
    // grader's format still gets its document, every scenario an error.
    let unparsable = match unparsable {
        Some(bad) if format == grade::Format::Text => return Err(bad),
        unparsable => unparsable,
    };
    let places = grade::Source {
        file: &source.file,
        text: &source.text,
    };
    let scenarios = scenarios_to_run(&exercise, &places, args)?;
    let limits = limits_of(&args.limits);
    let to_run: Vec<Scenario> = scenarios.iter().map(|(s, _)| s.clone()).collect();
    let started = std::time::Instant::now();
    let texts = exercise.texts_with(&edits);
    let (report, scenario_seconds) =
        run_scenarios(&target, &exercise, &texts, &to_run, limits, args.random);
    let took = started.elapsed();
    let entry = |options: grade::Options<'_>| {
        grade::Entry::of_run(
            &source.file,
            &exercise,
            &report,
            &scenarios,
            &edits,
            &given_files,
            &options,
        )
        .with_run_seconds(&scenario_seconds, took.as_secs_f64())
    };
    if let Some(grading) = &args.grading {
        let entry = entry(grade::Options {
            history: grading.history,
            site: grading.site.as_deref(),
        });
        let document = grade::Document::new("run", vec![entry]).timed(took.as_secs_f64());
        let text = engine.heading() + &render::run(&report, false, exercise.journal);
        let ended = finish(&document, grading, &text)?;
        return Ok(match unparsable {
            Some(bad) => {
                bad.report();
                Ended::BadInput
            }
            None => ended,
        });
    }
    if args.json {
        // The grading document, each scenario with what its search did.
        let entry = entry(grade::Options {
            history: grade::History::Failing,
            site: None,
        })
        .with_exploration(&report);
        print_json(&grade::Document::new("explore", vec![entry]))?;
    } else {
        out!("{}", engine.heading());
        print_explored(&report, exercise.journal, took);
    }
    Ok(Ended::passed_if(report.failed == 0))
}

/// `run`'s lines for a terminal: the report, then how many schedules were
/// explored in the time `took`.
fn print_explored(
    report: &ExerciseReport,
    journal: fencelab_core::Journal,
    took: std::time::Duration,
) {
    out!("{}", render::run(report, true, journal));
    let schedules: u64 = report
        .scenarios
        .iter()
        .map(|s| s.exploration.schedules)
        .sum();
    outln!(
        "explored {schedules} schedules in {:.1} ms ({:.0} schedules per second)",
        took.as_secs_f64() * 1000.0,
        schedules as f64 / took.as_secs_f64().max(1e-9)
    );
}

/// `run` when a `--set` file cannot be read as a text (missing, misnamed,
/// empty, not text, too large, not a file): bad input, exit 2, with the
/// sentence that names the file and what to do. A grader's format still
/// gets its document, every scenario an errored case saying so, so the
/// learner sees every test and why none ran.
fn grade_unusable(
    exercise: &Exercise,
    source: &ExerciseSource,
    args: &RunArgs,
    given: &Given,
) -> Result<Ended, BadInput> {
    let why = given.unusable_sentence().unwrap_or_default();
    let grading = match &args.grading {
        Some(grading) if grading.format() != grade::Format::Text => grading,
        _ => return Err(BadInput(why)),
    };
    let places = grade::Source {
        file: &source.file,
        text: &source.text,
    };
    let scenarios = scenarios_to_run(exercise, &places, args)?;
    let at = given.unusable.first().map_or("", |(file, _)| file.as_str());
    let entry = grade::Entry::of_unusable_texts(&source.file, exercise, &scenarios, &why, at);
    let document = grade::Document::new("run", vec![entry]);
    let text = format!("fencelab run: {} was not run: {why}\n", exercise.id);
    finish(&document, grading, &text)?;
    BadInput(why).report();
    Ok(Ended::BadInput)
}

/// The scenarios a run checks, each with its place in its file: the
/// exercise's, those of every `--scenario-file`, or only the one named.
fn scenarios_to_run(
    exercise: &Exercise,
    places: &grade::Source<'_>,
    args: &RunArgs,
) -> Result<Vec<(Scenario, Option<grade::Location>)>, BadInput> {
    let mut scenarios: Vec<(Scenario, Option<grade::Location>)> = exercise
        .scenarios
        .iter()
        .cloned()
        .zip(grade::scenario_locations(places, exercise.scenarios.len()))
        .collect();
    for path in &args.scenario_files {
        scenarios.extend(scenario_file(path)?);
    }
    if let Some(name) = &args.only {
        scenarios.retain(|(s, _)| &s.name == name);
        if scenarios.is_empty() {
            return Err(BadInput(format!(
                "{} has no scenario named `{}`",
                exercise.id,
                visible(name)
            )));
        }
    }
    Ok(scenarios)
}

/// The limits the command line gives, the defaults for the rest.
fn limits_of(given: &LimitArgs) -> Limits {
    let default = Limits::default();
    Limits {
        schedules_max: given.max_schedules.unwrap_or(default.schedules_max),
        steps_max: given.max_steps.unwrap_or(default.steps_max),
        sqlite_steps_max: given.max_sqlite_steps.unwrap_or(default.sqlite_steps_max),
        memory_bytes_max: given
            .max_memory_mib
            .map_or(default.memory_bytes_max, |mib| mib * 1024 * 1024),
        ..default
    }
}

/// Checks `to_run` against `texts`: every interleaving, or with `random`
/// that many schedules drawn from its seed (one drawn from the clock when
/// none is given; the report names it, so the run can be repeated). With
/// the report, the seconds each scenario took (the engine reads no clock;
/// a grader's report shows them).
fn run_scenarios(
    target: &Target,
    exercise: &Exercise,
    texts: &[(String, String)],
    to_run: &[Scenario],
    limits: Limits,
    random: Option<(u64, Option<u64>)>,
) -> (ExerciseReport, Vec<f64>) {
    let mut suite = target.suite(exercise, texts, to_run, limits);
    if let Some((runs, seed)) = random {
        // The engine never reads real randomness; the command line may.
        let seed = seed.unwrap_or_else(seed_from_clock);
        suite = suite.with_strategy(Strategy::Random { seed, runs });
    }
    // One scenario to its end per advance: each is timed on its own.
    let mut seconds = Vec::new();
    loop {
        let started = std::time::Instant::now();
        let progress = suite.advance(u64::MAX);
        seconds.push(started.elapsed().as_secs_f64());
        if let Progress::Done(report) = progress {
            return (*report, seconds);
        }
    }
}

/// Prints a grading document as `grading` asks (`text` is the report for
/// people) and tells how the command ended: bad input when a file did not
/// load, else by the score against --min-score, else whether every case
/// passed.
fn finish(document: &grade::Document, grading: &GradeArgs, text: &str) -> Result<Ended, BadInput> {
    let format = grading.format();
    match document.render(format) {
        // A JSON document keeps its meaning and its validity: its hidden
        // characters become JSON escapes, not the terminal's `\u{..}`.
        Some(rendered) if format.is_json() => {
            write_out(&format!("{}\n", fencelab_cli::shown_json(&rendered)));
        }
        Some(rendered) => outln!("{rendered}"),
        None => out!("{text}"),
    }
    if format == grade::Format::Github {
        out!("{}", document.annotations());
        grade::write_step_summary(document).map_err(BadInput)?;
    }
    if grading.points {
        if format.prints_text() {
            outln!("{}", document.score_line());
        } else {
            eprintln!("{}", document.score_line());
        }
    }
    Ok(if document.unloadable() {
        Ended::BadInput
    } else {
        match grading.min_score {
            Some(least) => Ended::passed_if(document.score.points >= least),
            None => Ended::passed_if(document.passed()),
        }
    })
}

/// A seed for `explore --random` without `--seed`.
fn seed_from_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}

fn print_json<T: serde::Serialize>(value: &T) -> Result<(), BadInput> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| BadInput(format!("cannot write JSON: {e}")))?;
    write_out(&format!("{}\n", fencelab_cli::shown_json(&text)));
    Ok(())
}
