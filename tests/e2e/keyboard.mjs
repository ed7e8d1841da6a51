// The verdict count stays in view while a learner types on a phone with its
// keyboard up (issue 52, finding 9), emulated as a learner meets it: the
// exercise opened on a 390x844 screen, its editor tapped, then the screen
// cut to 390x450 (the keyboard takes the rest), then typing.
// - While typing, a count of passing scenarios is on the screen, unclipped
//   and not covered: the verdicts' own count, or the line that follows the
//   editor when that count is off the screen; the count changes with an edit.
// - The masthead shrinks while editing, and comes back when the focus leaves
//   the editor.
// - With the count scrolled off the screen (the learner scrolled down to
//   read while the cursor stays in the editor), the line that follows the
//   editor shows it; after the next edit a count is in view and says the
//   edit's verdicts, and the caret is not under it.
// - A laptop's 1280x800 page is laid out as before while editing: the
//   masthead keeps its size, and no following line is shown.
import assert from "node:assert/strict";
import { EDITOR, REPAIRED, assertInView, open, placement, runTests, settled, verdictsCurrent, waitFor } from "./harness.mjs";

const PHONE = { width: 390, height: 844 };
const KEYBOARD_UP = { width: 390, height: 450 };
const LAPTOP = { width: 1280, height: 800 };
/** The most the masthead may take on a phone while the learner edits. */
const MASTHEAD_EDITING_PX_MAX = 60;
const COUNT = /^\d+ of \d+ scenarios pass/;

/**
 * The count of passing scenarios that the screen shows: the verdicts' own
 * (`#scenario-summary`) when it is wholly on the screen, else the line that
 * follows the editor; null when neither is. Its text and placement.
 */
async function countShown(page) {
  for (const selector of ["#scenario-summary", "#following-count"]) {
    const count = page.locator(selector);
    if ((await count.count()) === 0 || !(await count.isVisible())) continue;
    const box = await placement(count);
    if (box.top >= 0 && box.bottom <= box.viewportHeight) {
      // The count's words (the following line starts with a symbol per scenario).
      const text = /\d+ of \d+ scenarios pass/.exec(await count.innerText())?.[0] ?? (await count.innerText());
      return { selector, text, box };
    }
  }
  return null;
}

/** Asserts a count is shown, in view, unclipped and on top; returns it. */
async function assertCountInView(page, what) {
  const shown = await countShown(page);
  const where = await page.evaluate(() => JSON.stringify({
    summary: Math.round(document.querySelector("#scenario-summary")?.getBoundingClientRect().top ?? -1),
    viewport: window.innerHeight,
    scrollY: Math.round(window.scrollY),
  }));
  assert.ok(shown, `${what}: no count of passing scenarios on the screen (${where})`);
  assertInView(shown.box, `${what}: the count (${shown.selector})`);
  assert.match(shown.text, COUNT, `${what}: the count's words`);
  return shown;
}

/** The masthead's height on the screen. */
async function mastheadHeight(page) {
  return page.locator(".masthead").evaluate((m) => Math.round(m.getBoundingClientRect().height));
}

/** Taps the editor's first line, as a learner arriving on a phone does. */
async function tapEditor(page) {
  const line = page.locator(`${EDITOR} .cm-line`).first();
  const box = await line.boundingBox();
  await page.mouse.click(box.x + Math.min(40, box.width / 2), box.y + box.height / 2);
  await settled(page);
}

/**
 * Types `lines` over the editor's whole text (the cursor is in it), closing
 * any completion before each newline; `after(i)` runs once the text is
 * cleared (0) and after each line typed (1, 2, ...).
 */
async function typeOver(page, lines, after = async () => {}) {
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await settled(page);
  await after(0);
  for (const [i, line] of lines.entries()) {
    await page.keyboard.type(line);
    await page.keyboard.press("Escape");
    if (i < lines.length - 1) await page.keyboard.press("Enter");
    await settled(page);
    await after(i + 1);
  }
}

const tests = [];
tests.push(["390x450, the keyboard up: while typing the count is in view and changes with the edits, and the masthead shrinks", async ({ page, url }) => {
  await page.setViewportSize(PHONE);
  await open(page, url);
  await verdictsCurrent(page);
  const before = await mastheadHeight(page);
  await tapEditor(page);
  await page.setViewportSize(KEYBOARD_UP);
  await settled(page);
  // The learner types the repaired claim over the start, line by line.
  const seen = new Set();
  await typeOver(page, REPAIRED, async (i) => {
    seen.add((await assertCountInView(page, i === 0 ? "the text cleared" : `typing line ${i}`)).text);
  });
  await verdictsCurrent(page);
  await settled(page);
  const last = await assertCountInView(page, "the repaired claim typed");
  assert.match(last.text, /^(\d+) of \1 scenarios pass/, `the count follows the edits: it says "${last.text}"`);
  assert.ok(seen.size > 1, `the count changed while typing: ${[...seen].join(" | ")}`);
  const editing = await mastheadHeight(page);
  assert.ok(editing <= MASTHEAD_EDITING_PX_MAX, `the masthead takes ${editing} px while editing (${before} px before)`);
  // The focus leaves the editor: the masthead is whole again.
  await page.evaluate(() => document.activeElement?.blur());
  await settled(page);
  assert.equal(await mastheadHeight(page), before, "the masthead is whole again once the focus leaves the editor");
}]);

tests.push(["390x450, the keyboard up: with the count scrolled off the screen, the line that follows the editor shows it and changes with an edit", async ({ page, url }) => {
  await page.setViewportSize(PHONE);
  await open(page, url);
  await verdictsCurrent(page);
  await tapEditor(page);
  await page.setViewportSize(KEYBOARD_UP);
  await page.keyboard.press("End");
  await settled(page);
  // The learner scrolls down to read the timeline, the cursor left in the editor.
  const summaryBottom = await page.locator("#scenario-summary").evaluate((s) => s.getBoundingClientRect().bottom);
  await page.evaluate((by) => window.scrollBy(0, by), Math.ceil(summaryBottom + 20));
  await settled(page);
  const follower = page.locator("#following-count");
  await waitFor("the following line to be shown", () => follower.isVisible(), 5_000);
  const before = await assertCountInView(page, "the count scrolled away");
  assert.equal(before.selector, "#following-count", "the line that follows the editor shows the count");
  assert.match(before.text, /^0 of \d+ scenarios pass/, before.text);
  // An edit on the cursor's line: the line follows it.
  await typeOver(page, REPAIRED);
  await verdictsCurrent(page);
  await settled(page);
  const after = await assertCountInView(page, "after the edit");
  assert.match(after.text, /^(\d+) of \1 scenarios pass/, `the count changed with the edit: "${after.text}"`);
  // The caret is not under the line.
  const caret = await page.locator(".editor .cm-cursorLayer .cm-cursor").first().boundingBox();
  const line = await placement(page.locator(after.selector));
  assert.ok(caret && (caret.y + caret.height <= line.top || caret.y >= line.bottom), `the caret (${JSON.stringify(caret)}) is not under the count (${JSON.stringify(line)})`);
}]);

tests.push(["1280x800: editing changes nothing in the laptop's layout", async ({ page, url }) => {
  await page.setViewportSize(LAPTOP);
  await open(page, url);
  await verdictsCurrent(page);
  const boxes = () => page.evaluate(() => ["masthead", "exercise-list", "narrative"].map((c) => {
    const r = document.querySelector(`.${c}`).getBoundingClientRect();
    return `${c} ${Math.round(r.width)}x${Math.round(r.height)}`;
  }));
  const before = await boxes();
  await page.locator(EDITOR).click();
  await page.keyboard.press("End");
  await page.keyboard.type(" ");
  await verdictsCurrent(page);
  await settled(page);
  assert.deepEqual(await boxes(), before, "the masthead, the exercise list and the story keep their sizes while editing");
  assert.equal(await page.locator("#following-count").isVisible(), false, "no following line on a laptop, whose screen holds the whole loop");
  assertInView(await placement(page.locator("#scenario-summary")), "the verdict count");
}]);

await runTests("keyboard", tests);
