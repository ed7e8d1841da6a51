//! The page's masthead: the brand, what fencelab is for, the engine's
//! status, and the page's settings (the theme, and where the focus goes as
//! another exercise opens). Not drawn in an embed.

use crate::components::setting_switch::SettingSwitch;
use crate::state::{OpenFocus, Theme};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MastheadProps {
    /// The worker's SQLite, once it has started.
    pub sqlite_version: Option<String>,
    pub theme: Theme,
    pub open_focus: OpenFocus,
    pub on_theme: Callback<Theme>,
    pub on_open_focus: Callback<OpenFocus>,
}

#[function_component(Masthead)]
pub fn masthead(props: &MastheadProps) -> Html {
    html! {
        <header class="masthead">
            <p class="brand">{ "fencelab" }</p>
            <p class="tagline">{ "Why authority needs a fence: break a claim, watch the counterexample, repair it." }</p>
            // One sentence from the first frame, the version's place
            // kept (style.css), so its arrival moves nothing.
            // The version ends the sentence: the space kept for it
            // then leaves no gap before any word after it.
            <p class="engine-status">
                { "Checked in a worker in this tab, compiled to WebAssembly: " }
                { match &props.sqlite_version {
                    Some(v) => html! { <strong class="engine-sqlite" id="sqlite-version">{ format!("SQLite {v}") }</strong> },
                    None => html! { <strong class="engine-sqlite starting">{ "SQLite (starting)" }</strong> },
                } }
            </p>
            <SettingSwitch<Theme> id="theme" label="Theme" class="theme-switch" value={props.theme} on_change={props.on_theme.clone()} />
            <SettingSwitch<OpenFocus> id="open-focus" label="A new exercise focuses" class="open-focus-switch"
                value={props.open_focus} on_change={props.on_open_focus.clone()} />
        </header>
    }
}
