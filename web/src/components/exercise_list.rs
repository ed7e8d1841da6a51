//! The exercises, grouped by lesson, with the learner's progress.

use crate::state;
use crate::storage::Progress;
use fencelab_model::Exercise;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ExerciseListProps {
    pub exercises: Rc<Vec<Exercise>>,
    pub current: usize,
    /// The open exercise's progress, from the page's own state.
    pub current_progress: Progress,
    /// Every other exercise's progress, as saved.
    pub progress: BTreeMap<String, Progress>,
    pub on_open: Callback<usize>,
}

#[function_component(ExerciseList)]
pub fn exercise_list(props: &ExerciseListProps) -> Html {
    let groups = state::lessons(&props.exercises);
    html! {
        <nav class="exercise-list" aria-label="Exercises">
            { for groups.into_iter().map(|(lesson, indices)| html! {
                <section class="lesson">
                    <h2 class="lesson-title">{ lesson }</h2>
                    <ol>
                        { for indices.into_iter().map(|i| {
                            let exercise = &props.exercises[i];
                            let Progress { caught, passing } = if i == props.current {
                                props.current_progress
                            } else {
                                props.progress.get(&exercise.id).copied().unwrap_or_default()
                            };
                            let open = props.on_open.reform(move |_: MouseEvent| i);
                            let current = i == props.current;
                            html! {
                                <li>
                                    <button class={classes!("exercise-link", current.then_some("current"))}
                                        aria-current={current.then_some("page")}
                                        data-exercise={exercise.id.clone()}
                                        onclick={open}>
                                        <span class="exercise-title">{ exercise.title.clone() }</span>
                                        <span class="progress">
                                            { if passing { "✓ passes · " } else { "" } }
                                            { format!("{caught} of {} broken variants caught", exercise.mutants.len()) }
                                        </span>
                                    </button>
                                </li>
                            }
                        }) }
                    </ol>
                </section>
            }) }
        </nav>
    }
}
