//! Drive it yourself: choose which process moves next, undo, restart, and
//! watch the timeline grow into your own counterexample.

use crate::components::hunt_verdict_line::HuntVerdictLine;
use fencelab_model::{Drive, HuntVerdict, Schedule};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DrivePanelProps {
    pub scenario: AttrValue,
    pub schedule: Schedule,
    pub last: Option<Rc<Drive>>,
    /// A move was asked for and the worker has not answered yet.
    pub waiting: bool,
    /// Why the worker could not take the last move asked for.
    pub failed: Option<String>,
    /// A hunt in a challenge: the drive's end is judged as one (won, or
    /// not a win), from the worker's verdict.
    #[prop_or_default]
    pub hunt: bool,
    #[prop_or_default]
    pub verdict: Option<HuntVerdict>,
    pub on_move: Callback<String>,
    pub on_undo: Callback<()>,
    pub on_restart: Callback<()>,
    pub on_stop: Callback<()>,
}

#[function_component(DrivePanel)]
pub fn drive_panel(props: &DrivePanelProps) -> Html {
    let undo = props.on_undo.reform(|_: MouseEvent| ());
    let restart = props.on_restart.reform(|_: MouseEvent| ());
    let stop = props.on_stop.reform(|_: MouseEvent| ());
    let options = props
        .last
        .as_ref()
        .map(|d| d.options.clone())
        .unwrap_or_default();
    let finished = props.last.as_ref().is_some_and(|d| d.finished);
    html! {
        <section class="drive" id="drive" tabindex="-1" aria-labelledby="drive-title" aria-busy={props.waiting.to_string()}>
            <h2 id="drive-title">{ if props.hunt { format!("Hunting in “{}”", props.scenario) } else { format!("Driving “{}” by hand", props.scenario) } }</h2>
            <p>{ "Your schedule so far: " }<code id="drive-schedule">{ if props.schedule.is_empty() { "(none yet)".to_string() } else { props.schedule.to_string() } }</code></p>
            if !finished {
                <div class="drive-options" role="group" aria-label="Which process moves next" aria-busy={props.waiting.to_string()}>
                    { for options.iter().enumerate().map(|(i, name)| {
                        let pick = name.clone();
                        let on_move = props.on_move.reform(move |_: MouseEvent| pick.clone());
                        // The process by its one name, as the lanes say it.
                        let called = props.last.as_ref().and_then(|d| d.report.lanes.iter().find(|l| &l.name == name)).map_or_else(|| name.clone(), |l| l.called.clone());
                        // What the move runs, as the worker said it (an
                        // older worker says nothing): the learner chooses a
                        // statement, not only a name.
                        let next = props.last.as_ref().and_then(|d| d.next.get(i).cloned());
                        let described = format!("drive-next-{i}");
                        html! {
                            <div class="drive-option">
                                <button class="drive-move" data-process={name.clone()} onclick={on_move} disabled={props.waiting}
                                    aria-describedby={next.is_some().then(|| described.clone())}>{ format!("Move {called}") }</button>
                                { match next {
                                    Some(Some(sql)) => html! {
                                        <span class="drive-next" id={described}>{ "runs " }<code class="sql">{ sql.split_whitespace().collect::<Vec<_>>().join(" ") }</code></span>
                                    },
                                    Some(None) => html! { <span class="drive-next" id={described}>{ "ends its call" }</span> },
                                    None => html! {},
                                } }
                            </div>
                        }
                    }) }
                    if props.last.is_none() && props.failed.is_none() { <span class="muted">{ "Starting…" }</span> }
                </div>
            } else if props.hunt {
                <HuntVerdictLine verdict={props.verdict.clone()} />
            } else {
                <p class="drive-finished" id="drive-finished">
                    { match props.last.as_ref().map(|d| &d.report) {
                        Some(report) => match (report.failure(), report.error()) {
                            (Some(failure), _) => format!("✗ Your schedule breaks it: {failure}"),
                            (None, Some(error)) => format!("The scenario finished: {} — {error}", report.verdict().word()),
                            (None, None) => format!("The scenario finished: {}", report.verdict().word()),
                        },
                        None => String::new(),
                    } }
                </p>
            }
            if let Some(message) = &props.failed {
                <p class="error-message drive-failed" id="drive-failed" role="alert">
                    { format!("⚠ This step could not be taken: {message}") }
                </p>
            }
            <div class="drive-controls">
                <button id="drive-undo" onclick={undo} disabled={props.schedule.is_empty()}>{ "Undo a step" }</button>
                <button id="drive-restart" onclick={restart}>{ "Restart" }</button>
                <button id="drive-stop" onclick={stop}>{ "Stop driving" }</button>
            </div>
        </section>
    }
}
