//! The results beside the exercise: a drive, the shown scenario's report
//! (`shown_report.rs`), or a line saying what is coming; foldable in an
//! embed. They stay in view while the exercise scrolls on a wide screen.

use crate::components::drive_panel::DrivePanel;
use crate::components::results_fold::ResultsFold;
use crate::components::shown_report::ShownReport;
use crate::hooks::handlers::Handlers;
use crate::state::{Action, Playground, View};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WorkResultsProps {
    pub playground: UseReducerHandle<Playground>,
    pub handlers: Rc<Handlers>,
}

#[function_component(WorkResults)]
pub fn work_results(props: &WorkResultsProps) -> Html {
    let (playground, handlers) = (&props.playground, &props.handlers);
    let driving = matches!(playground.open.view, View::Driving(_));
    let shown = playground.open.shown();
    html! {
        <div class="work-results">
          <ResultsFold folds={playground.embed}>
            if let View::Driving(drive) = &playground.open.view {
                <DrivePanel scenario={drive.scenario.clone()} schedule={drive.schedule.clone()}
                    last={drive.last.clone()} waiting={drive.waiting_for.is_some()} failed={drive.failed.clone()}
                    hunt={playground.open.challenge.is_some()} verdict={drive.verdict.as_deref().cloned()}
                    on_move={handlers.text(Action::DriveMove)} on_undo={handlers.unit(|| Action::DriveUndo)}
                    on_restart={handlers.unit(|| Action::DriveRestart)} on_stop={handlers.unit(|| Action::DriveStop)} />
            }
            if let Some(report) = shown {
                <ShownReport playground={playground.clone()} report={report} handlers={handlers.clone()} />
            } else if let Some(without) = playground.open.view.without() {
                <p class="muted counterexample-waiting">
                    { format!("Running the counterexample without line {} of {}…", without.line, without.procedure) }
                </p>
            } else if !driving && playground.open.challenge.is_none() {
                <p class="muted results-empty">
                    { if playground.open.report.is_some() {
                        "Every scenario passes. Choose one to see its timeline here."
                    } else {
                        "Checking your procedures…"
                    } }
                </p>
            } else if !driving {
                // A challenge hides the counterexamples: say where the
                // learner's own run will grow instead of an empty pane.
                <p class="muted results-empty" id="hunt-results-empty">
                    { "Choose a scenario to hunt in, under the editor: the timeline of your moves grows here, one step per move." }
                </p>
            }
          </ResultsFold>
        </div>
    }
}
