// Runs in <head>, before the page's body is parsed, so that the first paint
// of a prerendered page (web/prerender) is already the one the app renders:
//
// - the theme: the address's `?theme=` (an embedding page's choice), else
//   the learner's saved choice (storage.rs's key), on <html> at once;
// - a page prerendered for another view than the address asks for (another
//   exercise, an embed, the authoring view, a link in the fragment: the
//   rule of web/src/prerendered.rs's `fits`) shows the loading line instead
//   of an exercise the app is about to replace: hidden while parsed, then
//   replaced by the template's loading line;
// - a phone's screen: the build renders a wide screen's page, with the
//   story and the exercise list open; on a phone the app starts with both
//   folded (components/narrative.rs, exercise_list.rs). Folding them here,
//   as the parser inserts them, keeps the page from jumping when the app
//   hydrates, and hands the app the page it renders itself.
//
// Mutation records are delivered in a microtask, before anything is
// painted. A classic script, not a module: a module runs only after
// parsing, too late for the first paint. It changes nothing but these
// attributes and that root's content, and nothing after the page is parsed.
(function () {
  "use strict";
  var root = document.documentElement;
  var params = new URLSearchParams(location.search);
  try {
    var asked = params.get("theme");
    var theme = asked === "light" || asked === "dark" ? asked : localStorage.getItem("fencelab:theme");
    if (theme === "light" || theme === "dark") root.dataset.theme = theme;
  } catch (_) {
    // No storage: the system's colour scheme.
  }
  if (typeof MutationObserver !== "function") return;

  function fits(exercise) {
    var named = params.get("exercise");
    return (
      (named === null || named === exercise) &&
      params.get("embed") !== "1" &&
      params.get("author") !== "1" &&
      location.hash.length <= 1
    );
  }
  // reveal.rs's NARROW_WIDTH_PX_MAX, style.css's phone layout.
  var phone = window.innerWidth <= 760;

  function fold(element) {
    if (element.id === "app" && element.dataset.prerendered && !fits(element.dataset.prerendered)) {
      element.classList.add("prerendered-elsewhere");
    } else if (!phone) {
      return;
    } else if (element.matches("details.exercise-menu")) {
      element.open = false;
    } else if (element.matches("details.narrative-text")) {
      element.open = false;
      element.classList.add("story-folded");
    }
  }
  function visit(node) {
    if (node.nodeType !== 1) return;
    fold(node);
    node.querySelectorAll("#app, details").forEach(fold);
  }
  var observer = new MutationObserver(function (records) {
    records.forEach(function (record) {
      record.addedNodes.forEach(visit);
    });
  });
  observer.observe(root, { childList: true, subtree: true });
  document.addEventListener("DOMContentLoaded", function () {
    observer.takeRecords();
    visit(document.body);
    observer.disconnect();
    // A page prerendered for another view keeps nothing of it: the
    // template's loading line in its place, as on a page never prerendered,
    // so nothing in the document (for assistive technology, for a script
    // reading it) speaks of an exercise the app is about to replace.
    var app = document.getElementById("app");
    if (app && app.classList.contains("prerendered-elsewhere")) {
      var loading = document.createElement("div");
      loading.id = "boot";
      loading.className = "boot";
      loading.textContent = "Loading the fencelab playground…";
      app.replaceChildren(loading);
      app.classList.remove("prerendered-elsewhere");
    }
  });
})();
