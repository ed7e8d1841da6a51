//! The exercise list's order: exercises grouped by lesson, in the order
//! they first appear, which exercise comes after a solved one, and how many
//! are solved (the list's count, which the page's last word after a solve
//! repeats).

use super::Progress;
use fencelab_model::Exercise;
use std::collections::BTreeMap;

/// Groups exercise indices by lesson, in first-appearance order.
pub fn lessons(exercises: &[Exercise]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, exercise) in exercises.iter().enumerate() {
        match groups
            .iter_mut()
            .find(|(lesson, _)| *lesson == exercise.lesson)
        {
            Some((_, list)) => list.push(i),
            None => groups.push((exercise.lesson.clone(), vec![i])),
        }
    }
    groups
}

/// The exercise after `current` in the list's order (lessons in order, each
/// lesson's exercises in order), and the lesson it opens when it begins
/// another: what the page offers once `current` is solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Next {
    pub index: usize,
    /// The next exercise's lesson, when it is not `current`'s.
    pub new_lesson: Option<String>,
}

/// What comes after exercise `current`; `None` after the last one.
pub fn next_exercise(exercises: &[Exercise], current: usize) -> Option<Next> {
    let order: Vec<usize> = lessons(exercises)
        .into_iter()
        .flat_map(|(_, indices)| indices)
        .collect();
    let at = order.iter().position(|&i| i == current)?;
    let index = *order.get(at + 1)?;
    let lesson = &exercises[index].lesson;
    Some(Next {
        index,
        new_lesson: (*lesson != exercises[current].lesson).then(|| lesson.clone()),
    })
}

/// Exercise `i`'s progress as the list shows it: the open one's (`current`)
/// from the page's own state, every other's as saved under its id.
pub fn progress_of(
    exercises: &[Exercise],
    current: usize,
    current_progress: Progress,
    saved: &BTreeMap<String, Progress>,
    i: usize,
) -> Progress {
    if i == current {
        current_progress
    } else {
        saved.get(&exercises[i].id).copied().unwrap_or_default()
    }
}

/// How many of `exercises` are solved, bundled and the site's own alike,
/// each by [`progress_of`]: the list's "N of M solved".
pub fn solved_count(
    exercises: &[Exercise],
    current: usize,
    current_progress: Progress,
    saved: &BTreeMap<String, Progress>,
) -> usize {
    (0..exercises.len())
        .filter(|&i| progress_of(exercises, current, current_progress, saved, i).solved)
        .count()
}
