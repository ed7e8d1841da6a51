//! The worker: started once (engine.rs), every answer dispatched as
//! `Action::Worker`, and the requests the reducer left in the playground sent.
//! A check goes on every edit, at once: the worker drops a check that a
//! newer one supersedes, and the engine restarts it if that one has run
//! long. Edits dispatched within one task render once, so they are sent as
//! one check. Every other request (`Playground::outbox`) is sent once each.

use crate::engine::Engine;
use crate::state::{Action, Playground};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// `answer_ms`: the watchdog the page's address asked for as it opened.
#[hook]
pub fn use_worker(playground: &UseReducerHandle<Playground>, answer_ms: Option<u32>) {
    // Started by the first effect that sends, never while rendering: a
    // render also runs at build time, where there is no worker to start
    // (web/prerender).
    let engine = {
        let started = use_mut_ref(|| None::<Rc<Engine>>);
        let dispatcher = playground.dispatcher();
        move || started_engine(&started, &dispatcher, answer_ms)
    };
    {
        let engine = engine.clone();
        use_effect_with((), move |_| {
            engine();
        });
    }
    {
        let engine = engine.clone();
        let request = playground.check_request();
        use_effect_with(playground.check_wanted, move |_| {
            if let Some(request) = request {
                engine().send(request);
            }
        });
    }
    let sent = use_mut_ref(|| 0u64);
    let outbox = playground.outbox.clone();
    use_effect_with(playground.outbox.last().map(|r| r.seq()), move |_| {
        for request in outbox {
            if request.seq() > *sent.borrow() {
                *sent.borrow_mut() = request.seq();
                engine().send((*request).clone());
            }
        }
    });
}

/// The engine, started on first use.
fn started_engine(
    started: &RefCell<Option<Rc<Engine>>>,
    dispatcher: &UseReducerDispatcher<Playground>,
    answer_ms: Option<u32>,
) -> Rc<Engine> {
    started
        .borrow_mut()
        .get_or_insert_with(|| {
            let dispatcher = dispatcher.clone();
            Rc::new(Engine::start(answer_ms, move |response| {
                dispatcher.dispatch(Action::Worker(Box::new(response)))
            }))
        })
        .clone()
}
