//! The site's own exercises (its `exercises/index.toml`, fetched once by
//! `crate::site`; the files it names fetched once the worker has read it),
//! and the exercise an exercise link carries, installed at once as a
//! site's own is (the address names it, so it is awaited).

use crate::state::{Action, Playground, SiteExercises, recorded_path};
use yew::prelude::*;

#[hook]
pub fn use_site_exercises(playground: &UseReducerHandle<Playground>) {
    let dispatcher = playground.dispatcher();
    use_effect_with((), move |_| {
        if let Some(linked) = crate::author::link::linked_file() {
            dispatcher.dispatch(Action::SiteExercises(SiteExercises::Files(vec![linked])));
        }
        wasm_bindgen_futures::spawn_local(async move {
            dispatcher.dispatch(Action::SiteExercises(crate::site::fetch_index().await));
        });
    });
    let dispatcher = playground.dispatcher();
    use_effect_with(playground.site_files.clone(), move |paths| {
        if let Some(paths) = paths.clone() {
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(Action::SiteExercises(
                    crate::site::fetch_files(&paths).await,
                ));
            });
        }
    });
}

/// The open exercise's recorded PostgreSQL verdicts (`postgres/ID.json`),
/// fetched once an exercise with a dialect is open and nothing was asked
/// for it yet (`state/recorded.rs`).
#[hook]
pub fn use_recorded_verdicts(playground: &UseReducerHandle<Playground>) {
    let dispatcher = playground.dispatcher();
    use_effect_with(playground.recording_wanted(), move |wanted| {
        if let Some(exercise) = wanted.clone() {
            dispatcher.dispatch(Action::RecordingAsked(exercise.clone()));
            wasm_bindgen_futures::spawn_local(async move {
                let fetched = crate::site::text_of(&recorded_path(&exercise)).await;
                dispatcher.dispatch(Action::RecordingArrived { exercise, fetched });
            });
        }
    });
}
