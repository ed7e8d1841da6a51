//! The worker's glue to JS: reads requests from its message port, posts the
//! answers `serve.rs` gives, and runs a job one piece per task of the event
//! loop (a check a slice of one scenario's exploration, a protection one
//! mutant), so a newer request
//! that arrives meanwhile is seen between pieces: a replay or a query is
//! answered at once, and a newer check or protection drops the stale job (a
//! piece is short; the page never waits for it either way).
//!
//! Messages are JSON text both ways (`fencelab_protocol::encode`/`decode`).
//! Must never: touch the DOM, or leave unanswered a request the page still
//! waits for (a job superseded by a newer check or protection is dropped
//! unanswered: the page has stopped waiting for it).

use crate::serve::{Job, Served, Server};
use fencelab_protocol::{Request, Response, decode, encode, seq_of_request};
use std::cell::{Cell, RefCell};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    /// Built in the task after "ready" (or by the first request, should one
    /// come first); it also knows which job is still wanted.
    static SERVER: RefCell<Option<Server>> = const { RefCell::new(None) };
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
    // The server (every bundled exercise read from its build-time loaded
    // form) is made in the next task rather than on the first request: web/boot.js
    // starts this worker while the page's own wasm is still loading, so the
    // build overlaps that wait instead of delaying the first verdicts. A
    // request that arrives meanwhile is served right after it.
    let warm = Closure::once_into_js(|| with_server(|_| ()));
    let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(warm.unchecked_ref(), 0);
}

fn post(response: &Response) {
    let _ = scope().post_message(&JsValue::from_str(&encode(response)));
}

/// Runs `work` with the server, made from the bundled exercises (loaded at
/// build time) on first use. Never held across a task of the event loop.
fn with_server<T>(work: impl FnOnce(&mut Server) -> T) -> T {
    SERVER.with(|cell| {
        let mut server = cell.borrow_mut();
        work(server.get_or_insert_with(Server::bundled))
    })
}

fn handle(request: Request) {
    let seq = request.seq();
    match serving(seq, || with_server(|server| server.serve(request))) {
        Served::Answer(response) => post(&response),
        Served::Job(job) => continue_job(job),
    }
}

/// Runs the job's next piece, then yields to the event loop so a newer
/// request can arrive before the one after. A job no longer wanted is
/// dropped unanswered: the page has stopped waiting for it.
fn continue_job(mut job: Job) {
    if !with_server(|server| server.wants(&job)) {
        return;
    }
    if let Some(response) = serving(job.seq(), || job.next()) {
        post(&response);
        return;
    }
    post(&Response::Working { seq: job.seq() });
    let tick = Closure::once_into_js(move || continue_job(job));
    let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(tick.unchecked_ref(), 0);
}

/// Runs `work` for request `seq`, which the panic hook answers if it panics.
fn serving<T>(seq: u64, work: impl FnOnce() -> T) -> T {
    SERVING.with(|serving| serving.set(seq));
    let result = work();
    SERVING.with(|serving| serving.set(0));
    result
}
