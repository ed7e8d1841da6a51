//! The exploration benchmark's workload and its lines, shared by the native
//! criterion bench (benches/explore.rs) and its wasm twin
//! (tests/wasm_explore_bench.rs), so both measure and print the same thing.
//!
//! Lines follow `cargo xtask bench`'s convention, tab-separated:
//! `BENCH  explore  row  column  value  unit`. A *run* is one execution of
//! a scenario from the seed (a complete schedule, or a branch cut short);
//! runs are what an exploration costs, schedules what it completes.

use fencelab_core::check::Strategy;
use fencelab_core::{Checker, Exercise, ExerciseExt, ScenarioReport, bundled};
use std::collections::BTreeMap;

pub const STRATEGIES: [(Strategy, &str); 2] =
    [(Strategy::Plain, "plain"), (Strategy::Reduced, "reduced")];

pub fn exercises() -> Vec<Exercise> {
    bundled::exercises().expect("the bundled exercises load")
}

/// Checks every scenario of `exercise`'s references with `strategy` on a
/// new checker, as the page's worker checks an exercise's first edit.
pub fn check_all(exercise: &Exercise, strategy: Strategy) -> Vec<ScenarioReport> {
    let mut checker = exercise
        .checker(&exercise.texts_with(&BTreeMap::new()))
        .expect("the references parse");
    checker.set_strategy(strategy);
    exercise
        .scenarios
        .iter()
        .map(|scenario| checker.check(scenario))
        .collect()
}

/// The column names of [`check_all_renewed`]'s rate lines, with each
/// run resuming from an image of the world where it can (the page's way)
/// and with every run replayed from the seed: the same reports, figures
/// included (tests/suite/resume_differential.rs).
pub const RENEWED: [(bool, &str); 2] = [
    (true, "reduced, renewed"),
    (false, "reduced, renewed, from the seed"),
];

/// As [`check_all`] with the reduced explorer, on `kept` renewed for the
/// references: how the page's worker checks every edit of an exercise
/// after its first (`ExerciseExt::checker_reusing`), with no schema, seed
/// rows or connections built. The checker is kept again for the next call.
/// As after a keystroke, the first procedure's text is not the one the
/// last call checked (a trailing comment comes and goes), so it is parsed
/// anew; the other texts are the kept checker's own.
pub fn check_all_renewed(
    exercise: &Exercise,
    kept: &mut Option<Checker>,
    resuming: bool,
) -> Vec<ScenarioReport> {
    let mut texts = exercise.texts_with(&BTreeMap::new());
    let (name, text) = &texts[0];
    if kept
        .as_ref()
        .is_some_and(|checker| checker.parsed(name, text).is_some())
    {
        texts[0].1.push_str("\n-- a keystroke");
    }
    let mut checker = exercise
        .checker_reusing(&texts, kept)
        .expect("the references parse");
    checker.set_resuming(resuming);
    let reports = exercise
        .scenarios
        .iter()
        .map(|scenario| checker.check(scenario))
        .collect();
    *kept = Some(checker);
    reports
}

/// (complete schedules, runs) over `reports`.
pub fn counts(reports: &[ScenarioReport]) -> (u64, u64) {
    reports.iter().fold((0, 0), |(schedules, runs), r| {
        (
            schedules + r.exploration.schedules,
            runs + r.exploration.schedules + r.exploration.pruned,
        )
    })
}

pub fn line(row: &str, column: &str, value: impl std::fmt::Display, unit: &str) -> String {
    format!("BENCH\texplore\t{row}\t{column}\t{value}\t{unit}")
}

/// The per-scenario lines: schedules and runs of every scenario with a
/// concurrent section, plain and reduced.
pub fn scenario_lines(exercise: &Exercise) -> Vec<String> {
    let plain = check_all(exercise, Strategy::Plain);
    let reduced = check_all(exercise, Strategy::Reduced);
    let mut lines = Vec::new();
    for (p, r) in plain.iter().zip(&reduced) {
        assert_eq!(p.result, r.result, "{} / {}", exercise.id, p.name);
        assert_eq!(p.schedule, r.schedule, "{} / {}", exercise.id, p.name);
        if p.exploration.sections == 0 {
            continue;
        }
        let row = format!("{} / {}", exercise.id, p.name);
        for (name, report) in [("plain", p), ("reduced", r)] {
            let (schedules, runs) = counts(std::slice::from_ref(report));
            lines.push(line(
                &row,
                &format!("schedules ({name})"),
                schedules,
                "schedules",
            ));
            lines.push(line(&row, &format!("runs ({name})"), runs, "runs"));
        }
    }
    lines
}

/// The throughput lines of one exercise checked in `millis` per round
/// (every scenario), with `strategy` named `name`, on `host`.
pub fn rate_lines(
    exercise: &Exercise,
    name: &str,
    host: &str,
    reports: &[ScenarioReport],
    millis: f64,
) -> Vec<String> {
    let (schedules, runs) = counts(reports);
    let per_second = |n: u64| format!("{:.0}", n as f64 / (millis / 1000.0));
    vec![
        line(
            &exercise.id,
            &format!("schedules/s {host} ({name})"),
            per_second(schedules),
            "schedules/s",
        ),
        line(
            &exercise.id,
            &format!("runs/s {host} ({name})"),
            per_second(runs),
            "runs/s",
        ),
        line(
            &exercise.id,
            &format!("check {host} ({name})"),
            format!("{millis:.2}"),
            "ms",
        ),
    ]
}
