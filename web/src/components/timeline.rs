//! Why it failed: a scenario's history as a timeline, one row per step, in
//! compact lanes that fit any width: each row names its process (and the
//! actor it hosts) and is indented to that process's lane, so four processes
//! read as well in a narrow column as two. Blocked steps show as waits; the
//! step where an expectation or invariant broke is marked in words as well
//! as colour. A long history is folded around the steps that matter
//! (`fold.rs`). The arrow keys step backward and forward.
//!
//! Who believes what after each step is the report's own record
//! (`ScenarioReport::beliefs`), shown where it changes and at the steps the
//! learner looks at; the failure's sentence is the report's.

use crate::components::line_marks::with_code;
use crate::fold::{self, Row};
use crate::state::{SharedReport, Without};
use fencelab_model::history::{Detail, Event, What, Wording};
use fencelab_model::monitor::Belief;
use std::rc::Rc;
use yew::prelude::*;

/// Lanes beyond this many share the last lane's indent.
const LANE_INDENTS_MAX: usize = 5;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub report: SharedReport,
    /// The line changed, when the report is a line mark's counterexample
    /// rather than a run of the learner's own texts.
    pub without: Option<Rc<Without>>,
    /// A drive that has not finished: its run so far has no verdict yet.
    #[prop_or_default]
    pub unfinished: bool,
    pub step: usize,
    pub on_step: Callback<usize>,
    pub on_step_by: Callback<isize>,
    /// Put before its elements' ids, for a second timeline on the page
    /// (the recorded PostgreSQL one's), so that no id is there twice.
    #[prop_or_default]
    pub id_prefix: AttrValue,
}

/// One step's cell: the model's [`Wording`] of the event, wrapped in the
/// markup and signs of its kind (the CLI prints the same words on a line).
fn cell(event: &Event) -> Html {
    let Wording { lead, sql, details } = event.wording();
    let code = |sql: Option<String>| html! { <code class="sql">{ sql.unwrap_or_default() }</code> };
    let detail = |wanted: Detail| {
        details
            .iter()
            .find(|(kind, _)| *kind == wanted)
            .map(|(_, text)| text.clone())
    };
    match &event.what {
        What::ProcessStarted | What::ClockSet { .. } => html! { <span>{ lead }</span> },
        What::ProcessCrashed { .. } => html! { <span class="crash">{ "💥 " }{ lead }</span> },
        What::CallStarted { .. } => html! { <span class="call">{ lead }</span> },
        What::Statement { .. } => html! {
            <div class="statement">
                { code(sql) }
                if let Some(text) = detail(Detail::Parameters) { <div class="params">{ text }</div> }
                if let Some(text) = detail(Detail::Changed) { <div class="changed">{ text }</div> }
                if let Some(text) = detail(Detail::Returned) { <div class="returned">{ text }</div> }
            </div>
        },
        What::Blocked { .. } => html! {
            <div class="blocked">
                { "⏳ " }{ lead }{ "; " }{ code(sql) }{ " " }{ detail(Detail::NotRun).unwrap_or_default() }
            </div>
        },
        What::Effect { .. } => html! { <span class="effect">{ "⚡ " }{ lead }</span> },
        What::CallFinished { outcome, .. } => html! {
            <span class={classes!("finished", outcome.kind())}>
                { lead }
                if let Some(text) = detail(Detail::RolledBack) { { format!(" ({text})") } }
            </span>
        },
        What::DirectSql { .. } => html! {
            <div class="direct">
                { code(sql) }{ format!(" ({lead}, {})", detail(Detail::Changed).unwrap_or_default()) }
            </div>
        },
    }
}

/// What the processes believe after step `i`, when it is worth saying
/// there: where it changed, and at the steps the learner looks at.
fn beliefs_at(beliefs: &[Vec<Belief>], i: usize, always: bool) -> Option<&[Belief]> {
    let now = beliefs.get(i).map(Vec::as_slice).unwrap_or_default();
    let before = i
        .checked_sub(1)
        .and_then(|b| beliefs.get(b))
        .map(Vec::as_slice)
        .unwrap_or_default();
    (always || now != before).then_some(now)
}

/// "a = worker-a, b = worker-b": the schedule's words for the processes, by
/// the names the lanes use.
fn schedule_key(report: &fencelab_model::ScenarioReport) -> String {
    report
        .lanes
        .iter()
        .map(|lane| format!("{} = {}", lane.name, report.called(&lane.process)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[function_component(Timeline)]
pub fn timeline(props: &TimelineProps) -> Html {
    let report = &props.report;
    let whole = use_state(|| false);
    // Folds opened by a click, by their first step; a new report starts folded.
    let opened = use_state(Vec::<usize>::new);
    {
        let opened = opened.clone();
        use_effect_with(report.clone(), move |_| opened.set(Vec::new()));
    }
    let title = match &props.without {
        Some(without) => format!(
            "Counterexample: “{}” without line {} of {}",
            report.name, without.line, without.procedure
        ),
        None => format!("Timeline of “{}”", report.name),
    };
    let rows = shown_rows(props, &opened, *whole);
    let long = report.history.len() > fold::FOLD_STEPS_MIN;
    let toggle_whole = {
        let whole = whole.clone();
        Callback::from(move |_: MouseEvent| whole.set(!*whole))
    };
    html! {
        <section class={classes!("timeline", props.without.is_some().then_some("counterexample"))} aria-labelledby={format!("{}timeline-title", props.id_prefix)}>
            <h2 id={format!("{}timeline-title", props.id_prefix)}>{ title.clone() }</h2>
            { heading(props) }
            <p class="muted timeline-help">
                { "Click a step, or focus the timeline and use the arrow keys (Home and End: the first and last step)." }
                if long {
                    { " " }
                    <button class="fold-toggle" aria-pressed={(*whole).to_string()} onclick={toggle_whole}>
                        { if *whole { "Fold the statements inside calls" } else { "Show every step" } }
                    </button>
                }
            </p>
            <div class="timeline-scroll" tabindex="0" role="group" aria-label={format!("{title}: steps; arrow keys move between steps")}
                onkeydown={on_arrow_keys(props.on_step_by.clone(), props.on_step.clone(), report.history.len())}>
                <table class="lanes">
                    <thead>
                        <tr>
                            <th scope="col" class="step-col">{ "step" }</th>
                            <th scope="col" class="who-col">{ "who" }</th>
                            <th scope="col">{ "what happened, and who believes it holds what" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for rows.iter().map(|row| match row {
                            Row::Step(i) => step_row(props, *i),
                            Row::Folded { first, last } => fold_row(report, *first, *last, &opened),
                        }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}

/// What is said above the steps: whose text a counterexample runs, the
/// verdict, and the schedule with its key.
fn heading(props: &TimelineProps) -> Html {
    let report = &props.report;
    html! { <>
        if let Some(without) = &props.without {
            <p class="counterexample-note">
                { with_code(&format!(
                    "This is not your text: it is {} with line {} changed ({}). {}",
                    without.procedure, without.line, without.description,
                    if without.limit {
                        format!("Your own {} shows the limit “{}” as the exercise describes it; this run shows what that line does to it.", without.procedure, report.name)
                    } else {
                        format!("Your own {} passes “{}”; this run shows what that line prevents.", without.procedure, report.name)
                    }
                )) }
            </p>
        }
        <p class="timeline-verdict">
            if props.unfinished {
                { "No verdict yet: the scenario has not finished. Choose the next move." }
            } else {
                { format!("Verdict: {}", report.verdict().word()) }
                if let Some(problem) = report.problem() { { format!(" — {problem}") } }
            }
        </p>
        if !report.schedule.is_empty() {
            <p class="schedule">
                { "Schedule: " }<code id={format!("{}shown-schedule", props.id_prefix)}>{ report.schedule.to_string() }</code>
                // The schedule moves processes by the scenario's words
                // for them; the key names them as the lanes do.
                <span class="schedule-key">{ format!(" ({})", schedule_key(report)) }</span>
            </p>
        }
    </> }
}

/// The arrow keys move the selected step by one; Home and End select the
/// first and the last step (rather than only scrolling the box, which
/// would leave the selection, and the tables after it, behind).
fn on_arrow_keys(
    on_step_by: Callback<isize>,
    on_step: Callback<usize>,
    steps: usize,
) -> Callback<KeyboardEvent> {
    Callback::from(move |event: KeyboardEvent| match event.key().as_str() {
        "ArrowDown" | "ArrowRight" => {
            event.prevent_default();
            on_step_by.emit(1);
        }
        "ArrowUp" | "ArrowLeft" => {
            event.prevent_default();
            on_step_by.emit(-1);
        }
        "Home" if steps > 0 => {
            event.prevent_default();
            on_step.emit(0);
        }
        "End" if steps > 0 => {
            event.prevent_default();
            on_step.emit(steps - 1);
        }
        _ => {}
    })
}

/// The rows shown: the selected step, the failing one and every fold the
/// learner opened stay unfolded (all of them with `whole`).
fn shown_rows(props: &TimelineProps, opened: &[usize], whole: bool) -> Vec<Row> {
    let report = &props.report;
    let mut keep = vec![props.step];
    keep.extend(report.failure().and_then(|f| f.event_index));
    keep.extend(opened.iter().copied());
    fold::rows(&report.history, &keep, whole)
        .into_iter()
        .flat_map(|row| match row {
            Row::Folded { first, last } if opened.contains(&first) => {
                (first..=last).map(Row::Step).collect::<Vec<_>>()
            }
            row => vec![row],
        })
        .collect()
}

/// The process's tag in its lane and the tooltip about it: its one name
/// (naming.rs in the model), then its id and the schedule's word for it,
/// for who asks.
fn who(report: &SharedReport, lane: Option<usize>, event: &Event) -> (String, String) {
    match (lane.and_then(|l| report.lanes.get(l)), &event.process) {
        (Some(lane), Some(process)) => (
            report.called(process).to_string(),
            format!(
                "{process}, hosting {}; “{}” in a schedule",
                lane.actor, lane.name
            ),
        ),
        (None, Some(process)) => (process.clone(), process.clone()),
        (_, None) => ("world".to_string(), String::new()),
    }
}

/// A process's name with each of its words kept whole: the line may break
/// between words ("operator-course" / "#2"), never inside one, not even at
/// a hyphen. The column is as wide as the longest word (style.css).
fn words(name: &str) -> Html {
    html! {
        { for name.split(' ').enumerate().map(|(i, word)| html! {<>
            if i > 0 { { " " } }
            <span class="word">{ word.to_string() }</span>
        </>}) }
    }
}

/// Step `i`: its number and clock, who moved, what happened and the
/// beliefs where they change; the failing step says how it broke.
fn step_row(props: &TimelineProps, i: usize) -> Html {
    let report = &props.report;
    let event = &report.history[i];
    let lane = report
        .lanes
        .iter()
        .position(|l| Some(&l.process) == event.process.as_ref());
    let selected = i == props.step;
    let broke = report.failure().and_then(|f| f.event_index) == Some(i);
    let blocked = matches!(event.what, What::Blocked { .. });
    let pick = props.on_step.reform(move |_: MouseEvent| i);
    let (tag, about) = who(report, lane, event);
    let indent = format!("indent-{}", lane.map_or(0, |l| l.min(LANE_INDENTS_MAX)));
    let held = beliefs_at(&report.beliefs, i, selected || broke);
    html! {
        <>
        <tr class={classes!("event", selected.then_some("selected"), broke.then_some("failing"), blocked.then_some("waiting"), lane.is_none().then_some("world"))}
            data-step={i.to_string()} aria-current={selected.then_some("step")} onclick={pick}>
            <th scope="row">
                <span class="step-number">{ if selected { format!("▶ {}", i + 1) } else { (i + 1).to_string() } }</span>
                <span class="clock">{ format!("{} s", event.clock_seconds) }</span>
            </th>
            <td class="who" title={about}>
                <span class="lane-tag">{ words(&tag) }</span>
            </td>
            <td class="lane-cell">
                <div class={classes!("lane-body", indent)}>
                    { cell(event) }
                    if let Some(held) = held {
                        <div class="beliefs">
                            if held.is_empty() {
                                <div class="belief muted">{ "Nobody believes it holds anything." }</div>
                            }
                            { for held.iter().map(|b| html! {
                                <div class="belief">{ format!("{} believes it holds {}", b.called, b.describe()) }</div>
                            }) }
                        </div>
                    }
                </div>
            </td>
        </tr>
        if broke {
            <tr class="failing-note">
                <td colspan="3">
                    { format!("✗ broke here: {}", report.failure().map(ToString::to_string).unwrap_or_default()) }
                </td>
            </tr>
        }
        </>
    }
}

/// Steps `first..=last` folded into one row that names who moved in them;
/// a click opens it.
fn fold_row(
    report: &SharedReport,
    first: usize,
    last: usize,
    opened: &UseStateHandle<Vec<usize>>,
) -> Html {
    let mut who: Vec<&str> = Vec::new();
    for event in &report.history[first..=last] {
        let name = event
            .process
            .as_deref()
            .map_or("the world", |p| report.called(p));
        if !who.contains(&name) {
            who.push(name);
        }
    }
    let open = {
        let opened = opened.clone();
        Callback::from(move |_: MouseEvent| {
            let mut now = (*opened).clone();
            now.push(first);
            opened.set(now);
        })
    };
    html! {
        <tr class="fold">
            <td colspan="3">
                <button class="fold-open" data-first={first.to_string()} onclick={open}>
                    { format!("⋯ {} by {} (steps {}–{}): show", plural(last - first + 1, "statement", "statements"), who.join(", "), first + 1, last + 1) }
                </button>
            </td>
        </tr>
    }
}
