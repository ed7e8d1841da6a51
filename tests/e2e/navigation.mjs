// Moving between exercises, and progress that stays (issue 52, findings 4,
// 5 and 6), at a laptop's 1280x800 and a phone's 390x844, as a learner
// meets them:
// - a solve stays solved when the learner looks at a broken variant (and
//   after a reload), and "Restore your text" brings their text back in one
//   click;
// - a new exercise, after "Next exercise" or a click in the exercise list, opens
//   at its top with the keyboard focus on its title;
// - each exercise is a history entry: Back and Forward move between them,
//   each with its own work, and Back from the first one leaves the site.
import assert from "node:assert/strict";
import { CLAIM, EDITOR, REPAIRED, assertInView, open, placement, runTests, typeClaim, verdictsCurrent, waitFor, waitForText } from "./harness.mjs";

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SECOND = { id: "complete-under-the-token", title: "Completing under the token, not the name" };
const SEVENTH = { id: "actor-leases", title: "Actor leases" };
const FIRST_TITLE = "The claim that reads, then writes";
/** A page of another site, where the learner was before fencelab. */
const ELSEWHERE = "data:text/html,<title>elsewhere</title><p>another site</p>";

/** The claim exercise, repaired by typing: its own text passes every scenario. */
async function solveClaim(page) {
  await typeClaim(page, REPAIRED);
  await verdictsCurrent(page);
  await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/);
  await progressSays(page, /^✓ solved/);
}

/** Waits until the open exercise's progress in the list (folded away on a phone) matches `pattern`. */
async function progressSays(page, pattern) {
  const progress = page.locator(".exercise-link.current .progress");
  await waitFor(`the progress to say ${pattern}`, async () => pattern.test(await progress.textContent()), 30_000).catch(async (error) => {
    throw new Error(`${error.message}; it says ${JSON.stringify(await progress.textContent())}`);
  });
}

/** The exercise list's own count: "Exercises · N of M solved". */
async function solvedCount(page) {
  const text = await page.locator(".exercise-menu > summary").innerText();
  return Number(/ · (\d+) of \d+ solved$/.exec(text)?.[1]);
}

/**
 * The address names exercise `id` and the page shows its title; unless
 * `focus` is false, the title has the focus and is in view, at the
 * exercise's top.
 */
async function openedAtTitle(page, { id, title }, how, { focus = true } = {}) {
  await waitFor(`${how}: the address to name ${id}`, () => new URL(page.url()).searchParams.get("exercise") === id, 10_000).catch((error) => {
    throw new Error(`${error.message}; it is ${page.url()}`);
  });
  const heading = page.locator("h1#exercise-title");
  await waitForText(heading, new RegExp(`^${title}$`), 10_000);
  if (!focus) return;
  const focused = await waitFor(`${how}: the focus on the title`, () =>
    page.evaluate(() => (document.activeElement?.id === "exercise-title" ? "title" : null)), 5_000,
  ).catch(async () => page.evaluate(() => `${document.activeElement?.tagName.toLowerCase()}#${document.activeElement?.id}`));
  assert.equal(focused, "title", `${how}: the focus is on the new exercise's title, not on ${focused}`);
  assertInView(await placement(heading), `${how}: the title`);
  // The exercise's top: nothing of it is scrolled away above the title.
  const top = await page.locator(".narrative").evaluate((n) => n.getBoundingClientRect().top);
  assert.ok(top >= 0, `${how}: the exercise opens at its top (its story starts at ${Math.round(top)} px)`);
}

/** Scrolls the page to its bottom, where a learner is after reading an exercise. */
async function scrollToBottom(page) {
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
}

/** Clicks exercise `id` in the exercise list, unfolding the list first where it is folded (a phone). */
async function openFromList(page, id) {
  const menu = page.locator(".exercise-menu");
  if (!(await menu.evaluate((d) => d.open))) await menu.locator("> summary").click();
  await page.locator(`.exercise-link[data-exercise="${id}"]`).click();
}

const tests = [];
for (const [width, viewport] of [["1280x800", LAPTOP], ["390x844", PHONE]]) {
  tests.push([`${width}: a solve stays when a broken variant is looked at, and "Restore your text" brings the text back`, async ({ page, url }) => {
    await page.setViewportSize(viewport);
    await open(page, url);
    await solveClaim(page);
    const solved = await solvedCount(page);
    assert.ok(solved >= 1, `the list counts the solve: ${solved}`);
    await page.locator('.variant[data-variant="read, then write"]').click();
    await waitForText(page.locator("#variant-explanation"), /decides in code/);
    await verdictsCurrent(page);
    const failing = await waitForText(page.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/);
    assert.doesNotMatch(failing, /^(\d+) of \1 /, "the variant fails a scenario");
    const progress = await page.locator(".exercise-link.current .progress").textContent();
    assert.match(progress, /^✓ solved/, `looking at a variant keeps the solve; the list says "${progress}"`);
    assert.equal(await solvedCount(page), solved, "the list's count stays");
    // The solve is kept, not only shown: a reload still counts it.
    await page.reload();
    await open(page, url);
    await progressSays(page, /^✓ solved/);
    assert.equal(await solvedCount(page), solved, "after a reload the list's count stays");
    // One visible click brings the learner's text back: no Ctrl+Z to know.
    const restore = page.getByRole("button", { name: "Restore your text" });
    await restore.scrollIntoViewIfNeeded();
    assertInView(await placement(restore), "Restore your text");
    await restore.click();
    await verdictsCurrent(page);
    await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/);
    assert.match(await page.locator(EDITOR).innerText(), /BEGIN IMMEDIATE/);
    assert.equal(await restore.count(), 0, "once restored, nothing is set aside");
    await waitForText(page.locator("#solved-title"), /^Solved/);
  }]);

  tests.push([`${width}: a new exercise opens at its title, after "Next exercise" and after a click in the exercise list`, async ({ page, url }) => {
    await page.setViewportSize(viewport);
    await open(page, url);
    await solveClaim(page);
    await scrollToBottom(page);
    await page.locator("#next-exercise").click();
    await openedAtTitle(page, SECOND, '"Next exercise"');
    await scrollToBottom(page);
    await openFromList(page, SEVENTH.id);
    await openedAtTitle(page, SEVENTH, "the exercise list");
  }]);

  tests.push([`${width}: Back and Forward move between exercises, and Back from the first leaves the site`, async ({ page, url }) => {
    await page.setViewportSize(viewport);
    await page.goto(ELSEWHERE);
    await open(page, url);
    await openFromList(page, SECOND.id);
    // Where the focus goes is the test above's: here, where Back goes.
    await openedAtTitle(page, SECOND, "the list", { focus: false });
    await openFromList(page, SEVENTH.id);
    await openedAtTitle(page, SEVENTH, "the list", { focus: false });
    await page.goBack();
    await openedAtTitle(page, SECOND, "Back");
    await page.goBack();
    await openedAtTitle(page, { id: CLAIM, title: FIRST_TITLE }, "Back again");
    await page.goForward();
    await openedAtTitle(page, SECOND, "Forward");
    await page.goBack();
    await openedAtTitle(page, { id: CLAIM, title: FIRST_TITLE }, "Back");
    await page.goBack();
    await waitFor("Back from the first exercise to leave the site", () => page.url().startsWith("data:"), 10_000);
    assert.equal(await page.title(), "elsewhere");
  }]);
}

await runTests("navigation", tests);
