// The browser half of `cargo xtask bench`: what a learner waits for, timed
// in headless Chromium against a bare sql.js page served and started the
// same way. A benchmark, not a test: it asserts nothing about speed and
// prints one line per figure,
//   BENCH<TAB>section<TAB>row<TAB>column<TAB>value<TAB>unit
// which xtask collects into the `browser` table. Figures compare as ratios
// within one run on one machine.
//
// Every load is a fresh browser context (an empty cache, no service
// worker), so each one transfers everything a first visit does. Times are
// read inside the page (performance.now(), from the start of navigation),
// never from Node's side of the DevTools connection.
//
// Options (environment): FENCELAB_DIST (the trunk-built site, as the e2e
// tests), BENCH_LOADS (fresh loads per page, default 15), BENCH_EDITS
// (keystrokes per exercise, default 20), BENCH_EXERCISES (comma-separated
// ids; default every bundled exercise).
import { mkdtemp, copyFile, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST, ROOT, launchChromium, serveDir } from "../e2e/harness.mjs";

const LOADS = Number(process.env.BENCH_LOADS ?? 15);
const EDITS = Number(process.env.BENCH_EDITS ?? 20);
const VERDICT_WAIT_MS = 60_000;

function bench(section, row, column, value, unit) {
  console.log(["BENCH", section, row, column, value, unit].join("\t"));
}

/** The value below which `q` of the sorted samples lie (nearest rank). */
function quantile(samples, q) {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

const ms = (value) => value.toFixed(0);

// ----- the bare sql.js page -----

// A page that starts sql.js from npm and prints its SQLite version: the
// least any in-browser SQLite page must do, with no inline script (the
// same Content-Security-Policy as fencelab's page).
const BARE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'" />
    <title>sql.js</title>
    <script src="./sql-wasm.js"></script>
    <script type="module" src="./start.js"></script>
  </head>
  <body><p>SQLite <span id="sqlite-version"></span></p></body>
</html>
`;
const BARE_START = `const SQL = await initSqlJs({ locateFile: (file) => "./" + file });
const db = new SQL.Database();
const [result] = db.exec("SELECT sqlite_version()");
document.getElementById("sqlite-version").textContent = result.values[0][0];
`;

async function bareSite() {
  const dir = await mkdtemp(join(tmpdir(), "fencelab-bare-sqljs-"));
  const dist = join(ROOT, "node_modules/sql.js/dist");
  await copyFile(join(dist, "sql-wasm.js"), join(dir, "sql-wasm.js"));
  await copyFile(join(dist, "sql-wasm.wasm"), join(dir, "sql-wasm.wasm"));
  await writeFile(join(dir, "index.html"), BARE_HTML);
  await writeFile(join(dir, "start.js"), BARE_START);
  return dir;
}

// ----- what the page shows, observed from inside it -----

// Installed before any of the page's own scripts: records when the SQLite
// version and the first verdicts are shown, the layout shifts (CLS) until
// the first edit, and (`edit`) when the verdicts of a first edit are. Shown means
// the first animation frame after they are in the document: a prerendered
// page has its verdicts in the HTML, but a frame is drawn only once
// rendering may start (its `blocking="render"` hint, the stylesheet).
//
// With `typeAtOnce`, the page's own script makes the first edit, the moment
// the first editor is in place in the live app: a comment at the end of its
// last line (the verdicts stay the start's), inserted as typing inserts
// text (`insertText` at a caret put there), with no round trip to the
// test's process between the editor appearing and the key. `typed` is
// when; its verdicts are those of the first check the page sends with the
// comment in it (`typedSeq`), watched on the worker's `postMessage`.
function watchLoad(typeAtOnce = false) {
  const TYPED = " -- typed";
  const seen = { version: null, verdict: null, edit: null, editFrom: null, typed: null, typedSeq: null, shift: 0, shifts: [] };
  window.__bench = seen;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // Until the first edit: the page hydrating moves nothing either.
      if (seen.editFrom !== null || seen.typed !== null || entry.hadRecentInput) continue;
      seen.shift += entry.value;
      seen.shifts.push(
        entry.sources?.map((s) => s.node?.className || s.node?.nodeName || "?").join(",") ?? "?",
      );
    }
  }).observe({ type: "layout-shift", buffered: true });
  const pending = new Set();
  const shown = (what) => {
    if (seen[what] !== null || pending.has(what)) return;
    pending.add(what);
    requestAnimationFrame(() => (seen[what] = performance.now()));
  };
  const look = () => {
    if (document.getElementById("sqlite-version")?.textContent) shown("version");
    const summary = document.getElementById("scenario-summary");
    if (summary && /^\d+ of \d+ scenarios pass/.test(summary.textContent)) shown("verdict");
    const list = document.querySelector("[data-check-seq]");
    if (typeAtOnce && seen.typed === null) typeNow(list);
    // The first check that can be the edit's: the one carrying the typed
    // comment, or any after the checks asked for before the key.
    const first = typeAtOnce ? seen.typedSeq : seen.editFrom === null ? null : seen.editFrom + 1;
    if (first !== null && list && Number(list.dataset.reportSeq) >= first && list.dataset.reportSeq === list.dataset.checkSeq) {
      shown("edit");
    }
  };
  if (typeAtOnce) {
    const Original = window.Worker;
    window.Worker = function (...args) {
      const worker = new Original(...args);
      const post = worker.postMessage.bind(worker);
      worker.postMessage = (data, ...rest) => {
        if (seen.typedSeq === null && typeof data === "string" && data.startsWith('{"Check"') && data.includes(TYPED)) {
          seen.typedSeq = Number(/"seq":(\d+)/.exec(data)?.[1]);
        }
        return post(data, ...rest);
      };
      return worker;
    };
    window.Worker.prototype = Original.prototype;
  }
  const typeNow = (list) => {
    const line = document.querySelector(".editor .cm-content .cm-line:last-child");
    if (!line || !list || !document.querySelector(".app[data-live]")) return;
    line.closest(".cm-content").focus();
    const caret = document.createRange();
    caret.selectNodeContents(line);
    caret.collapse(false);
    getSelection().removeAllRanges();
    getSelection().addRange(caret);
    seen.typed = performance.now();
    document.execCommand("insertText", false, TYPED);
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}

/**
 * A first edit, as soon as the editor takes one: a space at the end of the
 * first editor (the verdicts stay the start's), typed once the app is live
 * and CodeMirror is in place. watchLoad records its verdicts.
 */
async function firstEdit(page) {
  // CodeMirror in place: a prerendered page mounts it once live.
  const editor = page.locator(".editor .cm-content").first();
  await editor.waitFor({ timeout: VERDICT_WAIT_MS });
  await page.evaluate(() => {
    const list = document.querySelector("[data-check-seq]");
    window.__bench.editFrom = Math.max(Number(list.dataset.checkSeq), Number(list.dataset.reportSeq));
  });
  await editor.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.press("Space");
  await page.waitForFunction(() => window.__bench.edit !== null, null, { timeout: VERDICT_WAIT_MS, polling: 20 });
}

/**
 * Loads `url` in a fresh context, then does `then` in it; resolves to what
 * watchLoad saw (`typeAtOnce` as it says).
 */
async function load(browser, url, until, then = async () => {}, typeAtOnce = false) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    page.on("pageerror", (e) => console.error(`bench: the page threw: ${e}`));
    await page.addInitScript(watchLoad, typeAtOnce);
    await page.goto(url);
    await page.waitForFunction(until, null, { timeout: VERDICT_WAIT_MS, polling: 50 });
    // Shifts are reported after the frame that made them: one more frame.
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 50))));
    await then(page);
    return await page.evaluate(() => window.__bench);
  } finally {
    await context.close();
  }
}

async function loads(browser, fencelab, bare) {
  const times = { bare: [], version: [], verdict: [], edit: [], typed: [], shift: [] };
  // Interleaved, so a burst of load on the shared machine hits both pages.
  for (let i = 0; i < LOADS; i++) {
    const b = await load(browser, bare, () => window.__bench.version !== null);
    times.bare.push(b.version);
    const f = await load(browser, fencelab, () => window.__bench.verdict !== null, firstEdit);
    times.version.push(f.version);
    times.verdict.push(f.verdict);
    times.edit.push(f.edit);
    times.shift.push(f.shift);
    if (f.shift > 0) console.error(`bench: layout shift ${f.shift.toFixed(4)} in load ${i}: ${f.shifts.join("; ")}`);
    const t = await load(browser, fencelab, () => window.__bench.edit !== null, async () => {}, true);
    times.typed.push(t.edit);
  }
  const rows = [
    ["bare sql.js page: SQLite version shown", times.bare],
    ["fencelab: SQLite version shown", times.version],
    ["fencelab: first verdicts shown", times.verdict],
    ["fencelab: first edit checked (typed as soon as the editor takes it)", times.edit],
    ["fencelab: first edit checked (typed by the page the moment its editor is in place)", times.typed],
  ];
  for (const [row, samples] of rows) {
    bench("browser", row, "median", ms(quantile(samples, 0.5)), "ms");
    bench("browser", row, "p95", ms(quantile(samples, 0.95)), "ms");
  }
  const ratio = quantile(times.verdict, 0.5) / quantile(times.bare, 0.5);
  bench("browser", "fencelab first verdicts / bare sql.js (medians)", "median", ratio.toFixed(2), "x");
  const edit = quantile(times.edit, 0.5) / quantile(times.bare, 0.5);
  bench("browser", "fencelab first edit checked / bare sql.js (medians)", "median", edit.toFixed(2), "x");
  const typed = quantile(times.typed, 0.5) / quantile(times.bare, 0.5);
  bench("browser", "fencelab first edit typed by the page / bare sql.js (medians)", "median", typed.toFixed(2), "x");
  bench("browser", "fencelab: layout shift until the first edit (CLS, worst load)", "max", Math.max(...times.shift).toFixed(4), "");
}

// ----- keystroke to verdict -----

// Times each keystroke inside the page: from the keydown event to the DOM
// change that shows the verdicts of the newest check (the scenario list's
// data-check-seq and data-report-seq equal, and newer than before the key).
function watchKeys() {
  const section = document.querySelector("section.scenarios");
  const state = { down: null, before: 0, shown: null };
  window.__keys = state;
  document.addEventListener("keydown", () => {
    if (state.down === null) state.down = performance.now();
  }, true);
  const look = () => {
    const check = Number(section.dataset.checkSeq);
    const report = Number(section.dataset.reportSeq);
    if (state.down !== null && state.shown === null && check > state.before && report === check) {
      state.shown = performance.now();
    }
  };
  new MutationObserver(look).observe(section, { attributes: true });
}

async function keystrokes(browser, url, exercise) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const samples = [];
  try {
    const page = await context.newPage();
    await page.goto(`${url}?exercise=${exercise}`);
    await page.waitForFunction(() => {
      const s = document.querySelector("section.scenarios");
      return s && Number(s.dataset.reportSeq) > 0 && s.dataset.reportSeq === s.dataset.checkSeq;
    }, null, { timeout: VERDICT_WAIT_MS, polling: 50 });
    await page.evaluate(watchKeys);
    // A comment line at the end of the first editor: every keystroke is a
    // new text that the worker checks in full, and the verdicts stay those
    // of the exercise's starting text.
    await page.locator(".editor .cm-content").first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("-- ");
    await page.waitForFunction(() => {
      const s = document.querySelector("section.scenarios");
      return s.dataset.reportSeq === s.dataset.checkSeq;
    }, null, { timeout: VERDICT_WAIT_MS, polling: 20 });
    const letters = "fencingtokensleases";
    for (let i = 0; i < EDITS; i++) {
      await page.evaluate(() => {
        const s = document.querySelector("section.scenarios");
        Object.assign(window.__keys, { down: null, shown: null, before: Number(s.dataset.checkSeq) });
      });
      await page.keyboard.press(letters[i % letters.length]);
      await page.waitForFunction(() => window.__keys.shown !== null, null, { timeout: VERDICT_WAIT_MS, polling: 10 });
      const { down, shown } = await page.evaluate(() => window.__keys);
      samples.push(shown - down);
      // A learner's next key comes a beat later; the checks must not pile up.
      await page.waitForTimeout(30);
    }
  } finally {
    await context.close();
  }
  return samples;
}

async function exerciseIds(browser, url) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.locator("[data-exercise]").first().waitFor({ timeout: VERDICT_WAIT_MS });
    return await page.$$eval("[data-exercise]", (nodes) => nodes.map((n) => n.dataset.exercise));
  } finally {
    await context.close();
  }
}

// ----- the run -----

const bareDir = await bareSite();
const site = await serveDir(DIST);
const bare = await serveDir(bareDir);
const browser = await launchChromium();
try {
  console.error(`bench: ${LOADS} fresh loads each of ${site.url} and the bare sql.js page`);
  await loads(browser, site.url, bare.url);
  const all = await exerciseIds(browser, site.url);
  const wanted = process.env.BENCH_EXERCISES ? process.env.BENCH_EXERCISES.split(",") : all;
  for (const id of wanted) {
    const number = all.indexOf(id) + 1;
    const samples = await keystrokes(browser, site.url, id);
    const row = `keystroke to verdict: ${number > 0 ? `${number} ` : ""}${id}`;
    bench("browser", row, "median", ms(quantile(samples, 0.5)), "ms");
    bench("browser", row, "p95", ms(quantile(samples, 0.95)), "ms");
  }
} finally {
  await browser.close();
  await site.close();
  await bare.close();
  await rm(bareDir, { recursive: true, force: true });
}
