// "Break it yourself" as a learner plays it: open a challenge on a broken
// text, see no counterexample, drive the processes with the page's own
// buttons (move, undo) until a guarantee breaks, and be told so with the
// lengths; an order that breaks nothing is not a win. Then the progress, a
// reload, and a share link that carries the break.
//
// Each exercise in HUNTS is hunted the same way; add an id to hunt another.
import assert from "node:assert/strict";
import { assertNoSeriousViolations, open, runTests, waitForText } from "./harness.mjs";

/** The exercises hunted, each with a scenario its starting text breaks. */
const HUNTS = [
  { exercise: "claim-compare-and-set", scenario: "one winner" },
  { exercise: "decide-in-the-transaction", scenario: "an install between the read and the write" },
  // From the third lesson, "Fences in the wild": the idempotency key
  // checked, then inserted.
  { exercise: "the-key-checked-then-inserted", scenario: "a retry while the first request is in flight" },
];

/** The most moves and undos one hunt may make before the test gives up. */
const CLICKS_MAX = 600;

/** The moves made so far, as the drive panel shows them. */
async function schedule(page) {
  const text = await page.locator("#drive-schedule").innerText();
  return text === "(none yet)" ? [] : text.split(" ");
}

/**
 * Waits until the worker has answered the drive of `made` moves, then says
 * what it came to: the hunt's verdict (`won`, `held`, `unjudged`), or the
 * processes that may move next.
 */
async function answered(page, made) {
  await page.waitForFunction(
    (n) => {
      const text = document.querySelector("#drive-schedule")?.textContent ?? "";
      const moves = text === "(none yet)" ? 0 : text.split(" ").length;
      return moves === n && document.querySelector("section.drive")?.getAttribute("aria-busy") === "false";
    },
    made,
  );
  await page.locator("#hunt-verdict, .drive-move:not([disabled])").first().waitFor();
  if (await page.locator("#hunt-verdict").count()) {
    return { verdict: await page.locator("#hunt-verdict").getAttribute("data-verdict") };
  }
  const options = await page.locator(".drive-move:not([disabled])").evaluateAll((buttons) => buttons.map((b) => b.dataset.process));
  return { options };
}

/**
 * Hunts as a learner would with nothing but the drive panel: depth first
 * over the orders, moving a process, and undoing moves to try another,
 * until an end that `wanted` accepts (a verdict) is on the page. At each
 * choice the processes are tried in `order` (a function of the moves so
 * far and the options).
 */
async function hunt(page, wanted, order) {
  let clicks = 0;
  // The options not yet tried at each choice of the current path: one
  // entry per move made, and one for the choice now open.
  const untried = [];
  let state = await answered(page, 0);
  for (;;) {
    if (state.verdict !== undefined) {
      if (wanted(state.verdict)) return state.verdict;
    } else {
      untried.push(order(await schedule(page), state.options));
    }
    while (untried.length && untried[untried.length - 1].length === 0) untried.pop();
    if (!untried.length) throw new Error("every order was tried without the end wanted");
    // Back to the deepest choice with an option left.
    for (let made = (await schedule(page)).length; made > untried.length - 1; made--) {
      await page.locator("#drive-undo").click();
      await answered(page, made - 1);
      clicks++;
    }
    const next = untried[untried.length - 1].shift();
    await page.locator(`.drive-move[data-process="${next}"]:not([disabled])`).click();
    clicks++;
    assert.ok(clicks < CLICKS_MAX, `no end wanted within ${CLICKS_MAX} clicks`);
    state = await answered(page, untried.length);
  }
}

/** One process until it cannot move, then the next: serial orders first. */
const serialFirst = (_moves, options) => [...options];
/** Another process than the last to move, first: interleavings first. */
const takingTurns = (moves, options) => {
  const last = moves[moves.length - 1];
  return [...options.filter((o) => o !== last), ...options.filter((o) => o === last)];
};

/** Opens a challenge on `exercise`'s starting text and a hunt in its scenario. */
async function startHunt(page, url, { exercise, scenario }) {
  await open(page, `${url}?exercise=${exercise}`);
  await page.locator('.hunt-start[data-hunt-text="start"]').click();
  await waitForText(page.locator("#hunt-title"), /Break it yourself: the starting text/);
  const target = page.locator(`.hunt-target[data-scenario="${scenario}"]`);
  await target.waitFor();
  // The counterexamples are hidden: no verdicts, no timeline, no schedule.
  assert.equal(await page.locator(".scenario-list, .lanes").count(), 0, "a counterexample is in view");
  await target.locator(".hunt-button").click();
  await waitForText(page.locator("#drive-title"), new RegExp(`Hunting in “${scenario}”`));
}

const tests = [];
for (const target of HUNTS) {
  tests.push([
    `${target.exercise}: an order that breaks nothing is not a win`,
    async ({ page, url }) => {
      await startHunt(page, url, target);
      const verdict = await hunt(page, (v) => v === "held", serialFirst);
      assert.equal(verdict, "held");
      assert.match(await page.locator("#hunt-verdict").innerText(), /breaks nothing, so it is not a win/);
      assert.equal(await page.locator(".hunt-won").count(), 0);
      // Nothing is counted as found.
      assert.doesNotMatch(await page.locator(".exercise-link.current .progress").innerText(), /break/);
      assert.equal(await page.locator(`.hunt-target[data-scenario="${target.scenario}"] .hunt-found`).count(), 0);
    },
  ]);
  tests.push([
    `${target.exercise}: a break found by driving the processes wins, with yours and the shortest's lengths`,
    async ({ page, url, context }) => {
      await startHunt(page, url, target);
      const verdict = await hunt(page, (v) => v === "won", takingTurns);
      assert.equal(verdict, "won");
      const won = page.locator("#hunt-verdict");
      const text = await won.innerText();
      assert.match(text, /✓ You broke it\. The guarantee that broke: \S/);
      const moves = (await schedule(page)).length;
      const shown = Number(await won.getAttribute("data-moves"));
      const shortest = Number(await won.getAttribute("data-shortest"));
      assert.equal(shown, moves, "the moves counted are the moves made");
      assert.ok(shortest > 0 && shortest <= moves, `shortest ${shortest}, yours ${moves}`);
      const lengths = await page.locator("#hunt-lengths").innerText();
      if (shortest === moves) assert.equal(lengths, `Yours took ${moves} moves: as short as a break gets.`);
      else assert.equal(lengths, `Yours took ${moves} moves; the shortest takes ${shortest} moves.`);
      await assertNoSeriousViolations(page, `${target.exercise}: a won hunt`);
      // Found, and counted apart from repairs.
      await waitForText(page.locator(".exercise-link.current .progress"), /^not solved yet · .*1 break found$/);
      await waitForText(page.locator(`.hunt-target[data-scenario="${target.scenario}"] .hunt-found`), new RegExp(`broken, in ${moves} moves`));

      // A reload comes back to the same break, judged again.
      await page.reload();
      await waitForText(page.locator("#hunt-lengths"), new RegExp(`^Yours took ${moves} moves`));
      await waitForText(page.locator(".exercise-link.current .progress"), /1 break found$/);

      // The share link carries the break: another learner sees it won.
      await page.locator("#share").click();
      const link = await page.locator("#share-url").inputValue();
      const other = await context.newPage();
      await other.goto(link);
      await waitForText(other.locator("#hunt-verdict"), /✓ You broke it/);
      assert.deepEqual(await schedule(other), await schedule(page));
      assert.equal(await other.locator("#hunt-lengths").innerText(), lengths);
      await other.close();
    },
  ]);
}
tests.push([
  "leaving the challenge brings the verdicts and their counterexamples back",
  async ({ page, url }) => {
    await startHunt(page, url, HUNTS[0]);
    await page.locator("#hunt-leave").click();
    await waitForText(page.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/);
    assert.equal(await page.locator("#hunt").count(), 0);
  },
]);

await runTests("hunt", tests);
