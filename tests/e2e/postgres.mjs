// "On PostgreSQL" (issue 53, item 4), as a learner sees it: a copy of the
// built site gets an exercise with a PostgreSQL dialect (tests/e2e/
// fixtures/claim-on-postgres.toml, exercise 1 with a [postgres] table and a
// scenario whose tokens must be dense, which SQLite keeps and PostgreSQL's
// identity burns on a rollback), indexed by `fencelab index`. Recorded by
// `fencelab record --postgres` into the copy's postgres/ folder (the server
// FENCELAB_POSTGRES names, as `cargo xtask test` gives every stage), the
// exercise shows the recorded verdicts beside its live SQLite ones, marks
// the scenario whose verdict differs, opens its timeline and names the
// command that checks the learner's text on a server; on screen and
// unclipped in light and dark, at 1280 and 390 px. Without recordings, the
// panel says the site was built without a server.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ARTIFACTS, DIST, ROOT, assertInView, fencelabCommand, placement, runTests, serveDir, settled, waitForText } from "./harness.mjs";

const ID = "claim-on-postgres";
const FIXTURE = join(ROOT, "tests/e2e/fixtures", `${ID}.toml`);
const SERVER = process.env.FENCELAB_POSTGRES ?? "";
// The site's own exercise arrives after its index and its file.
const TIMEOUT_MS = 90_000;

const exists = (path) => stat(path).then(() => true, () => false);

/** `fencelab ARGS...`, which must succeed. */
function fencelab(...args) {
  const run = spawnSync(...fencelabCommand(...args), { cwd: ROOT, encoding: "utf8" });
  assert.equal(run.status, 0, `fencelab ${args.join(" ")}: ${run.stdout}${run.stderr}`);
  return run.stdout;
}

/** The built site copied, with the fixture as its own exercise; recorded when `record`. */
async function siteWith(record) {
  assert.ok(await exists(join(DIST, "index.html")), `no built site in ${DIST} (run trunk build first)`);
  const site = await mkdtemp(join(tmpdir(), "fencelab-postgres-"));
  await cp(DIST, site, { recursive: true });
  const exercises = join(site, "exercises");
  await rm(exercises, { recursive: true, force: true });
  await mkdir(exercises);
  await writeFile(join(exercises, `${ID}.toml`), await readFile(FIXTURE, "utf8"));
  fencelab("index", exercises);
  const recorded = join(site, "postgres");
  await rm(recorded, { recursive: true, force: true });
  if (record) {
    const said = fencelab("record", "--postgres", SERVER, "--out", recorded, FIXTURE);
    assert.match(said, /1 scenario verdicts differ from SQLite's/, said);
  }
  return site;
}

/** The panel, once the exercise and what the site recorded have arrived. */
async function panel(page, url, pattern) {
  await page.goto(`${url}?exercise=${ID}`);
  const shown = page.locator("#postgres-panel");
  await waitForText(shown, pattern, TIMEOUT_MS);
  return shown;
}

/** `locator` scrolled to and wholly on screen, unclipped and uncovered. */
async function onScreen(page, locator, what) {
  await locator.scrollIntoViewIfNeeded();
  await settled(page);
  assertInView(await placement(locator), what);
}

const VIEWS = ["light", "dark"].flatMap((colorScheme) =>
  [{ width: 1280, height: 800 }, { width: 390, height: 844 }].map((viewport) => ({ colorScheme, viewport })),
);

const recordedTests = [
  [
    "the recorded verdicts are on screen beside the live ones, with the difference marked, in both themes at both widths",
    async ({ browser, url }) => {
      for (const { colorScheme, viewport } of VIEWS) {
        const what = `${colorScheme} at ${viewport.width} px`;
        const context = await browser.newContext({ viewport, colorScheme });
        const page = await context.newPage();
        try {
          const shown = await panel(page, url, /Recorded on PostgreSQL \d+/);
          await onScreen(page, page.locator("#postgres-title"), `the panel's title, ${what}`);
          const runs = shown.locator(".postgres-run > strong");
          assert.deepEqual(await runs.allInnerTexts(), [
            "The reference",
            "The starting text",
            "Broken variant read, then write",
            "Broken variant read again right before writing",
          ]);
          const differing = shown.locator(".postgres-verdict.differs");
          assert.equal(await differing.count(), 1, what);
          assert.match(await differing.innerText(), /^tokens without gaps: failed \(differs: SQLite says passed\)/);
          await onScreen(page, differing, `the differing verdict, ${what}`);
          await onScreen(page, page.locator("#postgres-command"), `the command, ${what}`);
          // The live SQLite verdicts are on the page too.
          assert.ok(await page.locator("#scenario-summary").count(), "the live verdicts");
        } finally {
          const shot = join(ARTIFACTS, `postgres-panel-${colorScheme}-${viewport.width}.png`);
          await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
          await context.close();
        }
      }
    },
  ],
  [
    "a differing scenario's timeline opens, and the command names the learner's files",
    async ({ page, url }) => {
      const shown = await panel(page, url, /Recorded on PostgreSQL/);
      await shown.locator(".postgres-verdict.differs .postgres-show").click();
      const timeline = page.locator("#postgres-timeline");
      await waitForText(timeline, /Timeline of “tokens without gaps”/, TIMEOUT_MS);
      assert.match(await timeline.locator(".timeline-verdict").innerText(), /^Verdict: failed/);
      await onScreen(page, page.locator("#postgres-timeline-title"), "the timeline's title");
      // Its ids are its own: the live timeline's stay unique.
      assert.equal(await page.locator("#postgres-timeline #timeline-title, #postgres-timeline #shown-schedule").count(), 0);
      assert.ok((await page.locator("#timeline-title").count()) <= 1, "one live timeline title at most");
      assert.equal(
        await page.locator("#postgres-command").innerText(),
        `fencelab run ${ID} --postgres --set claim=claim.sql`,
      );
      const download = page.waitForEvent("download");
      await page.locator("#postgres-save").click();
      const saved = await download;
      assert.equal(saved.suggestedFilename(), "claim.sql");
      const text = await readFile(await saved.path(), "utf8");
      assert.match(text, /BEGIN;/, "the learner's current text, the starting one here");
    },
  ],
];

const noneTests = [
  [
    "built without a server, the panel says so, on screen in both themes at both widths",
    async ({ browser, url }) => {
      for (const { colorScheme, viewport } of VIEWS) {
        const context = await browser.newContext({ viewport, colorScheme });
        const page = await context.newPage();
        try {
          await panel(page, url, /Recorded verdicts: none, this site was built without a PostgreSQL server\./);
          await onScreen(page, page.locator("#postgres-none"), `the sentence, ${colorScheme} at ${viewport.width} px`);
        } finally {
          await context.close();
        }
      }
    },
  ],
];

const bare = await siteWith(false);
try {
  await runTests("postgres-none", noneTests, { serve: () => serveDir(bare) });
} finally {
  await rm(bare, { recursive: true, force: true });
}
if (SERVER.trim() === "") {
  console.log("postgres: the recorded verdicts are not tested: FENCELAB_POSTGRES names no server");
} else {
  const recorded = await siteWith(true);
  try {
    await runTests("postgres", recordedTests, { serve: () => serveDir(recorded) });
  } finally {
    await rm(recorded, { recursive: true, force: true });
  }
}
