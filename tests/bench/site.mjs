// A course author's own exercise on a first visit: for each of BENCH_LOADS
// fresh loads (empty cache, no service worker; default 10) of a copy of
// the built site (FENCELAB_DIST) that serves one exercise of its own (the
// first bundled file under another id, indexed as `fencelab index` writes
// it, its page written as `cargo xtask site-pages` writes it), the ms from
// the start of navigation until its verdicts show, read inside the page at
// the first animation frame after they are in the document, two ways: at
// `?exercise=ID`, where the verdicts wait for the site's index, the file,
// and the worker's reading of it (the exercise reader, web/reader, fetched
// then); and at the exercise's own page, `ID.html`, which arrives with
// them, and until the app there has hydrated (`data-live`: an edit is
// checked from then on). Prints median and p95 as BENCH lines, like
// browser.mjs. A benchmark, not a test.
//
// BENCH_BASELINE_DIST, when set, names a second build loaded alternately
// with it, so both see the same machine load; its rows say "baseline" (a
// build without `site-pages` has no page rows).
// BENCH_ROWS=1 also prints each round's times on stderr.
//
// Run: FENCELAB_DIST=dist node tests/bench/site.mjs
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST, ROOT, launchChromium, serveDir } from "../e2e/harness.mjs";

const LOADS = Number(process.env.BENCH_LOADS ?? 10);
const ID = "my-course-claim";
const TITLE = "My course: the claim";

/** A copy of the site in `dist` serving one exercise of its own. */
async function siteOf(dist) {
  const site = await mkdtemp(join(tmpdir(), "fencelab-site-bench-"));
  await cp(dist, site, { recursive: true });
  const text = await readFile(join(ROOT, "crates/model/exercises/01-claim-compare-and-set.toml"), "utf8");
  const own = text.replace(/^id = .*$/m, `id = "${ID}"`).replace(/^title = .*$/m, `title = "${TITLE}"`);
  await writeFile(join(site, "exercises", `${ID}.toml`), own);
  await writeFile(join(site, "exercises", "index.toml"), `format = 1\nexercises = [\n  "${ID}.toml",\n]\n`);
  spawnSync("cargo", ["run", "--quiet", "--locked", "-p", "xtask", "--", "site-pages", site], { cwd: ROOT, stdio: "inherit" });
  return site;
}

const exists = (path) => stat(path).then(() => true, () => false);

/** One fresh load of `address`: ms until the site's exercise shows its verdicts, and until the app is live. */
async function load(browser, url, address) {
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    // Installed before the page's scripts, as browser.mjs times the first
    // verdicts: the first animation frame after each thing is in the
    // document (a prerendered page's verdicts are in its HTML).
    await context.addInitScript((title) => {
      const at = (name) => {
        if (window[`__${name}Asked`]) return;
        window[`__${name}Asked`] = true;
        requestAnimationFrame(() => (window[`__${name}At`] = performance.now()));
      };
      const look = () => {
        const summary = document.querySelector("#scenario-summary")?.textContent ?? "";
        if (document.querySelector("#exercise-title")?.textContent === title && /^\d+ of \d+ scenarios pass$/.test(summary)) {
          at("verdicts");
        }
        if (document.querySelector(".app[data-live]")) at("live");
      };
      new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    }, TITLE);
    const page = await context.newPage();
    await page.goto(`${url}${address}`, { waitUntil: "commit" });
    const handle = await page.waitForFunction(
      () => (window.__verdictsAt && window.__liveAt ? { verdicts: window.__verdictsAt, live: window.__liveAt } : null),
      null,
      { timeout: 60_000, polling: 50 },
    );
    return await handle.jsonValue();
  } finally {
    await context.close();
  }
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

const builds = [["", DIST]];
if (process.env.BENCH_BASELINE_DIST) builds.push(["baseline: ", process.env.BENCH_BASELINE_DIST]);
const served = [];
for (const [name, dist] of builds) {
  const dir = await siteOf(dist);
  const paged = await exists(join(dir, `${ID}.html`));
  served.push({ name, dir, paged, server: await serveDir(dir), times: { addressed: [], page: [], pageLive: [] } });
}
const browser = await launchChromium();
try {
  for (let i = 0; i < LOADS; i++) {
    for (const build of served) {
      build.times.addressed.push((await load(browser, build.server.url, `?exercise=${ID}`)).verdicts);
      if (build.paged) {
        const { verdicts, live } = await load(browser, build.server.url, `${ID}.html`);
        build.times.page.push(verdicts);
        build.times.pageLive.push(live);
      }
    }
    if (process.env.BENCH_ROWS) console.error(JSON.stringify(served.map((b) => [b.name, b.times.addressed.at(-1), b.times.page.at(-1), b.times.pageLive.at(-1)])));
  }
} finally {
  await browser.close();
  for (const build of served) {
    await build.server.close();
    await rm(build.dir, { recursive: true, force: true });
  }
}
const rows = [
  ["addressed", "a site's own exercise: verdicts shown (first visit)"],
  ["page", "a site's own exercise's page: verdicts shown (first visit)"],
  ["pageLive", "a site's own exercise's page: live, an edit checked from then (first visit)"],
];
for (const { name, times } of served) {
  for (const [key, what] of rows) {
    if (times[key].length === 0) continue;
    const row = `${name}${what}`;
    console.log(`BENCH\tsite\t${row}\tmedian\t${Math.round(quantile(times[key], 0.5))}\tms`);
    console.log(`BENCH\tsite\t${row}\tp95\t${Math.round(quantile(times[key], 0.95))}\tms`);
  }
}
