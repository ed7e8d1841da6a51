//! Reports as text for a terminal.

use fencelab_core::check::{Verdict, describe_outcome};
use fencelab_core::exercise::{ExerciseCheck, ExerciseReport};
use fencelab_core::history::{Event, What};
use fencelab_core::{ScenarioReport, Values};
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
    let _ = write!(out, "    {:<12} {}", verdict(report.verdict), report.name);
    if explore {
        let e = &report.exploration;
        let _ = write!(
            out,
            "  ({} schedules, {} states, {} pruned)",
            e.schedules, e.states, e.pruned
        );
    }
    out.push('\n');
    if let Some(failure) = &report.failure {
        let _ = writeln!(out, "        {}", failure.message);
    }
    if let Some(error) = &report.error {
        let place = match (&report.error_procedure, report.error_position) {
            (Some(procedure), Some(position)) => format!(" ({procedure}, {position})"),
            _ => String::new(),
        };
        let _ = writeln!(out, "        {error}{place}");
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
        if scenario.verdict == Verdict::Failed {
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
    let flagged = report.failure.as_ref().and_then(|f| f.event_index);
    for (index, event) in report.history.iter().enumerate() {
        let Some(text) = event_text(event) else {
            continue;
        };
        let who = event
            .process
            .as_deref()
            .map(|process| {
                let name = report
                    .lanes
                    .iter()
                    .find(|l| l.process == process)
                    .map_or(process, |l| l.name.as_str());
                format!("{name:<4}")
            })
            .unwrap_or_else(|| "    ".into());
        let mark = if Some(index) == flagged { ">>" } else { "  " };
        let _ = writeln!(
            out,
            "      {mark} {index:>3}  t={:<6} {who} {text}",
            event.clock_seconds
        );
    }
    out
}

fn values(values: &Values) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn event_text(event: &Event) -> Option<String> {
    let procedure = event.procedure.as_deref().unwrap_or("");
    Some(match &event.what {
        What::ProcessStarted => format!("starts ({})", event.actor.as_deref().unwrap_or("")),
        What::ProcessCrashed { rolled_back } => {
            format!(
                "crashes{}",
                if *rolled_back {
                    ", its transaction rolled back"
                } else {
                    ""
                }
            )
        }
        What::ClockSet { to_seconds, .. } => format!("clock -> {to_seconds}"),
        What::CallStarted { arguments } => format!("{procedure}({})", values(arguments)),
        What::Statement {
            sql,
            parameters,
            changed,
            returned,
        } => {
            let sql = sql.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut text = format!("{procedure}: {sql}");
            if !parameters.is_empty() {
                let _ = write!(text, "  [{}]", values(parameters));
            }
            if *changed > 0 {
                let _ = write!(text, "  changed {changed}");
            }
            if !returned.columns.is_empty() {
                let _ = write!(text, "  returned {} rows", returned.rows.len());
            }
            text
        }
        What::Blocked { sql } => format!(
            "{procedure}: waits for the lock at {}",
            sql.split_whitespace().collect::<Vec<_>>().join(" ")
        ),
        What::Effect { name, values: v } => {
            format!("{procedure}: external effect {name}({})", values(v))
        }
        What::CallFinished {
            outcome,
            rolled_back,
        } => format!(
            "{procedure} -> {}{}",
            describe_outcome(outcome),
            if *rolled_back { ", rolled back" } else { "" }
        ),
        What::DirectSql { sql, changed } => format!("direct SQL: {sql}  changed {changed}"),
    })
}
