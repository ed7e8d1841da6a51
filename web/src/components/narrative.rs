//! The exercise's title, the page's one h1, and its narrative: Markdown with
//! raw HTML stripped (markdown.rs), which the learner may fold away once
//! read, to keep the editor and the verdicts in sight.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrativeProps {
    pub title: AttrValue,
    pub markdown: AttrValue,
}

#[function_component(Narrative)]
pub fn narrative(props: &NarrativeProps) -> Html {
    let html = crate::markdown::to_safe_html(&props.markdown);
    html! {
        <section class="narrative" aria-labelledby="exercise-title">
            <h1 id="exercise-title">{ props.title.clone() }</h1>
            <details class="narrative-text" open=true>
                <summary>{ "The story" }</summary>
                { Html::from_html_unchecked(AttrValue::from(html)) }
            </details>
        </section>
    }
}
