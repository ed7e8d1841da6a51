//! Whether the learner is editing, and what follows from it. Editing starts
//! when a key is pressed in one of the loop's editors, or when the keyboard
//! brings the cursor into one (Tab); a click or a tap only places the
//! cursor. Then the loop (the editors and the verdicts under them) is
//! brought into view ([`reveal::work_loop`]), and on a phone the masthead
//! shrinks (style.css's `.app.editing`). Editing ends when the focus leaves
//! the loop.
//!
//! Must never move the page while a pointer is down: a page that scrolls
//! between a press and its release turns the click into a drag, which
//! selects the text the next key overwrites (issue 52 saw 225 px on
//! exercise 1 at 1280x800, 450 px on exercise 9). So nothing here answers
//! a press: the focus a press brings waits for the learner's first key.
//!
//! While editing, whether the verdict count (`#scenario-summary`) is wholly
//! on the screen is watched (an `IntersectionObserver`): when it is not (a
//! phone with its keyboard up leaves little room), the count that follows
//! the editor (`components/following_count.rs`) is shown.

use crate::reveal;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};
use yew::prelude::*;

/// The learner's editing, and the loop's listeners that follow it.
#[derive(Clone, PartialEq)]
pub struct Editing {
    /// A key was pressed in an editor of the loop (or Tab brought the
    /// cursor there), and the focus is still in the loop.
    pub active: bool,
    /// Editing, and the verdict count is not wholly on the screen.
    pub count_hidden: bool,
    pub on_pointer_down: Callback<PointerEvent>,
    pub on_focus_in: Callback<FocusEvent>,
    pub on_focus_out: Callback<FocusEvent>,
    pub on_key_down: Callback<KeyboardEvent>,
}

/// Whether `target` is inside an element that `selector` matches.
fn inside(target: Option<web_sys::EventTarget>, selector: &str) -> bool {
    target
        .and_then(|t| t.dyn_into::<Element>().ok())
        .and_then(|e| e.closest(selector).ok().flatten())
        .is_some()
}

/// An editor of the loop, and the loop itself.
const EDITOR: &str = ".editor";
const LOOP: &str = ".loop";

/// Keys that are only held with another key or a click (Shift and a
/// click extends a selection): they start nothing.
fn modifier_only(key: &str) -> bool {
    matches!(
        key,
        "Shift" | "Control" | "Alt" | "AltGraph" | "Meta" | "CapsLock" | "Fn"
    )
}

#[hook]
pub fn use_editing() -> Editing {
    let active = use_state_eq(|| false);
    let count_seen = use_state_eq(|| true);
    // A pointer was pressed in the loop since the last key there: the focus
    // that comes now is the press's, and waits for a key.
    let pressed = use_mut_ref(|| false);
    // Editing has started: the loop comes into view, after the render that
    // shrank the masthead.
    use_effect_with(*active, |active| {
        if *active {
            reveal::work_loop();
        }
    });
    {
        let count_seen = count_seen.clone();
        use_effect_with(*active, move |active| {
            let watch = active.then(|| watch_count(count_seen.clone()));
            if !*active {
                count_seen.set(true);
            }
            move || {
                if let Some((observer, _callback)) = watch.flatten() {
                    observer.disconnect();
                }
            }
        });
    }
    let on_pointer_down = {
        let pressed = pressed.clone();
        Callback::from(move |_: PointerEvent| *pressed.borrow_mut() = true)
    };
    let on_focus_in = {
        let (active, pressed) = (active.clone(), pressed.clone());
        Callback::from(move |event: FocusEvent| {
            // The focus the page put in the first editor as an exercise
            // opened (`reveal::first_editor`) waits for a key too.
            if inside(event.target(), EDITOR) && !*pressed.borrow() && !reveal::placing() {
                active.set(true);
            }
        })
    };
    let on_key_down = {
        let (active, pressed) = (active.clone(), pressed.clone());
        Callback::from(move |event: KeyboardEvent| {
            if inside(event.target(), EDITOR) && !modifier_only(&event.key()) {
                *pressed.borrow_mut() = false;
                active.set(true);
            }
        })
    };
    let on_focus_out = {
        let (active, pressed) = (active.clone(), pressed.clone());
        Callback::from(move |event: FocusEvent| {
            if !inside(event.related_target(), LOOP) {
                *pressed.borrow_mut() = false;
                active.set(false);
            }
        })
    };
    Editing {
        active: *active,
        count_hidden: *active && !*count_seen,
        on_pointer_down,
        on_focus_in,
        on_focus_out,
        on_key_down,
    }
}

/// An observer and the callback it calls, kept alive together.
type Watch = (IntersectionObserver, Closure<dyn FnMut(js_sys::Array)>);

/// Watches whether the verdict count is wholly on the screen, setting
/// `count_seen` as it changes (and once at the start); `None` when there is
/// no count or the browser has no observer.
fn watch_count(count_seen: UseStateHandle<bool>) -> Option<Watch> {
    let count = web_sys::window()?
        .document()?
        .get_element_by_id("scenario-summary")?;
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        // The newest entry says where the count is now.
        if let Some(entry) = entries
            .iter()
            .last()
            .and_then(|e| e.dyn_into::<IntersectionObserverEntry>().ok())
        {
            count_seen.set(entry.intersection_ratio() >= WHOLLY_SEEN_RATIO_MIN);
        }
    });
    let options = IntersectionObserverInit::new();
    options.set_threshold(&JsValue::from_f64(WHOLLY_SEEN_RATIO_MIN));
    let observer =
        IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options).ok()?;
    observer.observe(&count);
    Some((observer, callback))
}

/// How much of the count must be on the screen for it to count as seen:
/// all of it (a browser may report a hair under 1 for a box wholly inside).
const WHOLLY_SEEN_RATIO_MIN: f64 = 0.99;
