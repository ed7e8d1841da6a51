//! One CodeMirror editor for one editable procedure, with the vocabulary it
//! can use listed under it and, once the texts pass, why each line is here
//! as marks in the editor (the list of the same marks is drawn under the
//! verdicts by the app, where its arrival moves nothing). yew renders only
//! the frame: the editor's own DOM belongs to CodeMirror, created once per
//! exercise and procedure.
//!
//! The editor's undo history outlives a reload: its state is saved (a
//! moment after the last change) and given back to the editor it creates
//! next for the same text. These are this component's effects on storage,
//! beside the app's autosave of the work itself.

use crate::components::line_marks::editor_marks;
use crate::editor::{EditorView, Word};
use crate::state::Protection;
use crate::storage;
use fencelab_model::procedure::DECISION_FORMS;
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// How long after the last change the undo history is saved.
const HISTORY_SAVE_DELAY_MS: u32 = 300;

#[derive(Properties, PartialEq)]
pub struct ProcedureEditorProps {
    pub exercise: AttrValue,
    pub name: AttrValue,
    /// The text the editor starts with; later changes come through `replace`.
    pub initial: AttrValue,
    /// (generation, text): replace the text as one undoable change.
    pub replace: Option<(u64, String)>,
    /// (line, message) of an SQL error to mark.
    pub error: Option<(u32, String)>,
    pub words: Rc<Vec<Word>>,
    /// Which lines the scenarios protect (every procedure's).
    pub protection: Protection,
    pub on_change: Callback<(String, String)>,
    pub on_run: Callback<()>,
    /// Show the counterexample of (procedure, line, caught change).
    pub on_counterexample: Callback<(String, u32, usize)>,
    /// Whether the editor is CodeMirror yet. A prerendered page shows the
    /// text as static text until its saved work has been read (the text
    /// CodeMirror is then created with); JavaScript off, it stays so.
    #[prop_or(true)]
    pub live: bool,
}

#[function_component(ProcedureEditor)]
pub fn procedure_editor(props: &ProcedureEditorProps) -> Html {
    let node = use_node_ref();
    let view = use_mut_ref(|| None::<EditorView>);
    let failed = use_state(|| None::<String>);
    use_codemirror(&node, &view, &failed, props);
    use_editor_updates(&view, props);
    html! {
        <section class="procedure" aria-labelledby={format!("procedure-{}", props.name)}>
            <h2 id={format!("procedure-{}", props.name)}>{ format!("Procedure {}", props.name) }</h2>
            <div class="procedure-body">
                <div class="editor" data-procedure={props.name.clone()} ref={node}>
                    if !props.live {
                        <pre class={classes!("editor-static", gutter_digits(&props.initial))} aria-label={format!("SQL of the procedure {}", props.name)}>{ props.initial.clone() }</pre>
                    }
                </div>
                { vocabulary(&props.name, &props.words) }
            </div>
            if let Some(message) = (*failed).clone() {
                <p class="error" role="alert">{ message }</p>
            }
            if let Some((line, message)) = &props.error {
                <p class="editor-error" data-error-line={line.to_string()}>
                    { format!("⚠ Line {line}: {message}") }
                </p>
            }
        </section>
    }
}

/// The editor's CodeMirror view, created once per exercise and procedure
/// in `node` (with the undo history saved for it), dropped with its
/// pending history save when either changes; `failed` says why it could not
/// be created.
#[hook]
fn use_codemirror(
    node: &NodeRef,
    view: &Rc<RefCell<Option<EditorView>>>,
    failed: &UseStateHandle<Option<String>>,
    props: &ProcedureEditorProps,
) {
    let node = node.clone();
    let view = view.clone();
    let failed = failed.clone();
    let initial = props.initial.to_string();
    let words = props.words.clone();
    let on_change = props.on_change.clone();
    let on_run = props.on_run.clone();
    let on_counterexample = props.on_counterexample.clone();
    use_effect_with(
        (props.exercise.clone(), props.name.clone(), props.live),
        move |(exercise, name, live)| {
            let exercise = exercise.to_string();
            let name = name.to_string();
            // The pending save of the undo history, replaced by each change.
            let pending: Rc<RefCell<Option<Timeout>>> = Rc::default();
            let parent = node.cast::<web_sys::Element>().filter(|_| *live);
            if let Some(parent) = parent {
                let label = format!("SQL of the procedure {name}");
                let changed_name = name.clone();
                let marked_name = name.clone();
                let saved = storage::history(&exercise, &name);
                let save = history_saver(view.clone(), pending.clone(), exercise, name);
                match EditorView::create(
                    &parent,
                    &initial,
                    &label,
                    &words,
                    saved,
                    move |text| {
                        on_change.emit((changed_name.clone(), text));
                        save();
                    },
                    move || on_run.emit(()),
                    // A click on a line's ✓ shows its first caught change.
                    move |line| on_counterexample.emit((marked_name.clone(), line, 0)),
                ) {
                    Ok(editor) => *view.borrow_mut() = Some(editor),
                    Err(message) => failed.set(Some(message)),
                }
            }
            move || {
                pending.borrow_mut().take();
                view.borrow_mut().take();
            }
        },
    );
}

/// What each change calls: the editor's state is saved as its undo
/// history [`HISTORY_SAVE_DELAY_MS`] after the last change.
fn history_saver(
    view: Rc<RefCell<Option<EditorView>>>,
    pending: Rc<RefCell<Option<Timeout>>>,
    exercise: String,
    name: String,
) -> impl Fn() {
    move || {
        let view = view.clone();
        let (exercise, name) = (exercise.clone(), name.clone());
        *pending.borrow_mut() = Some(Timeout::new(HISTORY_SAVE_DELAY_MS, move || {
            if let Some(state) = view.borrow().as_ref().and_then(EditorView::state_json) {
                storage::save_history(&exercise, &name, &state);
            }
        }));
    }
}

/// What changes in the editor after it was created: a replaced text (one
/// undoable change), the SQL error marked, the line marks.
#[hook]
fn use_editor_updates(view: &Rc<RefCell<Option<EditorView>>>, props: &ProcedureEditorProps) {
    {
        let view = view.clone();
        use_effect_with(props.replace.clone(), move |replace| {
            if let (Some((_, text)), Some(editor)) = (replace, view.borrow().as_ref()) {
                editor.set_text(text);
            }
        });
    }
    {
        let view = view.clone();
        use_effect_with(props.error.clone(), move |error| {
            if let Some(editor) = view.borrow().as_ref() {
                match error {
                    Some((line, message)) => editor.mark_error(*line, message),
                    None => editor.mark_error(0, ""),
                }
            }
        });
    }
    let view = view.clone();
    let marks = editor_marks(&props.protection, &props.name);
    use_effect_with(marks, move |marks| {
        if let Some(editor) = view.borrow().as_ref() {
            editor.set_marks(marks);
        }
    });
}

/// What the procedure can use, listed under its editor: each decision
/// with what it does and an example (fencelab_model::procedure).
fn vocabulary(name: &AttrValue, words: &[Word]) -> Html {
    let parameters: Vec<&Word> = words.iter().filter(|w| w.kind == "parameter").collect();
    html! {
        <details class="vocabulary">
            <summary>{ format!("What {} can use: {} parameters, {} decisions", name, parameters.len(), DECISION_FORMS.len()) }</summary>
            <h3>{ "Parameters" }</h3>
            <ul>
                { for parameters.iter().map(|w| html! {
                    <li><code>{ w.label.clone() }</code>{ " " }<span class="muted">{ w.detail.clone() }</span></li>
                }) }
            </ul>
            <h3>{ "Decisions" }</h3>
            <ul class="decisions">
                { for DECISION_FORMS.iter().map(|d| html! {
                    <li>
                        <code>{ d.form }</code>{ ": " }{ d.does }{ ". For example " }<code>{ d.example }</code>
                    </li>
                }) }
            </ul>
            <p class="muted">{ "Type : or -- @ for completions; Ctrl+Enter re-runs." }</p>
        </details>
    }
}

/// The static text's class for the width of CodeMirror's line numbers
/// (style.css sets its left padding to CodeMirror's gutters for 1, 2 or 3
/// digits), so the swap to CodeMirror wraps the same lines.
fn gutter_digits(text: &str) -> &'static str {
    // CodeMirror's lines: a trailing newline starts one more.
    match text.split('\n').count() {
        0..=9 => "digits-1",
        10..=99 => "digits-2",
        _ => "digits-3",
    }
}
