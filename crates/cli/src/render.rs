//! Reports as text for a terminal. The sentences (failures, outcomes,
//! events) are the model's own `Display`s, so the CLI words them as the
//! page does. The text still carries the exercise's own names as they are:
//! it is printed through `crate::shown`, which makes them safe to print.

use fencelab_core::{ExerciseCheck, ExerciseReport, ScenarioReport, Tally, Verdict};
use fencelab_model::report::{ErrorKind, Limit};
use std::fmt::Write;

fn verdict(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Passed => "passed",
        Verdict::Failed => "FAILED",
        Verdict::Error => "ERROR",
        Verdict::LimitShown => "limit shown",
    }
}

/// One line for a scenario, and for failures and errors what went wrong.
fn scenario_line(out: &mut String, report: &ScenarioReport, explore: bool) {
    let _ = write!(out, "    {:<12} {}", verdict(report.verdict()), report.name);
    if explore {
        let e = &report.exploration;
        let _ = write!(
            out,
            "  ({} schedules, {} states, {} pruned",
            e.schedules, e.states, e.pruned
        );
        if let Some(seed) = e.seed {
            let _ = write!(out, ", random from seed {seed}");
        }
        out.push(')');
    }
    out.push('\n');
    if let Some(problem) = problem(report) {
        let _ = writeln!(out, "        {problem}");
    }
}

/// A scenario's failure or error as the CLI says it: the model's sentence,
/// which the page shows as it is, and after a limit's the command line that
/// raises it (the page has no flags, so the model's sentence names none).
pub fn problem(report: &ScenarioReport) -> Option<String> {
    let said = report.problem()?;
    let limit = report.error().and_then(|error| match error.kind() {
        Some(ErrorKind::Limit { limit }) => Some(limit),
        _ => None,
    });
    Some(match limit.and_then(flag_hint) {
        Some(flag) => format!("{said}{flag}"),
        None => said,
    })
}

/// What the CLI adds to a limit's sentence, after the model's own advice:
/// the command line that raises it, or that checks less at once. A bound
/// no flag sets (a concurrent section's steps) gets nothing.
fn flag_hint(limit: &Limit) -> Option<&'static str> {
    Some(match limit {
        Limit::Schedules { .. } => ", or raise the limit (`fencelab run --max-schedules`)",
        Limit::ProcedureSteps { .. } => ", or raise the limit (`fencelab run --max-steps`)",
        Limit::SqliteSteps { .. } => ", or raise the limit (`fencelab run --max-sqlite-steps`)",
        Limit::Memory { .. } => ", or raise the limit (`fencelab run --max-memory-mib`)",
        Limit::Suite { .. } => {
            ", or check fewer scenarios at once (`fencelab explore --scenario NAME` checks one)"
        }
        Limit::SectionSteps { .. } => return None,
    })
}

pub fn check(check: &ExerciseCheck) -> String {
    let mut out = String::new();
    let report = &check.reference;
    let _ = writeln!(out, "{}  {}", report.exercise, check.title);
    let _ = writeln!(out, "  reference: {}", report.tally());
    for scenario in &report.scenarios {
        scenario_line(&mut out, scenario, false);
    }
    start_line(&mut out, check);
    let rows = &check.matrix.rows;
    let caught = rows.iter().filter(|r| !r.survived()).count();
    let _ = writeln!(out, "  mutants: {caught}/{} caught", rows.len());
    for row in rows {
        let status = if row.survived() { "SURVIVED" } else { "caught" };
        let _ = write!(out, "    {status:<12} {}", row.variant);
        if !row.survived() {
            let by: Vec<&str> = row.caught_by().map(|c| c.scenario.as_str()).collect();
            let _ = write!(out, "  by: {}", by.join("; "));
        }
        out.push('\n');
        for cell in row.errored() {
            let error = cell.problem.as_deref().unwrap_or_default();
            let _ = writeln!(out, "        ERROR in {}: {error}", cell.scenario);
        }
    }
    for stale in &check.stale_equivalents {
        let _ = writeln!(out, "  STALE [[equivalent]]: {stale}");
    }
    out.push('\n');
    out
}

/// What the starting texts (a learner's first view) score, with a note when
/// they pass every scenario: a learner then has nothing to repair, which an
/// exploring exercise means (exercise 13) and an editable procedure left
/// without a `start` of its own does not.
fn start_line(out: &mut String, check: &ExerciseCheck) {
    let tally = Tally::of(check.start.iter().map(|cell| cell.verdict));
    let _ = writeln!(out, "  start: {tally} (what a learner first sees)");
    if !check.start.is_empty() && tally.all_pass() {
        let _ = writeln!(
            out,
            "    note: the starting texts pass every scenario: a learner starts with nothing to \
             repair (right for an exercise to explore; otherwise give an editable procedure a \
             `start` that fails one)"
        );
    }
}

pub fn run(report: &ExerciseReport, explore: bool, journal: fencelab_core::Journal) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", report.exercise);
    if journal != fencelab_core::Journal::default() {
        // Rollback is SQLite's default and goes unsaid; WAL locks otherwise.
        let _ = writeln!(out, "  on a database with a {journal}");
    }
    for scenario in &report.scenarios {
        scenario_line(&mut out, scenario, explore);
        if scenario.verdict() == Verdict::Failed {
            // A scenario without a concurrent step runs in one order only:
            // its schedule is empty, and an empty line would read as lost.
            if !scenario.schedule.is_empty() {
                let _ = writeln!(
                    out,
                    "        shortest failing schedule: {}",
                    scenario.schedule
                );
            }
            out.push_str(&history(scenario));
        }
    }
    // An error is not a failure of the texts (it could not be judged), so
    // it is counted apart, as the grading document counts it.
    let errored = report
        .scenarios
        .iter()
        .filter(|s| s.verdict() == Verdict::Error)
        .count();
    // A limit shown is no pass: it is counted apart when there is one.
    let tally = report.tally();
    let limits = tally
        .limits_shown()
        .map(|said| format!(", {said}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{} passed{limits}, {} failed, {errored} errored",
        tally.passed,
        report.failed - errored
    );
    out
}

/// The history, one line per event, with scenario process names.
fn history(report: &ScenarioReport) -> String {
    let mut out = String::new();
    let flagged = report.failure().and_then(|f| f.event_index);
    // Each process by its one name (the model's naming), as the page says it.
    let width = report
        .lanes
        .iter()
        .map(|lane| report.called(&lane.process).chars().count())
        .max()
        .unwrap_or(0);
    for (index, event) in report.history.iter().enumerate() {
        let who = event.process.as_deref().map_or("", |p| report.called(p));
        let who = format!("{who:<width$}");
        let mark = if Some(index) == flagged { ">>" } else { "  " };
        let _ = writeln!(
            out,
            "      {mark} {index:>3}  t={:<6} {who} {event}",
            event.clock_seconds
        );
    }
    out
}

/// One exercise's mutation run: its score, then every survivor as a diff.
pub fn mutation(
    run: &fencelab_core::mutate::ExerciseMutation,
    exercise: Option<&fencelab_core::Exercise>,
    seconds: f64,
) -> String {
    use fencelab_core::mutate::MutantVerdict;
    let mut out = String::new();
    if let Some(error) = &run.error {
        let _ = writeln!(out, "{}  ERROR: {error}", run.exercise);
        return out;
    }
    let c = run.counts();
    let _ = writeln!(
        out,
        "{}  mutation score {:.1}%: {} generated, {} killed, {} survived, {} only error, \
         {} equivalent; dropped {} unparsable, {} duplicate ({seconds:.1} s)",
        run.exercise,
        run.score_percent(),
        c.generated,
        c.killed,
        c.survived,
        c.errors_only,
        c.equivalent,
        c.dropped_unparsable,
        c.dropped_duplicate,
    );
    for result in &run.results {
        if result.verdict != MutantVerdict::Survived {
            continue;
        }
        let mutant = &result.mutant;
        let _ = writeln!(out, "  SURVIVED {}: {}", mutant.id, mutant.description);
        let original = exercise
            .and_then(|e| e.procedures.iter().find(|p| p.name == mutant.procedure))
            .map(|p| p.reference.as_str())
            .unwrap_or("");
        out.push_str(&diff(original, &mutant.text));
    }
    for stale in &run.stale_equivalents {
        let _ = writeln!(out, "  STALE [[equivalent]]: {stale}");
    }
    out
}

/// The totals over every exercise of a mutation run.
pub fn mutation_totals(runs: &[(fencelab_core::mutate::ExerciseMutation, f64)]) -> String {
    let mut total = fencelab_core::mutate::Counts::default();
    let mut seconds = 0.0;
    for (run, took) in runs {
        let c = run.counts();
        total.generated += c.generated;
        total.killed += c.killed;
        total.survived += c.survived;
        total.errors_only += c.errors_only;
        total.equivalent += c.equivalent;
        total.dropped_unparsable += c.dropped_unparsable;
        total.dropped_duplicate += c.dropped_duplicate;
        seconds += took;
    }
    format!(
        "mutated {} exercises: {} generated, {} killed, {} survived, {} only error, {} equivalent; \
         dropped {} unparsable, {} duplicate ({seconds:.1} s)\n",
        runs.len(),
        total.generated,
        total.killed,
        total.survived,
        total.errors_only,
        total.equivalent,
        total.dropped_unparsable,
        total.dropped_duplicate,
    )
}

/// An exercise's line marks: a count, then each editable procedure's lines
/// (blank ones aside), each with its text and what the marks say of it, in
/// the sentences the page's list uses.
pub fn protection(
    exercise: &str,
    texts: &[(String, String)],
    report: &fencelab_core::protection::ProtectionReport,
    seconds: f64,
) -> String {
    use fencelab_core::protection::LineStatus;
    let all = report.procedures.iter().flat_map(|p| &p.lines);
    let protected = all
        .clone()
        .filter(|m| matches!(m.status, LineStatus::Protected { .. }))
        .count();
    let unprotected = all
        .clone()
        .filter(|m| matches!(m.status, LineStatus::Unprotected { .. }))
        .count();
    let unmarked = all.count() - protected - unprotected;
    let mut out = format!(
        "{exercise}  line marks: {protected} protected, {unprotected} unprotected, {unmarked} \
         without a mark; {} mutants judged ({seconds:.1} s)\n",
        report.mutants
    );
    for procedure in &report.procedures {
        let _ = writeln!(out, "  {}", procedure.procedure);
        let text = texts
            .iter()
            .find(|(name, _)| *name == procedure.procedure)
            .map_or("", |(_, text)| text.as_str());
        let written: Vec<&str> = text.lines().collect();
        for mark in &procedure.lines {
            let line = mark.line;
            let shown = written
                .get(line.saturating_sub(1) as usize)
                .copied()
                .unwrap_or("");
            let (symbol, said) = mark_words(mark);
            let _ = writeln!(out, "    {symbol} {line:>3} | {shown}");
            for sentence in said {
                let _ = writeln!(out, "            {sentence}");
            }
        }
    }
    out
}

/// A line mark's symbol (`✓` protected, `?` unprotected, `·` without a
/// mark) and the sentences said under its line.
fn mark_words(mark: &fencelab_core::protection::LineMark) -> (&'static str, Vec<String>) {
    use fencelab_core::protection::{
        LineStatus, caught_sentence, unmarked_sentence, unprotected_sentence,
    };
    let line = mark.line;
    match &mark.status {
        LineStatus::Protected { caught, uncaught } => {
            let mut said: Vec<String> = caught
                .iter()
                .map(|change| {
                    // One process has one schedule: nothing to show.
                    let schedule = if change.schedule.is_empty() {
                        String::new()
                    } else {
                        format!(" (schedule `{}`)", change.schedule)
                    };
                    format!(
                        "{}: {}{schedule}",
                        caught_sentence(line, change),
                        change.sentence
                    )
                })
                .collect();
            if !uncaught.is_empty() {
                said.push(format!(
                    "no scenario notices if you {}",
                    uncaught.join(", or if you ")
                ));
            }
            ("✓", said)
        }
        LineStatus::Unprotected { descriptions } => (
            "?",
            vec![format!(
                "{} (tried: {})",
                unprotected_sentence(line),
                descriptions.join("; ")
            )],
        ),
        status => ("·", unmarked_sentence(line, status).into_iter().collect()),
    }
}

/// The lines that differ between two texts, `-` then `+`, with the line
/// number of the first: a mutant changes one place, so one hunk.
fn diff(before: &str, after: &str) -> String {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = format!("    @@ line {}\n", prefix + 1);
    for line in &old[prefix..old.len() - suffix] {
        let _ = writeln!(out, "    - {line}");
    }
    for line in &new[prefix..new.len() - suffix] {
        let _ = writeln!(out, "    + {line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_model::report::{Explored, ScenarioError};

    /// A scenario stopped by `limit`, as the check reports it.
    fn stopped_by(limit: Limit) -> ScenarioReport {
        let scenario = fencelab_core::Scenario {
            name: "one winner".into(),
            summary: String::new(),
            limit: false,
            show_wait: false,
            steps: Vec::new(),
            invariants: Vec::new(),
            points: 1,
            isolation: None,
        };
        ScenarioReport::errored(&scenario, ScenarioError::of(ErrorKind::Limit { limit }))
    }

    /// The model's sentence names no flag (the page shows it too): the CLI
    /// adds the one that raises each limit, after that sentence as it is.
    #[test]
    fn a_limit_says_the_models_sentence_then_the_flag_that_raises_it() {
        let explored = Some(Explored {
            schedules: 3,
            pruned: 1,
        });
        let flags = [
            (Limit::Schedules { maximum: 1 }, "--max-schedules"),
            (
                Limit::ProcedureSteps {
                    maximum: 9,
                    explored,
                },
                "--max-steps",
            ),
            (
                Limit::ProcedureSteps {
                    maximum: 9,
                    explored: None,
                },
                "--max-steps",
            ),
            (Limit::SqliteSteps { maximum: 9 }, "--max-sqlite-steps"),
            (
                Limit::Memory {
                    maximum_bytes: 1 << 20,
                },
                "--max-memory-mib",
            ),
            (Limit::Suite { scenarios: 2 }, "explore --scenario NAME"),
        ];
        for (limit, flag) in flags {
            let report = stopped_by(limit);
            let said = problem(&report).expect("a limit is a problem");
            let model = report.problem().expect("a limit is a problem");
            assert!(said.starts_with(&model), "{said}");
            assert!(said[model.len()..].contains(flag), "{said}");
        }
        // A bound no flag sets is said as the model says it.
        let section = stopped_by(Limit::SectionSteps { maximum: 400 });
        assert_eq!(problem(&section), section.problem());
    }
}
