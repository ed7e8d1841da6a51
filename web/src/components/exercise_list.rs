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

/// What the list says of an exercise's progress: solved (the learner's own
/// text passes every scenario), how many of its broken variants the
/// learner has seen fail, and how many breaks the learner found by hand in
/// challenges.
pub fn progress_text(progress: Progress, variants: usize) -> String {
    let solved = if progress.solved {
        "✓ solved"
    } else {
        "not solved yet"
    };
    let text = match variants {
        0 => solved.to_string(),
        n => format!(
            "{solved} · {} of {n} broken variant{} seen",
            progress.seen,
            if n == 1 { "" } else { "s" }
        ),
    };
    // Breaks found by hand are their own progress, never a repair.
    match progress.hunted {
        0 => text,
        1 => format!("{text} · 1 break found"),
        n => format!("{text} · {n} breaks found"),
    }
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
                            let progress = if i == props.current {
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
                                        <span class="progress">{ progress_text(progress, exercise.mutants.len()) }</span>
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_as_a_sentence_with_its_plurals() {
        let progress = |seen, solved| Progress {
            seen,
            solved,
            hunted: 0,
        };
        assert_eq!(
            progress_text(progress(0, false), 1),
            "not solved yet · 0 of 1 broken variant seen"
        );
        assert_eq!(
            progress_text(progress(1, true), 2),
            "✓ solved · 1 of 2 broken variants seen"
        );
        assert_eq!(progress_text(progress(0, true), 0), "✓ solved");
        let hunted = |hunted| Progress {
            hunted,
            ..progress(0, false)
        };
        assert_eq!(
            progress_text(hunted(1), 0),
            "not solved yet · 1 break found"
        );
        assert_eq!(
            progress_text(hunted(3), 2),
            "not solved yet · 0 of 2 broken variants seen · 3 breaks found"
        );
    }
}
