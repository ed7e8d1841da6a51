//! Break it, then fix it: one button per named broken variant, each with its
//! one-line explanation, and Reset. Both go through the editor as one
//! undoable change.

use fencelab_model::exercise::Mutant;
use std::collections::BTreeSet;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct VariantsProps {
    pub mutants: Vec<Mutant>,
    pub loaded: Option<String>,
    pub caught: BTreeSet<String>,
    pub on_load: Callback<String>,
    pub on_reset: Callback<()>,
}

#[function_component(Variants)]
pub fn variants(props: &VariantsProps) -> Html {
    let reset = props.on_reset.reform(|_: MouseEvent| ());
    let loaded = props
        .loaded
        .as_ref()
        .and_then(|name| props.mutants.iter().find(|m| &m.name == name));
    html! {
        <section class="variants" aria-labelledby="variants-title">
            <h3 id="variants-title">{ "Break it, then fix it" }</h3>
            <div class="variant-buttons">
                { for props.mutants.iter().map(|m| {
                    let name = m.name.clone();
                    let load = props.on_load.reform(move |_: MouseEvent| name.clone());
                    let caught = props.caught.contains(&m.name);
                    html! {
                        <button class="variant" data-variant={m.name.clone()} onclick={load} title={m.explanation.clone()}>
                            { format!("Load broken variant: {}", m.name) }
                            if caught { <span class="caught">{ " (✓ caught)" }</span> }
                        </button>
                    }
                }) }
                <button id="reset" onclick={reset}>{ "Reset to the starting text" }</button>
            </div>
            if let Some(m) = loaded {
                <p class="variant-explanation" id="variant-explanation">
                    <strong>{ format!("Loaded “{}”: ", m.name) }</strong>{ m.explanation.clone() }
                    { " Ctrl+Z in the editor brings your text back." }
                </p>
            }
        </section>
    }
}
