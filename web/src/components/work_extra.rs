//! What comes after the exercise: the broken variants, the challenge's
//! offer, the hints and sharing.

use crate::components::hints::Hints;
use crate::components::hunt_offer::HuntOffer;
use crate::components::share_panel::SharePanel;
use crate::components::variants::Variants;
use crate::hooks::handlers::Handlers;
use crate::state::{Action, Playground};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WorkExtraProps {
    pub playground: UseReducerHandle<Playground>,
    pub handlers: Rc<Handlers>,
}

#[function_component(WorkExtra)]
pub fn work_extra(props: &WorkExtraProps) -> Html {
    let (playground, handlers) = (&props.playground, &props.handlers);
    let Some(exercise) = playground.exercise() else {
        return html! {};
    };
    html! {
        <div class="work-extra">
            <Variants variants={exercise.variants.clone()}
                loaded={playground.open.loaded_variant.clone()} seen={playground.open.seen.clone()} working={playground.open.working}
                restorable={playground.open.own_aside.is_some()} on_load={handlers.text(Action::LoadVariant)}
                on_reset={handlers.unit(|| Action::Reset)} on_restore={handlers.unit(|| Action::RestoreOwn)} />
            <HuntOffer variants={exercise.variants.clone()} on_start={handlers.hunt_start.clone()} />
            <Hints hints={exercise.hints.clone()} shown={playground.open.hints_shown} on_more={handlers.unit(|| Action::ShowHint)} />
            <SharePanel url={playground.open.share_url.clone()} on_share={handlers.share.clone()} />
        </div>
    }
}
