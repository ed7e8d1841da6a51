//! The mutation runner on a deliberately weak suite (tests/data): what it
//! kills, what survives, and how equivalence declarations are judged.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::mutate::{MutantVerdict, StaleEquivalent};
use fencelab_core::{Exercise, ExerciseExt, exercise, mutation};

const WEAK: &str = include_str!("../data/mutation-one-winner.toml");

fn load(extra: &str) -> Exercise {
    exercise::load("mutation-one-winner.toml", &format!("{WEAK}\n{extra}")).unwrap()
}

fn verdict_of<'a>(run: &'a fencelab_core::mutate::ExerciseMutation, id: &str) -> &'a MutantVerdict {
    &run.results
        .iter()
        .find(|r| r.mutant.id == id)
        .unwrap_or_else(|| panic!("no mutant {id}"))
        .verdict
}

#[test]
fn dropping_the_state_predicate_is_killed_and_a_negated_where_survives_a_weak_suite() {
    let run = mutation::run(&load(""), &mutation::InOrder);
    let MutantVerdict::Killed { by } = verdict_of(&run, "claim:2:25:drop-conjunct") else {
        panic!("dropping `AND state = 'NEW'` must be killed");
    };
    assert_eq!(by[0].scenario, "one winner");
    assert!(
        by[0].sentence.contains("both believe"),
        "{}",
        by[0].sentence
    );
    assert!(!by[0].schedule.is_empty());
    // Both claims refused breaks nothing this suite checks.
    assert_eq!(
        verdict_of(&run, "claim:2:2:negate-condition"),
        &MutantVerdict::Survived
    );
    let counts = run.counts();
    assert_eq!(counts.generated, run.results.len());
    assert!(counts.killed >= 3 && counts.survived > 0, "{counts:?}");
    assert!(!run.ok());
}

#[test]
fn a_declared_equivalent_is_reported_with_its_reason() {
    let run = mutation::run(
        &load(
            "[[equivalent]]\nmutants = [\"claim:2:2:negate-condition\"]\nreason = \"For this test only.\"\n",
        ),
        &mutation::InOrder,
    );
    assert_eq!(
        verdict_of(&run, "claim:2:2:negate-condition"),
        &MutantVerdict::Equivalent {
            reason: "For this test only.".into()
        }
    );
    assert!(run.stale_equivalents.is_empty());
}

#[test]
fn a_declaration_that_a_scenario_refutes_or_that_names_nothing_is_stale() {
    let exercise = load(
        "[[equivalent]]\nmutant = \"claim:2:25:drop-conjunct\"\nreason = \"Wrong on purpose.\"\n\n\
         [[equivalent]]\nmutant = \"claim:9:9:weaken-begin\"\nreason = \"Names no mutant.\"\n",
    );
    let run = mutation::run(&exercise, &mutation::InOrder);
    assert_eq!(
        run.stale_equivalents.len(),
        2,
        "{:?}",
        run.stale_equivalents
    );
    // Each says which way it is stale, so a program can tell them apart; the
    // sentences are the ones `fencelab mutate` has always printed.
    assert_eq!(
        run.stale_equivalents,
        [
            StaleEquivalent::MatchesNothing {
                mutant: "claim:9:9:weaken-begin".into()
            },
            StaleEquivalent::Killed {
                mutant: "claim:2:25:drop-conjunct".into(),
                scenario: "one winner".into()
            },
        ]
    );
    assert_eq!(
        run.stale_equivalents[0].to_string(),
        "`claim:9:9:weaken-begin` matches no generated mutant"
    );
    assert_eq!(
        run.stale_equivalents[1].to_string(),
        "`claim:2:25:drop-conjunct` is declared equivalent, but `one winner` kills it"
    );
    assert!(!run.ok());
    // `fencelab check` sees the one that names nothing without running mutants.
    let check = exercise.check();
    assert_eq!(check.stale_equivalents, run.stale_equivalents[..1]);
    assert!(!check.ok());
}

#[test]
fn an_equivalent_needs_a_reason_and_an_id() {
    let error = exercise::load(
        "x.toml",
        &format!(
            "{WEAK}\n[[equivalent]]\nmutant = \"claim:2:2:negate-condition\"\nreason = \" \"\n"
        ),
    )
    .unwrap_err();
    assert_eq!(error.field, "equivalent[0].reason");
    let error = exercise::load(
        "x.toml",
        &format!("{WEAK}\n[[equivalent]]\nreason = \"why\"\n"),
    )
    .unwrap_err();
    assert_eq!(error.field, "equivalent[0]");
}

/// A mutant's judgement runs only the scenarios that name its procedure,
/// in one world shared with the mutants judged before it, and the line
/// marks' stops at the first kill; none of this may change a verdict. Every
/// eighth mutant of every bundled reference (natively: the whole suite per
/// mutant is what the shortcuts save, and costs as much) gets the verdict
/// that every scenario run in a world of its own gives, and its first kill.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_judgement_of_fewer_scenarios_is_the_whole_suites_verdict() {
    use fencelab_core::mutation::{Base, Judge, Kills};
    let mut compared = 0;
    for exercise in fencelab_core::bundled::exercises().expect("the bundled exercises load") {
        let texts = mutation::reference_texts(&exercise);
        let context = mutation::context(&exercise).expect("its schema builds");
        let generated = mutation::generate(&exercise, &texts, &context).expect("within budget");
        let report = exercise.run_texts(&texts, &exercise.scenarios);
        let base = Base {
            texts: &texts,
            report: &report,
        };
        let mut judge = Judge::new(&exercise, base);
        for mutant in generated.mutants.iter().step_by(8) {
            let whole = exercise.run_texts(
                &mutation::texts_with_mutant(&texts, mutant),
                &exercise.scenarios,
            );
            let expected = mutation::verdict_of_suite(&whole);
            let every = judge.verdict(&exercise, base, mutant, Kills::Every);
            assert_eq!(every, expected, "{} / {}", exercise.id, mutant.id);
            let first = judge.verdict(&exercise, base, mutant, Kills::First);
            let first_of_expected = match expected {
                MutantVerdict::Killed { mut by } => {
                    by.truncate(1);
                    MutantVerdict::Killed { by }
                }
                other => other,
            };
            assert_eq!(first, first_of_expected, "{} / {}", exercise.id, mutant.id);
            compared += 1;
        }
    }
    assert!(compared > 250, "only {compared} mutants compared");
}

/// A search made for a verdict alone replays nothing and records nothing,
/// yet finds what a report made to be read finds: the same verdict and
/// failure, the same schedule, and the same procedure steps spent (a
/// suite's budget counts them). On every scenario of every bundled
/// reference and of every sixteenth mutant.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_verdicts_search_finds_and_spends_what_a_shown_one_does() {
    use fencelab_core::check::{Progress, Purpose};
    let mut compared = 0;
    for exercise in fencelab_core::bundled::exercises().expect("the bundled exercises load") {
        let texts = mutation::reference_texts(&exercise);
        let context = mutation::context(&exercise).expect("its schema builds");
        let generated = mutation::generate(&exercise, &texts, &context).expect("within budget");
        let variants = std::iter::once(texts.clone()).chain(
            generated
                .mutants
                .iter()
                .step_by(16)
                .map(|m| mutation::texts_with_mutant(&texts, m)),
        );
        for variant in variants {
            let Ok(mut checker) = exercise.checker(&variant) else {
                continue;
            };
            for scenario in &exercise.scenarios {
                let shown = checker.check(scenario);
                let mut search = checker.search(scenario).for_purpose(Purpose::Verdict);
                let judged = loop {
                    if let Progress::Done(report) = search.advance(&mut checker, u64::MAX) {
                        break *report;
                    }
                };
                let context = format!("{} / {}", exercise.id, scenario.name);
                assert!(judged.history.is_empty(), "{context}: recorded");
                assert_eq!(judged.verdict(), shown.verdict(), "{context}");
                assert_eq!(judged.schedule, shown.schedule, "{context}");
                assert_eq!(
                    judged.failure().and_then(|f| f.cause()),
                    shown.failure().and_then(|f| f.cause()),
                    "{context}"
                );
                assert_eq!(
                    judged.error().map(ToString::to_string),
                    shown.error().map(ToString::to_string),
                    "{context}"
                );
                // SQLite's steps are counted a thousand at a time from each
                // prepared statement's own running count, which its cache
                // keeps across runs, so only the procedure's steps are a
                // function of the run alone.
                assert_eq!(
                    judged.exploration.procedure_steps, shown.exploration.procedure_steps,
                    "{context}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "only {compared} searches compared");
}

/// The window between taking a row and stamping its fence, as the page's
/// line marks show it (issue 55): on every bundled exercise, each
/// `stamp-later` mutant of the references that the exercise does not
/// declare equivalent is listed in its line's mark, with the scenario that
/// catches it. Native only: it judges every mutant of every exercise.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_fence_stamped_later_is_shown_in_its_lines_mark_with_its_counterexample() {
    use fencelab_core::mutate::Operator;
    use fencelab_core::protection::{LineMarks, LineStatus};
    use std::rc::Rc;

    let mut shown = 0;
    for exercise in fencelab_core::bundled::exercises().unwrap_or_else(|e| panic!("{e}")) {
        let context = mutation::context(&exercise).expect("its schema builds");
        let texts = mutation::reference_texts(&exercise);
        let mutants = mutation::generate(&exercise, &texts, &context)
            .expect("within the budget")
            .mutants;
        let declared = mutation::declared_equivalents(&exercise, &mutants, &mutants);
        let stamped: Vec<_> = mutants
            .iter()
            .filter(|m| m.operator == Operator::StampLater && !declared.contains_key(&m.id))
            .collect();
        if stamped.is_empty() {
            continue;
        }
        let report = LineMarks::new(Rc::new(exercise.clone()), texts, &context)
            .finish(&mutation::InOrder)
            .unwrap_or_else(|why| panic!("{}: {why}", exercise.id));
        for mutant in stamped {
            let status = report
                .mark(&mutant.procedure, mutant.position.line)
                .map(|m| &m.status);
            let Some(LineStatus::Protected { caught, .. }) = status else {
                panic!(
                    "{}: {}'s line is not protected: {status:?}",
                    exercise.id, mutant.id
                );
            };
            let listed = caught.iter().find(|c| c.description == mutant.description);
            assert!(
                listed.is_some_and(|c| !c.scenario.is_empty()),
                "{}: line {} of {} does not list {:?} among {caught:?}",
                exercise.id,
                mutant.position.line,
                mutant.procedure,
                mutant.description
            );
            shown += 1;
        }
    }
    assert!(
        shown >= 8,
        "the bundled references stamp their fences in {shown} takes"
    );
}
