// The authoring view (?author=1), acting as a course author: start from the
// starter `fencelab new` writes, break its TOML and see the error underlined
// at its line with the loader's sentence, mend it, see the reference pass
// and the kill matrix (a caught cell's sentence; a survivor once a scenario
// is weakened), download the file, share it as a link that opens the same
// text byte for byte (in the authoring view and, as a preview, as a
// learner's exercise), and open a link whose narrative carries script as a
// learner: nothing runs (the harness fails on any page error, dialog or
// CSP violation) and the javascript: link is no link. Both themes, both
// widths: the editor and the results on screen, unclipped.
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { deflateRawSync } from "node:zlib";
import { basename, join } from "node:path";
import {
  CLAIM,
  DIST,
  ROOT,
  assertNoSeriousViolations,
  cachedForOffline,
  open,
  runTests,
  serveDir,
  typeClaim,
  verdictsCurrent,
  waitForText,
} from "./harness.mjs";

const STARTER = await readFile(join(ROOT, "crates/cli/src/starter.toml"), "utf8");
const EDITOR = "#exercise-editor .cm-content";
const STATUS = "#author-status";
const PASSES = /^✓ fencelab check passes/;

/** The line (1-based) of `text` that is exactly `line`. */
function lineOf(text, line) {
  const at = text.split("\n").indexOf(line);
  assert.ok(at >= 0, `the starter has the line ${line}`);
  return at + 1;
}

/** An exercise link's fragment, written as the page writes one. */
function exerciseFragment(text) {
  return `x1=${deflateRawSync(Buffer.from(text, "utf8"), { level: 9 }).toString("base64url")}`;
}

async function openAuthoring(page, address) {
  await page.goto(address);
  await page.locator(EDITOR).waitFor();
}

/** Replaces the whole draft as an author pasting a file would. */
async function paste(page, text) {
  await page.locator(EDITOR).click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
}

/** Downloads the draft and returns its file name and bytes. */
async function downloaded(page) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#download").click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), bytes: await readFile(path) };
}

/** Whether `box` lies inside the viewport horizontally and has a size. */
function onScreen(box, width) {
  return box && box.width > 0 && box.height > 0 && box.x >= 0 && box.x + box.width <= width + 0.5;
}

/** Every path the site's server has answered, in order. */
const served = [];
/** Whether a path is one of the exercise reader's files (web/reader). */
const isReader = (path) => /^\/reader(_loader|_bg)?-[0-9a-f]{16}\.(js|wasm)$/.test(path);
/** Whether a path is the wasm of the page's app `app` (its binary's name). */
const isWasm = (app) => (path) => new RegExp(`^/${app}_bg-[0-9a-f]{16}\\.wasm$`).test(path);
/** Whether a path is one of the authoring view's own app's files (web/src/author_main.rs). */
const isAuthoringApp = (path) => /^\/fencelab-author(_bg)?-[0-9a-f]{16}\.(js|wasm)$/.test(path);

await runTests("author", [
  [
    "a first visit checks its first edit without fetching the exercise reader or the authoring view's app; the first draft starts both, and not the playground's wasm",
    async ({ browser, url }) => {
      // No service worker: it would precache every asset, the reader's too,
      // for offline use, and hide what the page itself asks for.
      const context = await browser.newContext({ serviceWorkers: "block", viewport: { width: 1280, height: 800 } });
      try {
        const page = await context.newPage();
        const from = served.length;
        await open(page, `${url}${CLAIM}.html`);
        await typeClaim(page, ["SELECT 1;"]);
        await verdictsCurrent(page);
        const first = served.slice(from);
        assert.ok(first.some((path) => /^\/worker_bg-[0-9a-f]{16}\.wasm$/.test(path)), `the checking worker was fetched: ${first}`);
        assert.ok(first.includes("/exercises/index.toml"), `the site's index was read: ${first}`);
        assert.deepEqual(first.filter(isReader), [], "no reader before a text needs it");
        assert.ok(first.some(isWasm("fencelab-web")), `the playground's wasm was fetched: ${first}`);
        assert.deepEqual(first.filter(isAuthoringApp), [], "a learner's page fetches none of the authoring view's app");

        const authoringFrom = served.length;
        await openAuthoring(page, `${url}?author=1`);
        await waitForText(page.locator(STATUS), PASSES, 60_000);
        const authoring = served.slice(authoringFrom);
        assert.ok(authoring.some(isWasm("fencelab-author")), `the authoring view's own wasm was fetched: ${authoring}`);
        assert.ok(!authoring.some(isWasm("fencelab-web")), `the authoring view fetched the playground's wasm: ${authoring}`);
        const reader = served.slice(from).filter(isReader).map((path) => path.replace(/-[0-9a-f]{16}/, ""));
        assert.deepEqual([...new Set(reader)].sort(), ["/reader.js", "/reader_bg.wasm", "/reader_loader.js"]);
      } finally {
        await context.close();
      }
    },
  ],
  [
    "a site whose exercise reader is missing says so for the draft, in one line",
    async ({ browser }) => {
      // A half-uploaded site: every file but the reader's.
      const dir = await mkdtemp(join(tmpdir(), "fencelab-no-reader-"));
      await cp(DIST, dir, { recursive: true, filter: (path) => !isReader(`/${basename(path)}`) });
      const site = await serveDir(dir);
      const context = await browser.newContext({ serviceWorkers: "block" });
      try {
        const page = await context.newPage();
        const thrown = [];
        page.on("pageerror", (error) => thrown.push(String(error)));
        await openAuthoring(page, `${site.url}?author=1`);
        await waitForText(
          page.locator(STATUS),
          /^⚠ The draft could not be checked: the exercise reader \(\.\/reader_loader-[0-9a-f]{16}\.js\) could not be loaded/,
        );
        assert.deepEqual(thrown, [], "the page threw nothing");
      } finally {
        await context.close();
        await site.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  ],
  [
    "a bundled exercise's copy opens as a template, online and offline, under an id of its own; a template that cannot be fetched says so",
    async ({ page, url, context }) => {
      await openAuthoring(page, `${url}?author=1`);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      await cachedForOffline(page);
      const menu = page.locator("#template");
      // The first online, the last offline: the service worker holds every one.
      for (const [file, offline] of [
        ["08-execution-attempts.toml", false],
        ["24-the-lock-with-a-random-version.toml", true],
      ]) {
        await context.setOffline(offline);
        const source = await readFile(join(ROOT, "crates/model/exercises", file), "utf8");
        const id = /^id = "([^"]+)"$/m.exec(source)[1];
        await menu.selectOption({ label: `A copy of ${file}` });
        await waitForText(page.locator("#download"), new RegExp(`^Download my-${id}\\.toml$`));
        assert.equal(await menu.inputValue(), "", "the menu goes back to its prompt");
        const draft = await downloaded(page);
        assert.equal(draft.bytes.toString("utf8"), source.replace(`id = "${id}"`, `id = "my-${id}"`), `${file}, offline: ${offline}`);
        assert.equal(await page.locator(".author-tools [role=alert]").count(), 0);
      }
      // A file the site no longer serves (deleted from the cache too, as
      // after a half-copied upload) says so, and the draft stays.
      const before = (await downloaded(page)).bytes.toString("utf8");
      await page.evaluate(async () => {
        for (const name of await caches.keys()) {
          const cache = await caches.open(name);
          for (const request of await cache.keys()) {
            if (request.url.endsWith("/templates/01-claim-compare-and-set.toml")) await cache.delete(request);
          }
        }
      });
      await menu.selectOption({ label: "A copy of 01-claim-compare-and-set.toml" });
      await waitForText(page.locator(".author-tools [role=alert]"), /^The template templates\/01-claim-compare-and-set\.toml could not be opened: .+\.$/);
      assert.equal((await downloaded(page)).bytes.toString("utf8"), before, "the draft is as it was");
      await context.setOffline(false);
    },
  ],
  [
    "a TOML error is underlined at its line, and the mended draft shows the reference passing and the kill matrix",
    async ({ page, url }) => {
      await openAuthoring(page, `${url}?author=1`);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      // The reference passes every scenario; the start fails one.
      const reference = page.locator("#reference-verdicts li");
      assert.equal(await reference.count(), 3);
      for (const text of await reference.allInnerTexts()) assert.match(text, /^✓ passed/);
      assert.match((await page.locator("#start-verdicts").innerText()), /✗ failed/);
      // The kill matrix: the starter's variant is caught by "too late", with the sentence.
      const row = page.locator('#kill-matrix tr[data-mutant="takes without looking"]');
      const caught = row.locator('td[data-scenario="too late"]');
      assert.match(await caught.getAttribute("class"), /\bfailed\b/);
      await caught.locator("summary").click();
      const sentence = await caught.locator(".problem").innerText();
      assert.ok(sentence.length > 10, `a failure sentence: ${sentence}`);
      assert.equal(await caught.getAttribute("title"), sentence);
      assert.match(await page.locator("#kill-matrix caption").innerText(), /^1 of 1 broken variants caught$/);

      // Type an error: the title's closing quote goes.
      const titleLine = lineOf(STARTER, 'title = "Two helpers, one ticket"');
      // CodeMirror draws only the lines in view, so the line is found by its text.
      // (Its text without the closing quote, so it is found before and after the edit.)
      const line = page.locator("#exercise-editor .cm-line", { hasText: 'title = "Two helpers, one ticket' });
      assert.equal(await line.count(), 1);
      assert.equal(await line.innerText(), 'title = "Two helpers, one ticket"');
      await line.click();
      await page.keyboard.press("End");
      await page.keyboard.press("Backspace");
      const error = page.locator("#author-errors li");
      const message = await waitForText(error, /draft\.toml:\d+:\d+: /);
      assert.equal(await error.getAttribute("data-line"), String(titleLine), message);
      assert.ok(message.startsWith(`⚠ draft.toml:${titleLine}:`), message);
      assert.match(await page.locator(STATUS).innerText(), /cannot be loaded/);
      // Underlined in the editor on that very line, with the same sentence on hover.
      const mark = page.locator("#exercise-editor .cm-lintRange-error").first();
      await mark.waitFor();
      const markBox = await mark.boundingBox();
      const lineBox = await line.boundingBox();
      assert.ok(
        markBox.y >= lineBox.y - 1 && markBox.y + markBox.height <= lineBox.y + lineBox.height + 1,
        `the underline ${JSON.stringify(markBox)} is on line ${titleLine} ${JSON.stringify(lineBox)}`,
      );
      assert.equal(await page.locator("#exercise-editor .cm-lint-marker-error").count(), 1);
      await assertNoSeriousViolations(page, "the authoring view with a TOML error");
      await mark.hover();
      const tooltip = await waitForText(page.locator(".cm-tooltip-lint .cm-diagnosticText"), /draft\.toml/);
      assert.equal(tooltip.trim(), message.replace(/^⚠ /, "").trim());

      // Mend it (undo), and the check comes back.
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+Z");
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      assert.equal(await page.locator("#exercise-editor .cm-lintRange-error").count(), 0);

      // Weaken the scenarios: helper-b never contends for ticket-1, so the variant survives.
      const weakened = STARTER.replace(
        '{ process = "b", call = "take", args = { ticket_id = "ticket-1" } }',
        '{ process = "b", call = "take", args = { ticket_id = "ticket-9" } }',
      ).replace(
        '{ call = "take", process = "b", args = { ticket_id = "ticket-1" }',
        '{ call = "take", process = "b", args = { ticket_id = "ticket-9" }',
      );
      assert.notEqual(weakened, STARTER);
      await paste(page, weakened);
      await waitForText(page.locator("#kill-matrix caption"), /^0 of 1 broken variants caught; 1 survived every scenario$/, 60_000);
      assert.match(await row.locator("th").innerText(), /survived/);
      assert.match(await page.locator(STATUS).innerText(), /^✗ fencelab check fails/);
      assert.equal(await row.locator("td.failed").count(), 0);

      // The download is the text, named after the id.
      const file = await downloaded(page);
      assert.equal(file.name, "starter.toml");
      assert.equal(file.bytes.toString("utf8"), weakened);

      // An equivalent declaration that names no generated mutant: check
      // would fail on it, and so does the status here, naming it.
      await paste(page, `${STARTER}\n[[equivalent]]\nmutant = "take:1:1:no-such-operator"\nreason = "Written for an older reference."\n`);
      await waitForText(page.locator("#stale-equivalents li"), /^⚠ `take:1:1:no-such-operator` matches no generated mutant$/, 60_000);
      assert.match(await page.locator(STATUS).innerText(), /^✗ fencelab check fails/);
      assert.match(await page.locator("#kill-matrix caption").innerText(), /^1 of 1 broken variants caught$/);
    },
  ],
  [
    "a share link carries the whole exercise: the same bytes in the authoring view, and a preview opens it as a learner",
    async ({ page, url, browser, context }) => {
      await openAuthoring(page, `${url}?author=1`);
      // A draft with non-ASCII text and no final newline. (The editor writes
      // its lines with \n, as CodeMirror does.)
      const draft = STARTER.replace('id = "starter"', 'id = "my-tickets"')
        .replace("Two helpers, one ticket", "Zwei Helfer, ein Ticket — ünïcode")
        .trimEnd();
      await paste(page, draft);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      await page.locator("#share").click();
      const link = await page.locator("#share-url").inputValue();
      assert.match(link, /\?author=1#x1=/);

      const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
      try {
        const other = await fresh.newPage();
        const thrown = [];
        other.on("pageerror", (e) => thrown.push(String(e)));
        await openAuthoring(other, link);
        await waitForText(other.locator(STATUS), PASSES, 60_000);
        const file = await downloaded(other);
        assert.equal(file.name, "my-tickets.toml");
        assert.ok(file.bytes.equals(Buffer.from(draft, "utf8")), "the link opens the same bytes");
        assert.equal(thrown.length, 0, thrown.join("; "));
      } finally {
        await fresh.close();
      }

      // Preview: the learner's page in a new tab, with the draft as its exercise.
      const [tab] = await Promise.all([context.waitForEvent("page"), page.locator("#preview").click()]);
      await waitForText(tab.locator("#exercise-title"), /^Zwei Helfer, ein Ticket — ünïcode$/, 60_000);
      assert.ok(!tab.url().includes("author=1"), tab.url());
      await waitForText(tab.locator("#scenario-summary"), /^\d of 3 scenarios pass$/, 60_000);
      assert.match(await tab.locator(".exercise-list").innerText(), /Zwei Helfer/);
      // The preview's address, opened in the authoring view, is the same text.
      const fragment = new URL(tab.url()).hash;
      await openAuthoring(page, `${url}?author=1${fragment}`);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      const again = await downloaded(page);
      assert.ok(again.bytes.equals(Buffer.from(draft, "utf8")), "the preview carries the same bytes");
      await tab.screenshot({ path: join(ROOT, "tests/artifacts/author-preview.png") });
    },
  ],
  [
    "the draft is autosaved, and a saved draft this build cannot read is set aside with a notice",
    async ({ page, url }) => {
      await openAuthoring(page, `${url}?author=1`);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      const edited = STARTER.replace("Two helpers, one ticket", "Two helpers, one saved ticket");
      await paste(page, edited);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      await page.reload();
      await page.locator(EDITOR).waitFor();
      assert.equal((await downloaded(page)).bytes.toString("utf8"), edited, "the reload shows the draft");
      await page.evaluate(() => localStorage.setItem("fencelab:author:draft", "{not json"));
      await page.reload();
      await waitForText(page.locator(".notices"), /Your saved draft could not be read .*fencelab:set-aside:author:/);
      const aside = await page.evaluate(() =>
        Object.keys(localStorage)
          .filter((key) => key.startsWith("fencelab:set-aside:author:"))
          .map((key) => localStorage.getItem(key)),
      );
      assert.deepEqual(aside, ["{not json"], "the unreadable entry is kept aside");
      assert.equal((await downloaded(page)).bytes.toString("utf8"), STARTER, "the starter instead");
    },
  ],
  [
    "a shared exercise whose narrative carries script runs nothing, and its javascript: link is no link",
    async ({ page, url }) => {
      const hostile = STARTER.replace('id = "starter"', 'id = "hostile"').replace(
        "Two helpers watch the same queue of support tickets.",
        'Two helpers <script>alert(1)</script> watch [x](javascript:alert(1)) the <img src=x onerror="alert(2)"> queue.',
      );
      assert.notEqual(hostile, STARTER);
      await page.goto(`${url}#${exerciseFragment(hostile)}`);
      await waitForText(page.locator("#scenario-summary"), /^\d of 3 scenarios pass$/, 60_000);
      const story = page.locator(".narrative-text");
      // Raw HTML is dropped (a script's text between its tags is harmless text).
      assert.match(await story.innerText(), /watch x the\s+queue\./);
      assert.equal(await page.locator(".narrative script, .narrative img").count(), 0);
      assert.equal(await story.locator("a").count(), 0, "the javascript: link is no link");
      assert.equal(await page.locator('a[href^="javascript"]').count(), 0);
      // Give any script a moment to run: the harness fails on a dialog or an error.
      await page.waitForTimeout(500);
    },
  ],
  [
    "the editor and the results are on screen, unclipped and without serious axe violations in both themes at both widths",
    async ({ page, url }) => {
      await openAuthoring(page, `${url}?author=1`);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      for (const [width, height] of [[1280, 800], [390, 844]]) {
        await page.setViewportSize({ width, height });
        for (const theme of ["light", "dark"]) {
          await page.locator("#theme").selectOption(theme);
          assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme);
          await page.evaluate(() => window.scrollTo(0, 0));
          const editor = await page.locator("#exercise-editor .cm-editor").boundingBox();
          assert.ok(onScreen(editor, width), `editor at ${width}: ${JSON.stringify(editor)}`);
          assert.ok(editor.y < height, `the editor starts in the first screen at ${width}`);
          if (width >= 1000) {
            const status = await page.locator(STATUS).boundingBox();
            assert.ok(status.x > editor.x + editor.width - 1, "the results beside the editor");
            assert.ok(status.y < height, "the results in the first screen");
          }
          for (const selector of [STATUS, "#reference-verdicts", "#kill-matrix"]) {
            await page.locator(selector).scrollIntoViewIfNeeded();
            const box = await page.locator(selector).boundingBox();
            assert.ok(onScreen(box, width), `${selector} at ${width} (${theme}): ${JSON.stringify(box)}`);
          }
          const clipped = await page.locator(".kill-matrix-frame").evaluate((frame) => frame.scrollWidth > frame.clientWidth + 1);
          assert.equal(clipped, false, `the kill matrix fits its frame at ${width}`);
          const background = await page.locator("#exercise-editor .cm-editor").evaluate((e) => getComputedStyle(e).backgroundColor);
          const ink = await page.locator("#exercise-editor .cm-content").evaluate((e) => getComputedStyle(e).color);
          assert.notEqual(background, ink);
          await assertNoSeriousViolations(page, `the authoring view, ${theme}, ${width} px`);
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: join(ROOT, `tests/artifacts/author-${width}-${theme}.png`), fullPage: true });
        }
      }
    },
  ],
  [
    "a file opened from disk replaces the draft as one undoable change; one too large is refused and nothing changes",
    async ({ page, url }) => {
      await openAuthoring(page, `${url}?author=1`);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      const bundled = await readFile(join(ROOT, "crates/model/exercises/01-claim-compare-and-set.toml"), "utf8");
      const mine = bundled.replace(/^id = .*$/m, 'id = "opened-from-disk"');
      await page.setInputFiles("#open-file", { name: "mine.toml", mimeType: "text/plain", buffer: Buffer.from(mine) });
      // The opened file is the draft: its id names the download, and it is checked.
      await waitForText(page.locator("#download"), /^Download opened-from-disk\.toml$/);
      await waitForText(page.locator(STATUS), PASSES, 60_000);
      assert.equal((await downloaded(page)).bytes.toString("utf8"), mine, "the draft is the file, byte for byte");

      // Too large: refused with the limit named, the draft as it was.
      const huge = `${mine}\n# ${"x".repeat(300 * 1024)}\n`;
      await page.setInputFiles("#open-file", { name: "huge.toml", mimeType: "text/plain", buffer: Buffer.from(huge) });
      const refusal = await waitForText(page.locator(".author-tools .error[role=alert]"), /^Not opened: huge\.toml is \d+ bytes/);
      assert.match(refusal, /at most 262144/);
      assert.equal(await page.locator("#download").innerText(), "Download opened-from-disk.toml");

      // Undo brings back the starter the view opened with.
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+Z");
      await waitForText(page.locator("#download"), /^Download (?!opened-from-disk)/);
      assert.equal((await downloaded(page)).bytes.toString("utf8"), STARTER);
    },
  ],
], { serve: () => serveDir(DIST, {}, served) });
