//! The exercise's narrative: Markdown with raw HTML stripped (markdown.rs).

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
            <h2 id="exercise-title">{ props.title.clone() }</h2>
            { Html::from_html_unchecked(AttrValue::from(html)) }
        </section>
    }
}
