// Starts the two slow things of a first visit as the page's <head> is
// parsed: the checking worker, whose wasm holds SQLite and is the largest
// file, and the download and compilation of the page's own wasm. A classic
// script, so it runs before anything below it; boot.js (a module) runs
// only once the document is parsed and its own import (the page's JS
// glue) has arrived, and takes both over then.
//
// The file names below are trunk's; the build renames every asset after
// its content and rewrites them here (crates/xtask/src/hashed.rs).
(function () {
  "use strict";
  // The worker's address, for worker_client.rs too: it starts a new worker
  // when one has to be restarted, and its wasm cannot hold this build's name.
  var address = "./worker_loader.js";
  globalThis.fencelabWorkerUrl = address;
  // worker_client.rs takes the worker over with what it said meanwhile (its
  // "ready" among it), which would be lost without a listener. If it
  // cannot start here, worker_client.rs starts one itself and reports why
  // that failed.
  try {
    var worker = new Worker(address, { type: "module" });
    var held = [];
    worker.onmessage = function (event) {
      held.push(event);
    };
    worker.onerror = function (event) {
      held.push(event);
    };
    globalThis.fencelabEarlyWorker = { worker: worker, held: held };
  } catch (_) {
    globalThis.fencelabEarlyWorker = null;
  }
  // The page's wasm, compiled while it downloads: boot.js instantiates
  // this module. A server that does not say application/wasm fails it, and
  // boot.js then compiles the bytes itself.
  try {
    var compiling = WebAssembly.compileStreaming(fetch("./fencelab-web_bg.wasm"));
    // Handled here, so a failure is boot.js's to report, not the console's.
    compiling.catch(function () {});
    globalThis.fencelabPageModule = compiling;
  } catch (_) {
    globalThis.fencelabPageModule = null;
  }
})();
