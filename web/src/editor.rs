//! The bindings to web/editor/editor.js, the page's one JS module: CodeMirror 6
//! bundled by esbuild. Every call is `catch`, so a missing or failing editor
//! bundle becomes an error value, never a panic.

use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = create, catch)]
    fn js_create(
        parent: &web_sys::Element,
        doc: &str,
        label: &str,
        words: JsValue,
        on_change: &Closure<dyn FnMut(String)>,
        on_run: &Closure<dyn FnMut()>,
        on_mark: &Closure<dyn FnMut(u32)>,
        saved: Option<String>,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = stateJson, catch)]
    fn js_state_json(view: &JsValue) -> Result<String, JsValue>;
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = refreshScheme, catch)]
    fn js_refresh_scheme() -> Result<(), JsValue>;
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = setText, catch)]
    fn js_set_text(view: &JsValue, text: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = markError, catch)]
    fn js_mark_error(view: &JsValue, line: u32, message: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = setMarks, catch)]
    fn js_set_marks(view: &JsValue, marks: JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = createToml, catch)]
    fn js_create_toml(
        parent: &web_sys::Element,
        doc: &str,
        label: &str,
        on_change: &Closure<dyn FnMut(String)>,
        on_run: &Closure<dyn FnMut()>,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = setDiagnostics, catch)]
    fn js_set_diagnostics(view: &JsValue, errors: JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(js_namespace = fencelabEditor, js_name = destroy, catch)]
    fn js_destroy(view: &JsValue) -> Result<(), JsValue>;
}

/// A completion the editor offers: a `:parameter` or a decision comment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Word {
    pub label: String,
    pub detail: String,
    /// `parameter` or `directive`.
    pub kind: &'static str,
}

/// A line mark as the editor draws it: a class (`mark-protected` or
/// `mark-unprotected`) and a symbol, with `title` as the line's tooltip.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mark {
    /// 1-based.
    pub line: u32,
    /// `protected` or `unprotected`.
    pub kind: &'static str,
    pub title: String,
}

/// One live CodeMirror view and the closures it calls back into.
pub struct EditorView {
    view: JsValue,
    _on_change: Closure<dyn FnMut(String)>,
    _on_run: Closure<dyn FnMut()>,
    _on_mark: Closure<dyn FnMut(u32)>,
}

impl EditorView {
    /// A new editor of `doc`; `saved` is a state `state_json` gave before,
    /// whose undo history is kept when it is of this very text.
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        parent: &web_sys::Element,
        doc: &str,
        label: &str,
        words: &[Word],
        saved: Option<String>,
        on_change: impl FnMut(String) + 'static,
        on_run: impl FnMut() + 'static,
        on_mark: impl FnMut(u32) + 'static,
    ) -> Result<EditorView, String> {
        let on_change = Closure::<dyn FnMut(String)>::new(on_change);
        let on_run = Closure::<dyn FnMut()>::new(on_run);
        let on_mark = Closure::<dyn FnMut(u32)>::new(on_mark);
        let words = plain_js(words)?;
        let view = js_create(
            parent, doc, label, words, &on_change, &on_run, &on_mark, saved,
        )
        .map_err(|e| format!("the editor could not start: {e:?}"))?;
        Ok(EditorView {
            view,
            _on_change: on_change,
            _on_run: on_run,
            _on_mark: on_mark,
        })
    }

    /// Shows `marks` in place of any before; none clears them. A click on a
    /// protected line's symbol calls `on_mark` with its line.
    pub fn set_marks(&self, marks: &[Mark]) {
        if let Ok(marks) = plain_js(marks) {
            let _ = js_set_marks(&self.view, marks);
        }
    }

    /// The editor's state as JSON text (text, selection, undo history), for
    /// `create` to bring back after a reload.
    pub fn state_json(&self) -> Option<String> {
        js_state_json(&self.view).ok()
    }

    /// Replaces the text as one undoable change.
    pub fn set_text(&self, text: &str) {
        let _ = js_set_text(&self.view, text);
    }

    /// Marks `line` (1-based) with `message`; line 0 clears the mark.
    pub fn mark_error(&self, line: u32, message: &str) {
        let _ = js_mark_error(&self.view, line, message);
    }
}

/// The authoring view's editor of a whole exercise file (TOML), whose
/// errors are CodeMirror lint diagnostics underlined at their line and
/// column. The second kind of editor the bridge makes.
pub struct ExerciseEditor {
    view: JsValue,
    _on_change: Closure<dyn FnMut(String)>,
    _on_run: Closure<dyn FnMut()>,
}

impl ExerciseEditor {
    /// A new editor of `doc`; `on_run` is Ctrl/Cmd+Enter.
    pub fn create(
        parent: &web_sys::Element,
        doc: &str,
        label: &str,
        on_change: impl FnMut(String) + 'static,
        on_run: impl FnMut() + 'static,
    ) -> Result<ExerciseEditor, String> {
        let on_change = Closure::<dyn FnMut(String)>::new(on_change);
        let on_run = Closure::<dyn FnMut()>::new(on_run);
        let view = js_create_toml(parent, doc, label, &on_change, &on_run)
            .map_err(|e| format!("the editor could not start: {e:?}"))?;
        Ok(ExerciseEditor {
            view,
            _on_change: on_change,
            _on_run: on_run,
        })
    }

    /// Replaces the text as one undoable change.
    pub fn set_text(&self, text: &str) {
        let _ = js_set_text(&self.view, text);
    }

    /// Underlines these errors (each `{line, column, message}`, 1-based)
    /// in place of any before; none clears them.
    pub fn set_diagnostics<T: Serialize>(&self, errors: &[T]) {
        if let Ok(errors) = plain_js(errors) {
            let _ = js_set_diagnostics(&self.view, errors);
        }
    }
}

impl Drop for ExerciseEditor {
    fn drop(&mut self) {
        let _ = js_destroy(&self.view);
    }
}

/// Tells every editor that the document's theme changed.
pub fn refresh_scheme() {
    let _ = js_refresh_scheme();
}

/// `value` as plain JS objects: it crosses as JSON.
fn plain_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, String> {
    let json = serde_json::to_string(value).map_err(|e| e.to_string())?;
    js_sys::JSON::parse(&json).map_err(|e| format!("the editor could not read {json}: {e:?}"))
}

impl Drop for EditorView {
    fn drop(&mut self) {
        let _ = js_destroy(&self.view);
    }
}
