//! Messages about saved work and links: what was set aside, what a link
//! showed, and the way back to the learner's own version.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NoticesProps {
    pub notices: Vec<String>,
    pub can_go_back: bool,
    pub on_back: Callback<()>,
    pub on_keep: Callback<()>,
    pub on_dismiss: Callback<()>,
}

#[function_component(Notices)]
pub fn notices(props: &NoticesProps) -> Html {
    if props.notices.is_empty() && !props.can_go_back {
        return html! {};
    }
    let back = props.on_back.reform(|_: MouseEvent| ());
    let keep = props.on_keep.reform(|_: MouseEvent| ());
    let dismiss = props.on_dismiss.reform(|_: MouseEvent| ());
    html! {
        <section class="notices" role="status" aria-label="Notices">
            { for props.notices.iter().map(|n| html! { <p class="notice">{ "ℹ " }{ n.clone() }</p> }) }
            <div class="notice-actions">
                if props.can_go_back {
                    <button id="back-to-saved" onclick={back}>{ "Back to my saved version" }</button>
                    <button id="keep-linked" onclick={keep}>{ "Keep this version" }</button>
                }
                if !props.notices.is_empty() {
                    <button onclick={dismiss}>{ "Dismiss" }</button>
                }
            </div>
        </section>
    }
}
