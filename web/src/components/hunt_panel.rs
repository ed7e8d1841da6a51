//! "Break it yourself", open: the scenarios to hunt in, in place of the
//! verdicts, whose counterexamples stay hidden, or, on a text with nothing
//! to hunt, why and the other broken texts. The offer is `hunt_offer.rs`;
//! what a hunt found is `hunt_verdict_line.rs`, drawn in the drive panel.
//! Every sentence about a break is the model's (`Break`'s).

use crate::state::{HuntTargets, HuntText};
use fencelab_model::exercise::Variant;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HuntPanelProps {
    pub text: HuntText,
    /// None until the check of the challenge's text has answered.
    pub targets: Option<HuntTargets>,
    /// The scenario being hunted in, if any.
    pub hunting: Option<String>,
    /// The exercise's broken variants: offered instead when this text has
    /// nothing to hunt.
    #[prop_or_default]
    pub variants: Vec<Variant>,
    pub on_hunt: Callback<String>,
    #[prop_or_default]
    pub on_start: Callback<HuntText>,
    pub on_leave: Callback<()>,
}

/// A text with nothing to hunt: why, and what there is instead (the other
/// broken texts, and the verdicts once the challenge is left).
fn nothing_to_hunt(props: &HuntPanelProps, offer: &HuntTargets) -> Html {
    let why = offer
        .unoffered(false)
        .map(|said| format!(" {said}"))
        .unwrap_or_default();
    let others: Vec<&Variant> = props
        .variants
        .iter()
        .filter(|v| props.text != HuntText::Variant(v.name.clone()))
        .collect();
    let start = |text: HuntText| props.on_start.reform(move |_: MouseEvent| text.clone());
    html! {<>
        <p id="hunt-nothing">
            { format!("There is nothing to hunt on this text: no scenario breaks in an order you can choose.{why}") }
        </p>
        if offer.unhuntable > 0 {
            <p class="muted">{ "Leave the challenge to see the breaks that need no order in the verdicts, each with its timeline." }</p>
        }
        if !others.is_empty() || props.text != HuntText::Start {
            <p>{ "Try a broken text instead:" }</p>
            <div class="hunt-texts">
                if props.text != HuntText::Start {
                    <button class="hunt-start" data-hunt-text="start" onclick={start(HuntText::Start)}>
                        { "Break the starting text" }
                    </button>
                }
                { for others.iter().map(|v| html! {
                    <button class="hunt-start" data-hunt-text={v.name.clone()}
                        onclick={start(HuntText::Variant(v.name.clone()))}>
                        { format!("Break the variant “{}”", v.name) }
                    </button>
                }) }
            </div>
        }
    </>}
}

/// An open challenge: the scenarios this text breaks in some order.
#[function_component(HuntPanel)]
pub fn hunt_panel(props: &HuntPanelProps) -> Html {
    let leave = props.on_leave.reform(|_: MouseEvent| ());
    html! {
        <section class="hunt" id="hunt" aria-labelledby="hunt-title">
            <h2 id="hunt-title">{ format!("Break it yourself: {}", props.text.label()) }</h2>
            { match &props.targets {
                None => html! { <p class="muted" role="status">{ "Finding the scenarios this text breaks…" }</p> },
                Some(offer) if offer.targets.is_empty() => nothing_to_hunt(props, offer),
                Some(offer) => html! {<>
                    <p>{ "Each scenario below breaks on this text in some order of its processes. Choose one and move them until a guarantee breaks: any break counts." }</p>
                    <ul class="hunt-targets">
                        { for offer.targets.iter().map(|target| {
                            let name = target.scenario.clone();
                            let hunt = props.on_hunt.reform(move |_: MouseEvent| name.clone());
                            let current = props.hunting.as_deref() == Some(target.scenario.as_str());
                            html! {
                                <li class="hunt-target" data-scenario={target.scenario.clone()}>
                                    <button class="hunt-button" onclick={hunt} aria-pressed={current.to_string()}>
                                        { format!("Hunt in “{}”", target.scenario) }
                                    </button>
                                    if let Some(moves) = target.found_moves {
                                        <span class="hunt-found">{ format!(" ✓ broken, in {moves} moves at best") }</span>
                                    }
                                    <p class="muted">{ format!("{} (you move {})", target.summary, target.processes.join(" and ")) }</p>
                                </li>
                            }
                        }) }
                    </ul>
                    if let Some(said) = offer.unoffered(true) {
                        <p class="muted hunt-unoffered">{ said }</p>
                    }
                </>},
            } }
            <button id="hunt-leave" onclick={leave}>{ "Leave the challenge" }</button>
        </section>
    }
}
