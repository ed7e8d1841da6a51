// Where a fresh load's time goes, up to the first verdicts: for each of
// BENCH_LOADS fresh loads (empty cache, no service worker; default 9) of
// the built site (FENCELAB_DIST), served as tests/bench/browser.mjs serves
// it, the milestones below in ms from the start of navigation, read inside
// the page (performance.now(), resource timing, the app's own `fencelab:`
// User Timing marks) and inside the worker (its own resource timing and
// marks, moved onto the page's clock). Prints median and p95
// of each as BENCH lines, like browser.mjs. A benchmark, not a test.
//
// BENCH_BASELINE_DIST, when set, names a second build (say, the main
// branch's) loaded alternately with it, so both see the same machine load;
// its rows are prefixed "baseline:". BENCH_ROWS=1 also prints each load's
// own row (every milestone it saw) as JSON on stderr.
//
// Run: FENCELAB_DIST=dist node tests/bench/breakdown.mjs
import { DIST, launchChromium, serveDir } from "../e2e/harness.mjs";

const LOADS = Number(process.env.BENCH_LOADS ?? 9);
const WAIT_MS = 60_000;

// Installed before the page's scripts: when the app replaces the boot
// line, when the worker first speaks (its "ready"), when the SQLite version
// and the first verdicts show.
function watchMilestones() {
  const seen = { workerCreated: null, appStarted: null, workerReady: null, version: null, verdict: null };
  // The first request of each kind the page sent and the first answer of
  // each kind it received (the protocol's JSON names its variant first).
  const kind = (data) => (typeof data === "string" ? /^\{"(\w+)"/.exec(data)?.[1] : null);
  const first = (prefix, data) => {
    const name = kind(data);
    if (name && seen[prefix + name] === undefined) seen[prefix + name] = performance.now();
  };
  window.__milestones = seen;
  const Original = window.Worker;
  window.Worker = function (...args) {
    if (seen.workerCreated === null) seen.workerCreated = performance.now();
    const worker = new Original(...args);
    worker.addEventListener("message", (event) => {
      if (seen.workerReady === null) seen.workerReady = performance.now();
      first("received ", event.data);
    });
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (data, ...rest) => {
      first("sent ", data);
      return post(data, ...rest);
    };
    return worker;
  };
  window.Worker.prototype = Original.prototype;
  let booted = false;
  const look = () => {
    const now = performance.now();
    // The app started: it replaced the boot line, or (a prerendered page)
    // hydrated and went live.
    if (document.getElementById("boot")) booted = true;
    else if (booted && seen.appStarted === null) seen.appStarted = now;
    if (seen.appStarted === null && document.querySelector(".app[data-live]")) seen.appStarted = now;
    if (seen.version === null && document.getElementById("sqlite-version")?.textContent) seen.version = now;
    const summary = document.getElementById("scenario-summary");
    if (seen.verdict === null && summary && /^\d+ of \d+ scenarios pass/.test(summary.textContent)) {
      seen.verdict = now;
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}

/** When each named file finished arriving, on the page's clock. */
function arrivals(entries, origin, pageOrigin) {
  const out = {};
  // By trunk's names: the build names each asset after its content
  // (`worker_bg-<16 hex>.wasm`, crates/xtask/src/hashed.rs).
  const unhashed = (path) => path.replace(/-[0-9a-f]{16}(\.[a-z]+)$/, "$1");
  for (const { name, end } of entries) out[unhashed(new URL(name).pathname.slice(1))] = origin + end - pageOrigin;
  return out;
}

/**
 * When each `fencelab:` User Timing mark (web/src/timing.rs) was first
 * made, on the page's clock.
 */
function marked(marks, origin, pageOrigin) {
  const out = {};
  for (const { name, at } of marks) out[name] ??= origin + at - pageOrigin;
  return out;
}

async function load(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const workers = [];
    page.on("worker", (worker) => workers.push(worker));
    await page.addInitScript(watchMilestones);
    await page.goto(url);
    // Until the app is live and the worker's first report has arrived: a
    // prerendered page shows its verdicts long before either.
    const done = () => {
      const seen = window.__milestones;
      return seen.verdict !== null && seen.appStarted !== null && seen["received Checked"] !== undefined;
    };
    await page.waitForFunction(done, null, { timeout: WAIT_MS, polling: 50 });
    const resources = () => ({
      origin: performance.timeOrigin,
      entries: performance.getEntriesByType("resource").map((e) => ({ name: e.name, end: e.responseEnd })),
      marks: performance
        .getEntriesByType("mark")
        .filter((e) => e.name.startsWith("fencelab:"))
        .map((e) => ({ name: e.name, at: e.startTime })),
    });
    const inPage = await page.evaluate(resources);
    const dom = await page.evaluate(() => performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd);
    const row = { ...(await page.evaluate(() => window.__milestones)), dom };
    Object.assign(row, arrivals(inPage.entries, inPage.origin, inPage.origin));
    Object.assign(row, marked(inPage.marks, inPage.origin, inPage.origin));
    for (const worker of workers) {
      const inWorker = await worker.evaluate(resources);
      Object.assign(row, arrivals(inWorker.entries, inWorker.origin, inPage.origin));
      Object.assign(row, marked(inWorker.marks, inWorker.origin, inPage.origin));
    }
    // Per load, not a difference of medians: the first check's time in
    // the worker, as the page saw it.
    row.checkAnswered = row["received Checked"] - row["sent Check"];
    if (process.env.BENCH_ROWS) console.error(JSON.stringify(row));
    return row;
  } finally {
    await context.close();
  }
}

// In about the order they happen; the `fencelab:` ones are the page's and
// the worker's own User Timing marks.
const MILESTONES = [
  ["workerCreated", "worker created"],
  ["worker.js", "worker.js arrived (worker's clock)"],
  ["editor.js", "editor.js (CodeMirror) arrived"],
  ["fencelab-web_bg.wasm", "page wasm arrived"],
  ["fencelab:page-wasm-compiled", "page wasm compiled"],
  ["worker_bg.wasm", "worker wasm arrived (worker's clock)"],
  ["fencelab:worker-start", "worker wasm running (its main)"],
  ["dom", "DOMContentLoaded done (editor.js ran)"],
  ["fencelab:init", "page wasm instantiating (compiled, document parsed)"],
  ["fencelab:main", "page wasm running (its main)"],
  ["fencelab:prerendered-read", "page's prerendered state read (its report's JSON)"],
  ["fencelab:catalogue-read", "page's catalogue read (every bundled exercise)"],
  ["fencelab:first-state", "page's first state made (catalogue read, prerendered page read)"],
  ["fencelab:render-scheduled", "page's render or hydration scheduled"],
  ["fencelab:init-done", "page wasm's start returned"],
  ["workerReady", "worker ready (its first message)"],
  ["fencelab:editor-created", "first editor created"],
  ["fencelab:first-render", "page's first render committed"],
  ["fencelab:worker-server", "worker's server made (its exercises read)"],
  ["fencelab:live", "page live (hydrated, saved work read)"],
  ["appStarted", "page wasm started the app (boot line gone, or hydrated and live)"],
  ["sent Check", "first check sent"],
  ["received Working", "worker answered Working (first slice done)"],
  ["received Checked", "worker answered the first report"],
  ["checkAnswered", "first check: sent to answered (each load's own)"],
  ["version", "SQLite version shown"],
  ["verdict", "first verdicts shown"],
];

const quantile = (xs, q) => {
  const sorted = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
};

const sites = [{ name: "", dir: DIST }];
if (process.env.BENCH_BASELINE_DIST) sites.push({ name: "baseline: ", dir: process.env.BENCH_BASELINE_DIST });
for (const site of sites) {
  site.server = await serveDir(site.dir);
  site.rows = [];
}
const browser = await launchChromium();
try {
  console.error(`breakdown: ${LOADS} fresh loads of ${sites.map((s) => s.dir).join(" and ")}`);
  for (let i = 0; i < LOADS; i++) {
    for (const site of sites) site.rows.push(await load(browser, site.server.url));
  }
  for (const site of sites) {
    for (const [key, label] of MILESTONES) {
      const samples = site.rows.map((r) => r[key]);
      for (const [column, q] of [["median", 0.5], ["p95", 0.95]]) {
        console.log(`BENCH\tbreakdown\t${site.name}${label}\t${column}\t${Math.round(quantile(samples, q))}\tms`);
      }
    }
  }
} finally {
  await browser.close();
  for (const site of sites) await site.server.close();
}
