//! The page while no exercise is open: the one the address names is
//! awaited, or missing from this site (its notice, and the exercises the
//! site has, as plain links), or none could be loaded at all.

use crate::state::{Page, Playground};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct UnopenedProps {
    pub playground: UseReducerHandle<Playground>,
}

#[function_component(Unopened)]
pub fn unopened(props: &UnopenedProps) -> Html {
    let playground = &props.playground;
    match &playground.page {
        Page::AwaitingLink(_) => html! {
            <main class="app"><p class="muted" role="status">
                { "Loading the exercise this link carries…" }
            </p></main>
        },
        Page::Awaiting(awaiting) => html! {
            <main class="app"><p class="muted" role="status">
                { format!("Loading the exercise “{}”…", awaiting.exercise) }
            </p></main>
        },
        Page::Missing(_) => html! {
            <main class={classes!("app", playground.embed.then_some("embed"))}>
                <div class="notices" role="alert">
                    { for playground.notices.iter().map(|n| html! { <p class="notice">{ n.to_string() }</p> }) }
                </div>
                // The page's own address with another id: the choice is a
                // plain link, so it opens as any address would.
                if !playground.embed {
                    <nav class="exercise-choices" aria-label="Exercises on this page"><ul>
                        { for playground.exercises.iter().map(|e| html! {
                            <li><a href={format!("?exercise={}", e.id)} data-exercise={e.id.clone()}>{ e.title.clone() }</a></li>
                        }) }
                    </ul></nav>
                }
            </main>
        },
        Page::Failed => html! {
            <main class="app"><p role="alert">{ format!(
                "No exercise could be loaded{}",
                playground.catalogue_error.as_ref().map(|e| format!(": {e}")).unwrap_or_default()
            ) }</p></main>
        },
        // The app shows the exercise instead.
        Page::Open => html! {},
    }
}
