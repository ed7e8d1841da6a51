//! "Why each line is here": the line marks of one procedure as a list under
//! the verdicts (where its arrival moves neither the editor nor them), for keyboard and screen-reader users (the marks in the editor
//! itself are for the mouse). Each change a scenario caught on a protected
//! line is a button that shows its counterexample; an unprotected line is
//! plain text; a line without a mark says why it has none (its changes only
//! made scenarios error, or are declared equivalent, or none was tried). The sentences here are
//! also the editor's tooltips, so both say the same thing.

use crate::editor::Mark;
use crate::state::Protection;
use fencelab_model::protection::{self, unmarked_sentence, unprotected_sentence};
use fencelab_protocol::{Caught, LineMark, LineStatus};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LineMarksProps {
    pub procedure: AttrValue,
    pub protection: Protection,
    /// A caught change's button was pressed: show the counterexample of
    /// (line, change).
    pub on_show: Callback<(u32, usize)>,
    /// Whether the heading names the procedure (an exercise with several).
    #[prop_or_default]
    pub named: bool,
}

/// What the list says of a caught change to `line`: the model's sentence,
/// and what its button does.
pub fn caught_sentence(line: u32, change: &Caught) -> String {
    format!(
        "{} — show the counterexample",
        protection::caught_sentence(line, change)
    )
}

/// What the editor's line says when hovered.
pub fn title(mark: &LineMark) -> String {
    match &mark.status {
        LineStatus::Protected { caught, uncaught } => {
            // Each scenario once: those that fail, then each limit that no
            // longer shows as described (a limit never "fails").
            let (mut failing, mut limits): (Vec<&str>, Vec<&Caught>) = (Vec::new(), Vec::new());
            for change in caught {
                if change.limit {
                    if !limits.iter().any(|c| c.scenario == change.scenario) {
                        limits.push(change);
                    }
                } else if !failing.contains(&change.scenario.as_str()) {
                    failing.push(&change.scenario);
                }
            }
            let named: Vec<String> = failing.iter().map(|s| format!("“{s}”")).collect();
            let mut broke: Vec<String> = Vec::new();
            if !named.is_empty() {
                broke.push(format!(
                    "{} fail{}",
                    named.join(" and "),
                    if named.len() == 1 { "s" } else { "" }
                ));
            }
            broke.extend(limits.iter().map(|c| c.what_broke()));
            let mut title = format!("Without this, {}.", broke.join(", and "));
            for change in caught {
                title += &format!(
                    " If you {}, {}: {}",
                    change.description,
                    change.what_broke(),
                    protection::sentence(&change.sentence)
                );
            }
            if !uncaught.is_empty() {
                title += &format!(
                    " No scenario notices if you {}.",
                    uncaught.join(", or if you ")
                );
            }
            title + " Click the ✓ beside the line to see the first counterexample."
        }
        LineStatus::Unprotected { descriptions } => format!(
            "No scenario notices if this changes: either it is not needed, or the suite has a gap. \
             Tried: {}",
            protection::sentence(&descriptions.join("; "))
        ),
        status => unmarked_sentence(mark.line, status).unwrap_or_default(),
    }
}

/// `text` with its `quoted` SQL as code (a mutant's description quotes SQL
/// between backticks).
pub fn with_code(text: &str) -> Html {
    html! {
        { for text.split('`').enumerate().map(|(i, piece)| {
            if i % 2 == 1 { html! { <code>{ piece.to_string() }</code> } } else { html! { { piece.to_string() } } }
        }) }
    }
}

/// The marks of `procedure` as the editor draws them.
pub fn editor_marks(protection: &Protection, procedure: &str) -> Vec<Mark> {
    let Some(report) = protection.report() else {
        return Vec::new();
    };
    report
        .marks(procedure)
        .iter()
        .filter(|mark| mark.status.is_marked())
        .map(|mark| Mark {
            line: mark.line,
            kind: match mark.status {
                LineStatus::Protected { .. } => "protected",
                _ => "unprotected",
            },
            title: title(mark),
        })
        .collect()
}

#[function_component(LineMarks)]
pub fn line_marks(props: &LineMarksProps) -> Html {
    let heading = format!("why-{}", props.procedure);
    match &props.protection {
        Protection::Nothing => Html::default(),
        Protection::Waiting { .. } => html! {
            <p class="line-marks-status muted">
                { "Every scenario passes. Now changing each line on purpose, to see which changes a scenario catches…" }
            </p>
        },
        Protection::Failed { message } => html! {
            <p class="line-marks-status">{ format!("The lines could not be marked: {message}") }</p>
        },
        Protection::Shown { report, .. } => {
            let marks = report.marks(&props.procedure);
            html! {
                <section class="line-marks" data-procedure={props.procedure.clone()} aria-labelledby={heading.clone()}>
                    <h3 id={heading}>{ if props.named { format!("Why each line of {} is here", props.procedure) } else { "Why each line is here".to_string() } }</h3>
                    <p class="muted">
                        { "Each line was changed on purpose and every scenario run again. ✓: a scenario fails without it. ?: no scenario notices a change; either the line is not needed, or the suite has a gap." }
                    </p>
                    if marks.is_empty() {
                        <p class="muted">{ "No change to a line of this procedure could be judged." }</p>
                    } else {
                        <ul>
                            { for marks.iter().map(|mark| {
                                let line = mark.line;
                                match &mark.status {
                                    LineStatus::Protected { caught, .. } => html! {
                                        { for caught.iter().enumerate().map(|(change, caught)| html! {
                                            <li class="line-why protected">
                                                <button class="mark-button" data-line={line.to_string()}
                                                    title={format!("{}: {}", caught.scenario, caught.sentence)}
                                                    onclick={props.on_show.reform(move |_: MouseEvent| (line, change))}>
                                                    <span aria-hidden="true">{ "✓ " }</span>{ with_code(&caught_sentence(line, caught)) }
                                                </button>
                                            </li>
                                        }) }
                                    },
                                    LineStatus::Unprotected { descriptions } => html! {
                                        <li class="line-why unprotected" data-line={line.to_string()}>
                                            <span aria-hidden="true">{ "? " }</span>{ unprotected_sentence(line) }
                                            <span class="muted">{ with_code(&format!(" (tried: {})", descriptions.join("; "))) }</span>
                                        </li>
                                    },
                                    status => html! {
                                        <li class="line-why unmarked muted" data-line={line.to_string()}>
                                            { with_code(&unmarked_sentence(line, status).unwrap_or_default()) }
                                        </li>
                                    },
                                }
                            }) }
                        </ul>
                    }
                </section>
            }
        }
    }
}
