//! Every scenario with its verdict, in words and a symbol, never colour
//! alone. Compact, so the verdicts sit under the editor: a line per
//! scenario, with what a failing one broke; what a scenario is about is shown
//! for the one selected.
//!
//! Compact (the page and an embed): one line per scenario where its name
//! fits (a longer name wraps between words, never cut or left to the
//! tooltip, in an embed's frame too), what it is about in the line's tooltip; what a failing scenario broke, and the drive button, are
//! shown for the one selected, so every scenario's verdict fits one screen
//! under the editor, and a 600 px frame beside it.

use fencelab_model::{ExerciseReport, Scenario, Verdict};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ScenarioListProps {
    pub scenarios: Vec<Scenario>,
    pub report: Option<Rc<ExerciseReport>>,
    pub checking: bool,
    /// The seq of the newest check wanted, and of the check whose report is
    /// shown: equal when the verdicts are of the texts in the editors.
    /// Written on the section as `data-check-seq` / `data-report-seq`, so a
    /// benchmark (tests/bench/browser.mjs) sees the moment the verdicts of
    /// an edit are shown.
    pub check_seq: u64,
    pub report_seq: u64,
    pub selected: Option<String>,
    pub on_select: Callback<String>,
    pub on_drive: Callback<String>,
    /// One line per scenario, details for the selected one (an embed).
    #[prop_or_default]
    pub compact: bool,
}

/// A verdict's symbol, shown beside its word.
pub fn symbol(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Passed => "✓",
        Verdict::Failed => "✗",
        Verdict::Error => "⚠",
        Verdict::LimitShown => "◆",
    }
}

/// A verdict's class in style.css: its word, hyphenated ("limit-shown").
pub fn verdict_class(verdict: Verdict) -> String {
    verdict.word().replace(' ', "-")
}

#[function_component(ScenarioList)]
pub fn scenario_list(props: &ScenarioListProps) -> Html {
    let summary = match &props.report {
        // A limit shown is no pass: the model's tally counts it apart.
        Some(report) => report.tally().to_string(),
        None => "Checking…".to_string(),
    };
    // Verdicts of older texts stay in place while the newest edit is
    // checked (a check takes milliseconds; emptying the list on every
    // keystroke would flicker): dimmed, with the label saying so and the
    // section busy for assistive technology. The label's space is always
    // kept, so its coming and going moves nothing; its words are style.css's
    // generated content, so the summary's own text stays the verdict count.
    let stale = props.checking && props.report.is_some();
    html! {
        <section class={classes!("scenarios", stale.then_some("stale"))} aria-labelledby="scenarios-title"
            aria-busy={props.checking.to_string()}
            data-check-seq={props.check_seq.to_string()} data-report-seq={props.report_seq.to_string()}>
            // There is no Run button to look for: every edit is checked at
            // once, and the heading says so where the verdicts are.
            <h2 id="scenarios-title">{ "Scenarios" }<span class="scenarios-how">{ " · checked on every edit" }</span></h2>
            <p class="scenario-summary" id="scenario-summary">
                { summary }
                <span class={classes!("checking", (!stale).then_some("idle"))} aria-hidden={(!stale).to_string()}></span>
            </p>
            <ul class="scenario-list">
                { for props.scenarios.iter().map(|scenario| scenario_item(props, scenario)) }
            </ul>
        </section>
    }
}

/// One scenario's entry: its verdict and name as a button that selects it,
/// and, when it is selected or the list is not compact, what it is about,
/// why it failed or errored, and a way to drive it.
fn scenario_item(props: &ScenarioListProps, scenario: &Scenario) -> Html {
    let report = props
        .report
        .as_ref()
        .and_then(|r| r.scenarios.iter().find(|s| s.name == scenario.name));
    let name = scenario.name.clone();
    let select = props.on_select.reform(move |_: MouseEvent| name.clone());
    let name = scenario.name.clone();
    let drive = props.on_drive.reform(move |_: MouseEvent| name.clone());
    let selected = props.selected.as_ref() == Some(&scenario.name);
    let concurrent = scenario.steps.iter().any(|s| s.concurrent.is_some());
    // Compact, a scenario's details wait until it is selected.
    let detailed = selected || !props.compact;
    let tooltip = if props.compact && !scenario.summary.is_empty() {
        format!("{}: {}", scenario.name, scenario.summary)
    } else if props.compact {
        scenario.name.clone()
    } else {
        scenario.summary.clone()
    };
    let (class, verdict_text) = match report {
        Some(r) => (
            verdict_class(r.verdict()),
            format!("{} {}", symbol(r.verdict()), r.verdict().word()),
        ),
        None => ("pending".to_string(), "… checking".to_string()),
    };
    html! {
        <li class={classes!("scenario", class.clone(), selected.then_some("selected"))}
            data-scenario={scenario.name.clone()} data-verdict={class.clone()}>
            <button class="scenario-select" aria-pressed={selected.to_string()} onclick={select}
                title={tooltip}>
                <span class="verdict">{ verdict_text }</span>
                <span class="scenario-name">{ scenario.name.clone() }</span>
            </button>
            // Compact, what a scenario is about is its tooltip.
            if selected && !props.compact && !scenario.summary.is_empty() {
                <p class="scenario-about">{ scenario.summary.clone() }</p>
            }
            if let Some(failure) = report.and_then(|r| r.failure()).filter(|_| detailed) {
                <p class="failure-message">{ failure.to_string() }</p>
            }
            if let Some(error) = report.and_then(|r| r.error()).filter(|_| detailed) {
                <p class="error-message" data-error-kind={error.kind_name()}>
                    { error.message() }
                    if let Some((procedure, Some(position))) = error.place.as_ref().map(|p| (&p.procedure, p.position)) {
                        { format!(" (in {procedure}, line {})", position.line) }
                    }
                </p>
            }
            if concurrent && detailed {
                <button class="drive-button" onclick={drive}>{ "Drive it yourself" }</button>
            }
        </li>
    }
}
