//! The verdict count that follows the editor: while the learner edits and
//! the verdict count under the editors is not wholly on the screen (a
//! phone with its keyboard up has room for the editor alone), a compact
//! line at the screen's bottom says it, with each scenario's verdict as a
//! symbol, and changes with every check (`hooks/editing.rs` says when).
//!
//! Drawn over the page (style.css fixes it to the bottom), so its coming and
//! going moves nothing; `data-covers-bottom` tells the editor to keep its
//! cursor clear of it (web/editor/editor.js). Hidden from assistive
//! technology, which has the count itself (`#scenario-summary`) in the
//! verdicts.

use crate::components::scenario_list::{symbol, verdict_class};
use fencelab_model::ExerciseReport;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FollowingCountProps {
    pub report: Option<Rc<ExerciseReport>>,
    /// A check of newer texts is under way: the count shown is an older
    /// text's.
    pub checking: bool,
    /// Whether the line is shown.
    pub shown: bool,
}

#[function_component(FollowingCount)]
pub fn following_count(props: &FollowingCountProps) -> Html {
    let Some(report) = &props.report else {
        return html! {
            <p class="following-count" id="following-count" aria-hidden="true" data-covers-bottom="" hidden={!props.shown}>{ "Checking…" }</p>
        };
    };
    html! {
        <p class={classes!("following-count", props.checking.then_some("stale"))} id="following-count"
            aria-hidden="true" data-covers-bottom="" hidden={!props.shown}>
            <span class="following-symbols">
                { for report.scenarios.iter().map(|s| html! {
                    <span class={classes!("following-symbol", verdict_class(s.verdict()))}>{ symbol(s.verdict()) }</span>
                }) }
            </span>
            <span class="following-words">{ report.tally().to_string() }</span>
        </p>
    }
}
