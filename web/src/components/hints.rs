//! Hints, revealed one at a time.

use fencelab_model::prose::SafeHtml;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HintsProps {
    pub hints: Vec<SafeHtml>,
    pub shown: usize,
    pub on_more: Callback<()>,
}

#[function_component(Hints)]
pub fn hints(props: &HintsProps) -> Html {
    if props.hints.is_empty() {
        return html! {};
    }
    let total = props.hints.len();
    let more = props.on_more.reform(|_: MouseEvent| ());
    html! {
        <section class="hints" aria-labelledby="hints-title">
            <h2 id="hints-title">{ "Hints" }</h2>
            <ol aria-live="polite">
                { for props.hints.iter().take(props.shown).map(|h| html! {
                    <li class="hint">{ rendered(h) }</li>
                }) }
            </ol>
            if props.shown < total {
                <button id="show-hint" onclick={more}>{ format!("Show hint {} of {total}", props.shown + 1) }</button>
            } else {
                <p class="muted">{ "That was the last hint." }</p>
            }
        </section>
    }
}

/// Prose as the loader rendered it: safe by construction (no raw HTML, no
/// script links; fencelab_model::prose), so it is markup as it stands.
pub fn rendered(html: &SafeHtml) -> Html {
    Html::from_html_unchecked(AttrValue::from(html.as_str().to_string()))
}
