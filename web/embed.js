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
//
// Importing it also defines the custom element `<fencelab-exercise>`, for
// pages that carry no script of their own (a book, a static site
// generator's output):
//
//   <script type="module" src="https://your-site.example/embed.js"></script>
//   <fencelab-exercise exercise="claim-compare-and-set"></fencelab-exercise>
//
// The element is the same frame; its messages come as DOM events
// (`fencelab-ready`, `fencelab-checked`, `fencelab-solved`, the message as
// `detail`) and its commands as methods returning Promises. Its attributes
// are untrusted: one that cannot be used is said in the element, in words,
// and no frame is made.

/** The protocol version this script speaks (the `fencelab` field). */
export const PROTOCOL_VERSION = 1;

const SITE = new URL("./", import.meta.url);
/** The frame's height before it reports its content's, in CSS pixels. */
const FIRST_HEIGHT_PX = 600;
/** The longest exercise id or site address taken, in characters (the frame's own bound on names). */
const ATTRIBUTE_CHARS_MAX = 200;
/** The custom element's name. */
export const ELEMENT_NAME = "fencelab-exercise";

/**
 * The site a frame comes from: `value` (an http or https address, absolute
 * or relative to this document, naming the site's folder), or this
 * script's own site when it is absent. Throws a TypeError naming what is
 * wrong; never returns an address of another scheme.
 */
export function siteOf(value) {
  if (value === undefined || value === null) return SITE;
  if (typeof value !== "string" || value.trim() === "") throw new TypeError("the site must be the address of a fencelab site");
  if (value.length > ATTRIBUTE_CHARS_MAX) throw new TypeError(`the site address is ${value.length} characters long; at most ${ATTRIBUTE_CHARS_MAX} are taken`);
  let address;
  try {
    address = new URL(value, document.baseURI);
  } catch {
    throw new TypeError(`the site ${JSON.stringify(value)} is not an address`);
  }
  if (address.protocol !== "https:" && address.protocol !== "http:") {
    throw new TypeError(`the site must be an http or https address, not ${address.protocol}`);
  }
  if (address.username || address.password) throw new TypeError("the site's address must not carry a user name or password");
  address.search = "";
  address.hash = "";
  // The site is a folder: "https://x.example/fencelab" means its index.
  if (!address.pathname.endsWith("/")) address.pathname += "/";
  return address;
}

/**
 * Embeds `options.exercise` in `element` and returns a handle:
 * `setProcedures(texts)`, `reset()`, `check()`, `showScenario(name)` (each a
 * Promise of the frame's `ok` reply, rejected with its `error`), `ready`
 * (a Promise of the `ready` message) and `destroy()`.
 *
 * Options: `exercise` (an id, required); `site` (the site's address, see
 * `siteOf`; this script's own site by default); `height` ("auto", the default,
 * follows the content; a number of CSS pixels fixes it and the frame
 * scrolls); `theme` ("light" or "dark"; otherwise the reader's choice or
 * system's); `title` (the frame's accessible name); and the callbacks
 * `onReady`, `onChecked`, `onSolved`, `onResize`, each given the message.
 * `onHunted`, when given, asks the frame for breaks the student finds in a
 * "break it yourself" challenge too: each is a `solved` of kind `hunt`,
 * handed to `onHunted` (never to `onSolved`, which gets repairs only).
 * `packaged: true` is for a page served from a SCORM package (the frame is
 * the site's `index.html` by name, not its folder, and registers no service
 * worker).
 */
export function embed(element, options = {}) {
  if (!(element instanceof Element)) throw new TypeError("fencelab.embed: the first argument must be an element");
  const exercise = options.exercise;
  if (typeof exercise !== "string" || exercise === "") {
    throw new TypeError("fencelab.embed: options.exercise must be an exercise id");
  }
  const site = siteOf(options.site);
  const fixed = typeof options.height === "number" && options.height > 0 ? options.height : null;

  // A SCORM package's frame names the site's page as the file it is: an LMS
  // serves a package's files and nothing else (Moodle answers a folder's
  // address with a 404, and the frame would stay empty). A hosted site
  // keeps its folder's address, the one its service worker caches.
  const src = new URL(options.packaged === true ? "index.html" : "./", site);
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
    iframe.contentWindow?.postMessage(message, site.origin);
  }

  function onMessage(event) {
    if (event.source !== iframe.contentWindow || event.origin !== site.origin) return;
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

/** The element's events, by the message type each carries as `detail`. */
const EVENTS = { ready: "fencelab-ready", checked: "fencelab-checked", solved: "fencelab-solved" };

/**
 * The exercise's id from the `exercise` attribute, or a TypeError saying
 * what is wrong with it. The frame judges whether the id exists; this only
 * keeps out what cannot be an id.
 */
function exerciseOf(value) {
  if (value === null || value.trim() === "") throw new TypeError("the `exercise` attribute must name an exercise (its id)");
  if (value.length > ATTRIBUTE_CHARS_MAX) throw new TypeError(`the exercise id is ${value.length} characters long; at most ${ATTRIBUTE_CHARS_MAX} are taken`);
  return value.trim();
}

/**
 * `<fencelab-exercise exercise="ID" site="URL" theme="light|dark"
 * height="PIXELS" title="NAME">`: `embed()` as an element. Its events bubble
 * (and cross shadow roots) so a page can listen once on `document`.
 */
export class FencelabExercise extends HTMLElement {
  static observedAttributes = ["exercise", "site", "theme", "height", "title"];
  #handle = null;
  #problem = null;
  #mounted = false;

  connectedCallback() {
    if (!this.#mounted) this.#mount();
  }

  disconnectedCallback() {
    this.#unmount();
  }

  // An upgraded element hears one change per attribute before it is
  // connected: only a change to a mounted element makes a new frame.
  attributeChangedCallback(name, before, after) {
    if (!this.#mounted || before === after) return;
    this.#unmount();
    this.#mount();
  }

  /** Checks now; a Promise of the frame's `ok` reply. */
  check() {
    return this.#command((handle) => handle.check());
  }

  /** Puts the starting texts back; a Promise of the frame's reply. */
  reset() {
    return this.#command((handle) => handle.reset());
  }

  /** Puts `{ name: text }` in the editors; a Promise of the frame's reply. */
  setProcedures(texts) {
    return this.#command((handle) => handle.setProcedures(texts));
  }

  /** Shows a scenario's timeline; a Promise of the frame's reply. */
  showScenario(name) {
    return this.#command((handle) => handle.showScenario(name));
  }

  /** The iframe, or null when the attributes could not be used. */
  get iframe() {
    return this.#handle?.iframe ?? null;
  }

  /** A Promise of the `ready` message (rejected when there is no frame). */
  get ready() {
    return this.#command((handle) => handle.ready);
  }

  #command(run) {
    if (this.#handle) return run(this.#handle);
    return Promise.reject(new Error(this.#problem ?? "the exercise is not in the page"));
  }

  #mount() {
    this.#mounted = true;
    const dispatch = (type) => (message) =>
      this.dispatchEvent(new CustomEvent(EVENTS[type], { detail: message, bubbles: true, composed: true }));
    try {
      const height = Number.parseInt(this.getAttribute("height") ?? "", 10);
      this.#handle = embed(this, {
        exercise: exerciseOf(this.getAttribute("exercise")),
        site: this.getAttribute("site") ?? undefined,
        theme: this.getAttribute("theme") ?? undefined,
        height: Number.isFinite(height) && height > 0 ? height : "auto",
        title: this.getAttribute("title") ?? undefined,
        onReady: dispatch("ready"),
        onChecked: dispatch("checked"),
        onSolved: dispatch("solved"),
      });
      this.#problem = null;
    } catch (error) {
      this.#problem = `fencelab: this exercise cannot be shown: ${error.message}`;
      const notice = document.createElement("p");
      notice.setAttribute("role", "alert");
      notice.className = "fencelab-problem";
      // Text, never markup: the sentence quotes the page's attributes.
      notice.textContent = this.#problem;
      this.replaceChildren(notice);
    }
  }

  #unmount() {
    this.#mounted = false;
    this.#handle?.destroy();
    this.#handle = null;
    this.replaceChildren();
  }
}

// A page may load this module twice (two addresses of one site): the first
// definition stands.
if (typeof customElements !== "undefined" && !customElements.get(ELEMENT_NAME)) {
  customElements.define(ELEMENT_NAME, FencelabExercise);
}
