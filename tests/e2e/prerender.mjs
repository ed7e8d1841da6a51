// The first view arrives with the page: every bundled exercise has a page
// of its own (ID.html; index.html is the first's), rendered at build time by
// the app's own components (web/prerender). With JavaScript off a learner
// reads its story, its starting text and its verdicts, on screen, in both
// colour themes, at desktop and phone widths. And what a page says is what
// the worker says: each page's verdicts are compared with the report the
// built worker computes in this browser for the same starting texts.
import assert from "node:assert/strict";
import { DIST, assertInView, builtName, live, placement, runTests } from "./harness.mjs";

const WIDTHS = [
  ["desktop", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
];
const THEMES = ["light", "dark"];

/** The ids of the exercises the front page lists, read with JavaScript off. */
async function exerciseIds(browser, url) {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(url);
  const ids = await page.locator("[data-exercise]").evaluateAll((buttons) => buttons.map((b) => b.dataset.exercise));
  await context.close();
  assert.ok(ids.length >= 19, `the front page lists the bundled exercises: ${ids.join(", ")}`);
  return ids;
}

/** What a page carries: the state it was rendered from, and its starting texts by procedure. */
async function carried(page) {
  return page.evaluate(() => ({
    data: JSON.parse(document.getElementById("fencelab-prerendered").textContent),
    texts: Object.fromEntries(
      [...document.querySelectorAll(".editor[data-procedure]")].map((e) => [e.dataset.procedure, e.querySelector(".editor-static")?.textContent]),
    ),
  }));
}

/** The report the built worker gives for `texts` of `exercise`, asked in `page` as the app asks it. */
async function workerReport(page, loader, catalog, exercise, texts) {
  return page.evaluate(
    ([loader, catalog, exercise, texts]) =>
      new Promise((ok, fail) => {
        const worker = new Worker(loader, { type: "module", name: catalog });
        const timer = setTimeout(() => fail(new Error("the worker did not answer in 60 s")), 60_000);
        worker.onerror = (event) => fail(new Error(`the worker failed: ${event.message}`));
        worker.onmessage = (event) => {
          const answer = JSON.parse(event.data);
          // Asked once it says it listens, as the app's engine does.
          if (answer.Ready) worker.postMessage(JSON.stringify({ Check: { seq: 1, exercise, edits: texts } }));
          if (answer.Failed) fail(new Error(`the worker failed: ${answer.Failed.message}`));
          if (answer.Checked) {
            clearTimeout(timer);
            worker.terminate();
            ok(answer.Checked.report);
          }
        };
      }),
    [loader, catalog, exercise, texts],
  );
}

/**
 * Holds back the page's wasm, so what shows is the HTML and first-paint.js
 * alone; resolves to the function that lets it through.
 */
async function holdPageWasm(page) {
  let release;
  const held = new Promise((ok) => (release = ok));
  await page.route(/fencelab-web[^/]*\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/**
 * Installed before the page's scripts: every message the page posts to a
 * worker and every answer it gets, parsed, in order (`window.__wire`).
 */
function recordWorkerWire() {
  const wire = [];
  window.__wire = wire;
  const Original = window.Worker;
  window.Worker = function (...args) {
    const worker = new Original(...args);
    worker.addEventListener("message", (event) => wire.push({ received: JSON.parse(event.data) }));
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (data, ...rest) => {
      wire.push({ sent: JSON.parse(data) });
      return post(data, ...rest);
    };
    return worker;
  };
  window.Worker.prototype = Original.prototype;
}

const tests = [
  [
    "with JavaScript off, every exercise's page shows its story, starting text and verdicts, on screen in both themes at both widths",
    async ({ browser, url }) => {
      const ids = await exerciseIds(browser, url);
      for (const [width, viewport] of WIDTHS) {
        for (const theme of THEMES) {
          const context = await browser.newContext({ javaScriptEnabled: false, viewport, colorScheme: theme });
          const page = await context.newPage();
          for (const id of ids) {
            const where = `${id}.html (${width}, ${theme})`;
            await page.goto(`${url}${id}.html`);
            const { data, texts } = await carried(page);
            assert.equal(data.exercise, id, where);
            const title = page.locator("h1#exercise-title");
            assert.ok((await title.innerText()).length > 0, `${where}: a title`);
            assertInView(await placement(title), `${where}: the title`);
            const story = page.locator(".narrative-text p").first();
            assert.ok((await story.innerText()).trim().length > 20, `${where}: the story`);
            const editor = page.locator(".editor-static").first();
            await editor.scrollIntoViewIfNeeded();
            assertInView(await placement(editor), `${where}: the starting text`);
            for (const [procedure, text] of Object.entries(texts)) {
              assert.ok(text && text.trim().length > 0, `${where}: procedure ${procedure}'s starting text`);
            }
            const summary = page.locator("#scenario-summary");
            await summary.scrollIntoViewIfNeeded();
            assertInView(await placement(summary), `${where}: the verdicts' summary`);
            // A limit shown is counted apart from the passes.
            const total = data.report.scenarios.length;
            const verdicts = data.report.scenarios.map((s) => s.verdict);
            const passed = verdicts.filter((v) => v === "passed").length;
            const limits = verdicts.filter((v) => v === "limit_shown").length;
            const count = `${passed} of ${total - limits} scenarios pass${limits ? `, ${limits} limit${limits === 1 ? "" : "s"} shown` : ""}`;
            assert.equal(await summary.innerText(), count, where);
            const rows = page.locator("li.scenario");
            assert.equal(await rows.count(), total, `${where}: one verdict per scenario`);
            for (let i = 0; i < total; i++) {
              const row = rows.nth(i);
              assert.notEqual(await row.getAttribute("data-verdict"), "pending", `${where}: verdict ${i + 1} is given`);
              assert.ok((await row.innerText()).trim().length > 0, `${where}: verdict ${i + 1} reads`);
            }
            // The note that the editing needs JavaScript.
            const visible = await page.locator(".noscript").isVisible();
            assert.ok(visible, `${where}: the note that editing needs JavaScript is shown`);
          }
          await context.close();
        }
      }
    },
  ],
  [
    "every page's verdicts are the ones the built worker computes in Chromium for its starting texts",
    async ({ browser, page, url }) => {
      const ids = await exerciseIds(browser, url);
      // Started as web/start-worker.js starts it: named after its catalogue.
      const catalog = `./${await builtName(DIST, "catalog.json")}`;
      const loader = `./${await builtName(DIST, "worker_loader.js")}`;
      const off = await browser.newContext({ javaScriptEnabled: false });
      const reader = await off.newPage();
      await page.goto(`${url}embed.js`);
      for (const id of ids) {
        await reader.goto(`${url}${id}.html`);
        const { data, texts } = await carried(reader);
        const computed = await workerReport(page, loader, catalog, id, texts);
        assert.deepEqual(computed, data.report, `${id}.html carries the worker's report of its starting texts`);
      }
      await off.close();
    },
  ],
  [
    "a prerendered page hydrates into the live app: the saved text replaces the start, marked as being checked until its verdicts arrive",
    async ({ page, url }) => {
      await page.goto(`${url}claim-compare-and-set.html`);
      await live(page);
      await page.locator('.editor[data-procedure="claim"] .cm-content').waitFor();
      assert.equal(await page.locator(".editor-static").count(), 0, "CodeMirror replaced the static text");
      assert.equal(await page.locator("#panic-notice").count(), 0, "no panic while hydrating");
      // The learner's own text, saved (on every edit, storage.rs), then a reload.
      await page.locator('.editor[data-procedure="claim"] .cm-content').click();
      await page.keyboard.press("Control+End");
      await page.keyboard.type(" -- mine");
      await page.waitForFunction(() => {
        const list = document.querySelector("[data-check-seq]");
        return list && list.dataset.checkSeq === list.dataset.reportSeq && list.dataset.checkSeq !== "1";
      });
      // What the verdicts said in the frame the app went live in.
      await page.addInitScript(() => {
        new MutationObserver((_, observer) => {
          if (document.querySelector(".app:not([data-live]) .editor-static")) window.__sawPrerendered = true;
          const app = document.querySelector(".app[data-live]");
          if (!app) return;
          const list = document.querySelector("[data-check-seq]");
          window.__wentLive = {
            stale: list.classList.contains("stale"),
            busy: list.getAttribute("aria-busy"),
          };
          observer.disconnect();
        }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-live"] });
      });
      await page.reload();
      await live(page);
      const [sawPrerendered, wentLive] = await page.evaluate(() => [window.__sawPrerendered, window.__wentLive]);
      assert.equal(sawPrerendered, true, "the reloaded page arrived prerendered, and was hydrated");
      await page.waitForFunction(() => document.querySelector('.editor[data-procedure="claim"] .cm-content')?.textContent.includes("-- mine"));
      assert.equal(wentLive.stale, true, "the start's verdicts are marked as being checked, not shown as the learner's");
      assert.equal(wentLive.busy, "true");
      await page.waitForFunction(() => {
        const list = document.querySelector("[data-check-seq]");
        return list.dataset.checkSeq === list.dataset.reportSeq && !list.classList.contains("stale");
      });
    },
  ],
  [
    "before the app has loaded, a phone's page is already folded as the app folds it and in the theme chosen, and hydrating changes neither",
    async ({ browser, url }) => {
      const ids = await exerciseIds(browser, url);
      for (const id of [ids[0], ids[ids.length - 1]]) {
        const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
        const page = await context.newPage();
        const release = await holdPageWasm(page);
        await page.goto(`${url}${id}.html?theme=dark`);
        const seen = () =>
          page.evaluate(() => {
            const story = document.querySelector("details.narrative-text");
            const shown = (selector) => {
              const element = story.querySelector(selector);
              return element.getClientRects().length > 0 && element.textContent.trim().length > 0;
            };
            return {
              theme: document.documentElement.dataset.theme,
              storyOpen: story.open,
              folded: story.classList.contains("story-folded"),
              lead: shown(".story-lead"),
              label: shown(".story-label"),
              menuOpen: document.querySelector("details.exercise-menu").open,
            };
          });
        const where = `${id}.html at 390x844`;
        const before = await seen();
        assert.equal(await page.locator(".app[data-live]").count(), 0, `${where}: the app has not started yet`);
        assert.deepEqual(
          before,
          { theme: "dark", storyOpen: false, folded: true, lead: true, label: false, menuOpen: false },
          `${where}: before the app loads`,
        );
        assertInView(await placement(page.locator(".story-folded > summary")), `${where}: the story's first sentence`);
        release();
        await live(page);
        assert.deepEqual(await seen(), before, `${where}: once the app is live`);
        assert.equal(await page.locator("#panic-notice").count(), 0, `${where}: no panic while hydrating`);
        await context.close();
      }
    },
  ],
  [
    "a page asked for another view than its own shows the loading line until the app has it, never the wrong exercise",
    async ({ browser, url }) => {
      const ids = await exerciseIds(browser, url);
      const addresses = [
        [`${url}?exercise=${ids[1]}`, ids[1]],
        [`${url}${ids[0]}.html?embed=1&exercise=${ids[2]}`, ids[2]],
      ];
      for (const [address, wanted] of addresses) {
        const context = await browser.newContext();
        const page = await context.newPage();
        const release = await holdPageWasm(page);
        await page.goto(address);
        const before = await page.evaluate(() => ({
          exercise: document.querySelectorAll("#exercise-title, #scenario-summary, .editor").length,
          loading: document.getElementById("boot")?.innerText,
        }));
        assert.deepEqual(before, { exercise: 0, loading: "Loading the fencelab playground…" }, `${address}: before the app loads`);
        assertInView(await placement(page.locator("#boot")), `${address}: the loading line`);
        release();
        await live(page);
        await page.locator("#exercise-title").waitFor();
        // The address names the exercise the app has open (hooks/address.rs).
        await page.waitForFunction((id) => new URL(location.href).searchParams.get("exercise") === id, wanted);
        const shown = await page.evaluate(() => ({
          title: document.getElementById("exercise-title")?.getClientRects().length ?? 0,
          loading: document.getElementById("boot") !== null,
          prerendered: document.querySelector(".editor-static") !== null,
        }));
        assert.deepEqual(shown, { title: 1, loading: false, prerendered: false }, `${address}: once the app is live`);
        await context.close();
      }
    },
  ],
  [
    "the worker is asked to check a prerendered page's exercise before the app starts, reads that request, and the app's first check is the page's report",
    async ({ browser, url }) => {
      const ids = await exerciseIds(browser, url);
      for (const id of [ids[0], ids[ids.length - 1]]) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.addInitScript(recordWorkerWire);
        // The app starts only once the worker has been asked, so the order is
        // the one a fast worker and a slow page give.
        const release = await holdPageWasm(page);
        await page.goto(`${url}${id}.html`);
        const wire = () => page.evaluate(() => window.__wire);
        await page.waitForFunction(() => window.__wire.some((m) => m.sent?.Prepare), null, { timeout: 60_000 });
        const before = await wire();
        assert.deepEqual(
          before.filter((m) => m.sent).map((m) => m.sent),
          [{ Prepare: { exercise: id } }],
          `${id}.html: start-worker.js asks for its exercise, after the worker's Ready`,
        );
        assert.ok(before[0].received?.Ready, `${id}.html: asked once the worker is ready`);
        release();
        await live(page);
        await page.waitForFunction(() => window.__wire.some((m) => m.received?.Checked), null, { timeout: 60_000 });
        const after = await wire();
        const failed = after.filter((m) => m.received?.Failed).map((m) => m.received.Failed.message);
        assert.deepEqual(failed, [], `${id}.html: the worker read every request`);
        const check = after.find((m) => m.sent?.Check).sent.Check;
        const answer = after.find((m) => m.received?.Checked).received.Checked;
        assert.equal(answer.seq, check.seq, `${id}.html: the first report answers the app's first check`);
        const { data } = await carried(page);
        assert.deepEqual(answer.report, data.report, `${id}.html: the app's first check is the page's report`);
        await context.close();
      }
      // Asked for another view: no exercise is prepared.
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.addInitScript(recordWorkerWire);
      const release = await holdPageWasm(page);
      await page.goto(`${url}?exercise=${ids[1]}`);
      await page.waitForFunction(() => window.__wire.some((m) => m.received?.Ready), null, { timeout: 60_000 });
      // start-worker.js decides once DOMContentLoaded has fired.
      await page.waitForFunction(() => performance.getEntriesByType("navigation")[0]?.domContentLoadedEventEnd > 0);
      assert.deepEqual((await page.evaluate(() => window.__wire)).filter((m) => m.sent), [], "nothing prepared for another view");
      release();
      await context.close();
    },
  ],
  [
    "a prerendered page whose app cannot start says so above itself, and the page stays readable",
    async ({ browser, url }) => {
      // What a learner sees when a proxy or a broken host drops the page's
      // wasm, or the exercises' catalogue that the page and its worker fetch.
      const missing = [
        [/fencelab-web[^/]*\.wasm$/, /^The playground could not start: /],
        [/catalog[^/]*\.json$/, /^The playground could not start: Error: \.\/catalog-[0-9a-f]{16}\.json answered 404 Not Found$/],
      ];
      for (const [file, said] of missing) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.route(file, (route) => route.fulfill({ status: 404, body: "gone" }));
        await page.goto(url);
        const alert = page.locator("#app > .boot-failed[role=alert]");
        await alert.waitFor({ timeout: 30_000 });
        assert.match(await alert.innerText(), said);
        assertInView(await placement(alert), "the sentence that the app could not start");
        assertInView(await placement(page.locator("h1#exercise-title")), "the exercise's title, still shown");
        assert.equal(await page.locator(".app[data-live]").count(), 0, "the page never pretends to be live");
        await context.close();
      }
    },
  ],
];

await runTests("prerender", tests);
