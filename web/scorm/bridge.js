// The launch page of a SCO in a fencelab SCORM package (docs/EMBEDDING.md,
// "SCORM packages"). It finds the LMS's SCORM runtime, embeds the exercise
// with the site's own embed.js (the same frame and messages as any course
// page), and turns what the frame says into SCORM calls:
//
// - Initialize at launch; the texts kept in `cmi.suspend_data` put back in
//   the editors once the exercise is ready;
// - on every `checked`: the score (the best share of scenarios passed by
//   the learner's own texts, as the frame's `own_texts` says; none at all
//   until the learner has checked a text of their own, since the share the
//   starting text passes is the exercise's, not theirs), the status
//   (passed / completed once solved, never taken back) and the texts as
//   suspend data, written together once the texts are packed, then a
//   Commit whenever the verdicts changed (so a commit never carries a
//   status without the texts it was given for);
// - Terminate when the page goes away.
//
// It never trusts what the LMS hands back: suspend data is read with a cap
// on every size and a check of its shape, and a value that fails any of
// them is reported in one line and left alone, so the learner's texts in
// this browser (the frame's own saved work) stay as they are. Without a
// runtime, or with one that refuses to start, the page says so in one line
// and the exercise works as it does anywhere.
//
// The package is served from the LMS's own origin, so this page, the frame
// and the site share it: the frame reports to this page only.
import { embed } from "../embed.js";

/** How far up the window tree (parents, then the opener's) to look. */
const WINDOW_DEPTH_MAX = 64;
/** suspend_data's own size in SCORM 1.2 (CMIString4096). */
const SUSPEND_CHARS_MAX_SCORM12 = 4096;
/** suspend_data's size in SCORM 2004 (4th Edition: characterstring, SPM 64000). */
const SUSPEND_CHARS_MAX_SCORM2004 = 64000;
/** What an inflated suspend data may hold, as the embed's messages may (256 KiB). */
const RESTORED_BYTES_MAX = 256 * 1024;
/** As the embed protocol's bounds: procedures per exercise, characters per text and name. */
const PROCEDURES_MAX = 32;
const TEXT_CHARS_MAX = 16 * 1024;
const NAME_CHARS_MAX = 200;
/** Suspend data this bridge wrote starts so; the number is its format. */
const SUSPEND_PREFIX = "fencelab1:";

/** The two runtimes' names for the same things. */
const DIALECTS = {
  "1.2": {
    api: "API",
    initialize: "LMSInitialize",
    terminate: "LMSFinish",
    getValue: "LMSGetValue",
    setValue: "LMSSetValue",
    commit: "LMSCommit",
    lastError: "LMSGetLastError",
    suspendCharsMax: SUSPEND_CHARS_MAX_SCORM12,
    /** Whether the LMS already holds a pass, and the best score it holds (0..1, or null for none). */
    recorded(get) {
      const solved = ["passed", "completed"].includes(get("cmi.core.lesson_status"));
      return { solved, best: share(Number.parseFloat(get("cmi.core.score.raw")) / 100) };
    },
    /** The values one report sets, in order: no score while there is none. */
    report({ solved, best }) {
      const status = [["cmi.core.lesson_status", solved ? "passed" : "incomplete"]];
      if (best === null) return status;
      return [
        ["cmi.core.score.min", "0"],
        ["cmi.core.score.max", "100"],
        ["cmi.core.score.raw", String(Math.round(best * 100))],
        ...status,
      ];
    },
    suspendData: "cmi.suspend_data",
    exit: ["cmi.core.exit", "suspend"],
  },
  2004: {
    api: "API_1484_11",
    initialize: "Initialize",
    terminate: "Terminate",
    getValue: "GetValue",
    setValue: "SetValue",
    commit: "Commit",
    lastError: "GetLastError",
    suspendCharsMax: SUSPEND_CHARS_MAX_SCORM2004,
    recorded(get) {
      const solved = get("cmi.success_status") === "passed";
      return { solved, best: share(Number.parseFloat(get("cmi.score.scaled"))) };
    },
    report({ solved, best }) {
      const status = [
        ["cmi.completion_status", solved ? "completed" : "incomplete"],
        ["cmi.success_status", solved ? "passed" : "unknown"],
      ];
      if (best === null) return status;
      return [
        ["cmi.score.min", "0"],
        ["cmi.score.max", "100"],
        ["cmi.score.raw", String(Math.round(best * 100))],
        ["cmi.score.scaled", best.toFixed(4)],
        ...status,
      ];
    },
    suspendData: "cmi.suspend_data",
    exit: ["cmi.exit", "suspend"],
  },
};

/** A number read from the LMS as a share of 1, or null when it is none (an unset score reads as ""). */
function share(value) {
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : null;
}

const root = document.documentElement;
const exercise = root.dataset.exercise ?? "";
const dialect = DIALECTS[root.dataset.scorm];
const status = document.getElementById("lms-status");

/** Says one line on the page (the last thing worth saying). */
function notice(text) {
  status.textContent = text;
}

/**
 * The runtime object named `name` in this window or an ancestor, then in
 * the opener or its ancestors (an LMS that launches content in a new
 * window); null when none is in reach. Windows of another origin cannot be
 * read, and are passed over on the way up.
 */
function findRuntime(name) {
  const climb = (start) => {
    let here = start;
    for (let depth = 0; here && depth < WINDOW_DEPTH_MAX; depth++) {
      try {
        const found = here[name];
        if (found && typeof found === "object") return found;
      } catch (_) {
        // Another origin's window: keep climbing.
      }
      if (here.parent === here) break;
      here = here.parent;
    }
    return null;
  };
  return climb(window) ?? (window.opener ? climb(window.opener) : null);
}

/** A started runtime session, or null with the reason said on the page. */
function connect() {
  if (!dialect) {
    notice(`This package names no SCORM version this page knows (${root.dataset.scorm}); the exercise works, and nothing is reported.`);
    return null;
  }
  const api = findRuntime(dialect.api);
  if (!api) {
    notice(`No LMS found (no SCORM ${root.dataset.scorm} runtime around this page): the exercise works, and your work is kept in this browser only.`);
    return null;
  }
  const call = (method, ...args) => {
    try {
      return String(api[method](...args));
    } catch (error) {
      return `threw: ${error}`;
    }
  };
  if (call(dialect.initialize, "") !== "true") {
    notice(`The LMS refused to start this exercise (SCORM error ${call(dialect.lastError)}): it works, and nothing is reported.`);
    return null;
  }
  let open = true;
  return {
    get: (key) => (open ? call(dialect.getValue, key) : ""),
    set: (key, value) => open && call(dialect.setValue, key, value) === "true",
    commit: () => open && call(dialect.commit, ""),
    terminate() {
      if (!open) return;
      call(dialect.commit, "");
      call(dialect.terminate, "");
      open = false;
    },
  };
}

// ----- suspend data: the learner's texts, deflated and in base64 -----

async function deflated(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The texts as suspend data: the prefix, then base64 of deflated JSON. */
async function pack(procedures) {
  const bytes = await deflated(JSON.stringify({ exercise, procedures }));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return SUSPEND_PREFIX + btoa(binary);
}

/** Inflates `bytes`, refusing to hold more than RESTORED_BYTES_MAX. */
async function inflated(bytes) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > RESTORED_BYTES_MAX) {
      await reader.cancel();
      throw new Error(`it inflates past ${RESTORED_BYTES_MAX} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(await new Blob(chunks).arrayBuffer());
}

/**
 * The texts kept in `value`, an untrusted string from the LMS: null when
 * nothing is kept, else `{ name: text }`; throws an Error whose message
 * says what is wrong with it.
 */
async function unpack(value) {
  if (value === "") return null;
  if (value.length > SUSPEND_CHARS_MAX_SCORM2004) {
    throw new Error(`it is ${value.length} characters, more than ${SUSPEND_CHARS_MAX_SCORM2004}`);
  }
  if (!value.startsWith(SUSPEND_PREFIX)) throw new Error(`it does not start with ${SUSPEND_PREFIX}: not this page's`);
  let binary;
  try {
    binary = atob(value.slice(SUSPEND_PREFIX.length));
  } catch (_) {
    throw new Error("it is not base64");
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  let saved;
  try {
    saved = JSON.parse(await inflated(bytes));
  } catch (error) {
    throw new Error(error instanceof SyntaxError ? "it is not JSON" : error.message.startsWith("it ") ? error.message : "it does not inflate");
  }
  if (!saved || typeof saved !== "object" || Array.isArray(saved)) throw new Error("it is not an object");
  if (saved.exercise !== exercise) throw new Error(`it is another exercise's (${String(saved.exercise).slice(0, NAME_CHARS_MAX)})`);
  const procedures = saved.procedures;
  if (!procedures || typeof procedures !== "object" || Array.isArray(procedures)) throw new Error("it holds no texts");
  const entries = Object.entries(procedures);
  if (entries.length > PROCEDURES_MAX) throw new Error(`it holds ${entries.length} texts, more than ${PROCEDURES_MAX}`);
  for (const [name, text] of entries) {
    if (name.length > NAME_CHARS_MAX) throw new Error(`a procedure's name is longer than ${NAME_CHARS_MAX} characters`);
    if (typeof text !== "string" || text.length > TEXT_CHARS_MAX) {
      throw new Error(`the text of ${name.slice(0, 40)} is not a text of at most ${TEXT_CHARS_MAX} characters`);
    }
  }
  return procedures;
}

// ----- the session -----

const lms = connect();
const recorded = lms ? dialect.recorded(lms.get) : { solved: false, best: null };
let solved = recorded.solved;
/**
 * The best share of scenarios the learner's own texts passed, in this
 * attempt or as the LMS kept it; null while there is none, and no score is
 * reported. A pass the LMS kept is every scenario passed.
 */
let best = recorded.solved ? 1 : recorded.best;
/** The verdicts last committed, to commit only when they change. */
let committedVerdicts = null;
/** Suspend data is packed asynchronously; only the newest record writes. */
let packing = 0;
/** Records still packing their texts. */
let pending = 0;
/** A commit waits for the newest record. */
let owed = false;

function report() {
  if (!lms) return;
  for (const [key, value] of dialect.report({ solved, best })) lms.set(key, value);
}

/**
 * Records the status, the score and `procedures` (when given) together, once
 * the texts are packed, and commits when `commit` or an earlier record asked
 * for it: a commit never carries a status whose texts are not yet written.
 */
async function record(procedures, commit) {
  const mine = ++packing;
  pending += 1;
  owed ||= commit;
  let value = null;
  try {
    if (procedures) value = await pack(procedures);
  } catch {
    value = null;
  } finally {
    pending -= 1;
  }
  // A newer record writes, and commits what this one owed.
  if (mine !== packing) return;
  report();
  if (value !== null) keepTexts(value);
  if (owed) {
    owed = false;
    lms.commit();
  }
}

function keepTexts(value) {
  if (value.length <= dialect.suspendCharsMax) {
    lms.set(dialect.suspendData, value);
    return;
  }
  // A copy the LMS kept earlier would bring back older texts on the next
  // launch: it is cleared, and the texts live in this browser only.
  lms.set(dialect.suspendData, "");
  notice(
    `Your texts are too long for this LMS's ${dialect.suspendCharsMax.toLocaleString("en")} characters of saved data: they are kept only in this browser.`,
  );
}

async function restore(frame, ready) {
  if (!lms) return;
  let kept;
  try {
    kept = await unpack(lms.get(dialect.suspendData));
  } catch (error) {
    notice(`The LMS's saved copy of your texts could not be read (${error.message}): your texts in this browser are kept.`);
    return;
  }
  if (!kept) return;
  const current = Object.fromEntries(ready.procedures.map(({ name, text }) => [name, text]));
  if (Object.entries(kept).every(([name, text]) => current[name] === text)) return;
  await frame.setProcedures(kept).catch((error) => {
    notice(`The LMS's saved copy of your texts does not fit this exercise (${error.message}): your texts in this browser are kept.`);
  });
}

function onChecked(message) {
  if (!lms) return;
  const total = Number(message.total);
  const passed = share(Number(message.passed) / total);
  // Only the learner's own texts score: the starting text's share (or a
  // text the host put back, such as the texts restored from suspend_data)
  // is not theirs to be graded on.
  if (message.own_texts === true && Number.isInteger(total) && total > 0 && passed !== null) {
    best = Math.max(best ?? 0, passed);
  }
  const verdicts = JSON.stringify((message.scenarios ?? []).map((s) => [s.name, s.verdict]));
  const changed = verdicts !== committedVerdicts;
  committedVerdicts = verdicts;
  const procedures = message.procedures && typeof message.procedures === "object" ? message.procedures : null;
  record(procedures, changed);
}

const frame = embed(document.getElementById("exercise"), {
  exercise,
  packaged: true,
  onReady(message) {
    report();
    restore(frame, message);
  },
  onChecked,
  onSolved() {
    solved = true;
    best = 1;
    if (!lms) return;
    // The texts of the solving check may still be packing: their record
    // commits the solve with them.
    owed = true;
    if (pending > 0) return;
    owed = false;
    report();
    lms.commit();
  },
});

if (lms) {
  lms.set(...dialect.exit);
  // `pagehide` is the last event a page is sure to get (unload is not
  // fired in every browser, nor in the back-forward cache).
  window.addEventListener("pagehide", () => lms.terminate());
}
