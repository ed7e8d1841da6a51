//! A check as a job: one slice of a scenario's exploration a piece, on
//! the exercise's kept checker, so a newer request is read between two
//! slices. Must never keep the checker it was lent once it ends or is
//! dropped.

use super::Server;
use super::last::LastReport;
use crate::kept::KeptChecker;
use fencelab_core::check::{Progress, SuiteSearch};
use fencelab_core::{Exercise, Limits};
use fencelab_protocol::Response;

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
    pub(super) answers_page: bool,
    pub(super) exercise: String,
    /// Every procedure's text, the edits in place: what is checked.
    pub(super) texts: Texts,
    /// `None` once the check has ended.
    suite: Option<SuiteSearch>,
    kept: KeptChecker,
    last: LastReport,
}

/// An exercise's procedure texts, by name, as [`Exercise::texts_with`]
/// gives them: everything a check's report depends on besides the exercise.
pub(super) type Texts = Vec<(String, String)>;

impl CheckJob {
    /// A check of `texts` in `exercise` (nothing runs yet), on the checker
    /// the server's kept checker lends; its report is the server's last
    /// report when it ends.
    pub(super) fn new(seq: u64, exercise: &Exercise, texts: Texts, server: &Server) -> CheckJob {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::testing::*;
    use crate::serve::{Job, Served, checker, scenario_of};
    use fencelab_core::ExerciseExt;
    use fencelab_core::report::Verdict;
    use fencelab_protocol::{Edits, Request};

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
}
