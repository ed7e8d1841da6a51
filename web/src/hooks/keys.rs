//! The page's one global key: Ctrl/Cmd+Enter anywhere re-runs the check at
//! once (`Action::RunNow`). Every other key is the focused element's.

use crate::state::{Action, Playground};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

#[hook]
pub fn use_run_key(playground: &UseReducerHandle<Playground>) {
    let dispatcher = playground.dispatcher();
    use_effect_with((), move |_| {
        let listener = Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(
            move |event: web_sys::KeyboardEvent| {
                if event.key() == "Enter" && (event.ctrl_key() || event.meta_key()) {
                    event.prevent_default();
                    dispatcher.dispatch(Action::RunNow);
                }
            },
        );
        let document = web_sys::window().and_then(|w| w.document());
        if let Some(document) = &document {
            let _ = document
                .add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(document) = document {
                let _ = document.remove_event_listener_with_callback(
                    "keydown",
                    listener.as_ref().unchecked_ref(),
                );
            }
        }
    });
}
