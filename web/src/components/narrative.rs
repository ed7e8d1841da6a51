//! The exercise's title, the page's one h1, and its narrative, as the loader
//! rendered it (fencelab_model::prose), which the learner may fold away once
//! read, to keep the editor and the verdicts in sight. In an embed and on a
//! phone the story starts folded, its first sentence standing as the fold's
//! label: the course page around the frame tells the story too, and a small
//! screen's height belongs to the editor and the verdicts. The title takes
//! the focus when the learner goes to another exercise.

use fencelab_model::prose;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrativeProps {
    pub title: AttrValue,
    pub story: prose::Narrative,
    /// Whether the story starts folded under its first sentence (an embed).
    #[prop_or_default]
    pub folded: bool,
}

#[function_component(Narrative)]
pub fn narrative(props: &NarrativeProps) -> Html {
    // Both labels are always there, and style.css shows one: a page
    // prerendered for a wide screen is folded on a phone before its first
    // paint (web/first-paint.js) by its attributes alone.
    let lead = props.story.lead.clone();
    let summary = html! {
        <summary title={props.folded.then(|| lead.clone())}>
            <span class="story-label">{ "The story" }</span>
            <span class="story-lead">{ lead }</span>
        </summary>
    };
    html! {
        <section class="narrative" aria-labelledby="exercise-title">
            // Focusable by script alone: a new exercise opens with the
            // focus here (`reveal::title`), as accessible sites do.
            <h1 id="exercise-title" tabindex="-1">{ props.title.clone() }</h1>
            <details class={classes!("narrative-text", props.folded.then_some("story-folded"))} open={!props.folded}>
                { summary }
                { super::hints::rendered(&props.story.html) }
            </details>
        </section>
    }
}
