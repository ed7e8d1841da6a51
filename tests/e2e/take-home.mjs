// "Take this counterexample home", as a skeptic uses it: the button on the
// timeline downloads a Python script, and python3 (the machine's own, with
// its own sqlite3 module, on a real file) runs it. For exercise 1's naive
// claim the script ends on the page's sentence (both workers believe they
// own msg-1) and exits 1; for the repaired claim it exits 0. For every
// bundled exercise, read from the page's own list, the failing scenario's
// script ends on the very sentence the page shows beside "Verdict: failed"
// (exit 1), or, where the starting text breaks nothing, holds as the page
// says (exit 0); a step differing from the page would exit 2.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLAIM, REPAIRED, open, runTests, typeClaim, verdictsCurrent, waitForText } from "./harness.mjs";

/** Clicks the button and returns the downloaded script's name and text. */
async function takeHome(page) {
  const button = page.locator("#take-home");
  await button.waitFor();
  const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
  return { name: download.suggestedFilename(), text: await readFile(await download.path(), "utf8") };
}

/** Runs `script` with python3 in a folder of its own; its exit code and lines. */
async function runPython(script) {
  const folder = await mkdtemp(join(tmpdir(), "fencelab-take-home-"));
  try {
    const file = join(folder, script.name);
    await writeFile(file, script.text);
    const run = spawnSync("python3", [file], { cwd: folder, encoding: "utf8", timeout: 60_000 });
    assert.equal(run.error, undefined, `python3 could not run ${script.name}: ${run.error}`);
    const lines = run.stdout.trimEnd().split("\n");
    return { status: run.status, lines, out: run.stdout, err: run.stderr };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The page's sentence for the shown scenario's broken guarantee. */
async function shownProblem(page) {
  const verdict = await waitForText(page.locator(".timeline-verdict"), /^Verdict: /);
  const [, problem] = verdict.split(" — ");
  return { verdict, problem };
}

/** `text` with every run of white space one space. */
function words(text) {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

/** The bundled exercises, as the page lists them. */
async function listedExercises(page, url) {
  await open(page, url);
  await page.locator(".exercise-link[data-exercise]").first().waitFor({ state: "attached" });
  const ids = await page.locator(".exercise-link[data-exercise]").evaluateAll((links) => links.map((l) => l.dataset.exercise));
  assert.ok(ids.length >= 13, `the page lists the bundled exercises: ${ids.join(", ")}`);
  return ids;
}

const tests = [
  [
    "exercise 1's naive claim: the script shows both workers owning msg-1 and exits 1; the repair's exits 0",
    async ({ page, url }) => {
      await open(page, `${url}?exercise=${CLAIM}`);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      const { verdict, problem } = await shownProblem(page);
      assert.match(verdict, /^Verdict: failed/);
      const naive = await takeHome(page);
      assert.match(naive.name, /\.py$/, "the download is a Python file");
      assert.match(naive.text, /^#!.*python3/m, "the script says how it runs");
      const run = await runPython(naive);
      assert.equal(run.status, 1, `the naive claim's script exits 1:\n${run.out}${run.err}`);
      assert.equal(run.lines.at(-1), problem, "the script ends on the page's sentence");
      assert.match(problem, /worker-a/);
      assert.match(problem, /worker-b/);
      assert.match(problem, /msg-1/);

      await typeClaim(page, REPAIRED);
      await verdictsCurrent(page);
      await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await waitForText(page.locator(".timeline-verdict"), /^Verdict: passed/);
      const repaired = await runPython(await takeHome(page));
      assert.equal(repaired.status, 0, `the repaired claim's script exits 0:\n${repaired.out}${repaired.err}`);
      assert.doesNotMatch(repaired.out, /DIFFERS/, "no step differs from the page's run");
    },
  ],
  [
    "every bundled exercise: the shown scenario's script ends as the page's verdict does, no step differing",
    async ({ page, url }) => {
      const ids = await listedExercises(page, url);
      const failures = [];
      let failing = 0;
      for (const id of ids) {
        await open(page, `${url}?exercise=${id}`);
        const failed = page.locator(".scenario.failed .scenario-select");
        // An exercise whose starting text breaks nothing (one that shows
        // the protection's limits) is taken home from its first scenario.
        const fails = (await failed.count()) > 0;
        failing += fails;
        await (fails ? failed : page.locator(".scenario .scenario-select")).first().click();
        const { verdict, problem } = await shownProblem(page);
        const run = await runPython(await takeHome(page));
        // The sentence may span lines (a query's text); the page lays it out as one.
        const ending = run.out.trimEnd().split("\n\n").at(-1);
        const agrees = fails
          ? run.status === 1 && words(ending) === words(problem)
          : run.status === 0 && /^Verdict: passed/.test(verdict);
        if (!agrees) {
          failures.push(`${id}: page "${verdict}", python3 exited ${run.status}, ending "${ending}"\n${run.out}${run.err}`);
        }
      }
      assert.ok(failing >= ids.length - 2, `${failing} of ${ids.length} exercises start failing`);
      assert.deepEqual(failures, [], `scripts that did not end as the page does:\n${failures.join("\n")}`);
    },
  ],
];

await runTests("take-home", tests);
