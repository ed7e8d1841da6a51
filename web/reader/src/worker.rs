//! The reader's glue to JS: each message on its port is a question's JSON
//! text, answered at once with the answer's (`crate::answer`). A panic (a
//! bug: the loader must not panic) still answers the question being read,
//! `Failed`; the checking worker then hears of it and answers its page.

use fencelab_protocol::encode;
use fencelab_protocol::reader::{FromReader, ReadAnswer, ReadResponse};
use std::cell::Cell;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    /// The seq of the question being read, for the panic hook.
    static READING: Cell<u64> = const { Cell::new(0) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(text: &str) {
    let _ = scope().post_message(&JsValue::from_str(text));
}

/// Installs the panic hook and the message handler, then says `Ready`.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        post(&encode(&FromReader::Answered(ReadResponse {
            seq: READING.with(Cell::get),
            answer: ReadAnswer::Failed(format!("the exercise reader failed: {info}")),
        })));
    }));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        let question = event.data().as_string().unwrap_or_default();
        post(&crate::answer(&question, |seq| {
            READING.with(|reading| reading.set(seq))
        }));
        READING.with(|reading| reading.set(0));
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&encode(&FromReader::Ready));
}
