// axe-core (through @axe-core/playwright) on the playground's main views,
// in the light and the dark theme, at a laptop's 1280x800 and a phone's
// 390 px: no serious or critical violations.
import { REPAIRED, assertNoSeriousViolations, runTests, typeClaim } from "./harness.mjs";

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function ready(page, url) {
  await page.goto(url);
  await page.locator("#scenario-summary").filter({ hasText: /^\d+ of \d+ scenarios pass$/ }).waitFor({ timeout: 30_000 });
}

/** The views every theme and width is checked on. */
const VIEWS = [
  [
    "the exercise with a failing scenario's timeline selected and a hint shown",
    async (page, url) => {
      await ready(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await page.locator(".timeline").waitFor();
      await page.locator("#show-hint").click();
      await page.locator(".vocabulary > summary").click();
    },
  ],
  [
    "driving a scenario by hand, with a share link shown",
    async (page, url) => {
      await ready(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .drive-button').click();
      await page.locator(".drive-move").first().waitFor();
      await page.locator("#share").click();
      await page.locator("#share-url").waitFor();
    },
  ],
  [
    "the session exercise's long timeline, folded, beside its offer of the working version",
    async (page, url) => {
      await ready(page, `${url}?exercise=session-incarnations`);
      await page.locator('.scenario[data-scenario="host-a comes back"] .scenario-select').click();
      await page.locator(".lanes .fold-open").first().waitFor();
      await page.locator("#start-from").waitFor();
    },
  ],
];

const tests = [];
for (const scheme of ["light", "dark"]) {
  for (const [width, viewport] of [["1280x800", LAPTOP], ["390 px", PHONE]]) {
    for (const [view, reach] of VIEWS) {
      tests.push([
        `${view}, ${scheme}, at ${width}`,
        async ({ page, url }) => {
          await page.setViewportSize(viewport);
          await page.emulateMedia({ colorScheme: scheme });
          await reach(page, url);
          await assertNoSeriousViolations(page, `${view}, ${scheme}, ${width}`);
        },
      ]);
    }
  }
}

await runTests("accessibility", [
  ...tests,
  [
    "the dark theme chosen on the page while the system is light, with the editor's search open",
    async ({ page, url }) => {
      await page.emulateMedia({ colorScheme: "light" });
      await ready(page, url);
      await page.locator("#theme").selectOption("dark");
      await page.locator('.editor[data-procedure="claim"] .cm-content').click();
      await page.keyboard.press("Control+F");
      await page.locator(".cm-search").waitFor();
      await assertNoSeriousViolations(page, "dark chosen, editor search open");
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
      await page.setViewportSize(PHONE);
      await ready(page, `${url}?embed=1&exercise=claim-compare-and-set`);
      await assertNoSeriousViolations(page, "embed at 390 px");
    },
  ],
]);
