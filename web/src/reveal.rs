//! The answer where the learner looks: after a scenario is chosen (or a
//! counterexample asked for arrives), the timeline's selected step, which is
//! where it broke, is scrolled to the middle of the timeline's own scroll box
//! and into the viewport, and the keyboard focus moves to the timeline; after
//! "Drive it yourself", the drive panel comes into view with the focus.
//!
//! These are the app's effects on the DOM, run after the render the model
//! asked for (`Model::focus_timeline`, `Model::focus_drive`). They move the
//! focus without letting the browser scroll for it, so the page moves only
//! as far as the step needs. Must never panic: a missing element is nothing
//! to reveal.

use wasm_bindgen::JsCast;
use web_sys::{Element, FocusOptions, HtmlElement, ScrollIntoViewOptions, ScrollLogicalPosition};

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

fn viewport_height() -> f64 {
    web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0)
}

/// Focuses `element` without the browser scrolling to it.
fn focus_in_place(element: &HtmlElement) {
    let options = FocusOptions::new();
    options.set_prevent_scroll(true);
    let _ = element.focus_with_options(&options);
}

/// Whether the span from `top` to `bottom` (viewport coordinates) is inside
/// the viewport.
fn in_viewport(top: f64, bottom: f64) -> bool {
    top >= 0.0 && bottom <= viewport_height()
}

fn scroll_into_view(element: &Element, block: ScrollLogicalPosition) {
    let options = ScrollIntoViewOptions::new();
    options.set_block(block);
    element.scroll_into_view_with_scroll_into_view_options(&options);
}

/// Brings the timeline's selected step (with the "broke here" note under
/// it) into view and moves the focus to the timeline.
pub fn timeline() {
    let Some(scroller) = document()
        .and_then(|d| d.query_selector(".timeline-scroll").ok().flatten())
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    else {
        return;
    };
    focus_in_place(&scroller);
    let Some(row) = scroller.query_selector("tr.event.selected").ok().flatten() else {
        return;
    };
    // The step and the note on where it broke belong together.
    let note = row
        .next_element_sibling()
        .filter(|next| next.class_list().contains("failing-note"));
    let top = row.get_bounding_client_rect().top();
    let bottom = note
        .as_ref()
        .unwrap_or(&row)
        .get_bounding_client_rect()
        .bottom();
    // Middle of the timeline's own scroll box (below its sticky header):
    // the steps before and after stay in sight.
    let scroller_box = scroller.get_bounding_client_rect();
    if scroller.scroll_height() > scroller.client_height() {
        let header = scroller
            .query_selector("thead")
            .ok()
            .flatten()
            .map_or(0.0, |h| h.get_bounding_client_rect().height());
        let room = f64::from(scroller.client_height()) - header;
        let span = bottom - top;
        let offset = top - scroller_box.top() - header + f64::from(scroller.scroll_top());
        let wanted = if span >= room {
            offset
        } else {
            offset - (room - span) / 2.0
        };
        scroller.set_scroll_top(wanted.max(0.0).round() as i32);
    }
    let top = row.get_bounding_client_rect().top();
    let bottom = note
        .as_ref()
        .unwrap_or(&row)
        .get_bounding_client_rect()
        .bottom();
    if !in_viewport(top, bottom) {
        scroll_into_view(&row, ScrollLogicalPosition::Center);
    }
}

/// Brings the drive panel into view and moves the focus to it.
pub fn drive() {
    let Some(panel) = document()
        .and_then(|d| d.get_element_by_id("drive"))
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    else {
        return;
    };
    focus_in_place(&panel);
    // To the top when it is low on the screen, so the timeline it grows
    // below it is in sight too.
    let rect = panel.get_bounding_client_rect();
    if !in_viewport(rect.top(), rect.bottom()) || rect.top() > viewport_height() / 2.0 {
        scroll_into_view(&panel, ScrollLogicalPosition::Start);
    }
}
