// Nothing moves while the page loads: the SQLite version and the verdicts
// arrive into space kept for them. Counted the way browsers count it for
// Cumulative Layout Shift (PerformanceObserver, `layout-shift` entries not
// caused by input), from the first frame to the first verdicts, on a fresh
// load of the page's address (the first exercise), of the first exercise by
// name and of one with more to draw, at both widths.
import assert from "node:assert/strict";
import { runTests, waitForText } from "./harness.mjs";

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
      `no layout shift until the first verdicts of ${exercise ?? "the page's address"} (${label}, ${size.width}x${size.height})`,
      async ({ page, url }) => {
        await page.setViewportSize(size);
        await page.addInitScript(recordShifts);
        await page.goto(exercise ? `${url}?exercise=${exercise}` : url);
        await page.locator("#sqlite-version").waitFor({ timeout: 30_000 });
        await waitForText(page.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass/);
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

await runTests("layout-shift", tests);
