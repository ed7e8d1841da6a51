// Starts the checking worker as the page's <head> is parsed: a classic
// script, so it runs before anything below it, where boot.js (a module)
// runs only once the document is parsed and its own module graph (the
// page's JS glue) has arrived. The worker's wasm holds SQLite and is the
// largest file of a first visit; it is what a learner's first edit waits
// for, so it starts first.
//
// worker_client.rs takes the worker over with what it said meanwhile (its
// "ready" among it), which would be lost without a listener. If it cannot
// start here, worker_client.rs starts one itself and reports why that
// failed. The file name below is trunk's; the build renames every asset
// after its content and rewrites it here (crates/xtask/src/hashed.rs).
(function () {
  "use strict";
  // The worker's address, for worker_client.rs too: it starts a new worker
  // when one has to be restarted, and its wasm cannot hold this build's name.
  var address = "./worker_loader.js";
  globalThis.fencelabWorkerUrl = address;
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
})();
