// "What if this line were gone?": once the learner's claim passes every
// scenario, the page marks which lines a scenario protects, in the editor
// and as a list under it, and one click shows the counterexample of a line.
// A compare-and-set that also stamps its token is marked for the window a
// later stamp would open (issue 55): the stamp moved to a statement of its
// own is caught, and its counterexample is one click away.
import assert from "node:assert/strict";
import { EDITOR, REPAIRED, open, runTests, typeClaim, waitForText } from "./harness.mjs";

// Finding the marks judges every mutant of the claim in the worker, one per
// event-loop task, after the verdicts are shown.
const MARKS_TIMEOUT_MS = 90_000;
// The line of REPAIRED that holds the compare-and-set's state predicate.
const STATE_LINE = REPAIRED.findIndex((line) => line.includes("AND state = 'NEW'")) + 1;

/** Types the repaired claim and waits for its verdicts, then for its marks. */
async function solve(page, url) {
  await open(page, url);
  await typeClaim(page, REPAIRED);
  await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/);
  await page.locator(".line-marks .mark-button").first().waitFor({ timeout: MARKS_TIMEOUT_MS });
}

/** The element's box, and whether it is the topmost element at its centre. */
async function geometry(locator) {
  await locator.scrollIntoViewIfNeeded();
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const x = box.left + box.width / 2;
    const y = box.top + box.height / 2;
    const top = document.elementFromPoint(x, y);
    const style = getComputedStyle(element);
    return {
      left: box.left,
      right: box.right,
      top: box.top,
      bottom: box.bottom,
      width: box.width,
      height: box.height,
      viewportWidth: window.innerWidth,
      viewportHeight: window.innerHeight,
      onTop: top !== null && (top === element || element.contains(top)),
      visible: style.visibility === "visible" && style.display !== "none" && Number(style.opacity) > 0,
    };
  });
}

function assertShown(box, what) {
  assert.ok(box.visible, `${what} is hidden by its style`);
  assert.ok(box.width > 0 && box.height > 0, `${what} has no size: ${JSON.stringify(box)}`);
  assert.ok(box.left >= 0 && box.right <= box.viewportWidth, `${what} is outside the page sideways: ${JSON.stringify(box)}`);
  assert.ok(box.top >= 0 && box.bottom <= box.viewportHeight, `${what} is not in view: ${JSON.stringify(box)}`);
  assert.ok(box.onTop, `${what} is covered by another element: ${JSON.stringify(box)}`);
}

/** Waits for a counterexample of the state predicate's line, of `scenario`, failing, in the timeline. */
async function counterexampleShown(page, scenario = ".+") {
  await waitForText(page.locator("#timeline-title"), new RegExp(`^Counterexample: “${scenario}” without line ${STATE_LINE} of claim$`));
  await waitForText(page.locator(".timeline-verdict"), /^Verdict: failed — /);
  assert.match(await page.locator(".counterexample-note").innerText(), /This is not your text/);
  assert.match(await page.locator(".failing-note").innerText(), /✗ broke here: /);
}

await runTests("protection", [
  [
    "a solved claim marks its protected lines, and a mark's button shows the counterexample with the focus on it",
    async ({ page, url }) => {
      await solve(page, url);
      // In the editor: at least one protected line, with its sentence as the title.
      const marked = page.locator(`${EDITOR} .cm-line.mark-protected`);
      assert.ok((await marked.count()) >= 1, "a protected line in the editor");
      const state = page.locator(`${EDITOR} .cm-line.mark-protected[data-mark-line="${STATE_LINE}"]`);
      const title = await state.getAttribute("title");
      assert.match(title, /^Without this, “[^”]+”( and “[^”]+”)* fails?\. /);
      assert.match(title, / If you drop `AND state = 'NEW'` from the WHERE, “one winner” fails: .*both believe they hold message msg-1\./);
      assert.ok((await page.locator('.editor[data-procedure="claim"] .mark-symbol.mark-protected').count()) >= 1, "a ✓ in the gutter");

      // Under the verdicts, the list, visible on the page: one button per caught change.
      const list = page.locator('.line-marks[data-procedure="claim"]');
      assert.match(await list.locator("h3").innerText(), /^Why each line is here$/);
      assertShown(await geometry(list.locator("h3")), "the list's heading");
      const button = list.locator(`.mark-button[data-line="${STATE_LINE}"]`, { hasText: "AND state = 'NEW'" });
      assert.equal(await button.count(), 1);
      assert.match(
        await button.innerText(),
        new RegExp(`^✓ Line ${STATE_LINE}: if you drop AND state = 'NEW' from the WHERE, “one winner” fails — show the counterexample$`),
      );
      assert.equal(await button.locator("code").first().innerText(), "AND state = 'NEW'", "quoted SQL reads as code");
      assertShown(await geometry(button), "the state predicate's button");
      // Unprotected lines are said in plain text, never as buttons.
      for (const item of await list.locator(".line-why.unprotected").all()) {
        assert.match(await item.innerText(), /^\? Line \d+: no scenario notices a change here/);
        assert.equal(await item.locator("button").count(), 0);
      }

      // The keyboard: Enter on the button shows the counterexample and moves the focus to it.
      await button.focus();
      await page.keyboard.press("Enter");
      await counterexampleShown(page, "one winner");
      const beliefs = await page.locator(".lanes tr.event.failing .beliefs").innerText();
      assert.match(beliefs, /worker-a believes it holds message msg-1/);
      assert.match(beliefs, /worker-b believes it holds message msg-1/);
      await page.waitForFunction(() => document.activeElement?.classList.contains("timeline-scroll"));
      assert.match(await page.locator("#announcer").innerText(), new RegExp(`^Counterexample: without line ${STATE_LINE} of claim as written`));
      // The editor still holds the learner's own, passing text.
      assert.match(await page.locator(EDITOR).innerText(), /AND state = 'NEW'/);
      assert.match(await page.locator("#scenario-summary").innerText(), /^(\d+) of \1 scenarios pass$/);
    },
  ],
  [
    "a click on a line's mark in the editor shows its counterexample, and an edit clears every mark",
    async ({ page, url }) => {
      await solve(page, url);
      const symbol = page.locator('.editor[data-procedure="claim"] .cm-marks-gutter .mark-symbol.mark-protected');
      const count = await symbol.count();
      // The gutter symbol in the state predicate's row: the one level with its line.
      const line = await page.locator(`${EDITOR} .cm-line[data-mark-line="${STATE_LINE}"]`).boundingBox();
      let clicked = false;
      for (let i = 0; i < count && !clicked; i++) {
        const box = await symbol.nth(i).boundingBox();
        if (box && Math.abs(box.y + box.height / 2 - (line.y + line.height / 2)) < line.height / 2) {
          await symbol.nth(i).click();
          clicked = true;
        }
      }
      assert.ok(clicked, "a ✓ beside the state predicate's line");
      await counterexampleShown(page);

      // Any edit: the marks belong to the text they were found for.
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+End");
      // A word that breaks the last decision, so no new marks follow.
      await page.keyboard.type("x");
      await page.waitForFunction(() => document.querySelectorAll(".cm-line.mark-protected, .cm-line.mark-unprotected, .line-marks").length === 0);
      assert.equal(await page.locator(".mark-symbol").count(), 0);
      assert.doesNotMatch(await page.locator("#timeline-title").innerText().catch(() => ""), /Counterexample/);
    },
  ],
  [
    "the line that stamps the token in the take is marked for the stale process a later stamp would let in",
    async ({ page, url }) => {
      await open(page, `${url}?exercise=leases-and-the-handover`);
      // The learner follows every hint and types the last one's claim.
      while (await page.locator("#show-hint").isVisible()) await page.locator("#show-hint").click();
      const text = await page.locator(".hint pre").last().innerText();
      const lines = text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
      const stamped = lines.findIndex((line) => /fencing_token = :token/.test(line)) + 1;
      assert.ok(stamped > 0, `the last hint's claim stamps the token: ${text}`);
      await typeClaim(page, lines);
      await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/);
      const button = page.locator(`.line-marks .mark-button[data-line="${stamped}"]`, { hasText: "later" });
      await button.first().waitFor({ timeout: MARKS_TIMEOUT_MS });
      assert.match(
        await button.first().innerText(),
        new RegExp(`^✓ Line ${stamped}: if you stamp fencing_token = :token later, by id = :message_id alone, .*“[^”]+” fails — show the counterexample$`),
      );
      await button.first().click();
      await waitForText(page.locator("#timeline-title"), new RegExp(`^Counterexample: “[^”]+” without line ${stamped} of claim$`));
      await waitForText(page.locator(".timeline-verdict"), /^Verdict: failed — /);
    },
  ],
  [
    "at 390 px wide the list of marks fits the page",
    async ({ page, url }) => {
      await page.setViewportSize({ width: 390, height: 844 });
      await solve(page, url);
      const button = page.locator(`.line-marks .mark-button[data-line="${STATE_LINE}"]`, { hasText: "AND state = 'NEW'" });
      assertShown(await geometry(button), "the state predicate's button at 390 px");
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 392, `the page is ${width} px wide`);
    },
  ],
]);
