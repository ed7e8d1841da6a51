//! The reducer, action by action, natively: what each action does to the
//! model, what it asks of the worker, and how every answer is routed,
//! including the answers that must be dropped. The bundled exercises are
//! the data; the worker's reports come from `reports.rs`.

mod reports;

use super::*;
use crate::share::{self, Link, Shown};
use crate::storage::{self, Saved};
use fencelab_model::Schedule;
use reports::*;

fn catalog() -> Result<Vec<Exercise>, fencelab_model::LoadError> {
    fencelab_model::bundled::catalog()
}

fn started(fragment: &str) -> Model {
    Model::new(
        catalog(),
        Start {
            fragment: fragment.into(),
            ..Start::default()
        },
    )
}

fn act(model: &mut Model, action: Action) {
    reduce(model, action);
}

fn answer(model: &mut Model, response: Response) {
    reduce(model, Action::Worker(Box::new(response)));
}

/// The claim exercise, opened with nothing saved.
fn opened() -> Model {
    let mut model = started("");
    act(
        &mut model,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Nothing,
        },
    );
    model
}

/// Answers the newest check with `report`.
fn check_answered(model: &mut Model, report: ExerciseReport) {
    let seq = model.check_wanted;
    answer(model, Response::Checked { seq, report });
}

/// The claim exercise with its failing report in view.
fn checked() -> Model {
    let mut model = opened();
    check_answered(&mut model, claim_report(true));
    model
}

fn last_request(model: &Model) -> Request {
    (**model.outbox.last().expect("a request was queued")).clone()
}

/// The claim exercise with the learner's own text (an edit) in the editor.
fn edited() -> Model {
    let mut model = opened();
    act(
        &mut model,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- the learner's claim".into(),
        },
    );
    model
}

fn saved(edits: &[(&str, &str)], seen: &[&str]) -> Loaded {
    Loaded::Saved(Saved {
        format: storage::SAVE_FORMAT,
        edits: edits
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
        seen: seen.iter().map(|c| c.to_string()).collect(),
        ..Saved::default()
    })
}

fn link(edits: &[(&str, &str)], scenario: Option<&str>, schedule: Option<&str>) -> Link {
    Link {
        format: share::LINK_FORMAT,
        exercise: CLAIM.into(),
        edits: edits
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
        scenario: scenario.map(str::to_string),
        schedule: schedule.map(|s| Schedule::parse(s).expect("a schedule")),
        drive: false,
        hunt: None,
        step: None,
        hints: 0,
    }
}

fn link_fragment(edits: &[(&str, &str)], scenario: Option<&str>, schedule: Option<&str>) -> String {
    share::encode(&link(edits, scenario, schedule))
}

// ----- opening -----

#[test]
fn an_exercise_opens_only_once_its_saved_work_is_read() {
    let mut model = started("");
    assert_eq!(model.exercise().map(|e| e.id.as_str()), Some(CLAIM));
    assert_eq!(
        model.opening.as_ref().map(|o| o.exercise.as_str()),
        Some(CLAIM)
    );
    assert_eq!(
        model.check_request(),
        None,
        "no check of texts not yet read"
    );
    assert_eq!(
        model.autosaved_exercise(),
        None,
        "nothing saved over unread work"
    );
    act(&mut model, Action::RunNow);
    act(
        &mut model,
        Action::Edited {
            procedure: "claim".into(),
            text: "SELECT 1;".into(),
        },
    );
    assert_eq!(model.check_wanted, 0, "no edits or runs while opening");
    act(
        &mut model,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::Nothing,
        },
    );
    assert_eq!(model.opening, None);
    assert_eq!(model.texts, model.starts());
    assert_eq!(model.autosaved_exercise(), Some(CLAIM));
    assert_eq!(
        model.check_request(),
        Some(Request::Check {
            seq: model.check_wanted,
            exercise: CLAIM.into(),
            edits: model.starts(),
        })
    );
}

#[test]
fn saved_work_and_seen_variants_are_restored() {
    let mut model = started("");
    act(
        &mut model,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: saved(
                &[("claim", "-- mine"), ("not-a-procedure", "x")],
                &["read, then write"],
            ),
        },
    );
    assert_eq!(
        model.texts.get("claim").map(String::as_str),
        Some("-- mine")
    );
    assert_eq!(
        model.texts.len(),
        model.starts().len(),
        "only editable procedures"
    );
    assert!(model.seen.contains("read, then write"));
    assert_eq!(model.given, None, "edited work is the learner's own");
}

#[test]
fn a_saved_entry_that_cannot_be_read_is_reported_and_the_exercise_starts_fresh() {
    let mut model = started("");
    act(
        &mut model,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: Loaded::SetAside {
                message: "expected value at line 1 column 2".into(),
                aside_key: "fencelab:set-aside:claim-compare-and-set:17".into(),
            },
        },
    );
    assert_eq!(model.texts, model.starts());
    let notice = model.notices.join(" ");
    assert!(
        notice.contains("could not be read (expected value"),
        "{notice}"
    );
    assert!(
        notice.contains("`fencelab:set-aside:claim-compare-and-set:17`"),
        "{notice}"
    );
    assert_ne!(model.check_wanted, 0, "the starting text is checked");
}

#[test]
fn saved_work_read_for_an_exercise_no_longer_opening_is_dropped() {
    let mut model = started("");
    act(&mut model, Action::Open(1));
    let second = model.exercises[1].id.clone();
    act(
        &mut model,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: saved(&[("claim", "-- mine")], &[]),
        },
    );
    assert_eq!(model.opening.as_ref().map(|o| &o.exercise), Some(&second));
    assert_eq!(model.check_wanted, 0);
}

#[test]
fn opening_another_exercise_resets_the_view_and_drops_answers_for_the_one_before() {
    let mut model = checked();
    model.notices.push("old".into());
    let old_check = model.check_wanted;
    act(&mut model, Action::Open(1));
    assert_eq!(model.current, 1);
    assert!(model.notices.is_empty());
    assert_eq!(model.report, None);
    assert_eq!(model.view, View::Nothing);
    let second = model.exercises[1].id.clone();
    act(
        &mut model,
        Action::SavedWorkRead {
            exercise: second.clone(),
            loaded: Loaded::Nothing,
        },
    );
    // The claim exercise's report, late: not this exercise's.
    answer(
        &mut model,
        Response::Checked {
            seq: old_check,
            report: claim_report(true),
        },
    );
    assert_eq!(model.report, None);
    // Even under the current seq, another exercise's report is dropped.
    check_answered(&mut model, claim_report(true));
    assert_eq!(model.report, None);
}

#[test]
fn a_link_that_cannot_be_read_is_reported_and_the_learners_work_opens() {
    for (fragment, expected) in [
        (
            "s1=this-is-not-a-link!!",
            "This link could not be opened: this link is damaged",
        ),
        (
            "s9=AAAA",
            "This link could not be opened: this link is not in a format",
        ),
    ] {
        let model = started(fragment);
        let notice = model.notices.join(" ");
        assert!(notice.contains(expected), "{fragment}: {notice}");
        assert!(
            notice.contains("Your own work is shown instead"),
            "{notice}"
        );
        let opening = model.opening.as_ref().expect("the first exercise opens");
        assert_eq!((opening.exercise.as_str(), &opening.link), (CLAIM, &None));
    }
    let unknown = share::encode(&Link {
        exercise: "no-such-exercise".into(),
        ..link(&[], None, None)
    });
    let mut model = started(&unknown);
    assert!(model.awaiting.is_some(), "perhaps one of the site's own");
    act(&mut model, Action::SiteExercises(SiteExercises::NoIndex));
    assert!(model.notices[0].contains("does not have (“no-such-exercise”)"));
    assert_eq!(
        model.opening.as_ref().map(|o| o.exercise.as_str()),
        Some(CLAIM)
    );
}

#[test]
fn a_link_shows_its_version_and_replays_its_schedule_with_saved_work_one_click_away() {
    let fragment = link_fragment(&[("claim", "-- linked")], Some(ONE_WINNER), Some("a b"));
    let mut model = started(&fragment);
    act(
        &mut model,
        Action::SavedWorkRead {
            exercise: CLAIM.into(),
            loaded: saved(&[("claim", "-- mine")], &[]),
        },
    );
    assert_eq!(model.texts["claim"], "-- linked");
    assert_eq!(
        model.saved_aside.as_ref().map(|s| s["claim"].as_str()),
        Some("-- mine")
    );
    assert_eq!(
        model.autosaved_exercise(),
        None,
        "the saved work is left as it was"
    );
    assert!(model.notices[0].contains("version in the link"));
    let Request::Replay {
        seq,
        scenario,
        schedule,
        edits,
        ..
    } = model
        .outbox
        .iter()
        .map(|r| (**r).clone())
        .find(|r| matches!(r, Request::Replay { .. }))
        .expect("the link's schedule is replayed")
    else {
        unreachable!()
    };
    assert_eq!(
        (scenario.as_str(), schedule.to_string().as_str()),
        (ONE_WINNER, "a b")
    );
    assert_eq!(edits["claim"], "-- linked");
    assert!(matches!(&model.view, View::Replay { waiting_for: Some(s), .. } if *s == seq));
    answer(
        &mut model,
        Response::Replayed {
            seq,
            report: one_winner_failing(),
        },
    );
    assert_eq!(
        model.shown_report().map(|r| r.schedule.to_string()),
        Some("a a b b".into())
    );

    let mut back = model.clone();
    act(&mut back, Action::BackToSaved);
    assert_eq!(back.texts["claim"], "-- mine");
    assert_eq!(
        back.replace.texts["claim"], "-- mine",
        "through the editor, undoably"
    );
    assert_eq!(back.saved_aside, None);
    assert!(back.notices.is_empty());
    assert_eq!(
        back.announcement,
        "Your saved version is back in the editor."
    );

    act(&mut model, Action::KeepLinked);
    assert_eq!(model.saved_aside, None);
    assert_eq!(model.autosaved_exercise(), Some(CLAIM));
    assert_eq!(model.saved().edits["claim"], "-- linked");
    assert_eq!(
        model.announcement,
        "The linked version is now your saved work."
    );
}

#[test]
fn progress_read_by_the_app_is_kept_in_the_model() {
    let mut model = opened();
    let progress = Progress {
        seen: 2,
        solved: true,
        hunted: 0,
    };
    act(
        &mut model,
        Action::ProgressRead(BTreeMap::from([("leases".to_string(), progress)])),
    );
    assert_eq!(model.progress.get("leases"), Some(&progress));
    act(&mut model, Action::ProgressRead(BTreeMap::new()));
    assert_eq!(
        model.progress.get("leases"),
        Some(&progress),
        "a partial read merges"
    );
}

// ----- editing and checking -----

#[test]
fn every_edit_asks_for_a_check_at_once_and_run_now_for_another() {
    let mut model = checked();
    model.share_url = Some("old".into());
    let before = model.check_wanted;
    act(
        &mut model,
        Action::Edited {
            procedure: "claim".into(),
            text: "SELECT 1;".into(),
        },
    );
    assert!(model.check_wanted > before);
    assert_eq!(model.share_url, None);
    assert!(model.checking());
    assert_eq!(
        model.view.scenario(),
        Some(ONE_WINNER),
        "the scenario stays in view"
    );
    let wanted = model.check_wanted;
    act(
        &mut model,
        Action::Edited {
            procedure: "claim".into(),
            text: "SELECT 1;".into(),
        },
    );
    assert_eq!(model.check_wanted, wanted, "the same text is no edit");
    act(&mut model, Action::RunNow);
    assert!(model.check_wanted > wanted);
}

#[test]
fn a_check_is_announced_and_shows_the_first_failing_scenario_where_it_broke() {
    let model = checked();
    assert!(!model.checking());
    assert_eq!(model.announcement, "1 of 2 scenarios pass");
    assert_eq!(
        model.view,
        View::Checked {
            scenario: ONE_WINNER.into(),
            at: At::step(BROKE_AT)
        }
    );
    let shown = model.shown().expect("a report in view");
    assert_eq!(shown.failure(), Some(&two_holders()));
    assert_eq!(model.shown(), Some(shown), "the same report, shared");
}

#[test]
fn a_stale_check_arriving_after_a_newer_edit_is_dropped() {
    let mut model = opened();
    let first = model.check_wanted;
    act(
        &mut model,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- newer".into(),
        },
    );
    answer(
        &mut model,
        Response::Checked {
            seq: first,
            report: claim_report(false),
        },
    );
    assert_eq!(model.report, None);
    assert!(model.checking());
    assert!(!model.solved());
    check_answered(&mut model, claim_report(true));
    assert_eq!(model.report.as_ref().map(|r| r.failed), Some(1));
}

#[test]
fn while_a_newer_edit_is_checked_the_last_verdicts_stay_shown_as_stale() {
    let mut model = checked();
    let shown = model.report.clone();
    let first = model.check_wanted;
    for text in ["-- a", "-- ab"] {
        act(
            &mut model,
            Action::Edited {
                procedure: "claim".into(),
                text: text.into(),
            },
        );
        assert_eq!(model.report, shown, "never emptied while checking");
        assert!(model.checking(), "and marked as not of these texts");
    }
    let between = model.check_wanted - 1;
    assert!(between > first);
    // The answer to the edit in between is of texts no longer in the
    // editors: it is never shown, not even as stale.
    answer(
        &mut model,
        Response::Checked {
            seq: between,
            report: claim_report(false),
        },
    );
    assert_eq!(model.report, shown);
    assert!(model.checking());
    check_answered(&mut model, claim_report(false));
    assert!(!model.checking());
    assert_eq!(model.report.as_ref().map(|r| r.failed), Some(0));
    assert_eq!(model.report_seq, model.check_wanted);
}

#[test]
fn a_check_the_worker_could_not_run_is_a_notice_and_never_a_pass() {
    let mut model = edited();
    check_answered(&mut model, claim_report(false));
    assert!(model.solved());
    act(&mut model, Action::RunNow);
    let seq = model.check_wanted;
    answer(
        &mut model,
        Response::Failed {
            seq,
            message: "there is no exercise `x`".into(),
        },
    );
    assert!(model.check_failed);
    assert!(!model.checking());
    assert!(!model.solved(), "the report is of an older check");
    assert!(
        model
            .notices
            .iter()
            .any(|n| n.contains("could not be checked: there is no exercise"))
    );
}

#[test]
fn loading_a_broken_variant_never_marks_the_exercise_solved() {
    let mut model = edited();
    check_answered(&mut model, claim_report(false));
    assert!(model.solved());
    assert!(model.saved().passing);

    act(&mut model, Action::LoadMutant("read, then write".into()));
    assert_eq!(
        Some(&model.texts),
        model.mutant_texts("read, then write").as_ref()
    );
    assert_eq!(
        model.replace.texts, model.texts,
        "through the editor, undoably"
    );
    assert_eq!(model.loaded_mutant.as_deref(), Some("read, then write"));
    // The passing report is still in the model, but it is of other texts.
    assert!(!model.solved());
    assert!(!model.saved().passing);
    assert!(!model.current_progress().solved);

    check_answered(&mut model, claim_report(true));
    assert!(model.seen.contains("read, then write"));
    assert_eq!(
        model.current_progress(),
        Progress {
            seen: 1,
            solved: false,
            hunted: 0,
        }
    );
    assert!(!model.saved().passing);

    // Even a report in which the variant passed would not make it solved.
    act(
        &mut model,
        Action::LoadMutant("read again right before writing".into()),
    );
    check_answered(&mut model, claim_report(false));
    assert!(!model.solved());
    assert!(!model.saved().passing);
    assert_eq!(
        model.seen.len(),
        1,
        "a variant that passed is not seen failing"
    );
}

#[test]
fn a_variant_edited_by_the_learner_is_no_longer_the_variant() {
    let mut model = opened();
    act(&mut model, Action::LoadMutant("read, then write".into()));
    act(
        &mut model,
        Action::Edited {
            procedure: "claim".into(),
            text: "-- my own".into(),
        },
    );
    check_answered(&mut model, claim_report(true));
    assert!(model.seen.is_empty(), "only the variant's own text counts");
    act(&mut model, Action::LoadMutant("no such variant".into()));
    assert_eq!(model.texts["claim"], "-- my own");
}

#[test]
fn reset_puts_the_starting_text_back_through_the_editor() {
    let mut model = opened();
    act(&mut model, Action::LoadMutant("read, then write".into()));
    let generation = model.replace.generation;
    act(&mut model, Action::Reset);
    assert_eq!(model.texts, model.starts());
    assert_eq!(model.replace.generation, generation + 1);
    assert_eq!(model.loaded_mutant, None);
}

#[test]
fn hints_come_one_at_a_time_up_to_the_last() {
    let mut model = opened();
    let total = model.exercise().map(|e| e.hints.len()).unwrap_or(0);
    assert!(total > 0);
    for _ in 0..total + 2 {
        act(&mut model, Action::ShowHint);
    }
    assert_eq!(model.hints_shown, total);
}

#[test]
fn notices_are_dismissed_and_a_failure_of_the_worker_itself_is_one() {
    let mut model = opened();
    answer(
        &mut model,
        Response::Ready {
            sqlite_version: "3.50.4".into(),
        },
    );
    assert_eq!(model.sqlite_version.as_deref(), Some("3.50.4"));
    answer(
        &mut model,
        Response::Failed {
            seq: 0,
            message: "the checking worker stopped with an error".into(),
        },
    );
    assert_eq!(model.notices, ["the checking worker stopped with an error"]);
    act(&mut model, Action::DismissNotices);
    assert!(model.notices.is_empty());
}

mod embed;
mod hunt;
mod prerendered;
mod progress;
mod protection;
mod restore;
mod site;
mod views;
