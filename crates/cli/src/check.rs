//! `fencelab check`: exercises checked in parallel, one per core, reported
//! in a stable order (the files in the order they were named, a
//! directory's by name; the bundled ones in their own order) as soon as
//! each and every one before it is done, and one summary line.
//!
//! Only the scheduling of whole exercises lives here; what a check finds is
//! the core's `ExerciseExt::check`.

use crate::args::GradeArgs;
use crate::grade::{CheckSeconds, Document, Entry, Options, Problem, Source};
use crate::postgres::{Engine, PostgresArg};
use crate::{BadInput, Ended, emit, exercise_files, parallel, read};
use fencelab_cli::render;
use fencelab_core::check::Progress;
use fencelab_core::exercise::{CheckPart, CheckSearch};
use fencelab_core::mutation::EquivalentsJudged;
use fencelab_core::target::Target;
use fencelab_core::{EXERCISE_FILE_BYTES_MAX, Exercise, ExerciseCheck};
use std::path::PathBuf;
use std::time::Instant;

/// An exercise checked, with what it was checked from.
pub(crate) struct Judged {
    pub check: ExerciseCheck,
    /// The judgement of each `[[equivalent]]` declaration.
    pub equivalents: EquivalentsJudged,
    pub exercise: Exercise,
    /// The file's text, for the places of its cases.
    pub text: String,
    /// How long each piece of the check took.
    pub seconds: CheckSeconds,
    /// With `--postgres`: the exercise as PostgreSQL runs it, checked there.
    pub postgres: Option<Box<OnServer>>,
}

/// An exercise's check on a server, beside its check on SQLite.
pub(crate) struct OnServer {
    pub exercise: Exercise,
    pub check: ExerciseCheck,
    pub equivalents: EquivalentsJudged,
    pub seconds: CheckSeconds,
}

impl Judged {
    /// Sound on every engine it was checked on.
    fn ok(&self) -> bool {
        self.check.ok() && self.postgres.as_ref().is_none_or(|p| p.check.ok())
    }
}

/// What checking one exercise came to.
pub(crate) enum Checked {
    /// It loaded and was checked; `check.ok` says whether it is sound.
    Checked(Box<Judged>),
    /// It could not be read or loaded; the problem names the file and where.
    Unreadable(Problem),
}

impl Problem {
    /// Says on stderr what is wrong, as bad input is reported.
    pub(crate) fn report(&self) {
        BadInput(self.sentence()).report();
    }
}

/// An exercise to check: a file, or a bundled exercise's name and text.
enum Input {
    File(PathBuf),
    Bundled(&'static str, &'static str),
}

impl Input {
    /// The file as entries name it: a bundled exercise by its path in the
    /// fencelab repository, where CI annotations can point.
    fn file(&self) -> String {
        match self {
            Input::File(path) => path.display().to_string(),
            Input::Bundled(name, _) => format!("crates/model/exercises/{name}"),
        }
    }

    fn judge(&self, engine: &Engine) -> Checked {
        let file = self.file();
        let text = match self {
            Input::File(path) => match read(path, EXERCISE_FILE_BYTES_MAX) {
                Ok(text) => text,
                Err(BadInput(message)) => return Checked::Unreadable(Problem::unplaced(message)),
            },
            Input::Bundled(_, text) => text.to_string(),
        };
        match fencelab_core::exercise::load(&file, &text) {
            Ok(exercise) => {
                let postgres = match engine {
                    Engine::Sqlite => None,
                    Engine::Postgres { .. } => match engine.exercise(&exercise) {
                        Ok((exercise, target)) => {
                            let (check, equivalents, seconds) = timed_check(target, &exercise);
                            Some(Box::new(OnServer {
                                exercise,
                                check,
                                equivalents,
                                seconds,
                            }))
                        }
                        Err(BadInput(why)) => {
                            return Checked::Unreadable(Problem::unplaced(format!(
                                "{file}: {why}"
                            )));
                        }
                    },
                };
                let (check, equivalents, seconds) = timed_check(Target::Sqlite, &exercise);
                Checked::Checked(Box::new(Judged {
                    check,
                    equivalents,
                    exercise,
                    text,
                    seconds,
                    postgres,
                }))
            }
            Err(error) => Checked::Unreadable(Problem::of_load_error(&error)),
        }
    }
}

/// `ExerciseExt::check_judged`, a piece at a time, with the seconds each
/// part took: the engine reads no clock, so the command times the pieces
/// the core hands out and adds them up by the part each worked on (the
/// reference's run, the starting texts', each broken variant's, then the
/// declarations' judging).
fn timed_check(
    target: Target,
    exercise: &Exercise,
) -> (ExerciseCheck, EquivalentsJudged, CheckSeconds) {
    let mut search = CheckSearch::on(target, exercise.clone());
    let mut seconds = CheckSeconds {
        reference: 0.0,
        start: 0.0,
        variants: vec![0.0; exercise.variants.len()],
        equivalents: 0.0,
    };
    loop {
        let part = search.part();
        let started = Instant::now();
        let progress = search.advance(u64::MAX);
        let took = started.elapsed().as_secs_f64();
        let spent = match part {
            CheckPart::Reference => &mut seconds.reference,
            CheckPart::Start => &mut seconds.start,
            CheckPart::Variant(index) => match seconds.variants.get_mut(index) {
                Some(spent) => spent,
                None => &mut seconds.equivalents,
            },
            CheckPart::Equivalents | CheckPart::Done => &mut seconds.equivalents,
        };
        *spent += took;
        if let Progress::Done(_) = progress {
            break;
        }
    }
    let (check, equivalents) = search.finish_judged();
    (check, equivalents, seconds)
}

/// How many exercises came to what.
#[derive(Default)]
struct Tally {
    ok: usize,
    failing: usize,
    unreadable: usize,
}

impl Tally {
    fn line(&self) -> String {
        let total = self.ok + self.failing + self.unreadable;
        let noun = if total == 1 { "exercise" } else { "exercises" };
        format!(
            "checked {total} {noun}: {} ok, {} failing, {} unreadable\n",
            self.ok, self.failing, self.unreadable
        )
    }
}

/// Checks the exercises at `paths` (the bundled ones when there are none;
/// with `--postgres`, those that have PostgreSQL texts), on SQLite and,
/// with `--postgres`, on the server too.
pub fn run(
    paths: &[PathBuf],
    grading: &GradeArgs,
    postgres: &PostgresArg,
) -> Result<Ended, BadInput> {
    let engine = postgres.engine()?;
    let inputs = inputs(paths, &engine)?;
    let started = Instant::now();
    let text = grading.format().prints_text();
    let options = Options {
        history: grading.history,
        site: grading.site.as_deref(),
    };
    let mut tally = Tally::default();
    let mut entries = Vec::new();
    parallel::in_order(
        &inputs,
        |input| input.judge(&engine),
        |index, checked| {
            let file = inputs[index].file();
            match checked.unwrap_or_else(|| crashed(&file)) {
                Checked::Checked(judged) => {
                    if judged.ok() {
                        tally.ok += 1;
                    } else {
                        tally.failing += 1;
                    }
                    if text {
                        emit(&render::check(&judged.check));
                        if let Some(on_server) = &judged.postgres {
                            emit(&engine.heading());
                            emit(&render::check(&on_server.check));
                        }
                    }
                    entries.extend(judged.entries(&file, &engine, &options));
                }
                Checked::Unreadable(problem) => {
                    tally.unreadable += 1;
                    problem.report();
                    entries.push(Entry::unloadable(&file, problem));
                }
            }
        },
    );
    let document = Document::new("check", entries).timed(started.elapsed().as_secs_f64());
    crate::finish(&document, grading, &tally.line())
}

/// What `paths` names (the bundled exercises when it names none; on a
/// server, those that have its texts).
fn inputs(paths: &[PathBuf], engine: &Engine) -> Result<Vec<Input>, BadInput> {
    let mut inputs = Vec::new();
    if paths.is_empty() {
        for (exercise, (name, text)) in crate::bundled_exercises()?
            .iter()
            .zip(fencelab_core::bundled::FILES)
        {
            if engine.runs(exercise) {
                inputs.push(Input::Bundled(name, text));
            }
        }
        if inputs.is_empty() {
            return Err(BadInput(
                "no bundled exercise has PostgreSQL texts ([postgres]) to check".into(),
            ));
        }
        return Ok(inputs);
    }
    for path in paths {
        match bundled_named(path)? {
            Some(bundled) => inputs.push(bundled),
            None => inputs.extend(
                exercise_files(std::slice::from_ref(path))?
                    .into_iter()
                    .map(Input::File),
            ),
        }
    }
    Ok(inputs)
}

impl Judged {
    /// The grading entries of this check: SQLite's, then the server's, an
    /// entry of its own whose title names the server.
    fn entries(&self, file: &str, engine: &Engine, options: &Options<'_>) -> Vec<Entry> {
        let source = Source {
            file,
            text: &self.text,
        };
        let mut entries = vec![
            Entry::of_check(
                &source,
                &self.exercise,
                &self.check,
                &self.equivalents,
                options,
            )
            .with_check_seconds(&self.seconds),
        ];
        if let Some(on_server) = &self.postgres {
            let mut exercise = on_server.exercise.clone();
            exercise.title = format!("{} {}", exercise.title, engine.heading().trim());
            entries.push(
                Entry::of_check(
                    &source,
                    &exercise,
                    &on_server.check,
                    &on_server.equivalents,
                    options,
                )
                .with_check_seconds(&on_server.seconds),
            );
        }
        entries
    }
}

/// The bundled exercise `path` names by its id, when no file or folder
/// has that name: `fencelab check claim-compare-and-set` checks it, as
/// `fencelab run claim-compare-and-set` runs it.
fn bundled_named(path: &std::path::Path) -> Result<Option<Input>, BadInput> {
    if path.exists() {
        return Ok(None);
    }
    let Some(name) = path.to_str() else {
        return Ok(None);
    };
    let exercises = crate::bundled_exercises()?;
    Ok(exercises
        .iter()
        .zip(fencelab_core::bundled::FILES)
        .find(|(exercise, _)| exercise.id == name)
        .map(|(_, (file, text))| Input::Bundled(file, text)))
}

/// Loads and checks every file in parallel, handing each outcome to `done`
/// in the files' order (see [`parallel::in_order`]); `fencelab index` shares it.
pub(crate) fn files_in_parallel(files: &[PathBuf], mut done: impl FnMut(usize, Checked)) {
    let inputs: Vec<Input> = files.iter().cloned().map(Input::File).collect();
    parallel::in_order(
        &inputs,
        |input| input.judge(&Engine::Sqlite),
        |index, checked| {
            done(
                index,
                checked.unwrap_or_else(|| crashed(&files[index].display().to_string())),
            );
        },
    );
}

/// The engine never panics on any input; if it ever did, the exercise is
/// reported as one that could not be checked, not lost from the count.
fn crashed(name: &str) -> Checked {
    Checked::Unreadable(Problem::unplaced(format!(
        "{name}: checking it crashed (a bug in fencelab; the message above says where)"
    )))
}
