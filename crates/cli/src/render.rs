//! Reports as text for a terminal. The sentences (failures, outcomes,
//! events) are the model's own `Display`s, so the CLI words them as the
//! page does.

use fencelab_core::{ExerciseCheck, ExerciseReport, ScenarioReport, Verdict};
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
    if let Some(problem) = report.problem() {
        let _ = writeln!(out, "        {problem}");
    }
}

pub fn check(check: &ExerciseCheck) -> String {
    let mut out = String::new();
    let report = &check.reference;
    let _ = writeln!(out, "{}  {}", report.exercise, check.title);
    let _ = writeln!(
        out,
        "  reference: {}/{} scenarios pass",
        report.passed,
        report.scenarios.len()
    );
    for scenario in &report.scenarios {
        scenario_line(&mut out, scenario, false);
    }
    let caught = check.mutants.iter().filter(|m| m.caught).count();
    let _ = writeln!(out, "  mutants: {caught}/{} caught", check.mutants.len());
    for mutant in &check.mutants {
        let status = if mutant.caught { "caught" } else { "SURVIVED" };
        let _ = write!(out, "    {status:<12} {}", mutant.name);
        if mutant.caught {
            let _ = write!(out, "  by: {}", mutant.caught_by.join("; "));
        }
        out.push('\n');
        for (scenario, error) in &mutant.errored_in {
            let _ = writeln!(out, "        ERROR in {scenario}: {error}");
        }
    }
    out.push('\n');
    out
}

pub fn run(report: &ExerciseReport, explore: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", report.exercise);
    for scenario in &report.scenarios {
        scenario_line(&mut out, scenario, explore);
        if scenario.verdict() == Verdict::Failed {
            let _ = writeln!(
                out,
                "        shortest failing schedule: {}",
                scenario.schedule
            );
            out.push_str(&history(scenario));
        }
    }
    let _ = writeln!(out, "{} passed, {} failed", report.passed, report.failed);
    out
}

/// The history, one line per event, with scenario process names.
fn history(report: &ScenarioReport) -> String {
    let mut out = String::new();
    let flagged = report.failure().and_then(|f| f.event_index);
    for (index, event) in report.history.iter().enumerate() {
        let who = event
            .process
            .as_deref()
            .map(|process| format!("{:<4}", report.lane_name(process)))
            .unwrap_or_else(|| "    ".into());
        let mark = if Some(index) == flagged { ">>" } else { "  " };
        let _ = writeln!(
            out,
            "      {mark} {index:>3}  t={:<6} {who} {event}",
            event.clock_seconds
        );
    }
    out
}
