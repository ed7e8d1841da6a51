//! The hostile corpus: inputs that attack fencelab, kept as data.
//!
//! Every file under `cases/` is one untrusted input (a learner's procedure,
//! an author's exercise or scenario file, a share link, a saved entry) with
//! what a user must see when it arrives: the verdict or refusal, and a
//! piece of the sentence that explains it. [`run`] feeds it to the same
//! code the CLI, the worker and the page use, and [`judge`] checks the
//! outcome, the message, and that the engine's own accounting stayed within
//! its limits: SQLite and procedure steps (the bound on time, counted, never
//! timed) and bytes held (the bound on memory). The same cases run natively
//! and in wasm (tests/corpus.rs); the format is in cases/README.md.
//!
//! Cases of the command line's own kinds (`file`, `terminal`) run natively
//! only: there is no command line in wasm, and no file system. A `command`
//! case runs a program of fencelab's as a user runs it ([`command`]); the
//! corpus leaves it to the test of the crate that builds the program.
//!
//! Must never: time anything with a clock, or accept an outcome without
//! checking its message.

use fencelab_core::check::SUITE_SCENARIOS_OF_BUDGET;
use fencelab_core::{Exercise, ExerciseExt, ExerciseReport, Limits, Verdict, bundled, exercise};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/cases.rs"));

/// One case file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// What the input attacks, in one sentence.
    pub about: String,
    pub kind: Kind,
    /// The bundled exercise a procedure or scenario case runs in.
    #[serde(default)]
    pub exercise: Option<String>,
    /// The editable procedure a procedure case replaces.
    #[serde(default)]
    pub procedure: Option<String>,
    /// The hostile text.
    pub input: String,
    /// Repeat `input` this many times (a large input kept small on disk).
    #[serde(default)]
    pub repeat: Option<usize>,
    /// Text before and after the (repeated) input: a whole file around a
    /// repeated part, such as 2,000 predicates in one WHERE.
    #[serde(default)]
    pub head: Option<String>,
    #[serde(default)]
    pub tail: Option<String>,
    /// A `file` case: what the path the command line reads is.
    #[serde(default)]
    pub file: Option<FileKind>,
    /// A `command` case: the program, its arguments and what is made
    /// before it runs.
    #[serde(default)]
    pub command: Option<CommandSpec>,
    pub expect: Expect,
}

/// A program of fencelab's, as a `command` case names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Program {
    #[serde(rename = "fencelab")]
    Fencelab,
    #[serde(rename = "mdbook-fencelab")]
    MdbookFencelab,
}

impl Program {
    /// The test that runs this program's cases (it alone knows where cargo
    /// built the program).
    pub fn runner(self) -> &'static str {
        match self {
            Program::Fencelab => "crates/cli/tests/hostile_commands.rs",
            Program::MdbookFencelab => "crates/mdbook/tests/hostile_commands.rs",
        }
    }
}

/// What a `command` case runs, in a scratch folder of its own (its working
/// directory; `{dir}` in an argument, an environment value, `stdin` or a
/// FIFO's text is that folder's absolute path). Every path is relative to
/// the scratch folder. cases/README.md describes each field.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    pub program: Program,
    pub args: Vec<String>,
    /// Added to the environment the test runs in.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Standard input; empty when not given.
    #[serde(default)]
    pub stdin: Option<String>,
    /// Files made before the run, by path: their text, `@input` for the
    /// case's input.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Empty folders made before the run.
    #[serde(default)]
    pub dirs: Vec<String>,
    /// Symbolic links made before the run: link path to target, as written.
    #[serde(default)]
    pub symlinks: BTreeMap<String, String>,
    /// FIFOs made before the run, by path, whose other end the runner plays
    /// as an attacker would: it reads to the end whatever the program
    /// writes into one, then gives the next reader this text.
    #[serde(default)]
    pub fifos: BTreeMap<String, String>,
    /// What is planted at a path only the child's process id names, just
    /// before the program starts.
    #[serde(default)]
    pub plant: Option<Plant>,
    /// A signal sent to the program while it runs.
    #[serde(default)]
    pub signal: Option<SignalSpec>,
    /// How long the program may run before it is killed and the case
    /// fails [default: `command::SECONDS_MAX_DEFAULT`].
    #[serde(default)]
    pub seconds_max: Option<u64>,
}

/// Folders and FIFOs made world-writable at paths holding `{pid}`, the
/// process id the program will have, made by the shell that then becomes
/// the program (`exec` keeps the process id): what another local user who
/// guessed the id would have made first.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plant {
    /// Folders, with every missing parent, mode 0777.
    #[serde(default)]
    pub dirs: Vec<String>,
    /// FIFOs, mode 0666, each played as `CommandSpec::fifos` are.
    #[serde(default)]
    pub fifos: BTreeMap<String, String>,
}

/// A signal sent once a path matching `once` exists in the scratch folder.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignalSpec {
    pub send: SignalName,
    /// A glob (`*`, `?`, `[...]`) relative to the scratch folder.
    pub once: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum SignalName {
    #[serde(rename = "TERM")]
    Term,
    #[serde(rename = "INT")]
    Int,
}

impl SignalName {
    /// Its name without `SIG`, as `kill -s` takes it.
    pub fn name(self) -> &'static str {
        match self {
            SignalName::Term => "TERM",
            SignalName::Int => "INT",
        }
    }

    /// Its number on Linux, where the exit status a shell reports for a
    /// death by it is 128 plus this.
    pub fn number(self) -> i32 {
        match self {
            SignalName::Term => 15,
            SignalName::Int => 2,
        }
    }
}

/// What a `command` case's scratch folder must hold after the run.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct After {
    /// Paths that still hold exactly what they held before the run (a
    /// folder with everything in it; nothing, if nothing was there).
    #[serde(default)]
    pub same: Vec<String>,
    /// Globs that match nothing.
    #[serde(default)]
    pub absent: Vec<String>,
    /// Folders that exist and hold nothing.
    #[serde(default)]
    pub empty: Vec<String>,
}

/// What a `file` case hands the command line as an exercise file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// A FIFO nobody writes to (a plain open() of it waits for ever).
    Fifo,
    /// A FIFO a writer sends the input to, then closes.
    FifoWritten,
    /// A Unix socket.
    Socket,
    /// `/dev/zero`, which never ends.
    DevZero,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Procedure,
    Exercise,
    Scenario,
    Link,
    Saved,
    /// An exercise file, run as `fencelab mutate` runs it (every mutant of
    /// its references against its suite).
    Mutate,
    /// An exercise file, checked as `fencelab check` checks it.
    Check,
    /// The command line reading a path (`file` says what it is): natively
    /// only.
    File,
    /// An exercise file checked, as `fencelab check` prints it in a
    /// terminal: natively only.
    Terminal,
    /// A program of fencelab's run as a user runs it (`command` says
    /// which, how, and in what folder): run by the program's own crate's
    /// test, natively (`command::check_every`).
    Command,
    /// An exercise file whose every scenario is written as the take-home
    /// Python script, read by Python's own parser and run: natively only.
    Script,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub outcome: Outcome,
    /// A piece of the message the user sees (for `passed`, none).
    #[serde(default)]
    pub message: Option<String>,
    /// Run three times: every report must be the same, byte for byte.
    #[serde(default)]
    pub replays: bool,
    /// A `command` case: the exact exit status wanted in place of the
    /// outcome's (a death by signal N counts as 128 + N, as a shell says).
    #[serde(default)]
    pub exit: Option<i32>,
    /// A `command` case: what its scratch folder holds after the run.
    #[serde(default)]
    pub after: Option<After>,
}

/// What a user must see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The input is refused before anything runs (a load, parse or decode
    /// error).
    Rejected,
    /// The input is read (links and saved entries that are merely odd).
    Accepted,
    /// Every scenario passes.
    Passed,
    /// Some scenario fails, with `message` in its sentence.
    Failed,
    /// Some scenario is an error verdict, with `message` in its sentence.
    Error,
}

/// What running a case gave.
#[derive(Debug, Default)]
pub struct Ran {
    /// Rejected with this message, or the reports of the runs.
    pub rejected: Option<String>,
    pub reports: Vec<ExerciseReport>,
    /// Errors outside any scenario's verdict: a mutation run's, or what a
    /// check says of `[[equivalent]]` declarations.
    pub errors: Vec<String>,
    /// What a terminal is given (a `terminal` case), after the command
    /// line's own quoting.
    pub shown: Option<String>,
    /// A case of the command line in wasm, where there is none.
    pub skipped: bool,
    /// A case that another test runs (a `command` case): that test.
    pub elsewhere: Option<&'static str>,
    /// The engine's accounting, the largest over every scenario run.
    pub figures: Figures,
}

/// The engine's own accounting for a case.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figures {
    /// Most SQLite steps any one scenario check spent.
    pub sqlite_steps: u64,
    /// SQLite steps spent by a whole suite (one run of every scenario).
    pub suite_sqlite_steps: u64,
    pub procedure_steps: u64,
    pub memory_bytes: u64,
    /// The most SQLite's heap held while the case ran (the whole program's
    /// figure; the corpus runs its cases one after another).
    pub sqlite_heap_bytes: u64,
}

impl Case {
    /// The whole hostile input: its head, its input repeated, its tail.
    pub fn whole_input(&self) -> String {
        let repeated = match self.repeat {
            Some(times) => self.input.repeat(times),
            None => self.input.clone(),
        };
        format!(
            "{}{repeated}{}",
            self.head.as_deref().unwrap_or(""),
            self.tail.as_deref().unwrap_or("")
        )
    }
}

/// Reads a case file.
pub fn parse(name: &str, text: &str) -> Result<Case, String> {
    toml::from_str(text).map_err(|e| format!("{name}: {e}"))
}

/// Runs a case through the code a user's input meets.
pub fn run(case: &Case) -> Ran {
    let input = case.whole_input();
    fencelab_core::sqlite::reset_heap_peak();
    let mut ran = match case.kind {
        Kind::Procedure => {
            let exercise = bundled_exercise(case);
            let procedure = case.procedure.clone().unwrap_or_default();
            let edits = BTreeMap::from([(procedure, input)]);
            runs(case, || exercise.run(&edits))
        }
        Kind::Scenario => match exercise::scenarios_from_toml("case.toml", &input) {
            Err(error) => rejected(error.to_string()),
            Ok(scenarios) => {
                let exercise = bundled_exercise(case);
                let texts = exercise.texts_with(&BTreeMap::new());
                runs(case, || exercise.run_texts(&texts, &scenarios))
            }
        },
        Kind::Exercise => match exercise::load("case.toml", &input) {
            Err(error) => rejected(error.to_string()),
            Ok(exercise) => runs(case, || exercise.run(&BTreeMap::new())),
        },
        Kind::Link => match fencelab_web::share::decode(&input) {
            Err(message) => rejected(message),
            Ok(link) => match find_bundled(&link.exercise) {
                None => rejected(format!("no bundled exercise is named `{}`", link.exercise)),
                Some(exercise) => runs(case, || exercise.run(&link.edits)),
            },
        },
        Kind::Saved => match fencelab_web::state::Saved::parse(&input) {
            Err(message) => rejected(message),
            Ok(_) => Ran::default(),
        },
        Kind::Mutate => match exercise::load("case.toml", &input) {
            Err(error) => rejected(error.to_string()),
            Ok(exercise) => {
                let run =
                    fencelab_core::mutation::run(&exercise, &fencelab_core::mutation::InOrder);
                Ran {
                    errors: run.error.into_iter().collect(),
                    ..Ran::default()
                }
            }
        },
        Kind::Check => match exercise::load("case.toml", &input) {
            Err(error) => rejected(error.to_string()),
            Ok(exercise) => {
                let check = exercise.check();
                let mut ran = runs(case, || check.reference.clone());
                ran.errors = check
                    .stale_equivalents
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                ran
            }
        },
        Kind::File | Kind::Terminal => command_line(case, &input),
        Kind::Command => Ran {
            skipped: true,
            elsewhere: case.command.as_ref().map(|c| c.program.runner()),
            ..Ran::default()
        },
        Kind::Script => take_home_script(&input),
    };
    let (_, peak) = fencelab_core::sqlite::heap_bytes();
    ran.figures.sqlite_heap_bytes = u64::try_from(peak).unwrap_or(0);
    ran
}

#[cfg(target_arch = "wasm32")]
fn command_line(_: &Case, _: &str) -> Ran {
    Ran {
        skipped: true,
        ..Ran::default()
    }
}

/// A case of the command line's own: the path it reads, or what it prints.
#[cfg(not(target_arch = "wasm32"))]
fn command_line(case: &Case, input: &str) -> Ran {
    if case.kind == Kind::Terminal {
        return match exercise::load("case.toml", input) {
            Err(error) => Ran {
                shown: Some(fencelab_cli::shown(&error.to_string()).into_owned()),
                ..rejected(error.to_string())
            },
            Ok(exercise) => {
                let check = exercise.check();
                let printed = fencelab_cli::render::check(&check);
                Ran {
                    shown: Some(fencelab_cli::shown(&printed).into_owned()),
                    ..runs(case, || check.reference.clone())
                }
            }
        };
    }
    let Some(kind) = case.file else {
        return rejected("a file case says what its `file` is".into());
    };
    let read = files::with_path(kind, input, |path| {
        fencelab_cli::files::read_text(path, fencelab_core::EXERCISE_FILE_BYTES_MAX)
    });
    match read.and_then(|text| exercise::load("case.toml", &text).map_err(|e| e.to_string())) {
        Err(message) => rejected(message),
        Ok(exercise) => runs(case, || exercise.run(&BTreeMap::new())),
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub mod command;
#[cfg(not(target_arch = "wasm32"))]
mod files;
#[cfg(not(target_arch = "wasm32"))]
pub mod script;

#[cfg(not(target_arch = "wasm32"))]
fn take_home_script(input: &str) -> Ran {
    script::run(input)
}

#[cfg(target_arch = "wasm32")]
fn take_home_script(_: &str) -> Ran {
    Ran {
        skipped: true,
        ..Ran::default()
    }
}

fn bundled_exercise(case: &Case) -> Exercise {
    let id = case.exercise.as_deref().unwrap_or("claim-compare-and-set");
    find_bundled(id).unwrap_or_else(|| panic!("the case names no bundled exercise `{id}`"))
}

/// The bundled exercise `id`, loaded once.
fn find_bundled(id: &str) -> Option<Exercise> {
    static BUNDLED: OnceLock<Vec<Exercise>> = OnceLock::new();
    BUNDLED
        .get_or_init(|| bundled::exercises().expect("the bundled exercises load"))
        .iter()
        .find(|e| e.id == id)
        .cloned()
}

fn rejected(message: String) -> Ran {
    Ran {
        rejected: Some(message),
        ..Ran::default()
    }
}

/// Runs `suite` once, or three times when the case must replay exactly:
/// each time from another state of SQLite's own generator, as three fresh
/// processes would start (in one process, a run would otherwise start
/// from the state the run before it left, and hide a draw nothing pinned).
fn runs(case: &Case, suite: impl Fn() -> ExerciseReport) -> Ran {
    let times: u8 = if case.expect.replays { 3 } else { 1 };
    let reports: Vec<ExerciseReport> = (0..times)
        .map(|run| {
            if case.expect.replays {
                fencelab_core::sqlite::disturb_randomness(run);
            }
            suite()
        })
        .collect();
    let mut figures = Figures::default();
    for report in &reports {
        let mut suite_steps = 0;
        for scenario in &report.scenarios {
            let spent = &scenario.exploration;
            figures.sqlite_steps = figures.sqlite_steps.max(spent.sqlite_steps);
            figures.procedure_steps = figures.procedure_steps.max(spent.procedure_steps);
            figures.memory_bytes = figures.memory_bytes.max(spent.memory_bytes);
            suite_steps += spent.sqlite_steps;
        }
        figures.suite_sqlite_steps = figures.suite_sqlite_steps.max(suite_steps);
    }
    Ran {
        reports,
        figures,
        ..Ran::default()
    }
}

/// SQLite steps a budget may be overrun by before it is noticed: the
/// progress check's interval, or one metered call's charge.
const SQLITE_STEPS_SLACK: u64 = 100_000;
/// Bytes a memory budget may be overrun by: the one state key or history
/// event that crossed it (a key holds the whole database at most).
const MEMORY_BYTES_SLACK: u64 = 20 * 1024 * 1024;

/// Checks what a case gave against what it expects and against the
/// engine's limits; the reasons it is wrong, if any.
pub fn judge(case: &Case, ran: &Ran) -> Vec<String> {
    let mut wrong = Vec::new();
    // A command case's table is what its runner reads: without one it
    // would be skipped here and never run there.
    if (case.kind == Kind::Command) != case.command.is_some() {
        wrong.push("a `command` table belongs to a case of kind `command`, and only there".into());
    }
    let command_only = case.expect.exit.is_some() || case.expect.after.is_some();
    if command_only && case.kind != Kind::Command {
        wrong.push("`expect.exit` and `expect.after` judge only a case of kind `command`".into());
    }
    if ran.skipped {
        return wrong;
    }
    let limits = Limits::default();
    let figures = ran.figures;
    // Every scenario check spends at most its budget twice (exploring, then
    // replaying the schedule it shows), each with its slack.
    let scenario_steps_max = 2 * (limits.sqlite_steps_max + SQLITE_STEPS_SLACK);
    if figures.sqlite_steps > scenario_steps_max {
        wrong.push(format!(
            "a scenario spent {} SQLite steps, past its bound of {scenario_steps_max}",
            figures.sqlite_steps
        ));
    }
    let suite_steps_max = SUITE_SCENARIOS_OF_BUDGET * limits.sqlite_steps_max + scenario_steps_max;
    if figures.suite_sqlite_steps > suite_steps_max {
        wrong.push(format!(
            "a suite spent {} SQLite steps, past its bound of {suite_steps_max}",
            figures.suite_sqlite_steps
        ));
    }
    if figures.procedure_steps > 2 * (limits.steps_max + 1) {
        wrong.push(format!(
            "a scenario ran {} procedure steps, past its bound",
            figures.procedure_steps
        ));
    }
    if figures.memory_bytes > limits.memory_bytes_max + MEMORY_BYTES_SLACK {
        wrong.push(format!(
            "a scenario held {} bytes, past its bound of {}",
            figures.memory_bytes,
            limits.memory_bytes_max + MEMORY_BYTES_SLACK
        ));
    }
    let heap_max = fencelab_core::sqlite::HEAP_BYTES_MAX as u64;
    if figures.sqlite_heap_bytes > heap_max {
        wrong.push(format!(
            "SQLite's heap reached {} bytes, past its limit of {heap_max}",
            figures.sqlite_heap_bytes
        ));
    }
    if case.expect.replays {
        let texts: Vec<String> = ran
            .reports
            .iter()
            .map(|r| serde_json::to_string(r).unwrap_or_default())
            .collect();
        if texts.windows(2).any(|pair| pair[0] != pair[1]) {
            wrong.push("three runs of the same input gave different reports".into());
        }
    }
    let wanted = case.expect.message.as_deref();
    // A terminal case's message is looked for as the terminal shows it.
    let contains = |text: &str| {
        wanted.is_none_or(|w| {
            if case.kind == Kind::Terminal {
                fencelab_model::text::visible_lines(text).contains(w)
            } else {
                text.contains(w)
            }
        })
    };
    match (case.expect.outcome, &ran.rejected) {
        (Outcome::Rejected, Some(message)) => {
            if !contains(message) {
                wrong.push(format!(
                    "rejected with `{message}`, not naming `{wanted:?}`"
                ));
            }
        }
        (Outcome::Rejected, None) => wrong.push("it was not rejected".into()),
        (outcome, Some(message)) => wrong.push(format!(
            "expected {outcome:?}, but it was rejected: {message}"
        )),
        // A script case's failures are what Python's parser and the runs
        // said (script.rs); an accepted input must have none.
        (Outcome::Accepted, None) => wrong.extend(ran.errors.iter().cloned()),
        (Outcome::Passed, None) => {
            for report in &ran.reports {
                for scenario in &report.scenarios {
                    if !scenario.passed() {
                        wrong.push(format!(
                            "`{}` did not pass: {}",
                            scenario.name,
                            scenario.problem().unwrap_or_default()
                        ));
                    }
                }
            }
        }
        (outcome @ (Outcome::Failed | Outcome::Error), None) => {
            let verdict = if outcome == Outcome::Failed {
                Verdict::Failed
            } else {
                Verdict::Error
            };
            let mut problems: Vec<String> = ran
                .reports
                .iter()
                .flat_map(|r| &r.scenarios)
                .filter(|s| s.verdict() == verdict)
                .filter_map(|s| s.problem())
                .collect();
            if outcome == Outcome::Error {
                problems.extend(ran.errors.iter().cloned());
            }
            if !problems.iter().any(|p| contains(p)) {
                let seen: Vec<String> = ran
                    .reports
                    .iter()
                    .flat_map(|r| &r.scenarios)
                    .map(|s| {
                        format!(
                            "{}: {:?} {}",
                            s.name,
                            s.verdict(),
                            s.problem().unwrap_or_default()
                        )
                    })
                    .chain(ran.errors.iter().cloned())
                    .collect();
                wrong.push(format!(
                    "no scenario is {outcome:?} with `{}`; saw: {}",
                    wanted.unwrap_or(""),
                    seen.join(" | ")
                ));
            }
        }
    }
    // What a terminal is given holds the message as the user reads it, and
    // nothing that would act on the terminal or reorder the text.
    if let Some(shown) = &ran.shown {
        if !contains(shown) {
            wrong.push(format!("the terminal is not shown `{wanted:?}`: {shown}"));
        }
        let hidden: Vec<String> = shown
            .chars()
            .filter(|&c| c != '\n' && c != '\t' && fencelab_model::text::is_hidden(c))
            .map(|c| format!("U+{:04X}", u32::from(c)))
            .collect();
        if !hidden.is_empty() {
            wrong.push(format!(
                "the terminal is given {} as they are",
                hidden.join(", ")
            ));
        }
    }
    // Every message a user sees is a sentence in their terms: never a
    // Rust name or an empty text.
    let mut messages: Vec<String> = ran.rejected.iter().cloned().collect();
    messages.extend(ran.errors.iter().cloned());
    messages.extend(
        ran.reports
            .iter()
            .flat_map(|r| &r.scenarios)
            .filter_map(|s| s.problem()),
    );
    for message in messages {
        if message.trim().is_empty() {
            wrong.push("a message is empty".into());
        }
        for rust in [
            "Some(",
            "Err(",
            "Ok(",
            "panicked at",
            "unwrap()",
            "expected struct",
            "untagged enum",
        ] {
            if message.contains(rust) {
                wrong.push(format!("a message shows Rust's `{rust}`: {message}"));
            }
        }
    }
    wrong
}
