//! Reading what storage holds: the saved work of the exercise being opened
//! (an unreadable entry is set aside by storage.rs, named by the clock),
//! and every exercise's saved progress for the exercise list, read again
//! when the site's own exercises arrive. Each read is dispatched as an
//! action; writing is `autosave.rs`'s.

use crate::state::{Action, Playground, Theme};
use crate::storage;
use yew::prelude::*;

/// `theme` is the one the page's address and storage chose as the app
/// started (a prerendered page takes it on once hydrated).
#[hook]
pub fn use_saved_work(playground: &UseReducerHandle<Playground>, theme: Theme) {
    {
        // A prerendered page, just hydrated: its exercise's saved work and
        // the theme chosen, in one action (no frame without the editors).
        let dispatcher = playground.dispatcher();
        let hydrating = playground
            .open
            .prerendered
            .is_some()
            .then(|| playground.exercise().map(|e| e.id.clone()))
            .flatten();
        use_effect_with(hydrating, move |hydrating| {
            if let Some(exercise) = hydrating {
                let loaded = storage::load(exercise);
                dispatcher.dispatch(Action::Hydrated { loaded, theme });
            }
        });
    }
    {
        let dispatcher = playground.dispatcher();
        let opening = playground.open.opening.as_ref().map(|o| o.exercise.clone());
        use_effect_with(opening, move |opening| {
            if let Some(exercise) = opening.clone() {
                let loaded = storage::load(&exercise);
                dispatcher.dispatch(Action::SavedWorkRead { exercise, loaded });
            }
        });
    }
    let dispatcher = playground.dispatcher();
    let exercises = playground.exercises.clone();
    use_effect_with(playground.exercises.len(), move |_| {
        let ids = exercises.iter().map(|e| e.id.as_str());
        dispatcher.dispatch(Action::ProgressRead(storage::progress(ids)));
    });
}
