//! The worker's glue to JS: reads requests from its message port, posts the
//! answers `serve/` gives, and runs a job a few pieces per task of the
//! event loop (a piece is a slice of one scenario's exploration, or one
//! mutant; a task runs pieces until `TASK_MS` have passed), so a newer
//! request that arrives meanwhile is seen between tasks: a replay or a
//! query is answered at once, and a newer check or protection drops the
//! stale job (a task is short; the page never waits for it either way).
//!
//! Messages are JSON text both ways (`fencelab_protocol::encode`/`decode`).
//! Must never: touch the DOM, or leave unanswered a request the page still
//! waits for (a job superseded by a newer check or protection is dropped
//! unanswered: the page has stopped waiting for it).

use crate::serve::{Job, Served, Server};
use crate::waiting::Waiting;
use fencelab_protocol::reader::ReadAnswer;
use fencelab_protocol::{Request, Response, decode, encode, seq_of_request};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

/// How long one task of the event loop runs a job's pieces before it
/// yields, in milliseconds of the worker's clock (the page's edge: the
/// engine never reads a clock). A newer request waits at most about this
/// long; a whole check of most bundled exercises fits in one task.
const TASK_MS: f64 = 8.0;

thread_local! {
    /// Built once the bundled exercises have been fetched (`catalog.rs`),
    /// after "ready"; it also knows which job is still wanted.
    static SERVER: RefCell<Option<Server>> = const { RefCell::new(None) };
    /// Requests not served yet, in their order: every request until the
    /// server is built; while a text is with the exercise reader, those
    /// that may depend on what it makes of it (`waiting.rs`).
    static WAITING: RefCell<Waiting> = RefCell::new(Waiting::default());
    /// The request being served, so a panic can still answer it.
    static SERVING: Cell<u64> = const { Cell::new(0) };
    /// Jobs that yielded, in the order they did; each has one message on
    /// its way through `RESUME` that continues it (a message that finds the
    /// queue empty, its job dropped as stale by a newer one, does nothing).
    static YIELDED: RefCell<VecDeque<Job>> = const { RefCell::new(VecDeque::new()) };
    /// The port the worker posts itself "continue" on (see `yield_job`).
    static RESUME: RefCell<Option<MessagePort>> = const { RefCell::new(None) };
}

pub(crate) fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Records the User Timing mark `fencelab:<name>` on the worker's clock,
/// for tests/bench/breakdown.mjs (the page's web/src/timing.rs says why).
fn mark(name: &str) {
    if let Some(performance) = scope().performance() {
        let _ = performance.mark(&format!("fencelab:{name}"));
    }
}

/// Installs the panic hook and the message handler, then says "ready".
pub fn start() {
    mark("worker-start");
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
    // The server (every bundled exercise read from the build's loaded form)
    // is made as soon as that file has come, not on the first request:
    // web/start-worker.js starts this worker while the page's own wasm is
    // still loading, so the build overlaps that wait instead of delaying the
    // first verdicts. Requests that arrive meanwhile are served right after.
    wasm_bindgen_futures::spawn_local(async {
        let fetched = match crate::catalog::address(&scope().name()) {
            Ok(address) => fetch_bytes(&address).await,
            Err(reason) => Err(reason),
        };
        let (server, failure) = crate::catalog::server(fetched);
        SERVER.with(|cell| *cell.borrow_mut() = Some(server));
        mark("worker-server");
        if let Some(message) = failure {
            post(&Response::Failed { seq: 0, message });
        }
        serve_waiting();
    });
}

/// The bytes of the file at `address`, or why they could not be had: as
/// bytes, not text, so they are copied into the wasm as they are rather
/// than decoded to a JavaScript string and encoded again
/// (`fencelab_model::bundled::from_loaded_json`).
async fn fetch_bytes(address: &str) -> Result<Vec<u8>, String> {
    use wasm_bindgen_futures::JsFuture;
    let said = |error: JsValue| match error.dyn_ref::<js_sys::Error>() {
        Some(error) => format!("{address}: {}", String::from(error.message())),
        None => format!("{address}: {error:?}"),
    };
    let response: web_sys::Response = JsFuture::from(scope().fetch_with_str(address))
        .await
        .map_err(said)?
        .unchecked_into();
    if !response.ok() {
        return Err(format!(
            "{address} answered {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(said)?)
        .await
        .map_err(said)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

fn post(response: &Response) {
    let _ = scope().post_message(&JsValue::from_str(&encode(response)));
}

/// Runs `work` with the server; `None` before it is built. Never held
/// across a task of the event loop.
fn with_server<T>(work: impl FnOnce(&mut Server) -> T) -> Option<T> {
    SERVER.with(|cell| cell.borrow_mut().as_mut().map(work))
}

/// Serves `request` now, or queues it (`waiting.rs` says which).
fn handle(request: Request) {
    let reading = crate::reading::busy();
    let admitted = SERVER.with(|server| {
        WAITING.with(|waiting| {
            waiting
                .borrow_mut()
                .admit(request, server.borrow().as_ref(), reading)
        })
    });
    if let Some(request) = admitted {
        serve_now(request);
    }
}

/// Serves the waiting requests in their order, until one hands a text to
/// the reader.
fn serve_waiting() {
    while !crate::reading::busy() {
        match WAITING.with(|waiting| waiting.borrow_mut().next()) {
            Some(request) => serve_now(request),
            None => break,
        }
    }
}

/// The reader's answer to `request`'s text: served, then whatever waited
/// for it.
pub(crate) fn read_answered(request: Request, answer: ReadAnswer) {
    let seq = request.seq();
    dispatch(serving(seq, || {
        with_server(|server| server.serve_read(request, answer))
    }));
    serve_waiting();
}

fn serve_now(request: Request) {
    let seq = request.seq();
    // A new job makes every job waiting for its next piece stale
    // (`Server::wants` keeps the newest only): dropped now rather than at
    // their turn, so a stale check gives the exercise's kept checker back
    // before the new check asks for it. But a check of the same texts as
    // one under way takes that one over instead (the app's first check of
    // a prerendered page, which start-worker.js asked for already:
    // `Request::Prepare`).
    if request.is_job() {
        let stale = YIELDED.with(|yielded| std::mem::take(&mut *yielded.borrow_mut()));
        if let Some(job) = with_server(|server| server.take_over(stale, &request)).flatten() {
            continue_job(job);
            return;
        }
    }
    dispatch(serving(seq, || with_server(|server| server.serve(request))));
}

/// Does what serving a request gave: posts its answer, runs its job, or
/// hands its text to the reader.
fn dispatch(served: Option<Served>) {
    match served {
        Some(Served::Answer(response)) => {
            // A site that lists exercises of its own sends each file to be
            // read next: the reader starts loading while the page fetches
            // them.
            if matches!(&*response, Response::Indexed { result: Ok(index), .. } if !index.exercises.is_empty())
            {
                crate::reading::warm();
            }
            post(&response);
        }
        Some(Served::Job(job)) => continue_job(job),
        Some(Served::Read(request)) => crate::reading::ask(*request),
        Some(Served::Nothing) | None => {}
    }
}

/// Runs the job's pieces for up to [`TASK_MS`], then yields to the event
/// loop so a newer request can arrive before the next piece. A job no
/// longer wanted is dropped unanswered: the page has stopped waiting for it.
fn continue_job(mut job: Job) {
    if with_server(|server| server.wants(&job)) != Some(true) {
        return;
    }
    let started = js_sys::Date::now();
    loop {
        if let Some(response) = serving(job.seq(), || job.piece()) {
            if job.answers_page() {
                post(&response);
            }
            return;
        }
        if js_sys::Date::now() - started >= TASK_MS {
            break;
        }
    }
    if job.answers_page() {
        post(&Response::Working { seq: job.seq() });
    }
    yield_job(job);
}

/// Continues `job` in a later task, after what is queued now (a newer
/// request among it). Through a message to itself rather than a zero
/// setTimeout, which browsers clamp to at least 4 ms once timeouts nest
/// five deep: a check of many pieces paid that on every piece.
fn yield_job(job: Job) {
    YIELDED.with(|yielded| yielded.borrow_mut().push_back(job));
    RESUME.with(|resume| {
        let mut resume = resume.borrow_mut();
        if resume.is_none() {
            *resume = resume_port();
        }
        match resume.as_ref() {
            Some(port) => {
                let _ = port.post_message(&JsValue::NULL);
            }
            // No channel (never seen in a browser): a timeout still works.
            None => {
                let tick = Closure::once_into_js(resume_next);
                let _ = scope()
                    .set_timeout_with_callback_and_timeout_and_arguments_0(tick.unchecked_ref(), 0);
            }
        }
    });
}

/// A channel whose second port continues the oldest yielded job on each
/// message the first one posts; the first port, or `None` if the
/// channel cannot be made.
fn resume_port() -> Option<MessagePort> {
    let channel = MessageChannel::new().ok()?;
    let on_resume = Closure::<dyn FnMut(MessageEvent)>::new(|_: MessageEvent| resume_next());
    channel
        .port2()
        .set_onmessage(Some(on_resume.as_ref().unchecked_ref()));
    on_resume.forget();
    Some(channel.port1())
}

/// Continues the oldest job that yielded.
fn resume_next() {
    if let Some(job) = YIELDED.with(|yielded| yielded.borrow_mut().pop_front()) {
        continue_job(job);
    }
}

/// Runs `work` for request `seq`, which the panic hook answers if it panics.
fn serving<T>(seq: u64, work: impl FnOnce() -> T) -> T {
    SERVING.with(|serving| serving.set(seq));
    let result = work();
    SERVING.with(|serving| serving.set(0));
    result
}
