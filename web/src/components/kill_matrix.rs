//! The authoring view's kill matrix: every named broken variant against
//! every scenario, caught by which or survived, each cell in words and a
//! symbol, with the checker's sentence on hover and on expanding it.

use crate::components::scenario_list::verdict_class;
use fencelab_model::Verdict;
use fencelab_model::report::{KillMatrix, VerdictCell};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MatrixProps {
    pub matrix: KillMatrix,
}

/// The kill matrix: a row per variant, a column per scenario. A cell says
/// "caught" where the scenario failed against the variant (the failure's
/// sentence on hover and when expanded), and a row no scenario catches says
/// "survived".
#[function_component(Matrix)]
pub fn matrix(props: &MatrixProps) -> Html {
    let matrix = &props.matrix;
    if matrix.rows.is_empty() {
        return html! {
            <p class="muted" id="kill-matrix-empty">{ "The draft has no broken variants ([[mutants]]): add one that a scenario must catch." }</p>
        };
    }
    let survivors = matrix.survivors().count();
    html! {
        <div class="kill-matrix-frame" tabindex="0" role="region" aria-labelledby="kill-matrix-caption">
            <table class="kill-matrix" id="kill-matrix">
                <caption id="kill-matrix-caption">{ format!(
                    "{} of {} broken variants caught{}",
                    matrix.rows.len() - survivors,
                    matrix.rows.len(),
                    if survivors > 0 { format!("; {survivors} survived every scenario") } else { String::new() }
                ) }</caption>
                <thead>
                    <tr>
                        <th scope="col">{ "Broken variant" }</th>
                        { for matrix.scenarios.iter().map(|s| html! { <th scope="col">{ s.clone() }</th> }) }
                    </tr>
                </thead>
                <tbody>
                    { for matrix.rows.iter().map(|row| html! {
                        <tr class={classes!(row.survived().then_some("survived"))} data-mutant={row.variant.clone()}>
                            <th scope="row">
                                { row.variant.clone() }
                                if row.survived() { <span class="survivor">{ " — ⚠ survived" }</span> }
                                <span class="explanation">{ row.explanation.clone() }</span>
                            </th>
                            { for row.cells.iter().map(cell) }
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn cell(cell: &VerdictCell) -> Html {
    let word = match cell.verdict {
        Verdict::Failed => "✗ caught",
        Verdict::Error => "⚠ error",
        Verdict::Passed => "✓ passes",
        Verdict::LimitShown => "◆ limit shown",
    };
    let class = classes!("cell", verdict_class(cell.verdict));
    match &cell.problem {
        Some(problem) => html! {
            <td class={class} data-scenario={cell.scenario.clone()} title={problem.clone()}>
                <details><summary>{ word }</summary><p class="problem">{ problem.clone() }</p></details>
            </td>
        },
        None => html! { <td class={class} data-scenario={cell.scenario.clone()}>{ word }</td> },
    }
}
