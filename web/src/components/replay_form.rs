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
    pub on_replay: Callback<(String, String)>,
}

#[function_component(ReplayForm)]
pub fn replay_form(props: &ReplayFormProps) -> Html {
    let input = use_node_ref();
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
    html! {
        <form class="replay" onsubmit={submit}>
            <label for="replay-schedule">{ "Replay a schedule:" }</label>
            <input id="replay-schedule" ref={input} type="text" spellcheck="false"
                aria-describedby="replay-help"
                key={props.schedule.to_string()} value={props.schedule.clone()} />
            <button type="submit" id="replay-run">{ "Replay" }</button>
            <span id="replay-help" class="muted">
                { format!("Which process moves next, in order: {}.", props.processes.join(", ")) }
            </span>
        </form>
    }
}
