//! The worker side: answers [`Request`]s with the core's reports.
//!
//! A check runs one scenario per task of the worker's event loop, so a newer
//! check that arrives meanwhile is seen between scenarios and the stale one
//! is dropped (a scenario's own exploration is short; the page never waits
//! for it either way). Must never: touch the DOM, or panic on a request.

use crate::protocol::{Edits, Request, Response};
use fencelab_core::exercise::Unusable;
use fencelab_core::{Checker, Exercise, ExerciseReport, Scenario, ScenarioReport};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    static EXERCISES: RefCell<Option<Rc<Vec<Exercise>>>> = const { RefCell::new(None) };
    /// The newest check asked for; older ones stop at their next scenario.
    static LATEST_CHECK: Cell<u64> = const { Cell::new(0) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Installs the message handler, then says "ready".
pub fn start() {
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        match serde_wasm_bindgen::from_value::<Request>(event.data()) {
            Ok(request) => handle(request),
            Err(error) => post(&Response::Failed {
                seq: 0,
                message: format!("the worker could not read a request: {error}"),
            }),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&Response::Ready {
        sqlite_version: fencelab_core::sqlite_version().to_string(),
    });
}

fn post(response: &Response) {
    let value = serde_wasm_bindgen::to_value(response).or_else(|error| {
        serde_wasm_bindgen::to_value(&Response::Failed {
            seq: 0,
            message: format!("the worker could not send its answer: {error}"),
        })
    });
    if let Ok(value) = value {
        let _ = scope().post_message(&value);
    }
}

fn exercises() -> Rc<Vec<Exercise>> {
    EXERCISES.with(|cell| {
        cell.borrow_mut()
            .get_or_insert_with(|| Rc::new(fencelab_core::bundled::exercises().unwrap_or_default()))
            .clone()
    })
}

fn find(id: &str) -> Result<Exercise, String> {
    exercises()
        .iter()
        .find(|e| e.id == id)
        .cloned()
        .ok_or_else(|| format!("there is no exercise `{id}`"))
}

fn scenario<'a>(exercise: &'a Exercise, name: &str) -> Result<&'a Scenario, String> {
    exercise
        .scenarios
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("exercise `{}` has no scenario `{name}`", exercise.id))
}

/// A checker for the exercise with the learner's edits in place, built once
/// per request.
fn checker(exercise: &Exercise, edits: &Edits) -> Result<Checker, Unusable> {
    exercise.checker(&exercise.texts_with(edits))
}

fn handle(request: Request) {
    let seq = match &request {
        Request::Check { seq, .. }
        | Request::Replay { seq, .. }
        | Request::Drive { seq, .. }
        | Request::Query { seq, .. } => *seq,
    };
    if let Err(message) = answer(request) {
        post(&Response::Failed { seq, message });
    }
}

fn answer(request: Request) -> Result<(), String> {
    match request {
        Request::Check {
            seq,
            exercise,
            edits,
        } => {
            let exercise = find(&exercise)?;
            LATEST_CHECK.with(|latest| latest.set(seq));
            let checker = checker(&exercise, &edits);
            continue_check(CheckJob {
                seq,
                exercise,
                checker,
                reports: Vec::new(),
            });
        }
        Request::Replay {
            seq,
            exercise,
            edits,
            scenario: name,
            schedule,
        } => {
            let exercise = find(&exercise)?;
            let scenario = scenario(&exercise, &name)?;
            let report = match checker(&exercise, &edits) {
                Ok(mut checker) => checker.replay(scenario, &schedule),
                Err(unusable) => unusable.report(scenario),
            };
            post(&Response::Replayed { seq, report });
        }
        Request::Drive {
            seq,
            exercise,
            edits,
            scenario: name,
            schedule,
        } => {
            let exercise = find(&exercise)?;
            let scenario = scenario(&exercise, &name)?;
            let drive = checker(&exercise, &edits)
                .map_err(|unusable| unusable.message)?
                .drive(scenario, &schedule);
            post(&Response::Driven { seq, drive });
        }
        Request::Query {
            seq,
            exercise,
            edits,
            scenario: name,
            schedule,
            event_index,
            sql,
        } => {
            let exercise = find(&exercise)?;
            let scenario = scenario(&exercise, &name)?;
            let result = checker(&exercise, &edits)
                .map_err(|unusable| unusable.message)
                .and_then(|mut c| {
                    c.query_after(scenario, &schedule, event_index, &sql)
                        .map_err(|e| e.to_string())
                });
            post(&Response::Queried { seq, result });
        }
    }
    Ok(())
}

struct CheckJob {
    seq: u64,
    exercise: Exercise,
    /// Built once per edit; each tick checks one scenario with it.
    checker: Result<Checker, Unusable>,
    reports: Vec<ScenarioReport>,
}

/// Runs the job's next scenario, then yields to the event loop so a newer
/// request can arrive before the one after.
fn continue_check(mut job: CheckJob) {
    if LATEST_CHECK.with(Cell::get) != job.seq {
        return;
    }
    let next = job.reports.len();
    if let Some(scenario) = job.exercise.scenarios.get(next) {
        let report = match &mut job.checker {
            Ok(checker) => checker.check(scenario),
            Err(unusable) => unusable.report(scenario),
        };
        job.reports.push(report);
        let tick = Closure::once_into_js(move || continue_check(job));
        let _ =
            scope().set_timeout_with_callback_and_timeout_and_arguments_0(tick.unchecked_ref(), 0);
        return;
    }
    let report = ExerciseReport::new(&job.exercise.id, job.reports);
    post(&Response::Checked {
        seq: job.seq,
        report,
    });
}
