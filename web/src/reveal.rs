//! The answer where the learner looks: after a scenario is chosen (or a
//! counterexample asked for arrives), the timeline's selected step, which is
//! where it broke, is scrolled to the middle of the timeline's own scroll box
//! and into the viewport, and the keyboard focus moves to the timeline; after
//! "Drive it yourself", the drive panel comes into view with the focus.
//! Whenever a timeline is shown at all (the first open, a restored link, the
//! end of a drive), its selected step is scrolled into view inside its own
//! box, the page and the focus left where they are ([`step_in_box`]). With
//! the cursor in an editor, the editors and the verdicts (the loop, which
//! style.css fits to one screen) are brought wholly into view ([`work_loop`]).
//! When the learner goes to another exercise, it opens at its top with the
//! focus on its title ([`title`]), or, by the learner's choice
//! (`OpenFocus`), with the cursor in its first editor once the editors are
//! there ([`first_editor`]), the page left at the exercise's top.
//!
//! These are the app's effects on the DOM, run after the render the playground
//! asked for (`Playground::focus_timeline`, `Playground::focus_drive`,
//! `Playground::focus_title`). They move the
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

/// The timeline's own scroll box.
fn timeline_box() -> Option<HtmlElement> {
    document()?
        .query_selector(".timeline-scroll")
        .ok()
        .flatten()?
        .dyn_into::<HtmlElement>()
        .ok()
}

/// The selected step's row in `scroller` and the note on where it broke
/// under it (the step and the note belong together).
fn selected_step(scroller: &HtmlElement) -> Option<(Element, Option<Element>)> {
    let row = scroller
        .query_selector("tr.event.selected")
        .ok()
        .flatten()?;
    let note = row
        .next_element_sibling()
        .filter(|next| next.class_list().contains("failing-note"));
    Some((row, note))
}

/// The span of the step and its note, in viewport coordinates.
fn span(row: &Element, note: Option<&Element>) -> (f64, f64) {
    let top = row.get_bounding_client_rect().top();
    let bottom = note.unwrap_or(row).get_bounding_client_rect().bottom();
    (top, bottom)
}

/// The height of the timeline's sticky header, which covers the box's top.
fn header_height(scroller: &HtmlElement) -> f64 {
    scroller
        .query_selector("thead")
        .ok()
        .flatten()
        .map_or(0.0, |h| h.get_bounding_client_rect().height())
}

/// Scrolls the timeline's own box so the step sits in its middle (below
/// its sticky header): the steps before and after stay in sight.
fn center_in_box(scroller: &HtmlElement, row: &Element, note: Option<&Element>) {
    if scroller.scroll_height() <= scroller.client_height() {
        return;
    }
    let (top, bottom) = span(row, note);
    let header = header_height(scroller);
    let room = f64::from(scroller.client_height()) - header;
    let span = bottom - top;
    let offset =
        top - scroller.get_bounding_client_rect().top() - header + f64::from(scroller.scroll_top());
    let wanted = if span >= room {
        offset
    } else {
        offset - (room - span) / 2.0
    };
    scroller.set_scroll_top(wanted.max(0.0).round() as i32);
}

/// Brings the timeline's selected step (with the "broke here" note under
/// it) into view and moves the focus to the timeline.
pub fn timeline() {
    let Some(scroller) = timeline_box() else {
        return;
    };
    focus_in_place(&scroller);
    let Some((row, note)) = selected_step(&scroller) else {
        return;
    };
    center_in_box(&scroller, &row, note.as_ref());
    let (top, bottom) = span(&row, note.as_ref());
    if !in_viewport(top, bottom) {
        scroll_into_view(&row, ScrollLogicalPosition::Center);
    }
}

/// Brings the timeline's selected step into view inside the timeline's own
/// box when it is not already wholly there, moving neither the page nor the
/// focus: a timeline shown without being asked for (the first open, a
/// restored link, a drive's end) opens where it broke, not at step 1.
pub fn step_in_box() {
    let Some(scroller) = timeline_box() else {
        return;
    };
    let Some((row, note)) = selected_step(&scroller) else {
        return;
    };
    let (top, bottom) = span(&row, note.as_ref());
    let inner = scroller.get_bounding_client_rect();
    let visible_top = inner.top() + f64::from(scroller.client_top()) + header_height(&scroller);
    let visible_bottom =
        inner.top() + f64::from(scroller.client_top()) + f64::from(scroller.client_height());
    if top < visible_top || bottom > visible_bottom {
        center_in_box(&scroller, &row, note.as_ref());
    }
}

/// With the cursor in an editor: the editors and the verdicts (`.loop`)
/// wholly in view, moving the page as little as that takes. style.css keeps
/// the loop within one screen, so the verdict count and every verdict line
/// are in sight while the learner types.
pub fn work_loop() {
    let Some(block) = document().and_then(|d| d.query_selector(".loop").ok().flatten()) else {
        return;
    };
    let rect = block.get_bounding_client_rect();
    if !in_viewport(rect.top(), rect.bottom()) {
        scroll_into_view(&block, ScrollLogicalPosition::Nearest);
    }
}

/// Whether the page is laid out for a phone (style.css's narrow layout,
/// `max-width: 760px`): the story and the exercise list start folded there,
/// so the first screen holds the title, the story's first sentence and the
/// editor.
pub fn narrow_screen() -> bool {
    // Rendered natively (web/prerender): a wide screen's page.
    cfg!(target_arch = "wasm32")
        && web_sys::window()
            .and_then(|w| w.inner_width().ok())
            .and_then(|w| w.as_f64())
            .is_some_and(|w| w <= NARROW_WIDTH_PX_MAX)
}

/// style.css's phone layout applies up to this width (its `max-width: 760px`).
const NARROW_WIDTH_PX_MAX: f64 = 760.0;

/// A new exercise opens at its top: the page scrolled to its own top, or
/// as far as the title needs (below an unfolded exercise list on a phone),
/// and the focus on the title, so a screen reader starts there and Tab
/// goes on into the exercise.
pub fn title() {
    let Some(title) = document()
        .and_then(|d| d.get_element_by_id("exercise-title"))
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    else {
        return;
    };
    if let Some(window) = web_sys::window() {
        window.scroll_to_with_x_and_y(0.0, 0.0);
    }
    let rect = title.get_bounding_client_rect();
    if !in_viewport(rect.top(), rect.bottom()) {
        scroll_into_view(&title, ScrollLogicalPosition::Start);
    }
    focus_in_place(&title);
}

/// Puts the cursor in the first editable procedure's editor (CodeMirror's
/// content element), moving neither the page nor the editor's own scroll:
/// the exercise stays open at its top, where [`title`] brought it. Nothing
/// happens when there is no live editor yet. The focus this moves is not
/// the learner's own: editing (`hooks/editing.rs`, which brings the loop
/// into view) waits for their first key, as after a click.
pub fn first_editor() {
    let Some(content) = document()
        .and_then(|d| d.query_selector(".loop .editor .cm-content").ok().flatten())
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    else {
        return;
    };
    PLACING.set(true);
    focus_in_place(&content);
    PLACING.set(false);
}

thread_local! {
    /// Whether the focus is being moved by [`first_editor`]: its `focusin`
    /// is dispatched while the flag is up.
    static PLACING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the focus arriving now was moved there by the page as an
/// exercise opened ([`first_editor`]), not by the learner.
pub fn placing() -> bool {
    PLACING.get()
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
