//! The worker's glue to JS: reads requests from its message port, posts the
//! answers `serve.rs` gives, and runs a check one scenario per task of the
//! event loop, so a newer check that arrives meanwhile is seen between
//! scenarios and the stale one is dropped (a scenario's own exploration is
//! short; the page never waits for it either way).
//!
//! Messages are JSON text both ways (`fencelab_protocol::encode`/`decode`).
//! Must never: touch the DOM, or leave a request unanswered.

use crate::serve::{CheckJob, Served, serve};
use fencelab_core::Exercise;
use fencelab_protocol::{Request, Response, decode, encode, seq_of_request};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    static EXERCISES: RefCell<Option<Rc<Vec<Exercise>>>> = const { RefCell::new(None) };
    /// The newest check asked for; older ones stop at their next scenario.
    static LATEST_CHECK: Cell<u64> = const { Cell::new(0) };
    /// The request being served, so a panic can still answer it.
    static SERVING: Cell<u64> = const { Cell::new(0) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Installs the panic hook and the message handler, then says "ready".
pub fn start() {
    // A panic is a bug, but the page must hear of it: answer the request
    // being served (the worker's wasm is unusable afterwards, and the page
    // also sees the worker's error event).
    std::panic::set_hook(Box::new(|info| {
        post(&Response::Failed {
            seq: SERVING.with(Cell::get),
            message: format!("the checking worker failed: {info}"),
        });
    }));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        let Some(text) = event.data().as_string() else {
            post(&Response::Failed {
                seq: 0,
                message: "the worker was sent a message that is not text".into(),
            });
            return;
        };
        match decode::<Request>(&text) {
            Ok(request) => handle(request),
            Err(error) => post(&Response::Failed {
                seq: seq_of_request(&text),
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
    let _ = scope().post_message(&JsValue::from_str(&encode(response)));
}

fn exercises() -> Rc<Vec<Exercise>> {
    EXERCISES.with(|cell| {
        cell.borrow_mut()
            .get_or_insert_with(|| Rc::new(fencelab_core::bundled::exercises().unwrap_or_default()))
            .clone()
    })
}

fn handle(request: Request) {
    let seq = request.seq();
    if let Request::Check { .. } = request {
        LATEST_CHECK.with(|latest| latest.set(seq));
    }
    match serving(seq, || serve(&exercises(), request)) {
        Served::Answer(response) => post(&response),
        Served::Check(job) => continue_check(job),
    }
}

/// Runs the job's next scenario, then yields to the event loop so a newer
/// request can arrive before the one after.
fn continue_check(mut job: Box<CheckJob>) {
    if LATEST_CHECK.with(Cell::get) != job.seq {
        return;
    }
    if let Some(response) = serving(job.seq, || job.next()) {
        post(&response);
        return;
    }
    let tick = Closure::once_into_js(move || continue_check(job));
    let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(tick.unchecked_ref(), 0);
}

/// Runs `work` for request `seq`, which the panic hook answers if it panics.
fn serving<T>(seq: u64, work: impl FnOnce() -> T) -> T {
    SERVING.with(|serving| serving.set(seq));
    let result = work();
    SERVING.with(|serving| serving.set(0));
    result
}
