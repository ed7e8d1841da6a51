//! A shown scenario's report, in the results: its timeline, the tables
//! after the selected step, the take-home script, the replay form and the
//! console.

use crate::components::console::Console;
use crate::components::replay_form::ReplayForm;
use crate::components::table_view::TableView;
use crate::components::take_home::TakeHome;
use crate::components::timeline::Timeline;
use crate::hooks::handlers::Handlers;
use crate::state::{Action, Playground, SharedExercises, SharedReport, View};
use crate::tables;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ShownReportProps {
    pub playground: UseReducerHandle<Playground>,
    pub report: SharedReport,
    pub handlers: Rc<Handlers>,
}

#[function_component(ShownReport)]
pub fn shown_report(props: &ShownReportProps) -> Html {
    let (playground, report, handlers) = (&props.playground, &props.report, &props.handlers);
    let step = playground.open.view.step();
    let (console_sql, console) = playground
        .open
        .view
        .at()
        .map(|at| (at.console.sql.clone(), at.console.result.clone()))
        .unwrap_or_default();
    let unfinished = matches!(&playground.open.view, View::Driving(drive) if !drive.last.as_ref().is_some_and(|d| d.finished));
    let driving = matches!(playground.open.view, View::Driving(_));
    html! {<>
        <Timeline report={report.clone()} step={step} without={playground.open.view.without().cloned()}
            unfinished={unfinished} on_step={handlers.step.clone()} on_step_by={handlers.step_by.clone()} />
        <TableView tables={tables::after_event(&report.initial_tables, &report.history, step)} step={step} />
        if !unfinished {
            <TakeHome exercises={SharedExercises(playground.exercises.clone())}
                current={playground.open.index} edits={playground.open.view_texts().clone()} report={report.clone()} />
        }
        if !driving && !playground.interleaved(&report.name).is_empty() {
            <ReplayForm scenario={report.name.clone()}
                schedule={playground.open.asked_schedule().to_string()}
                processes={playground.interleaved(&report.name)} on_replay={handlers.replay.clone()}
                refused={playground.replay_refused.as_ref().filter(|(s, _)| *s == report.name).map(|(_, m)| m.clone())} />
        }
        <Console step={step} tables={report.initial_tables.iter().map(|t| t.table.clone()).collect::<Vec<_>>()} sql={console_sql}
            result={console} on_query={handlers.text(Action::Query)} />
    </>}
}
