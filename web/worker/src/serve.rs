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

use crate::author::{AuthorJob, Draft};
use crate::kept::KeptChecker;
use crate::protect::ProtectJob;
use crate::site::{Place, SiteList};
use fencelab_core::check::{Progress, SuiteSearch};
use fencelab_core::mutate::Context;
use fencelab_core::report::Unusable;
use fencelab_core::{Checker, Exercise, ExerciseExt, Limits, Scenario, mutation};
use fencelab_model::ExerciseReport;
use fencelab_model::exercise::Unchecked;
use fencelab_model::site::SiteIndex;
use fencelab_protocol::reader::ReadAnswer;
use fencelab_protocol::{
    Edits, Installation, LeftOut, Listed, PRERENDERED_SUFFIX, Request, Response,
};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

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

/// Runs (schedules and cut branches) one piece of a check explores. The
/// bundled exercises explore 650 to 1,900 runs a second in wasm, whole
/// checks with their setup included (`BENCH explore ... runs/s wasm`, on a
/// loaded 2-core machine), so a slice of 8 runs takes about 4 to 12 ms: a
/// task of the worker (`worker::TASK_MS`) ends within one slice of its
/// budget, so a newer edit waits at most about that long for the stale
/// check to be dropped (the longest bundled scenario, 20 runs, takes three
/// slices).
pub const RUNS_PER_SLICE: u64 = 8;

/// A check in progress: one slice of a scenario's exploration per
/// [`CheckJob::next`] (the core's [`SuiteSearch`]), on the exercise's kept
/// checker, which it gives back when it ends or is dropped.
pub struct CheckJob {
    pub seq: u64,
    /// False for the check `Request::Prepare` started, until a `Check`
    /// takes it over ([`Server::take_over`]).
    answers_page: bool,
    exercise: String,
    /// Every procedure's text, the edits in place: what is checked.
    texts: Texts,
    /// `None` once the check has ended.
    suite: Option<SuiteSearch>,
    kept: KeptChecker,
    last: LastReport,
}

/// An exercise's procedure texts, by name, as [`Exercise::texts_with`]
/// gives them: everything a check's report depends on besides the exercise.
type Texts = Vec<(String, String)>;

impl CheckJob {
    /// A check of `texts` in `exercise` (nothing runs yet), on the checker
    /// the server's kept checker lends; its report is the server's last
    /// report when it ends.
    fn new(seq: u64, exercise: &Exercise, texts: Texts, server: &Server) -> CheckJob {
        let checker = server.kept.lend(exercise, &texts);
        CheckJob {
            seq,
            answers_page: true,
            exercise: exercise.id.clone(),
            texts,
            suite: Some(SuiteSearch::new(
                &exercise.id,
                checker,
                &exercise.scenarios,
                Limits::default(),
            )),
            kept: server.kept.clone(),
            last: server.last.clone(),
        }
    }

    /// Explores the next slice of the current scenario; once every scenario
    /// is checked, returns the exercise's report.
    pub fn piece(&mut self) -> Option<Response> {
        let suite = self.suite.as_mut()?;
        match suite.advance(RUNS_PER_SLICE) {
            Progress::Pending => None,
            Progress::Done(report) => {
                self.give_back();
                self.last
                    .keep(&self.exercise, std::mem::take(&mut self.texts), &report);
                Some(Response::Checked {
                    seq: self.seq,
                    report: *report,
                })
            }
        }
    }

    fn give_back(&mut self) {
        if let Some(checker) = self.suite.take().and_then(SuiteSearch::into_checker) {
            self.kept.give_back(&self.exercise, checker);
        }
    }
}

impl Drop for CheckJob {
    /// A check a newer edit made stale gives its checker back too.
    fn drop(&mut self) {
        self.give_back();
    }
}

/// The report of the check that ended last, with what it checked. A check
/// is a function of the exercise and its texts alone (the engine reads no
/// clock and draws no randomness of its own), so an equal `Check` is
/// answered with it at once: the app's first check of a prerendered
/// page, checked already on `Request::Prepare`, or texts put back as they
/// were. An exercise installed provisionally (from a prerendered page) is
/// replaced only after this forgets it, so an id names one.
#[derive(Clone, Default)]
struct LastReport(Rc<RefCell<Option<Reported>>>);

struct Reported {
    exercise: String,
    texts: Texts,
    report: ExerciseReport,
}

impl LastReport {
    fn keep(&self, exercise: &str, texts: Texts, report: &ExerciseReport) {
        *self.0.borrow_mut() = Some(Reported {
            exercise: exercise.to_string(),
            texts,
            report: report.clone(),
        });
    }

    /// Drops the kept report if it is `exercise`'s.
    fn forget(&self, exercise: &str) {
        let mut last = self.0.borrow_mut();
        if last.as_ref().is_some_and(|last| last.exercise == exercise) {
            *last = None;
        }
    }

    /// The kept report, if it is of these texts of this exercise.
    fn of(&self, exercise: &str, texts: &Texts) -> Option<ExerciseReport> {
        self.0
            .borrow()
            .as_ref()
            .filter(|last| last.exercise == exercise && last.texts == *texts)
            .map(|last| last.report.clone())
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

    /// Lists an exercise that is not bundled, read from `file` as
    /// `fencelab check` reads a file, where the site's list puts it
    /// ([`SiteList::enter`]), and installs it unless its schema fails on
    /// SQLite; the page lists what this answers. The schema is tried only
    /// for an exercise that is listed.
    fn install(&mut self, file: &str, read: Unchecked, provisional: bool) -> Installation {
        let Unchecked { exercise, schema } = read;
        let place = self.site.enter(&exercise.id, file, provisional);
        if let Place::Taken(holder) = place {
            let id = exercise.id;
            return Installation::LeftOut(LeftOut::IdTaken { id, holder });
        }
        if place == Place::Replacing {
            self.forget(&exercise.id);
        }
        let schema_error = match fencelab_core::exercise::try_schema(&exercise) {
            Ok(()) => {
                self.exercises.push(Rc::new(exercise.clone()));
                None
            }
            Err(error) => Some(schema.error("schema", error.to_string())),
        };
        let listed = Listed {
            exercise,
            schema_error,
        };
        match place {
            Place::Replacing => Installation::Replaced(listed),
            _ => Installation::Listed(listed),
        }
    }

    /// Lists, provisionally, the one exercise of a prerendered page's
    /// loaded form (`source`), under `file` in errors: its site file
    /// replaces it once installed.
    fn install_prerendered(&mut self, file: &str, source: &str) -> Installation {
        // The whole text is one place: its errors and its schema's.
        let schema = fencelab_model::exercise::FilePlace {
            file: file.to_string(),
            line: 0,
            column: 0,
        };
        let unloadable = |message| {
            Installation::LeftOut(LeftOut::Unloadable(schema.error("(loaded form)", message)))
        };
        let mut exercises = match fencelab_model::bundled::from_loaded_json(source) {
            Ok(exercises) => exercises,
            Err(error) => return unloadable(error.message),
        };
        let (Some(exercise), None) = (exercises.pop(), exercises.pop()) else {
            return unloadable("it holds no exercise, or more than one".into());
        };
        self.install(file, Unchecked { exercise, schema }, true)
    }

    /// Drops what is kept of the exercise `id` (its context, its kept
    /// checker, its last report) and the exercise itself, which is being
    /// replaced.
    fn forget(&mut self, id: &str) {
        self.exercises.retain(|e| e.id != id);
        self.contexts.remove(id);
        self.kept.forget(id);
        self.last.forget(id);
    }

    // long: one arm per request the worker routes to the core, so every
    // kind is answered in one place; each arm is a few lines already.
    fn answer(&mut self, request: Request) -> Result<Served, String> {
        let exercises = &self.exercises;
        let kept = &self.kept;
        Ok(match request {
            Request::Check {
                seq,
                exercise,
                edits,
            } => {
                let exercise = find(exercises, &exercise)?;
                let texts = exercise.texts_with(&edits);
                match self.last.of(&exercise.id, &texts) {
                    Some(report) => Served::Answer(Box::new(Response::Checked { seq, report })),
                    None => Served::Job(Job::Check(Box::new(CheckJob::new(
                        seq, exercise, texts, self,
                    )))),
                }
            }
            // Before the app's first job only, and once: a hint, which is
            // answered with nothing even when it names no exercise here.
            Request::Prepare { exercise } => {
                let first = self.latest_job == 0 && !self.prepared;
                self.prepared = true;
                match find(&self.exercises, &exercise) {
                    Ok(exercise) if first => {
                        let texts = exercise.texts_with(&exercise.start_edits());
                        let mut job = CheckJob::new(0, exercise, texts, self);
                        job.answers_page = false;
                        Served::Job(Job::Check(Box::new(job)))
                    }
                    _ => Served::Nothing,
                }
            }
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
                let (exercise, scenario) = driven(exercises, &exercise, &scenario)?;
                let drive = on_kept(kept, exercise, &edits, |checker| {
                    checker.drive(scenario, &schedule)
                })
                .map_err(|unusable| unusable.error.message())?;
                Served::Answer(Box::new(Response::Driven { seq, drive }))
            }
            Request::Hunt {
                seq,
                exercise,
                edits,
                scenario,
                schedule,
            } => {
                let (exercise, scenario) = driven(exercises, &exercise, &scenario)?;
                let hunt = on_kept(kept, exercise, &edits, |checker| {
                    checker.hunt(scenario, &schedule)
                })
                .map_err(|unusable| unusable.error.message())?;
                Served::Answer(Box::new(Response::Hunted {
                    seq,
                    hunt: Box::new(hunt),
                }))
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
                // A checker of its own: the query is the learner's SQL, run
                // on the world outside any run, which a reset need not undo.
                let result = checker(exercise, &edits)
                    .map_err(|unusable| unusable.error.message())
                    .and_then(|mut checker| {
                        checker
                            .query_after(scenario, &schedule, event_index, &sql)
                            .map_err(|error| error.to_string())
                    });
                Served::Answer(Box::new(Response::Queried { seq, result }))
            }
            Request::Protect {
                seq,
                exercise,
                edits,
            } => {
                let exercise = find(exercises, &exercise)?;
                let context = match self.contexts.get(&exercise.id) {
                    Some(context) => context,
                    None => {
                        let context =
                            mutation::context(exercise).map_err(|error| error.to_string())?;
                        self.contexts.entry(exercise.id.clone()).or_insert(context)
                    }
                };
                Served::Job(Job::Protect(Box::new(ProtectJob::new(
                    seq, exercise, &edits, context,
                ))))
            }
            // `serve` has handed these to the reader.
            Request::Install { .. } | Request::Author { .. } | Request::Index { .. } => {
                return Err("the worker served a text the reader was to read".into());
            }
        })
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

/// The exercise and the scenario named, for a drive or a hunt.
fn driven<'a>(
    exercises: &'a [Rc<Exercise>],
    exercise: &str,
    scenario: &str,
) -> Result<(&'a Exercise, &'a Scenario), String> {
    let exercise = find(exercises, exercise)?;
    Ok((exercise, scenario_of(exercise, scenario)?))
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

/// A checker for the exercise with the learner's edits in place.
fn checker(exercise: &Exercise, edits: &Edits) -> Result<Checker, Unusable> {
    exercise.checker(&exercise.texts_with(edits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_core::Schedule;
    use fencelab_core::report::Verdict;

    const CLAIM: &str = "claim-compare-and-set";

    fn exercises() -> Vec<Exercise> {
        fencelab_core::bundled::exercises().expect("the bundled exercises load")
    }

    #[test]
    fn the_build_time_exercises_are_the_bundled_ones_with_their_schemas_tried() {
        let server = Server::bundled();
        let loaded: Vec<Exercise> = server.exercises.iter().map(|e| (**e).clone()).collect();
        assert_eq!(loaded, exercises());
    }

    /// A claim that does not parse as a procedure: no checker can be built.
    fn broken_claim() -> Edits {
        Edits::from([("claim".to_string(), "SELECT 1;\n-- @bogus x".to_string())])
    }

    /// The texts the learner starts from, as the page sends them.
    fn starts(exercise: &Exercise) -> Edits {
        exercise.start_edits()
    }

    fn claim() -> Exercise {
        exercises()
            .into_iter()
            .find(|e| e.id == CLAIM)
            .expect("the claim exercise")
    }

    /// Serves `request` as the glue does, a text handed over answered by
    /// the exercise reader's own function, in-process.
    fn served(server: &mut Server, request: Request) -> Served {
        match server.serve(request) {
            Served::Read(request) => {
                let read = request.read().expect("a request that hands over a text");
                server.serve_read(*request, fencelab_reader::read(&read))
            }
            served => served,
        }
    }

    fn answer_of(server: &mut Server, request: Request) -> Response {
        match served(server, request) {
            Served::Answer(response) => *response,
            Served::Job(_) => panic!("only checks and protections are jobs"),
            Served::Nothing => panic!("only a prepare is answered with nothing"),
            Served::Read(_) => panic!("a read is answered"),
        }
    }

    fn job_of(server: &mut Server, request: Request) -> Job {
        match served(server, request) {
            Served::Job(job) => job,
            Served::Answer(response) => panic!("a job, not {response:?}"),
            Served::Nothing => panic!("a job, not nothing"),
            Served::Read(_) => panic!("a read is answered"),
        }
    }

    /// Runs a job to its answer; the answer and the pieces it took.
    fn run_job(job: &mut Job) -> (Response, usize) {
        let mut pieces = 1;
        loop {
            if let Some(response) = job.piece() {
                return (response, pieces);
            }
            pieces += 1;
        }
    }

    #[test]
    fn a_check_runs_in_slices_and_reports_every_scenario_as_a_check_in_one_go() {
        let mut server = Server::new(exercises());
        let mut job = job_of(
            &mut server,
            Request::Check {
                seq: 4,
                exercise: CLAIM.into(),
                edits: starts(&claim()),
            },
        );
        assert!(matches!(job, Job::Check(_)));
        assert_eq!(job.seq(), 4);
        let (response, pieces) = run_job(&mut job);
        let Response::Checked { seq, report } = response else {
            panic!("the report, once every scenario ran: {response:?}");
        };
        assert_eq!(seq, 4);
        let scenarios = claim().scenarios.len();
        assert_eq!(report.scenarios.len(), scenarios);
        // At least a piece per scenario; the answer comes with the last.
        assert!(
            pieces >= scenarios,
            "{pieces} pieces for {scenarios} scenarios"
        );
        // The starting text is the naive claim: "one winner" catches it.
        assert!(report.failed > 0);
        assert_eq!(report, claim().run(&starts(&claim())));
    }

    /// The exercise's checker is kept between requests: lent to a check
    /// and given back when it ends, or when a newer edit drops it half-way;
    /// renewed for a replay, whose report is a new checker's; replaced by
    /// another exercise's. Texts that cannot run keep nothing.
    #[test]
    fn the_last_exercises_checker_is_kept_lent_to_a_check_and_given_back_even_when_dropped() {
        let mut server = Server::new(exercises());
        let check = |seq, exercise: &Exercise, edits: Edits| Request::Check {
            seq,
            exercise: exercise.id.clone(),
            edits,
        };
        let claim = claim();
        let mut job = job_of(&mut server, check(1, &claim, broken_claim()));
        run_job(&mut job);
        drop(job);
        assert!(!server.kept.holds(CLAIM), "texts that cannot run kept one");

        let mut job = job_of(&mut server, check(2, &claim, starts(&claim)));
        let (response, _) = run_job(&mut job);
        assert!(server.kept.holds(CLAIM), "an ended check gave nothing back");
        let Response::Checked { report, .. } = response else {
            panic!("a report: {response:?}");
        };

        let mut job = job_of(&mut server, check(3, &claim, Edits::new()));
        assert!(job.piece().is_none(), "the check ended in one piece");
        assert!(!server.kept.holds(CLAIM), "the checker is lent to the job");
        drop(job);
        assert!(server.kept.holds(CLAIM), "a dropped check kept its checker");

        let failed = report
            .scenarios
            .iter()
            .find(|s| s.verdict() == Verdict::Failed)
            .expect("the starting text fails a scenario");
        let replay = Request::Replay {
            seq: 4,
            exercise: CLAIM.into(),
            edits: starts(&claim),
            scenario: failed.name.clone(),
            schedule: failed.schedule.clone(),
        };
        let Response::Replayed {
            report: replayed, ..
        } = answer_of(&mut server, replay)
        else {
            panic!("a replay's report");
        };
        let scenario = scenario_of(&claim, &failed.name).expect("the scenario");
        let mut new = checker(&claim, &starts(&claim)).expect("the starting texts run");
        assert_eq!(replayed, new.replay(scenario, &failed.schedule));
        assert!(server.kept.holds(CLAIM), "a replay kept nothing");

        let other = exercises().swap_remove(1);
        let mut job = job_of(&mut server, check(5, &other, starts(&other)));
        run_job(&mut job);
        assert!(server.kept.holds(&other.id) && !server.kept.holds(CLAIM));
    }

    fn prepare(exercise: &str) -> Request {
        Request::Prepare {
            exercise: exercise.into(),
        }
    }

    fn check_of(seq: u64, edits: Edits) -> Request {
        Request::Check {
            seq,
            exercise: CLAIM.into(),
            edits,
        }
    }

    /// start-worker.js's `Prepare` starts a check of the starting texts
    /// that the app does not hear of; the app's first `Check` of the same
    /// texts takes it over half-way, under its own seq, and its report is
    /// a check's in one go.
    #[test]
    fn the_apps_first_check_takes_over_the_check_a_prepare_started() {
        // Another text does not take it over; it is dropped.
        let mut server = Server::new(exercises());
        let prepared = job_of(&mut server, prepare(CLAIM));
        assert!(
            server
                .take_over([prepared], &check_of(2, broken_claim()))
                .is_none()
        );

        let mut server = Server::new(exercises());
        let mut prepared = job_of(&mut server, prepare(CLAIM));
        assert!(!prepared.answers_page() && server.wants(&prepared));
        assert_eq!(
            prepared.piece(),
            None,
            "claim's check takes more than a piece"
        );
        let mut taken = server
            .take_over([prepared], &check_of(3, starts(&claim())))
            .expect("the app's check of the starting texts takes it over");
        assert!(taken.answers_page() && server.wants(&taken));
        assert_eq!(taken.seq(), 3);
        let (response, _) = run_job(&mut taken);
        assert_eq!(
            response,
            Response::Checked {
                seq: 3,
                report: claim().run(&starts(&claim())),
            }
        );
        // A newer job still drops it.
        job_of(&mut server, check_of(4, broken_claim()));
        assert!(!server.wants(&taken));
    }

    /// The report of the check that ended last answers an equal check at
    /// once: a prepared one the app did not take over in time, or texts
    /// put back. Other texts, or another exercise, are checked.
    #[test]
    fn a_check_of_the_texts_checked_last_is_answered_at_once() {
        let mut server = Server::new(exercises());
        let mut prepared = job_of(&mut server, prepare(CLAIM));
        let (quiet, _) = run_job(&mut prepared);
        assert!(!prepared.answers_page(), "{quiet:?} is not posted");
        let expected = claim().run(&starts(&claim()));
        assert_eq!(
            answer_of(&mut server, check_of(1, starts(&claim()))),
            Response::Checked {
                seq: 1,
                report: expected.clone(),
            }
        );
        let mut edited = job_of(&mut server, check_of(2, Edits::new()));
        let (response, _) = run_job(&mut edited);
        assert!(matches!(response, Response::Checked { seq: 2, .. }));
        // The starting texts again: the last report is the reference's now.
        let mut again = job_of(&mut server, check_of(3, starts(&claim())));
        let (response, _) = run_job(&mut again);
        assert_eq!(
            response,
            Response::Checked {
                seq: 3,
                report: expected
            }
        );
        let other = exercises().swap_remove(1);
        let check = Request::Check {
            seq: 4,
            exercise: other.id.clone(),
            edits: starts(&other),
        };
        assert!(matches!(server.serve(check), Served::Job(_)));
    }

    /// A prepare is a hint: once only, before any job, and for an exercise
    /// the worker has; anything else is answered with nothing.
    #[test]
    fn a_prepare_after_a_job_a_second_prepare_and_an_unknown_exercise_do_nothing() {
        let nothing =
            |server: &mut Server, request| matches!(server.serve(request), Served::Nothing);
        let mut server = Server::new(exercises());
        assert!(nothing(&mut server, prepare("no-such-exercise")));
        assert!(nothing(&mut server, prepare(CLAIM)), "a second prepare ran");
        let mut server = Server::new(exercises());
        job_of(&mut server, check_of(1, starts(&claim())));
        assert!(
            nothing(&mut server, prepare(CLAIM)),
            "a prepare after a job ran"
        );
        let mut server = Server::new(exercises());
        assert!(!nothing(&mut server, prepare(CLAIM)));
        assert!(nothing(&mut server, prepare(CLAIM)));
    }

    #[test]
    fn a_newer_check_drops_a_long_scenario_between_two_of_its_slices() {
        const LONG: &str = "counterexamples-bound-the-protection";
        let exercise = exercises().into_iter().find(|e| e.id == LONG).unwrap();
        let (index, scenario) = exercise
            .scenarios
            .iter()
            .enumerate()
            .find(|(_, s)| s.name == "an install lands between the check and the write")
            .expect("the three-process scenario");
        let explored = exercise.run(&Edits::new()).scenarios[index].exploration;
        let runs = explored.schedules + explored.pruned;
        assert!(
            runs > RUNS_PER_SLICE,
            "{}: {runs} runs fit in one slice",
            scenario.name
        );
        let mut server = Server::new(exercises());
        let check = |seq| Request::Check {
            seq,
            exercise: LONG.into(),
            edits: Edits::new(),
        };
        let mut job = job_of(&mut server, check(1));
        // Up to the long scenario, then one slice into it.
        let mut pieces = 0;
        let Job::Check(inner) = &mut job else {
            panic!("a check job");
        };
        let position = |job: &CheckJob| job.suite.as_ref().map(SuiteSearch::position);
        while position(inner) < Some((index, true)) {
            assert_eq!(inner.piece(), None);
            pieces += 1;
            assert!(pieces < 10_000, "the long scenario never started");
        }
        assert!(server.wants(&job));
        job_of(&mut server, check(2));
        assert!(
            !server.wants(&job),
            "the stale check is dropped before its next slice"
        );
    }

    #[test]
    fn texts_that_do_not_parse_fail_a_drive_and_a_query_with_their_seq() {
        let mut server = Server::new(exercises());
        let drive = answer_of(
            &mut server,
            Request::Drive {
                seq: 9,
                exercise: CLAIM.into(),
                edits: broken_claim(),
                scenario: "one winner".into(),
                schedule: Schedule::new(),
            },
        );
        assert!(
            matches!(drive, Response::Failed { seq: 9, .. }),
            "{drive:?}"
        );
        let query = answer_of(
            &mut server,
            Request::Query {
                seq: 10,
                exercise: CLAIM.into(),
                edits: broken_claim(),
                scenario: "one winner".into(),
                schedule: Schedule::new(),
                event_index: 0,
                sql: "SELECT 1".into(),
            },
        );
        let Response::Queried {
            seq: 10,
            result: Err(message),
        } = query
        else {
            panic!("an error for query 10: {query:?}");
        };
        assert!(message.contains("unknown directive `@bogus`"), "{message}");
    }

    #[test]
    fn a_hunt_is_answered_with_the_checkers_verdict_on_the_moves_made() {
        let exercises = exercises();
        let starts: Edits = exercises[0].start_edits();
        let mut server = Server::new(exercises);
        let hunt = |server: &mut Server, seq, schedule: &str| {
            answer_of(
                server,
                Request::Hunt {
                    seq,
                    exercise: CLAIM.into(),
                    edits: starts.clone(),
                    scenario: "one winner".into(),
                    schedule: Schedule::parse(schedule).expect("a schedule"),
                },
            )
        };
        let Response::Hunted {
            seq: 1,
            hunt: going,
        } = hunt(&mut server, 1, "")
        else {
            panic!("hunt 1 answered");
        };
        assert_eq!(going.verdict, fencelab_core::hunt::HuntVerdict::Going);
        assert_eq!(going.drive.options, ["a", "b"]);
        // Taking turns, one move per request as the page asks: both read
        // NEW before either writes.
        let mut moves: Vec<String> = Vec::new();
        let won = loop {
            let Response::Hunted { hunt: answered, .. } = hunt(&mut server, 2, &moves.join(" "))
            else {
                panic!("hunt answered after {moves:?}");
            };
            if answered.verdict != fencelab_core::hunt::HuntVerdict::Going {
                break answered;
            }
            let options = &answered.drive.options;
            let other = options.iter().find(|o| moves.last() != Some(*o));
            moves.push(other.unwrap_or(&options[0]).clone());
            assert!(moves.len() < 40, "the drive never ended");
        };
        let found = won
            .verdict
            .found()
            .expect("taking turns breaks the naive claim");
        assert_eq!(found.schedule.to_string(), moves.join(" "));
        assert!(found.shortest_moves.is_some_and(|s| s <= found.moves()));
        let unknown = answer_of(
            &mut server,
            Request::Hunt {
                seq: 3,
                exercise: CLAIM.into(),
                edits: Edits::new(),
                scenario: "no such scenario".into(),
                schedule: Schedule::new(),
            },
        );
        assert!(
            matches!(unknown, Response::Failed { seq: 3, .. }),
            "{unknown:?}"
        );
    }

    #[test]
    fn a_replay_of_texts_that_do_not_parse_is_an_error_verdict() {
        let mut server = Server::new(exercises());
        let replay = answer_of(
            &mut server,
            Request::Replay {
                seq: 3,
                exercise: CLAIM.into(),
                edits: broken_claim(),
                scenario: "one winner".into(),
                schedule: Schedule::parse("a b").expect("a schedule"),
            },
        );
        let Response::Replayed { seq: 3, report } = replay else {
            panic!("a report for replay 3: {replay:?}");
        };
        assert_eq!(report.verdict(), Verdict::Error);
    }

    #[test]
    fn an_unknown_exercise_or_scenario_fails_the_request_that_named_it() {
        let mut server = Server::new(exercises());
        let check = server.serve(Request::Check {
            seq: 1,
            exercise: "no-such-exercise".into(),
            edits: Edits::new(),
        });
        let Served::Answer(response) = check else {
            panic!("a check of no exercise is answered at once");
        };
        let Response::Failed { seq: 1, message } = *response else {
            panic!("a failed check: {response:?}");
        };
        assert!(message.contains("no-such-exercise"), "{message}");
        let replay = answer_of(
            &mut server,
            Request::Replay {
                seq: 2,
                exercise: CLAIM.into(),
                edits: Edits::new(),
                scenario: "no such scenario".into(),
                schedule: Schedule::new(),
            },
        );
        let Response::Failed { seq: 2, message } = replay else {
            panic!("a failed replay: {replay:?}");
        };
        assert!(
            message.contains("no scenario `no such scenario`"),
            "{message}"
        );
    }

    /// The claim exercise's file as an author would copy it: another id,
    /// another title.
    fn authored_claim(id: &str, title: &str) -> String {
        let (_, text) = fencelab_core::bundled::FILES[0];
        text.replacen(
            "id = \"claim-compare-and-set\"",
            &format!("id = \"{id}\""),
            1,
        )
        .replacen("title = \"", &format!("title = \"{title}: "), 1)
    }

    /// An installed exercise as the page is sent it: the loaded exercise.
    fn installed(response: Response) -> Installation {
        match response {
            Response::Installed { installation, .. } => *installation,
            other => panic!("an install's answer, not {other:?}"),
        }
    }

    /// An install's answer when the id is `holder`'s (`None`: bundled).
    fn taken(id: &str, holder: Option<&str>) -> Installation {
        Installation::LeftOut(LeftOut::IdTaken {
            id: id.to_string(),
            holder: holder.map(str::to_string),
        })
    }

    /// A site exercise's page carries its loaded form, which the worker
    /// installs at once, provisionally: it is checked before the site's
    /// files arrive, and the site's own file of that id, installed later,
    /// takes its place (a page built before the file changed), where any
    /// other second file of an id is refused.
    #[test]
    fn a_prerendered_site_exercise_is_checked_at_once_and_its_site_file_replaces_it() {
        let mut server = Server::new(exercises());
        let file = |seq, title| Request::Install {
            seq,
            file: "exercises/mine.toml".into(),
            source: authored_claim("my-course-claim", title),
        };
        let built = installed(answer_of(&mut server, file(1, "Built")));
        let Installation::Listed(Listed {
            exercise: built,
            schema_error: None,
        }) = built
        else {
            panic!("installed: {built:?}");
        };
        let mut server = Server::new(exercises());
        let carried = serde_json::to_string(&Ok::<_, fencelab_model::LoadError>([&built])).unwrap();
        let prerendered = |seq, source: &str| Request::Install {
            seq,
            file: format!("my-course-claim{PRERENDERED_SUFFIX}"),
            source: source.to_string(),
        };
        // Answered at once: no reader is asked.
        let first = installed(answer_of(&mut server, prerendered(1, &carried)));
        assert_eq!(
            first,
            Installation::Listed(Listed {
                exercise: built.clone(),
                schema_error: None
            })
        );
        let (report, _) = run_job(&mut job_of(
            &mut server,
            Request::Check {
                seq: 2,
                exercise: "my-course-claim".into(),
                edits: starts(&built),
            },
        ));
        assert!(matches!(report, Response::Checked { .. }), "{report:?}");
        let again = installed(answer_of(&mut server, prerendered(3, &carried)));
        assert_eq!(
            again,
            taken(
                "my-course-claim",
                Some(&format!("my-course-claim{PRERENDERED_SUFFIX}"))
            )
        );

        // The site's file, changed since the page was built, replaces it.
        let newer = installed(answer_of(&mut server, file(4, "Newer")));
        let Installation::Replaced(Listed {
            exercise: newer,
            schema_error: None,
        }) = newer
        else {
            panic!("the site's file replaces the page's copy: {newer:?}");
        };
        assert!(newer.title.starts_with("Newer: "));
        let mine: Vec<_> = server
            .exercises
            .iter()
            .filter(|e| e.id == "my-course-claim")
            .collect();
        assert_eq!(mine.len(), 1);
        assert_eq!(**mine[0], newer);
        let later = installed(answer_of(&mut server, file(5, "Later")));
        assert_eq!(later, taken("my-course-claim", Some("exercises/mine.toml")));

        // Damaged or foreign forms are refused, naming the file.
        for source in ["{\"Ok\": [", "{\"Ok\": []}", "not json"] {
            let refused = installed(answer_of(&mut server, prerendered(6, source)));
            let Installation::LeftOut(LeftOut::Unloadable(error)) = refused else {
                panic!("refused: {refused:?}");
            };
            assert_eq!(error.file, format!("my-course-claim{PRERENDERED_SUFFIX}"));
        }
        let bundled =
            serde_json::to_string(&Ok::<_, fencelab_model::LoadError>([&exercises()[0]])).unwrap();
        let refused = installed(answer_of(&mut server, prerendered(7, &bundled)));
        assert_eq!(refused, taken(&exercises()[0].id, None), "a bundled id");
    }

    /// The first exercise of an id is installed and checked like a bundled
    /// one; a later file of the same id is loaded and answered but not
    /// installed, as the page leaves it out (the two lists stay equal).
    #[test]
    fn an_installed_exercise_is_checked_like_a_bundled_one_and_its_id_stays_its_own() {
        let mut server = Server::new(exercises());
        let install = |server: &mut Server, seq, title| {
            installed(answer_of(
                server,
                Request::Install {
                    seq,
                    file: "exercises/mine.toml".into(),
                    source: authored_claim("my-course-claim", title),
                },
            ))
        };
        let first = install(&mut server, 1, "First");
        let Installation::Listed(Listed {
            exercise: loaded,
            schema_error: None,
        }) = &first
        else {
            panic!("installed: {first:?}");
        };
        assert_eq!(loaded.id, "my-course-claim");
        assert!(loaded.title.starts_with("First: "));
        let second = install(&mut server, 2, "Second");
        assert_eq!(
            second,
            taken("my-course-claim", Some("exercises/mine.toml"))
        );
        assert_eq!(server.exercises.len(), exercises().len() + 1);
        let mine = Rc::clone(server.exercises.last().unwrap());
        assert_eq!(&*mine, loaded, "the page lists what the worker checks");
        let mut job = job_of(
            &mut server,
            Request::Check {
                seq: 3,
                exercise: "my-course-claim".into(),
                edits: starts(&mine),
            },
        );
        let report = loop {
            if let Some(response) = job.piece() {
                break response;
            }
        };
        let Response::Checked { seq: 3, report } = report else {
            panic!("the installed exercise's report: {report:?}");
        };
        assert_eq!(report.exercise, "my-course-claim");
        assert_eq!(report.scenarios.len(), mine.scenarios.len());
        assert!(
            report.passed < mine.scenarios.len(),
            "the naive start fails some scenario"
        );
    }

    #[test]
    fn an_install_never_replaces_a_bundled_exercise_and_names_what_is_wrong() {
        let mut server = Server::new(exercises());
        let install = |server: &mut Server, seq, source: String| {
            installed(answer_of(
                server,
                Request::Install {
                    seq,
                    file: "exercises/bad.toml".into(),
                    source,
                },
            ))
        };
        let mine = install(&mut server, 1, authored_claim(CLAIM, "Mine"));
        assert_eq!(mine, taken(CLAIM, None));
        let unloadable = install(&mut server, 2, "id = 3".into());
        assert!(
            matches!(&unloadable, Installation::LeftOut(LeftOut::Unloadable(e))
                if e.to_string().starts_with("exercises/bad.toml:1:")),
            "{unloadable:?}"
        );
        let bad_schema =
            authored_claim("bad-schema", "Bad").replacen("CREATE TABLE", "CREATE TABEL", 1);
        let failed = install(&mut server, 3, bad_schema);
        let Installation::Listed(Listed {
            exercise,
            schema_error: Some(error),
        }) = &failed
        else {
            panic!("a schema SQLite refuses: {failed:?}");
        };
        assert_eq!(exercise.id, "bad-schema");
        assert_eq!(error.field, "schema");
        assert!(
            error.to_string().starts_with("exercises/bad.toml:"),
            "{error}"
        );
        assert_eq!(
            server.exercises.len(),
            exercises().len(),
            "listed, never installed"
        );
        let again = install(&mut server, 4, authored_claim("bad-schema", "Again"));
        assert_eq!(again, taken("bad-schema", Some("exercises/bad.toml")));
        let huge = "#".repeat(fencelab_model::exercise::EXERCISE_FILE_BYTES_MAX + 1);
        let refused = install(&mut server, 5, huge);
        assert!(
            matches!(&refused, Installation::LeftOut(LeftOut::Unloadable(e)) if e.message.contains("at most")),
            "{refused:?}"
        );
    }

    /// The authoring view's draft on every change, and a site's index: each
    /// answered at once with what the loader made of it, never a job.
    #[test]
    fn a_draft_and_an_index_are_loaded_for_the_page_at_once() {
        let mut server = Server::new(exercises());
        let draft = |source: &str| Request::Author {
            seq: 1,
            file: "draft.toml".into(),
            source: source.into(),
            check: false,
        };
        assert!(!draft("").is_job());
        let claim = authored_claim("my-claim", "Mine");
        let Response::Drafted {
            seq: 1,
            result: Ok(exercise),
        } = answer_of(&mut server, draft(&claim))
        else {
            panic!("a loaded draft");
        };
        assert_eq!(
            *exercise,
            Exercise::from_toml("draft.toml", &claim).unwrap()
        );
        let Response::Drafted {
            result: Err(error), ..
        } = answer_of(&mut server, draft("format = "))
        else {
            panic!("a load error");
        };
        assert_eq!((error.file.as_str(), error.line), ("draft.toml", 1));
        let indexed = answer_of(
            &mut server,
            Request::Index {
                seq: 2,
                source: "format = 1\nexercises = [\"a.toml\"]\n".into(),
            },
        );
        assert_eq!(
            indexed,
            Response::Indexed {
                seq: 2,
                result: SiteIndex::new(vec!["a.toml".into()]),
            }
        );
        let Response::Indexed {
            result: Err(error), ..
        } = answer_of(
            &mut server,
            Request::Index {
                seq: 3,
                source: "format = 9\nexercises = []\n".into(),
            },
        )
        else {
            panic!("an index this page does not read");
        };
        assert!(error.to_string().contains("format 9"), "{error}");
    }

    /// The reference texts of the claim's editable procedures: they pass
    /// every scenario, as a learner's solved exercise does.
    fn references(exercise: &Exercise) -> Edits {
        exercise.reference_edits()
    }

    #[test]
    fn a_protection_is_a_job_that_answers_with_the_marks_of_its_seq() {
        let mut server = Server::new(exercises());
        let mut job = job_of(
            &mut server,
            Request::Protect {
                seq: 21,
                exercise: CLAIM.into(),
                edits: references(&claim()),
            },
        );
        assert!(matches!(job, Job::Protect(_)));
        let answer = std::iter::from_fn(|| Some(job.piece()))
            .flatten()
            .next()
            .expect("an answer once every mutant is judged");
        let Response::Protection { seq: 21, report } = answer else {
            panic!("the marks for protect 21: {answer:?}");
        };
        assert_eq!(
            report
                .procedures
                .iter()
                .map(|p| p.procedure.as_str())
                .collect::<Vec<_>>(),
            ["claim"],
            "the editable procedures, each once"
        );
    }

    #[test]
    fn a_newer_check_or_protection_drops_the_job_before_its_next_piece_and_nothing_else_does() {
        let mut server = Server::new(exercises());
        let protect = |seq| Request::Protect {
            seq,
            exercise: CLAIM.into(),
            edits: references(&claim()),
        };
        let first = job_of(&mut server, protect(1));
        assert!(server.wants(&first));
        // A replay and a query are answered between the job's pieces.
        answer_of(
            &mut server,
            Request::Replay {
                seq: 2,
                exercise: CLAIM.into(),
                edits: references(&claim()),
                scenario: "one winner".into(),
                schedule: Schedule::new(),
            },
        );
        answer_of(
            &mut server,
            Request::Query {
                seq: 3,
                exercise: CLAIM.into(),
                edits: references(&claim()),
                scenario: "one winner".into(),
                schedule: Schedule::new(),
                event_index: 0,
                sql: "SELECT 1".into(),
            },
        );
        assert!(server.wants(&first));
        let check = job_of(
            &mut server,
            Request::Check {
                seq: 4,
                exercise: CLAIM.into(),
                edits: references(&claim()),
            },
        );
        assert!(
            !server.wants(&first),
            "an edit's check drops the protection"
        );
        assert!(server.wants(&check));
        let second = job_of(&mut server, protect(5));
        assert!(!server.wants(&check));
        assert!(server.wants(&second));
        // Even a request that fails supersedes: the page has moved on.
        let failed = server.serve(Request::Protect {
            seq: 6,
            exercise: "no-such-exercise".into(),
            edits: Edits::new(),
        });
        let Served::Answer(response) = failed else {
            panic!("no job for no exercise");
        };
        assert!(
            matches!(*response, Response::Failed { seq: 6, ref message } if message.contains("no-such-exercise")),
            "{response:?}"
        );
        assert!(!server.wants(&second));
    }

    #[test]
    fn an_exercises_mutation_context_is_read_from_its_schema_once() {
        let mut server = Server::new(exercises());
        for seq in 1..=3 {
            job_of(
                &mut server,
                Request::Protect {
                    seq,
                    exercise: CLAIM.into(),
                    edits: references(&claim()),
                },
            );
        }
        assert_eq!(server.contexts.len(), 1);
        assert!(server.contexts.contains_key(CLAIM));
    }

    #[test]
    fn a_newer_draft_drops_the_older_drafts_job() {
        let mut server = Server::new(exercises());
        let draft = |seq| Request::Author {
            seq,
            file: "draft.toml".into(),
            source: fencelab_core::bundled::FILES[0].1.replacen(
                "id = \"claim-compare-and-set\"",
                "id = \"my-claim\"",
                1,
            ),
            check: true,
        };
        let first = job_of(&mut server, draft(1));
        assert!(matches!(first, Job::Author(_)));
        assert!(server.wants(&first));
        let second = job_of(&mut server, draft(2));
        assert!(!server.wants(&first), "superseded by the newer draft");
        assert!(server.wants(&second));
        let unloadable = answer_of(
            &mut server,
            Request::Author {
                seq: 3,
                file: "draft.toml".into(),
                source: "format = ".into(),
                check: true,
            },
        );
        let Response::Authored {
            seq: 3,
            result: Err(error),
        } = unloadable
        else {
            panic!("a load error, at once: {unloadable:?}");
        };
        assert_eq!((error.file.as_str(), error.line), ("draft.toml", 1));
        assert!(!server.wants(&second), "a newer draft, even a broken one");
    }

    /// A hostile corpus case's whole input, as the corpus builds it.
    fn hostile_input(case: &str) -> String {
        fencelab_hostile::parse("case", case)
            .expect("a corpus case")
            .whole_input()
    }

    /// The line marks of a procedure of 2,000 predicates (the corpus's own
    /// case): refused in the first piece, naming the mutant budget, before
    /// any scenario runs. Unbounded, the job would have judged 18,011
    /// mutants, one a piece.
    #[test]
    fn line_marks_past_the_mutant_budget_are_refused_naming_the_limit_before_anything_runs() {
        let source = hostile_input(include_str!(
            "../../../tests/hostile/cases/mutants/two-thousand-predicates.toml"
        ));
        let mut server = Server::new(exercises());
        let installed = answer_of(
            &mut server,
            Request::Install {
                seq: 1,
                file: "many.toml".into(),
                source: source.clone(),
            },
        );
        let Response::Installed { installation, .. } = installed else {
            panic!("the exercise installs: {installed:?}");
        };
        let Installation::Listed(Listed {
            exercise: loaded, ..
        }) = *installation
        else {
            panic!("the exercise installs: {installation:?}");
        };
        let id = loaded.id;
        let exercise = fencelab_core::exercise::load("many.toml", &source).expect("it loads");
        // The figure the issue asks for; a count is asserted, never a time.
        let started = std::time::Instant::now();
        let mut job = job_of(
            &mut server,
            Request::Protect {
                seq: 2,
                exercise: id,
                edits: references(&exercise),
            },
        );
        let (answer, pieces) = run_job(&mut job);
        println!(
            "line marks of 2,000 predicates: answered in {pieces} piece(s), {:.0} ms natively",
            started.elapsed().as_secs_f64() * 1000.0
        );
        assert!(
            matches!(&answer, Response::Failed { seq: 2, message }
                if message.contains("the limit of mutants per procedure")
                    && message.contains("no mutant is judged")),
            "{answer:?}"
        );
        assert_eq!(pieces, 1, "refused before any scenario runs");
    }
}
