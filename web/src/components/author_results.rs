//! What `fencelab check` says of the draft, beside the editor: the draft's
//! errors at their place (instead of anything else), or the reference's
//! verdict per scenario, the starting texts', and the kill matrix (every
//! named broken variant against every scenario: caught by which, or
//! survived), each verdict in words and a symbol, never colour alone, with
//! the checker's sentence on hover and on expanding a cell; and any
//! `[[equivalent]]` declaration that names no generated mutant.

use crate::author::state::{Author, Diagnostic};
use crate::components::scenario_list::{symbol, verdict_class};
use fencelab_model::Verdict;
use fencelab_model::report::{ExerciseCheck, KillMatrix, VerdictCell};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AuthorResultsProps {
    pub diagnostics: Vec<Diagnostic>,
    pub check: Option<Rc<ExerciseCheck>>,
    pub checking: bool,
    pub failed: Option<String>,
}

impl AuthorResultsProps {
    pub fn of(author: &Author) -> AuthorResultsProps {
        AuthorResultsProps {
            diagnostics: author.diagnostics(),
            check: author.check.clone(),
            checking: author.checking(),
            failed: author.failed.clone(),
        }
    }
}

#[function_component(AuthorResults)]
pub fn author_results(props: &AuthorResultsProps) -> Html {
    let status = if !props.diagnostics.is_empty() {
        "✗ The draft cannot be loaded:".to_string()
    } else if let Some(message) = &props.failed {
        format!("⚠ The draft could not be checked: {message}")
    } else {
        match (&props.check, props.checking) {
            (None, _) => "Checking the draft…".to_string(),
            (Some(check), checking) => format!(
                "{}{}",
                if check.ok() {
                    "✓ fencelab check passes: the reference passes every scenario and every broken variant is caught."
                } else {
                    "✗ fencelab check fails: see below."
                },
                if checking {
                    " · checking your latest edit…"
                } else {
                    ""
                }
            ),
        }
    };
    html! {
        <section class="author-results" aria-labelledby="author-results-title">
            <h2 id="author-results-title">{ "What fencelab check says" }</h2>
            <p id="author-status" class={classes!("author-status", props.checking.then_some("checking"))} role="status">{ status }</p>
            if !props.diagnostics.is_empty() {
                <ul class="author-errors" id="author-errors">
                    { for props.diagnostics.iter().map(|d| html! {
                        <li data-line={d.line.to_string()} data-column={d.column.to_string()}>{ format!("⚠ {}", d.message) }</li>
                    }) }
                </ul>
            } else if let Some(check) = &props.check {
                <h3>{ "The reference" }</h3>
                <Verdicts id="reference-verdicts" cells={VerdictCell::row(&check.reference)} />
                <h3>{ "The starting texts (what a learner first sees)" }</h3>
                <Verdicts id="start-verdicts" cells={check.start.clone()} />
                <h3>{ "Broken variants against scenarios" }</h3>
                <Matrix matrix={check.matrix.clone()} />
                if !check.stale_equivalents.is_empty() {
                    <h3>{ "Equivalent declarations" }</h3>
                    <ul class="author-errors" id="stale-equivalents">
                        { for check.stale_equivalents.iter().map(|stale| html! {
                            <li>{ format!("⚠ {stale}") }</li>
                        }) }
                    </ul>
                }
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct VerdictsProps {
    id: AttrValue,
    cells: Vec<VerdictCell>,
}

#[function_component(Verdicts)]
fn verdicts(props: &VerdictsProps) -> Html {
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

#[derive(Properties, PartialEq)]
struct MatrixProps {
    matrix: KillMatrix,
}

/// The kill matrix: a row per variant, a column per scenario. A cell says
/// "caught" where the scenario failed against the variant (the failure's
/// sentence on hover and when expanded), and a row no scenario catches says
/// "survived".
#[function_component(Matrix)]
fn matrix(props: &MatrixProps) -> Html {
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
