//! The mission's other flow, where an exercise offers it: start from the
//! working version (the references), break it, and watch a scenario fail.
//! The choice is the learner's, per exercise, and is remembered with the
//! work; either way Reset goes back to the chosen start.

use fencelab_model::prose::SafeHtml;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WorkingVersionProps {
    /// What the exercise says the learner does from the working version
    /// (a line of Markdown, rendered by the loader).
    pub offer: SafeHtml,
    /// The learner started from the working version.
    pub working: bool,
    /// Start from the working version (`true`) or the starting text.
    pub on_choose: Callback<bool>,
}

#[function_component(WorkingVersion)]
pub fn working_version(props: &WorkingVersionProps) -> Html {
    let working = props.working;
    let choose = props.on_choose.reform(move |_: MouseEvent| !working);
    html! {
        <section class="working-version" aria-labelledby="working-version-title">
            <h2 id="working-version-title" class="visually-hidden">{ "Where to start" }</h2>
            <p>{ crate::components::hints::rendered(&props.offer) }</p>
            <button id="start-from" aria-pressed={working.to_string()} onclick={choose}>
                { if working { "Go back to the starting text" } else { "Start from the working version" } }
            </button>
            if working {
                <span class="muted">{ " You started from the working version: it passes as given, and counts as solved once it is your own edit." }</span>
            }
        </section>
    }
}
