//! The worker: started once (engine.rs), every answer dispatched as
//! `Action::Worker`, and the requests the reducer left in the model sent.
//! A check goes on every edit, at once: the worker drops a check that a
//! newer one supersedes, and the engine restarts it if that one has run
//! long. Edits dispatched within one task render once, so they are sent as
//! one check. Every other request (`Model::outbox`) is sent once each.

use crate::engine::Engine;
use crate::state::{Action, Model};
use yew::prelude::*;

#[hook]
pub fn use_worker(model: &UseReducerHandle<Model>) {
    let engine = {
        let dispatcher = model.dispatcher();
        use_memo((), move |_| {
            Engine::start(move |response| dispatcher.dispatch(Action::Worker(Box::new(response))))
        })
    };
    {
        let engine = engine.clone();
        let request = model.check_request();
        use_effect_with(model.check_wanted, move |_| {
            if let Some(request) = request {
                engine.send(request);
            }
        });
    }
    let sent = use_mut_ref(|| 0u64);
    let outbox = model.outbox.clone();
    use_effect_with(model.outbox.last().map(|r| r.seq()), move |_| {
        for request in outbox {
            if request.seq() > *sent.borrow() {
                *sent.borrow_mut() = request.seq();
                engine.send((*request).clone());
            }
        }
    });
}
