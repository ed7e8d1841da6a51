//! "Break it yourself", offered: a button per broken text (the starting
//! text, each named variant) that opens a challenge on it, after the
//! exercise. The challenge itself is `hunt_panel.rs`.

use crate::state::HuntText;
use fencelab_model::exercise::Variant;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HuntOfferProps {
    pub variants: Vec<Variant>,
    pub on_start: Callback<HuntText>,
}

/// The offer: one button per broken text.
#[function_component(HuntOffer)]
pub fn hunt_offer(props: &HuntOfferProps) -> Html {
    let start = |text: HuntText| props.on_start.reform(move |_: MouseEvent| text.clone());
    html! {
        <section class="hunt-offer" aria-labelledby="hunt-offer-title">
            <h2 id="hunt-offer-title">{ "Break it yourself" }</h2>
            <p class="muted">{ "Take a broken text and be the scheduler: the counterexamples stay hidden, and you move the processes until a guarantee breaks." }</p>
            <div class="hunt-texts">
                <button class="hunt-start" data-hunt-text="start" onclick={start(HuntText::Start)}>
                    { "Break the starting text" }
                </button>
                { for props.variants.iter().map(|m| html! {
                    <button class="hunt-start" data-hunt-text={m.name.clone()}
                        onclick={start(HuntText::Variant(m.name.clone()))}>
                        { format!("Break the variant “{}”", m.name) }
                    </button>
                }) }
            </div>
        </section>
    }
}
