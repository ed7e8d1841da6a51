//! What the worker answers to each request, apart from any JS: a pure
//! function of the bundled exercises and the request (the engine runs here),
//! so it is tested natively.
//!
//! A check is not answered at once: it becomes a [`CheckJob`] that checks
//! one scenario per call, so the event loop can deliver a newer check between
//! scenarios. Must never panic on a request.

use fencelab_core::report::Unusable;
use fencelab_core::{Checker, Exercise, ExerciseExt, ExerciseReport, Scenario, ScenarioReport};
use fencelab_protocol::{Edits, Request, Response};

/// What serving a request gives: an answer now, or a check to run. (Both
/// are large, and moved around once each: boxed.)
pub enum Served {
    Answer(Box<Response>),
    Check(Box<CheckJob>),
}

/// A check in progress: one scenario per [`CheckJob::next`].
pub struct CheckJob {
    pub seq: u64,
    exercise: Exercise,
    /// Built once per edit; each scenario is checked with it.
    checker: Result<Checker, Unusable>,
    reports: Vec<ScenarioReport>,
}

impl CheckJob {
    /// Checks the next scenario; once every scenario is checked, returns the
    /// exercise's report.
    pub fn next(&mut self) -> Option<Response> {
        match self.exercise.scenarios.get(self.reports.len()) {
            Some(scenario) => {
                let report = match &mut self.checker {
                    Ok(checker) => checker.check(scenario),
                    Err(unusable) => unusable.report(scenario),
                };
                self.reports.push(report);
                None
            }
            None => Some(Response::Checked {
                seq: self.seq,
                report: ExerciseReport::new(&self.exercise.id, std::mem::take(&mut self.reports)),
            }),
        }
    }
}

/// Serves `request` with `exercises`; every failure is `Failed` with the
/// request's seq.
pub fn serve(exercises: &[Exercise], request: Request) -> Served {
    let seq = request.seq();
    match answer(exercises, request) {
        Ok(served) => served,
        Err(message) => Served::Answer(Box::new(Response::Failed { seq, message })),
    }
}

fn answer(exercises: &[Exercise], request: Request) -> Result<Served, String> {
    Ok(match request {
        Request::Check {
            seq,
            exercise,
            edits,
        } => {
            let exercise = find(exercises, &exercise)?;
            let checker = checker(exercise, &edits);
            Served::Check(Box::new(CheckJob {
                seq,
                exercise: exercise.clone(),
                checker,
                reports: Vec::new(),
            }))
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
            let report = match checker(exercise, &edits) {
                Ok(mut checker) => checker.replay(scenario, &schedule),
                Err(unusable) => unusable.report(scenario),
            };
            Served::Answer(Box::new(Response::Replayed { seq, report }))
        }
        Request::Drive {
            seq,
            exercise,
            edits,
            scenario,
            schedule,
        } => {
            let exercise = find(exercises, &exercise)?;
            let scenario = scenario_of(exercise, &scenario)?;
            let drive = checker(exercise, &edits)
                .map_err(|unusable| unusable.error.message)?
                .drive(scenario, &schedule);
            Served::Answer(Box::new(Response::Driven { seq, drive }))
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
            let result = checker(exercise, &edits)
                .map_err(|unusable| unusable.error.message)
                .and_then(|mut checker| {
                    checker
                        .query_after(scenario, &schedule, event_index, &sql)
                        .map_err(|error| error.to_string())
                });
            Served::Answer(Box::new(Response::Queried { seq, result }))
        }
    })
}

fn find<'a>(exercises: &'a [Exercise], id: &str) -> Result<&'a Exercise, String> {
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

    /// A claim that does not parse as a procedure: no checker can be built.
    fn broken_claim() -> Edits {
        Edits::from([("claim".to_string(), "SELECT 1;\n-- @bogus x".to_string())])
    }

    /// The texts the learner starts from, as the page sends them.
    fn starts(exercise: &Exercise) -> Edits {
        exercise
            .procedures
            .iter()
            .filter(|p| p.editable)
            .map(|p| (p.name.clone(), p.start.clone()))
            .collect()
    }

    fn answer_of(exercises: &[Exercise], request: Request) -> Response {
        match serve(exercises, request) {
            Served::Answer(response) => *response,
            Served::Check(_) => panic!("a check is not answered at once"),
        }
    }

    #[test]
    fn a_check_runs_one_scenario_per_call_and_reports_them_all() {
        let exercises = exercises();
        let Served::Check(mut job) = serve(
            &exercises,
            Request::Check {
                seq: 4,
                exercise: CLAIM.into(),
                edits: starts(&exercises[0]),
            },
        ) else {
            panic!("a check is a job");
        };
        let scenarios = exercises[0].scenarios.len();
        for _ in 0..scenarios {
            assert_eq!(job.next(), None);
        }
        let Some(Response::Checked { seq, report }) = job.next() else {
            panic!("the report, once every scenario ran");
        };
        assert_eq!(seq, 4);
        assert_eq!(report.scenarios.len(), scenarios);
        // The starting text is the naive claim: "one winner" catches it.
        assert!(report.failed > 0);
    }

    #[test]
    fn texts_that_do_not_parse_fail_a_drive_and_a_query_with_their_seq() {
        let exercises = exercises();
        let drive = answer_of(
            &exercises,
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
            &exercises,
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
    fn a_replay_of_texts_that_do_not_parse_is_an_error_verdict() {
        let exercises = exercises();
        let replay = answer_of(
            &exercises,
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
        let exercises = exercises();
        let check = serve(
            &exercises,
            Request::Check {
                seq: 1,
                exercise: "no-such-exercise".into(),
                edits: Edits::new(),
            },
        );
        let Served::Answer(response) = check else {
            panic!("a check of no exercise is answered at once");
        };
        let Response::Failed { seq: 1, message } = *response else {
            panic!("a failed check: {response:?}");
        };
        assert!(message.contains("no-such-exercise"), "{message}");
        let replay = answer_of(
            &exercises,
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
}
