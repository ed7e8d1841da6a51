//! The document around the app: its title names the open exercise, and its
//! `data-theme` follows the theme in force (which the stylesheet and the
//! editors read). Only the learner's own choice is remembered in storage.

use crate::state::{Action, Playground, Setting, Theme};
use crate::{editor, storage};
use yew::prelude::*;

#[hook]
pub fn use_document(playground: &UseReducerHandle<Playground>) {
    let title = playground.exercise().map(|e| e.title.clone());
    use_effect_with(title, |title| {
        if let (Some(title), Some(document)) = (title, web_sys::window().and_then(|w| w.document()))
        {
            document.set_title(&format!("{title} · fencelab"));
        }
    });
    use_effect_with(playground.theme, |theme| apply_theme(*theme));
}

/// Applies `theme` to the document (its `data-theme`, which the stylesheet
/// and the editors follow; none follows the system).
///
/// It does not remember it: the theme in force is not always the learner's
/// choice. A prerendered page starts as the system's until it hydrates with
/// the saved one (saving it then would forget the choice for a learner who
/// reloads before hydration ends), and an embedding page's `?theme=` is the
/// host's choice, not the learner's.
pub(crate) fn apply_theme(theme: Theme) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = match theme {
            Theme::System => root.remove_attribute("data-theme"),
            chosen => root.set_attribute("data-theme", chosen.name()),
        };
    }
    editor::refresh_scheme();
}

/// The theme switch's callback: the learner's choice, remembered.
pub fn on_theme(dispatcher: UseReducerDispatcher<Playground>) -> Callback<Theme> {
    Callback::from(move |theme: Theme| {
        storage::save_theme(theme);
        dispatcher.dispatch(Action::SetTheme(theme));
    })
}
