//! One row of the authoring view's verdicts (the reference's, or the
//! starting texts'): each scenario's verdict in words and a symbol, never
//! colour alone, with the checker's sentence under it where it did not pass.

use crate::components::scenario_list::{symbol, verdict_class};
use fencelab_model::report::VerdictCell;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct VerdictsProps {
    pub id: AttrValue,
    pub cells: Vec<VerdictCell>,
}

#[function_component(Verdicts)]
pub fn verdicts(props: &VerdictsProps) -> Html {
    html! {
        <ul class="author-verdicts" id={props.id.clone()}>
            { for props.cells.iter().map(|cell| html! {
                <li class={verdict_class(cell.verdict)} data-scenario={cell.scenario.clone()}>
                    <span class="verdict">{ format!("{} {}", symbol(cell.verdict), cell.verdict.word()) }</span>
                    { " " }<strong>{ cell.scenario.clone() }</strong>
                    if let Some(problem) = &cell.problem {
                        <p class="problem">{ problem.clone() }</p>
                    }
                </li>
            }) }
        </ul>
    }
}
