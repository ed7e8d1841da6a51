//! After a solve: the page says so in words, and offers what comes next,
//! the next exercise in the list, or the next lesson at a lesson's end
//! (`state::next_exercise`). Drawn under the verdicts, so its arrival moves
//! neither the editor nor the verdicts.

use crate::state::Next;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SolvedProps {
    /// The next exercise's title, with where it stands, if there is one.
    pub next: Option<(Next, AttrValue)>,
    /// How many exercises are solved, and of how many, as the exercise
    /// list counts them (`state::solved_count`).
    pub solved: usize,
    pub total: usize,
    pub on_open: Callback<usize>,
}

/// The next step's button label: the next exercise, or the next lesson's
/// first exercise.
pub fn next_label(next: &Next, title: &str) -> String {
    match &next.new_lesson {
        Some(lesson) => format!("Next lesson, {lesson}: {title}"),
        None => format!("Next exercise: {title}"),
    }
}

/// What the page says after the last exercise in the list's order, from the
/// list's own count: every lesson is done only when every exercise, the
/// bundled ones and the site's own, is solved.
pub fn last_words(solved: usize, total: usize) -> String {
    if solved >= total {
        "That was the last exercise: every lesson is done.".to_string()
    } else {
        format!(
            "That was the last exercise in the list, but not every lesson is done: \
             {solved} of {total} solved."
        )
    }
}

#[function_component(Solved)]
pub fn solved(props: &SolvedProps) -> Html {
    html! {
        <section class="solved" id="solved" aria-labelledby="solved-title">
            <h2 id="solved-title">{ "Solved: your text passes every scenario." }</h2>
            if let Some((next, title)) = &props.next {
                <button class="next-exercise" id="next-exercise"
                    onclick={props.on_open.reform({ let index = next.index; move |_: MouseEvent| index })}>
                    { format!("{} →", next_label(next, title)) }
                </button>
            } else {
                <p>{ last_words(props.solved, props.total) }</p>
            }
        </section>
    }
}
