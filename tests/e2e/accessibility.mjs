// axe-core (through @axe-core/playwright) on the playground's main views:
// no serious or critical violations.
import assert from "node:assert/strict";
import { AxeBuilder } from "@axe-core/playwright";
import { REPAIRED, runTests, typeClaim } from "./harness.mjs";

async function ready(page, url) {
  await page.goto(url);
  await page.locator("#scenario-summary").filter({ hasText: /^\d+ of \d+ scenarios pass$/ }).waitFor({ timeout: 30_000 });
}

async function assertNoSeriousViolations(page, view) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = serious
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`)
    .join("\n  ");
  assert.equal(serious.length, 0, `${view}: ${serious.length} serious or critical violations:\n  ${report}`);
}

await runTests("accessibility", [
  [
    "the exercise with a failing scenario's timeline selected",
    async ({ page, url }) => {
      await ready(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await page.locator(".timeline").waitFor();
      await page.locator("#show-hint").click();
      await assertNoSeriousViolations(page, "exercise and timeline");
    },
  ],
  [
    "driving a scenario by hand, with a share link shown",
    async ({ page, url }) => {
      await ready(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .drive-button').click();
      await page.locator(".drive-move").first().waitFor();
      await page.locator("#share").click();
      await page.locator("#share-url").waitFor();
      await assertNoSeriousViolations(page, "driving");
    },
  ],
  [
    "the solved claim's line marks and a counterexample, in light and in dark",
    async ({ page, url }) => {
      await ready(page, url);
      await typeClaim(page, REPAIRED);
      await page.locator(".line-marks .mark-button").first().waitFor({ timeout: 90_000 });
      await page.locator(".line-marks .mark-button").first().click();
      await page.locator(".timeline.counterexample .lanes").waitFor();
      await assertNoSeriousViolations(page, "line marks and counterexample, light");
      await page.emulateMedia({ colorScheme: "dark" });
      await assertNoSeriousViolations(page, "line marks and counterexample, dark");
    },
  ],
  [
    "the embedded exercise at 390 px wide",
    async ({ page, url }) => {
      await page.setViewportSize({ width: 390, height: 844 });
      await ready(page, `${url}?embed=1&exercise=claim-compare-and-set`);
      await assertNoSeriousViolations(page, "embed at 390 px");
    },
  ],
]);
