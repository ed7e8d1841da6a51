//! "Take this counterexample home": the run on screen as a standalone
//! Python 3 script that does it again on a real SQLite database file. The
//! model's own writer (`fencelab_model::export`, the one `fencelab export
//! --python` uses) makes it from the report shown, when the learner asks,
//! and the page offers it as a download (docs/REPLAY.md).

use crate::state::{SharedExercises, SharedReport};
use fencelab_model::procedure::Procedure;
use fencelab_model::replay::Plan;
use fencelab_model::{Exercise, ScenarioReport};
use fencelab_protocol::Edits;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TakeHomeProps {
    pub exercises: SharedExercises,
    pub current: usize,
    /// The texts the report ran.
    pub edits: Edits,
    pub report: SharedReport,
}

/// The script's file name and text, or why there is none.
fn script(
    exercises: &[Exercise],
    current: usize,
    edits: &Edits,
    report: &ScenarioReport,
) -> Result<(String, String), String> {
    let exercise = exercises.get(current).ok_or("the exercise is not open")?;
    let procedures = exercise
        .texts_with(edits)
        .iter()
        .map(|(name, text)| Procedure::parse(name, text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.message)?;
    let plan = Plan::of(exercise, &procedures, report, exercise.journal);
    let made_by = format!("fencelab {}, in the browser", env!("CARGO_PKG_VERSION"));
    Ok((
        fencelab_model::export::file_name(&plan),
        fencelab_model::export::python_script(&plan, &made_by),
    ))
}

#[function_component(TakeHome)]
pub fn take_home(props: &TakeHomeProps) -> Html {
    let problem = use_state(|| None::<String>);
    let onclick = {
        let problem = problem.clone();
        let exercises = props.exercises.clone();
        let current = props.current;
        let edits = props.edits.clone();
        let report = props.report.clone();
        // Written when asked for, never on a render.
        Callback::from(move |_: MouseEvent| {
            let made = script(&exercises, current, &edits, &report);
            let offered = made.and_then(|(name, text)| {
                crate::download::download(&name, &text, "text/x-python")
                    .map_err(|e| format!("the file could not be offered ({e:?})"))
            });
            problem.set(offered.err());
        })
    };
    // Which locks the run met: the journal mode is the exercise's.
    let journal = props
        .exercises
        .get(props.current)
        .map(|exercise| exercise.journal)
        .unwrap_or_default();
    html! {
        <p class="take-home">
            <span class="muted">{ format!("This run's database keeps a {journal}. ") }</span>
            <button type="button" id="take-home" {onclick}
                title="A Python 3 script (standard library only) that runs this schedule on a real SQLite file">
                { "Take this counterexample home" }
            </button>
            if let Some(problem) = &*problem {
                <span class="muted">{ format!(" {problem}") }</span>
            }
        </p>
    }
}
