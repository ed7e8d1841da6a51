// A click in the editor places the caret where it landed (issue 52, finding
// 1): the page never moves under a pointer that is down, so a click never
// becomes a drag that selects text the next key would overwrite. For every
// exercise the page lists, at a laptop's 1280x800 and a phone's 390x844, in
// the light and the dark theme (one page per size, each exercise opened in
// one theme and switched to the other with the page's own control), each of
// its editors (under its tab) is clicked on the text of a line at the top,
// the middle and the bottom of what the screen shows of it, as a learner
// arriving clicks it: the page where it opened (or scrolled until the
// editor's first lines show, for an editor below the first screen),
// nothing focused. Between
// the press and the release the page's scroll, the editor's own scroll and
// the clicked line's place stay as they were; after the release nothing is
// selected and the caret is on the clicked line, where the click landed.
// Prints what it clicked.
import assert from "node:assert/strict";
import { editorRefused, live, runTests, settled } from "./harness.mjs";

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const THEMES = ["light", "dark"];
const VERDICTS_TIMEOUT_MS = 90_000;
/** How far (px) the caret may stand from where the click landed: about one character. */
const CARET_FROM_CLICK_PX_MAX = 12;

const label = (size) => `${size.width}x${size.height}`;

/** Every exercise the page lists, by id, in its order. */
async function exerciseIds(page, url) {
  await page.goto(url);
  await page.locator(".exercise-link[data-exercise]").first().waitFor({ state: "attached" });
  const ids = await page.locator(".exercise-link[data-exercise]").evaluateAll((links) => links.map((l) => l.dataset.exercise));
  assert.ok(ids.length >= 13, `the page lists the bundled exercises: ${ids.join(", ")}`);
  return ids;
}

/** Opens exercise `id` in `theme` and waits until the app answers the learner, its first verdicts shown. */
async function openExercise(page, url, id, theme) {
  await page.goto(`${url}?exercise=${id}&theme=${theme}`);
  assert.equal(await editorRefused(page, VERDICTS_TIMEOUT_MS), null, `${id}: an editor did not start`);
  await live(page);
  await page.locator(".editor .cm-line").first().waitFor();
  await settled(page);
}

/**
 * Where to click the lines of the editor `name` that the screen shows
 * (inside the editor's own scroll box and the viewport), at the top, the
 * middle and the bottom: the middle of the first piece of each line's text,
 * and the line's number as the gutter shows it. Empty lines are skipped.
 */
async function targets(page, name) {
  return page.locator(`.editor[data-procedure="${name}"]`).evaluate((editor) => {
    const scroller = editor.querySelector(".cm-scroller").getBoundingClientRect();
    const top = Math.max(scroller.top, 0);
    const bottom = Math.min(scroller.bottom, window.innerHeight);
    const numbers = [...editor.querySelectorAll(".cm-lineNumbers .cm-gutterElement")];
    const shown = [];
    for (const line of editor.querySelectorAll(".cm-content > .cm-line")) {
      if (!line.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(line);
      const piece = [...range.getClientRects()].find((r) => r.width > 4);
      if (!piece || piece.top < top || piece.bottom > bottom) continue;
      const y = piece.top + piece.height / 2;
      const number = numbers.find((n) => {
        const r = n.getBoundingClientRect();
        return r.height > 0 && r.top <= y && y <= r.bottom;
      });
      shown.push({ x: Math.round(piece.left + piece.width / 2), y: Math.round(y), line: Number(number?.textContent), text: line.textContent.trim().slice(0, 30) });
    }
    if (shown.length === 0) return [];
    const picked = [shown[0], shown[Math.floor((shown.length - 1) / 2)], shown[shown.length - 1]];
    return picked.filter((t, i) => picked.indexOf(t) === i);
  });
}

/** What can move under the pointer: the page's scroll, the editor's own scroll, the clicked line's place. */
async function positions(page, name, at) {
  return page.locator(`.editor[data-procedure="${name}"]`).evaluate((editor, { x, y }) => {
    const line = document.elementFromPoint(x, y)?.closest(".cm-line");
    return {
      pageY: Math.round(window.scrollY),
      editorTop: Math.round(editor.querySelector(".cm-scroller").scrollTop),
      editorAt: Math.round(editor.getBoundingClientRect().top),
      underPointer: line ? line.textContent.trim().slice(0, 30) : null,
    };
  }, at);
}

/** After the release: whether anything is selected, the caret's line (from the gutter) and where the caret stands. */
async function afterClick(page, name) {
  return page.locator(`.editor[data-procedure="${name}"]`).evaluate((editor) => {
    const cursor = editor.querySelector(".cm-cursorLayer .cm-cursor")?.getBoundingClientRect();
    return {
      focused: editor.contains(document.activeElement),
      selectedText: document.getSelection()?.toString() ?? "",
      selectionDrawn: editor.querySelectorAll(".cm-selectionLayer .cm-selectionBackground").length,
      caretLine: Number(editor.querySelector(".cm-lineNumbers .cm-activeLineGutter")?.textContent),
      caret: cursor ? { x: Math.round(cursor.left), top: Math.round(cursor.top), bottom: Math.round(cursor.bottom) } : null,
    };
  });
}

/**
 * Clicks the top, middle and bottom lines of editor `name` in turn, each
 * as a learner arriving clicks (the page scrolled back to where it opened,
 * nothing focused); pushes what went wrong to `faults`.
 */
async function clickLines(page, name, what, faults, clicked) {
  // An editor below the first screen: the learner scrolls until its first
  // lines show in the screen's lower half, where the rest of the loop is
  // still below the screen.
  await page.locator(`.editor[data-procedure="${name}"]`).evaluate((editor) => {
    const top = editor.getBoundingClientRect().top;
    if (top > window.innerHeight * 0.6) window.scrollBy(0, top - window.innerHeight * 0.6);
  });
  await settled(page);
  const arrivedAt = await page.evaluate(() => window.scrollY);
  const lines = await targets(page, name);
  if (lines.length === 0) faults.push(`${what}: no line of ${name} is on the screen to click`);
  for (const target of lines) {
    await page.evaluate((y) => {
      document.activeElement?.blur();
      window.scrollTo(0, y);
    }, arrivedAt);
    await settled(page);
    const where = `${what}, ${name} line ${target.line} ("${target.text}") at ${target.x},${target.y}`;
    await page.mouse.move(target.x, target.y);
    const before = await positions(page, name, target);
    await page.mouse.down();
    await settled(page);
    const pressed = await positions(page, name, target);
    await page.mouse.up();
    await settled(page);
    const after = await afterClick(page, name);
    clicked.push({ where: `${what}, ${name}`, line: target.line, moved: pressed.pageY - before.pageY, selected: after.selectedText.length });
    if (JSON.stringify(pressed) !== JSON.stringify(before)) {
      faults.push(`${where}: the page moved under the pressed pointer: ${JSON.stringify(before)} -> ${JSON.stringify(pressed)}`);
    }
    if (after.selectedText || after.selectionDrawn) {
      faults.push(`${where}: the click selected ${JSON.stringify(after.selectedText)} (${after.selectionDrawn} selection boxes drawn)`);
    }
    if (!after.focused) faults.push(`${where}: the editor does not have the focus`);
    if (after.caretLine !== target.line) faults.push(`${where}: the caret is on line ${after.caretLine}`);
    const near = after.caret && Math.abs(after.caret.x - target.x) <= CARET_FROM_CLICK_PX_MAX && after.caret.top <= target.y && target.y <= after.caret.bottom;
    if (!near) faults.push(`${where}: the caret stands at ${JSON.stringify(after.caret)}, not where the click landed`);
  }
}

/** Every editor of the open exercise, each under its tab when there are several. */
async function clickEveryEditor(page, what, faults, clicked) {
  const names = await page.locator(".editor[data-procedure]").evaluateAll((es) => es.map((e) => e.dataset.procedure));
  for (const name of names) {
    const tab = page.locator(`[role="tab"][aria-controls="procedure-panel-${name}"]`);
    if (await tab.count()) {
      await tab.click();
      await settled(page);
    }
    await clickLines(page, name, what, faults, clicked);
  }
}

const clicked = [];
const tests = [];
// The laptop opens each exercise light, the phone dark; each switches to the other theme.
for (const [size, themes] of [[LAPTOP, THEMES], [PHONE, [...THEMES].reverse()]]) {
  tests.push([`every exercise at ${label(size)}, in ${themes.join(" and ")}: a click on a line's text puts the caret there and selects nothing`, async ({ page, url }) => {
    await page.setViewportSize(size);
    const faults = [];
    for (const id of await exerciseIds(page, url)) {
      await openExercise(page, url, id, themes[0]);
      for (const [i, theme] of themes.entries()) {
        if (i > 0) {
          await page.locator("#theme").selectOption(theme);
          await settled(page);
        }
        await clickEveryEditor(page, `${id} at ${label(size)} in ${theme}`, faults, clicked);
      }
    }
    assert.deepEqual(faults, [], `${faults.length} clicks went wrong:\n  ${faults.join("\n  ")}`);
  }]);
}
tests.push(["what was clicked", async () => {
  const moved = clicked.filter((c) => c.moved !== 0);
  console.log(`  ${clicked.length} clicks, ${moved.length} with the page moving under the pointer`);
  for (const c of moved.slice(0, 20)) console.log(`  ${c.where} line ${c.line}: moved ${c.moved} px, ${c.selected} characters selected`);
  assert.ok(clicked.length >= 19 * 4 * 3, `a top, a middle and a bottom line of every editor, at both sizes in both themes: ${clicked.length} clicks`);
}]);

await runTests("click", tests);
