// Nothing moves while the page loads: the SQLite version and the verdicts
// arrive into space kept for them. Counted the way browsers count it for
// Cumulative Layout Shift (PerformanceObserver, `layout-shift` entries not
// caused by input), from the first frame to the first verdicts and the
// editors' extras (web/editor/extras.js, which come later), on a fresh
// load of the page's address (the first exercise), of the first exercise by
// name and of one with more to draw, at both widths.
import assert from "node:assert/strict";
import { editorExtras, runTests, waitForText } from "./harness.mjs";

// Installed before the page's own scripts run.
function recordShifts() {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      window.__shifts.push({
        value: entry.value,
        at_ms: Math.round(entry.startTime),
        moved: (entry.sources ?? []).map((s) => {
          const node = s.node;
          const name = node?.id ? `#${node.id}` : node?.className || node?.nodeName || "?";
          const from = s.previousRect;
          const to = s.currentRect;
          return `${name} (${from.x},${from.y} ${from.width}x${from.height} -> ${to.x},${to.y} ${to.width}x${to.height})`;
        }),
      });
    }
  }).observe({ type: "layout-shift", buffered: true });
}

// The editors' extras held back half a second, so they always come after
// the editors were drawn without them, as on a slow network.
async function holdExtrasBack(page) {
  await page.route(/editor-extras(-[0-9a-f]{16})?\.js$/, async (route) => {
    await new Promise((ok) => setTimeout(ok, 500));
    await route.continue();
  });
}

const WIDTHS = [
  ["wide", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
];
// null: the page's own address, with no exercise named.
const EXERCISES = [null, "claim-compare-and-set", "session-incarnations"];

const tests = [];
for (const [label, size] of WIDTHS) {
  for (const exercise of EXERCISES) {
    tests.push([
      `no layout shift until the first verdicts and the editors' extras of ${exercise ?? "the page's address"} (${label}, ${size.width}x${size.height})`,
      async ({ page, url }) => {
        await page.setViewportSize(size);
        await page.addInitScript(recordShifts);
        await holdExtrasBack(page);
        await page.goto(exercise ? `${url}?exercise=${exercise}` : url);
        await page.locator("#sqlite-version").waitFor({ timeout: 30_000 });
        await waitForText(page.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass/);
        await editorExtras(page);
        // Entries are reported after the frame that made them.
        await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
        const shifts = await page.evaluate(() => window.__shifts);
        const total = shifts.reduce((sum, s) => sum + s.value, 0);
        assert.equal(
          total,
          0,
          `the layout shifted by ${total.toFixed(4)} while loading: ${JSON.stringify(shifts, null, 1)}`,
        );
      },
    ]);
  }
}

// The authoring view's editor gains a gutter with its extras (lint's): its
// place is held from the start, so nothing moves when it comes.
tests.push([
  "no layout shift in the authoring view until its editor has its extras and lint gutter (wide)",
  async ({ page, url }) => {
    await page.addInitScript(recordShifts);
    await holdExtrasBack(page);
    await page.goto(`${url}?author=1`);
    await page.locator("#exercise-editor .cm-gutter-lint").waitFor({ timeout: 30_000 });
    await editorExtras(page);
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    const moved = (await page.evaluate(() => window.__shifts)).filter((s) =>
      s.moved.some((m) => /cm-|exercise-editor/.test(m)),
    );
    assert.deepEqual(moved, [], `the editor moved as it got its extras: ${JSON.stringify(moved, null, 1)}`);
  },
]);

await runTests("layout-shift", tests);
