// The custom element <fencelab-exercise>, acted out as an author of a plain
// HTML page with no script of its own: the page only imports the site's
// embed.js as a module and writes the element. The test listens as a
// reader of the page's DOM events would (an init script, not the page's),
// and checks that the element shows the frame (its geometry), that
// fencelab-ready and fencelab-checked arrive with the frame's messages as
// `detail`, that check(), reset() and setProcedures() resolve with the
// frame's replies (and reject with its sentence), that fencelab-solved
// fires once when the learner repairs the claim by typing, and that
// attributes that cannot be used are said in the element, with no frame.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ARTIFACTS, CLAIM, DIST, EDITOR, REPAIRED, launchChromium, placement, serveDir, typeClaim, waitFor, waitForText } from "./harness.mjs";

const VERDICTS_TIMEOUT_MS = 90_000;

/** The author's page: the module import and the elements, nothing else. */
function plainPage(site) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A plain page</title>
<script type="module" src="${site}embed.js"></script></head>
<body style="margin:0;font-family:sans-serif">
<h1>Week 3: fencing</h1>
<fencelab-exercise id="good" exercise="${CLAIM}"></fencelab-exercise>
<p>Below, two that cannot be shown.</p>
<fencelab-exercise id="no-id"></fencelab-exercise>
<fencelab-exercise id="bad-site" exercise="${CLAIM}" site="javascript:alert(1)"></fencelab-exercise>
</body></html>`;
}

/** What the test hears: every fencelab-* event on the document, in order. */
function listen() {
  window.heard = [];
  for (const type of ["fencelab-ready", "fencelab-checked", "fencelab-solved"]) {
    document.addEventListener(type, (event) => window.heard.push({ type, target: event.target.id, detail: event.detail }));
  }
}

const until = (what, test, timeout = VERDICTS_TIMEOUT_MS) => waitFor(what, test, timeout);

const heard = (page, type) => page.evaluate((t) => window.heard.filter((e) => e.type === t), type);
const checkedAfter = (page, count) =>
  until(`a fencelab-checked after #${count}`, async () => {
    const all = await heard(page, "fencelab-checked");
    return all.length > count ? all.at(-1).detail : null;
  });

async function test(page, site) {
  await page.addInitScript(listen);
  await page.goto(`${site.host}plain.html`);

  // The element renders the frame: an iframe of the site's, filling the
  // element's width, tall enough to show the exercise, on screen.
  const ready = await until("fencelab-ready", async () => (await heard(page, "fencelab-ready"))[0]);
  assert.equal(ready.target, "good", "the event comes from the element");
  assert.equal(ready.detail.type, "ready");
  assert.equal(ready.detail.exercise, CLAIM);
  assert.deepEqual(ready.detail.procedures.map((p) => p.name), ["claim"]);
  const frame = page.frameLocator("#good iframe");
  await waitForText(frame.locator("#scenario-summary"), /^\d+ of 3 scenarios pass$/, VERDICTS_TIMEOUT_MS);
  const element = await placement(page.locator("#good"));
  const iframe = await placement(page.locator("#good iframe"));
  assert.equal(await page.locator("#good iframe").getAttribute("src").then((src) => new URL(src).origin), new URL(site.url).origin);
  assert.ok(iframe.bottom - iframe.top >= 400, `the frame is tall enough to see: ${JSON.stringify(iframe)}`);
  assert.equal(iframe.left, element.left, "the frame fills the element");
  assert.equal(iframe.right, element.right, "the frame fills the element");
  assert.ok(iframe.top >= 0 && iframe.top < iframe.viewportHeight, `the frame starts on screen: ${JSON.stringify(iframe)}`);

  const first = await checkedAfter(page, 0);
  assert.equal(first.total, 3);
  assert.ok(first.passed < 3, "the starting text fails");

  // The methods, each a Promise of the frame's reply.
  let count = (await heard(page, "fencelab-checked")).length;
  const set = await page.evaluate((text) => document.getElementById("good").setProcedures({ claim: text }), REPAIRED.join("\n"));
  assert.equal(set.type, "ok");
  assert.equal(`${(await checkedAfter(page, count)).passed} of 3`, "3 of 3");
  assert.equal((await heard(page, "fencelab-solved")).length, 0, "texts the page set are not the learner's");
  const refused = await page.evaluate(() => document.getElementById("good").setProcedures({ nope: "x" }).then(() => "resolved", (e) => e.message));
  assert.match(refused, /`nope` is not an editable procedure/);

  count = (await heard(page, "fencelab-checked")).length;
  assert.equal((await page.evaluate(() => document.getElementById("good").reset())).type, "ok");
  assert.equal((await checkedAfter(page, count)).passed, first.passed, "reset: the starting verdicts again");
  count = (await heard(page, "fencelab-checked")).length;
  assert.equal((await page.evaluate(() => document.getElementById("good").check())).type, "ok");
  await checkedAfter(page, count);

  // The learner types the repair: fencelab-solved, once, with the texts.
  await typeClaim(page, REPAIRED, frame, EDITOR);
  await waitForText(frame.locator("#scenario-summary"), /^3 of 3 scenarios pass$/, VERDICTS_TIMEOUT_MS);
  const solved = await until("fencelab-solved", async () => (await heard(page, "fencelab-solved"))[0]);
  assert.equal(solved.target, "good");
  assert.equal(solved.detail.kind, "repair");
  assert.match(solved.detail.procedures.claim, /state = 'NEW'/);
  await new Promise((ok) => setTimeout(ok, 1000));
  assert.equal((await heard(page, "fencelab-solved")).length, 1, "solved is said once");

  // Attributes that cannot be used: a sentence the reader sees, no frame,
  // and methods that reject with the same sentence.
  for (const [id, pattern] of [["no-id", /the `exercise` attribute must name an exercise/], ["bad-site", /the site must be an http or https address, not javascript:/]]) {
    const notice = page.locator(`#${id} [role=alert]`);
    assert.match(await notice.innerText(), pattern);
    await notice.scrollIntoViewIfNeeded();
    const box = await placement(notice);
    assert.ok(box.bottom > box.top && box.onTop, `${id}'s notice is visible: ${JSON.stringify(box)}`);
    assert.equal(await page.locator(`#${id} iframe`).count(), 0);
    const rejected = await page.evaluate((id) => document.getElementById(id).check().then(() => "resolved", (e) => e.message), id);
    assert.match(rejected, pattern);
  }
}

async function main() {
  const hostDir = await mkdtemp(join(tmpdir(), "fencelab-element-host-"));
  // embed.js is imported from another origin: the site sends CORS for it,
  // as docs/EMBEDDING.md asks.
  const siteServer = await serveDir(DIST, { "access-control-allow-origin": "*" });
  const hostServer = await serveDir(hostDir);
  await writeFile(join(hostDir, "plain.html"), plainPage(siteServer.url));
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("dialog", (dialog) => {
    errors.push(`a dialog opened: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  const name = "a plain page with only the module import shows the element, hears its events and runs its methods";
  const started = Date.now();
  let failed = false;
  try {
    await test(page, { url: siteServer.url, host: hostServer.url });
    if (errors.length) throw new Error(`the page threw: ${errors.join("; ")}`);
    console.log(`ok - ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    failed = true;
    console.log(`not ok - ${name}\n  ${String(error?.stack ?? error).replace(/\n/g, "\n  ")}`);
  } finally {
    await page.screenshot({ path: join(ARTIFACTS, "element.png"), fullPage: true }).catch(() => {});
    await browser.close();
    await Promise.all([siteServer.close(), hostServer.close()]);
    await rm(hostDir, { recursive: true, force: true });
  }
  console.log(`element: ${failed ? 0 : 1} passed, ${failed ? 1 : 0} failed`);
  if (failed) process.exitCode = 1;
}

await main();
