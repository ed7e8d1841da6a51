//! The app's effects for an embed whose page asked for results: listen to
//! the parent (each message dispatched as `Action::Host`), watch the
//! content's height once the page has settled, and post what the reducer
//! left in `Embedding::posts`, each once. Nothing happens without an
//! embedding.

use super::bridge;
use crate::state::{Action, Playground};
use yew::prelude::*;

#[hook]
pub fn use_embedding(playground: &UseReducerHandle<Playground>) {
    let parent = playground.embedding.as_ref().map(|e| e.parent.clone());
    {
        let dispatcher = playground.dispatcher();
        use_effect_with(parent.clone(), move |parent| {
            let listener = parent.clone().and_then(|origin| {
                bridge::listen(origin, move |message| {
                    dispatcher.dispatch(Action::Host(message))
                })
            });
            move || drop(listener)
        });
    }
    // The content's height is reported from the moment the page shows what
    // it will go on showing (an exercise with its editors, or why none
    // opens), not while the exercise the address names is awaited or its
    // saved work is read: those lines are 47 and 99 px high, and reporting
    // them would fold the course page's 600 px frame up and open it out
    // again a moment later, moving everything below it twice.
    let settled = playground.awaiting.is_none()
        && playground.awaiting_link.is_none()
        && playground.opening.is_none();
    use_effect_with((parent.clone(), settled), |(parent, settled)| {
        let watch = parent
            .clone()
            .filter(|_| *settled)
            .and_then(bridge::watch_height);
        move || drop(watch)
    });
    let sent = use_mut_ref(|| 0u64);
    let posts = playground
        .embedding
        .as_ref()
        .map(|e| e.posts.clone())
        .unwrap_or_default();
    let newest = posts.last().map(|post| post.0);
    use_effect_with(newest, move |_| {
        if let Some(origin) = parent {
            for post in posts {
                let (number, message) = &*post;
                if *number > *sent.borrow() {
                    *sent.borrow_mut() = *number;
                    bridge::post(&origin, message);
                }
            }
        }
    });
}
