// The one bridge between the yew page and CodeMirror 6, in two parts. This
// file is what a first edit needs: the editor itself (view, state, undo,
// the gutters, the page's colours), which the page reaches as the global
// `fencelabEditor`. extras.js (built as editor-extras.js) is what can come
// a moment later: the SQL grammar (its colours), completion, bracket
// closing, search and lint diagnostics. esbuild bundles both with their npm imports into
// target/editor/ (a trunk pre_build hook) as ES modules that share one copy
// of CodeMirror's core (editor-chunk.js), and this file imports the extras
// once an editor exists, when the page is idle (`loadExtras`). Until they
// come, an editor takes and reports every keystroke; then each live editor
// is reconfigured with them (`extras`, a compartment), and its element
// carries `data-extras`. Nothing moves when they come: the one gutter they
// bring, the TOML editor's lint gutter, has its place held until then.
//
// Rust owns every decision; this module only creates editors, reports their
// text, replaces it as one undoable change, marks an error line, shows the
// line marks Rust computed (which lines the scenarios protect), follows the
// page's theme, and hands its state (text and undo history) to Rust as JSON
// to keep across reloads. The authoring view has a second kind of editor,
// of a whole exercise file (TOML), whose errors are lint diagnostics.
import { history, historyField, defaultKeymap, historyKeymap } from "@codemirror/commands";
import {
  EditorView,
  Decoration,
  WidgetType,
  GutterMarker,
  gutter,
  keymap,
  lineNumbers,
  highlightActiveLineGutter,
  highlightSpecialChars,
  drawSelection,
  dropCursor,
  rectangularSelection,
  crosshairCursor,
  highlightActiveLine,
} from "@codemirror/view";
import { EditorState, StateField, StateEffect, Prec, RangeSet, Compartment } from "@codemirror/state";
import {
  HighlightStyle,
  syntaxHighlighting,
  foldGutter,
  foldKeymap,
  indentOnInput,
  bracketMatching,
} from "@codemirror/language";
import { tags } from "@lezer/highlight";

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
const applyScheme = (view) => view.dispatch({ effects: scheme.reconfigure(EditorView.darkTheme.of(isDark())) });
const refreshScheme = () => views.forEach((_, view) => applyScheme(view));
dark?.addEventListener("change", refreshScheme);

// Diagnostics asked for before the extras came: the newest per editor.
const pendingDiagnostics = new Map();

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

// The part of the extras' place each kind of editor holds until they come.
// Procedure editors: nothing (the extras bring no gutter to them). The TOML
// editor: an empty gutter where lint's will be, as wide (lint's own theme
// gives its gutter 1.4em).
const NOTHING = [];
const LINT_PLACE = [
  gutter({ class: "cm-gutter-lint" }),
  EditorView.baseTheme({ ".cm-gutter-lint": { width: "1.4em" } }),
];
const extras = new Compartment();

// What every editor has: CodeMirror's usual set (line numbers, undo, folding,
// bracket matching, the active line, several selections) in the page's
// colours and theme, wrapped lines (so it never becomes a sideways scroll
// region the keyboard cannot reach), Ctrl/Cmd+Enter to run, a label, its
// changes, and the extras' place (`held` until they come).
function common(label, onChange, onRun, held) {
  return [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    foldGutter(),
    drawSelection(),
    dropCursor(),
    EditorState.allowMultipleSelections.of(true),
    indentOnInput(),
    syntaxHighlighting(highlight),
    bracketMatching(),
    rectangularSelection(),
    crosshairCursor(),
    highlightActiveLine(),
    keymap.of([...defaultKeymap, ...historyKeymap, ...foldKeymap]),
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
    // The page may draw a line over the screen's bottom while the learner
    // edits (the verdict count that follows the editor, `data-covers-bottom`):
    // the cursor is scrolled into view clear of it.
    EditorView.scrollMargins.of(() => {
      const cover = document.querySelector("[data-covers-bottom]:not([hidden])");
      return cover ? { bottom: cover.getBoundingClientRect().height } : null;
    }),
    extras.of(held),
  ];
}

// Every live editor, with what it takes from the extras module once that
// has come (a function of the module).
const views = new Map();
// The extras module once it has come, its import while one is under way,
// and whether one has been asked for (and not failed since).
let loaded = null;
let loading = null;
let asked = false;
// Imports that failed so far, and the next try's timer. A failed import is
// tried again: at once when the browser says it is back online, and after
// RETRY_FIRST_MS, then twice as long after each next failure, up to
// RETRIES_MAX times (an editor made later, or the authoring view's
// diagnostics, ask again too). Chromium fetches a module whose import
// failed again when it is imported again (whatwg/html#10327); a browser
// that keeps the failure fails again at once, and says so.
let failures = 0;
let retry = null;
const RETRY_FIRST_MS = 5000;
const RETRIES_MAX = 4;

// Gives `view` its part of the extras `module` (`wanted`, a function of it).
const give = (view, wanted, module) => view.dispatch({ effects: extras.reconfigure(wanted(module)) });

// Imports the extras and gives every live editor its part; each editor
// made later gets its part as it is made. A failure (offline before the
// service worker has them) leaves the editors as they are: every edit is
// still taken and checked, and the import is tried again (above).
function loadExtras() {
  loading ??= import("./extras.js").then(
    (module) => {
      loaded = module;
      for (const [view, wanted] of views) give(view, wanted, module);
      return module;
    },
    (error) => {
      failures += 1;
      const again = failures <= RETRIES_MAX;
      const waitMs = RETRY_FIRST_MS * 2 ** (failures - 1);
      console.warn(
        `fencelab: the editor's extras (SQL colours, completion, search) did not load: ${error}` +
          (again ? `; trying again in ${waitMs} ms` : ""),
      );
      loading = null;
      asked = false;
      // One next try at a time: a try that an editor or the online event
      // started before the timer came replaces the timer's.
      clearTimeout(retry);
      retry = again ? setTimeout(tryAgain, waitMs) : null;
      return null;
    },
  );
  return loading;
}

// A failed import's next try, while editors that lack the extras are live.
function tryAgain() {
  clearTimeout(retry);
  retry = null;
  if (!loaded && failures > 0 && views.size > 0) loadExtras();
}
addEventListener("online", tryAgain);

// The extras are asked for once the page is idle after the first editor,
// so their download and their work never stand before a first edit.
function soon(run) {
  if (typeof requestIdleCallback === "function") requestIdleCallback(run, { timeout: 2000 });
  else setTimeout(run, 200);
}

// Makes an editor under `parent` and registers it with its part of the
// extras (`wanted`, a function of the extras module).
function make(parent, state, wanted) {
  const view = new EditorView({ parent, state });
  views.set(view, wanted);
  if (loaded) give(view, wanted, loaded);
  else if (!asked) {
    asked = true;
    soon(loadExtras);
  }
  return view;
}

globalThis.fencelabEditor = {
  create(parent, doc, label, words, onChange, onRun, onMark, saved) {
    const extensions = [...common(label, onChange, onRun, NOTHING), errorField, marksField, marksGutter(onMark)];
    const view = make(parent, restored(saved, doc, extensions), (module) => module.procedure(words));
    // For tests/bench/breakdown.mjs (web/src/timing.rs says why).
    performance.mark("fencelab:editor-created");
    return view;
  },
  // The authoring view's editor of a whole exercise file (TOML), its errors
  // shown as lint diagnostics (`setDiagnostics`); Ctrl/Cmd+Enter checks now.
  createToml(parent, doc, label, onChange, onRun) {
    const extensions = common(label, onChange, onRun, LINT_PLACE);
    return make(parent, EditorState.create({ doc, extensions }), (module) => module.toml());
  },
  // Replaces the diagnostics: [{line, column, message}]; an empty list
  // clears them. They are lint's, so they wait for the extras: the newest
  // list is shown once they come, on an editor still live.
  setDiagnostics(view, errors) {
    if (loaded) {
      loaded.showDiagnostics(view, errors);
      return;
    }
    pendingDiagnostics.set(view, errors);
    loadExtras().then((module) => {
      const waiting = pendingDiagnostics.get(view);
      pendingDiagnostics.delete(view);
      if (module && waiting && views.has(view)) module.showDiagnostics(view, waiting);
    });
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
    pendingDiagnostics.delete(view);
    view.destroy();
  },
};
