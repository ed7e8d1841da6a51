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
    // The content's height is reported once the page has settled: the
    // lines shown before would fold the course page's 600 px frame up and
    // open it out again a moment later, moving everything below it twice.
    let settled = playground.settled();
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
