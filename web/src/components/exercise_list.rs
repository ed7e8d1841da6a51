//! The exercises, grouped by lesson, with the learner's progress, numbered
//! through the whole course (a lesson's list goes on from the last one's).
//! On a phone the list starts folded under one line (how many are solved),
//! a tap away, so the first screen belongs to the exercise.

use crate::state::Progress;
use crate::state::{self, SharedExercises};
use std::collections::BTreeMap;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ExerciseListProps {
    pub exercises: SharedExercises,
    pub current: usize,
    /// The open exercise's progress, from the page's own state.
    pub current_progress: Progress,
    /// Every other exercise's progress, as saved.
    pub progress: BTreeMap<String, Progress>,
    pub on_open: Callback<usize>,
    /// Whether the list starts folded under its summary (a phone).
    #[prop_or_default]
    pub folded: bool,
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
    let solved = state::solved_count(
        &props.exercises,
        props.current,
        props.current_progress,
        &props.progress,
    );
    // Each lesson's list starts where the one before it ended.
    let starts: Vec<usize> = groups
        .iter()
        .scan(1, |next, (_, indices)| {
            let start = *next;
            *next += indices.len();
            Some(start)
        })
        .collect();
    html! {
        <nav class="exercise-list" aria-label="Exercises">
            <details class="exercise-menu" open={!props.folded}>
                <summary class="exercise-menu-summary">
                    { format!("Exercises · {solved} of {} solved", props.exercises.len()) }
                </summary>
            { for groups.into_iter().zip(starts).map(|((lesson, indices), start)| html! {
                <section class="lesson">
                    <h2 class="lesson-title">{ lesson }</h2>
                    <ol start={start.to_string()}>
                        { for indices.into_iter().map(|i| {
                            let exercise = &props.exercises[i];
                            let progress = progress_of(props, i);
                            let open = props.on_open.reform(move |_: MouseEvent| i);
                            let current = i == props.current;
                            html! {
                                <li>
                                    <button class={classes!("exercise-link", current.then_some("current"))}
                                        aria-current={current.then_some("page")}
                                        data-exercise={exercise.id.clone()}
                                        onclick={open}>
                                        <span class="exercise-title">{ exercise.title.clone() }</span>
                                        <span class="progress">{ progress_text(progress, exercise.variants.len()) }</span>
                                    </button>
                                </li>
                            }
                        }) }
                    </ol>
                </section>
            }) }
            </details>
        </nav>
    }
}

/// Exercise `i`'s progress: the open one's from the page's own state, the
/// others' as saved.
fn progress_of(props: &ExerciseListProps, i: usize) -> Progress {
    state::progress_of(
        &props.exercises,
        props.current,
        props.current_progress,
        &props.progress,
        i,
    )
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
