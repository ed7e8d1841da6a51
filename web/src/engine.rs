//! The page's side of the worker: starts it, holds requests until it says
//! "ready", and hands every answer to one callback. Messages cross as JSON
//! text through `fencelab_protocol::encode`/`decode`, the only codec either
//! side uses. Must never run the engine itself: the main thread only renders.

use fencelab_protocol::{Request, Response, decode, encode};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// trunk's loader for the worker binary (`data-loader-shim` in index.html).
const WORKER_URL: &str = "./worker_loader.js";

struct Inner {
    worker: Worker,
    ready: bool,
    waiting: Vec<Request>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// A handle on the worker; cloning it shares the same worker.
#[derive(Clone)]
pub struct Engine {
    inner: Rc<RefCell<Option<Inner>>>,
}

impl PartialEq for Engine {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Engine {
    /// Starts the worker; `on_response` receives each answer, and a message
    /// (as `Response::Failed`) when the worker cannot start or crashes.
    pub fn start(on_response: impl Fn(Response) + 'static) -> Engine {
        let engine = Engine {
            inner: Rc::new(RefCell::new(None)),
        };
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = match Worker::new_with_options(WORKER_URL, &options) {
            Ok(worker) => worker,
            Err(error) => {
                on_response(Response::Failed {
                    seq: 0,
                    message: format!("the checking worker could not start: {error:?}"),
                });
                return engine;
            }
        };
        let on_response = Rc::new(on_response);
        let weak = Rc::downgrade(&engine.inner);
        let deliver = on_response.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let response = match event.data().as_string() {
                Some(text) => decode::<Response>(&text).unwrap_or_else(|error| Response::Failed {
                    seq: 0,
                    message: format!("the page could not read the worker's answer: {error}"),
                }),
                None => Response::Failed {
                    seq: 0,
                    message: "the worker sent an answer that is not text".into(),
                },
            };
            if matches!(response, Response::Ready { .. })
                && let Some(inner) = weak.upgrade()
            {
                let waiting = match inner.borrow_mut().as_mut() {
                    Some(inner) => {
                        inner.ready = true;
                        std::mem::take(&mut inner.waiting)
                    }
                    None => Vec::new(),
                };
                let engine = Engine { inner };
                for request in waiting {
                    engine.send(request);
                }
            }
            deliver(response);
        });
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
            on_response(Response::Failed {
                seq: 0,
                message: "the checking worker stopped with an error; reload the page to restart it"
                    .into(),
            });
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        *engine.inner.borrow_mut() = Some(Inner {
            worker,
            ready: false,
            waiting: Vec::new(),
            _on_message: on_message,
            _on_error: on_error,
        });
        engine
    }

    /// Sends a request now, or once the worker is ready. Of several waiting
    /// checks only the newest is kept.
    pub fn send(&self, request: Request) {
        let mut inner = self.inner.borrow_mut();
        let Some(inner) = inner.as_mut() else { return };
        if !inner.ready {
            if matches!(request, Request::Check { .. }) {
                inner
                    .waiting
                    .retain(|r| !matches!(r, Request::Check { .. }));
            }
            inner.waiting.push(request);
            return;
        }
        let _ = inner
            .worker
            .post_message(&JsValue::from_str(&encode(&request)));
    }
}
