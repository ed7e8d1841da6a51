//! The exercise: its story, the working version's offer, and the loop
//! (`work_loop.rs`); after a pass, the solve and why each line is there.
//! While the exercise's saved work is read (one frame), a line says so in
//! the loop's place.

use crate::components::line_marks::LineMarks;
use crate::components::narrative::Narrative;
use crate::components::solved::Solved;
use crate::components::work_loop::WorkLoop;
use crate::components::working_version::WorkingVersion;
use crate::hooks::editing::Editing;
use crate::hooks::editor_aids::EditorAids;
use crate::hooks::handlers::Handlers;
use crate::state::Playground;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WorkMainProps {
    pub playground: UseReducerHandle<Playground>,
    pub handlers: Rc<Handlers>,
    pub aids: EditorAids,
    /// A phone's first screen: the story folded.
    pub narrow: bool,
    pub editing: Rc<Editing>,
}

#[function_component(WorkMain)]
pub fn work_main(props: &WorkMainProps) -> Html {
    let (playground, handlers) = (&props.playground, &props.handlers);
    let Some(exercise) = playground.exercise() else {
        return html! {};
    };
    let next = playground.solved().then(|| {
        crate::state::next_exercise(&playground.exercises, playground.open.index).map(|next| {
            let title = AttrValue::from(playground.exercises[next.index].title.clone());
            (next, title)
        })
    });
    html! {
        <div class="work-main">
            <Narrative title={exercise.title.clone()} story={exercise.narrative.clone()} folded={playground.embed || props.narrow} />
            if let Some(offer) = &exercise.working_version {
                <WorkingVersion offer={offer.clone()} working={playground.open.working} on_choose={handlers.start_from.clone()} />
            }
            if playground.open.opening.is_some() {
                <p class="muted">{ "Reading your saved work…" }</p>
            } else {
            <WorkLoop playground={playground.clone()} handlers={handlers.clone()} aids={props.aids.clone()}
                editing={props.editing.clone()} />
            if let Some(next) = next {
                <Solved next={next} solved={playground.solved_count()} total={playground.exercises.len()}
                    on_open={handlers.open.clone()} />
            }
            { for exercise.procedures.iter().filter(|p| p.editable).map(|p| {
                let name = p.name.clone();
                html! {
                    <LineMarks key={p.name.clone()} procedure={p.name.clone()} protection={playground.open.protection.clone()}
                        named={exercise.procedures.iter().filter(|p| p.editable).count() > 1}
                        on_show={handlers.counterexample.reform(move |(line, change): (u32, usize)| (name.clone(), line, change))} />
                }
            }) }
            }
        </div>
    }
}
