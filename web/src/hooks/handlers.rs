//! The callbacks the page's layout hands its components, each dispatching
//! one action; those that read the outside first (the page's address, the
//! theme, the focus on opening) come from their hooks' modules. Made anew
//! on every render of the app, as its components are.

use crate::hooks::{address, document};
use crate::state::{Action, HuntText, OpenFocus, Playground, Theme};
use yew::prelude::*;

#[derive(Clone, PartialEq)]
pub struct Handlers {
    pub actions: Callback<Action>,
    pub open: Callback<usize>,
    pub change: Callback<(String, String)>,
    pub counterexample: Callback<(String, u32, usize)>,
    pub step: Callback<usize>,
    pub step_by: Callback<isize>,
    pub replay: Callback<(String, String)>,
    pub share: Callback<()>,
    pub theme: Callback<Theme>,
    pub open_focus: Callback<OpenFocus>,
    pub start_from: Callback<bool>,
    pub hunt_start: Callback<HuntText>,
}

impl Handlers {
    /// `dispatch_edit` dispatches the editors' edits and posts their checks
    /// at once (`worker::use_worker`); `open_focus` changes and remembers
    /// where the focus goes as another exercise opens
    /// (`open_focus::use_open_focus`).
    pub fn new(
        playground: &UseReducerHandle<Playground>,
        dispatch_edit: &Callback<Action>,
        open_focus: Callback<OpenFocus>,
    ) -> Handlers {
        let actions = playground.dispatcher().to_callback();
        Handlers {
            open: actions.reform(Action::Open),
            change: dispatch_edit.reform(|(procedure, text)| Action::Edited { procedure, text }),
            counterexample: actions.reform(|(procedure, line, change)| {
                Action::ShowCounterexample {
                    procedure,
                    line,
                    change,
                }
            }),
            step: actions.reform(Action::Step),
            step_by: actions.reform(Action::StepBy),
            replay: actions.reform(|(scenario, schedule)| Action::Replay { scenario, schedule }),
            share: address::on_share(playground.dispatcher()),
            theme: document::on_theme(playground.dispatcher()),
            open_focus,
            start_from: actions.reform(Action::StartFromWorking),
            hunt_start: actions.reform(Action::HuntStart),
            actions,
        }
    }

    /// A callback that dispatches the action `make` builds from a name.
    pub fn text(&self, make: fn(String) -> Action) -> Callback<String> {
        self.actions.reform(make)
    }

    /// A callback that dispatches `action()`.
    pub fn unit(&self, action: fn() -> Action) -> Callback<()> {
        self.actions.reform(move |()| action())
    }
}
