//! What a hunt's newest move came to, in the drive panel: a break (with
//! how many moves it took and the fewest there are), a guarantee held, or
//! an order that could not be judged, none of them a win but the first.

use fencelab_model::HuntVerdict;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HuntVerdictLineProps {
    /// None while the worker has not judged the newest move.
    pub verdict: Option<HuntVerdict>,
}

/// What the hunt's newest move came to, in the drive panel.
#[function_component(HuntVerdictLine)]
pub fn hunt_verdict_line(props: &HuntVerdictLineProps) -> Html {
    match &props.verdict {
        None | Some(HuntVerdict::Going) => html! {},
        Some(HuntVerdict::Broken(found)) => html! {
            <div class="hunt-won" id="hunt-verdict" data-verdict="won" data-moves={found.moves().to_string()}
                data-shortest={found.shortest_moves.map(|m| m.to_string()).unwrap_or_default()}>
                <p><strong>{ "✓ You broke it." }</strong>{ format!(" The guarantee that broke: {}", found.failure) }</p>
                <p id="hunt-lengths">{ found.lengths() }</p>
            </div>
        },
        Some(HuntVerdict::Held) => html! {
            <p class="hunt-held" id="hunt-verdict" data-verdict="held">
                { "Every guarantee held: this order breaks nothing, so it is not a win. Undo some moves and try another order." }
            </p>
        },
        Some(HuntVerdict::Unjudged { error }) => html! {
            <p class="error-message" id="hunt-verdict" data-verdict="unjudged">
                { format!("This order could not be judged, so it is not a win: {error}") }
            </p>
        },
    }
}
