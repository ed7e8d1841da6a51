// mdbook-fencelab's results script, loaded by every chapter that shows an
// exercise (beside the site's embed.js, which defines <fencelab-exercise>).
// It keeps each exercise's latest result in localStorage, under
// `mdbook-fencelab:ID`, as mdbook-quiz keeps a reader's answers, and hands
// each result to the function the book names in book.toml (`hook`), which
// the element carries as `data-hook`. Saved results are untrusted (another
// script of the origin may have written them): one that cannot be read is
// started over. A hook that throws is reported in the console and changes
// nothing else.

const KEY_PREFIX = "mdbook-fencelab:";

/** The saved result of `exercise`, or a fresh one. */
function saved(exercise) {
  const fresh = { exercise, passed: 0, total: 0, solved: false };
  let text = null;
  try {
    text = localStorage.getItem(KEY_PREFIX + exercise);
    if (text === null) return fresh;
    const value = JSON.parse(text);
    if (value && typeof value === "object" && value.exercise === exercise && typeof value.solved === "boolean") {
      return { ...fresh, passed: Number(value.passed) || 0, total: Number(value.total) || 0, solved: value.solved };
    }
  } catch {
    // Unreadable (or storage is off): said below, and started over.
  }
  if (text !== null) {
    console.warn(`mdbook-fencelab: the saved result of ${exercise} could not be read; it starts over (it was ${JSON.stringify(text.slice(0, 80))})`);
  }
  return fresh;
}

function save(result) {
  try {
    localStorage.setItem(KEY_PREFIX + result.exercise, JSON.stringify(result));
  } catch {
    // Storage may be off or full; the hook still hears the result.
  }
}

/** The function `name` (identifiers joined by dots) names from `window`, bound to its owner. */
function hookOf(name) {
  if (typeof name !== "string" || name === "") return null;
  let owner = null;
  let value = window;
  for (const part of name.split(".")) {
    if (value === null || value === undefined || !Object.hasOwn(Object(value), part)) return null;
    owner = value;
    value = value[part];
  }
  return typeof value === "function" ? value.bind(owner) : null;
}

function record(event, kind) {
  const element = event.target;
  const message = event.detail;
  if (!(element instanceof Element) || !message || typeof message.exercise !== "string") return;
  const result = saved(message.exercise);
  const before = { ...result };
  if (kind === "checked") {
    result.passed = message.passed;
    result.total = message.total;
  } else {
    // Solved stays solved: a later failing edit does not take it back.
    result.solved = true;
  }
  save(result);
  // Every keystroke is checked; the hook hears a check only when its
  // counts differ from the last saved, so a course's telemetry is not
  // flooded with the same result.
  if (kind === "checked" && before.passed === result.passed && before.total === result.total) return;
  const hook = hookOf(element.dataset.hook);
  if (!hook) return;
  const handed = { event: kind, chapter: location.pathname, ...result };
  if (kind === "solved") handed.procedures = message.procedures;
  try {
    hook(handed);
  } catch (error) {
    console.error(`mdbook-fencelab: the book's hook \`${element.dataset.hook}\` threw:`, error);
  }
}

document.addEventListener("fencelab-checked", (event) => record(event, "checked"));
document.addEventListener("fencelab-solved", (event) => record(event, "solved"));
