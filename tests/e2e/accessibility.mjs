// axe-core (through @axe-core/playwright) on the playground's main views,
// in the light and the dark theme (each view reached once per width, the
// system's scheme switched between the two checks), at a laptop's 1280x800
// and a phone's 390 px: no serious or critical violations.
import assert from "node:assert/strict";
import { REPAIRED, assertNoSeriousViolations, editorExtras, open, runTests, settled, typeClaim } from "./harness.mjs";

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

// Each view starts with the harness's `open`: the verdicts' line, then the
// app live (a prerendered page shows its verdicts before the app has
// hydrated it, and a click on that HTML does nothing yet).

/** The views every theme and width is checked on. */
const VIEWS = [
  [
    "the exercise with a failing scenario's timeline selected and a hint shown",
    async (page, url) => {
      await open(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await page.locator(".timeline").waitFor();
      await page.locator("#show-hint").click();
      await page.locator(".vocabulary > summary").click();
    },
  ],
  [
    "driving a scenario by hand, with a share link shown",
    async (page, url) => {
      await open(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .drive-button').click();
      await page.locator(".drive-move").first().waitFor();
      await page.locator("#share").click();
      await page.locator("#share-url").waitFor();
    },
  ],
  [
    "the session exercise's long timeline, folded, beside its offer of the working version",
    async (page, url) => {
      await open(page, `${url}?exercise=session-incarnations`);
      await page.locator('.scenario[data-scenario="host-a comes back"] .scenario-select').click();
      await page.locator(".lanes .fold-open").first().waitFor();
      await page.locator("#start-from").waitFor();
    },
  ],
];

// Each view is reached once per width and checked, then the system's scheme
// changes (the page follows it) and the same view is checked again: at the
// laptop's width from light to dark, at the phone's from dark to light, so
// each scheme is also met on load.
const tests = [];
for (const [width, viewport, schemes] of [["1280x800", LAPTOP, ["light", "dark"]], ["390 px", PHONE, ["dark", "light"]]]) {
  for (const [view, reach] of VIEWS) {
    tests.push([
      `${view}, at ${width}, ${schemes.join(" then ")}`,
      async ({ page, url }) => {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: schemes[0] });
        await reach(page, url);
        const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        const first = await background();
        await assertNoSeriousViolations(page, `${view}, ${schemes[0]}, ${width}`);
        await page.emulateMedia({ colorScheme: schemes[1] });
        await settled(page);
        assert.notEqual(await background(), first, `${view}, ${width}: the page followed the system to ${schemes[1]}`);
        await assertNoSeriousViolations(page, `${view}, ${schemes[1]}, ${width}`);
      },
    ]);
  }
}

await runTests("accessibility", [
  ...tests,
  [
    "the dark theme chosen on the page while the system is light, with the editor's search open",
    async ({ page, url }) => {
      await page.emulateMedia({ colorScheme: "light" });
      await open(page, url);
      await page.locator("#theme").selectOption("dark");
      await editorExtras(page);
      await page.locator('.editor[data-procedure="claim"] .cm-content').click();
      await page.keyboard.press("Control+F");
      await page.locator(".cm-search").waitFor();
      await assertNoSeriousViolations(page, "dark chosen, editor search open");
    },
  ],
  [
    "the solved claim's line marks and a counterexample, in light and in dark",
    async ({ page, url }) => {
      await open(page, url);
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
      await page.setViewportSize(PHONE);
      await open(page, `${url}?embed=1&exercise=claim-compare-and-set`);
      await assertNoSeriousViolations(page, "embed at 390 px");
    },
  ],
]);
