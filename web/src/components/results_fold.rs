//! In an embed, the results (drive, timeline, tables, console) under the
//! editor and the verdicts in a section the learner can fold away, so a
//! frame in a course page stays short; elsewhere they are shown as they
//! are. Open at first: a chosen scenario's timeline is the answer.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ResultsFoldProps {
    /// Whether the results fold (in an embed).
    pub folds: bool,
    pub children: Html,
}

#[function_component(ResultsFold)]
pub fn results_fold(props: &ResultsFoldProps) -> Html {
    if !props.folds {
        return props.children.clone();
    }
    html! {
        <details class="results-fold" open=true>
            <summary>{ "Timeline, tables and console" }</summary>
            { props.children.clone() }
        </details>
    }
}
