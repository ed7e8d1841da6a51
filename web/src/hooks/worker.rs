//! The worker: started once (worker_client.rs), every answer dispatched as
//! `Action::Worker`, and the requests the reducer left in the playground sent.
//! A check goes on every edit, at once: the worker drops a check that a
//! newer one supersedes, and the worker client restarts it if that one has run
//! long. Edits dispatched within one task render once, so they are sent as
//! one check. Every other request (`Playground::outbox`) is sent once each.

use crate::state::{Action, Playground};
use crate::worker_client::WorkerClient;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// `answer_ms`: the watchdog the page's address asked for as it opened.
#[hook]
pub fn use_worker(playground: &UseReducerHandle<Playground>, answer_ms: Option<u32>) {
    // Started by the first effect that sends, never while rendering: a
    // render also runs at build time, where there is no worker to start
    // (web/prerender).
    let client = {
        let started = use_mut_ref(|| None::<Rc<WorkerClient>>);
        let dispatcher = playground.dispatcher();
        move || started_client(&started, &dispatcher, answer_ms)
    };
    {
        let client = client.clone();
        use_effect_with((), move |_| {
            client();
        });
    }
    {
        let client = client.clone();
        let request = playground.check_request();
        use_effect_with(playground.check_wanted, move |_| {
            if let Some(request) = request {
                client().send(request);
            }
        });
    }
    let sent = use_mut_ref(|| 0u64);
    let outbox = playground.outbox.clone();
    use_effect_with(playground.outbox.last().map(|r| r.seq()), move |_| {
        for request in outbox {
            if request.seq() > *sent.borrow() {
                *sent.borrow_mut() = request.seq();
                client().send((*request).clone());
            }
        }
    });
}

/// The worker client, started on first use.
fn started_client(
    started: &RefCell<Option<Rc<WorkerClient>>>,
    dispatcher: &UseReducerDispatcher<Playground>,
    answer_ms: Option<u32>,
) -> Rc<WorkerClient> {
    started
        .borrow_mut()
        .get_or_insert_with(|| {
            let dispatcher = dispatcher.clone();
            Rc::new(WorkerClient::start(answer_ms, move |response| {
                dispatcher.dispatch(Action::Worker(Box::new(response)))
            }))
        })
        .clone()
}
