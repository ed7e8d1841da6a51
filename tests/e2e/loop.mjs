// The learner's loop in one view, for every exercise the page lists, at a
// laptop's 1280x800 and a phone's 390x844, in the light and the dark theme
// (each exercise is opened once per size, in one theme, and switched to the
// other with the page's own control before anything else is touched):
// - with the cursor in an editor and a key pressed there (each of an
//   exercise's editors, under its tab), the verdict count and every scenario's verdict line are inside the
//   viewport, unclipped and not covered, directly under the editor; before
//   any line mark (the starting text fails), and again once the marks of a
//   passing text have arrived, when nothing in the loop has moved;
// - on first open the timeline's broken step (and the note on where it
//   broke) is in view inside the timeline's own scroll box, and the page
//   itself has not scrolled;
// - on a phone's first screen the title, the story's first sentence and the
//   editor's first lines are in view, the exercise list one tap away.
// Then the small findings of issue 25, each as a learner meets it: one name
// per process (session-incarnations), wide tables, the SQLite sentence, the
// lessons' numbering, a solve and the next step, the share label, and no
// 404 on a site without exercises of its own. Prints the measured table.
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import {
  CLAIM, EDITOR, REPAIRED, ROOT, assertInView, editorRefused, placement, runTests, settled, typeClaim, verdictsCurrent, waitForText,
} from "./harness.mjs";

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const THEMES = ["light", "dark"];
const VERDICTS_TIMEOUT_MS = 90_000;
// Line marks judge every mutant of a passing text against the whole suite.
const MARKS_TIMEOUT_MS = 180_000;
/** How many of an editor's first lines must be in view on a phone's first screen. */
const FIRST_LINES = 3;
/**
 * The most space between the editor and the verdict count under it: the
 * procedure's own parts (its vocabulary's fold, an SQL error's line) only.
 */
const UNDER_GAP_PX_MAX = 150;

const label = (size) => `${size.width}x${size.height}`;

let listed = null;
/** Every exercise the page lists, by id, in its order (read once). */
async function exerciseIds(page, url) {
  if (!listed) {
    await page.setViewportSize(LAPTOP);
    await page.goto(url);
    await page.locator(".exercise-link[data-exercise]").first().waitFor({ state: "attached" });
    listed = await page.locator(".exercise-link[data-exercise]").evaluateAll((links) => links.map((l) => l.dataset.exercise));
    assert.ok(listed.length >= 13, `the page lists the bundled exercises: ${listed.join(", ")}`);
  }
  return listed;
}

let references = null;
/**
 * Every bundled exercise's editable procedures' reference texts, read from
 * crates/model/exercises (the files the page is built from), by exercise id.
 */
async function referenceTexts() {
  if (references) return references;
  references = {};
  const dir = join(ROOT, "crates/model/exercises");
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".toml"))) {
    const text = await readFile(join(dir, file), "utf8");
    const id = text.match(/^id = "([^"]+)"/m)?.[1];
    const edits = {};
    for (const section of text.split(/^(?=\[)/m)) {
      const name = section.match(/^\[procedures\.([A-Za-z0-9_]+)\]/)?.[1];
      if (!name || !/^editable = true$/m.test(section)) continue;
      const reference = section.match(/^reference = """\n([\s\S]*?)"""/m)?.[1];
      assert.ok(reference !== undefined, `${file}: the reference of ${name}`);
      edits[name] = reference.replace(/\\(["\\])/g, "$1");
    }
    references[id] = edits;
  }
  return references;
}

/** A share link's fragment carrying `edits` for exercise `id` (web/src/share.rs's format). */
function linkFragment(id, edits) {
  const json = JSON.stringify({ format: 1, exercise: id, edits });
  return `s1=${deflateRawSync(Buffer.from(json), { level: 9 }).toString("base64url")}`;
}

/** Opens `id` in `theme` (with `fragment`, a share link) and waits for its current verdicts. */
async function openExercise(page, url, id, theme, fragment = "") {
  await page.goto(`${url}?exercise=${id}&theme=${theme}${fragment ? `#${fragment}` : ""}`);
  assert.equal(await editorRefused(page, VERDICTS_TIMEOUT_MS), null, `${id}: an editor did not start`);
  await verdictsCurrent(page, VERDICTS_TIMEOUT_MS);
  await page.locator(".editor .cm-line").first().waitFor();
  await settled(page);
}

/** The editable procedures' names, in their tabs' order (one when there are no tabs). */
async function procedures(page) {
  return page.locator(".editor[data-procedure]").evaluateAll((es) => es.map((e) => e.dataset.procedure));
}

/**
 * With the cursor in each editor in turn (its tab chosen first) and a key
 * pressed there: the verdict
 * count and every verdict line in view, unclipped, directly under the
 * editor. Returns what was measured for the last editor.
 */
async function loopInView(page, what) {
  const names = await procedures(page);
  let measured = null;
  for (const name of names) {
    const tab = page.locator(`[role="tab"][aria-controls="procedure-panel-${name}"]`);
    if (await tab.count()) await tab.click();
    const editor = page.locator(`.editor[data-procedure="${name}"]`);
    // The cursor arrives in the editor (a focus already there would not).
    await page.evaluate(() => document.activeElement?.blur());
    // Where a learner clicks: the top of the editor's text, as its box shows
    // it (a click on the tall text itself would first scroll it away).
    await editor.scrollIntoViewIfNeeded();
    const point = await editor.evaluate((e) => {
      const scroller = e.querySelector(".cm-scroller");
      scroller.scrollTop = 0;
      const text = e.querySelector(".cm-content").getBoundingClientRect();
      return { x: text.left + 20, y: Math.max(scroller.getBoundingClientRect().top, text.top) + 8 };
    });
    await page.mouse.click(point.x, point.y);
    // A click only places the cursor (click.mjs); the loop comes into view
    // once the learner edits: a key that changes no text.
    await page.keyboard.press("End");
    await settled(page);
    const where = `${what}, the cursor in ${name}`;
    assert.ok(
      await page.evaluate((n) => document.activeElement?.closest(".editor")?.dataset.procedure === n, name),
      `${where}: the editor has the focus`,
    );
    const box = await placement(editor);
    const summary = await placement(page.locator("#scenario-summary"));
    assertInView(summary, `${where}: the verdict count`);
    assert.ok(summary.top >= box.bottom - 1, `${where}: the verdict count (${summary.top}) is under the editor (${box.bottom})`);
    assert.ok(summary.top - box.bottom <= UNDER_GAP_PX_MAX, `${where}: ${summary.top - box.bottom} px between the editor and the verdict count`);
    assert.ok(
      await page.evaluate(() => {
        const scenarios = document.querySelector(".scenarios");
        const editors = document.querySelector(".loop > .procedure-tabs, .loop > .procedure");
        return scenarios.previousElementSibling === editors;
      }),
      `${where}: nothing stands between the editors and the verdicts`,
    );
    const rows = page.locator(".scenario");
    const count = await rows.count();
    assert.ok(count > 0, `${where}: scenarios listed`);
    const lines = [];
    for (let i = 0; i < count; i++) {
      const row = rows.nth(i);
      const scenario = await row.getAttribute("data-scenario");
      const line = await placement(row.locator(".scenario-select"));
      assertInView(line, `${where}: the verdict line of "${scenario}"`);
      assertInView(await placement(row.locator(".verdict")), `${where}: the verdict word of "${scenario}"`);
      assert.match(await row.locator(".verdict").innerText(), /^(✓ passed|✗ failed|⚠ error|◆ limit shown)$/, `${where}: "${scenario}"`);
      lines.push([line.top, line.bottom]);
    }
    measured = { editor: [box.top, box.bottom], summary: [summary.top, summary.bottom], lines, scenarios: count, viewport: summary.viewportHeight };
  }
  return measured;
}

/** The selected step of the timeline shown, and whether it lies inside the timeline's own box (below its sticky header). */
async function stepInBox(page) {
  return page.evaluate(() => {
    const scroller = document.querySelector(".timeline-scroll");
    const row = scroller?.querySelector("tr.event.selected");
    if (!scroller || !row) return null;
    const note = row.nextElementSibling?.classList.contains("failing-note") ? row.nextElementSibling : null;
    const box = scroller.getBoundingClientRect();
    const header = scroller.querySelector("thead")?.getBoundingClientRect().height ?? 0;
    const top = box.top + scroller.clientTop + header;
    const bottom = box.top + scroller.clientTop + scroller.clientHeight;
    const r = row.getBoundingClientRect();
    const end = (note ?? row).getBoundingClientRect().bottom;
    return {
      failing: row.classList.contains("failing"),
      step: Number(row.dataset.step) + 1,
      scrolls: scroller.scrollHeight > scroller.clientHeight,
      inside: r.top >= top - 0.5 && end <= bottom + 0.5,
      where: `step ${Math.round(r.top)}-${Math.round(end)} in a box showing ${Math.round(top)}-${Math.round(bottom)} (scrolled ${scroller.scrollTop})`,
    };
  });
}

const table = [];
let brokenShown = 0;

/** Switches the page to `theme` with its own control, as a learner does, and lets it settle. */
async function switchTheme(page, theme) {
  await page.locator("#theme").selectOption(theme);
  await settled(page);
}

/**
 * What a learner sees on arrival, before touching anything: the theme, the
 * page not scrolled, on a phone the first screen (title, the story's first
 * sentence, the editor's first lines), and the broken step inside its box.
 */
async function arrival(page, what, size, theme) {
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme, `${what}: the theme`);
  assert.equal(await page.evaluate(() => window.scrollY), 0, `${what}: the page has not scrolled on its own`);
  if (size === PHONE) {
    // The first screen: the title, the story's first sentence, the editor.
    assertInView(await placement(page.locator("#exercise-title")), `${what}: the title`);
    assertInView(await placement(page.locator(".story-folded > summary")), `${what}: the story's first sentence`);
    // The editor's box, and its first lines inside the viewport (a long
    // line may wrap past the bottom of the box, which scrolls).
    const first = page.locator(".editor[data-procedure]").first();
    assertInView(await placement(first), `${what}: the editor`);
    const lines = first.locator(".cm-line");
    const count = Math.min(FIRST_LINES, await lines.count());
    assert.ok(count > 0, `${what}: the editor has text`);
    for (let i = 0; i < count; i++) {
      const line = await placement(lines.nth(i));
      assert.ok(line.top >= 0 && line.top < line.viewportHeight, `${what}: line ${i + 1} of the editor starts in the viewport: ${JSON.stringify(line)}`);
    }
    assert.equal(await page.locator(".exercise-menu").getAttribute("open"), null, `${what}: the exercise list is folded`);
  }
  // The broken step, inside its box, on arrival (the timeline shows the
  // first failing scenario when there is one).
  const step = await stepInBox(page);
  if (step?.failing) {
    assert.ok(step.inside, `${what}: the broken step ${step.step} is not inside its box: ${step.where}`);
  }
  return step;
}

/**
 * One exercise freshly opened at `size` with its starting text, in the
 * first of `themes` (the address's `?theme=`): its arrival checked, then
 * again once switched to the other theme before anything else is touched;
 * then the loop in view in each theme. One page load covers both themes.
 */
async function firstOpen(page, url, id, size, themes) {
  const [first, second] = themes;
  await page.setViewportSize(size);
  await openExercise(page, url, id, first);
  await arrival(page, `${id} at ${label(size)} in ${first}`, size, first);
  await switchTheme(page, second);
  const step = await arrival(page, `${id} at ${label(size)}, switched to ${second}`, size, second);
  if (step?.failing) brokenShown++;
  for (const theme of [second, first]) {
    if (theme !== second) await switchTheme(page, theme);
    const what = `${id} at ${label(size)} in ${theme}`;
    const loop = await loopInView(page, `${what}, before any line mark`);
    table.push({ id, size: label(size), theme, marks: "none", step: step?.failing ? step.step : "-", ...loop });
  }
}

/** The reference texts opened at the laptop size; the loop before and after the marks, then at the phone size and in the other theme. */
async function withMarks(page, url, id) {
  const what = `${id} passing`;
  const edits = (await referenceTexts())[id];
  assert.ok(edits && Object.keys(edits).length > 0, `${id}: its reference texts`);
  await page.setViewportSize(LAPTOP);
  await openExercise(page, url, id, "light", linkFragment(id, edits));
  await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass(, \d+ limits? shown)?$/, VERDICTS_TIMEOUT_MS);
  const before = await loopInView(page, `${what} at ${label(LAPTOP)} in light, the marks not yet there`);
  const early = (await page.locator(".line-marks").count()) === 0;
  await page.locator(".line-marks, .line-marks-status:not(.muted)").first().waitFor({ timeout: MARKS_TIMEOUT_MS });
  assert.equal(await page.locator(".line-marks-status:not(.muted)").count(), 0, `${what}: the lines could be marked`);
  await settled(page);
  if (early) {
    // The marks arrived: nothing in the loop moved.
    const after = await loopInView(page, `${what} at ${label(LAPTOP)} in light, the marks there`);
    assert.deepEqual(after.summary, before.summary, `${what}: the verdict count stayed where it was as the marks arrived`);
    assert.deepEqual(after.lines, before.lines, `${what}: the verdict lines stayed where they were as the marks arrived`);
  }
  for (const size of [LAPTOP, PHONE]) {
    for (const theme of THEMES) {
      await page.setViewportSize(size);
      await page.locator("#theme").selectOption(theme);
      await settled(page);
      const loop = await loopInView(page, `${what} at ${label(size)} in ${theme}, the marks there`);
      table.push({ id, size: label(size), theme, marks: early ? "arrived" : "shown", step: "-", ...loop });
    }
  }
}

const tests = [];
// Each size opens in one theme and switches to the other: the laptop opens
// light, the phone dark, so both themes are also met on arrival.
for (const [size, themes] of [[LAPTOP, THEMES], [PHONE, [...THEMES].reverse()]]) {
  tests.push([`every exercise at ${label(size)}, opened in ${themes[0]} and switched to ${themes[1]}: first open, the broken step in its box, the loop in view`, async ({ page, url }) => {
    for (const id of await exerciseIds(page, url)) await firstOpen(page, url, id, size, themes);
  }]);
}
tests.push(["every exercise passing: the loop in view before and after the line marks, at both sizes in both themes", async ({ page, url }) => {
  for (const id of await exerciseIds(page, url)) await withMarks(page, url, id);
}]);
tests.push(["the measured table", async () => {
  console.log("  exercise                               size     theme marks   step scen editor     summary    last-verdict view");
  for (const r of table) {
    const last = r.lines[r.lines.length - 1];
    console.log(`  ${r.id.padEnd(38)} ${r.size.padEnd(8)} ${r.theme.padEnd(5)} ${r.marks.padEnd(7)} ${String(r.step).padStart(4)} ${String(r.scenarios).padStart(4)} ${r.editor.join("-").padStart(10)} ${r.summary.join("-").padStart(10)} ${last.join("-").padStart(15)} ${r.viewport}`);
  }
  assert.equal(table.length, (listed?.length ?? 0) * 8, "every exercise at every size and theme, with and without marks");
  assert.ok(brokenShown >= listed.length, `a broken step was shown on first open ${brokenShown} times`);
}]);

tests.push(["on a phone the exercise list is one tap away", async ({ page, url }) => {
  await page.setViewportSize(PHONE);
  await openExercise(page, url, CLAIM, "light");
  const summary = page.locator(".exercise-menu > summary");
  assertInView(await placement(summary), "the exercise list's summary");
  assert.match(await summary.innerText(), /^Exercises · \d+ of \d+ solved$/);
  await summary.click();
  const second = page.locator(".exercise-link").nth(1);
  await second.scrollIntoViewIfNeeded();
  assertInView(await placement(second), "the second exercise, one tap later");
}]);

tests.push(["one name per process: lanes, sentences, beliefs and the moves say host-a #1 and host-a #2", async ({ page, url }) => {
  await openExercise(page, url, "session-incarnations", "light");
  // The working version, with the incarnation check removed, fails “host-a comes back”.
  await page.locator('.scenario[data-scenario="host-a comes back"] .scenario-select').click();
  await waitForText(page.locator("#timeline-title"), /host-a comes back/);
  const timeline = page.locator(".timeline");
  const tags = await timeline.locator(".lane-tag").allInnerTexts();
  assert.ok(tags.includes("host-a #1") && tags.includes("host-a #2"), `the lanes: ${[...new Set(tags)].join(", ")}`);
  assert.ok(!tags.some((t) => /^(a|a1|a2|b|proc-\d+)$/.test(t)), `no lane by a scenario label or an id: ${[...new Set(tags)].join(", ")}`);
  const beliefs = await timeline.locator(".belief").allInnerTexts();
  for (const belief of beliefs.filter((b) => / believes it holds /.test(b) && !/^Nobody/.test(b))) {
    assert.match(belief, /^(host-a #1|host-a #2|host-b|[a-z-]+) believes it holds /, belief);
    assert.doesNotMatch(belief, /^host-a believes/, "a belief of host-a names which of its processes");
  }
  const text = await timeline.innerText();
  assert.doesNotMatch(text, /proc-\d+/, "no process id in the timeline's text");
}]);

tests.push(["a wide table scrolls sideways in its box and never breaks a value across lines", async ({ page, url }) => {
  await openExercise(page, url, "the-stalled-worker", "light");
  await page.locator('.scenario[data-verdict="failed"] .scenario-select').first().click();
  await page.locator(".rows").first().waitFor();
  await settled(page);
  const cells = await page.locator(".rows td, .rows th").evaluateAll((cells) => cells.map((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return { text: cell.textContent, lines: lines.size };
  }));
  const broken = cells.filter((c) => c.lines > 1);
  assert.deepEqual(broken, [], "no value is broken across lines");
  const wraps = await page.locator(".table-wrap").evaluateAll((ws) => ws.map((w) => ({
    overflow: getComputedStyle(w).overflowX, wider: w.scrollWidth > w.clientWidth, focusable: w.tabIndex >= 0,
  })));
  assert.ok(wraps.length > 0, "tables shown");
  for (const wrap of wraps) {
    assert.equal(wrap.overflow, "auto", "a table scrolls sideways inside its box");
    assert.ok(wrap.focusable, "the keyboard can scroll it");
  }
}]);

tests.push(["the SQLite sentence has no gap before its punctuation", async ({ page, url }) => {
  await openExercise(page, url, CLAIM, "light");
  await waitForText(page.locator("#sqlite-version"), /^SQLite \d+\.\d+\.\d+$/);
  const gap = await page.evaluate(() => {
    const version = document.querySelector("#sqlite-version");
    const text = document.createRange();
    text.selectNodeContents(version);
    const end = text.getBoundingClientRect().right;
    // Whatever is written after the version on its line starts right after it.
    const next = version.nextSibling;
    if (!next || !next.textContent.trim()) return { after: "", gap: 0 };
    const range = document.createRange();
    range.setStart(next, 0);
    range.setEnd(next, 1);
    return { after: next.textContent, gap: range.getBoundingClientRect().left - end };
  });
  assert.ok(gap.gap < 2, `${Math.round(gap.gap)} px of blank between the version and "${gap.after}"`);
  assert.doesNotMatch(await page.locator(".engine-status").innerText(), /\s[,.;:]/);
}]);

tests.push(["the lessons' lists number the exercises through the course", async ({ page, url }) => {
  await openExercise(page, url, CLAIM, "light");
  const lists = await page.locator(".exercise-list ol").evaluateAll((ols) => ols.map((ol) => ({ start: ol.start, items: ol.children.length })));
  assert.ok(lists.length >= 2, `${lists.length} lessons`);
  let next = 1;
  for (const [i, list] of lists.entries()) {
    assert.equal(list.start, next, `lesson ${i + 1} starts at ${next}`);
    next += list.items;
  }
}]);

tests.push(["a solve says so in words and offers the next exercise, and the next lesson at a lesson's end", async ({ page, url }) => {
  const ids = await exerciseIds(page, url);
  await openExercise(page, url, CLAIM, "light");
  assert.equal(await page.locator("#solved").count(), 0, "not solved yet");
  await typeClaim(page, REPAIRED);
  await waitForText(page.locator("#solved"), /^Solved: your text passes every scenario\./, VERDICTS_TIMEOUT_MS);
  const titles = await page.locator(".exercise-link .exercise-title").allInnerTexts();
  const lessons = await page.locator(".exercise-list .lesson").evaluateAll((ls) => ls.map((l) => l.querySelectorAll(".exercise-link").length));
  const next = page.locator("#next-exercise");
  const lessonTitles = await page.locator(".exercise-list .lesson-title").evaluateAll((ls) => ls.map((l) => l.textContent));
  const offered = lessons[0] > 1 ? `Next exercise: ${titles[1]} →` : `Next lesson, ${lessonTitles[1]}: ${titles[1]} →`;
  assert.equal(await next.innerText(), offered);
  await next.click();
  await waitForText(page.locator("#exercise-title"), new RegExp(`^${titles[1].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
  assert.equal(new URL(page.url()).searchParams.get("exercise"), ids[1]);

  // The last exercise of the first lesson: solved from its reference (a
  // link's text, then edited, so it is the learner's own), it offers the
  // next lesson.
  const last = ids[lessons[0] - 1];
  await openExercise(page, url, last, "light", linkFragment(last, (await referenceTexts())[last]));
  await page.locator(EDITOR.replace("claim", Object.keys((await referenceTexts())[last])[0])).click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n-- mine");
  await page.keyboard.press("Escape");
  await verdictsCurrent(page);
  await waitForText(page.locator("#next-exercise"), new RegExp(`^Next lesson, ${lessonTitles[1]}: ${titles[lessons[0]].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} →$`, "i"), VERDICTS_TIMEOUT_MS);
}]);

tests.push(["every line of a passing claim has a mark or a word on why it has none", async ({ page, url }) => {
  await openExercise(page, url, CLAIM, "light");
  await typeClaim(page, REPAIRED);
  await waitForText(page.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass(, \d+ limits? shown)?$/, VERDICTS_TIMEOUT_MS);
  await page.locator(".line-marks").first().waitFor({ timeout: MARKS_TIMEOUT_MS });
  const said = await page.locator('.line-marks[data-procedure="claim"] [data-line]').evaluateAll((items) => items.map((i) => [Number(i.dataset.line), i.textContent]));
  const lines = new Set(said.map(([line]) => line));
  for (const [i, text] of REPAIRED.entries()) {
    if (!text.trim()) continue;
    assert.ok(lines.has(i + 1), `line ${i + 1} (${text}) has neither a mark nor a word why: ${JSON.stringify(said)}`);
  }
  for (const [line, text] of said) assert.match(text, new RegExp(`Line ${line}: `), `line ${line} names itself`);
}]);

tests.push(["the share label says whether the link was copied", async ({ page, url, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(url).origin });
  await openExercise(page, url, CLAIM, "light");
  await page.locator("#share").click();
  const text = await waitForText(page.locator("#share-label"), /^Link, (copied|not copied) to the clipboard:$/);
  if (/copied to/.test(text) && !/not/.test(text)) {
    const link = await page.locator("#share-url").inputValue();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link, "the clipboard holds the link");
  } else {
    await page.locator(".copy-refused").waitFor();
  }
}]);

tests.push(["a site without exercises of its own loads without a 404, its icon too", async ({ page, url }) => {
  const missing = [];
  page.on("response", (response) => {
    if (response.status() === 404) missing.push(response.url());
  });
  const errors = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await openExercise(page, url, CLAIM, "light");
  await page.waitForLoadState("networkidle");
  assert.deepEqual(missing, [], "nothing the page asked for is missing");
  assert.deepEqual(errors, [], "no error in the console");
  // The icon is an asset like the others: named after its content and
  // precached by the service worker, so it shows offline too.
  const icon = await page.locator('head link[rel="icon"]').getAttribute("href");
  assert.match(icon ?? "", /^\.\/favicon-[0-9a-f]{16}\.svg$/, "the page names its icon");
  const answer = await page.request.get(new URL(icon, page.url()).href);
  assert.equal(answer.status(), 200, icon);
  assert.match(answer.headers()["content-type"] ?? "", /^image\/svg\+xml/);
  const worker = await (await page.request.get(`${url}sw.js`)).text();
  const assets = JSON.parse(/^const ASSETS = (\[.*\]);$/m.exec(worker)?.[1] ?? "[]");
  assert.ok(assets.includes(icon), `sw.js precaches ${icon}: ${assets.join(", ")}`);
}]);

await runTests("loop", tests);
