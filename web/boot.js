// Starts the page. trunk's own loader would be an inline script, which the
// Content-Security-Policy refuses, so this file does its job: it starts
// the download and compilation of the page's own wasm, and the app once
// the document is parsed. The checking worker, the other slow thing of a
// first visit, was started earlier, from the <head> (start-worker.js).
//
// The file names below are trunk's; the build renames every asset after
// its content and rewrites them here (crates/xtask/src/hashed.rs), so this
// file names exactly the files of its own build.
//
// Two apps, one page: the playground (fencelab-web) and, for `?author=1`,
// the authoring view (fencelab-author), each a wasm of its own so that
// neither carries the other's code. The address picks, as
// web/src/author/mod.rs reads it; each name is written out whole, so the
// build's renaming finds it.
const authoring = new URLSearchParams(location.search).get("author") === "1";
const glue = authoring ? import("./fencelab-author.js") : import("./fencelab-web.js");
const wasm = authoring ? "./fencelab-author_bg.wasm" : "./fencelab-web_bg.wasm";

// The page's wasm compiles while it downloads. The app starts once
// editor.js (a module script after this one, deferred likewise) has run: the app's first
// render creates the editors. This module is deferred too, so it runs after
// parsing, when readyState is already "interactive" but before editor.js;
// DOMContentLoaded comes after every deferred and module script. (`load` as well, in
// case this file ever runs after DOMContentLoaded.)
// Each step leaves a User Timing mark for tests/bench/breakdown.mjs
// (web/src/timing.rs says why).
const compiled = WebAssembly.compileStreaming(fetch(wasm))
  .catch(() =>
    // A server that does not say application/wasm: compile the bytes.
    fetch(wasm)
      .then((response) => response.arrayBuffer())
      .then((bytes) => WebAssembly.compile(bytes)),
  )
  .then((module) => {
    performance.mark("fencelab:page-wasm-compiled");
    return module;
  });
const parsed =
  document.readyState === "complete"
    ? Promise.resolve()
    : new Promise((ok) => {
        document.addEventListener("DOMContentLoaded", ok, { once: true });
        window.addEventListener("load", ok, { once: true });
      });

// The bundled exercises (web/src/catalog.rs), as bytes (an ArrayBuffer,
// which the wasm copies as it is), whose fetch start-worker.js started from
// the head; fetched here if it did not run.
const catalog =
  globalThis.fencelabCatalogFetch ??
  fetch("./catalog.json").then((response) => {
    if (!response.ok) {
      throw new Error(`catalog.json answered ${response.status} ${response.statusText}`);
    }
    return response.arrayBuffer();
  });

Promise.all([glue, compiled, parsed, catalog])
  .then(([{ default: init }, module, , bytes]) => {
    globalThis.fencelabCatalog = bytes;
    performance.mark("fencelab:init");
    return init({ module_or_path: module });
  })
  .then(() => performance.mark("fencelab:init-done"))
  .catch((error) => cannotStart(error));

/**
 * Says that the app could not start, where the learner looks: in place of
 * the loading line, or above a prerendered page, which would otherwise
 * stay a still picture without a word.
 */
function cannotStart(error) {
  const text = `The playground could not start: ${error}`;
  const boot = document.getElementById("boot");
  if (boot) {
    boot.textContent = text;
    return;
  }
  const notice = document.createElement("p");
  notice.className = "boot boot-failed";
  notice.setAttribute("role", "alert");
  notice.textContent = text;
  (document.getElementById("app") ?? document.body).prepend(notice);
}

// The service worker keeps a copy of the app so a reload works offline.
// Not in a SCORM package (`packaged=1`, which its launch page sets): an
// LMS's path is shared with other courses and is no place for one, and the
// package ships no sw.js.
const packaged = new URLSearchParams(location.search).get("packaged") === "1";
if ("serviceWorker" in navigator && !packaged) {
  navigator.serviceWorker.register("./sw.js").catch(() => {});
}
