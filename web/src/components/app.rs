//! The page's root: owns the state (state/), the worker (engine.rs), and
//! the effects that talk to the outside: sending requests, reading and
//! writing saved work, the URL, the page's title and theme, bringing the
//! answer into view (reveal.rs), and the global Ctrl/Cmd+Enter. Whatever an
//! effect reads (saved work, progress, the page's address, the theme) it
//! dispatches as an action or hands to the first state; the reducer and the
//! render read nothing themselves.
//!
//! The layout is built around the learner's loop, edit and watch: the
//! editors (one at a time, under tabs, when there are several) and directly
//! under them the verdict count and one line per verdict (`.loop`, which
//! style.css fits to one screen, the editor scrolling in what is left), so
//! with the cursor in an editor every verdict is in sight
//! (`reveal::work_loop`). What arrives after a pass (the solve, why each
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
use crate::components::theme_switch::ThemeSwitch;
use crate::components::timeline::Timeline;
use crate::components::working_version::WorkingVersion;
use crate::engine::Engine;
use crate::state::{Action, Model, SiteExercises, Start, Theme, View};
use crate::vocabulary::vocabulary;
use crate::{editor, reveal, storage, tables};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Mounts the app, replacing the "Loading…" line.
pub fn start() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(boot) = document.get_element_by_id("boot") {
        boot.remove();
    }
    // `?author=1`: the authoring view, a page of its own.
    if crate::author::requested() {
        yew::Renderer::<crate::components::author_app::AuthorApp>::new().render();
    } else {
        yew::Renderer::<App>::new().render();
    }
}

fn read_start() -> Start {
    let location = web_sys::window().map(|w| w.location());
    let search = location
        .as_ref()
        .and_then(|l| l.search().ok())
        .unwrap_or_default();
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok();
    let param = |name: &str| params.as_ref().and_then(|p| p.get(name));
    let fragment = location
        .as_ref()
        .and_then(|l| l.hash().ok())
        .unwrap_or_default();
    Start {
        // An exercise link (`#x1=`) names the exercise it carries.
        exercise: crate::author::link::linked_id(fragment.trim_start_matches('#'))
            .or_else(|| param("exercise")),
        embed: param("embed").is_some_and(|v| v == "1"),
        parent: param("parent"),
        hunts: param("hunts").is_some_and(|v| v == "1"),
        fragment: fragment.trim_start_matches('#').to_string(),
        // An embedding page may choose the theme (`embed.js`'s `theme`).
        theme: param("theme")
            .map(|name| Theme::from_name(&name))
            .filter(|theme| *theme != Theme::System)
            .unwrap_or_else(storage::theme),
    }
}

/// Applies `theme` to the document (its `data-theme`, which the stylesheet
/// and the editors follow; none follows the system) and remembers it.
pub(crate) fn apply_theme(theme: Theme) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = match theme {
            Theme::System => root.remove_attribute("data-theme"),
            chosen => root.set_attribute("data-theme", chosen.name()),
        };
    }
    storage::save_theme(theme);
    editor::refresh_scheme();
}

/// Removes a share link from the address bar once read, so a reload shows
/// the autosaved work rather than the link again.
fn clear_fragment() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let hash = window.location().hash().unwrap_or_default();
    // An exercise link stays: the exercise it carries lives nowhere else.
    if hash.is_empty() || crate::author::link::is_exercise_link(hash.trim_start_matches('#')) {
        return;
    }
    drop_fragment(&window);
}

/// Replaces the address with itself without its fragment (no reload).
pub(crate) fn drop_fragment(window: &web_sys::Window) {
    let location = window.location();
    let url = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

#[function_component(App)]
pub fn app() -> Html {
    // The address is read once, as the first state is made; everything
    // later that the reducer needs from outside arrives as an action.
    let model = use_reducer(|| Model::new(crate::catalog::bundled(), read_start()));
    let engine = {
        let dispatcher = model.dispatcher();
        use_memo((), move |_| {
            Engine::start(move |response| dispatcher.dispatch(Action::Worker(Box::new(response))))
        })
    };
    use_effect_with((), |_| clear_fragment());
    crate::embed::effects::use_embedding(&model);
    // The address names the open exercise, so a reload comes back to it.
    {
        let id = model.exercise().map(|e| e.id.clone());
        let embed = model.embed;
        // An embed keeps its parent, so a reload still reports to it.
        let parent = model
            .embedding
            .as_ref()
            .map(|e| format!("&parent={}", js_sys::encode_uri_component(&e.parent)))
            .unwrap_or_default();
        use_effect_with(id, move |id| {
            if let (Some(id), Some(window)) = (id, web_sys::window()) {
                let query = format!(
                    "?{}exercise={id}{parent}",
                    if embed { "embed=1&" } else { "" }
                );
                // An exercise link's fragment is kept (see clear_fragment).
                let hash = window.location().hash().unwrap_or_default();
                let hash = if crate::author::link::is_exercise_link(hash.trim_start_matches('#')) {
                    hash
                } else {
                    String::new()
                };
                let url = format!(
                    "{}{query}{hash}",
                    window.location().pathname().unwrap_or_default()
                );
                if let Ok(history) = window.history() {
                    let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
                }
            }
        });
    }
    // The saved work of the exercise being opened (an unreadable entry is
    // set aside here, named by the clock).
    {
        let dispatcher = model.dispatcher();
        let opening = model.opening.as_ref().map(|o| o.exercise.clone());
        use_effect_with(opening, move |opening| {
            if let Some(exercise) = opening.clone() {
                let loaded = storage::load(&exercise);
                dispatcher.dispatch(Action::SavedWorkRead { exercise, loaded });
            }
        });
    }
    // The site's own exercises (its `exercises/index.toml`), once.
    {
        let dispatcher = model.dispatcher();
        use_effect_with((), move |_| {
            // An exercise link's exercise is installed as a site's own is,
            // at once (the address names it, so it is awaited).
            if let Some(linked) = crate::author::link::linked_file() {
                dispatcher.dispatch(Action::SiteExercises(SiteExercises::Files(vec![linked])));
            }
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(Action::SiteExercises(crate::site::fetch().await));
            });
        });
    }
    // Every exercise's saved progress, for the exercise list (again when
    // the site's own exercises arrive).
    {
        let dispatcher = model.dispatcher();
        let exercises = model.exercises.clone();
        use_effect_with(model.exercises.len(), move |_| {
            let ids = exercises.iter().map(|e| e.id.as_str());
            dispatcher.dispatch(Action::ProgressRead(storage::progress(ids)));
        });
    }
    // A check on every edit, sent at once: the worker drops a check that a
    // newer one supersedes, and the engine restarts it if that one has run
    // long (engine.rs). Edits dispatched within one task render once, so
    // they are sent as one check.
    {
        let engine = engine.clone();
        let request = model.check_request();
        use_effect_with(model.check_wanted, move |_| {
            if let Some(request) = request {
                engine.send(request);
            }
        });
    }
    // Every other request, sent once each.
    {
        let engine = engine.clone();
        let sent = use_mut_ref(|| 0u64);
        let outbox = model.outbox.clone();
        use_effect_with(model.outbox.last().map(|r| r.seq()), move |_| {
            for request in outbox {
                if request.seq() > *sent.borrow() {
                    *sent.borrow_mut() = request.seq();
                    engine.send((*request).clone());
                }
            }
        });
    }
    // Autosave on every change of the work. The progress the list shows
    // follows from what was saved; it is dispatched only when it changed,
    // not read back from storage on every keystroke.
    {
        let dispatcher = model.dispatcher();
        let id = model.autosaved_exercise().map(str::to_string);
        let shown = id.as_ref().and_then(|id| model.progress.get(id).copied());
        use_effect_with((id, model.saved()), move |(id, saved)| {
            if let Some(id) = id {
                storage::save(id, saved);
                let progress = saved.progress();
                if shown != Some(progress) {
                    dispatcher.dispatch(Action::ProgressRead(BTreeMap::from([(
                        id.clone(),
                        progress,
                    )])));
                }
            }
        });
    }
    // A share link pasted into this tab changes only the fragment, which
    // loads nothing: reload so it is read like any opened link.
    use_effect_with((), |_| {
        let listener = Closure::<dyn FnMut()>::new(|| {
            if let Some(window) = web_sys::window() {
                let hash = window.location().hash().unwrap_or_default();
                if crate::share::is_link(hash.trim_start_matches('#')) {
                    let _ = window.location().reload();
                }
            }
        });
        let window = web_sys::window();
        if let Some(window) = &window {
            let _ = window
                .add_event_listener_with_callback("hashchange", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(window) = window {
                let _ = window.remove_event_listener_with_callback(
                    "hashchange",
                    listener.as_ref().unchecked_ref(),
                );
            }
        }
    });
    // A scenario was chosen, or a counterexample the learner asked for has
    // arrived: where it broke comes into view, and the timeline takes the
    // keyboard focus, so its steps are one arrow key away.
    use_effect_with(model.focus_timeline, |count| {
        if *count > 0 {
            reveal::timeline();
        }
    });
    // Whenever a timeline is shown (its report, or the step selected in it,
    // changed: the first open, a restored link, a drive's end), its selected
    // step, where it broke, is brought into view inside the timeline's box.
    {
        let shown = model
            .shown()
            .map(|r| std::ptr::from_ref::<fencelab_model::report::ScenarioReport>(&r) as usize);
        use_effect_with((shown, model.view.step()), |(shown, _)| {
            if shown.is_some() {
                reveal::step_in_box();
            }
        });
    }
    // "Drive it yourself": the drive panel comes into view with the focus.
    use_effect_with(model.focus_drive, |count| {
        if *count > 0 {
            reveal::drive();
        }
    });
    // The page's title names the exercise.
    {
        let title = model.exercise().map(|e| e.title.clone());
        use_effect_with(title, |title| {
            if let (Some(title), Some(document)) =
                (title, web_sys::window().and_then(|w| w.document()))
            {
                document.set_title(&format!("{title} · fencelab"));
            }
        });
    }
    use_effect_with(model.theme, |theme| apply_theme(*theme));
    // Ctrl/Cmd+Enter anywhere re-runs at once.
    {
        let dispatcher = model.dispatcher();
        use_effect_with((), move |_| {
            let listener = Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(
                move |event: web_sys::KeyboardEvent| {
                    if event.key() == "Enter" && (event.ctrl_key() || event.meta_key()) {
                        event.prevent_default();
                        dispatcher.dispatch(Action::RunNow);
                    }
                },
            );
            let document = web_sys::window().and_then(|w| w.document());
            if let Some(document) = &document {
                let _ = document
                    .add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(document) = document {
                    let _ = document.remove_event_listener_with_callback(
                        "keydown",
                        listener.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }

    let dispatch = |make: fn(String) -> Action| {
        let dispatcher = model.dispatcher();
        Callback::from(move |value: String| dispatcher.dispatch(make(value)))
    };
    let unit = |action: fn() -> Action| {
        let dispatcher = model.dispatcher();
        Callback::from(move |_: ()| dispatcher.dispatch(action()))
    };
    let on_open = {
        let dispatcher = model.dispatcher();
        Callback::from(move |i: usize| dispatcher.dispatch(Action::Open(i)))
    };
    let on_change = {
        let dispatcher = model.dispatcher();
        Callback::from(move |(procedure, text): (String, String)| {
            dispatcher.dispatch(Action::Edited { procedure, text })
        })
    };
    let on_counterexample = {
        let dispatcher = model.dispatcher();
        Callback::from(move |(procedure, line, change): (String, u32, usize)| {
            dispatcher.dispatch(Action::ShowCounterexample {
                procedure,
                line,
                change,
            })
        })
    };
    let on_step = {
        let dispatcher = model.dispatcher();
        Callback::from(move |i: usize| dispatcher.dispatch(Action::Step(i)))
    };
    let on_replay = {
        let dispatcher = model.dispatcher();
        Callback::from(move |(scenario, schedule): (String, String)| {
            dispatcher.dispatch(Action::Replay { scenario, schedule })
        })
    };
    let on_step_by = {
        let dispatcher = model.dispatcher();
        Callback::from(move |d: isize| dispatcher.dispatch(Action::StepBy(d)))
    };
    // A share link names this page's own address, which is read here.
    let on_share = {
        let dispatcher = model.dispatcher();
        Callback::from(move |_: ()| {
            dispatcher.dispatch(Action::Share {
                base: page_address(),
            })
        })
    };
    let on_theme = {
        let dispatcher = model.dispatcher();
        Callback::from(move |theme: Theme| dispatcher.dispatch(Action::SetTheme(theme)))
    };
    let on_start_from = {
        let dispatcher = model.dispatcher();
        Callback::from(move |working: bool| dispatcher.dispatch(Action::StartFromWorking(working)))
    };
    // The tables each exercise's schema creates, for the console.
    let schema_tables = {
        let exercises = model.exercises.clone();
        use_memo(model.current, move |current| {
            exercises
                .get(*current)
                .map(|e| tables::schema_tables(&e.schema))
                .unwrap_or_default()
        })
    };
    // What each procedure can use, worked out once per exercise.
    let words = {
        let exercises = model.exercises.clone();
        use_memo(model.current, move |current| {
            exercises
                .get(*current)
                .map(|exercise| {
                    exercise
                        .procedures
                        .iter()
                        .map(|p| (p.name.clone(), Rc::new(vocabulary(exercise, &p.name))))
                        .collect::<BTreeMap<_, _>>()
                })
                .unwrap_or_default()
        })
    };

    // A phone's first screen: the story and the exercise list folded.
    // Above the early returns below: yew tells hooks apart by their order,
    // so every render must call the same ones (a debug build asserts it
    // when a site's exercise, awaited at first, arrives).
    let narrow = *use_memo((), |_| reveal::narrow_screen());

    let Some(exercise) = model.exercise() else {
        if let Some(awaiting) = &model.awaiting {
            return html! {
                <main class="app"><p class="muted" role="status">
                    { format!("Loading the exercise “{}”…", awaiting.exercise) }
                </p></main>
            };
        }
        if model.missing.is_some() {
            return html! {
                <main class={classes!("app", model.embed.then_some("embed"))}>
                    <div class="notices" role="alert">
                        { for model.notices.iter().map(|n| html! { <p class="notice">{ n.clone() }</p> }) }
                    </div>
                    // The page's own address with another id: the choice is a
                    // plain link, so it opens as any address would.
                    if !model.embed {
                        <nav class="exercise-choices" aria-label="Exercises on this page"><ul>
                            { for model.exercises.iter().map(|e| html! {
                                <li><a href={format!("?exercise={}", e.id)} data-exercise={e.id.clone()}>{ e.title.clone() }</a></li>
                            }) }
                        </ul></nav>
                    }
                </main>
            };
        }
        return html! {
            <main class="app"><p role="alert">{ format!(
                "No exercise could be loaded{}",
                model.load_error.as_ref().map(|e| format!(": {e}")).unwrap_or_default()
            ) }</p></main>
        };
    };
    let shown = model.shown();
    let step = model.view.step();
    let (console_sql, console) = model
        .view
        .at()
        .map(|at| (at.console.sql.clone(), at.console.result.clone()))
        .unwrap_or_default();
    let error_of = |procedure: &str| -> Option<(u32, String)> {
        model.report.as_ref()?.scenarios.iter().find_map(|s| {
            let error = s.error()?;
            let place = error.place.as_ref().filter(|p| p.procedure == procedure)?;
            Some((place.position?.line, error.message.clone()))
        })
    };
    // With the cursor in an editor, the editors and the verdicts in view.
    let on_loop_focus = Callback::from(|event: FocusEvent| {
        let in_editor = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest(".editor").ok().flatten())
            .is_some();
        if in_editor {
            reveal::work_loop();
        }
    });
    let next = model.solved().then(|| {
        crate::state::next_exercise(&model.exercises, model.current).map(|next| {
            let title = AttrValue::from(model.exercises[next.index].title.clone());
            (next, title)
        })
    });
    let unfinished = matches!(&model.view, View::Driving(drive) if !drive.last.as_ref().is_some_and(|d| d.finished));
    let driving = matches!(model.view, View::Driving(_));

    html! {
        <div class={classes!("app", model.embed.then_some("embed"))}>
            <a class="skip-link" href="#workspace">{ "Skip to the exercise" }</a>
            if !model.embed {
                <header class="masthead">
                    <p class="brand">{ "fencelab" }</p>
                    <p class="tagline">{ "Why authority needs a fence: break a claim, watch the counterexample, repair it." }</p>
                    // One sentence from the first frame, the version's place
                    // kept (style.css), so its arrival moves nothing.
                    // The version ends the sentence: the space kept for it
                    // then leaves no gap before any word after it.
                    <p class="engine-status">
                        { "Checked in a worker in this tab, compiled to WebAssembly: " }
                        { match &model.sqlite_version {
                            Some(v) => html! { <strong class="engine-sqlite" id="sqlite-version">{ format!("SQLite {v}") }</strong> },
                            None => html! { <strong class="engine-sqlite starting">{ "SQLite (starting)" }</strong> },
                        } }
                    </p>
                    <ThemeSwitch theme={model.theme} on_change={on_theme} />
                </header>
            }
            <div class="layout">
                if !model.embed {
                    <ExerciseList exercises={model.exercises.clone()} current={model.current} folded={narrow}
                        current_progress={model.current_progress()} progress={model.progress.clone()} on_open={on_open.clone()} />
                }
                <main id="workspace" class="workspace" tabindex="-1">
                    <Notices notices={model.notices.clone()} can_go_back={model.saved_aside.is_some()}
                        on_back={unit(|| Action::BackToSaved)} on_keep={unit(|| Action::KeepLinked)} on_dismiss={unit(|| Action::DismissNotices)} />
                    <div class="work">
                        <div class="work-main">
                            <Narrative title={exercise.title.clone()} markdown={exercise.narrative.clone()} folded={model.embed || narrow} />
                            if let Some(offer) = &exercise.working_version {
                                <WorkingVersion offer={offer.clone()} working={model.working} on_choose={on_start_from} />
                            }
                            if model.opening.is_some() {
                                <p class="muted">{ "Reading your saved work…" }</p>
                            } else {
                            <div class="loop" onfocusin={on_loop_focus}>
                                <ProcedureTabs key={exercise.id.clone()} tabbed=true panes={exercise.procedures.iter().filter(|p| p.editable).map(|p| {
                                    let initial = model.texts.get(&p.name).cloned().unwrap_or_else(|| p.start.clone());
                                    let replace = (model.replace.generation > 0)
                                        .then(|| model.replace.texts.get(&p.name).map(|t| (model.replace.generation, t.clone())))
                                        .flatten();
                                    (AttrValue::from(p.name.clone()), html! {
                                        <ProcedureEditor key={format!("{}/{}", exercise.id, p.name)}
                                            exercise={exercise.id.clone()} name={p.name.clone()}
                                            initial={initial} replace={replace} error={error_of(&p.name)}
                                            words={words.get(&p.name).cloned().unwrap_or_default()}
                                            protection={model.protection.clone()}
                                            on_change={on_change.clone()} on_run={unit(|| Action::RunNow)}
                                            on_counterexample={on_counterexample.clone()} />
                                    })
                                }).collect::<Vec<_>>()} />
                                // A challenge hides the counterexamples: its panel takes the
                                // verdicts' place under the editors.
                                if let Some(challenge) = &model.challenge {
                                    <crate::components::hunt_panel::HuntPanel text={challenge.text.clone()} targets={model.hunt_targets()}
                                        hunting={model.view.scenario().map(str::to_string)}
                                        on_hunt={dispatch(Action::DriveStart)} on_leave={unit(|| Action::HuntLeave)} />
                                } else {
                                    <ScenarioList scenarios={exercise.scenarios.clone()} report={model.report.clone()}
                                        checking={model.checking()} check_seq={model.check_wanted} report_seq={model.report_seq}
                                        selected={model.view.scenario().map(str::to_string)} compact=true
                                        on_select={dispatch(Action::Select)} on_drive={dispatch(Action::DriveStart)} />
                                }
                            </div>
                            if let Some(next) = next {
                                <Solved next={next} on_open={on_open} />
                            }
                            { for exercise.procedures.iter().filter(|p| p.editable).map(|p| {
                                let name = p.name.clone();
                                html! {
                                    <LineMarks key={p.name.clone()} procedure={p.name.clone()} protection={model.protection.clone()}
                                        named={exercise.procedures.iter().filter(|p| p.editable).count() > 1}
                                        on_show={on_counterexample.reform(move |(line, change): (u32, usize)| (name.clone(), line, change))} />
                                }
                            }) }
                            }
                        </div>
                        // While the exercise's saved work is read (one frame), nothing is drawn
                        // below the editors' place: drawn there, it would move when they appear.
                        if model.opening.is_none() {<>
                        <div class="work-results">
                          <crate::components::results_fold::ResultsFold folds={model.embed}>
                            if let View::Driving(drive) = &model.view {
                                <DrivePanel scenario={drive.scenario.clone()} schedule={drive.schedule.clone()}
                                    last={drive.last.clone()} waiting={drive.waiting_for.is_some()} failed={drive.failed.clone()}
                                    hunt={model.challenge.is_some()} verdict={drive.verdict.as_deref().cloned()}
                                    on_move={dispatch(Action::DriveMove)} on_undo={unit(|| Action::DriveUndo)}
                                    on_restart={unit(|| Action::DriveRestart)} on_stop={unit(|| Action::DriveStop)} />
                            }
                            if let Some(report) = shown {
                                <Timeline report={report.clone()} step={step} without={model.view.without().cloned()}
                                    unfinished={unfinished} on_step={on_step} on_step_by={on_step_by} />
                                <TableView tables={tables::after_event(&report.initial_tables, &report.history, step)} step={step} />
                                if !unfinished {
                                    <crate::components::take_home::TakeHome exercises={model.exercises.clone()}
                                        current={model.current} edits={model.view_texts().clone()} report={report.clone()} />
                                }
                                if !driving && !model.interleaved(&report.name).is_empty() {
                                    <crate::components::replay_form::ReplayForm scenario={report.name.clone()}
                                        schedule={model.asked_schedule().to_string()}
                                        processes={model.interleaved(&report.name)} on_replay={on_replay} />
                                }
                                <Console step={step} tables={(*schema_tables).clone()} sql={console_sql}
                                    result={console} on_query={dispatch(Action::Query)} />
                            } else if let Some(without) = model.view.without() {
                                <p class="muted counterexample-waiting">
                                    { format!("Running the counterexample without line {} of {}…", without.line, without.procedure) }
                                </p>
                            } else if !driving && model.challenge.is_none() {
                                <p class="muted results-empty">
                                    { if model.report.is_some() {
                                        "Every scenario passes. Choose one to see its timeline here."
                                    } else {
                                        "Checking your procedures…"
                                    } }
                                </p>
                            }
                          </crate::components::results_fold::ResultsFold>
                        </div>
                        <div class="work-extra">
                            <crate::components::variants::Variants mutants={exercise.mutants.clone()}
                                loaded={model.loaded_mutant.clone()} seen={model.seen.clone()} working={model.working}
                                on_load={dispatch(Action::LoadMutant)} on_reset={unit(|| Action::Reset)} />
                            <crate::components::hunt_panel::HuntOffer mutants={exercise.mutants.clone()}
                                on_start={{ let d = model.dispatcher(); Callback::from(move |text: crate::state::HuntText| d.dispatch(Action::HuntStart(text))) }} />
                            <Hints hints={exercise.hints.clone()} shown={model.hints_shown} on_more={unit(|| Action::ShowHint)} />
                            <SharePanel url={model.share_url.clone()} on_share={on_share} />
                        </div>
                        </>}
                    </div>
                </main>
            </div>
            <div id="announcer" class="visually-hidden" aria-live="polite" role="status">{ model.announcement.clone() }</div>
        </div>
    }
}

/// The page's address without its fragment, for share links.
pub(crate) fn page_address() -> String {
    web_sys::window()
        .and_then(|window| {
            let location = window.location();
            Some(format!(
                "{}{}",
                location.origin().ok()?,
                location.pathname().ok()?
            ))
        })
        .unwrap_or_default()
}
