// The one bridge between the yew page and CodeMirror 6. esbuild bundles this
// file with its npm imports into target/editor/editor.js (a trunk pre_build
// hook), and the page reaches it as the global `fencelabEditor`. Rust owns
// every decision; this module only creates editors, reports their text,
// replaces it as one undoable change, and marks an error line.
import { basicSetup } from "codemirror";
import { EditorView, Decoration, WidgetType, keymap } from "@codemirror/view";
import { StateField, StateEffect, Prec } from "@codemirror/state";
import { sql, SQLite } from "@codemirror/lang-sql";

const setError = StateEffect.define();

class ErrorNote extends WidgetType {
  constructor(message) {
    super();
    this.message = message;
  }
  eq(other) {
    return other.message === this.message;
  }
  toDOM() {
    const note = document.createElement("span");
    note.className = "cm-error-note";
    note.textContent = ` \u26a0 ${this.message}`;
    return note;
  }
}

// The error line: a line decoration (background and a left rule) plus a
// text note at the line's end, so the mark is never colour alone.
const errorField = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setError)) continue;
      const { line, message } = effect.value;
      if (!line || line > tr.state.doc.lines) {
        marks = Decoration.none;
        continue;
      }
      const at = tr.state.doc.line(line);
      marks = Decoration.set([
        Decoration.line({ class: "cm-error-line", attributes: { "data-error-line": String(line) } }).range(at.from),
        Decoration.widget({ widget: new ErrorNote(message), side: 1 }).range(at.to),
      ]);
    }
    return marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

// Completions for the procedure vocabulary: `:parameter` names and the
// decision comments. `words` is [{label, detail, kind}] from Rust.
function vocabulary(words) {
  return (context) => {
    const param = context.matchBefore(/:[A-Za-z_][A-Za-z0-9_]*|:$/);
    if (param) {
      return {
        from: param.from,
        options: words
          .filter((w) => w.kind === "parameter")
          .map((w) => ({ label: w.label, detail: w.detail, type: "variable" })),
      };
    }
    const directive = context.matchBefore(/--\s*@?[a-z]*$/);
    if (directive && (directive.text.includes("@") || context.explicit)) {
      return {
        from: directive.from,
        options: words
          .filter((w) => w.kind === "directive")
          .map((w) => ({ label: w.label, detail: w.detail, type: "keyword" })),
      };
    }
    return null;
  };
}

globalThis.fencelabEditor = {
  create(parent, doc, label, words, onChange, onRun) {
    const view = new EditorView({
      parent,
      doc,
      extensions: [
        basicSetup,
        sql({ dialect: SQLite, upperCaseKeywords: true }),
        SQLite.language.data.of({ autocomplete: vocabulary(words) }),
        errorField,
        // Wrapped lines keep the editor from scrolling sideways, so it never
        // becomes a scroll region that the keyboard cannot reach.
        EditorView.lineWrapping,
        Prec.highest(
          keymap.of([
            {
              key: "Mod-Enter",
              run: () => {
                onRun();
                return true;
              },
            },
          ]),
        ),
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
      ],
    });
    return view;
  },
  text(view) {
    return view.state.doc.toString();
  },
  // Replaces the whole text as one transaction, so Ctrl+Z brings the old text back.
  setText(view, text) {
    if (view.state.doc.toString() === text) return;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: "input.replace" });
  },
  markError(view, line, message) {
    view.dispatch({ effects: setError.of({ line, message }) });
  },
  destroy(view) {
    view.destroy();
  },
};
