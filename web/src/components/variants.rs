//! Break it, then fix it: one button per named broken variant, each with its
//! one-line explanation, and Reset. Both go through the editor as one
//! undoable change. A variant the learner watched fail is marked as seen:
//! the scenarios caught it, which says nothing yet of the learner's own text.
//! While the learner's own text is set aside (a variant, Reset or a
//! challenge replaced it), "Restore your text" brings it back in one click.

use fencelab_model::exercise::Variant;
use std::collections::BTreeSet;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct VariantsProps {
    pub variants: Vec<Variant>,
    pub loaded: Option<String>,
    /// Variants the learner loaded and watched fail.
    pub seen: BTreeSet<String>,
    /// Reset goes back to the working version, which the learner chose to
    /// start from.
    pub working: bool,
    /// The learner's own text is set aside: "Restore your text" is offered.
    pub restorable: bool,
    pub on_load: Callback<String>,
    pub on_reset: Callback<()>,
    pub on_restore: Callback<()>,
}

#[function_component(Variants)]
pub fn variants(props: &VariantsProps) -> Html {
    let reset = props.on_reset.reform(|_: MouseEvent| ());
    let restore = props.on_restore.reform(|_: MouseEvent| ());
    let loaded = props
        .loaded
        .as_ref()
        .and_then(|name| props.variants.iter().find(|m| &m.name == name));
    html! {
        <section class="variants" aria-labelledby="variants-title">
            <h2 id="variants-title">{ "Break it, then fix it" }</h2>
            <div class="variant-buttons">
                { for props.variants.iter().map(|m| {
                    let name = m.name.clone();
                    let load = props.on_load.reform(move |_: MouseEvent| name.clone());
                    let seen = props.seen.contains(&m.name);
                    html! {
                        <button class="variant" data-variant={m.name.clone()} onclick={load} title={m.explanation.clone()}>
                            { format!("Load broken variant: {}", m.name) }
                            if seen { <span class="seen">{ " (✓ seen failing)" }</span> }
                        </button>
                    }
                }) }
                <button id="reset" onclick={reset}>{ if props.working { "Reset to the working version" } else { "Reset to the starting text" } }</button>
            </div>
            if let Some(m) = loaded {
                <p class="variant-explanation" id="variant-explanation">
                    <strong>{ format!("Loaded “{}”: ", m.name) }</strong>{ m.explanation.clone() }
                </p>
            }
            if props.restorable {
                <p class="own-aside" id="own-aside">
                    { "Your own text is set aside. " }
                    <button id="restore-own" class="restore-own" onclick={restore}>{ "Restore your text" }</button>
                </p>
            }
        </section>
    }
}
