//! The address bar: what the page's address asks for when it opens
//! (`?exercise=`, `?embed=1`, `?parent=`, `?theme=`, a share or exercise
//! link in the fragment), and the address kept naming the open exercise,
//! so a reload comes back to it. A share link is read once and then taken
//! out of the address; an exercise link (`#x1=`) stays, as the exercise it
//! carries lives nowhere else.
//!
//! Each exercise the learner goes to is an entry of the tab's history (the
//! first one named takes the entry the page arrived with), so Back and
//! Forward move between exercises (`popstate`, read here and dispatched as
//! `Navigated`) and Back from the first leaves the site. In an embed the
//! entry is replaced instead: a frame's entries would be the course page's
//! Back.

use crate::state::{Action, Playground, Setting, Start, Theme};
use crate::storage;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// What the address asks for, read once as the first state is made.
pub fn read_start() -> Start {
    let location = web_sys::window().map(|w| w.location());
    let search = location
        .as_ref()
        .and_then(|l| l.search().ok())
        .unwrap_or_default();
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok();
    let param = |name: &str| params.as_ref().and_then(|p| p.get(name));
    let fragment = location
        .as_ref()
        .and_then(|l| l.hash().ok())
        .unwrap_or_default();
    Start {
        exercise: param("exercise"),
        // An exercise link (`#x1=`) names the exercise it carries, once the
        // worker has read it.
        exercise_link: crate::author::link::is_exercise_link(fragment.trim_start_matches('#')),
        embed: param("embed").is_some_and(|v| v == "1"),
        parent: param("parent"),
        hunts: param("hunts").is_some_and(|v| v == "1"),
        fragment: fragment.trim_start_matches('#').to_string(),
        // An embedding page may choose the theme (`embed.js`'s `theme`).
        theme: param("theme")
            .map(|name| Theme::from_name(&name))
            .filter(|theme| *theme != Theme::System)
            .unwrap_or_else(storage::theme),
        answer_ms: crate::worker_client::answer_ms_from_address(),
    }
}

/// Takes a share link out of the address once it was read, then keeps the
/// address naming the open exercise (and, in an embed, its parent, so a
/// reload still reports to it).
#[hook]
pub fn use_address(playground: &UseReducerHandle<Playground>) {
    use_effect_with((), |_| clear_fragment());
    use_back_and_forward(playground.dispatcher());
    // Whether the address has named an exercise yet: the first naming
    // takes the entry the page arrived with.
    let named = use_mut_ref(|| false);
    let id = playground.exercise().map(|e| e.id.clone());
    let embed = playground.embed;
    let parent = playground
        .embedding
        .as_ref()
        .map(|e| format!("&parent={}", js_sys::encode_uri_component(&e.parent)))
        .unwrap_or_default();
    use_effect_with(id, move |id| {
        if let (Some(id), Some(window)) = (id, web_sys::window()) {
            let query = format!(
                "?{}exercise={id}{parent}",
                if embed { "embed=1&" } else { "" }
            );
            let push = *named.borrow() && !embed;
            name_exercise(&window, &query, push);
            *named.borrow_mut() = true;
        }
    });
}

/// Back and Forward: the address they arrive at names an exercise, which
/// is dispatched to be opened (`Navigated`; the one open already stays).
/// The page places the exercise it opens itself, at its top
/// (`crate::reveal::title`), so the browser is told not to restore the
/// scroll it left that entry at: it did so after the page had scrolled to
/// the top, and the exercise opened scrolled away under its title.
#[hook]
fn use_back_and_forward(dispatcher: UseReducerDispatcher<Playground>) {
    use_effect_with((), move |_| {
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            // Through Reflect: web-sys's setter needs a feature of its own.
            let _ = js_sys::Reflect::set(&history, &"scrollRestoration".into(), &"manual".into());
        }
        let listener = Closure::<dyn FnMut()>::new(move || {
            let Some(search) = web_sys::window().and_then(|w| w.location().search().ok()) else {
                return;
            };
            let exercise = web_sys::UrlSearchParams::new_with_str(&search)
                .ok()
                .and_then(|params| params.get("exercise"));
            if let Some(id) = exercise {
                dispatcher.dispatch(Action::Navigated(id));
            }
        });
        super::listen_on_window("popstate", listener)
    });
}

/// Sets the address's query to `query`, keeping an exercise link's fragment
/// (see `clear_fragment`), without a reload: a new history entry when
/// `push` (and the address is another), else in place of this one.
fn name_exercise(window: &web_sys::Window, query: &str, push: bool) {
    let hash = window.location().hash().unwrap_or_default();
    let hash = if crate::author::link::is_exercise_link(hash.trim_start_matches('#')) {
        hash
    } else {
        String::new()
    };
    let url = format!(
        "{}{query}{hash}",
        window.location().pathname().unwrap_or_default()
    );
    let Ok(history) = window.history() else {
        return;
    };
    // Back or Forward arrived here: the address names the exercise already.
    if push && window.location().search().ok().as_deref() == Some(query) {
        return;
    }
    let _ = if push {
        history.push_state_with_url(&JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&JsValue::NULL, "", Some(&url))
    };
}

/// Removes a share link from the address bar once read, so a reload shows
/// the autosaved work rather than the link again.
fn clear_fragment() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let hash = window.location().hash().unwrap_or_default();
    // An exercise link stays: the exercise it carries lives nowhere else.
    if hash.is_empty() || crate::author::link::is_exercise_link(hash.trim_start_matches('#')) {
        return;
    }
    drop_fragment(&window);
}

/// Replaces the address with itself without its fragment (no reload).
pub(crate) fn drop_fragment(window: &web_sys::Window) {
    let location = window.location();
    let url = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// The page's address without its fragment, for share links.
pub(crate) fn page_address() -> String {
    web_sys::window()
        .and_then(|window| {
            let location = window.location();
            Some(format!(
                "{}{}",
                location.origin().ok()?,
                location.pathname().ok()?
            ))
        })
        .unwrap_or_default()
}

/// The Share button's callback: a share link names this page's own
/// address, which is read here and handed to the reducer.
pub fn on_share(dispatcher: UseReducerDispatcher<Playground>) -> Callback<()> {
    Callback::from(move |_: ()| {
        dispatcher.dispatch(Action::Share {
            base: page_address(),
        })
    })
}
