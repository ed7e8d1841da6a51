//! Why it failed: a scenario's history as a timeline, one swim lane per
//! process, one row per step. Blocked steps show as waits; the step where an
//! expectation or invariant broke is marked in words as well as colour. The
//! arrow keys step backward and forward.
//!
//! Who believes what after each step is the report's own record
//! (`ScenarioReport::beliefs`), and the failure's sentence is the report's.

use crate::components::line_marks::with_code;
use crate::state::{SharedReport, Without};
use fencelab_model::history::{Event, Outcome, ResultRows, What, show_values};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub report: SharedReport,
    /// The line changed, when the report is a line mark's counterexample
    /// rather than a run of the learner's own texts.
    pub without: Option<Rc<Without>>,
    pub step: usize,
    pub on_step: Callback<usize>,
    pub on_step_by: Callback<isize>,
}

fn returned(rows: &ResultRows) -> Option<String> {
    if rows.columns.is_empty() {
        return None;
    }
    let shown: Vec<String> = rows
        .rows
        .iter()
        .map(|row| {
            rows.columns
                .iter()
                .zip(row)
                .map(|(c, v)| format!("{c} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    Some(match shown.len() {
        0 => "returned no rows".into(),
        1 => format!("returned 1 row: {}", shown[0]),
        n => format!("returned {n} rows: {}", shown.join("; ")),
    })
}

fn outcome(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok { values: v } if v.is_empty() => "→ ok".into(),
        Outcome::Ok { values: v } => format!("→ ok: {}", show_values(v)),
        Outcome::Refused { category, reason } => format!("→ refused ({category}): {reason}"),
        Outcome::Error(error) => format!("→ error: {}", error.message),
    }
}

fn cell(event: &Event) -> Html {
    match &event.what {
        What::ProcessStarted => {
            html! { <span>{ format!("starts, hosting {}", event.actor.clone().unwrap_or_default()) }</span> }
        }
        What::ProcessCrashed { rolled_back } => html! {
            <span class="crash">{ "💥 crashes" }{ if *rolled_back { ", its open transaction rolled back" } else { "" } }</span>
        },
        What::ClockSet {
            from_seconds,
            to_seconds,
        } => html! { <span>{ format!("clock {from_seconds} s → {to_seconds} s") }</span> },
        What::CallStarted { arguments } => html! {
            <span class="call">{ format!("calls {}({})", event.procedure.clone().unwrap_or_default(), show_values(arguments)) }</span>
        },
        What::Statement {
            sql,
            parameters,
            changed,
            returned: rows,
        } => html! {
            <div class="statement">
                <code class="sql">{ sql.clone() }</code>
                if !parameters.is_empty() { <div class="params">{ format!("with {}", show_values(parameters)) }</div> }
                <div class="changed">{ format!("changed {changed} row{}", if *changed == 1 { "" } else { "s" }) }</div>
                if let Some(text) = returned(rows) { <div class="returned">{ text }</div> }
            </div>
        },
        What::Blocked { sql } => html! {
            <div class="blocked">{ "⏳ waits: another process holds the lock; " }<code class="sql">{ sql.clone() }</code>{ " did not run" }</div>
        },
        What::Effect { name, values: v } => {
            html! { <span class="effect">{ format!("⚡ effect {name}({})", show_values(v)) }</span> }
        }
        What::CallFinished {
            outcome: o,
            rolled_back,
        } => html! {
            <span class={classes!("finished", o.kind())}>
                { outcome(o) }{ if *rolled_back { " (its transaction rolled back)" } else { "" } }
            </span>
        },
        What::DirectSql { sql, changed } => html! {
            <div class="direct"><code class="sql">{ sql.clone() }</code>{ format!(" (direct, changed {changed} rows)") }</div>
        },
    }
}

#[function_component(Timeline)]
pub fn timeline(props: &TimelineProps) -> Html {
    let report = &props.report;
    let failing = report.failure().and_then(|f| f.event_index);
    let has_world = report.history.iter().any(|e| e.process.is_none());
    let on_key = {
        let on_step_by = props.on_step_by.clone();
        Callback::from(move |event: KeyboardEvent| match event.key().as_str() {
            "ArrowDown" | "ArrowRight" => {
                event.prevent_default();
                on_step_by.emit(1);
            }
            "ArrowUp" | "ArrowLeft" => {
                event.prevent_default();
                on_step_by.emit(-1);
            }
            _ => {}
        })
    };
    let lane_of = |event: &Event| {
        report
            .lanes
            .iter()
            .position(|l| Some(&l.process) == event.process.as_ref())
    };
    let columns = report.lanes.len() + usize::from(has_world);
    let title = match &props.without {
        Some(without) => format!(
            "Counterexample: “{}” without line {} of {}",
            report.name, without.line, without.procedure
        ),
        None => format!("Timeline of “{}”", report.name),
    };
    html! {
        <section class={classes!("timeline", props.without.is_some().then_some("counterexample"))} aria-labelledby="timeline-title">
            <h3 id="timeline-title">{ title.clone() }</h3>
            if let Some(without) = &props.without {
                <p class="counterexample-note">
                    { with_code(&format!(
                        "This is not your text: it is {} with line {} changed ({}). Your own {} passes “{}”; this run shows what that line prevents.",
                        without.procedure, without.line, without.description, without.procedure, report.name
                    )) }
                </p>
            }
            <p class="timeline-verdict">
                { format!("Verdict: {}", report.verdict().word()) }
                if let Some(problem) = report.problem() { { format!(" — {problem}") } }
            </p>
            if !report.schedule.is_empty() {
                <p class="schedule">{ "Schedule: " }<code id="shown-schedule">{ report.schedule.to_string() }</code></p>
            }
            <p class="muted">{ "Click a step, or focus the timeline and use the arrow keys to step." }</p>
            <div class="timeline-scroll" tabindex="0" role="group" aria-label={format!("{title}: steps; arrow keys move between steps")} onkeydown={on_key}>
                <table class="lanes">
                    <thead>
                        <tr>
                            <th scope="col">{ "step" }</th>
                            <th scope="col">{ "clock" }</th>
                            { for report.lanes.iter().map(|lane| html! {
                                <th scope="col">{ format!("{} ({}, {})", lane.actor, lane.name, lane.process) }</th>
                            }) }
                            if has_world { <th scope="col">{ "world" }</th> }
                            <th scope="col">{ "who believes it holds what" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for report.history.iter().enumerate().map(|(i, event)| {
                            let lane = lane_of(event);
                            let selected = i == props.step;
                            let broke = failing == Some(i);
                            let blocked = matches!(event.what, What::Blocked { .. });
                            let pick = props.on_step.reform(move |_: MouseEvent| i);
                            let held = report.beliefs.get(i).map(Vec::as_slice).unwrap_or_default();
                            html! {
                                <>
                                <tr class={classes!("event", selected.then_some("selected"), broke.then_some("failing"), blocked.then_some("waiting"))}
                                    data-step={i.to_string()} aria-current={selected.then_some("step")} onclick={pick}>
                                    <th scope="row">{ if selected { format!("▶ {}", i + 1) } else { (i + 1).to_string() } }</th>
                                    <td class="clock">{ format!("{} s", event.clock_seconds) }</td>
                                    { for (0..columns).map(|column| {
                                        let here = match lane {
                                            Some(l) => l == column,
                                            None => has_world && column == report.lanes.len(),
                                        };
                                        if here { html! { <td class="lane-cell">{ cell(event) }</td> } } else { html! { <td class="lane-empty"></td> } }
                                    }) }
                                    <td class="beliefs">
                                        { for held.iter().map(|b| html! {
                                            <div class="belief">{ format!("{} believes it holds {}", b.actor, b.describe()) }</div>
                                        }) }
                                    </td>
                                </tr>
                                if broke {
                                    <tr class="failing-note">
                                        <td colspan={(columns + 3).to_string()}>
                                            { format!("✗ broke here: {}", report.failure().map(ToString::to_string).unwrap_or_default()) }
                                        </td>
                                    </tr>
                                }
                                </>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
