//! Hints, revealed one at a time.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HintsProps {
    pub hints: Vec<String>,
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
                    <li class="hint">{ crate::components::hints::inline(h) }</li>
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

/// A hint's Markdown, inline, raw HTML stripped.
pub fn inline(markdown: &str) -> Html {
    let html = crate::markdown::to_safe_html(markdown);
    let html = html
        .trim()
        .trim_start_matches("<p>")
        .trim_end_matches("</p>")
        .to_string();
    Html::from_html_unchecked(AttrValue::from(html))
}
