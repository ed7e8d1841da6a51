// The second part of the editor bridge (editor.js says why there are two):
// what an editor can do without for its first moment. editor.js imports
// this module once the page is idle after its first editor and hands each
// live editor its part, `procedure(words)` or `toml()`, through a
// compartment; `showDiagnostics` puts the authoring view's errors on its
// editor. CodeMirror's core (view, state, language) is the one editor.js
// loaded: esbuild splits it into a chunk both parts import, since two
// copies of @codemirror/state in one page cannot work together.
import { EditorView, keymap } from "@codemirror/view";
import { Prec } from "@codemirror/state";
import { StreamLanguage } from "@codemirror/language";
import { sql, SQLite } from "@codemirror/lang-sql";
import { autocompletion, closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";

// What both kinds of editor gain: bracket closing, completion (its own
// keymap comes with it, ahead of every other), the other occurrences of the
// selection, search, lint's keys, and the mark tests wait for. Bracket
// closing's Backspace (delete a pair) goes before the editor's own
// Backspace, as in CodeMirror's basic setup.
const both = () => [
  closeBrackets(),
  autocompletion(),
  highlightSelectionMatches(),
  Prec.high(keymap.of(closeBracketsKeymap)),
  keymap.of([...searchKeymap, ...lintKeymap]),
  EditorView.editorAttributes.of({ "data-extras": "" }),
];

// A procedure editor's part: SQLite's grammar (its colours, its keywords
// completed in capitals) and the procedure's vocabulary as completions.
export function procedure(words) {
  return [
    sql({ dialect: SQLite, upperCaseKeywords: true }),
    SQLite.language.data.of({ autocomplete: vocabulary(words) }),
    ...both(),
  ];
}

// The TOML editor's part: its colours, and lint's gutter in the place
// editor.js held for it.
export function toml() {
  return [tomlLanguage, lintGutter(), ...both()];
}

// Replaces an editor's diagnostics: [{line, column, message}] from Rust;
// an empty list clears them.
export function showDiagnostics(view, errors) {
  view.dispatch(setDiagnostics(view.state, diagnosticsOf(view.state.doc, errors)));
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

// TOML for the authoring view's exercise editor: comments, table headers,
// keys, strings (a multi-line one carries on to its closing quotes), numbers
// and booleans. Only colours: the page's loader (Rust) judges the file and
// its errors reach the editor as lint diagnostics.
const tomlLanguage = StreamLanguage.define({
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
