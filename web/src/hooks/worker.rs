//! The worker: started once (worker_client.rs), every answer dispatched as
//! `Action::Worker`, and the requests the reducer left in the playground sent.
//! A check goes on every edit, at once: the worker drops a check that a
//! newer one supersedes, and the worker client restarts it if that one has run
//! long. An edit's check is posted by the callback that dispatched the edit,
//! before the render the edit causes ([`use_worker`]'s return); a check
//! wanted by anything else, after the render that shows it wanted. Each is
//! posted once, by whichever comes first. Every other request
//! (`Playground::outbox`) is sent once each, after a render.

use crate::state::{Action, Playground};
use crate::worker_client::WorkerClient;
use fencelab_protocol::{Request, Unread};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The playground's worker client: it skips the authoring view's answers
/// unread (`fencelab_protocol::PlaygroundResponse`).
type PlaygroundClient = WorkerClient<Unread, Unread>;

/// `answer_ms`: the watchdog the page's address asked for as it opened.
///
/// Returns a dispatcher for the editors' edits that posts the check an edit
/// wants as soon as the reducer has run, instead of after the render the
/// edit causes: the first edit's render (the app's first after hydrating)
/// took about 23 ms before its check left, and the worker now checks while
/// the page renders (docs/PERFORMANCE.md). yew runs a reducer within
/// `dispatch`, and a handle cloned after it holds the state it made; the
/// render comes later, in a task of yew's scheduler.
#[hook]
pub fn use_worker(
    playground: &UseReducerHandle<Playground>,
    answer_ms: Option<u32>,
) -> Callback<Action> {
    // Started by the first effect that sends, never while rendering: a
    // render also runs at build time, where there is no worker to start
    // (web/prerender).
    let client = {
        let started = use_mut_ref(|| None::<Rc<PlaygroundClient>>);
        let dispatcher = playground.dispatcher();
        move || started_client(&started, &dispatcher, answer_ms)
    };
    {
        let client = client.clone();
        use_effect_with((), move |_| {
            client();
        });
    }
    // The outbox before any check of the same render: a site exercise's
    // page has the worker install its exercises before anything else
    // (`Playground::adopt_site`), and effects run in their order here.
    {
        let client = client.clone();
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
    // The seq of the newest check posted.
    let check_sent = use_mut_ref(|| 0u64);
    let post_check = {
        let client = client.clone();
        move |request: Option<Request>| {
            if let Some(request) = request.filter(|r| r.seq() > *check_sent.borrow()) {
                *check_sent.borrow_mut() = request.seq();
                client().send(request);
            }
        }
    };
    {
        let post_check = post_check.clone();
        let request = playground.check_request();
        use_effect_with(playground.open.check_wanted, move |_| post_check(request));
    }
    // Only ever cloned, never read itself: a clone starts from the state of
    // the moment, and a handle that is read keeps every state it has seen
    // (yew's deref history) for as long as it lives, which for an editor's
    // callback is the editor's life.
    let handle = playground.clone();
    Callback::from(move |action: Action| {
        handle.dispatch(action);
        post_check(handle.clone().check_request());
    })
}

/// The worker client, started on first use.
fn started_client(
    started: &RefCell<Option<Rc<PlaygroundClient>>>,
    dispatcher: &UseReducerDispatcher<Playground>,
    answer_ms: Option<u32>,
) -> Rc<PlaygroundClient> {
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
