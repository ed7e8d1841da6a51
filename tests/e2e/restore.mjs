// State that comes back exactly: a share link opened in a fresh browser, and
// a reload, bring back the scenario and the step selected, a drive's moves
// so far (still a drive, without a verdict until it ends), a replay's
// schedule with its verdict (an error stays an error), the hints shown and
// the editor's undo history; the theme chosen and the choice to start from
// the working version are remembered.
import assert from "node:assert/strict";
import { CLAIM, EDITOR, open, runTests, waitForText } from "./harness.mjs";

/** What the timeline shows: the scenario, the step selected, the verdict, the schedule. */
async function shown(page) {
  await page.locator(".lanes tr.event.selected").waitFor();
  return {
    title: await page.locator("#timeline-title").innerText(),
    step: await page.locator(".lanes tr.event.selected").getAttribute("data-step"),
    verdict: await page.locator(".timeline-verdict").innerText(),
    schedule: await page.locator("#shown-schedule").innerText().catch(() => ""),
  };
}

/** Makes a share link of what is in view. */
async function shareLink(page) {
  await page.locator("#share").click();
  return page.locator("#share-url").inputValue();
}

/** Opens `link` in a browser that has never seen the page and returns what it shows. */
async function openedFresh(browser, link, settle) {
  const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const other = await fresh.newPage();
    await other.goto(link);
    await waitForText(other.locator(".notices"), /version in the link/);
    await settle(other);
    return await shown(other);
  } finally {
    await fresh.close();
  }
}

async function sameStep(page, step) {
  await waitForText(page.locator(".lanes tr.event.selected th"), new RegExp(`^▶ ${Number(step) + 1}\\b`));
}

await runTests("restore", [
  [
    "a link and a reload bring back the scenario at the step selected",
    async ({ page, url, browser }) => {
      await open(page, `${url}?exercise=${CLAIM}`);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await page.locator(".timeline-scroll").focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowUp");
      const before = await shown(page);
      assert.match(before.verdict, /^Verdict: failed/);
      const link = await shareLink(page);
      const linked = await openedFresh(browser, link, (other) => sameStep(other, before.step));
      assert.deepEqual(linked, before);
      await page.reload();
      await sameStep(page, before.step);
      assert.deepEqual(await shown(page), before);
    },
  ],
  [
    "a half-finished drive comes back as the same drive, with no verdict yet",
    async ({ page, url, browser }) => {
      await open(page, `${url}?exercise=${CLAIM}`);
      await page.locator('.scenario[data-scenario="one winner"] .drive-button').click();
      await page.locator('.drive-move[data-process="a"]').click();
      await waitForText(page.locator("#drive-schedule"), /^a$/);
      await page.locator('.drive-move[data-process="b"]:not([disabled])').click();
      await waitForText(page.locator("#drive-schedule"), /^a b$/);
      await page.locator('.drive-move:not([disabled])').first().waitFor();
      const before = await shown(page);
      assert.match(before.verdict, /^No verdict yet/);
      const driven = async (other) => {
        await waitForText(other.locator("#drive-schedule"), /^a b$/);
        await other.locator('.drive-move:not([disabled])').first().waitFor();
        await sameStep(other, before.step);
      };
      assert.deepEqual(await openedFresh(browser, await shareLink(page), driven), before);
      await page.reload();
      await driven(page);
      assert.deepEqual(await shown(page), before);
      // Still a drive: the next move continues it.
      await page.locator('.drive-move[data-process="a"]:not([disabled])').click();
      await waitForText(page.locator("#drive-schedule"), /^a b a$/);
    },
  ],
  [
    "a replay that ended in an error comes back as the same error",
    async ({ page, url, browser }) => {
      await open(page, `${url}?exercise=${CLAIM}`);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await page.locator("#replay-schedule").fill("a a a a b");
      await page.locator("#replay-run").click();
      await waitForText(page.locator(".timeline-verdict"), /^Verdict: error — /);
      const before = await shown(page);
      const replayed = async (other) => {
        await waitForText(other.locator(".timeline-verdict"), /^Verdict: error — /);
        await sameStep(other, before.step);
      };
      const link = await shareLink(page);
      assert.deepEqual(await openedFresh(browser, link, replayed), before);
      await page.reload();
      await replayed(page);
      assert.deepEqual(await shown(page), before);
      assert.equal(await page.locator("#replay-schedule").inputValue(), "a a a a b", "the schedule as asked for");
    },
  ],
  [
    "the hints shown and the editor's undo history survive a reload",
    async ({ page, url }) => {
      await open(page, `${url}?exercise=${CLAIM}`);
      await page.locator("#show-hint").click();
      await page.locator("#show-hint").click();
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+End");
      await page.keyboard.press("Enter");
      await page.keyboard.type("-- kept across the reload");
      await page.keyboard.press("Escape");
      await waitForText(page.locator(".scenario-summary"), /checking your latest edit|scenarios pass$/);
      // The undo history is saved a moment after the last change.
      await page.waitForTimeout(800);
      await page.reload();
      await waitForText(page.locator(EDITOR), /-- kept across the reload/);
      assert.equal(await page.locator(".hint").count(), 2);
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+Z");
      await waitForText(page.locator(EDITOR), /^(?![\s\S]*kept across the reload)/);
    },
  ],
  [
    "the theme chosen is remembered, and the editor follows it",
    async ({ page, url }) => {
      await open(page, `${url}?exercise=${CLAIM}`);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? null), null, "the system's by default");
      await page.locator("#theme").selectOption("dark");
      await page.reload();
      await open(page, `${url}?exercise=${CLAIM}`);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
      assert.equal(await page.locator("#theme").inputValue(), "dark");
      // The page's and the editor's own dark colours (--paper, --panel).
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(20, 24, 28)");
      assert.equal(await page.locator(".cm-editor").first().evaluate((e) => getComputedStyle(e).backgroundColor), "rgb(27, 32, 38)");
      // Only the learner's choice is written: not a prerendered page's
      // system theme before it hydrates (a reload then lost the choice),
      // nor an embedding page's ?theme=.
      await page.evaluate(() => {
        sessionStorage.setItem("theme-writes", "[]");
      });
      await page.addInitScript(() => {
        for (const name of ["setItem", "removeItem"]) {
          const write = Storage.prototype[name];
          Storage.prototype[name] = function (key, ...rest) {
            if (this === window.localStorage && key === "fencelab:theme") {
              const writes = JSON.parse(sessionStorage.getItem("theme-writes") ?? "[]");
              sessionStorage.setItem("theme-writes", JSON.stringify([...writes, [name, ...rest]]));
            }
            return write.call(this, key, ...rest);
          };
        }
      });
      await open(page, `${url}?exercise=${CLAIM}`);
      await open(page, `${url}?embed=1&exercise=${CLAIM}&theme=light`);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
      assert.deepEqual(await page.evaluate(() => JSON.parse(sessionStorage.getItem("theme-writes"))), []);
      await open(page, `${url}?exercise=${CLAIM}`);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark", "still the learner's");
      await page.locator("#theme").selectOption("system");
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? null), null);
      assert.deepEqual(await page.evaluate(() => JSON.parse(sessionStorage.getItem("theme-writes"))), [["removeItem"]]);
    },
  ],
  [
    "exercise 9 starts from the working version when asked, remembers it, and removing the incarnation predicate names the stale incarnation",
    async ({ page, url }) => {
      const editor = '.editor[data-procedure="finish_session"] .cm-content';
      await open(page, `${url}?exercise=session-incarnations`);
      assert.match(await page.locator(".working-version").innerText(), /Start from a finish_session that works/);
      await page.locator("#start-from").click();
      await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/);
      assert.match(await page.locator(editor).innerText(), /AND c\.incarnation = :incarnation/);
      // The working version as given is not the learner's work.
      await waitForText(page.locator(".exercise-link.current .progress"), /^not solved yet/);
      await page.reload();
      await open(page, `${url}?exercise=session-incarnations`);
      assert.equal(await page.locator("#start-from").getAttribute("aria-pressed"), "true", "the choice is remembered");
      // Remove the incarnation predicate, as the mission says.
      await page.locator(editor).click();
      await page.keyboard.press("Control+F");
      await page.keyboard.type("AND c.incarnation = :incarnation");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Escape");
      await page.keyboard.press("Backspace");
      await waitForText(page.locator('.scenario[data-scenario="host-a comes back"] .verdict'), /✗ failed/);
      await page.locator('.scenario[data-scenario="host-a comes back"] .scenario-select').click();
      await waitForText(page.locator(".failing-note"), /under incarnation 1, but the current incarnation is 3/);
      // Reset goes back to the working version.
      await page.locator("#reset").click();
      await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/);
      assert.match(await page.locator(editor).innerText(), /AND c\.incarnation = :incarnation/);
    },
  ],
]);
