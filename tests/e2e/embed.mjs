// Embedding with results back, acted out as a course author and a learner.
// The author copies the built site to a folder of their own, writes an
// exercise of their own into its exercises/ (the claim exercise under a new
// id) with exercises/index.toml, and serves it; a course page on ANOTHER
// origin embeds that exercise with the site's embed.js. The test checks what
// the course page hears (ready, checked with correct counts, solved exactly
// once after the learner's own repair, resize matching the frame's content
// height and followed by the iframe), that its commands are done and
// answered, that a page on a THIRD origin can neither command the frame nor
// hear from it, the embed layout at 600x600 and 900x700 in both themes, and
// share inside a cross-origin frame (the link keeps embed=1; a clipboard
// refusal is a notice). Every page error or CSP violation in any frame fails.
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ARTIFACTS, DIST, EDITOR, REPAIRED, ROOT, assertInView, launchChromium, placement, serveDir, typeClaim, waitForText,
} from "./harness.mjs";

const MINE = "my-course-claim";
const VERDICTS_TIMEOUT_MS = 90_000;

/** The author's site: the built one, with an exercise of their own. */
async function authorsSite() {
  const dir = await mkdtemp(join(tmpdir(), "fencelab-embed-site-"));
  await cp(DIST, dir, { recursive: true });
  const bundled = await readFile(join(ROOT, "crates/model/exercises/01-claim-compare-and-set.toml"), "utf8");
  const mine = bundled
    .replace('id = "claim-compare-and-set"', `id = "${MINE}"`)
    .replace(/^title = ".*"$/m, 'title = "My course: the claim"');
  assert.notEqual(mine, bundled, "the exercise got its own id");
  await mkdir(join(dir, "exercises"), { recursive: true });
  await writeFile(join(dir, "exercises/mine.toml"), mine);
  await writeFile(join(dir, "exercises/index.toml"), 'format = 1\nexercises = ["mine.toml"]\n');
  return dir;
}

/** A course page that embeds `MINE` with embed.js and records what it hears. */
function hostPage(site, { theme } = {}) {
  const options = theme ? `theme: ${JSON.stringify(theme)},` : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course</title></head>
<body style="margin:0;font-family:sans-serif">
<h1>Week 3: fencing</h1><p>Repair the claim below.</p>
<div id="exercise" style="width:100%"></div>
<script type="module">
  import { embed } from "${site}embed.js";
  window.heard = [];
  window.raw = [];
  // Every message this page receives, from anyone, as it arrived.
  window.addEventListener("message", (e) => window.raw.push({ origin: e.origin, data: e.data }));
  const record = (m) => window.heard.push(m);
  window.frameHandle = embed(document.getElementById("exercise"), {
    exercise: "${MINE}", ${options}
    onReady: record, onChecked: record, onSolved: record, onResize: record,
  });
</script></body></html>`;
}

/** A page that embeds the frame with a bare iframe (no clipboard delegated). */
function plainPage(site, parent) {
  const src = `${site}?embed=1&exercise=${MINE}&parent=${encodeURIComponent(parent)}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Plain</title></head>
<body style="margin:0"><iframe id="frame" src="${src}" style="width:800px;height:900px;border:0"></iframe>
<script>
  window.raw = [];
  window.addEventListener("message", (e) => window.raw.push({ origin: e.origin, data: e.data }));
</script></body></html>`;
}

async function until(what, test, timeout = VERDICTS_TIMEOUT_MS) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await test();
    if (last) return last;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const heard = (page, type) => page.evaluate((t) => window.heard.filter((m) => m.type === t), type);

async function lastChecked(page, after) {
  return until(`a checked message after #${after}`, async () => {
    const all = await heard(page, "checked");
    return all.length > after ? all[all.length - 1] : null;
  });
}

const tests = [
  ["a course page embeds the author's exercise and hears ready, checked, solved and resize", async ({ site, host, open, watch }) => {
    const { context, page } = await open({ width: 900, height: 800 });
    await page.goto(`${host.url}host.html`);
    const frame = page.frameLocator("iframe");

    const [ready] = await until("ready", () => heard(page, "ready").then((r) => (r.length ? r : null)));
    assert.equal(ready.fencelab, 1);
    assert.equal(ready.exercise, MINE);
    assert.equal(ready.title, "My course: the claim");
    assert.match(ready.sqlite_version, /^3\.\d+\.\d+$/);
    assert.deepEqual(ready.procedures.map((p) => p.name), ["claim"]);
    assert.match(ready.procedures[0].text, /-- Look at the message first/);

    // The first verdicts: the starting text fails, as the frame shows.
    const first = await lastChecked(page, 0);
    const summary = await waitForText(frame.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/);
    assert.equal(summary, `${first.passed} of ${first.total} scenarios pass`);
    assert.equal(first.total, 3);
    assert.ok(first.passed < 3, JSON.stringify(first));
    assert.equal(first.passed + first.failed, first.total);
    assert.equal(first.own_texts, false, "the starting text is not the learner's own");
    // The frame reports its exercise's height, never the line it shows
    // while that exercise loads (47 px): the course page's frame must not
    // fold up and open out again before the learner has seen anything.
    const early = (await until("a resize", () => heard(page, "resize").then((r) => (r.length ? r : null)))).map((m) => m.height);
    assert.ok(early.every((height) => height >= 400), `the heights the frame reported first: ${early.join(", ")} px`);
    assert.deepEqual(first.scenarios.map((s) => s.name), ["one winner", "first come, first served", "each claim takes one message"]);
    for (const s of first.scenarios) {
      assert.equal(s.passes, s.verdict === "passed" || s.verdict === "limit_shown");
      if (!s.passes) assert.ok(s.message && s.message.length > 10, `a failing scenario says why: ${JSON.stringify(s)}`);
      else assert.equal(s.message, null);
      // Only an error says its kind (the model's ErrorKind tag).
      if (s.verdict === "error") assert.match(s.error_kind, /^(limit|call|unusable|step|misfit|rule|refused|engine)$/, JSON.stringify(s));
      else assert.equal(s.error_kind, null, JSON.stringify(s));
    }
    const frameFailure = await frame.locator('.scenario[data-scenario="one winner"] .failure-message').innerText();
    assert.equal(first.scenarios[0].message, frameFailure, "the same sentence the learner reads");

    // The host's commands, each answered.
    let count = (await heard(page, "checked")).length;
    const repaired = REPAIRED.join("\n");
    const setReply = await page.evaluate((text) => window.frameHandle.setProcedures({ claim: text }), repaired);
    assert.equal(setReply.type, "ok");
    let checked = await lastChecked(page, count);
    assert.equal(`${checked.passed} of ${checked.total}`, "3 of 3");
    await waitForText(frame.locator("#scenario-summary"), /^3 of 3 scenarios pass$/);
    assert.match(await frame.locator(EDITOR).innerText(), /BEGIN IMMEDIATE;/);
    assert.equal((await heard(page, "solved")).length, 0, "texts the course page set are not the learner's: not solved");
    assert.equal(checked.own_texts, false, "nor are they the learner's own to a host that grades");

    const unknown = await page.evaluate(() => window.frameHandle.setProcedures({ nope: "x" }).then(() => "resolved", (e) => e.message));
    assert.match(unknown, /`nope` is not an editable procedure of `my-course-claim` \(its editable procedures: `claim`\)/);

    count = (await heard(page, "checked")).length;
    assert.equal((await page.evaluate(() => window.frameHandle.reset())).type, "ok");
    checked = await lastChecked(page, count);
    assert.equal(checked.passed, first.passed, "reset: the starting text's verdicts again");
    assert.match(await frame.locator(EDITOR).innerText(), /-- Look at the message first/);

    assert.equal((await page.evaluate(() => window.frameHandle.showScenario("first come, first served"))).type, "ok");
    await until("the scenario shown", async () =>
      (await frame.locator('.scenario[data-scenario="first come, first served"] .scenario-select').getAttribute("aria-pressed")) === "true");
    const noScenario = await page.evaluate(() => window.frameHandle.showScenario("nope").then(() => "resolved", (e) => e.message));
    assert.match(noScenario, /`nope` is not a scenario of `my-course-claim`/);

    count = (await heard(page, "checked")).length;
    assert.equal((await page.evaluate(() => window.frameHandle.check())).type, "ok");
    await lastChecked(page, count);

    // A message the frame cannot read, from the allowed page: an error reply with its id.
    await page.evaluate((site) => document.querySelector("iframe").contentWindow.postMessage({ fencelab: 1, type: "delete-everything", id: "bad-1" }, site), site.url);
    const badReply = await until("the error reply", () => page.evaluate(() => window.raw.find((m) => m.data?.id === "bad-1")?.data));
    assert.equal(badReply.type, "error");
    assert.match(badReply.message, /`delete-everything` is not a message this frame takes/);

    // The learner repairs the claim by typing it: solved, exactly once.
    count = (await heard(page, "checked")).length;
    const resizesBefore = (await heard(page, "resize")).length;
    await typeClaim(page, REPAIRED, frame);
    await waitForText(frame.locator("#scenario-summary"), /^3 of 3 scenarios pass$/, VERDICTS_TIMEOUT_MS);
    const solvedAt = await until("solved", () => heard(page, "solved").then((s) => (s.length ? s : null)));
    // Every keystroke is checked and its verdicts show and hide whole
    // sections, but the course page below must not jump up and down with
    // each: the frame grows at once and shrinks only after a pause (1.5 s).
    await new Promise((ok) => setTimeout(ok, 2_500));
    const typing = (await heard(page, "resize")).slice(resizesBefore).map((m) => m.height);
    const typedChecks = (await heard(page, "checked")).length - count;
    console.log(`  while typing the repair: ${typedChecks} checked, ${typing.length} resize messages (${typing.join(", ")})`);
    // Growing with the text is the content needing room; shrinking and
    // growing again is the page jumping. At most the one shrink of the pause.
    const shrinks = typing.filter((height, i) => i > 0 && height < typing[i - 1]).length;
    assert.ok(shrinks <= 1, `the frame shrank ${shrinks} times while one repair was typed key by key: ${typing.join(", ")}`);
    assert.equal(solvedAt.length, 1);
    assert.equal(solvedAt[0].exercise, MINE);
    assert.match(solvedAt[0].procedures.claim, /WHERE id = :message_id AND state = 'NEW';/);
    checked = (await heard(page, "checked")).at(-1);
    assert.equal(`${checked.passed} of ${checked.total}`, "3 of 3");
    assert.equal(checked.own_texts, true, "the typed repair is the learner's own");
    // Another passing edit: checked again, and no second solved.
    count = (await heard(page, "checked")).length;
    await page.keyboard.press("Enter");
    await page.keyboard.type("-- mine now");
    await lastChecked(page, count);
    await waitForText(frame.locator("#scenario-summary"), /^3 of 3 scenarios pass$/);
    assert.equal((await heard(page, "solved")).length, 1, "solved is said once");

    // resize: the content's height, which the iframe follows.
    const sizes = await until("the iframe sized to its content", async () => {
      const resized = (await heard(page, "resize")).at(-1);
      const content = await frame.locator("html").evaluate((root) => root.scrollHeight);
      const iframe = await page.locator("iframe").evaluate((f) => f.getBoundingClientRect().height);
      return resized && Math.abs(resized.height - content) <= 1 && Math.abs(iframe - resized.height) <= 1
        ? { resized: resized.height, content, iframe } : null;
    }, 10_000);
    console.log(`  resize ${sizes.resized} px, frame content ${sizes.content} px, iframe ${sizes.iframe} px; ${(await heard(page, "resize")).length} resize messages`);
    // Folding the results shrinks the frame, and the iframe follows.
    await frame.locator(".results-fold > summary").click();
    await until("the iframe shrunk", async () => {
      const resized = (await heard(page, "resize")).at(-1);
      const content = await frame.locator("html").evaluate((root) => root.scrollHeight);
      const iframe = await page.locator("iframe").evaluate((f) => f.getBoundingClientRect().height);
      return resized.height < sizes.resized && Math.abs(resized.height - content) <= 1 && Math.abs(iframe - resized.height) <= 1;
    }, 10_000);

    // Everything the page heard came from the frame's origin, in protocol 1.
    const raw = await page.evaluate(() => window.raw);
    assert.ok(raw.every((m) => m.origin === new URL(site.url).origin && m.data.fencelab === 1), JSON.stringify(raw.slice(0, 3)));
  }],

  ["a page on a third origin can neither command the frame nor hear from it", async ({ site, host, third, open, watch }) => {
    const { context, page } = await open({ width: 900, height: 800 });
    await page.goto(`${host.url}host.html`);
    await until("ready", () => heard(page, "ready").then((r) => r.length > 0));
    await lastChecked(page, 0);
    const frame = page.frameLocator("iframe");
    const before = await frame.locator(EDITOR).innerText();

    // The course page opens a window on a third origin, which gets a handle
    // to the frame through its opener and posts to it.
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      page.evaluate((url) => { window.opened = window.open(url); }, `${third.url}blank.html`),
    ]);
    watch(popup);
    await popup.waitForLoadState();
    await popup.evaluate(() => {
      window.raw = [];
      window.addEventListener("message", (e) => window.raw.push(e.data));
      const target = window.opener.frames[0];
      target.postMessage({ fencelab: 1, type: "set-procedures", id: 99, procedures: { claim: "-- hijacked" } }, "*");
      target.postMessage({ fencelab: 1, type: "check", id: 100 }, "*");
      target.postMessage("not even an object", "*");
    });
    // A third-origin page that embeds the same frame address, reporting to the host's origin.
    await popup.setContent(plainPage(site.url, new URL(host.url).origin));
    await waitForText(popup.frameLocator("#frame").locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/, VERDICTS_TIMEOUT_MS);
    await popup.evaluate((site) => document.getElementById("frame").contentWindow.postMessage(
      { fencelab: 1, type: "set-procedures", id: 101, procedures: { claim: "-- hijacked" } }, site), site.url);
    await new Promise((ok) => setTimeout(ok, 2000));

    assert.equal(await frame.locator(EDITOR).innerText(), before, "the host's frame's text is unchanged");
    assert.doesNotMatch(await popup.frameLocator("#frame").locator(EDITOR).innerText(), /hijacked/);
    const replies = await page.evaluate(() => window.raw.filter((m) => [99, 100, 101].includes(m.data?.id)));
    assert.deepEqual(replies, [], "no reply went anywhere the host can see");
    assert.deepEqual(await popup.evaluate(() => window.raw), [], "the third origin heard nothing: nothing is posted to *");
  }],

  ["the embed layout keeps the editor and the verdicts in a 600x600 and a 900x700 frame, in both themes", async ({ site, open, watch }) => {
    for (const viewport of [{ width: 600, height: 600 }, { width: 900, height: 700 }]) {
      for (const theme of ["light", "dark"]) {
        const { page } = await open(viewport);
        await page.goto(`${site.url}?embed=1&exercise=${MINE}&theme=${theme}`);
        await waitForText(page.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/, VERDICTS_TIMEOUT_MS);
        await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
        const what = `${viewport.width}x${viewport.height} ${theme}`;
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme, what);
        assert.equal(await page.locator(".masthead, .exercise-list").count(), 0, `${what}: no page chrome`);
        assert.equal(await page.locator(".skip-link").evaluate((e) => getComputedStyle(e).display), "none", `${what}: no skip link`);
        assertInView(await placement(page.locator('.editor[data-procedure="claim"]')), `${what}: the editor`);
        assertInView(await placement(page.locator("#scenario-summary")), `${what}: the verdicts' summary`);
        for (const scenario of await page.locator(".scenario .scenario-select").all()) {
          assertInView(await placement(scenario), `${what}: a scenario's verdict`);
        }
        await page.screenshot({ path: join(ARTIFACTS, `embed-layout-${viewport.width}x${viewport.height}-${theme}.png`) });
      }
    }
  }],

  ["share in a cross-origin frame keeps embed=1, and a clipboard refusal is a notice", async ({ site, host, open, watch }) => {
    const { context, page } = await open({ width: 900, height: 900 });
    await page.goto(`${host.url}plain.html`);
    const frame = page.frameLocator("#frame");
    await waitForText(frame.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/, VERDICTS_TIMEOUT_MS);
    await frame.locator("#share").click();
    const link = await frame.locator("#share-url").inputValue();
    const address = new URL(link);
    assert.equal(address.origin, new URL(site.url).origin);
    assert.equal(address.searchParams.get("embed"), "1", link);
    assert.equal(address.searchParams.get("exercise"), MINE, link);
    assert.equal(address.searchParams.get("parent"), null, "a shared link reports to nobody");
    assert.match(address.hash, /^#s1=/);
    await waitForText(frame.locator(".copy-refused"), /could not be copied to the clipboard \(.+\); select it above/);

    // The link opens as an embed of the same exercise.
    const opened = await context.newPage();
    watch(opened);
    await opened.goto(link);
    await waitForText(opened.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/, VERDICTS_TIMEOUT_MS);
    assert.equal(await opened.locator(".masthead").count(), 0);
    assert.equal(await opened.locator("#exercise-title").innerText(), "My course: the claim");
  }],
];

async function main() {
  await mkdir(ARTIFACTS, { recursive: true });
  const siteDir = await authorsSite();
  const hostDir = await mkdtemp(join(tmpdir(), "fencelab-embed-host-"));
  const thirdDir = await mkdtemp(join(tmpdir(), "fencelab-embed-third-"));
  // A module imported from another origin is fetched with CORS: the site
  // allows any page to import its files, as docs/EMBEDDING.md asks.
  const site = await serveDir(siteDir, { "access-control-allow-origin": "*" });
  const host = await serveDir(hostDir);
  const third = await serveDir(thirdDir);
  await writeFile(join(hostDir, "host.html"), hostPage(site.url));
  await writeFile(join(hostDir, "plain.html"), plainPage(site.url, new URL(host.url).origin));
  await writeFile(join(thirdDir, "blank.html"), "<!doctype html><title>Third</title><p>A third origin.</p>");
  const origins = new Set([site, host, third].map((s) => new URL(s.url).origin));
  assert.equal(origins.size, 3, "three origins");
  const browser = await launchChromium();
  let passed = 0;
  let failed = 0;
  try {
    for (const [name, body] of tests) {
      const errors = [];
      const pages = [];
      const contexts = [];
      const open = async (viewport) => {
        const context = await browser.newContext({ viewport });
        contexts.push(context);
        const page = await context.newPage();
        watch(page);
        return { context, page };
      };
      const watch = (page) => {
        pages.push(page);
        page.on("pageerror", (e) => errors.push(String(e)));
        page.on("console", (m) => {
          if (/Content.Security.Policy/i.test(m.text())) errors.push(`CSP: ${m.text()}`);
        });
        page.on("request", (request) => {
          const origin = new URL(request.url()).origin;
          if (/^https?:/.test(request.url()) && !origins.has(origin)) errors.push(`a request left the test's origins: ${request.url()}`);
        });
      };
      const started = Date.now();
      try {
        await body({ site, host, third, open, watch });
        if (errors.length) throw new Error(`a page threw: ${errors.join("; ")}`);
        passed++;
        console.log(`ok - ${name} (${Date.now() - started} ms)`);
      } catch (error) {
        failed++;
        console.log(`not ok - ${name}\n  ${String(error?.stack ?? error).replace(/\n/g, "\n  ")}`);
      }
      const label = name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60);
      for (const [i, page] of pages.entries()) {
        if (!page.isClosed()) await page.screenshot({ path: join(ARTIFACTS, `embed-${label}-${i}.png`), fullPage: true }).catch(() => {});
      }
      await Promise.all(contexts.map((c) => c.close()));
    }
  } finally {
    await browser.close();
    await Promise.all([site, host, third].map((s) => s.close()));
    await Promise.all([siteDir, hostDir, thirdDir].map((d) => rm(d, { recursive: true, force: true })));
  }
  console.log(`embed: ${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

await main();
