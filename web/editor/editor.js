// The one bridge between the yew page and CodeMirror 6. esbuild bundles this
// file with its npm imports into target/editor/editor.js (a trunk pre_build
// hook), and the page reaches it as the global `fencelabEditor`. Rust owns
// every decision; this module only creates editors, reports their text,
// replaces it as one undoable change, marks an error line, shows the line
// marks Rust computed (which lines the scenarios protect), follows the
// page's theme, and hands its state (text and undo history) to Rust as JSON
// to keep across reloads. The authoring view has a second kind of editor,
// of a whole exercise file (TOML), whose errors are lint diagnostics.
import { basicSetup } from "codemirror";
import { historyField } from "@codemirror/commands";
import { EditorView, Decoration, WidgetType, GutterMarker, gutter, keymap } from "@codemirror/view";
import { EditorState, StateField, StateEffect, Prec, RangeSet, Compartment } from "@codemirror/state";
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { tags } from "@lezer/highlight";
import { sql, SQLite } from "@codemirror/lang-sql";

// Syntax colours from the page's stylesheet (--code-*), which picks them for
// light and dark with 4.5:1 against the editor's backgrounds, the line marks
// included. CodeMirror's own default highlighting is for light pages only.
const highlight = HighlightStyle.define([
  { tag: tags.meta, color: "var(--code-meta)" },
  { tag: tags.link, textDecoration: "underline" },
  { tag: tags.heading, textDecoration: "underline", fontWeight: "bold" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strong, fontWeight: "bold" },
  { tag: tags.strikethrough, textDecoration: "line-through" },
  { tag: tags.keyword, color: "var(--code-keyword)" },
  { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: "var(--code-atom)" },
  { tag: [tags.literal, tags.inserted], color: "var(--code-literal)" },
  { tag: [tags.string, tags.deleted], color: "var(--code-string)" },
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: "var(--code-special)" },
  { tag: tags.definition(tags.variableName), color: "var(--code-definition)" },
  { tag: tags.local(tags.variableName), color: "var(--code-local)" },
  { tag: [tags.typeName, tags.namespace], color: "var(--code-type)" },
  { tag: tags.className, color: "var(--code-class)" },
  { tag: [tags.special(tags.variableName), tags.macroName], color: "var(--code-macro)" },
  { tag: tags.definition(tags.propertyName), color: "var(--code-property)" },
  { tag: tags.comment, color: "var(--code-comment)" },
  { tag: tags.invalid, color: "var(--code-invalid)" },
]);

// The editor's theme is CodeMirror's own (EditorView.theme, plus its
// darkTheme facet for the parts it draws itself), in the page's colours
// (--ink, --panel, --code-*), which the stylesheet sets for the light and
// dark themes. The active line uses the page's own colour, so the syntax
// colours keep their contrast on it. Dark follows the document's
// data-theme (the learner's choice) or else the system's colour scheme.
const dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
const isDark = () => {
  const chosen = document.documentElement.dataset.theme;
  return chosen === "dark" || (chosen !== "light" && Boolean(dark?.matches));
};
const scheme = new Compartment();
const chrome = EditorView.theme({
  "&": { color: "var(--ink)", backgroundColor: "var(--panel)" },
  ".cm-content": { caretColor: "var(--ink)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--ink)" },
  ".cm-gutters": { backgroundColor: "var(--panel)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "var(--code-active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--code-active-line)", color: "var(--ink)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--code-selection)",
  },
  ".cm-matchingBracket, &.cm-focused .cm-matchingBracket": { backgroundColor: "var(--code-selection)", color: "var(--ink)", outline: "1px solid var(--muted)" },
  ".cm-searchMatch": { backgroundColor: "var(--code-search)", outline: "1px solid var(--muted)" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--ink)", border: "1px solid var(--line)" },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": { backgroundColor: "var(--accent)", color: "var(--panel)" },
  ".cm-completionDetail": { color: "inherit", fontStyle: "italic" },
  ".cm-panels": { backgroundColor: "var(--paper)", color: "var(--ink)" },
  ".cm-panels.cm-panels-top": { borderBottom: "1px solid var(--line)" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--line)" },
  ".cm-textfield": { backgroundColor: "var(--panel)", color: "var(--ink)", border: "1px solid var(--muted)" },
  ".cm-button": { backgroundImage: "none", backgroundColor: "var(--panel)", color: "var(--ink)", border: "1px solid var(--muted)" },
  ".cm-panel.cm-search label": { color: "var(--ink)" },
  ".cm-foldPlaceholder": { backgroundColor: "var(--paper)", color: "var(--ink)", border: "1px solid var(--line)" },
});
// Every live editor, so a change of theme reaches each.
const views = new Set();
const applyScheme = (view) => view.dispatch({ effects: scheme.reconfigure(EditorView.darkTheme.of(isDark())) });
const refreshScheme = () => views.forEach(applyScheme);
dark?.addEventListener("change", refreshScheme);

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

const setMarks = StateEffect.define();

// The symbol beside a marked line, so a mark is never colour alone. The
// gutter is hidden from assistive technology (CodeMirror sets aria-hidden),
// which reads the same sentences in the list Rust renders under the editor.
class LineMark extends GutterMarker {
  constructor(kind, title) {
    super();
    this.kind = kind;
    this.title = title;
  }
  eq(other) {
    return other.kind === this.kind && other.title === this.title;
  }
  toDOM() {
    const mark = document.createElement("span");
    // The spacer only gives the gutter its width; it is never a mark.
    mark.className = this.kind === "spacer" ? "mark-spacer" : `mark-symbol mark-${this.kind}`;
    mark.textContent = this.kind === "protected" ? "\u2713" : "?";
    mark.title = this.title;
    return mark;
  }
}

const spacer = new LineMark("spacer", "");

// Line marks: a class and a title on each marked line, and a gutter symbol.
// `marks` is [{line, kind, title}] from Rust, kind "protected" or
// "unprotected". Marks belong to the text they were computed for, so any
// change to the text drops them at once (Rust clears them too).
const marksField = StateField.define({
  create: () => ({ lines: Decoration.none, gutter: RangeSet.empty, kinds: new Map() }),
  update(marks, tr) {
    if (tr.docChanged) marks = { lines: Decoration.none, gutter: RangeSet.empty, kinds: new Map() };
    for (const effect of tr.effects) {
      if (!effect.is(setMarks)) continue;
      const lines = [];
      const symbols = [];
      const kinds = new Map();
      for (const { line, kind, title } of effect.value) {
        if (!line || line > tr.state.doc.lines) continue;
        const from = tr.state.doc.line(line).from;
        kinds.set(line, kind);
        lines.push(
          Decoration.line({
            class: `mark-${kind}`,
            attributes: { title, "data-mark-line": String(line) },
          }).range(from),
        );
        symbols.push(new LineMark(kind, title).range(from));
      }
      marks = { lines: Decoration.set(lines, true), gutter: RangeSet.of(symbols, true), kinds };
    }
    return marks;
  },
  provide: (field) => EditorView.decorations.from(field, (marks) => marks.lines),
});

// The gutter of the line marks; a click on a protected line's symbol asks
// Rust for its counterexample.
function marksGutter(onMark) {
  return gutter({
    class: "cm-marks-gutter",
    markers: (view) => view.state.field(marksField).gutter,
    initialSpacer: () => spacer,
    domEventHandlers: {
      click(view, block) {
        const line = view.state.doc.lineAt(block.from).number;
        if (view.state.field(marksField).kinds.get(line) !== "protected") return false;
        onMark(line);
        return true;
      },
    },
  });
}

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

// The state saved before (text, selection, undo history), when it is of
// this very text; anything else starts afresh.
function restored(saved, doc, extensions) {
  if (saved) {
    try {
      const state = EditorState.fromJSON(JSON.parse(saved), { extensions }, { history: historyField });
      if (state.doc.toString() === doc) return state;
    } catch (_) {
      // A state this build cannot read is only an undo history lost.
    }
  }
  return EditorState.create({ doc, extensions });
}

// TOML for the authoring view's exercise editor: comments, table headers,
// keys, strings (a multi-line one carries on to its closing quotes), numbers
// and booleans. Only colours: the page's loader (Rust) judges the file and
// its errors reach the editor as lint diagnostics.
const toml = StreamLanguage.define({
  name: "toml",
  startState: () => ({ string: null }),
  token(stream, state) {
    if (state.string) return tomlString(stream, state);
    if (stream.sol() && stream.match(/^\s*\[\[?[^\]]*\]\]?/)) return "heading";
    if (stream.eatSpace()) return null;
    const next = stream.peek();
    if (next === "#") {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match('"""') || stream.match("'''")) {
      state.string = stream.current();
      return tomlString(stream, state);
    }
    if (next === '"' || next === "'") {
      state.string = stream.next();
      return tomlString(stream, state);
    }
    if (stream.match(/^(true|false)\b/)) return "bool";
    if (stream.match(/^[+-]?\d[\d_]*(\.\d+)?([eE][+-]?\d+)?/)) return "number";
    if (stream.match(/^[A-Za-z0-9_-]+(?=\s*=)/)) return "propertyName";
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: "#" } },
});

// The rest of a string up to its closing quotes, or to the end of the line
// (where a one-line string ends, closed or not).
function tomlString(stream, state) {
  const close = state.string;
  const escapes = close.startsWith('"');
  while (!stream.eol()) {
    if (escapes && stream.peek() === "\\") {
      stream.next();
      stream.next();
      continue;
    }
    if (stream.match(close)) {
      state.string = null;
      return "string";
    }
    stream.next();
  }
  if (close.length === 1) state.string = null;
  return "string";
}

// Rust's errors about the exercise, as CodeMirror lint diagnostics: each
// underlined from its line and column (1-based, as the loader counts) to the
// end of that line, with the loader's sentence on hover and in the gutter
// (an empty line gets a point mark).
function diagnosticsOf(doc, errors) {
  return errors
    .filter((e) => e.line >= 1 && e.line <= doc.lines)
    .map((e) => {
      const line = doc.line(e.line);
      // An error past the line's last character (a string left open) marks
      // that character, so the underline is always visible.
      const from = Math.max(line.from, Math.min(line.from + Math.max(e.column - 1, 0), line.to - 1));
      const to = line.to;
      return { from, to, severity: "error", source: "fencelab check", message: e.message };
    });
}

// What every editor has: CodeMirror's basic setup in the page's colours and
// theme, wrapped lines (so it never becomes a sideways scroll region the
// keyboard cannot reach), Ctrl/Cmd+Enter to run, a label, and its changes.
function common(label, onChange, onRun) {
  return [
    basicSetup,
    syntaxHighlighting(highlight),
    chrome,
    scheme.of(EditorView.darkTheme.of(isDark())),
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
    // tabindex 0 keeps the editor where it is in the tab order (it is
    // contenteditable) and says so to checkers: an editor whose box scrolls
    // (the embed's, static/style.css) must hold something focusable.
    EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange(update.state.doc.toString());
    }),
  ];
}

globalThis.fencelabEditor = {
  create(parent, doc, label, words, onChange, onRun, onMark, saved) {
    const extensions = [
      ...common(label, onChange, onRun),
      sql({ dialect: SQLite, upperCaseKeywords: true }),
      SQLite.language.data.of({ autocomplete: vocabulary(words) }),
      errorField,
      marksField,
      marksGutter(onMark),
    ];
    const view = new EditorView({ parent, state: restored(saved, doc, extensions) });
    views.add(view);
    // For tests/bench/breakdown.mjs (web/src/timing.rs says why).
    performance.mark("fencelab:editor-created");
    return view;
  },
  // The authoring view's editor of a whole exercise file (TOML), its errors
  // shown as lint diagnostics (`setDiagnostics`); Ctrl/Cmd+Enter checks now.
  createToml(parent, doc, label, onChange, onRun) {
    const extensions = [...common(label, onChange, onRun), toml, lintGutter()];
    const view = new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
    views.add(view);
    return view;
  },
  // Replaces the diagnostics: [{line, column, message}]; an empty list clears them.
  setDiagnostics(view, errors) {
    view.dispatch(setDiagnostics(view.state, diagnosticsOf(view.state.doc, errors)));
  },
  // The editor's state as JSON text: its text, selection and undo history.
  stateJson(view) {
    return JSON.stringify(view.state.toJSON({ history: historyField }));
  },
  // The document's theme changed (the learner chose one).
  refreshScheme,
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
  // Replaces the line marks; an empty list clears them.
  setMarks(view, marks) {
    view.dispatch({ effects: setMarks.of(marks) });
  },
  destroy(view) {
    views.delete(view);
    view.destroy();
  },
};
