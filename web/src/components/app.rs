//! The page's root: owns the state (state/) and lays the page out. Every
//! effect that talks to the outside (the worker, saved work, the address,
//! the document's title and theme, bringing the answer into view, the
//! global Ctrl/Cmd+Enter) is a hook of its own under `hooks/`, which reads
//! what it needs from the playground and dispatches what it read; the reducer
//! and this layout read nothing themselves.
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

use crate::components::console::Console;
use crate::components::drive_panel::DrivePanel;
use crate::components::exercise_list::ExerciseList;
use crate::components::following_count::FollowingCount;
use crate::components::hints::Hints;
use crate::components::line_marks::LineMarks;
use crate::components::narrative::Narrative;
use crate::components::notices::Notices;
use crate::components::procedure_editor::ProcedureEditor;
use crate::components::procedure_tabs::ProcedureTabs;
use crate::components::scenario_list::ScenarioList;
use crate::components::share_panel::SharePanel;
use crate::components::solved::Solved;
use crate::components::table_view::TableView;
use crate::components::setting_switch::SettingSwitch;
use crate::components::timeline::Timeline;
use crate::components::working_version::WorkingVersion;
use crate::hooks::editing::{self, Editing};
use crate::hooks::{
    address, autosave, document, hash_change, keys, open_focus, reveal, saved_work, site, worker,
};
use crate::prerendered;
use crate::state::{Action, HuntText, OpenFocus, Playground, SharedExercises, Start, Theme, View};
use crate::tables;
use crate::vocabulary::vocabulary;
use fencelab_model::Exercise;
use std::collections::BTreeMap;
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
    let Some(root) = root(&document) else {
        return;
    };
    let start = address::read_start();
    let page = prerendered::read(&document).filter(|page| prerendered::fits(&start, page));
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
        afresh(&root);
        yew::Renderer::<App>::with_root_and_props(root, props).render();
    }
    crate::timing::mark("render-scheduled");
}

/// Where an app mounts: the page's root (`#app`), or the body of a page
/// without one.
pub(crate) fn root(document: &web_sys::Document) -> Option<web_sys::Element> {
    document
        .get_element_by_id(prerendered::ROOT_ID)
        .or_else(|| document.body().map(Into::into))
}

/// Empties the root for an app rendered afresh: whatever was prerendered
/// goes, with the class that hid it (web/first-paint.js).
pub(crate) fn afresh(root: &web_sys::Element) {
    root.set_inner_html("");
    let _ = root.class_list().remove_1(prerendered::ROOT_ELSEWHERE);
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
    let editing = editing::use_editing();

    let Some(exercise) = playground.exercise() else {
        return unopened(&playground);
    };
    let handlers = Handlers::new(&playground, &dispatch_edit, on_open_focus);
    html! {
        // `data-live`: the app answers the learner (a prerendered page has
        // hydrated and read its saved work); before, clicks meet static HTML.
        <div class={classes!("app", playground.embed.then_some("embed"), editing.active.then_some("editing"))}
            data-live={playground.prerendered.is_none().then_some("")}>
            <a class="skip-link" href="#workspace">{ "Skip to the exercise" }</a>
            if !playground.embed {
                { masthead(&playground, &handlers, open_focus) }
            }
            <div class="layout">
                if !playground.embed {
                    <ExerciseList exercises={SharedExercises(playground.exercises.clone())} current={playground.current} folded={narrow}
                        current_progress={playground.current_progress()} progress={playground.progress.clone()} on_open={handlers.open.clone()} />
                }
                <main id="workspace" class="workspace" tabindex="-1">
                    <Notices notices={playground.notices.clone()} can_go_back={playground.saved_aside.is_some()}
                        on_back={handlers.unit(|| Action::BackToSaved)} on_keep={handlers.unit(|| Action::KeepLinked)}
                        on_dismiss={handlers.unit(|| Action::DismissNotices)} />
                    <div class="work">
                        { work_main(&playground, exercise, &handlers, &aids, narrow, &editing) }
                        // While the exercise's saved work is read (one frame), nothing is drawn
                        // below the editors' place: drawn there, it would move when they appear.
                        if playground.opening.is_none() {<>
                            { work_results(&playground, &handlers) }
                            { work_extra(&playground, exercise, &handlers) }
                        </>}
                    </div>
                </main>
            </div>
            <div id="announcer" class="visually-hidden" aria-live="polite" role="status">{ playground.announcement.clone() }</div>
        </div>
    }
}

/// Marks the app's first render committed, and the render where it went
/// live (a prerendered page hydrated and read its saved work): see
/// `timing`.
#[hook]
fn use_start_marks(playground: &UseReducerHandle<Playground>) {
    use_effect_with((), |()| crate::timing::mark("first-render"));
    use_effect_with(playground.prerendered.is_none(), |live| {
        if *live {
            crate::timing::mark("live");
        }
    });
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

/// The callbacks the layout hands its components, each dispatching one
/// action; those that read the outside first (the page's address, the
/// theme) come from their hooks' modules.
struct Handlers {
    actions: Callback<Action>,
    open: Callback<usize>,
    change: Callback<(String, String)>,
    counterexample: Callback<(String, u32, usize)>,
    step: Callback<usize>,
    step_by: Callback<isize>,
    replay: Callback<(String, String)>,
    share: Callback<()>,
    theme: Callback<Theme>,
    open_focus: Callback<OpenFocus>,
    start_from: Callback<bool>,
    hunt_start: Callback<HuntText>,
}

impl Handlers {
    /// `dispatch_edit` dispatches the editors' edits and posts their checks
    /// at once (`worker::use_worker`).
    fn new(
        playground: &UseReducerHandle<Playground>,
        dispatch_edit: &Callback<Action>,
        open_focus: Callback<OpenFocus>,
    ) -> Handlers {
        let actions = playground.dispatcher().to_callback();
        Handlers {
            open: actions.reform(Action::Open),
            change: dispatch_edit.reform(|(procedure, text)| Action::Edited { procedure, text }),
            counterexample: actions.reform(|(procedure, line, change)| {
                Action::ShowCounterexample {
                    procedure,
                    line,
                    change,
                }
            }),
            step: actions.reform(Action::Step),
            step_by: actions.reform(Action::StepBy),
            replay: actions.reform(|(scenario, schedule)| Action::Replay { scenario, schedule }),
            share: address::on_share(playground.dispatcher()),
            theme: document::on_theme(playground.dispatcher()),
            open_focus,
            start_from: actions.reform(Action::StartFromWorking),
            hunt_start: actions.reform(Action::HuntStart),
            actions,
        }
    }

    /// A callback that dispatches the action `make` builds from a name.
    fn text(&self, make: fn(String) -> Action) -> Callback<String> {
        self.actions.reform(make)
    }

    /// A callback that dispatches `action()`.
    fn unit(&self, action: fn() -> Action) -> Callback<()> {
        self.actions.reform(move |()| action())
    }
}

/// What each procedure's editor offers as completions: worked out once per
/// exercise.
struct EditorAids {
    words: Rc<BTreeMap<String, Rc<Vec<crate::editor::Word>>>>,
}

#[hook]
fn use_editor_aids(playground: &UseReducerHandle<Playground>) -> EditorAids {
    let exercises = playground.exercises.clone();
    let words = use_memo(playground.current, move |current| {
        exercises
            .get(*current)
            .map(|exercise| {
                // Inserted, not collected: a collected map sorts its input,
                // with a sort compiled for this iterator alone.
                let mut words = BTreeMap::new();
                for procedure in &exercise.procedures {
                    let vocabulary = Rc::new(vocabulary(exercise, &procedure.name));
                    words.insert(procedure.name.clone(), vocabulary);
                }
                words
            })
            .unwrap_or_default()
    });
    EditorAids { words }
}

/// The page while no exercise is open: the one the address names is
/// awaited, or missing from this site (its notice, and the exercises the
/// site has), or none could be loaded at all.
fn unopened(playground: &Playground) -> Html {
    if playground.awaiting_link.is_some() {
        return html! {
            <main class="app"><p class="muted" role="status">
                { "Loading the exercise this link carries…" }
            </p></main>
        };
    }
    if let Some(awaiting) = &playground.awaiting {
        return html! {
            <main class="app"><p class="muted" role="status">
                { format!("Loading the exercise “{}”…", awaiting.exercise) }
            </p></main>
        };
    }
    if playground.missing.is_some() {
        return html! {
            <main class={classes!("app", playground.embed.then_some("embed"))}>
                <div class="notices" role="alert">
                    { for playground.notices.iter().map(|n| html! { <p class="notice">{ n.clone() }</p> }) }
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
        };
    }
    html! {
        <main class="app"><p role="alert">{ format!(
            "No exercise could be loaded{}",
            playground.load_error.as_ref().map(|e| format!(": {e}")).unwrap_or_default()
        ) }</p></main>
    }
}

fn masthead(playground: &Playground, handlers: &Handlers, open_focus: OpenFocus) -> Html {
    html! {
        <header class="masthead">
            <p class="brand">{ "fencelab" }</p>
            <p class="tagline">{ "Why authority needs a fence: break a claim, watch the counterexample, repair it." }</p>
            // One sentence from the first frame, the version's place
            // kept (style.css), so its arrival moves nothing.
            // The version ends the sentence: the space kept for it
            // then leaves no gap before any word after it.
            <p class="engine-status">
                { "Checked in a worker in this tab, compiled to WebAssembly: " }
                { match &playground.sqlite_version {
                    Some(v) => html! { <strong class="engine-sqlite" id="sqlite-version">{ format!("SQLite {v}") }</strong> },
                    None => html! { <strong class="engine-sqlite starting">{ "SQLite (starting)" }</strong> },
                } }
            </p>
            <SettingSwitch<Theme> id="theme" label="Theme" class="theme-switch" value={playground.theme} on_change={handlers.theme.clone()} />
            <SettingSwitch<OpenFocus> id="open-focus" label="A new exercise focuses" class="open-focus-switch"
                value={open_focus} on_change={handlers.open_focus.clone()} />
        </header>
    }
}

/// The exercise: its story, the working version's offer, and the loop;
/// after a pass, the solve and why each line is there.
fn work_main(
    playground: &Playground,
    exercise: &Exercise,
    handlers: &Handlers,
    aids: &EditorAids,
    narrow: bool,
    editing: &Editing,
) -> Html {
    let next = playground.solved().then(|| {
        crate::state::next_exercise(&playground.exercises, playground.current).map(|next| {
            let title = AttrValue::from(playground.exercises[next.index].title.clone());
            (next, title)
        })
    });
    html! {
        <div class="work-main">
            <Narrative title={exercise.title.clone()} story={exercise.narrative.clone()} folded={playground.embed || narrow} />
            if let Some(offer) = &exercise.working_version {
                <WorkingVersion offer={offer.clone()} working={playground.working} on_choose={handlers.start_from.clone()} />
            }
            if playground.opening.is_some() {
                <p class="muted">{ "Reading your saved work…" }</p>
            } else {
            { work_loop(playground, exercise, handlers, aids, editing) }
            if let Some(next) = next {
                <Solved next={next} solved={playground.solved_count()} total={playground.exercises.len()}
                    on_open={handlers.open.clone()} />
            }
            { for exercise.procedures.iter().filter(|p| p.editable).map(|p| {
                let name = p.name.clone();
                html! {
                    <LineMarks key={p.name.clone()} procedure={p.name.clone()} protection={playground.protection.clone()}
                        named={exercise.procedures.iter().filter(|p| p.editable).count() > 1}
                        on_show={handlers.counterexample.reform(move |(line, change): (u32, usize)| (name.clone(), line, change))} />
                }
            }) }
            }
        </div>
    }
}

/// The learner's loop: the editors, and directly under them the verdicts
/// (or a challenge's panel in their place); while the learner edits, the
/// loop follows it (`hooks/editing.rs`).
fn work_loop(
    playground: &Playground,
    exercise: &Exercise,
    handlers: &Handlers,
    aids: &EditorAids,
    editing: &Editing,
) -> Html {
    let panes = exercise.procedures.iter().filter(|p| p.editable).map(|p| {
        let initial = playground.texts.get(&p.name).cloned().unwrap_or_else(|| p.start.clone());
        let replace = (playground.replace.generation > 0)
            .then(|| playground.replace.texts.get(&p.name).map(|t| (playground.replace.generation, t.clone())))
            .flatten();
        (AttrValue::from(p.name.clone()), html! {
            <ProcedureEditor key={format!("{}/{}", exercise.id, p.name)}
                exercise={exercise.id.clone()} name={p.name.clone()}
                initial={initial} replace={replace} error={error_of(playground, &p.name)}
                words={aids.words.get(&p.name).cloned().unwrap_or_default()}
                protection={playground.protection.clone()}
                on_change={handlers.change.clone()} on_run={handlers.unit(|| Action::RunNow)}
                on_counterexample={handlers.counterexample.clone()} live={playground.prerendered.is_none()} />
        })
    }).collect::<Vec<_>>();
    html! {
        <div class="loop" onpointerdown={editing.on_pointer_down.clone()} onkeydown={editing.on_key_down.clone()}
            onfocusin={editing.on_focus_in.clone()} onfocusout={editing.on_focus_out.clone()}>
            <ProcedureTabs key={exercise.id.clone()} tabbed=true panes={panes} />
            // A challenge hides the counterexamples: its panel takes the
            // verdicts' place under the editors.
            if let Some(challenge) = &playground.challenge {
                <crate::components::hunt_panel::HuntPanel text={challenge.text.clone()} targets={playground.hunt_targets()}
                    hunting={playground.view.scenario().map(str::to_string)} variants={exercise.variants.clone()}
                    on_hunt={handlers.text(Action::DriveStart)} on_start={handlers.hunt_start.clone()}
                    on_leave={handlers.unit(|| Action::HuntLeave)} />
            } else {
                <ScenarioList scenarios={exercise.scenarios.clone()} report={playground.report.clone()}
                    checking={playground.checking()} check_seq={playground.check_wanted} report_seq={playground.report_seq}
                    selected={playground.view.scenario().map(str::to_string)} compact=true
                    on_select={handlers.text(Action::Select)} on_drive={handlers.text(Action::DriveStart)} />
                <FollowingCount report={playground.report.clone()} checking={playground.checking()}
                    shown={editing.count_hidden} />
            }
        </div>
    }
}

/// The first error the newest report places in `procedure`: its line and
/// message, for the editor's mark.
fn error_of(playground: &Playground, procedure: &str) -> Option<(u32, String)> {
    playground.report.as_ref()?.scenarios.iter().find_map(|s| {
        let error = s.error()?;
        let place = error.place.as_ref().filter(|p| p.procedure == procedure)?;
        Some((place.position?.line, error.message()))
    })
}

/// The results beside the exercise: a drive, the timeline, the tables
/// after the selected step, the console; or a line saying what is coming.
fn work_results(playground: &Playground, handlers: &Handlers) -> Html {
    let driving = matches!(playground.view, View::Driving(_));
    let shown = playground.shown();
    html! {
        <div class="work-results">
          <crate::components::results_fold::ResultsFold folds={playground.embed}>
            if let View::Driving(drive) = &playground.view {
                <DrivePanel scenario={drive.scenario.clone()} schedule={drive.schedule.clone()}
                    last={drive.last.clone()} waiting={drive.waiting_for.is_some()} failed={drive.failed.clone()}
                    hunt={playground.challenge.is_some()} verdict={drive.verdict.as_deref().cloned()}
                    on_move={handlers.text(Action::DriveMove)} on_undo={handlers.unit(|| Action::DriveUndo)}
                    on_restart={handlers.unit(|| Action::DriveRestart)} on_stop={handlers.unit(|| Action::DriveStop)} />
            }
            if let Some(report) = shown {
                { shown_report(playground, &report, handlers) }
            } else if let Some(without) = playground.view.without() {
                <p class="muted counterexample-waiting">
                    { format!("Running the counterexample without line {} of {}…", without.line, without.procedure) }
                </p>
            } else if !driving && playground.challenge.is_none() {
                <p class="muted results-empty">
                    { if playground.report.is_some() {
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
          </crate::components::results_fold::ResultsFold>
        </div>
    }
}

/// A shown scenario's report: its timeline, the tables after the selected
/// step, the take-home script, the replay form and the console.
fn shown_report(
    playground: &Playground,
    report: &crate::state::SharedReport,
    handlers: &Handlers,
) -> Html {
    let step = playground.view.step();
    let (console_sql, console) = playground
        .view
        .at()
        .map(|at| (at.console.sql.clone(), at.console.result.clone()))
        .unwrap_or_default();
    let unfinished = matches!(&playground.view, View::Driving(drive) if !drive.last.as_ref().is_some_and(|d| d.finished));
    let driving = matches!(playground.view, View::Driving(_));
    html! {<>
        <Timeline report={report.clone()} step={step} without={playground.view.without().cloned()}
            unfinished={unfinished} on_step={handlers.step.clone()} on_step_by={handlers.step_by.clone()} />
        <TableView tables={tables::after_event(&report.initial_tables, &report.history, step)} step={step} />
        if !unfinished {
            <crate::components::take_home::TakeHome exercises={SharedExercises(playground.exercises.clone())}
                current={playground.current} edits={playground.view_texts().clone()} report={report.clone()} />
        }
        if !driving && !playground.interleaved(&report.name).is_empty() {
            <crate::components::replay_form::ReplayForm scenario={report.name.clone()}
                schedule={playground.asked_schedule().to_string()}
                processes={playground.interleaved(&report.name)} on_replay={handlers.replay.clone()}
                refused={playground.replay_refused.as_ref().filter(|(s, _)| *s == report.name).map(|(_, m)| m.clone())} />
        }
        <Console step={step} tables={report.initial_tables.iter().map(|t| t.table.clone()).collect::<Vec<_>>()} sql={console_sql}
            result={console} on_query={handlers.text(Action::Query)} />
    </>}
}

/// What comes after the exercise: the broken variants, the challenge's
/// offer, the hints and sharing.
fn work_extra(playground: &Playground, exercise: &Exercise, handlers: &Handlers) -> Html {
    html! {
        <div class="work-extra">
            <crate::components::variants::Variants variants={exercise.variants.clone()}
                loaded={playground.loaded_variant.clone()} seen={playground.seen.clone()} working={playground.working}
                restorable={playground.own_aside.is_some()} on_load={handlers.text(Action::LoadVariant)}
                on_reset={handlers.unit(|| Action::Reset)} on_restore={handlers.unit(|| Action::RestoreOwn)} />
            <crate::components::hunt_panel::HuntOffer variants={exercise.variants.clone()}
                on_start={handlers.hunt_start.clone()} />
            <Hints hints={exercise.hints.clone()} shown={playground.hints_shown} on_more={handlers.unit(|| Action::ShowHint)} />
            <SharePanel url={playground.share_url.clone()} on_share={handlers.share.clone()} />
        </div>
    }
}
