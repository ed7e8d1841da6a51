//! One of the page's settings as a labelled select, in the masthead: the
//! colour theme (as the system's `prefers-color-scheme`, light or dark;
//! the app's effect sets the document's `data-theme`, which the stylesheet
//! and the editors follow) and where the focus goes as another exercise
//! opens. The choice is remembered by the callback's owner (storage.rs).

use crate::state::Setting;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SettingSwitchProps<T: Setting> {
    /// The select's id, which its label names.
    pub id: AttrValue,
    pub label: AttrValue,
    /// The paragraph's class, for style.css.
    pub class: AttrValue,
    pub value: T,
    pub on_change: Callback<T>,
}

#[function_component(SettingSwitch)]
pub fn setting_switch<T: Setting>(props: &SettingSwitchProps<T>) -> Html {
    let change = props.on_change.reform(|event: Event| {
        let name = event
            .target_dyn_into::<HtmlSelectElement>()
            .map(|select| select.value())
            .unwrap_or_default();
        T::from_name(&name)
    });
    html! {
        <p class={props.class.clone()}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <select id={props.id.clone()} onchange={change}>
                { for T::ALL.iter().map(|value| html! {
                    <option value={value.name()} selected={*value == props.value}>{ value.label() }</option>
                }) }
            </select>
        </p>
    }
}
