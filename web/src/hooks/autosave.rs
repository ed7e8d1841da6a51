//! Autosave: the open exercise's work is written to storage on every
//! change, when the playground says it may be (`Playground::autosaved_exercise`).
//! The progress the exercise list shows follows from what was saved; it is
//! dispatched only when it changed, never read back from storage on every
//! keystroke.

use crate::state::{Action, Playground};
use crate::storage;
use std::collections::BTreeMap;
use yew::prelude::*;

#[hook]
pub fn use_autosave(playground: &UseReducerHandle<Playground>) {
    let dispatcher = playground.dispatcher();
    let id = playground.autosaved_exercise().map(str::to_string);
    let shown = id
        .as_ref()
        .and_then(|id| playground.progress.get(id).copied());
    use_effect_with((id, playground.saved()), move |(id, saved)| {
        if let Some(id) = id {
            storage::save(id, saved);
            let progress = saved.progress();
            if shown != Some(progress) {
                // Not `BTreeMap::from([..])`, which sorts its array.
                let mut read = BTreeMap::new();
                read.insert(id.clone(), progress);
                dispatcher.dispatch(Action::ProgressRead(read));
            }
        }
    });
}
