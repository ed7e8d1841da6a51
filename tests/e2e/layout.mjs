// The answer where the learner looks, checked by element geometry at a
// laptop's 1280x800 and a phone's 390x844: after choosing a failing
// scenario of every bundled exercise, the broken step (and the note on
// where it broke) is inside the viewport, clipped by no scrolling ancestor
// and covered by nothing, and the timeline has the keyboard focus; "Drive
// it yourself" brings the drive panel into view; on the laptop the editor,
// the verdicts and the counterexample are in view together, and the tables
// after the step beside it; on the phone the verdicts sit under the editor.
import assert from "node:assert/strict";
import { CLAIM, VERDICT_COUNT, assertInView, open, placement, runTests, settled, waitForText } from "./harness.mjs";

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
// A scenario's verdicts may take a while on a loaded machine.
const VERDICTS_TIMEOUT_MS = 90_000;

async function exerciseIds(page, url) {
  await open(page, url);
  return page.locator(".exercise-link").evaluateAll((links) => links.map((l) => l.dataset.exercise));
}

/** Opens `id` and returns the name of a failing scenario: one of its own, or of its first broken variant. */
async function failingScenario(page, url, id) {
  await page.goto(`${url}?exercise=${id}`);
  await waitForText(page.locator("#scenario-summary"), VERDICT_COUNT, VERDICTS_TIMEOUT_MS);
  const failing = page.locator('.scenario[data-verdict="failed"]');
  if ((await failing.count()) === 0) {
    await page.locator(".variant").first().click();
    await failing.first().waitFor({ timeout: VERDICTS_TIMEOUT_MS });
  }
  return failing.first().getAttribute("data-scenario");
}

/** Chooses `scenario` as a learner does, and waits for its timeline to come into view. */
async function choose(page, scenario) {
  await page.locator(`.scenario[data-scenario="${scenario}"] .scenario-select`).click();
  await waitForText(page.locator("#timeline-title"), new RegExp(`“${scenario.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}”`));
  await settled(page);
}

/** The broken step after choosing a failing scenario of every bundled exercise, at `viewport`. */
async function everyExerciseShowsWhereItBroke(page, url, viewport) {
  await page.setViewportSize(viewport);
  const ids = await exerciseIds(page, url);
  assert.ok(ids.length >= 13, `${ids.length} exercises listed`);
  const measured = [];
  for (const id of ids) {
    const scenario = await failingScenario(page, url, id);
    await choose(page, scenario);
    const what = `${id}, “${scenario}”, at ${viewport.width}x${viewport.height}`;
    const step = page.locator(".lanes tr.event.selected");
    assert.equal(await step.count(), 1, `${what}: one step selected`);
    const broke = await step.evaluate((row) => row.classList.contains("failing"));
    assert.ok(broke, `${what}: the step selected is where it broke`);
    const box = await placement(step);
    assertInView(box, `${what}: the broken step`);
    const note = await placement(page.locator(".lanes .failing-note"));
    assertInView(note, `${what}: the note on where it broke`);
    // The timeline fits its column: nothing to scroll sideways.
    const overflow = await page.locator(".timeline-scroll").evaluate((s) => s.scrollWidth - s.clientWidth);
    assert.ok(overflow <= 1, `${what}: the timeline is ${overflow} px wider than its box`);
    assert.ok(
      await page.evaluate(() => document.activeElement?.classList.contains("timeline-scroll")),
      `${what}: the timeline has the focus`,
    );
    const tables = await placement(page.locator("#tables-title"));
    if (viewport === LAPTOP) assertInView(tables, `${what}: the tables after the step, beside it`);
    measured.push(`${id}: step ${box.top}-${box.bottom}, note ${note.top}-${note.bottom}, tables at ${tables.top}`);
  }
  console.log(`  at ${viewport.width}x${viewport.height}:\n    ${measured.join("\n    ")}`);
}

async function drivePanelComesIntoView(page, url, viewport) {
  await page.setViewportSize(viewport);
  await open(page, `${url}?exercise=${CLAIM}`);
  await page.locator('.scenario[data-scenario="one winner"] .drive-button').click();
  await page.locator("#drive").waitFor();
  await settled(page);
  const box = await placement(page.locator("#drive-title"));
  assertInView(box, `the drive panel's heading at ${viewport.width}x${viewport.height}`);
  assert.equal(await page.evaluate(() => document.activeElement?.id), "drive", "the drive panel has the focus");
  // Its first moves are in view too, once the worker offers them.
  await page.locator(".drive-move").first().waitFor();
  assertInView(await placement(page.locator(".drive-move").first()), "the first move");
  console.log(`  drive panel at ${viewport.width}x${viewport.height}: heading ${box.top}-${box.bottom}`);
}

await runTests("layout", [
  [
    "at 1280x800, choosing a failing scenario of every exercise shows where it broke, with the tables beside it",
    async ({ page, url }) => everyExerciseShowsWhereItBroke(page, url, LAPTOP),
  ],
  [
    "at 390x844, choosing a failing scenario of every exercise shows where it broke",
    async ({ page, url }) => everyExerciseShowsWhereItBroke(page, url, PHONE),
  ],
  [
    "Drive it yourself brings the drive panel into view with the focus, at 1280x800",
    async ({ page, url }) => drivePanelComesIntoView(page, url, LAPTOP),
  ],
  [
    "Drive it yourself brings the drive panel into view with the focus, at 390x844",
    async ({ page, url }) => drivePanelComesIntoView(page, url, PHONE),
  ],
  [
    "at 1280x800 the editor, the verdicts and the counterexample are in view together",
    async ({ page, url }) => {
      await open(page, `${url}?exercise=${CLAIM}`);
      await choose(page, "one winner");
      // The learner reads the story, then scrolls to the editor: the
      // results stay where they are.
      await page.locator(".procedure").first().evaluate((e) => window.scrollBy(0, e.getBoundingClientRect().top - 8));
      await settled(page);
      const editor = await placement(page.locator(".procedure .editor").first());
      assertInView(editor, "the editor");
      assertInView(await placement(page.locator("#scenario-summary")), "the verdicts' summary");
      assertInView(await placement(page.locator('.scenario[data-scenario="one winner"]')), "the failing scenario's verdict");
      assertInView(await placement(page.locator(".lanes tr.event.selected")), "the broken step");
      console.log(`  editor ${editor.top}-${editor.bottom}, verdicts and step in view`);
    },
  ],
  [
    "at 390x844 the verdicts are directly under the procedure being edited",
    async ({ page, url }) => {
      await page.setViewportSize(PHONE);
      for (const id of [CLAIM, "session-incarnations"]) {
        await open(page, `${url}?exercise=${id}`);
        const gap = await page.evaluate(() => {
          // Several procedures are tabs: the one shown is the one edited.
          const shown = [...document.querySelectorAll(".procedure")].filter((p) => p.offsetParent !== null);
          const last = shown[shown.length - 1];
          const scenarios = document.querySelector(".scenarios");
          return {
            next: (last.closest(".procedure-tabs") ?? last).nextElementSibling === scenarios,
            gap: Math.round(scenarios.getBoundingClientRect().top - last.getBoundingClientRect().bottom),
          };
        });
        assert.ok(gap.next, `${id}: the verdicts follow the procedures`);
        assert.ok(gap.gap < 40, `${id}: ${gap.gap} px between the editor and the verdicts`);
      }
    },
  ],
]);
