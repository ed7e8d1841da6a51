//! The playground's effects, one hook per seam with the outside world (as
//! in yew's function_todomvc, whose hooks live in `hooks/`): each reads
//! what it needs from the playground, talks to one outside thing (the address,
//! storage, the worker, the document, the keyboard) and dispatches what it
//! read as an action. The reducer and the layout (`components/app.rs`)
//! read nothing themselves. The embed's own hook, which talks to the page
//! that embeds this one, lives with the rest of the embedding
//! (`embed/effects.rs`); the authoring view's are `author.rs`, on its own
//! state in the same way.
//!
//! Must never: change the playground but through an action, or hold state the
//! playground should (a hook keeps only what it needs to do its effect once,
//! such as the last request it sent).

pub mod address;
pub mod author;
pub mod autosave;
pub mod document;
pub mod editing;
pub mod editor_aids;
pub mod handlers;
pub mod hash_change;
pub mod keys;
pub mod open_focus;
pub mod reveal;
pub mod saved_work;
pub mod site;
pub mod start_marks;
pub mod worker;

/// Calls `listener` on each `event` of the window, until the returned
/// cleanup (an effect's destructor) removes it: the one way a hook here
/// listens to the window for an event that carries nothing it reads.
pub(crate) fn listen_on_window(
    event: &'static str,
    listener: wasm_bindgen::closure::Closure<dyn FnMut()>,
) -> impl FnOnce() {
    use wasm_bindgen::JsCast;
    let window = web_sys::window();
    if let Some(window) = &window {
        let _ = window.add_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
    }
    move || {
        if let Some(window) = window {
            let _ = window
                .remove_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        }
    }
}
