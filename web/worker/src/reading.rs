//! The checking worker's side of the exercise reader (web/reader): a worker
//! of its own, which links the TOML loader this one leaves out. It is
//! started the first time a request hands over a text to be read
//! (`Served::Read`: a site's exercise file, an exercise link's, a draft, an
//! index in a form the worker does not read itself), and asked one text at
//! a time; its answer goes to `worker::read_answered`. Its address is the
//! second word of this worker's name (web/start-worker.js,
//! `catalog::reader_address`).
//!
//! Must never: leave a read unanswered. A reader that cannot be started,
//! fails to load or fails while reading answers the read `Failed`, and the
//! next read starts a new one.

use fencelab_protocol::reader::{FromReader, ReadAnswer, ReadRequest};
use fencelab_protocol::{Request, decode, encode};
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker, WorkerOptions, WorkerType};

/// The reader, as far as it has come.
enum Reader {
    NotStarted,
    /// Created; it has not said `Ready`, and a question posted now could
    /// be lost.
    Starting(Worker),
    Ready(Worker),
}

thread_local! {
    static READER: RefCell<Reader> = const { RefCell::new(Reader::NotStarted) };
    /// The request whose text is with the reader, if any.
    static READING: RefCell<Option<Request>> = const { RefCell::new(None) };
}

/// Whether a text is with the reader.
pub fn busy() -> bool {
    READING.with(|reading| reading.borrow().is_some())
}

/// Hands `request`'s text (`Request::read`) to the reader, starting it if
/// need be. One at a time: the caller waits for the answer before it asks
/// again (`busy`).
pub fn ask(request: Request) {
    READING.with(|reading| *reading.borrow_mut() = Some(request));
    match started() {
        Ok(true) => post_question(),
        // Posted once it says `Ready`.
        Ok(false) => {}
        Err(message) => fail(message),
    }
}

/// Starts the reader, if it is not started, before any text is handed
/// over: when one is sure to come. A reader that cannot start says so on
/// that text.
pub fn warm() {
    let _ = started();
}

/// Whether the reader is ready, after starting it if it was not.
fn started() -> Result<bool, String> {
    let ready = READER.with(|reader| match &*reader.borrow() {
        Reader::NotStarted => None,
        Reader::Starting(_) => Some(false),
        Reader::Ready(_) => Some(true),
    });
    if let Some(ready) = ready {
        return Ok(ready);
    }
    let address = crate::catalog::reader_address(&crate::worker::scope().name())?;
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    options.set_name("fencelab-reader");
    let worker = Worker::new_with_options(&address, &options)
        .map_err(|error| format!("the exercise reader could not be started: {error:?}"))?;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        heard(&event.data().as_string().unwrap_or_default());
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // An `ErrorEvent` for an error in the reader's script, but a plain
    // `Event` when its script could not be fetched.
    let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        // Handled here: left alone, a nested worker's error goes on to this
        // worker's own scope, and the page would take it for this worker's.
        event.prevent_default();
        // A reader that failed once is started afresh for the next read.
        let failed =
            READER.with(|reader| std::mem::replace(&mut *reader.borrow_mut(), Reader::NotStarted));
        if let Reader::Starting(worker) | Reader::Ready(worker) = failed {
            worker.terminate();
        }
        fail(match event.dyn_ref::<ErrorEvent>() {
            Some(error) => format!("the exercise reader failed: {}", error.message()),
            None => format!("the exercise reader ({address}) could not be loaded"),
        });
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    READER.with(|reader| *reader.borrow_mut() = Reader::Starting(worker));
    Ok(false)
}

/// What the reader said: `Ready`, or the answer to the text it was given.
fn heard(text: &str) {
    match decode::<FromReader>(text) {
        Ok(FromReader::Ready) => {
            READER.with(|reader| {
                let mut reader = reader.borrow_mut();
                if let Reader::Starting(worker) = &*reader {
                    *reader = Reader::Ready(worker.clone());
                }
            });
            post_question();
        }
        Ok(FromReader::Answered(response)) => {
            let asked = READING.with(|reading| {
                let mut reading = reading.borrow_mut();
                match &*reading {
                    Some(request) if request.seq() == response.seq => reading.take(),
                    // An answer to a read already answered `Failed`.
                    _ => None,
                }
            });
            if let Some(request) = asked {
                crate::worker::read_answered(request, response.answer);
            }
        }
        Err(error) => fail(format!(
            "the exercise reader's answer could not be read: {error}"
        )),
    }
}

/// Posts the text being read, if the reader is ready for it.
fn post_question() {
    let question = READING.with(|reading| {
        let reading = reading.borrow();
        let request = reading.as_ref()?;
        Some(ReadRequest {
            seq: request.seq(),
            read: request.read()?,
        })
    });
    let Some(question) = question else { return };
    let posted = READER.with(|reader| match &*reader.borrow() {
        Reader::Ready(worker) => Some(worker.post_message(&JsValue::from_str(&encode(&question)))),
        _ => None,
    });
    if let Some(Err(error)) = posted {
        fail(format!("the exercise reader could not be asked: {error:?}"));
    }
}

/// Answers the read under way, if any, `Failed` with `message`.
fn fail(message: String) {
    if let Some(request) = READING.with(|reading| reading.borrow_mut().take()) {
        crate::worker::read_answered(request, ReadAnswer::Failed(message));
    }
}
