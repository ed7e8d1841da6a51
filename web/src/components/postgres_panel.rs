//! "On PostgreSQL": what the site recorded of an exercise's PostgreSQL
//! dialect (issue 53, item 4), beside the live SQLite verdicts the page
//! runs itself. Each recorded run (the reference, the starting text, each
//! broken variant) lists its scenarios' verdicts on the server, marks
//! where SQLite's verdict for the same text differs, and shows such a
//! scenario's timeline; then the command that checks the learner's own
//! text on a server, and a button that saves the texts as the files it
//! names. Every recorded value is text in the DOM, never markup.

use crate::components::timeline::Timeline;
use crate::state::{RecordedVerdicts, SharedReport};
use fencelab_model::report::{Recorded, RecordedRun, Verdict};
use fencelab_model::text::shell_word;
use fencelab_protocol::Edits;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PostgresPanelProps {
    pub exercise: String,
    pub verdicts: RecordedVerdicts,
    /// The learner's current texts of the editable procedures, by name.
    pub texts: Edits,
}

/// The report of the scenario whose timeline is open, made shareable once,
/// when it was opened (the timeline keeps its folds while it is the same).
type Opened = Option<SharedReport>;

#[function_component(PostgresPanel)]
pub fn postgres_panel(props: &PostgresPanelProps) -> Html {
    let opened = use_state(|| None::<SharedReport>);
    let step = use_state(|| 0usize);
    let body = match &props.verdicts {
        RecordedVerdicts::Fetching => {
            html! { <p class="muted">{ "Fetching the recorded PostgreSQL verdicts…" }</p> }
        }
        RecordedVerdicts::None => html! {
            <p class="muted" id="postgres-none">
                { "Recorded verdicts: none, this site was built without a PostgreSQL server." }
            </p>
        },
        RecordedVerdicts::Unreadable(why) => html! {
            <p class="muted" id="postgres-unreadable">
                { format!("The recorded PostgreSQL verdicts could not be read: {why}") }
            </p>
        },
        RecordedVerdicts::Found(recorded) => recorded_runs(recorded, &opened, &step),
    };
    html! {
        <section class="postgres-panel" id="postgres-panel" aria-labelledby="postgres-title">
            <h2 id="postgres-title">{ "On PostgreSQL" }</h2>
            { body }
            <RunCommand exercise={props.exercise.clone()} texts={props.texts.clone()} />
        </section>
    }
}

/// Every recorded run's verdicts, and the timeline opened among them.
fn recorded_runs(
    recorded: &Rc<Recorded>,
    opened: &UseStateHandle<Opened>,
    step: &UseStateHandle<usize>,
) -> Html {
    let shown = (**opened).clone();
    let on_step = {
        let step = step.clone();
        Callback::from(move |to: usize| step.set(to))
    };
    let on_step_by = {
        let step = step.clone();
        Callback::from(move |by: isize| step.set(step.saturating_add_signed(by)))
    };
    html! {<>
        <p class="postgres-engine">
            { format!("Recorded on {} when this site was built: the page runs SQLite only, so these are not live.", recorded.engine) }
        </p>
        <ul class="postgres-runs">
            { for recorded.runs.iter().map(|run| run_item(run, opened, step)) }
        </ul>
        if let Some(report) = shown {
            <div class="postgres-timeline" id="postgres-timeline">
                <Timeline report={report} without={None} step={**step} on_step={on_step} on_step_by={on_step_by}
                    id_prefix="postgres-" />
            </div>
        }
    </>}
}

/// One run: what it ran, then each scenario's verdict on the server.
fn run_item(
    run: &RecordedRun,
    opened: &UseStateHandle<Opened>,
    step: &UseStateHandle<usize>,
) -> Html {
    let scenarios = run.report.scenarios.iter().zip(&run.sqlite);
    html! {
        <li class="postgres-run">
            <strong>{ capitalized(&run.texts.called()) }</strong>
            <ul class="postgres-verdicts">
                { for scenarios.map(|(report, sqlite)| {
                    let verdict = report.verdict();
                    let differs = *sqlite != Some(verdict);
                    // Only a differing scenario kept its history.
                    let open = (differs && !report.history.is_empty()).then(|| {
                        let (opened, step) = (opened.clone(), step.clone());
                        let report = report.clone();
                        Callback::from(move |_: MouseEvent| {
                            opened.set(Some(SharedReport::Replay(Rc::new(report.clone()))));
                            step.set(0);
                        })
                    });
                    html! {
                        <li class={classes!("postgres-verdict", differs.then_some("differs"))}>
                            { format!("{}: {}", report.name, verdict.word()) }
                            if differs {
                                <span class="postgres-differs">{ format!(" (differs: SQLite says {})", sqlite_word(*sqlite)) }</span>
                            }
                            if let Some(open) = open {
                                { " " }
                                <button class="postgres-show" onclick={open}>{ "Show its timeline" }</button>
                            }
                        </li>
                    }
                }) }
            </ul>
        </li>
    }
}

fn sqlite_word(verdict: Option<Verdict>) -> &'static str {
    verdict.map_or("nothing: it has no such scenario", Verdict::word)
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[derive(Properties, PartialEq)]
struct RunCommandProps {
    exercise: String,
    texts: Edits,
}

/// The command that checks the learner's texts on a server, with a copy
/// button, and the button that saves the texts as the files it names.
#[function_component(RunCommand)]
fn run_command(props: &RunCommandProps) -> Html {
    let copied = use_state(|| None::<String>);
    let command = run_line(&props.exercise, &props.texts);
    let copy = {
        let (command, copied) = (command.clone(), copied.clone());
        Callback::from(move |_: MouseEvent| {
            let (command, copied) = (command.clone(), copied.clone());
            wasm_bindgen_futures::spawn_local(async move {
                copied.set(Some(
                    match crate::components::share_panel::copy(command).await {
                        Ok(()) => "Copied.".to_string(),
                        Err(why) => format!("Not copied: {why}."),
                    },
                ));
            });
        })
    };
    let texts = props.texts.clone();
    let save = Callback::from(move |_: MouseEvent| {
        for (procedure, text) in &texts {
            let _ = crate::download::download(&file_of(procedure), text, "application/sql");
        }
    });
    html! {
        <div class="postgres-command">
            <p>{ "Check your own text on your PostgreSQL server (FENCELAB_POSTGRES names it) with:" }</p>
            <pre id="postgres-command"><code>{ command }</code></pre>
            <button id="postgres-copy" onclick={copy}>{ "Copy the command" }</button>
            { " " }
            <button id="postgres-save" onclick={save}>{ "Save your texts as its .sql files" }</button>
            if let Some(said) = &*copied { <span class="muted" role="status">{ format!(" {said}") }</span> }
        </div>
    }
}

/// The file a procedure's text is saved as.
fn file_of(procedure: &str) -> String {
    format!("{procedure}.sql")
}

/// `fencelab run ID --postgres --set PROC=PROC.sql ...`.
pub fn run_line(exercise: &str, texts: &Edits) -> String {
    // A site's procedure may have any name: every word through the one
    // shell escaping function, since the learner pastes this into a shell.
    let sets: String = texts
        .keys()
        .map(|procedure| {
            let set = format!("{procedure}={}", file_of(procedure));
            format!(" --set {}", shell_word(&set))
        })
        .collect();
    format!("fencelab run {} --postgres{sets}", shell_word(exercise))
}
