//! The app's User Timing marks (`crate::timing`): its first render
//! committed, and the render where it went live (a prerendered page
//! hydrated and read its saved work).

use crate::state::Playground;
use yew::prelude::*;

#[hook]
pub fn use_start_marks(playground: &UseReducerHandle<Playground>) {
    use_effect_with((), |()| crate::timing::mark("first-render"));
    use_effect_with(playground.open.prerendered.is_none(), |live| {
        if *live {
            crate::timing::mark("live");
        }
    });
}
