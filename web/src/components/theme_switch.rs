//! The colour theme: as the system's (`prefers-color-scheme`), light or
//! dark. The choice is remembered (the app's effect stores it and sets the
//! document's `data-theme`, which the stylesheet and the editors follow).

use crate::state::Theme;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ThemeSwitchProps {
    pub theme: Theme,
    pub on_change: Callback<Theme>,
}

#[function_component(ThemeSwitch)]
pub fn theme_switch(props: &ThemeSwitchProps) -> Html {
    let change = props.on_change.reform(|event: Event| {
        let name = event
            .target_dyn_into::<HtmlSelectElement>()
            .map(|select| select.value())
            .unwrap_or_default();
        Theme::from_name(&name)
    });
    html! {
        <p class="theme-switch">
            <label for="theme">{ "Theme" }</label>
            <select id="theme" onchange={change}>
                { for Theme::ALL.into_iter().map(|theme| html! {
                    <option value={theme.name()} selected={theme == props.theme}>{ theme.label() }</option>
                }) }
            </select>
        </p>
    }
}
