// Starts the checking worker as the page's <head> is parsed, and has it
// check the exercise the page shows before the app asks: a classic
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
//
// It also starts the fetch of the bundled exercises' loaded form, which
// neither wasm file carries (web/src/catalog.rs), as bytes: boot.js hands
// the page's copy to the app, and the worker, told its address as its name, fetches
// it again from the browser's cache. (Its name, not a query in its own
// address: answered from the service worker's cache, a worker's address
// is the cached response's, without the query.)
(function () {
  "use strict";
  var catalog = "./catalog.json";
  globalThis.fencelabCatalogFetch = fetch(catalog).then(function (response) {
    if (!response.ok) {
      throw new Error(catalog + " answered " + response.status + " " + response.statusText);
    }
    return response.arrayBuffer();
  });
  // Not a rejection nobody handles, when boot.js is not there to take it.
  globalThis.fencelabCatalogFetch.catch(function () {});
  // The worker's address and name, for worker_client.rs too: it starts a
  // new worker when one has to be restarted, and its wasm cannot hold this
  // build's names (web/worker/src/catalog.rs reads the name). The name's
  // second word is the exercise reader (web/reader), which the worker
  // starts only when a text needs the TOML loader: a first visit to a
  // bundled exercise never fetches it.
  var address = "./worker_loader.js";
  var reader = "./reader_loader.js";
  var name = catalog + " " + reader;
  globalThis.fencelabWorkerUrl = address;
  globalThis.fencelabWorkerName = name;
  try {
    var worker = new Worker(address, { type: "module", name: name });
    var held = [];
    // The exercise a prerendered page shows (web/prerender), known once the
    // document is parsed: the worker checks its starting texts as soon as
    // it is ready (its first message), so the check the app asks for once
    // it has started is under way or done by then (`Request::Prepare` in
    // web/protocol: it answers nothing; a returning learner's own texts
    // drop it between two pieces). Not on a page first-paint.js turned into
    // the loading line, as the address asks for another view.
    var ready = false;
    var exercise = null;
    var prepare = function () {
      if (!ready || !exercise) return;
      worker.postMessage(JSON.stringify({ Prepare: { exercise: exercise } }));
      exercise = null;
    };
    document.addEventListener(
      "DOMContentLoaded",
      function () {
        var app = document.getElementById("app");
        if (app && app.dataset.prerendered && !document.getElementById("boot")) {
          exercise = app.dataset.prerendered;
        }
        prepare();
      },
      { once: true },
    );
    worker.onmessage = function (event) {
      held.push(event);
      ready = true;
      prepare();
    };
    worker.onerror = function (event) {
      held.push(event);
    };
    globalThis.fencelabEarlyWorker = { worker: worker, held: held };
  } catch (_) {
    globalThis.fencelabEarlyWorker = null;
  }
})();
