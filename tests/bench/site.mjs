// A course author's own exercise on a first visit: for each of BENCH_LOADS
// fresh loads (empty cache, no service worker; default 10) of a copy of
// the built site (FENCELAB_DIST) that serves one exercise of its own (the
// first bundled file under another id, indexed as `fencelab index` writes
// it), the ms from the start of navigation until its verdicts show, read
// inside the page at the first animation frame after they are in the
// document. Its verdicts wait for the site's index, the file, and the
// worker's reading of it (the exercise reader, web/reader, fetched then).
// Prints median and p95 as BENCH lines, like browser.mjs. A benchmark, not
// a test.
//
// BENCH_BASELINE_DIST, when set, names a second build loaded alternately
// with it, so both see the same machine load; its rows say "baseline".
// BENCH_ROWS=1 also prints each round's times on stderr.
//
// Run: FENCELAB_DIST=dist node tests/bench/site.mjs
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
  return site;
}

/** One fresh load: ms until the site's exercise shows its verdicts. */
async function load(browser, url) {
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    const page = await context.newPage();
    await page.goto(`${url}?exercise=${ID}`);
    const handle = await page.waitForFunction(
      (title) => {
        if (window.__verdictsAt) return window.__verdictsAt;
        const shown =
          document.querySelector("#exercise-title")?.textContent === title &&
          /^\d+ of \d+ scenarios pass$/.test(document.querySelector("#scenario-summary")?.textContent ?? "");
        if (shown && !window.__frameAsked) {
          window.__frameAsked = true;
          requestAnimationFrame(() => (window.__verdictsAt = performance.now()));
        }
        return null;
      },
      TITLE,
      { timeout: 60_000, polling: 10 },
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
  served.push({ name, dir, server: await serveDir(dir), times: [] });
}
const browser = await launchChromium();
try {
  for (let i = 0; i < LOADS; i++) {
    for (const build of served) build.times.push(await load(browser, build.server.url));
    if (process.env.BENCH_ROWS) console.error(served.map((b) => `${b.name}${b.times.at(-1)}`).join(" "));
  }
} finally {
  await browser.close();
  for (const build of served) {
    await build.server.close();
    await rm(build.dir, { recursive: true, force: true });
  }
}
for (const { name, times } of served) {
  const row = `${name}a site's own exercise: verdicts shown (first visit)`;
  console.log(`BENCH\tsite\t${row}\tmedian\t${Math.round(quantile(times, 0.5))}\tms`);
  console.log(`BENCH\tsite\t${row}\tp95\t${Math.round(quantile(times, 0.95))}\tms`);
}
