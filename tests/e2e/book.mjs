// mdbook-fencelab against the real mdBook, acted out as a book's author and
// a reader. The fixture book tests/book/good (two chapters: a bundled
// exercise by id, and an exercise file of the book's own by path) is copied
// to a scratch folder with the built site linked in as its `site-dir`, and
// built by `mdbook build` with the preprocessor on PATH. Chromium opens the
// built chapters: each shows its exercise's frame and verdicts; the reader
// checks and solves the book's own exercise, and the result is in
// localStorage and reached the book's hook. The fixture tests/book/broken,
// whose exercise file has a mistake, must fail `mdbook build`, naming the
// chapter's line and the exercise file's line.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { ARTIFACTS, BUILT, DIST, EDITOR, REPAIRED, ROOT, launchChromium, placement, serveDir, typeClaim, waitFor, waitForText } from "./harness.mjs";

const VERDICTS_TIMEOUT_MS = 90_000;

/** Runs `program` in `cwd`; returns its status, output and seconds taken. */
function run(program, args, cwd, env = process.env) {
  const started = Date.now();
  const done = spawnSync(program, args, { cwd, env, encoding: "utf8" });
  if (done.error) throw new Error(`cannot run ${program}: ${done.error.message} (cargo xtask setup installs mdbook)`);
  return { status: done.status, stdout: done.stdout, stderr: done.stderr, seconds: (Date.now() - started) / 1000 };
}

/** The preprocessor, built as the workspace builds it; the folder holding it. */
function buildPreprocessor() {
  if (BUILT) return BUILT;
  const built = run("cargo", ["build", "--quiet", "--locked", "-p", "fencelab-mdbook"], ROOT);
  assert.equal(built.status, 0, `cargo build -p fencelab-mdbook failed:\n${built.stderr}`);
  return join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "debug");
}

/** A scratch copy of the fixture book `name`, with the built site as its `site`. */
async function fixture(name) {
  const dir = await mkdtemp(join(tmpdir(), `fencelab-book-${name}-`));
  await cp(join(ROOT, "tests/book", name), dir, { recursive: true });
  await symlink(DIST, join(dir, "site"));
  return dir;
}

function mdbookBuild(dir, bin) {
  const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}` };
  const built = run("mdbook", ["build"], dir, env);
  console.log(`  mdbook build of ${dir}: exit ${built.status} in ${built.seconds.toFixed(1)} s`);
  return built;
}

const until = (what, test, timeout = VERDICTS_TIMEOUT_MS) => waitFor(what, test, timeout);

/** Opens a chapter; waits until its exercise's frame shows verdicts. */
async function openChapter(page, url, title) {
  await page.goto(url);
  const frame = page.frameLocator("fencelab-exercise iframe");
  await waitForText(frame.locator("#exercise-title"), new RegExp(title));
  await waitForText(frame.locator("#scenario-summary"), /^\d+ of 3 scenarios pass$/, VERDICTS_TIMEOUT_MS);
  // Every height the frame took, from its first report on: its content's,
  // never the loading line's (which would fold the chapter's frame up and
  // open it out again, moving the text below it twice).
  const heights = await until("the frame's first report of its height",
    () => page.evaluate(() => (window.frameHeights.length ? window.frameHeights : null)), 10_000);
  assert.ok(heights.every((height) => height >= 400), `the frame's heights, in order: ${heights.join(", ")} px`);
  const box = await placement(page.locator("fencelab-exercise iframe"));
  assert.ok(box.bottom - box.top >= 400 && box.right - box.left >= 560, `the frame is big enough to use: ${JSON.stringify(box)}`);
  // The frame is laid out as a course page's frame is (its stylesheet
  // applied from the book's folder): from 560 px wide, the verdicts
  // beside the editor, not below it.
  const editor = await frame.locator(".editor").first().boundingBox();
  const summary = await frame.locator("#scenario-summary").boundingBox();
  assert.ok(summary.x >= editor.x + editor.width - 1 && summary.y < editor.y + editor.height,
    `the verdicts stand beside the editor: editor ${JSON.stringify(editor)}, verdicts ${JSON.stringify(summary)}`);
  return frame;
}

const saved = (page, id) => page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "null"), `mdbook-fencelab:${id}`);

async function readerSolves(page, book) {
  // The chapter's frame follows its content's height (embed.js sets it
  // from the frame's reports): each height it takes, as it takes it.
  await page.addInitScript(() => {
    if (window !== window.top) return;
    window.frameHeights = [];
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.target instanceof HTMLIFrameElement) window.frameHeights.push(Number.parseFloat(record.target.style.height));
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["style"] });
  });
  // A saved result that is not one (another script of the origin, an old
  // format): it starts over, and the reader's work goes on.
  await page.addInitScript(() => {
    if (window === window.top && !sessionStorage.getItem("seeded")) {
      localStorage.setItem("mdbook-fencelab:claim-compare-and-set", "{not json");
      sessionStorage.setItem("seeded", "1");
    }
  });
  // The bundled exercise, by id: its frame opens and checks.
  await openChapter(page, `${book.url}claims.html`, "The claim that reads, then writes");
  assert.equal(await page.locator("code", { hasText: "{{#fencelab ID}}" }).count(), 1, "an escaped directive stays as text");
  const first = await until("the first result saved", () => saved(page, "claim-compare-and-set").catch(() => null));
  assert.equal(first.total, 3);
  assert.equal(first.solved, false);

  // The book's own exercise, by path: check, then solve by typing.
  const frame = await openChapter(page, `${book.url}own-claim.html`, "The book's own claim");
  const reply = await page.evaluate(() => document.querySelector("fencelab-exercise").check());
  assert.equal(reply.type, "ok");
  await typeClaim(page, REPAIRED, frame, EDITOR);
  await waitForText(frame.locator("#scenario-summary"), /^3 of 3 scenarios pass$/, VERDICTS_TIMEOUT_MS);
  const result = await until("the solved result saved", async () => {
    const value = await saved(page, "book-claim");
    return value?.solved ? value : null;
  });
  assert.deepEqual(result, { exercise: "book-claim", passed: 3, total: 3, solved: true });
  const heard = await page.evaluate(() => window.telemetry.heard);
  const solved = heard.filter((r) => r.event === "solved");
  assert.equal(solved.length, 1, JSON.stringify(heard.map((r) => r.event)));
  assert.equal(solved[0].exercise, "book-claim");
  assert.equal(solved[0].chapter, new URL(`${book.url}own-claim.html`).pathname);
  assert.match(solved[0].procedures.claim, /state = 'NEW'/);
  assert.ok(heard.some((r) => r.event === "checked" && r.passed === 3), "the hook hears checks too");
}

async function main() {
  const bin = buildPreprocessor();
  const good = await fixture("good");
  const broken = await fixture("broken");
  let failed = 0;
  const report = (name, error) => {
    if (error) {
      failed++;
      console.log(`not ok - ${name}\n  ${String(error?.stack ?? error).replace(/\n/g, "\n  ")}`);
    } else {
      console.log(`ok - ${name}`);
    }
  };

  const brokenName = "a broken exercise fails `mdbook build`, naming the chapter's line and the file's";
  try {
    const built = mdbookBuild(broken, bin);
    assert.notEqual(built.status, 0, "the build failed");
    assert.match(built.stderr, /src\/broken\.md:5: exercises\/broken\.toml:5:1: colour: unknown field `colour`/, built.stderr);
    report(brokenName);
  } catch (error) {
    report(brokenName, error);
  }

  const goodName = "a real `mdbook build` gives chapters whose exercises check and solve, with results kept and handed to the hook";
  const built = mdbookBuild(good, bin);
  const book = await serveDir(join(good, "book"));
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // Every file the book and its frames ask for is there: a site copied
  // into a folder must not name files at the origin's root.
  page.on("response", (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} for ${response.url()}`);
  });
  try {
    assert.equal(built.status, 0, `mdbook build failed:\n${built.stderr}`);
    await readerSolves(page, book);
    if (errors.length) throw new Error(`the page threw: ${errors.join("; ")}`);
    report(goodName);
  } catch (error) {
    report(goodName, error);
  } finally {
    await page.screenshot({ path: join(ARTIFACTS, "book.png"), fullPage: true }).catch(() => {});
    await browser.close();
    await book.close();
    await Promise.all([good, broken].map((dir) => rm(dir, { recursive: true, force: true })));
  }
  console.log(`book: ${2 - failed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

await main();
