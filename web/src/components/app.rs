//! The page's root: owns the state (state/), calls the hooks and composes
//! the page of components: the masthead (`masthead.rs`), the exercise list,
//! the notices, the exercise (`work_main.rs`, its loop `work_loop.rs`), the
//! results (`work_results.rs`, a shown report `shown_report.rs`) and what
//! comes after (`work_extra.rs`); or, with no exercise open, `unopened.rs`.
//! Every effect that talks to the outside (the worker, saved work, the
//! address, the document's title and theme, bringing the answer into view,
//! the global Ctrl/Cmd+Enter) is a hook of its own under `hooks/`, which
//! reads what it needs from the playground and dispatches what it read;
//! the reducer and the components read nothing themselves.
//!
//! The layout is built around the learner's loop, edit and watch: the
//! editors (one at a time, under tabs, when there are several) and directly
//! under them the verdict count and one line per verdict (`.loop`, which
//! style.css fits to one screen, the editor scrolling in what is left), so
//! once the learner edits every verdict is in sight (`hooks/editing.rs`),
//! and where the screen cannot hold them all the count follows the editor
//! (`following_count.rs`). What arrives after a pass (the solve, why each
//! line is here) goes under the loop, where it pushes nothing in it. The
//! exercise (its story, then the loop) stands beside the results (a drive,
//! the timeline, the tables after the selected step, the console), which
//! stay in view while the exercise scrolls on a wide screen; the variants,
//! hints and sharing come after the exercise. On a phone the three follow
//! one another, and the exercise list and the story start folded, so the
//! first screen holds the title, the story's first sentence and the editor.
//! In an embed (`?embed=1`) the story is folded too and style.css lays the
//! editors beside the verdicts.

use crate::components::exercise_list::ExerciseList;
use crate::components::masthead::Masthead;
use crate::components::notices::Notices;
use crate::components::unopened::Unopened;
use crate::components::work_extra::WorkExtra;
use crate::components::work_main::WorkMain;
use crate::components::work_results::WorkResults;
use crate::hooks::editing;
use crate::hooks::editor_aids::use_editor_aids;
use crate::hooks::handlers::Handlers;
use crate::hooks::start_marks::use_start_marks;
use crate::hooks::{
    address, autosave, document, hash_change, keys, open_focus, reveal, saved_work, site, worker,
};
use crate::state::{Action, Notice, Playground, SharedExercises, Start, Theme};
use crate::{mount, prerendered};
use std::rc::Rc;
use yew::prelude::*;

/// Mounts the app in the page's root (`#app`, or the body of a page
/// without one): hydrates the page's prerendered HTML when the address asks
/// for what it shows (`crate::prerendered`), and otherwise renders afresh,
/// replacing whatever the root held (the "Loading…" line, or another
/// exercise's prerendered page).
///
/// The authoring view (`?author=1`) is an app of its own, in a wasm of its
/// own (`author_app::start`, src/author_main.rs): web/boot.js starts one or
/// the other.
pub fn start() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(root) = mount::root(&document) else {
        return;
    };
    let start = address::read_start();
    let page = prerendered::read(&document).filter(|page| start.asks_only_for(&page.exercise));
    crate::timing::mark("prerendered-read");
    let first = page.and_then(|page| {
        let catalog = crate::catalog::bundled();
        crate::timing::mark("catalogue-read");
        // A site exercise's page carries the site's exercises too.
        Playground::prerendered(catalog, &page, prerendered::read_site(&document))
    });
    // The address as it was at the start, for what a hydrated app takes on
    // once hydrated (its theme): the app soon rewrites it.
    let hydrating = first.is_some();
    crate::timing::mark("first-state");
    let props = AppProps {
        first: first.map(Rc::new),
        start: Some(Rc::new(start)),
    };
    if hydrating {
        yew::Renderer::<App>::with_root_and_props(root, props).hydrate();
    } else {
        mount::afresh(&root);
        yew::Renderer::<App>::with_root_and_props(root, props).render();
    }
    crate::timing::mark("render-scheduled");
}

/// What the app starts from: a prerendered page's first state
/// ([`Playground::prerendered`], built once, by the build machine's render and
/// by the browser's hydration alike), or the address. A hydrating page has
/// both: its first state is the page's, and the address it was opened with
/// is taken on after (its theme; `Hydrated`).
#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    pub first: Option<Rc<Playground>>,
    pub start: Option<Rc<Start>>,
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    // The address is read once, as the first state is made (for a
    // prerendered page, after hydrating); everything later that the
    // reducer needs from outside arrives as an action.
    let playground = {
        let props = (props.first.clone(), props.start.clone());
        use_reducer(move || first_state(props))
    };
    address::use_address(&playground);
    crate::embed::effects::use_embedding(&playground);
    // What the address said as the page opened, for what starts after the
    // first render (use_address rewrites the address in its first effect).
    let (theme, answer_ms) = props.start.as_ref().map_or((Theme::System, None), |start| {
        (start.theme, start.answer_ms)
    });
    saved_work::use_saved_work(&playground, theme);
    site::use_site_exercises(&playground);
    let dispatch_edit = worker::use_worker(&playground, answer_ms);
    autosave::use_autosave(&playground);
    hash_change::use_share_link_reload();
    let (open_focus, on_open_focus) = open_focus::use_open_focus();
    reveal::use_reveal(&playground, open_focus);
    document::use_document(&playground);
    keys::use_run_key(&playground);
    let aids = use_editor_aids(&playground);
    // A phone's first screen: the story and the exercise list folded.
    // Above the early return below: yew tells hooks apart by their order,
    // so every render must call the same ones (a debug build asserts it
    // when a site's exercise, awaited at first, arrives).
    let narrow = reveal::use_narrow_screen();
    use_start_marks(&playground);
    let editing = Rc::new(editing::use_editing());

    if playground.exercise().is_none() {
        return html! { <Unopened playground={playground.clone()} /> };
    }
    let handlers = Rc::new(Handlers::new(&playground, &dispatch_edit, on_open_focus));
    html! {
        // `data-live`: the app answers the learner (a prerendered page has
        // hydrated and read its saved work); before, clicks meet static HTML.
        <div class={classes!("app", playground.embed.then_some("embed"), editing.active.then_some("editing"))}
            data-live={playground.open.prerendered.is_none().then_some("")}>
            <a class="skip-link" href="#workspace">{ "Skip to the exercise" }</a>
            if !playground.embed {
                <Masthead sqlite_version={playground.sqlite_version.clone()} theme={playground.theme}
                    open_focus={open_focus} on_theme={handlers.theme.clone()} on_open_focus={handlers.open_focus.clone()} />
            }
            <div class="layout">
                if !playground.embed {
                    <ExerciseList exercises={SharedExercises(playground.exercises.clone())} current={playground.open.index} folded={narrow}
                        current_progress={playground.current_progress()} progress={playground.progress.clone()} on_open={handlers.open.clone()} />
                }
                <main id="workspace" class="workspace" tabindex="-1">
                    <Notices<Notice> notices={playground.notices.clone()} can_go_back={playground.open.saved_aside.is_some()}
                        on_back={handlers.unit(|| Action::BackToSaved)} on_keep={handlers.unit(|| Action::KeepLinked)}
                        on_dismiss={handlers.unit(|| Action::DismissNotices)} />
                    <div class="work">
                        <WorkMain playground={playground.clone()} handlers={handlers.clone()} aids={aids}
                            narrow={narrow} editing={editing.clone()} />
                        // While the exercise's saved work is read (one frame), nothing is drawn
                        // below the editors' place: drawn there, it would move when they appear.
                        if playground.open.opening.is_none() {<>
                            <WorkResults playground={playground.clone()} handlers={handlers.clone()} />
                            <WorkExtra playground={playground.clone()} handlers={handlers.clone()} />
                        </>}
                    </div>
                </main>
            </div>
            <div id="announcer" class="visually-hidden" aria-live="polite" role="status">{ playground.announcement.clone() }</div>
        </div>
    }
}

/// The app's first state, from its props: the prerendered page's, or the
/// address's (`start`, or read here when none was given).
fn first_state((first, start): (Option<Rc<Playground>>, Option<Rc<Start>>)) -> Playground {
    first.map_or_else(
        || {
            let start = start.map_or_else(address::read_start, |s| (*s).clone());
            Playground::new(crate::catalog::bundled(), start)
        },
        Rc::unwrap_or_clone,
    )
}
