// The playground loads in a real browser and its wasm core answers.
import assert from "node:assert/strict";
import { runTests } from "./harness.mjs";

await runTests("smoke", [
  [
    "the page shows the SQLite version reported by the wasm core",
    async ({ page, url }) => {
      await page.goto(url);
      const version = page.locator("#sqlite-version");
      await version.waitFor({ timeout: 30_000 });
      assert.match(await version.innerText(), /^SQLite 3\.\d+\.\d+$/);
    },
  ],
]);
