// Moving between exercises, and progress that stays (issue 52, findings 4,
// 5 and 6), at a laptop's 1280x800 and a phone's 390x844, as a learner
// meets them:
// - a solve stays solved when the learner looks at a broken variant (and
//   after a reload), and "Restore your text" brings their text back in one
//   click;
// - a new exercise, after "Next exercise" or a click in the exercise list, opens
//   at its top with the keyboard focus on its title, or, by the learner's
//   choice in the masthead (kept over a reload), with the cursor in its
//   first editor, still at its top;
// - each exercise is a history entry: Back and Forward move between them,
//   each with its own work, and Back from the first one leaves the site.
import assert from "node:assert/strict";
import { CLAIM, EDITOR, REPAIRED, assertInView, open, placement, runTests, settled, typeClaim, verdictsCurrent, waitFor, waitForText } from "./harness.mjs";

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
 * Where the focus is: "title" (the exercise's title), "editor N" (the
 * cursor in the content of the loop's first editor, procedure N), or what
 * else has it.
 */
async function focusedOn(page) {
  return page.evaluate(() => {
    const active = document.activeElement;
    if (active?.id === "exercise-title") return "title";
    const first = document.querySelector(".loop .editor[data-procedure]");
    const caret = document.getSelection()?.anchorNode;
    if (active?.classList.contains("cm-content") && first?.contains(active) && caret && active.contains(caret)) {
      return `editor ${first.dataset.procedure}`;
    }
    return `${active?.tagName.toLowerCase()}#${active?.id}.${active?.className}`;
  });
}

/** The name of the first editable procedure of the open exercise. */
async function firstProcedure(page) {
  return page.locator(".loop .editor[data-procedure]").first().getAttribute("data-procedure");
}

/**
 * The address names exercise `id` and the page shows its title; unless
 * `focus` is false, the title (or, with `focus` "editor", the cursor in the
 * first editor) has the focus, and the title is in view, at the exercise's
 * top.
 */
async function openedAtTitle(page, { id, title }, how, { focus = "title" } = {}) {
  await waitFor(`${how}: the address to name ${id}`, () => new URL(page.url()).searchParams.get("exercise") === id, 10_000).catch((error) => {
    throw new Error(`${error.message}; it is ${page.url()}`);
  });
  const heading = page.locator("h1#exercise-title");
  await waitForText(heading, new RegExp(`^${title}$`), 10_000);
  if (!focus) return;
  if (focus === "editor") await page.locator(".loop .editor .cm-content").first().waitFor();
  const wanted = focus === "title" ? "title" : `editor ${await firstProcedure(page)}`;
  const focused = await waitFor(`${how}: the focus on the ${focus}`, async () => {
    const now = await focusedOn(page);
    return now === wanted ? now : null;
  }, 5_000).catch(async () => focusedOn(page));
  assert.equal(focused, wanted, `${how}: the focus is on the new exercise's ${focus}, not on ${focused}`);
  assertInView(await placement(heading), `${how}: the title`);
  // The exercise's top: nothing of it is scrolled away above the title.
  const top = await page.locator(".narrative").evaluate((n) => n.getBoundingClientRect().top);
  assert.ok(top >= 0, `${how}: the exercise opens at its top (its story starts at ${Math.round(top)} px)`);
}

/** Scrolls the page to its bottom, where a learner is after reading an exercise. */
async function scrollToBottom(page) {
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
}

/**
 * Notes, from now on, where each press, release and click on the page
 * lands, where the element `selector` is then, and whether it is taken out
 * of the page: what a lost click is told by (`pressesSeen`).
 */
async function watchPresses(page, selector) {
  await page.evaluate((selector) => {
    const seen = (window.__presses = []);
    const first = document.querySelector(selector);
    const note = (what) => seen.push(`${Math.round(performance.now())} ms: ${what}`);
    for (const type of ["pointerdown", "pointerup", "click"]) {
      document.addEventListener(type, (event) => {
        const target = event.target;
        const now = document.querySelector(selector);
        const box = now?.getBoundingClientRect();
        note(`${type} at (${event.clientX}, ${event.clientY}) on ${target.tagName.toLowerCase()}#${target.id}.${target.className}; ` +
          `${selector} ${box ? `at (${Math.round(box.left)}, ${Math.round(box.top)}) ${Math.round(box.width)}x${Math.round(box.height)}` : "absent"}` +
          `${now && now !== first ? ", a new element" : ""}`);
      }, true);
    }
    new MutationObserver((records) => {
      if (first && !first.isConnected && !seen.some((line) => line.endsWith("taken out"))) note(`${selector} taken out`);
    }).observe(document.body, { childList: true, subtree: true });
  }, selector);
}

/** What `watchPresses` noted, a line each. */
async function pressesSeen(page) {
  return (await page.evaluate(() => window.__presses ?? [])).join("\n") || "nothing";
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
    // What a solve brings after its verdicts arrives later and redraws the
    // page around "Next exercise": the recorded PostgreSQL verdicts, fetched
    // when the exercise opens, and the line marks, computed in the worker
    // after the solve (seconds later on a loaded machine). Pressed while
    // they land, the press and its release can meet different layouts,
    // and the click is lost. A learner reads before pressing; the test
    // waits for both.
    await waitFor("the PostgreSQL panel to settle", async () => (await page.getByText("Fetching the recorded PostgreSQL verdicts").count()) === 0, 10_000);
    await page.locator(".line-marks").first().waitFor({ timeout: 90_000 });
    await settled(page);
    await scrollToBottom(page);
    await watchPresses(page, "#next-exercise");
    await page.locator("#next-exercise").click();
    await openedAtTitle(page, SECOND, '"Next exercise"').catch(async (error) => {
      throw new Error(`${error.message}\nwhat the press met:\n${await pressesSeen(page)}`);
    });
    await scrollToBottom(page);
    await openFromList(page, SEVENTH.id);
    await openedAtTitle(page, SEVENTH, "the exercise list");
  }]);

  tests.push([`${width}: by the learner's choice, a new exercise opens with the cursor in its first editor, at its top, and the choice survives a reload`, async ({ page, url }) => {
    await page.setViewportSize(viewport);
    await open(page, url);
    const choice = page.getByLabel("A new exercise focuses");
    assertInView(await placement(choice), "the choice of focus, in the masthead");
    assert.equal(await choice.inputValue(), "title", "the title, until the learner chooses");
    await choice.selectOption({ label: "Its first editor" });
    await page.reload();
    await open(page, url);
    assert.equal(await page.getByLabel("A new exercise focuses").inputValue(), "editor", "the choice survives a reload");
    await solveClaim(page);
    await scrollToBottom(page);
    // By the keyboard: on a phone, the masthead the editing shrank grows
    // back as the press takes the focus from the editor, which can move
    // the button from under a pointer.
    await page.locator("#next-exercise").focus();
    await page.keyboard.press("Enter");
    await openedAtTitle(page, SECOND, '"Next exercise"', { focus: "editor" });
    await scrollToBottom(page);
    await openFromList(page, SEVENTH.id);
    await openedAtTitle(page, SEVENTH, "the exercise list", { focus: "editor" });
    await scrollToBottom(page);
    await page.goBack();
    await openedAtTitle(page, SECOND, "Back", { focus: "editor" });
    await page.goForward();
    await openedAtTitle(page, SEVENTH, "Forward", { focus: "editor" });
    // The cursor placed is not editing yet: a phone's masthead stays whole
    // until the learner types (hooks/editing.rs).
    assert.equal(await page.locator(".app.editing").count(), 0, "the focus placed starts no editing");
    // Changed back, the title takes the focus again.
    await page.getByLabel("A new exercise focuses").selectOption({ label: "Its title" });
    await scrollToBottom(page);
    await page.goBack();
    await openedAtTitle(page, SECOND, "Back, the title chosen again");
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
