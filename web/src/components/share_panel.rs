//! Share: a link in a text field (and copied), carrying the exercise, the
//! edited procedures, and the selected scenario and schedule.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SharePanelProps {
    pub url: Option<String>,
    pub on_share: Callback<()>,
}

#[function_component(SharePanel)]
pub fn share_panel(props: &SharePanelProps) -> Html {
    let share = props.on_share.reform(|_: MouseEvent| ());
    {
        use_effect_with(props.url.clone(), |url| {
            if let (Some(url), Some(window)) = (url, web_sys::window()) {
                // Copying may be refused (no permission); the field still shows it.
                let _ = window.navigator().clipboard().write_text(url);
            }
        });
    }
    html! {
        <section class="share" aria-labelledby="share-title">
            <h2 id="share-title" class="visually-hidden">{ "Share" }</h2>
            <button id="share" onclick={share}>{ "Share this version" }</button>
            if let Some(url) = &props.url {
                <label for="share-url">{ "Link (copied to the clipboard when allowed):" }</label>
                <input id="share-url" type="text" readonly=true value={url.clone()} />
            }
        </section>
    }
}
