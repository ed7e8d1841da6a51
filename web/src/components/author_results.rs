//! What `fencelab check` says of the draft, beside the editor: the draft's
//! errors at their place (instead of anything else), or the reference's
//! verdict per scenario, the starting texts', and the kill matrix (every
//! named broken variant against every scenario: caught by which, or
//! survived), each verdict in words and a symbol, never colour alone, with
//! the checker's sentence on hover and on expanding a cell; and any
//! `[[equivalent]]` declaration that names no generated mutant. A row of
//! verdicts is `author_verdicts.rs`, the matrix `kill_matrix.rs`.

use crate::author::state::{Author, Diagnostic};
use crate::components::author_verdicts::Verdicts;
use crate::components::kill_matrix::Matrix;
use fencelab_model::report::{ExerciseCheck, VerdictCell};
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
