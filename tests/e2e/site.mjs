// A course author's own site, end to end: a copy of the built site gets a
// new exercise file in its exercises/ folder, `fencelab index` checks it and
// writes the index (and refuses a broken file, naming file:line:column),
// `node crates/xtask/compress.mjs` precompresses it as `cargo xtask dist`
// does, `cargo xtask site-pages` writes the exercise's own page (and
// precompresses again), and `cargo xtask serve --site` serves it. The browser then opens the
// exercise by id, finds it under its own lesson, repairs it as a learner and
// sees every scenario pass; reads its page without JavaScript (both themes,
// both widths) and, with JavaScript, sees it hydrate, checked at once by the
// worker with the verdicts the page came with; the assets arrive
// precompressed with their cache headers; an unknown id is a notice naming
// it (alone in an embed), in view in light and dark at 1280 and 390 px; and
// the exercise, and its page, reload offline after one visit.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  DIST,
  REPAIRED,
  ROOT,
  assertInView,
  builtName,
  cachedForOffline,
  editorExtras,
  fencelabCommand,
  live,
  placement,
  runTests,
  serveWithXtask,
  settled,
  typeClaim,
  waitForText,
} from "./harness.mjs";

const ID = "my-course-claim";
const LESSON = "My course: claims under contention";
const TITLE = "My course's claim";
const MISSING = "no-such-exercise";
// Loading an author's exercise waits for the index and the file first.
const VERDICTS_TIMEOUT_MS = 90_000;

/** Bundled exercise 1 under the author's id, title and lesson. */
async function authorsExercise() {
  const text = await readFile(join(ROOT, "crates/model/exercises/01-claim-compare-and-set.toml"), "utf8");
  const replaced = text
    .replace(/^id = .*$/m, `id = "${ID}"`)
    .replace(/^title = .*$/m, `title = "${TITLE}"`)
    .replace(/^lesson = .*$/m, `lesson = "${LESSON}"`);
  for (const line of [`id = "${ID}"`, `title = "${TITLE}"`, `lesson = "${LESSON}"`]) {
    assert.ok(replaced.includes(`\n${line}\n`), `the copy says ${line}`);
  }
  return replaced;
}

/** `fencelab index ARGS...` as an author runs it (see `fencelabCommand`). */
function fencelabIndex(...args) {
  const run = spawnSync(...fencelabCommand("index", ...args), {
    cwd: ROOT,
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const exists = (path) => stat(path).then(() => true, () => false);

/** The built site copied to a temp folder, with the author's exercise indexed and everything precompressed. */
async function authorsSite() {
  assert.ok(await exists(join(DIST, "index.html")), `no built site in ${DIST} (run trunk build first)`);
  const site = await mkdtemp(join(tmpdir(), "fencelab-site-"));
  await cp(DIST, site, { recursive: true });
  // The author's exercises only, whatever the build held.
  const exercises = join(site, "exercises");
  await rm(exercises, { recursive: true, force: true });
  await mkdir(exercises);
  const exercise = await authorsExercise();
  await writeFile(join(exercises, `${ID}.toml`), exercise);

  // A broken file refuses the index, naming where, and writes nothing.
  const titleLine = exercise.split("\n").findIndex((line) => line.startsWith("title = ")) + 1;
  const broken = exercise.replace(/^id = .*$/m, 'id = "my-course-broken"').replace(/^title = .*$/m, "title = 3");
  await writeFile(join(exercises, "broken.toml"), broken);
  const refused = fencelabIndex(exercises);
  assert.equal(refused.code, 2, `a broken exercise must fail the index: ${refused.stdout}${refused.stderr}`);
  assert.ok(
    refused.stderr.includes(`${join(exercises, "broken.toml")}:${titleLine}:9: title: invalid type`),
    `the error names file:line:column: ${refused.stderr}`,
  );
  assert.match(refused.stdout, /index\.toml was not written\n$/);
  assert.equal(await exists(join(exercises, "index.toml")), false, "nothing is written");
  await rm(join(exercises, "broken.toml"));

  const indexed = fencelabIndex(exercises);
  assert.equal(indexed.code, 0, `${indexed.stdout}${indexed.stderr}`);
  assert.match(indexed.stdout, /checked 1 exercise: all ok; wrote .*index\.toml listing 1\n$/);
  assert.ok(indexed.stdout.includes(`\`cargo xtask site-pages ${site}\` writes them again`), `the pages are said to be the build's: ${indexed.stdout}`);
  assert.match(await readFile(join(exercises, "index.toml"), "utf8"), new RegExp(`exercises = \\[\\n  "${ID}\\.toml",\\n\\]`));

  const compressed = spawnSync("node", [join(ROOT, "crates/xtask/compress.mjs"), site], { encoding: "utf8" });
  assert.equal(compressed.status, 0, compressed.stderr);
  const files = await readdir(site);
  for (const name of ["fencelab-web_bg.wasm", "worker_bg.wasm", "index.html", "editor.js"]) {
    const built = await builtName(site, name);
    assert.ok(files.includes(`${built}.br`) && files.includes(`${built}.gz`), `${built} has .br and .gz copies`);
  }

  // Its page, prerendered on the hosted (precompressed) site as the index
  // said, listed for the service worker, with copies as new as the files.
  const paged = spawnSync("cargo", ["run", "--quiet", "--locked", "-p", "xtask", "--", "site-pages", site], { cwd: ROOT, encoding: "utf8" });
  assert.equal(paged.status, 0, `${paged.stdout}${paged.stderr}`);
  assert.ok(await exists(join(site, `${ID}.html`)), `site-pages wrote ${ID}.html: ${paged.stdout}${paged.stderr}`);
  const worker = await readFile(join(site, "sw.js"), "utf8");
  const pages = worker.split("\n").find((line) => line.startsWith("const PAGES = "));
  assert.ok(pages.includes(`"./${ID}.html"`), `the service worker precaches it: ${pages}`);
  for (const name of [`${ID}.html`, "sw.js"]) {
    const file = await readFile(join(site, name));
    assert.ok(brotliDecompressSync(await readFile(join(site, `${name}.br`))).equals(file), `${name}.br is ${name}`);
    assert.ok(gunzipSync(await readFile(join(site, `${name}.gz`))).equals(file), `${name}.gz is ${name}`);
  }
  return site;
}

const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";
/** The addresses that keep their names: the pages (index.html, each exercise's), the service worker, the data (the site's exercises, the templates' bundled files), embed.js. */
const STABLE = /^\/(|[a-z0-9-]+\.html|sw\.js|embed\.js|exercises\/.*|templates\/.*)$/;
/** A content-hashed asset's path (crates/xtask/src/hashed.rs). */
const HASHED = /^\/[^/]+-[0-9a-f]{16}\.[a-z]+$/;

/**
 * What the network answered from now on in `context` (the page's, its
 * worker's and the service worker's own requests), not the service
 * worker's replays: path to promises of { headers, status }.
 */
function networkAnswers(context) {
  const seen = new Map();
  context.on("response", (response) => {
    if (response.fromServiceWorker()) return;
    const path = new URL(response.url()).pathname;
    // A revalidation (a 304, which the browser may report as the cached
    // 200) carries no body headers: the full answer is the one that says
    // how the file arrived.
    const answers = seen.get(path) ?? [];
    // Caught: an answer still arriving as the test's context closes would
    // otherwise end the whole run; one the test reads fails its assertions.
    answers.push(
      response
        .allHeaders()
        .then((headers) => ({ headers, status: response.status() }))
        .catch(() => ({ headers: {}, status: 0 })),
    );
    seen.set(path, answers);
  });
  return seen;
}

async function verdicts(page, pattern) {
  return waitForText(page.locator("#scenario-summary"), pattern, VERDICTS_TIMEOUT_MS);
}

const site = await authorsSite();
try {
  await runTests(
    "site",
    [
      [
        "the author's exercise opens by id, under its own lesson, and a learner repairs it",
        async ({ page, url }) => {
          await page.goto(`${url}?exercise=${ID}`);
          await verdicts(page, /^0 of 3 scenarios pass$/);
          assert.equal(await page.locator("#exercise-title").innerText(), TITLE);
          const lesson = page.locator(".lesson", { has: page.locator(".lesson-title", { hasText: LESSON }) });
          assert.equal(await lesson.count(), 1, "the author's lesson is listed once");
          const link = lesson.locator(`.exercise-link[data-exercise="${ID}"]`);
          assert.equal(await link.getAttribute("aria-current"), "page");
          assert.match(await link.innerText(), new RegExp(TITLE));
          assert.equal(new URL(page.url()).searchParams.get("exercise"), ID, "the address keeps the id");

          await typeClaim(page, REPAIRED);
          await verdicts(page, /^3 of 3 scenarios pass$/);
          const shown = await page.locator(".scenario").evaluateAll((all) => all.map((s) => s.dataset.verdict));
          assert.deepEqual(shown, ["passed", "passed", "passed"]);
        },
      ],
      [
        "the author's exercise has a page of its own: read without JavaScript, hydrated with it, checked at once and repaired",
        async ({ browser, page, url }) => {
          // Without JavaScript: its story, starting text and verdicts, on
          // screen in both themes at both widths, listed under its lesson.
          let prerendered;
          for (const colorScheme of ["light", "dark"]) {
            for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
              const what = `${ID}.html without JavaScript, ${colorScheme} at ${viewport.width} px`;
              const off = await browser.newContext({ javaScriptEnabled: false, viewport, colorScheme });
              const still = await off.newPage();
              await still.goto(`${url}${ID}.html`);
              assert.equal(await still.title(), `${TITLE} · fencelab`, what);
              assert.equal(await still.locator("#exercise-title").innerText(), TITLE, what);
              assertInView(await placement(still.locator("#exercise-title")), `${what}: the title`);
              assert.ok((await still.locator(".narrative-text p").first().innerText()).trim().length > 20, `${what}: the story`);
              const editor = still.locator(".editor-static").first();
              assert.match(await editor.innerText(), /SELECT state FROM messages/, `${what}: the starting text`);
              await editor.scrollIntoViewIfNeeded();
              assertInView(await placement(editor), `${what}: the starting text`);
              const summary = still.locator("#scenario-summary");
              assert.equal(await summary.innerText(), "0 of 3 scenarios pass", what);
              await summary.scrollIntoViewIfNeeded();
              assertInView(await placement(summary), `${what}: the verdicts' summary`);
              prerendered = await still.locator("li.scenario").evaluateAll((rows) => rows.map((r) => [r.dataset.scenario, r.dataset.verdict]));
              assert.equal(prerendered.length, 3, what);
              const lesson = still.locator(".lesson", { has: still.locator(".lesson-title", { hasText: LESSON }) });
              assert.equal(await lesson.locator(`.exercise-link[data-exercise="${ID}"]`).getAttribute("aria-current"), "page", what);
              const width = await still.evaluate(() => document.documentElement.scrollWidth);
              assert.ok(width <= viewport.width + 2, `${what}: the page is ${width} px wide`);
              await off.close();
            }
          }

          // With JavaScript: the page hydrates (never the loading line), the
          // worker confirms the verdicts it came with, and an edit is checked.
          await page.addInitScript(() => {
            new MutationObserver(() => {
              if (document.getElementById("boot")) window.__sawLoading = true;
            }).observe(document, { subtree: true, childList: true });
          });
          await page.goto(`${url}${ID}.html`);
          await live(page);
          assert.equal(await page.evaluate(() => window.__sawLoading ?? false), false, "hydrated, not rendered afresh");
          assert.equal(await page.locator("#exercise-title").innerText(), TITLE);
          await typeClaim(page, REPAIRED);
          await verdicts(page, /^3 of 3 scenarios pass$/);
          // The starting text again, checked by the worker: the verdicts the page came with.
          await page.locator("#reset").click();
          await verdicts(page, /^0 of 3 scenarios pass$/);
          await page.locator(".scenarios[aria-busy='false']").waitFor({ timeout: VERDICTS_TIMEOUT_MS });
          const checked = await page.locator("li.scenario").evaluateAll((rows) => rows.map((r) => [r.dataset.scenario, r.dataset.verdict]));
          assert.deepEqual(checked, prerendered, "the worker's verdicts of the starting text are the page's");
          assert.deepEqual(
            await page.locator(".notice").allInnerTexts(),
            [],
            "the site's own file took the page's copy's place without a word",
          );
        },
      ],
      [
        "the site's files arrive precompressed, typed, and with their cache headers",
        async ({ page, url, context }) => {
          const seen = networkAnswers(context);
          await page.goto(`${url}?exercise=${ID}`);
          await verdicts(page, /^0 of 3 scenarios pass$/);
          const asset = async (name) => `/${await builtName(site, name)}`;
          const expected = {
            "/": ["text/html; charset=utf-8", REVALIDATE],
            [await asset("boot.js")]: ["text/javascript; charset=utf-8", IMMUTABLE],
            [await asset("fencelab-web.js")]: ["text/javascript; charset=utf-8", IMMUTABLE],
            [await asset("fencelab-web_bg.wasm")]: ["application/wasm", IMMUTABLE],
            [await asset("worker_loader.js")]: ["text/javascript; charset=utf-8", IMMUTABLE],
            [await asset("worker.js")]: ["text/javascript; charset=utf-8", IMMUTABLE],
            [await asset("worker_bg.wasm")]: ["application/wasm", IMMUTABLE],
            [await asset("editor.js")]: ["text/javascript; charset=utf-8", IMMUTABLE],
            [await asset("style.css")]: ["text/css; charset=utf-8", IMMUTABLE],
            [await asset("catalog.json")]: ["application/json", IMMUTABLE],
            "/exercises/index.toml": ["application/toml; charset=utf-8", REVALIDATE],
            [`/exercises/${ID}.toml`]: ["application/toml; charset=utf-8", REVALIDATE],
          };
          for (const [path, [type, caching]] of Object.entries(expected)) {
            assert.ok(seen.has(path), `the page fetched ${path} (it fetched ${[...seen.keys()].join(", ")})`);
            const answers = await Promise.all(seen.get(path));
            const { headers, status } = answers.find((a) => a.headers["content-type"]) ?? answers[0];
            assert.equal(headers["content-type"], type, `${path}: ${status} ${JSON.stringify(headers)}`);
            // compress.mjs keeps no copy that is not smaller (the worker's
            // few-byte loader): that file is sent as it is.
            const file = path === "/" ? "index.html" : path.slice(1);
            const compressed = await exists(join(site, `${file}.br`));
            assert.equal(headers["content-encoding"], compressed ? "br" : undefined, path);
            assert.equal(headers["vary"], "Accept-Encoding", path);
            assert.equal(headers["cache-control"], caching, path);
            assert.match(headers["etag"] ?? "", compressed ? /^"[0-9a-f]+-[0-9a-f]+-br"$/ : /^"[0-9a-f]+-[0-9a-f]+"$/, path);
          }
          const files = await readdir(site);
          const copies = Object.keys(expected).filter((path) => HASHED.test(path) && files.includes(`${path.slice(1)}.br`));
          assert.ok(copies.length >= 7, `the assets have brotli copies: ${copies.join(", ")}`);
          // Every file the page, its worker and the service worker fetched
          // is a hashed, immutable asset, or one of the addresses that keep
          // their names and are revalidated.
          for (const [path, answers] of seen) {
            const { headers, status } = (await Promise.all(answers)).find((a) => a.headers["content-type"]) ?? {};
            // A missing file (the browser's own /favicon.ico) is an error, never cached.
            if (STABLE.test(path) || status === 404) {
              assert.equal(headers?.["cache-control"], REVALIDATE, path);
            } else {
              assert.match(path, HASHED, `${path} is named after its content`);
              assert.equal(headers?.["cache-control"], IMMUTABLE, path);
            }
          }
          // The addresses that keep their names are revalidated.
          for (const name of ["index.html", "sw.js", "embed.js"]) {
            const answer = await fetch(`${url}${name}`);
            assert.equal(answer.status, 200, name);
            assert.equal(answer.headers.get("cache-control"), REVALIDATE, name);
            assert.ok(answer.headers.get("etag"), name);
          }
          // Revalidation answers 304 when the file is unchanged, and a
          // client that accepts no coding gets the file as it is.
          const first = await fetch(`${url}exercises/index.toml`, { headers: { "accept-encoding": "identity" } });
          assert.equal(first.headers.get("content-encoding"), null);
          const tag = first.headers.get("etag");
          assert.match(await first.text(), /format = 1/);
          const again = await fetch(`${url}exercises/index.toml`, {
            headers: { "accept-encoding": "identity", "if-none-match": tag },
          });
          assert.equal(again.status, 304);
          const missing = await fetch(`${url}exercises/nothing.toml`);
          assert.equal(missing.status, 404);
        },
      ],
      [
        "a second visit fetches no asset from the network, and a new build replaces the old cache",
        async ({ page, url, context }) => {
          await page.goto(`${url}?exercise=${ID}`);
          await verdicts(page, /^0 of 3 scenarios pass$/);
          await cachedForOffline(page);
          const seen = networkAnswers(context);
          const replayed = new Set();
          context.on("response", (response) => {
            if (response.fromServiceWorker()) replayed.add(new URL(response.url()).pathname);
          });
          await page.reload();
          await verdicts(page, /^0 of 3 scenarios pass$/);
          await editorExtras(page);
          const fetched = [];
          for (const [path, answers] of seen) {
            if (STABLE.test(path)) continue;
            // The browser's own /favicon.ico, which the site does not have.
            const missing = (await Promise.all(answers)).every((answer) => answer.status === 404);
            if (missing && !HASHED.test(path)) continue;
            fetched.push(path);
          }
          assert.deepEqual(fetched, [], "on a second visit the network is asked only for the page and its data");
          // The page and its worker did load every asset again: from the
          // service worker's copy.
          for (const name of ["boot.js", "fencelab-web.js", "fencelab-web_bg.wasm", "worker_loader.js", "worker.js", "worker_bg.wasm", "editor.js", "editor-chunk.js", "editor-extras.js", "style.css", "catalog.json"]) {
            const path = `/${await builtName(site, name)}`;
            assert.ok(replayed.has(path), `${path} came from the service worker (it served ${[...replayed].join(", ")})`);
          }

          // A new build is a new sw.js (its assets and cache name); the
          // browser installs it on the next visit, and the old cache goes.
          const buildCaches = () => page.evaluate(async () => (await caches.keys()).filter((name) => name.startsWith("fencelab-")));
          const [before] = await buildCaches();
          assert.deepEqual(await buildCaches(), [before], "one build, one cache");
          const worker = join(site, "sw.js");
          const text = await readFile(worker, "utf8");
          const next = "fencelab-0000000000000000";
          await writeFile(worker, text.replace(`const CACHE = "${before}";`, `const CACHE = "${next}";`));
          try {
            await page.reload();
            await verdicts(page, /^0 of 3 scenarios pass$/);
            await cachedForOffline(page);
            // The new worker deletes the old cache as it takes over.
            for (let i = 0; i < 100 && (await buildCaches()).length > 1; i++) await page.waitForTimeout(100);
            assert.deepEqual(await buildCaches(), [next], `the new build's cache replaced ${before}`);
          } finally {
            await writeFile(worker, text);
          }
        },
      ],
      [
        "an unknown id is a notice naming it and the exercises there are, never another exercise, in light and dark at 1280 and 390 px",
        async ({ page, url }) => {
          for (const colorScheme of ["light", "dark"]) {
            for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
              const what = `${colorScheme} at ${viewport.width}x${viewport.height}`;
              await page.emulateMedia({ colorScheme });
              await page.setViewportSize(viewport);
              await page.goto(`${url}?exercise=${MISSING}`);
              const notice = page.locator(".notice", { hasText: MISSING });
              await notice.waitFor({ timeout: VERDICTS_TIMEOUT_MS });
              assert.equal(await notice.innerText(), `There is no exercise “${MISSING}” on this page. Choose one of these:`);
              for (const absent of [".editor", "#scenario-summary", "#exercise-title"]) {
                assert.equal(await page.locator(absent).count(), 0, `${what}: no exercise is opened in its place (${absent})`);
              }
              // The choices: every exercise the page has, the author's among them.
              const choices = page.locator(".exercise-choices a[data-exercise]");
              const ids = await choices.evaluateAll((links) => links.map((l) => l.dataset.exercise));
              assert.ok(ids.length >= 14 && ids.includes(ID) && ids.includes("claim-compare-and-set"), `${what}: choices ${ids}`);
              await settled(page);
              assertInView(await placement(choices.first()), `${what}: the first choice`);
              await notice.scrollIntoViewIfNeeded();
              assertInView(await placement(notice), `the notice, ${what}`);
              const width = await page.evaluate(() => document.documentElement.scrollWidth);
              assert.ok(width <= viewport.width + 2, `${what}: the page is ${width} px wide`);
              const colours = await notice.evaluate((element) => {
                const style = getComputedStyle(element);
                return { text: style.color, page: getComputedStyle(document.body).backgroundColor };
              });
              assert.notEqual(colours.text, colours.page, `${what}: the notice's text shows on the page`);
            }
          }
          // A choice opens its exercise: a plain link, so the page loads
          // again, and the root's prerendered page (the first exercise's)
          // is replaced by the loading line until the author's exercise
          // arrives. Its title first, then its verdicts: read before the
          // app has taken over, the root's prerendered title and verdicts
          // ("0 of 3" too) could still be the ones read.
          await page.locator(`.exercise-choices a[data-exercise="${ID}"]`).click();
          await waitForText(page.locator("#exercise-title"), new RegExp(`^${TITLE}$`), VERDICTS_TIMEOUT_MS);
          await verdicts(page, /^0 of 3 scenarios pass$/);
        },
      ],
      [
        "in an embed, an unknown id shows the notice and nothing else",
        async ({ page, url }) => {
          for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
            await page.setViewportSize(viewport);
            await page.goto(`${url}?embed=1&exercise=${MISSING}`);
            const notice = page.locator(".notice");
            await waitForText(notice, /There is no exercise “no-such-exercise” here/, VERDICTS_TIMEOUT_MS);
            assert.equal(await notice.count(), 1);
            for (const absent of [".exercise-list", ".masthead", ".editor", "#scenario-summary", "#exercise-title"]) {
              assert.equal(await page.locator(absent).count(), 0, `an embed of a missing id shows no ${absent}`);
            }
            await settled(page);
            assertInView(await placement(notice), `the embed's notice at ${viewport.width}x${viewport.height}`);
          }
        },
      ],
      [
        "the author's exercise reloads offline after one visit",
        async ({ page, url, context }) => {
          await page.goto(`${url}?exercise=${ID}`);
          await verdicts(page, /^0 of 3 scenarios pass$/);
          await cachedForOffline(page, ["/exercises/index.toml", `/exercises/${ID}.toml`]);
          await context.setOffline(true);
          try {
            await page.reload();
            await verdicts(page, /^0 of 3 scenarios pass$/);
            assert.equal(await page.locator("#exercise-title").innerText(), TITLE);
            assert.equal(await page.locator(`.exercise-link[data-exercise="${ID}"]`).count(), 1);
            // Its own page too: the service worker precached it.
            await page.goto(`${url}${ID}.html`);
            await live(page);
            assert.equal(await page.locator("#exercise-title").innerText(), TITLE);
          } finally {
            await context.setOffline(false);
          }
        },
      ],
    ],
    { serve: () => serveWithXtask(site) },
  );
} finally {
  await rm(site, { recursive: true, force: true });
}
