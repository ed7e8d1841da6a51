//! The authoring view's editor of the draft exercise file: one CodeMirror
//! editor (TOML colours) whose errors are underlined at their line and
//! column. yew renders only the frame; the editor's DOM is CodeMirror's,
//! created once.

use crate::author::state::Diagnostic;
use crate::editor::ExerciseEditor;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AuthorEditorProps {
    /// The text the editor starts with; later changes come through `replace`.
    pub initial: AttrValue,
    /// (generation, text): replace the text as one undoable change.
    pub replace: Option<(u64, String)>,
    pub diagnostics: Vec<Diagnostic>,
    pub on_change: Callback<String>,
    pub on_run: Callback<()>,
}

#[function_component(AuthorEditor)]
pub fn author_editor(props: &AuthorEditorProps) -> Html {
    let node = use_node_ref();
    let view = use_mut_ref(|| None::<ExerciseEditor>);
    let failed = use_state(|| None::<String>);
    {
        let node = node.clone();
        let view = view.clone();
        let failed = failed.clone();
        let initial = props.initial.to_string();
        let on_change = props.on_change.clone();
        let on_run = props.on_run.clone();
        use_effect_with((), move |_| {
            if let Some(parent) = node.cast::<web_sys::Element>() {
                match ExerciseEditor::create(
                    &parent,
                    &initial,
                    "The exercise file (TOML)",
                    move |text| on_change.emit(text),
                    move || on_run.emit(()),
                ) {
                    Ok(editor) => *view.borrow_mut() = Some(editor),
                    Err(message) => failed.set(Some(message)),
                }
            }
            move || drop(view.borrow_mut().take())
        });
    }
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
        use_effect_with(props.diagnostics.clone(), move |diagnostics| {
            if let Some(editor) = view.borrow().as_ref() {
                editor.set_diagnostics(diagnostics);
            }
        });
    }
    html! {
        <section class="author-editor" aria-labelledby="author-editor-title">
            <h2 id="author-editor-title">{ "The exercise file" }</h2>
            <div class="editor" id="exercise-editor" ref={node}></div>
            if let Some(message) = (*failed).clone() {
                <p class="error" role="alert">{ message }</p>
            }
        </section>
    }
}
