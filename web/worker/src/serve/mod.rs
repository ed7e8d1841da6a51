//! What the worker answers to each request, apart from any JS: plain code
//! over the bundled exercises, the request, and which job is the newest (the
//! engine runs here), so it is tested natively.
//!
//! A check and a protection run are not answered at once: each becomes a
//! [`Job`] that does one piece per call (a slice of one scenario's
//! exploration, one mutant), so the event loop can deliver a newer request
//! between pieces. Must never panic on a request.
//!
//! A request that hands over a text to be read (`Install`, `Author`, an
//! `Index` in a form `SiteIndex::parse_written` does not read) is given
//! back as [`Served::Read`]: the glue asks the exercise reader (web/reader)
//! and hands its answer to [`Server::serve_read`]. Natively, the tests
//! answer with the reader's own function.
//!
//! The server's seams are files: `check.rs` a check as a job,
//! `last.rs` the report of the last check, `install.rs` installing a
//! site's file where the site's list (crate::site) puts it; this file
//! routes each request.

use crate::author::{AuthorJob, Draft};
use crate::kept::KeptChecker;
use crate::protect::ProtectJob;
use crate::site::SiteList;
use fencelab_core::mutate::Context;
use fencelab_core::report::Unusable;
use fencelab_core::{Checker, Exercise, ExerciseExt, Scenario, Schedule, mutation};
use fencelab_model::history::ResultRows;
use fencelab_model::site::SiteIndex;
use fencelab_protocol::reader::ReadAnswer;
use fencelab_protocol::{Edits, Installation, LeftOut, PRERENDERED_SUFFIX, Request, Response};
use std::collections::BTreeMap;
use std::rc::Rc;

mod check;
mod install;
mod last;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

pub use check::{CheckJob, RUNS_PER_SLICE};
use last::LastReport;

/// What serving a request gives: an answer now, a job to run, or nothing
/// (`Request::Prepare`, which the app does not wait for).
pub enum Served {
    /// Large, and moved around once: boxed.
    Answer(Box<Response>),
    Job(Job),
    Nothing,
    /// The request's text is for the exercise reader (`Request::read`):
    /// its answer and the request go to [`Server::serve_read`].
    Read(Box<Request>),
}

/// Work done one piece per [`Job::next`], so a newer request can arrive in
/// between. (Each job is large, and moved from task to task: boxed.)
pub enum Job {
    Check(Box<CheckJob>),
    Protect(Box<ProtectJob>),
    Author(Box<AuthorJob>),
}

impl Job {
    /// The seq of the request the job answers.
    pub fn seq(&self) -> u64 {
        match self {
            Job::Check(job) => job.seq,
            Job::Protect(job) => job.seq,
            Job::Author(job) => job.seq,
        }
    }

    /// Whether the app waits for this job: its answer, and the `Working`
    /// between its pieces, are posted. A check `Request::Prepare` started
    /// is the app's only once an equal `Check` takes it over.
    pub fn answers_page(&self) -> bool {
        match self {
            Job::Check(job) => job.answers_page,
            Job::Protect(_) | Job::Author(_) => true,
        }
    }

    /// Does the next piece; the answer once every piece is done.
    pub fn piece(&mut self) -> Option<Response> {
        match self {
            Job::Check(job) => job.piece(),
            Job::Protect(job) => job.piece(),
            Job::Author(job) => job.piece(),
        }
    }
}

/// The bundled exercises' loaded form as the build script wrote it.
#[cfg(any(test, not(target_arch = "wasm32")))]
pub fn loaded_json() -> &'static str {
    fencelab_model::loaded_json_at_build_time!()
}

/// The bundled exercises, what the mutation operators know of each (read
/// from its schema once, on the first `Protect` that names it), and which
/// job is still wanted.
pub struct Server {
    /// Shared with the jobs: a check starts on every keystroke, and copying
    /// a whole exercise (narrative, schema, scenarios) each time is waste.
    /// The bundled ones first, then those installed: every exercise `site`
    /// lists whose schema SQLite accepts (one a site file replaces is
    /// dropped first, `Server::forget`).
    exercises: Vec<Rc<Exercise>>,
    /// The exercises the page lists, and where each came from.
    site: SiteList,
    contexts: BTreeMap<String, Context>,
    /// The seq of the newest job (`Request::is_job`): every job but its own
    /// is stale, and is dropped before its next piece.
    latest_job: u64,
    /// The checker of the exercise checked last, for the next check,
    /// replay, drive or hunt of it.
    kept: KeptChecker,
    last: LastReport,
    /// Whether a `Request::Prepare` was served: one is, at most.
    prepared: bool,
}

impl Server {
    /// A server for the bundled exercises as build.rs loaded them at build
    /// time: no TOML is parsed before the first check (that took 15.6 ms
    /// natively, about 4x reading the loaded form). Their schemas are not
    /// tried here: a test keeps this list equal to
    /// `fencelab_core::bundled::exercises()`, which tries every one on
    /// SQLite. None when the bundled exercises do not load, as before.
    /// Natively only: the worker's wasm fetches that form (`catalog.rs`).
    #[cfg(any(test, not(target_arch = "wasm32")))]
    pub fn bundled() -> Server {
        Server::new(fencelab_model::bundled::from_loaded_json(loaded_json()).unwrap_or_default())
    }

    /// The ids of the exercises served, in order.
    #[cfg(test)]
    pub(crate) fn exercise_ids(&self) -> Vec<&str> {
        self.exercises.iter().map(|e| e.id.as_str()).collect()
    }

    pub fn new(exercises: Vec<Exercise>) -> Server {
        Server {
            site: SiteList::bundled(exercises.iter().map(|e| e.id.as_str())),
            exercises: exercises.into_iter().map(Rc::new).collect(),
            contexts: BTreeMap::new(),
            latest_job: 0,
            kept: KeptChecker::default(),
            last: LastReport::default(),
            prepared: false,
        }
    }

    /// Whether `job` is still wanted: no newer job came after it.
    /// (Replays, drives and queries are answered between its pieces.)
    pub fn wants(&self, job: &Job) -> bool {
        job.seq() == self.latest_job
    }

    /// The check under way in `stale` (jobs a newer request found waiting
    /// for their next piece) of the same texts as `request`, a `Check`,
    /// goes on as `request`'s: its answer, under `request`'s seq, is the
    /// app's. That is how the app's first check of a prerendered page takes
    /// over the check `Request::Prepare` started. Every other job in
    /// `stale` is dropped; `None` when no job there checks those texts.
    pub fn take_over(
        &mut self,
        stale: impl IntoIterator<Item = Job>,
        request: &Request,
    ) -> Option<Job> {
        let Request::Check {
            seq,
            exercise,
            edits,
        } = request
        else {
            return None;
        };
        // Usually nothing is waiting: no texts to make then.
        let mut stale = stale.into_iter().peekable();
        stale.peek()?;
        let texts = find(&self.exercises, exercise).ok()?.texts_with(edits);
        let mut job = stale.find_map(|job| match job {
            Job::Check(check) if check.exercise == *exercise && check.texts == texts => Some(check),
            _ => None,
        })?;
        job.seq = *seq;
        job.answers_page = true;
        self.latest_job = *seq;
        Some(Job::Check(job))
    }

    /// Serves `request`; every failure is `Failed` with the request's seq.
    pub fn serve(&mut self, request: Request) -> Served {
        let seq = request.seq();
        if request.is_job() {
            self.latest_job = seq;
        }
        match &request {
            // The index a site is built with is read here, on every load,
            // without starting the reader.
            Request::Index { source, .. } => match SiteIndex::parse_written(source) {
                Some(result) => return Served::Answer(Box::new(Response::Indexed { seq, result })),
                None => return Served::Read(Box::new(request)),
            },
            Request::Install { file, source, .. } if file.ends_with(PRERENDERED_SUFFIX) => {
                let installation = self.install_prerendered(file, source);
                return Served::Answer(Box::new(Response::Installed {
                    seq,
                    installation: Box::new(installation),
                }));
            }
            Request::Install { .. } | Request::Author { .. } => {
                return Served::Read(Box::new(request));
            }
            _ => {}
        }
        match self.answer(request) {
            Ok(served) => served,
            Err(message) => Served::Answer(Box::new(Response::Failed { seq, message })),
        }
    }

    /// Whether this server has the exercise `id`.
    pub fn has(&self, id: &str) -> bool {
        self.exercises.iter().any(|e| e.id == id)
    }

    /// Serves a request [`Server::serve`] gave back as [`Served::Read`],
    /// with what the exercise reader made of its text: a site's file or an
    /// exercise link's installed, a draft answered or its check started, an
    /// index answered. A draft's check that a newer job has replaced
    /// meanwhile is not started.
    pub fn serve_read(&mut self, request: Request, answer: ReadAnswer) -> Served {
        let seq = request.seq();
        if request.is_job() && self.latest_job != seq {
            return Served::Nothing;
        }
        let response = match (request, answer) {
            (_, ReadAnswer::Failed(message)) => Response::Failed { seq, message },
            (Request::Install { file, .. }, ReadAnswer::Exercise(read)) => Response::Installed {
                seq,
                installation: Box::new(match read {
                    Ok(read) => self.install(&file, *read, false),
                    Err(error) => Installation::LeftOut(LeftOut::Unloadable(error)),
                }),
            },
            (Request::Author { check: false, .. }, ReadAnswer::Exercise(read)) => {
                Response::Drafted {
                    seq,
                    result: read.map(|read| Box::new(read.exercise)),
                }
            }
            (Request::Author { check: true, .. }, ReadAnswer::Exercise(read)) => {
                match AuthorJob::start(seq, read) {
                    Draft::Job(job) => return Served::Job(Job::Author(job)),
                    Draft::Unloadable(response) => *response,
                }
            }
            (Request::Index { .. }, ReadAnswer::Index(result)) => Response::Indexed { seq, result },
            _ => Response::Failed {
                seq,
                message: "the exercise reader answered another question than this one".into(),
            },
        };
        Served::Answer(Box::new(response))
    }

    /// Answers every request but those [`Server::serve`] hands to the
    /// reader: one arm per request the worker routes to the core.
    fn answer(&mut self, request: Request) -> Result<Served, String> {
        let (exercises, kept) = (&self.exercises, &self.kept);
        Ok(match request {
            Request::Check {
                seq,
                exercise,
                edits,
            } => self.check(seq, &exercise, &edits)?,
            Request::Prepare { exercise } => self.prepare(&exercise),
            Request::Replay {
                seq,
                exercise,
                edits,
                scenario,
                schedule,
            } => {
                let exercise = find(exercises, &exercise)?;
                let scenario = scenario_of(exercise, &scenario)?;
                // Texts that cannot run still give a report: its verdict is the
                // error, shown in the timeline like any other.
                let report = on_kept(kept, exercise, &edits, |checker| {
                    checker.replay(scenario, &schedule)
                })
                .unwrap_or_else(|unusable| unusable.report(scenario));
                Served::Answer(Box::new(Response::Replayed { seq, report }))
            }
            Request::Drive {
                seq,
                exercise,
                edits,
                scenario,
                schedule,
            } => {
                let named = (exercise.as_str(), &edits, scenario.as_str());
                let drive = driven(exercises, kept, named, |checker, scenario| {
                    checker.drive(scenario, &schedule)
                })?;
                Served::Answer(Box::new(Response::Driven { seq, drive }))
            }
            Request::Hunt {
                seq,
                exercise,
                edits,
                scenario,
                schedule,
            } => {
                let named = (exercise.as_str(), &edits, scenario.as_str());
                let hunt = Box::new(driven(exercises, kept, named, |checker, scenario| {
                    checker.hunt(scenario, &schedule)
                })?);
                Served::Answer(Box::new(Response::Hunted { seq, hunt }))
            }
            Request::Query {
                seq,
                exercise,
                edits,
                scenario,
                schedule,
                event_index,
                sql,
            } => {
                let exercise = find(exercises, &exercise)?;
                let scenario = scenario_of(exercise, &scenario)?;
                let result = query(exercise, &edits, scenario, &schedule, event_index, &sql);
                Served::Answer(Box::new(Response::Queried { seq, result }))
            }
            Request::Protect {
                seq,
                exercise,
                edits,
            } => self.protect(seq, &exercise, &edits)?,
            // `serve` has handed these to the reader.
            Request::Install { .. } | Request::Author { .. } | Request::Index { .. } => {
                return Err("the worker served a text the reader was to read".into());
            }
        })
    }

    /// A check, answered at once with the last report when it is of the
    /// same texts ([`LastReport`]), else a job.
    fn check(&self, seq: u64, exercise: &str, edits: &Edits) -> Result<Served, String> {
        let exercise = find(&self.exercises, exercise)?;
        let texts = exercise.texts_with(edits);
        Ok(match self.last.of(&exercise.id, &texts) {
            Some(report) => Served::Answer(Box::new(Response::Checked { seq, report })),
            None => Served::Job(Job::Check(Box::new(CheckJob::new(
                seq, exercise, texts, self,
            )))),
        })
    }

    /// Before the app's first job only, and once: a hint, which is answered
    /// with nothing even when it names no exercise here.
    fn prepare(&mut self, exercise: &str) -> Served {
        let first = self.latest_job == 0 && !self.prepared;
        self.prepared = true;
        match find(&self.exercises, exercise) {
            Ok(exercise) if first => {
                let texts = exercise.texts_with(&exercise.start_edits());
                let mut job = CheckJob::new(0, exercise, texts, self);
                job.answers_page = false;
                Served::Job(Job::Check(Box::new(job)))
            }
            _ => Served::Nothing,
        }
    }

    /// A protection job, with what the mutation operators know of the
    /// exercise (read from its schema on the first `Protect` of it).
    fn protect(&mut self, seq: u64, exercise: &str, edits: &Edits) -> Result<Served, String> {
        let exercise = find(&self.exercises, exercise)?;
        let context = match self.contexts.get(&exercise.id) {
            Some(context) => context,
            None => {
                let context = mutation::context(exercise).map_err(|error| error.to_string())?;
                self.contexts.entry(exercise.id.clone()).or_insert(context)
            }
        };
        Ok(Served::Job(Job::Protect(Box::new(ProtectJob::new(
            seq, exercise, edits, context,
        )))))
    }
}

fn find<'a>(exercises: &'a [Rc<Exercise>], id: &str) -> Result<&'a Rc<Exercise>, String> {
    exercises
        .iter()
        .find(|e| e.id == id)
        .ok_or_else(|| format!("there is no exercise `{id}`"))
}

fn scenario_of<'a>(exercise: &'a Exercise, name: &str) -> Result<&'a Scenario, String> {
    exercise
        .scenarios
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("exercise `{}` has no scenario `{name}`", exercise.id))
}

/// `work` for a drive or a hunt of the scenario `named` (with the
/// exercise and the edits), on the checker `kept` lends: texts that cannot
/// run fail it with their reason, as there is no history to show.
fn driven<T>(
    exercises: &[Rc<Exercise>],
    kept: &KeptChecker,
    (exercise, edits, scenario): (&str, &Edits, &str),
    work: impl FnOnce(&mut Checker, &Scenario) -> T,
) -> Result<T, String> {
    let exercise = find(exercises, exercise)?;
    let scenario = scenario_of(exercise, scenario)?;
    on_kept(kept, exercise, edits, |checker| work(checker, scenario))
        .map_err(|unusable| unusable.error.message())
}

/// `work` done on the checker `kept` lends for `edits` in `exercise`,
/// which is then kept for the next request; texts that cannot run give
/// their reason instead (a drive or a hunt fails with it: there is no
/// history to show).
fn on_kept<T>(
    kept: &KeptChecker,
    exercise: &Exercise,
    edits: &Edits,
    work: impl FnOnce(&mut Checker) -> T,
) -> Result<T, Unusable> {
    let mut checker = kept.lend(exercise, &exercise.texts_with(edits))?;
    let done = work(&mut checker);
    kept.give_back(&exercise.id, checker);
    Ok(done)
}

/// The learner's SQL `sql` run on the world after `event_index` of
/// `schedule`, on a checker of its own: the query runs outside any run,
/// which a reset need not undo.
fn query(
    exercise: &Exercise,
    edits: &Edits,
    scenario: &Scenario,
    schedule: &Schedule,
    event_index: usize,
    sql: &str,
) -> Result<ResultRows, String> {
    let mut checker = checker(exercise, edits).map_err(|unusable| unusable.error.message())?;
    checker
        .query_after(scenario, schedule, event_index, sql)
        .map_err(|error| error.to_string())
}

/// A checker for the exercise with the learner's edits in place.
fn checker(exercise: &Exercise, edits: &Edits) -> Result<Checker, Unusable> {
    exercise.checker(&exercise.texts_with(edits))
}
