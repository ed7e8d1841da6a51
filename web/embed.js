// fencelab's embed script: puts an exercise of this site in an iframe on
// any page and talks to it by postMessage (docs/EMBEDDING.md is the
// reference). An ES module, without dependencies:
//
//   import { embed } from "https://your-site.example/embed.js";
//   const frame = embed(document.getElementById("here"), {
//     exercise: "claim-compare-and-set",
//     onSolved: (message) => recordGrade(message),
//   });
//
// The frame's address is this site's (read from this script's own URL),
// with `embed=1`, the exercise and `parent=` this page's origin, so the
// frame reports to this page only. Messages are accepted only from that
// frame's window and this site's origin, and posted only to that origin.

/** The protocol version this script speaks (the `fencelab` field). */
export const PROTOCOL_VERSION = 1;

const SITE = new URL("./", import.meta.url);
/** The frame's height before it reports its content's, in CSS pixels. */
const FIRST_HEIGHT_PX = 600;

/**
 * Embeds `options.exercise` in `element` and returns a handle:
 * `setProcedures(texts)`, `reset()`, `check()`, `showScenario(name)` (each a
 * Promise of the frame's `ok` reply, rejected with its `error`), `ready`
 * (a Promise of the `ready` message) and `destroy()`.
 *
 * Options: `exercise` (an id, required); `height` ("auto", the default,
 * follows the content; a number of CSS pixels fixes it and the frame
 * scrolls); `theme` ("light" or "dark"; otherwise the reader's choice or
 * system's); `title` (the frame's accessible name); and the callbacks
 * `onReady`, `onChecked`, `onSolved`, `onResize`, each given the message.
 * `onHunted`, when given, asks the frame for breaks the student finds in a
 * "break it yourself" challenge too: each is a `solved` of kind `hunt`,
 * handed to `onHunted` (never to `onSolved`, which gets repairs only).
 * `packaged: true` is for a page served from a SCORM package (the frame
 * registers no service worker).
 */
export function embed(element, options = {}) {
  if (!(element instanceof Element)) throw new TypeError("fencelab.embed: the first argument must be an element");
  const exercise = options.exercise;
  if (typeof exercise !== "string" || exercise === "") {
    throw new TypeError("fencelab.embed: options.exercise must be an exercise id");
  }
  const fixed = typeof options.height === "number" && options.height > 0 ? options.height : null;

  const src = new URL("./", SITE);
  src.searchParams.set("embed", "1");
  src.searchParams.set("exercise", exercise);
  src.searchParams.set("parent", location.origin);
  if (options.theme === "light" || options.theme === "dark") src.searchParams.set("theme", options.theme);
  // A frame reports hunts only to a page that asked: one written before
  // them would take a hunt's `solved` for a repair.
  if (typeof options.onHunted === "function") src.searchParams.set("hunts", "1");
  // A SCORM package's launch page (web/scorm/bridge.js): the frame then
  // registers no service worker on the LMS's path.
  if (options.packaged === true) src.searchParams.set("packaged", "1");

  const iframe = document.createElement("iframe");
  iframe.src = src.href;
  iframe.title = options.title ?? `fencelab exercise ${exercise}`;
  // The share link's copy needs the clipboard, which a cross-origin frame
  // has only when its embedder delegates it.
  iframe.allow = "clipboard-write";
  iframe.style.cssText = "display:block;width:100%;border:0;";
  iframe.style.height = `${fixed ?? FIRST_HEIGHT_PX}px`;
  element.appendChild(iframe);

  let nextId = 1;
  const pending = new Map();
  let readyMessage = null;
  const queued = [];
  let resolveReady;
  const ready = new Promise((ok) => (resolveReady = ok));

  function call(type, fields) {
    return new Promise((resolve, reject) => {
      const message = { fencelab: PROTOCOL_VERSION, type, id: nextId++, ...fields };
      pending.set(message.id, { resolve, reject });
      // Requests wait for `ready`: before it, the exercise is not open.
      if (readyMessage) post(message);
      else queued.push(message);
    });
  }

  function post(message) {
    iframe.contentWindow?.postMessage(message, SITE.origin);
  }

  function onMessage(event) {
    if (event.source !== iframe.contentWindow || event.origin !== SITE.origin) return;
    const message = event.data;
    if (!message || typeof message !== "object" || message.fencelab !== PROTOCOL_VERSION) return;
    switch (message.type) {
      case "ready":
        readyMessage = message;
        resolveReady(message);
        for (const waiting of queued.splice(0)) post(waiting);
        options.onReady?.(message);
        break;
      case "checked":
        options.onChecked?.(message);
        break;
      case "solved":
        if (message.kind === "hunt") options.onHunted?.(message);
        else options.onSolved?.(message);
        break;
      case "resize":
        if (fixed === null && Number.isFinite(message.height) && message.height >= 0) {
          iframe.style.height = `${message.height}px`;
        }
        options.onResize?.(message);
        break;
      case "ok":
      case "error": {
        const waiting = pending.get(message.id);
        if (!waiting) break;
        pending.delete(message.id);
        if (message.type === "ok") waiting.resolve(message);
        else waiting.reject(Object.assign(new Error(message.message), { reply: message }));
        break;
      }
    }
  }
  window.addEventListener("message", onMessage);

  return {
    iframe,
    ready,
    setProcedures: (texts) => call("set-procedures", { procedures: texts }),
    reset: () => call("reset", {}),
    check: () => call("check", {}),
    showScenario: (name) => call("show-scenario", { scenario: name }),
    destroy() {
      window.removeEventListener("message", onMessage);
      for (const { reject } of pending.values()) reject(new Error("the embedded exercise was removed"));
      pending.clear();
      queued.length = 0;
      iframe.remove();
    },
  };
}
