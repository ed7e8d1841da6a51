//! The exercise's title, the page's one h1, and its narrative: Markdown with
//! raw HTML stripped (markdown.rs), which the learner may fold away once
//! read, to keep the editor and the verdicts in sight. In an embed the story
//! starts folded, its first sentence standing as the fold's label: the
//! course page around the frame tells the story too, and the frame's height
//! belongs to the editor and the verdicts.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrativeProps {
    pub title: AttrValue,
    pub markdown: AttrValue,
    /// Whether the story starts folded under its first sentence (an embed).
    #[prop_or_default]
    pub folded: bool,
}

#[function_component(Narrative)]
pub fn narrative(props: &NarrativeProps) -> Html {
    let html = crate::markdown::to_safe_html(&props.markdown);
    let label = if props.folded {
        crate::markdown::first_sentence(&props.markdown)
    } else {
        String::new()
    };
    html! {
        <section class="narrative" aria-labelledby="exercise-title">
            <h1 id="exercise-title">{ props.title.clone() }</h1>
            if props.folded {
                <details class="narrative-text story-folded">
                    <summary title={label.clone()}><span class="story-lead">{ label }</span></summary>
                    { Html::from_html_unchecked(AttrValue::from(html)) }
                </details>
            } else {
                <details class="narrative-text" open=true>
                    <summary>{ "The story" }</summary>
                    { Html::from_html_unchecked(AttrValue::from(html)) }
                </details>
            }
        </section>
    }
}
