//! Replay any schedule of the shown scenario: the one found, one chosen by
//! hand, or one typed in (process names in order, such as `a b b a`).

use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ReplayFormProps {
    pub scenario: AttrValue,
    pub schedule: AttrValue,
    /// The processes the scenario interleaves, the names a schedule uses.
    pub processes: Vec<String>,
    /// Why the schedule typed could not be replayed: said here, beside the
    /// box it was typed in.
    #[prop_or_default]
    pub refused: Option<String>,
    pub on_replay: Callback<(String, String)>,
}

#[function_component(ReplayForm)]
pub fn replay_form(props: &ReplayFormProps) -> Html {
    let input = use_node_ref();
    // What the box holds: the schedule shown until the learner types, then
    // what they typed, until another schedule (or scenario) is shown. The
    // page renders again whenever the worker answers anything, and the box
    // must keep what was typed through those renders: yew writes an input's
    // `value` into the DOM whenever the two differ, so a value of the shown
    // schedule alone would put it back over the learner's typing. Replay
    // reads the box itself (`input`), whatever put the text there.
    let shown = (props.scenario.clone(), props.schedule.clone());
    let text = use_mut_ref(|| (shown.clone(), props.schedule.to_string()));
    if text.borrow().0 != shown {
        *text.borrow_mut() = (shown, props.schedule.to_string());
    }
    let typed = {
        let text = text.clone();
        Callback::from(move |event: InputEvent| {
            if let Some(input) = event.target_dyn_into::<HtmlInputElement>() {
                text.borrow_mut().1 = input.value();
            }
        })
    };
    let submit = {
        let input = input.clone();
        let scenario = props.scenario.to_string();
        let on_replay = props.on_replay.clone();
        Callback::from(move |event: SubmitEvent| {
            event.prevent_default();
            if let Some(input) = input.cast::<HtmlInputElement>() {
                on_replay.emit((scenario.clone(), input.value()));
            }
        })
    };
    let value = text.borrow().1.clone();
    html! {
        <form class="replay" onsubmit={submit}>
            <label for="replay-schedule">{ "Replay a schedule:" }</label>
            <input id="replay-schedule" ref={input} type="text" spellcheck="false"
                aria-describedby={if props.refused.is_some() { "replay-refused replay-help" } else { "replay-help" }}
                aria-invalid={props.refused.is_some().then_some("true")} oninput={typed} {value} />
            <button type="submit" id="replay-run">{ "Replay" }</button>
            if let Some(refused) = &props.refused {
                <p id="replay-refused" class="error-message replay-refused" role="alert">{ format!("⚠ {refused}") }</p>
            }
            <span id="replay-help" class="muted">
                { format!("Which process moves next, in order: {}.", props.processes.join(", ")) }
            </span>
        </form>
    }
}
