// Hostile share links: a link can carry any procedure, and opening it
// starts a check at once. The check must end within the engine's budgets
// with an error a learner can read, a check that outlives the page's
// watchdog must get the worker restarted without losing the text, and in
// both cases the page must go on checking the learner's next edit.
import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import { CLAIM, REPAIRED, runTests, typeClaim, waitForText } from "./harness.mjs";

/** The fragment of a share link that opens the claim exercise with `claim` as its text. */
function linkWith(claim) {
  const json = JSON.stringify({ format: 1, exercise: CLAIM, edits: { claim } });
  return `s1=${deflateRawSync(Buffer.from(json), { level: 9 }).toString("base64url")}`;
}

// Issue 14, reproduction 2: a quadratic LIKE in every row of a recursive query.
const LIKE_IN_EVERY_ROW = [
  "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000)",
  "SELECT count(*) AS n FROM r",
  " WHERE (printf('%.*c', 4000, 'a') || i) LIKE '%' || printf('%.*c', 250, 'a') || 'b%';",
].join("\n");

// Sixteen statements that each stay under a statement's budget, each row
// building a 4 KiB text (one SQLite step, thousands of bytes of work): only
// the check's budget stops them, after a second or more of work in one run,
// which no slice of the exploration can cut short.
const MANY_HEAVY_STATEMENTS =
  "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 50000) SELECT count(*) AS n1 FROM r WHERE length(printf('%.*c', 4000, 'a')) > i;\n".repeat(16);

const summary = (page) => page.locator("#scenario-summary");

await runTests("hostile", [
  [
    "a link carrying a LIKE in every row ends in an error verdict a learner can read, and the next edit is checked",
    async ({ page, url }) => {
      await page.goto(`${url}#${linkWith(LIKE_IN_EVERY_ROW)}`);
      await waitForText(summary(page), /^0 of 3 scenarios pass$/);
      const scenarios = await page.locator(".scenario").allInnerTexts();
      assert.ok(
        scenarios.some((text) => /step budget exceeded/.test(text)),
        `no scenario names the step budget: ${JSON.stringify(scenarios)}`,
      );
      await typeClaim(page, REPAIRED);
      await waitForText(summary(page), /^3 of 3 scenarios pass$/);
    },
  ],
  [
    "a check that outlives the watchdog restarts the worker, says so, keeps the text, and the next edit is checked",
    async ({ page, url }) => {
      // A watchdog of 1 ms (the page's default is 20 s): the engine's
      // budgets and its slices keep every piece of even this check short, so
      // only a watchdog shorter than a piece watches a restart happen.
      // Every worker, the restarted ones too, starts from this build's
      // loader: its name is hashed, and the page's wasm learns it from start-worker.js.
      const workers = [];
      page.on("worker", (worker) => workers.push(new URL(worker.url()).pathname));
      await page.goto(`${url}?answer_ms=1#${linkWith(MANY_HEAVY_STATEMENTS)}`);
      await waitForText(page.locator(".notices"), /stopped and started afresh \(your text is kept\)/);
      for (let i = 0; i < 50 && workers.length < 2; i++) await page.waitForTimeout(100);
      assert.ok(workers.length >= 2, `a worker was started again: ${workers.join(", ")}`);
      for (const path of workers) assert.match(path, /^\/worker_loader-[0-9a-f]{16}\.js$/);
      const editor = page.locator('.editor[data-procedure="claim"] .cm-content');
      assert.match(await editor.innerText(), /WITH RECURSIVE r\(i\)/, "the learner's text is still there");
      // With the page's own watchdog the same text is checked to the end of
      // the check's budget, and the next edit (the repair) is checked.
      await page.goto(`${url}#${linkWith(MANY_HEAVY_STATEMENTS)}`);
      await waitForText(summary(page), /^0 of 3 scenarios pass$/, 60_000);
      await typeClaim(page, REPAIRED);
      await waitForText(summary(page), /^3 of 3 scenarios pass$/);
    },
  ],
]);
