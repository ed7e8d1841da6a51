//! Bringing the answer into view (crate::reveal does the scrolling and the
//! focus): the timeline when a scenario was chosen or an asked-for
//! counterexample arrived, the selected step inside the timeline's box
//! whenever a timeline is shown, and the drive panel when a drive starts
//! (the learner's loop, once editing starts, is `editing.rs`'s). Also
//! whether the screen is a phone's, read once.

use crate::reveal;
use crate::state::{OpenFocus, Playground};
use yew::prelude::*;

/// `open_focus`: where the learner wants the focus as another exercise
/// opens (`hooks/open_focus.rs`).
#[hook]
pub fn use_reveal(playground: &UseReducerHandle<Playground>, open_focus: OpenFocus) {
    // The timeline takes the keyboard focus, so its steps are one arrow
    // key away.
    use_effect_with(playground.focus_timeline, |count| {
        if *count > 0 {
            reveal::timeline();
        }
    });
    // Its report, or the step selected in it, changed: the first open, a
    // restored link, a drive's end. The step selected is where it broke.
    let shown = playground
        .open
        .shown()
        .map(|r| std::ptr::from_ref::<fencelab_model::report::ScenarioReport>(&r) as usize);
    use_effect_with((shown, playground.open.view.step()), |(shown, _)| {
        if shown.is_some() {
            reveal::step_in_box();
        }
    });
    // Another exercise, chosen or gone Back or Forward to: its top, its
    // title focused.
    use_effect_with(playground.focus_title, |count| {
        if *count > 0 {
            reveal::title();
        }
    });
    // Or, by the learner's choice, the cursor in its first editor: once
    // the saved work is read and the editors are drawn (a child's effects,
    // CodeMirror's creation among them, run before this one's), once per
    // opening; a choice changed later moves nothing.
    let opened = use_mut_ref(|| 0_u64);
    let settled = playground.open.opening.is_none() && playground.exercise().is_some();
    use_effect_with(
        (playground.focus_title, settled, open_focus),
        move |(count, settled, open_focus)| {
            if *settled && *count > *opened.borrow() {
                *opened.borrow_mut() = *count;
                if *open_focus == OpenFocus::Editor {
                    reveal::first_editor();
                }
            }
        },
    );
    // "Drive it yourself": the drive panel comes into view with the focus.
    use_effect_with(playground.focus_drive, |count| {
        if *count > 0 {
            reveal::drive();
        }
    });
}

/// Whether this is a phone's first screen (the story and the exercise list
/// start folded), read once. A prerendered page was rendered for a wide
/// screen, and web/first-paint.js folds it on a phone before its first
/// paint, so hydrating renders the same page either way.
#[hook]
pub fn use_narrow_screen() -> bool {
    *use_state(reveal::narrow_screen)
}
