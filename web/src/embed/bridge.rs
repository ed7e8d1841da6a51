//! The DOM side of the embedding protocol: the parent window's messages in
//! (only from the allowed origin and the parent window itself), the
//! frame's messages out (only to that origin), and the content's height
//! watched. Must never panic and never post to `*`: every post names the
//! parent origin that `protocol::parent_origin` validated.

use super::height::{FrameHeight, HeightStep, SHRINK_PAUSE_MS};
use super::protocol::{self, FrameMessage, HostRequest, Refusal};
use gloo_timers::callback::Timeout;
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// The window that embeds this page, if it is embedded at all.
fn parent() -> Option<web_sys::Window> {
    let window = web_sys::window()?;
    let parent = window.parent().ok().flatten()?;
    // A top-level page is its own parent: nobody to talk to.
    (!js_sys::Object::is(&parent, &window)).then_some(parent)
}

/// Posts `message` to the parent, to `origin` only.
pub fn post(origin: &str, message: &FrameMessage) {
    let Some(parent) = parent() else {
        return;
    };
    // A plain object for the host, as JSON would give it: objects, not
    // JS Maps, for the maps.
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    if let Ok(value) = message.envelope().serialize(&serializer) {
        let _ = parent.post_message(&value, origin);
    }
}

/// Listens for the parent's messages while alive.
pub struct Listener {
    closure: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            let _ = window.remove_event_listener_with_callback(
                "message",
                self.closure.as_ref().unchecked_ref(),
            );
        }
    }
}

/// Hands every message from the parent window at `origin` to `on_message`,
/// read or refused. Any other message is ignored without a word: its sender
/// is not the page this frame answers to.
pub fn listen(
    origin: String,
    on_message: impl Fn(Result<HostRequest, Refusal>) + 'static,
) -> Option<Listener> {
    let window = web_sys::window()?;
    let closure =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let from_parent = match (event.source(), parent()) {
                (Some(source), Some(parent)) => js_sys::Object::is(&source, &parent),
                _ => false,
            };
            if event.origin() != origin || !from_parent {
                return;
            }
            on_message(read(event.data()));
        });
    window
        .add_event_listener_with_callback("message", closure.as_ref().unchecked_ref())
        .ok()?;
    Some(Listener { closure })
}

/// A posted message, read from the object itself: only the protocol's
/// fields, each as the shape it must have.
pub fn read(data: JsValue) -> Result<HostRequest, Refusal> {
    if !data.is_object() || js_sys::Array::is_array(&data) {
        return Err(protocol::not_an_object());
    }
    protocol::read_host(serde_wasm_bindgen::Deserializer::from(data))
}

/// The content's height in CSS pixels: the root element's box, which
/// grows with the content and, unlike `scrollHeight`, does not stay at the
/// frame's height when the content shrinks.
fn content_height() -> Option<u32> {
    let root = web_sys::window()?.document()?.document_element()?;
    let height = root.get_bounding_client_rect().height().ceil();
    (height.is_finite() && height >= 0.0).then(|| height.min(f64::from(u32::MAX)) as u32)
}

/// Watches the content's height while alive.
pub struct HeightWatch {
    observer: web_sys::ResizeObserver,
    _closure: Closure<dyn FnMut()>,
}

impl Drop for HeightWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// The reports so far and the shrink waiting for its pause, if any
/// (replacing it cancels it).
#[derive(Default)]
struct Heights {
    frame: FrameHeight,
    shrink: Option<Timeout>,
}

/// Posts `resize` to the parent at `origin` now and whenever the content's
/// height changes, as `height.rs` decides: taller at once, shorter after a
/// pause.
pub fn watch_height(origin: String) -> Option<HeightWatch> {
    let root = web_sys::window()?.document()?.document_element()?;
    let heights = Rc::new(RefCell::new(Heights::default()));
    let closure = Closure::<dyn FnMut()>::new(move || {
        let Some(height) = content_height() else {
            return;
        };
        let mut state = heights.borrow_mut();
        match state.frame.measured(height) {
            HeightStep::Report(height) => {
                state.shrink = None;
                post(&origin, &FrameMessage::Resize { height });
            }
            HeightStep::Keep => state.shrink = None,
            HeightStep::ShrinkAfterPause => {
                let (heights, origin) = (Rc::clone(&heights), origin.clone());
                // The callback leaves its own timer in place: a timer that
                // has fired is dropped harmlessly by the next one.
                state.shrink = Some(Timeout::new(SHRINK_PAUSE_MS, move || {
                    let Some(height) = content_height() else {
                        return;
                    };
                    if let Some(height) = heights.borrow_mut().frame.settled(height) {
                        post(&origin, &FrameMessage::Resize { height });
                    }
                }));
            }
        }
    });
    let observer = web_sys::ResizeObserver::new(closure.as_ref().unchecked_ref()).ok()?;
    observer.observe(&root);
    Some(HeightWatch {
        observer,
        _closure: closure,
    })
}
