//! Bringing the answer into view (crate::reveal does the scrolling and the
//! focus): the timeline when a scenario was chosen or an asked-for
//! counterexample arrived, the selected step inside the timeline's box
//! whenever a timeline is shown, and the drive panel when a drive starts
//! (the learner's loop, once editing starts, is `editing.rs`'s). Also
//! whether the screen is a phone's, read once.

use crate::reveal;
use crate::state::Playground;
use yew::prelude::*;

#[hook]
pub fn use_reveal(playground: &UseReducerHandle<Playground>) {
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
        .shown()
        .map(|r| std::ptr::from_ref::<fencelab_model::report::ScenarioReport>(&r) as usize);
    use_effect_with((shown, playground.view.step()), |(shown, _)| {
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
