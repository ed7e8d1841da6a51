//! Honest progress: solved only when the learner's own text passes every
//! scenario; a broken variant the learner loads counts as seen (when it
//! fails), never as anything the learner solved; and the working version an
//! exercise offers is a starting point, remembered, not a solution. A solve
//! is kept while the learner looks at a variant, a challenge or a hint, and
//! after a reload, until Reset; the learner's text those replace is one
//! click away ("Restore your text").

use super::*;

const SESSION: &str = "session-incarnations";

#[test]
fn clicking_a_variant_never_marks_anything_solved() {
    let mut playground = opened();
    let names: Vec<String> = playground
        .exercise()
        .map(|e| e.variants.iter().map(|m| m.name.clone()).collect())
        .unwrap_or_default();
    assert!(names.len() >= 2);
    for (i, name) in names.iter().enumerate() {
        act(&mut playground, Action::LoadVariant(name.clone()));
        assert_eq!(playground.open.given, Some(Given::Variant(name.clone())));
        // Whatever the scenarios say of the variant, passing or failing.
        for fails in [false, true] {
            check_answered(&mut playground, claim_report(fails));
            assert!(!playground.solved(), "{name}: a variant is never solved");
            assert!(!playground.current_progress().solved, "{name}");
            assert!(
                !playground.saved().passing,
                "{name}: nothing solved is saved"
            );
        }
        assert_eq!(playground.open.seen.len(), i + 1, "{name} was seen failing");
        assert!(
            playground.progress.is_empty(),
            "no other exercise's progress moves"
        );
    }
    assert_eq!(
        playground.current_progress(),
        Progress {
            seen: names.len(),
            solved: false,
            hunted: 0,
        }
    );
    // The learner's own edit makes the texts theirs again.
    act(
        &mut playground,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- mine again".into(),
        },
    );
    check_answered(&mut playground, claim_report(false));
    assert!(playground.solved());
}

/// The claim exercise solved by the learner's own text.
fn solved() -> Playground {
    let mut playground = edited();
    check_answered(&mut playground, claim_report(false));
    assert!(playground.solved(), "the learner's own text passes");
    playground
}

#[test]
fn a_solve_is_kept_while_a_variant_a_challenge_or_a_hint_is_looked_at() {
    let mut playground = solved();
    let own = playground.open.texts.clone();
    let solved_progress = Progress {
        seen: 0,
        solved: true,
        hunted: 0,
    };
    assert_eq!(playground.current_progress(), solved_progress);

    act(
        &mut playground,
        Action::LoadVariant("read, then write".into()),
    );
    assert_eq!(playground.open.own_aside.as_ref(), Some(&own), "set aside");
    check_answered(&mut playground, claim_report(true));
    assert!(
        !playground.solved(),
        "the variant in the editor is not solved"
    );
    assert!(playground.current_progress().solved, "the solve is kept");
    assert!(playground.saved().passing, "and saved");
    assert_eq!(playground.saved().own_aside.as_ref(), Some(&own));

    act(&mut playground, Action::ShowHint);
    act(
        &mut playground,
        Action::HuntStart(HuntText::Variant("read again right before writing".into())),
    );
    check_answered(&mut playground, claim_report(true));
    assert!(playground.current_progress().solved);
    assert_eq!(
        playground.open.own_aside.as_ref(),
        Some(&own),
        "a page-given text replaced is not the learner's: theirs stays aside"
    );

    let generation = playground.open.replace.generation;
    act(&mut playground, Action::RestoreOwn);
    assert_eq!(playground.open.texts, own);
    assert_eq!(
        playground.open.replace.texts, own,
        "through the editor, undoably"
    );
    assert_eq!(playground.open.replace.generation, generation + 1);
    assert_eq!(
        (
            playground.open.given.clone(),
            playground.open.own_aside.clone()
        ),
        (None, None)
    );
    assert_eq!(playground.open.loaded_variant, None);
    assert_eq!(playground.open.challenge, None);
    check_answered(&mut playground, claim_report(false));
    assert!(playground.solved());
}

#[test]
fn reset_starts_the_exercise_over_and_the_learners_text_stays_one_click_away() {
    let mut playground = solved();
    let own = playground.open.texts.clone();
    act(&mut playground, Action::Reset);
    assert_eq!(playground.open.texts, playground.starts());
    assert!(
        !playground.current_progress().solved,
        "Reset forgets the solve"
    );
    assert!(!playground.saved().passing);
    assert!(playground.announcement.contains("Restore your text"));
    check_answered(&mut playground, claim_report(true));
    assert!(!playground.current_progress().solved);
    act(&mut playground, Action::RestoreOwn);
    assert_eq!(playground.open.texts, own);
    check_answered(&mut playground, claim_report(false));
    assert!(playground.current_progress().solved, "solved again");
}

#[test]
fn a_kept_solve_and_the_text_set_aside_come_back_after_a_reload() {
    let mut playground = solved();
    let own = playground.open.texts.clone();
    act(
        &mut playground,
        Action::LoadVariant("read, then write".into()),
    );
    let saved = playground.saved();
    // What storage keeps is what the page reads back.
    let text = serde_json::to_string(&saved).expect("saved work serializes");
    let read = Saved::parse(&text).expect("and reads back");

    let mut reloaded = started("");
    act(
        &mut reloaded,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Saved(read),
        },
    );
    assert!(
        reloaded.current_progress().solved,
        "solved before any check"
    );
    assert_eq!(reloaded.open.own_aside.as_ref(), Some(&own));
    act(&mut reloaded, Action::RestoreOwn);
    assert_eq!(reloaded.open.texts, own);
    assert_eq!(reloaded.open.given, None);
}

#[test]
fn with_nothing_of_the_learners_set_aside_there_is_nothing_to_restore() {
    let mut playground = opened();
    act(
        &mut playground,
        Action::LoadVariant("read, then write".into()),
    );
    let texts = playground.open.texts.clone();
    act(&mut playground, Action::RestoreOwn);
    assert_eq!(playground.open.texts, texts);
    assert_eq!(playground.open.own_aside, None);
}

#[test]
fn the_starting_text_is_not_the_learners_own_until_edited() {
    let mut playground = opened();
    assert_eq!(playground.open.given, Some(Given::Start));
    check_answered(&mut playground, claim_report(false));
    assert!(playground.open.passes());
    assert!(
        !playground.solved(),
        "a passing starting text was not the learner's work"
    );
    act(&mut playground, Action::Reset);
    assert_eq!(playground.open.given, Some(Given::Start));
}

/// The session exercise, opened with nothing saved.
fn session() -> Playground {
    let mut playground = started("");
    let index = playground
        .exercises
        .iter()
        .position(|e| e.id == SESSION)
        .expect("the session exercise");
    act(&mut playground, Action::Open(index));
    act(
        &mut playground,
        Action::SavedWorkRead {
            exercise: SESSION.into(),
            loaded: Loaded::Nothing,
        },
    );
    playground
}

#[test]
fn the_working_version_is_a_remembered_start_and_never_solved_as_given() {
    let mut playground = session();
    assert!(
        playground
            .exercise()
            .and_then(|e| e.working_version.as_ref())
            .is_some()
    );
    act(&mut playground, Action::StartFromWorking(true));
    assert!(playground.open.working);
    assert_eq!(playground.open.texts, playground.working_texts());
    assert_ne!(playground.open.texts, playground.starts());
    assert_eq!(
        playground.open.replace.texts, playground.open.texts,
        "through the editors, undoably"
    );
    assert_eq!(playground.open.given, Some(Given::WorkingVersion));
    let passing = ExerciseReport::new(SESSION, Vec::new());
    check_answered(&mut playground, passing.clone());
    assert!(playground.open.passes() && !playground.solved());

    // Reset goes back to the chosen start, and the choice is saved.
    act(
        &mut playground,
        Action::Edited {
            procedure: "finish_session".into(),
            text: "-- broken".into(),
        },
    );
    act(&mut playground, Action::Reset);
    assert_eq!(playground.open.texts, playground.working_texts());
    let saved = playground.saved();
    assert!(saved.working);
    assert_eq!(saved.given, Some(Given::WorkingVersion));

    // A reload brings the choice back.
    let mut again = started("");
    let index = playground.open.index;
    act(&mut again, Action::Open(index));
    act(
        &mut again,
        Action::SavedWorkRead {
            exercise: SESSION.into(),
            loaded: Loaded::Saved(saved),
        },
    );
    assert!(again.open.working);
    assert_eq!(again.open.texts, again.working_texts());
    assert_eq!(again.open.given, Some(Given::WorkingVersion));

    act(&mut again, Action::StartFromWorking(false));
    assert!(!again.open.working);
    assert_eq!(again.open.texts, again.starts());
}

#[test]
fn an_exercise_without_a_working_version_offers_none() {
    let mut playground = opened();
    assert!(
        playground
            .exercise()
            .and_then(|e| e.working_version.as_ref())
            .is_none()
    );
    let before = playground.open.texts.clone();
    act(&mut playground, Action::StartFromWorking(true));
    assert!(!playground.open.working);
    assert_eq!(playground.open.texts, before);
}

#[test]
fn after_a_solve_the_next_exercise_is_the_one_below_and_a_lesson_end_names_the_next_lesson() {
    let exercises = catalog().expect("the bundled exercises load");
    let groups = crate::state::lessons(&exercises);
    assert!(groups.len() >= 2, "at least two lessons");
    let (first_lesson, first) = &groups[0];
    let (second_lesson, second) = &groups[1];
    assert!(first.len() >= 2);
    // Inside a lesson: the next one, no lesson named.
    assert_eq!(
        crate::state::next_exercise(&exercises, first[0]),
        Some(crate::state::Next {
            index: first[1],
            new_lesson: None,
        })
    );
    // At a lesson's end: the next lesson's first exercise, and its name.
    let last = *first.last().expect("a lesson has exercises");
    assert_ne!(first_lesson, second_lesson);
    assert_eq!(
        crate::state::next_exercise(&exercises, last),
        Some(crate::state::Next {
            index: second[0],
            new_lesson: Some(second_lesson.clone()),
        })
    );
    // After the very last: nothing.
    let very_last = *groups
        .last()
        .and_then(|(_, indices)| indices.last())
        .expect("an exercise");
    assert_eq!(crate::state::next_exercise(&exercises, very_last), None);
    assert_eq!(
        crate::state::next_exercise(&exercises, exercises.len()),
        None
    );
}

#[test]
fn the_last_exercise_says_every_lesson_is_done_only_when_the_list_counts_them_all() {
    use crate::components::solved::last_words;
    let mut playground = edited();
    check_answered(&mut playground, claim_report(false));
    assert!(playground.solved());
    let total = playground.exercises.len();
    assert!(total > 1);
    // A course's one own exercise, solved, with nothing else solved: the
    // list says "1 of N solved", and so does the last word.
    assert_eq!(playground.solved_count(), 1);
    assert_eq!(
        last_words(playground.solved_count(), total),
        format!(
            "That was the last exercise in the list, but not every lesson is done: \
             1 of {total} solved."
        )
    );
    let others: Vec<String> = (playground.exercises.iter().enumerate())
        .filter(|&(i, _)| i != playground.open.index)
        .map(|(_, exercise)| exercise.id.clone())
        .collect();
    for id in others {
        let solved = Progress {
            solved: true,
            ..Progress::default()
        };
        playground.progress.insert(id, solved);
    }
    assert_eq!(playground.solved_count(), total);
    assert_eq!(
        last_words(playground.solved_count(), total),
        "That was the last exercise: every lesson is done."
    );
}
