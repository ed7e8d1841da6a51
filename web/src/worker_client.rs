//! The page's side of the worker: takes over the one web/start-worker.js
//! started (or starts it), holds requests until it says "ready", and hands every
//! answer to one callback. Messages cross as JSON
//! text through `fencelab_protocol::encode`/`decode`, the only codec either
//! side uses. Must never run the engine itself: the main thread only renders.
//!
//! The worker is single-threaded: while it checks, nothing can interrupt it
//! but [`Worker::terminate`]. The engine's budgets bound every check, and
//! the worker drops a superseded check between scenarios; beyond that, this
//! module keeps a watchdog on the wall clock (the page's edge, never the
//! engine's): a request unanswered after [`ANSWER_MS_MAX`] gets the worker
//! terminated and started afresh, and every request it held fails with a
//! sentence that says so. A newer check also restarts a worker that has
//! spent more than [`ABANDON_AFTER_MS`] on the one it replaces, so an edit
//! is checked at once. The learner's text lives in the page, so a restart
//! loses nothing; the exercises installed in the worker (a site's own, a
//! draft) are installed again in the new one before anything else.

use fencelab_protocol::{AuthoredResult, DraftResult, Request, Response, decode, encode};
use gloo_timers::callback::Timeout;
use serde::de::DeserializeOwned;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// trunk's loader for the worker binary (`data-loader-shim` in index.html),
/// and the worker's name, the catalogue it is to fetch, by their names
/// before the build hashes them: used only where web/start-worker.js did
/// not say this build's ([`worker_url`]).
const WORKER_URL: &str = "./worker_loader.js";
const WORKER_NAME: &str = "./catalog.json";
/// The longest the page waits for an answer, or for the next piece of a job
/// (a check's scenario, a protection's mutant), before it restarts the
/// worker. A piece within the engine's budgets takes far less (a few
/// seconds at the very worst, on a slow phone); this catches what the
/// budgets miss.
pub const ANSWER_MS_MAX: u32 = 20_000;
/// How long a check may have run when a newer one arrives before the worker
/// is restarted rather than left to finish its current scenario.
pub const ABANDON_AFTER_MS: f64 = 1_000.0;
/// `?answer_ms=N` sets the watchdog (tests use a short one); at least this.
/// The engine's budgets and the check's slices keep every piece short, so
/// a test that watches a restart happen needs a watchdog shorter than one.
const ANSWER_MS_MIN: u32 = 1;

type Deliver<D, A> = Rc<dyn Fn(Response<D, A>)>;

/// A request sent and not yet answered.
struct Outstanding {
    /// A check or a protection: a job the worker runs a piece at a time,
    /// and drops unanswered when a newer job arrives.
    is_job: bool,
    sent_at_ms: f64,
    /// Dropping it cancels the watchdog.
    _watchdog: Timeout,
}

struct Inner {
    worker: Worker,
    ready: bool,
    waiting: Vec<Request>,
    outstanding: BTreeMap<u64, Outstanding>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// The page's client of the worker (the engine runs there, never here): a
/// handle on it; cloning it shares the same worker. `D` and `A` are how it
/// reads the results of the authoring view's answers (`Response`'s): the
/// playground's client skips them unread
/// (`fencelab_protocol::PlaygroundResponse`).
pub struct WorkerClient<D = DraftResult, A = AuthoredResult> {
    inner: Rc<RefCell<Option<Inner>>>,
    /// Every `Install` sent, in order, for a restarted worker.
    installs: Rc<RefCell<Vec<Request>>>,
    deliver: Deliver<D, A>,
    answer_ms_max: u32,
}

impl<D, A> Clone for WorkerClient<D, A> {
    fn clone(&self) -> Self {
        WorkerClient {
            inner: Rc::clone(&self.inner),
            installs: Rc::clone(&self.installs),
            deliver: Rc::clone(&self.deliver),
            answer_ms_max: self.answer_ms_max,
        }
    }
}

impl<D, A> PartialEq for WorkerClient<D, A> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

impl<D: DeserializeOwned + 'static, A: DeserializeOwned + 'static> WorkerClient<D, A> {
    /// Starts the worker; `on_response` receives each answer, and a message
    /// (as `Response::Failed`) when the worker cannot start, crashes or is
    /// restarted. `answer_ms` is the watchdog the page's address asked for
    /// ([`answer_ms_from_address`], read as the page opened: the app soon
    /// rewrites its address), else [`ANSWER_MS_MAX`].
    pub fn start(
        answer_ms: Option<u32>,
        on_response: impl Fn(Response<D, A>) + 'static,
    ) -> WorkerClient<D, A> {
        let client = WorkerClient {
            inner: Rc::new(RefCell::new(None)),
            installs: Rc::default(),
            deliver: Rc::new(on_response),
            answer_ms_max: answer_ms.unwrap_or(ANSWER_MS_MAX),
        };
        client.spawn();
        client
    }

    /// Starts a worker (or takes over the one web/start-worker.js started)
    /// and wires its messages to this client.
    fn spawn(&self) {
        let Some((worker, held)) = self.started_worker() else {
            return;
        };
        let on_message = self.on_message();
        let deliver = Rc::clone(&self.deliver);
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
            deliver(Response::Failed {
                seq: 0,
                message: "the checking worker stopped with an error; reload the page to restart it"
                    .into(),
            });
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let handle_message: js_sys::Function = on_message
            .as_ref()
            .unchecked_ref::<js_sys::Function>()
            .clone();
        let handle_error: js_sys::Function = on_error
            .as_ref()
            .unchecked_ref::<js_sys::Function>()
            .clone();
        *self.inner.borrow_mut() = Some(Inner {
            worker,
            ready: false,
            // Sent first once it is ready: what the page's requests name.
            waiting: self.installs.borrow().clone(),
            outstanding: BTreeMap::new(),
            _on_message: on_message,
            _on_error: on_error,
        });
        // What an early worker said before this client listened, in order.
        for event in held.iter() {
            let is_error = event
                .dyn_ref::<web_sys::Event>()
                .is_some_and(|e| e.type_() == "error");
            let handler = if is_error {
                &handle_error
            } else {
                &handle_message
            };
            let _ = handler.call1(&JsValue::NULL, &event);
        }
    }

    /// The worker web/start-worker.js started, with what it said before
    /// this client listened, or a new one; `None`, said to the callback,
    /// when none can start.
    fn started_worker(&self) -> Option<(Worker, js_sys::Array)> {
        if let Some(early) = early_worker() {
            return Some(early);
        }
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        options.set_name(&worker_name());
        match Worker::new_with_options(&worker_url(), &options) {
            Ok(worker) => Some((worker, js_sys::Array::new())),
            Err(error) => {
                (self.deliver)(Response::Failed {
                    seq: 0,
                    message: format!("the checking worker could not start: {error:?}"),
                });
                None
            }
        }
    }

    /// The handler of the worker's messages: each is read as a response,
    /// kept waiting on while the worker says it is working, booked, and
    /// handed to the callback.
    fn on_message(&self) -> Closure<dyn FnMut(MessageEvent)> {
        let weak = Rc::downgrade(&self.inner);
        let installs = Rc::clone(&self.installs);
        let deliver = Rc::clone(&self.deliver);
        let answer_ms_max = self.answer_ms_max;
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let response = match event.data().as_string() {
                Some(text) => {
                    decode::<Response<D, A>>(&text).unwrap_or_else(|error| Response::Failed {
                        seq: 0,
                        message: format!("the page could not read the worker's answer: {error}"),
                    })
                }
                None => Response::Failed {
                    seq: 0,
                    message: "the worker sent an answer that is not text".into(),
                },
            };
            if let Some(inner) = weak.upgrade() {
                let client = WorkerClient {
                    inner,
                    installs: Rc::clone(&installs),
                    deliver: Rc::clone(&deliver),
                    answer_ms_max,
                };
                if let Response::Working { seq } = response {
                    client.keep_waiting(seq);
                    return;
                }
                client.answered(&response);
            }
            deliver(response);
        })
    }

    /// Bookkeeping for an answer: "ready" releases the waiting requests;
    /// any other answer ends its request's watchdog.
    fn answered(&self, response: &Response<D, A>) {
        if matches!(response, Response::Ready { .. }) {
            let waiting = match self.inner.borrow_mut().as_mut() {
                Some(inner) => {
                    inner.ready = true;
                    std::mem::take(&mut inner.waiting)
                }
                None => Vec::new(),
            };
            for request in waiting {
                self.send(request);
            }
            return;
        }
        if let Some(seq) = response.seq()
            && let Some(inner) = self.inner.borrow_mut().as_mut()
        {
            inner.outstanding.remove(&seq);
        }
    }

    /// A piece of job `seq` is done: its watchdog starts again.
    fn keep_waiting(&self, seq: u64) {
        let client = self.clone();
        if let Some(inner) = self.inner.borrow_mut().as_mut()
            && let Some(outstanding) = inner.outstanding.get_mut(&seq)
        {
            outstanding._watchdog = Timeout::new(self.answer_ms_max, move || client.timed_out(seq));
        }
    }

    /// Sends a request now, or once the worker is ready. Of several waiting
    /// checks only the newest is kept. A check replaces the one before it:
    /// if that one has run long, the worker is restarted first.
    pub fn send(&self, request: Request) {
        if matches!(request, Request::Install { .. }) {
            self.installs.borrow_mut().push(request.clone());
        }
        let is_check = matches!(request, Request::Check { .. });
        let is_job = request.is_job();
        if is_job
            && self
                .running_job_ms()
                .is_some_and(|ms| ms > ABANDON_AFTER_MS)
        {
            self.restart(
                "the checker was restarted to check your newest edit at once; ask again".into(),
                false,
            );
        }
        let mut slot = self.inner.borrow_mut();
        let Some(inner) = slot.as_mut() else { return };
        if !inner.ready {
            if is_check {
                inner
                    .waiting
                    .retain(|r| !matches!(r, Request::Check { .. }));
            }
            inner.waiting.push(request);
            return;
        }
        if is_job {
            // The worker drops the job this one replaces unanswered.
            inner.outstanding.retain(|_, o| !o.is_job);
        }
        let seq = request.seq();
        let client = self.clone();
        let watchdog = Timeout::new(self.answer_ms_max, move || client.timed_out(seq));
        inner.outstanding.insert(
            seq,
            Outstanding {
                is_job,
                sent_at_ms: js_sys::Date::now(),
                _watchdog: watchdog,
            },
        );
        let _ = inner
            .worker
            .post_message(&JsValue::from_str(&encode(&request)));
    }

    /// How long the job in progress has run, if one is.
    fn running_job_ms(&self) -> Option<f64> {
        let slot = self.inner.borrow();
        let started = slot
            .as_ref()?
            .outstanding
            .values()
            .filter(|o| o.is_job)
            .map(|o| o.sent_at_ms)
            .reduce(f64::min)?;
        Some(js_sys::Date::now() - started)
    }

    fn timed_out(&self, seq: u64) {
        let still_waiting = self
            .inner
            .borrow()
            .as_ref()
            .is_some_and(|inner| inner.outstanding.contains_key(&seq));
        if still_waiting {
            let seconds = f64::from(self.answer_ms_max) / 1000.0;
            self.restart(
                format!(
                    "it ran for more than {seconds} s, so the checker was stopped and started \
                     afresh (your text is kept). Something in it takes too long: a query over \
                     very many rows, or a long text matched in every row?"
                ),
                true,
            );
        }
    }

    /// Terminates the worker and starts another. The requests it held fail
    /// with `message`; the jobs among them too when `jobs_fail` (a
    /// watchdog), else they are dropped (replaced by a newer job, whose
    /// answer the page awaits instead).
    fn restart(&self, message: String, jobs_fail: bool) {
        let Some(old) = self.inner.borrow_mut().take() else {
            return;
        };
        old.worker.terminate();
        self.spawn();
        for (seq, outstanding) in &old.outstanding {
            if jobs_fail || !outstanding.is_job {
                (self.deliver)(Response::Failed {
                    seq: *seq,
                    message: message.clone(),
                });
            }
        }
    }
}

/// The worker web/start-worker.js started as the page's head was parsed, and
/// the events it sent until now (`globalThis.fencelabEarlyWorker`), taken
/// once: a restart starts a worker of its own.
fn early_worker() -> Option<(Worker, js_sys::Array)> {
    let global = js_sys::global();
    let key = JsValue::from_str("fencelabEarlyWorker");
    let early = js_sys::Reflect::get(&global, &key).ok()?;
    let _ = js_sys::Reflect::set(&global, &key, &JsValue::NULL);
    let worker = js_sys::Reflect::get(&early, &JsValue::from_str("worker"))
        .ok()?
        .dyn_into::<Worker>()
        .ok()?;
    let held = js_sys::Reflect::get(&early, &JsValue::from_str("held"))
        .ok()?
        .dyn_into::<js_sys::Array>()
        .ok()?;
    Some((worker, held))
}

/// The worker's address as web/start-worker.js names it
/// (`globalThis.fencelabWorkerUrl`): the build renames the worker's files
/// after their content and rewrites start-worker.js, not this wasm. Without
/// it (wasm tests), trunk's own name.
fn worker_url() -> String {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("fencelabWorkerUrl"))
        .ok()
        .and_then(|url| url.as_string())
        .unwrap_or_else(|| WORKER_URL.to_string())
}

/// The worker's name as web/start-worker.js gives it
/// (`globalThis.fencelabWorkerName`): the address of this build's
/// catalogue, which the worker fetches (web/worker/src/catalog.rs).
fn worker_name() -> String {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("fencelabWorkerName"))
        .ok()
        .and_then(|name| name.as_string())
        .unwrap_or_else(|| WORKER_NAME.to_string())
}

/// `?answer_ms=N` from the page's address: a shorter watchdog, for tests
/// that watch a restart happen.
pub fn answer_ms_from_address() -> Option<u32> {
    let search = web_sys::window()?.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    let ms: u32 = params.get("answer_ms")?.parse().ok()?;
    Some(ms.max(ANSWER_MS_MIN))
}
