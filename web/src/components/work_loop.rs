//! The learner's loop: the editors (one at a time, under tabs, when there
//! are several) and directly under them the verdict count and one line per
//! verdict, or a challenge's panel in their place; while the learner edits,
//! the loop follows it (`hooks/editing.rs`), and where the screen cannot
//! hold the count it follows the editor (`following_count.rs`).

use crate::components::following_count::FollowingCount;
use crate::components::hunt_panel::HuntPanel;
use crate::components::procedure_editor::ProcedureEditor;
use crate::components::procedure_tabs::ProcedureTabs;
use crate::components::scenario_list::ScenarioList;
use crate::hooks::editing::Editing;
use crate::hooks::editor_aids::EditorAids;
use crate::hooks::handlers::Handlers;
use crate::state::{Action, Playground};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WorkLoopProps {
    pub playground: UseReducerHandle<Playground>,
    pub handlers: Rc<Handlers>,
    pub aids: EditorAids,
    pub editing: Rc<Editing>,
}

#[function_component(WorkLoop)]
pub fn work_loop(props: &WorkLoopProps) -> Html {
    let (playground, handlers, editing) = (&props.playground, &props.handlers, &props.editing);
    let Some(exercise) = playground.exercise() else {
        return html! {};
    };
    let panes = exercise.procedures.iter().filter(|p| p.editable).map(|p| {
        let initial = playground.open.texts.get(&p.name).cloned().unwrap_or_else(|| p.start.clone());
        let replace = (playground.open.replace.generation > 0)
            .then(|| playground.open.replace.texts.get(&p.name).map(|t| (playground.open.replace.generation, t.clone())))
            .flatten();
        (AttrValue::from(p.name.clone()), html! {
            <ProcedureEditor key={format!("{}/{}", exercise.id, p.name)}
                exercise={exercise.id.clone()} name={p.name.clone()}
                initial={initial} replace={replace} error={error_of(playground, &p.name)}
                words={props.aids.words.get(&p.name).cloned().unwrap_or_default()}
                protection={playground.open.protection.clone()}
                on_change={handlers.change.clone()} on_run={handlers.unit(|| Action::RunNow)}
                on_counterexample={handlers.counterexample.clone()} live={playground.open.prerendered.is_none()} />
        })
    }).collect::<Vec<_>>();
    html! {
        <div class="loop" onpointerdown={editing.on_pointer_down.clone()} onkeydown={editing.on_key_down.clone()}
            onfocusin={editing.on_focus_in.clone()} onfocusout={editing.on_focus_out.clone()}>
            <ProcedureTabs key={exercise.id.clone()} tabbed=true panes={panes} />
            // A challenge hides the counterexamples: its panel takes the
            // verdicts' place under the editors.
            if let Some(challenge) = &playground.open.challenge {
                <HuntPanel text={challenge.text.clone()} targets={playground.hunt_targets()}
                    hunting={playground.open.view.scenario().map(str::to_string)} variants={exercise.variants.clone()}
                    on_hunt={handlers.text(Action::DriveStart)} on_start={handlers.hunt_start.clone()}
                    on_leave={handlers.unit(|| Action::HuntLeave)} />
            } else {
                <ScenarioList scenarios={exercise.scenarios.clone()} report={playground.open.report.clone()}
                    checking={playground.open.checking()} check_seq={playground.open.check_wanted} report_seq={playground.open.report_seq}
                    selected={playground.open.view.scenario().map(str::to_string)} compact=true
                    on_select={handlers.text(Action::Select)} on_drive={handlers.text(Action::DriveStart)} />
                <FollowingCount report={playground.open.report.clone()} checking={playground.open.checking()}
                    shown={editing.count_hidden} />
            }
        </div>
    }
}

/// The first error the newest report places in `procedure`: its line and
/// message, for the editor's mark.
fn error_of(playground: &Playground, procedure: &str) -> Option<(u32, String)> {
    playground
        .open
        .report
        .as_ref()?
        .scenarios
        .iter()
        .find_map(|s| {
            let error = s.error()?;
            let place = error.place.as_ref().filter(|p| p.procedure == procedure)?;
            Some((place.position?.line, error.message()))
        })
}
