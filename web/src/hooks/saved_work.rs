//! Reading what storage holds: the saved work of the exercise being opened
//! (an unreadable entry is set aside by storage.rs, named by the clock),
//! and every exercise's saved progress for the exercise list, read again
//! when the site's own exercises arrive. Each read is dispatched as an
//! action; writing is `autosave.rs`'s.

use crate::state::{Action, Model};
use crate::storage;
use yew::prelude::*;

#[hook]
pub fn use_saved_work(model: &UseReducerHandle<Model>) {
    {
        let dispatcher = model.dispatcher();
        let opening = model.opening.as_ref().map(|o| o.exercise.clone());
        use_effect_with(opening, move |opening| {
            if let Some(exercise) = opening.clone() {
                let loaded = storage::load(&exercise);
                dispatcher.dispatch(Action::SavedWorkRead { exercise, loaded });
            }
        });
    }
    let dispatcher = model.dispatcher();
    let exercises = model.exercises.clone();
    use_effect_with(model.exercises.len(), move |_| {
        let ids = exercises.iter().map(|e| e.id.as_str());
        dispatcher.dispatch(Action::ProgressRead(storage::progress(ids)));
    });
}
