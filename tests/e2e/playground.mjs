// The playground as a learner uses it: typing in the editor, clicking,
// reading the text on the page. Follows the test list of issue 6.
import assert from "node:assert/strict";
import { CLAIM, EDITOR, REPAIRED, VERDICT_COUNT, cachedForOffline, editorExtras, live, open, runTests, typeClaim, verdictsCurrent, waitFor, waitForText } from "./harness.mjs";

async function editorText(page) {
  return page.locator(EDITOR).innerText();
}

/** Keeps moving the first process offered until the drive finishes. */
async function driveToTheEnd(page) {
  for (let i = 0; i < 40; i++) {
    // Wait for the worker's answer: the finish line, or enabled moves.
    await page.locator("#drive-finished, .drive-move:not([disabled])").first().waitFor();
    if (await page.locator("#drive-finished").count()) return;
    await page.locator(".drive-move:not([disabled])").first().click();
  }
  throw new Error("the drive did not finish within 40 moves");
}

async function verdictOf(page, scenario) {
  return page.locator(`.scenario[data-scenario="${scenario}"] .verdict`).innerText();
}

/** The newest check's summary, once it matches `pattern`. */
async function summary(page, pattern) {
  await verdictsCurrent(page);
  return waitForText(page.locator("#scenario-summary"), pattern);
}

async function repair(page) {
  await typeClaim(page, REPAIRED);
  await summary(page, /^3 of 3 scenarios pass$/);
}

await runTests("playground", [
  [
    "each keystroke's check is posted to the worker before the page renders the keystroke, the first edit's too",
    async ({ page, url }) => {
      // Every Check the page posts, with the check the page showed as
      // wanted at that moment (the scenario list's data-check-seq, which
      // the render an edit causes moves to that edit's check).
      await page.addInitScript(() => {
        window.fencelabPosts = [];
        const post = Worker.prototype.postMessage;
        Worker.prototype.postMessage = function (message, ...rest) {
          let check = null;
          try {
            check = JSON.parse(message).Check ?? null;
          } catch {
            // Not JSON text: not a request of the page's.
          }
          if (check !== null) {
            const shown = document.querySelector("[data-check-seq]")?.dataset.checkSeq;
            window.fencelabPosts.push({ seq: check.seq, shown: Number(shown) });
          }
          return post.call(this, message, ...rest);
        };
      });
      await open(page, `${url}${CLAIM}.html`);
      await verdictsCurrent(page);
      const before = await page.evaluate(() => window.fencelabPosts.length);
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+End");
      for (const key of [" ", "-", "-"]) {
        await page.keyboard.type(key);
        await verdictsCurrent(page);
      }
      const posts = (await page.evaluate(() => window.fencelabPosts)).slice(before);
      assert.equal(posts.length, 3, `one check posted per keystroke: ${JSON.stringify(posts)}`);
      for (const { seq, shown } of posts) {
        assert.ok(shown < seq, `check ${seq} was posted after the page had rendered it (it showed ${shown})`);
      }
    },
  ],
  [
    "the claim exercise: the starting text fails, the repaired claim passes every scenario",
    async ({ page, url }) => {
      await open(page, url);
      await waitForText(page.locator(".exercise-link.current"), /The claim that reads, then writes/);
      assert.match(await page.locator(".narrative").innerText(), /compare-and-set/);
      // The page names the exercise: its title and its one h1.
      assert.equal(await page.title(), "The claim that reads, then writes · fencelab");
      assert.deepEqual(await page.locator("h1").allInnerTexts(), ["The claim that reads, then writes"]);
      await summary(page, /^0 of 3 scenarios pass$/);
      assert.match(await verdictOf(page, "one winner"), /✗ failed/);
      assert.match(await page.locator(".exercise-link.current .progress").innerText(), /^not solved yet · 0 of 2 broken variants seen$/);
      // Everything the live region says from here on: the line marks'
      // announcement may follow the verdicts' at once.
      await page.evaluate(() => {
        const announcer = document.getElementById("announcer");
        window.__said = [];
        new MutationObserver(() => window.__said.push(announcer.innerText)).observe(announcer, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
      await repair(page);
      await waitForText(page.locator(".exercise-link.current .progress"), /^✓ solved · 0 of 2 broken variants seen$/);
      assert.match(await verdictOf(page, "one winner"), /✓ passed/);
      assert.match(await verdictOf(page, "first come, first served"), /✓ passed/);
      await page.waitForFunction(() => window.__said.some((text) => /3 of 3 scenarios pass/.test(text)), null, { timeout: 10_000 });
    },
  ],
  [
    "deleting the state predicate fails one winner, and the timeline shows both workers owning msg-1",
    async ({ page, url }) => {
      await open(page, url);
      await repair(page);
      // Find " AND state = 'NEW'" with the editor's search (Ctrl+F), then delete it.
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+F");
      await page.keyboard.type(" AND state = 'NEW'");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Escape");
      await page.keyboard.press("Backspace");
      assert.doesNotMatch(await editorText(page), /state = 'NEW'/);
      await waitForText(page.locator('.scenario[data-scenario="one winner"] .verdict'), /✗ failed/);
      // Every scenario catches it: the later worker now overwrites the claim too.
      await summary(page, /^0 of 3 scenarios pass$/);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      const failing = page.locator(".lanes tr.event.failing");
      await waitForText(failing, /worker-a believes it holds message msg-1/);
      const beliefs = await failing.locator(".beliefs").innerText();
      assert.match(beliefs, /worker-a believes it holds message msg-1/);
      assert.match(beliefs, /worker-b believes it holds message msg-1/);
      assert.match(await page.locator(".failing-note").innerText(), /✗ broke here/);
    },
  ],
  [
    "Reset restores the starting text, and Ctrl+Z in the editor brings the edit back",
    async ({ page, url }) => {
      await open(page, url);
      await repair(page);
      await page.locator("#reset").click();
      await summary(page, /^0 of 3 scenarios pass$/);
      assert.match(await editorText(page), /Look at the message first/);
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+Z");
      await summary(page, /^3 of 3 scenarios pass$/);
      assert.match(await editorText(page), /BEGIN IMMEDIATE/);
    },
  ],
  [
    "a broken variant loaded by its button fails, and the exercise list counts it as seen, the learner's solve kept",
    async ({ page, url }) => {
      await open(page, url);
      await repair(page);
      await page.locator('.variant[data-variant="read, then write"]').click();
      await waitForText(page.locator("#variant-explanation"), /decides in code/);
      await summary(page, /^2 of 3 scenarios pass$/);
      assert.match(await verdictOf(page, "one winner"), /✗ failed/);
      await waitForText(page.locator('.variant[data-variant="read, then write"]'), /✓ seen failing/);
      await waitForText(page.locator(".exercise-link.current .progress"), /^✓ solved · 1 of 2 broken variants seen$/);
    },
  ],
  [
    "driving one winner step by step to a failure, with undo",
    async ({ page, url }) => {
      await open(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .drive-button').click();
      const moves = page.locator(".drive-move");
      await moves.first().waitFor();
      // Both workers read before either writes: a, b, then each finishes.
      await page.locator('.drive-move[data-process="a"]').click();
      await waitForText(page.locator("#drive-schedule"), /^a$/);
      await page.locator('.drive-move[data-process="b"]').click();
      await waitForText(page.locator("#drive-schedule"), /^a b$/);
      await page.locator("#drive-undo").click();
      await waitForText(page.locator("#drive-schedule"), /^a$/);
      await page.locator('.drive-move[data-process="b"]').click();
      await waitForText(page.locator("#drive-schedule"), /^a b$/);
      await driveToTheEnd(page);
      await waitForText(page.locator("#drive-finished"), /breaks it: .*both believe they hold message msg-1/);
      assert.match(await page.locator("#announcer").innerText(), /Your schedule fails/);
    },
  ],
  [
    "with the repaired claim, a worker that meets the other's lock is shown waiting",
    async ({ page, url }) => {
      await open(page, url);
      await repair(page);
      await page.locator('.scenario[data-scenario="one winner"] .drive-button').click();
      await page.locator('.drive-move[data-process="a"]').click();
      await waitForText(page.locator("#drive-schedule"), /^a$/);
      await page.locator('.drive-move[data-process="b"]').click();
      await waitForText(page.locator("#drive-schedule"), /^a b$/);
      await waitForText(page.locator(".lanes tr.waiting"), /⏳ waits: another process holds the lock/);
      await driveToTheEnd(page);
      await waitForText(page.locator("#drive-finished"), /The scenario finished: passed/);
    },
  ],
  [
    "contention is not rejection: the shown schedule has worker-b wait for the lock, then go through",
    async ({ page, url }) => {
      await open(page, `${url}?exercise=decide-in-the-transaction`);
      // The reference apply: the check inside BEGIN IMMEDIATE.
      await typeClaim(page, [
        "BEGIN IMMEDIATE;",
        "SELECT generation AS installed FROM resources WHERE id = :resource;",
        "-- @refuse unknown_resource unless returned 1: no resource {resource}",
        "SELECT 1 AS admitted WHERE :installed = :generation;",
        "-- @refuse generation_rejected unless returned 1: generation {generation} is not installed",
        "UPDATE resources SET value = value + :delta WHERE id = :resource RETURNING value;",
        "INSERT INTO generation_log (resource, event, generation, delta)",
        "VALUES (:resource, 'apply', :generation, :delta);",
        "COMMIT;",
        "-- @return value",
      ], page, '.editor[data-procedure="apply"] .cm-content');
      await summary(page, /^7 of 7 scenarios pass$/);
      await page.locator('.scenario[data-scenario="contention is not rejection"] .scenario-select').click();
      await waitForText(page.locator(".timeline-verdict"), /Verdict: passed/);
      const rows = page.locator(".lanes tr.event");
      const texts = await rows.allInnerTexts();
      const wait = texts.findIndex((t) => /⏳ waits: another process holds the lock/.test(t));
      assert.ok(wait >= 0, `no wait in the timeline:\n${texts.join("\n")}`);
      assert.match(texts[wait], /worker-b/);
      // After the wait: worker-a's apply ends (value 5), then worker-b's goes through with 8.
      const a = texts.findIndex((t, i) => i > wait && /worker-a/.test(t) && /\bok\b/.test(t) && /\b5\b/.test(t));
      const b = texts.findIndex((t, i) => i > a && /worker-b/.test(t) && /\bok\b/.test(t) && /\b8\b/.test(t));
      assert.ok(a > wait && b > a, `worker-a then worker-b should finish after the wait:\n${texts.join("\n")}`);
    },
  ],
  [
    "a share link opened in a fresh browser context restores the edit and the schedule",
    async ({ page, url, browser }) => {
      await open(page, url);
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+End");
      await page.keyboard.press("Enter");
      await page.keyboard.type("-- shared edit");
      await page.keyboard.press("Escape");
      await summary(page, /^0 of 3 scenarios pass$/);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      const schedule = await page.locator("#shown-schedule").innerText();
      assert.ok(schedule.length > 0);
      await page.locator("#share").click();
      const link = await page.locator("#share-url").inputValue();
      assert.match(link, /#s1=/);
      const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const other = await fresh.newPage();
        await other.goto(link);
        await waitForText(other.locator(EDITOR), /-- shared edit/);
        await waitForText(other.locator("#shown-schedule"), new RegExp(`^${schedule}$`));
        await waitForText(other.locator(".notices"), /version in the link/);
        await other.screenshot({ path: `${process.cwd()}/tests/artifacts/playground-share-link-opened.png`, fullPage: true });
      } finally {
        await fresh.close();
      }
    },
  ],
  [
    "a reload brings the autosaved edit back; a link keeps the saved version one click away",
    async ({ page, url }) => {
      await open(page, url);
      await repair(page);
      await page.reload();
      await summary(page, /^3 of 3 scenarios pass$/);
      assert.match(await editorText(page), /BEGIN IMMEDIATE/);
      // Another version arrives by link; the saved one stays one click away.
      await page.locator("#reset").click();
      await summary(page, /^0 of 3 scenarios pass$/);
      await page.locator("#share").click();
      const link = await page.locator("#share-url").inputValue();
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+Z");
      await summary(page, /^3 of 3 scenarios pass$/);
      await page.goto("about:blank");
      await page.goto(link);
      await waitForText(page.locator(EDITOR), /Look at the message first/);
      // The saved work is untouched until the learner chooses: a reload shows it.
      await page.reload();
      await waitForText(page.locator(EDITOR), /BEGIN IMMEDIATE/);
      await page.goto("about:blank");
      await page.goto(link);
      await waitForText(page.locator(EDITOR), /Look at the message first/);
      await page.locator("#back-to-saved").click();
      await waitForText(page.locator(EDITOR), /BEGIN IMMEDIATE/);
      await summary(page, /^3 of 3 scenarios pass$/);
    },
  ],
  [
    "a malformed link and a corrupt saved entry are reported, and the work stays intact",
    async ({ page, url }) => {
      await open(page, url);
      await repair(page);
      await page.goto(`${url}#s1=this-is-not-a-link!!`);
      await waitForText(page.locator(".notices"), /This link could not be opened/);
      await summary(page, /^3 of 3 scenarios pass$/);
      assert.match(await editorText(page), /BEGIN IMMEDIATE/);
      await page.evaluate((id) => localStorage.setItem(`fencelab:work:${id}`, "{not json"), CLAIM);
      await page.reload();
      await waitForText(page.locator(".notices"), /could not be read .* set aside/);
      await summary(page, /^0 of 3 scenarios pass$/);
      const aside = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("fencelab:set-aside:")));
      assert.equal(aside.length, 1);
    },
  ],
  [
    "an SQL error is shown as an error verdict with its line marked in the editor",
    async ({ page, url }) => {
      await open(page, url);
      await typeClaim(page, ["SELEC 1;"]);
      await summary(page, /^0 of 3 scenarios pass$/);
      assert.match(await verdictOf(page, "one winner"), /⚠ error/);
      await page.locator(".cm-error-line").waitFor();
      assert.match(await page.locator(".editor-error").innerText(), /Line 1/);
    },
  ],
  [
    "the timeline steps with the arrow keys, announces each step, and the console queries that moment",
    async ({ page, url }) => {
      await open(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await page.locator(".timeline-scroll").focus();
      const selected = async () => Number(await page.locator("tr.event.selected").getAttribute("data-step"));
      const start = await selected();
      await page.keyboard.press("ArrowUp");
      await waitForText(page.locator("#announcer"), new RegExp(`^Step ${start}: `));
      assert.equal(await selected(), start - 1);
      await page.keyboard.press("ArrowDown");
      await waitForText(page.locator("#announcer"), /now believes it holds message msg-1/);
      // The first step: nothing claimed yet.
      for (let i = 0; i < 30; i++) await page.keyboard.press("ArrowUp");
      assert.equal(await selected(), 0);
      await page.locator("#console-sql").fill("SELECT state FROM messages");
      await page.locator("#console-run").click();
      await waitForText(page.locator(".console-result"), /'NEW'/);
      assert.match(await page.locator(".tables").innerText(), /Tables after step 1/);
    },
  ],
  [
    "the console knows the exercise: its own tables, and an error said once",
    async ({ page, url }) => {
      await open(page, `${url}?exercise=session-incarnations`);
      await page.locator('.scenario[data-scenario="host-a comes back"] .scenario-select').click();
      const sql = page.locator("#console-sql");
      assert.equal(await sql.getAttribute("placeholder"), "SELECT * FROM host_instances");
      assert.match(await page.locator("#console-tables").innerText(), /host_instances, session_claims, session_completions/);
      await sql.fill(await sql.getAttribute("placeholder"));
      await page.locator("#console-run").click();
      await waitForText(page.locator(".console-result"), /'host-a'/);
      await sql.fill("SELECT * FROM messages");
      await page.locator("#console-run").click();
      await waitForText(page.locator(".console-result"), /^⚠ no such table: messages$/);
    },
  ],
  [
    "a typed schedule replays into the timeline",
    async ({ page, url }) => {
      await open(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await waitForText(page.locator(".timeline-verdict"), /Verdict: failed/);
      // worker-a runs its whole claim before worker-b starts: no overlap, no failure.
      await page.locator("#replay-schedule").fill("a a b");
      // The page draws itself again (a worker's answer does so at any time;
      // a theme switch here): what was typed stays typed.
      await page.locator("#theme").selectOption("dark");
      assert.equal(await page.locator("#replay-schedule").inputValue(), "a a b");
      await page.locator("#replay-run").click();
      await waitForText(page.locator(".timeline-verdict"), /Verdict: passed/);
      assert.match(await page.locator("#shown-schedule").innerText(), /^a a b$/);
    },
  ],
  [
    "every bundled exercise is listed by lesson, and another one opens with its own editor",
    async ({ page, url }) => {
      await open(page, url);
      const links = page.locator(".exercise-link");
      assert.ok((await links.count()) >= 1);
      assert.ok((await page.locator(".lesson-title").count()) >= 1);
      if ((await links.count()) < 2) return;
      const title = await links.nth(1).locator(".exercise-title").innerText();
      await links.nth(1).click();
      await waitForText(page.locator("#exercise-title"), new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
      await summary(page, VERDICT_COUNT);
      assert.ok((await page.locator(".editor .cm-content").count()) >= 1);
    },
  ],
  [
    "the editor offers the procedure's parameters and decisions as completions; hints come one at a time",
    async ({ page, url }) => {
      await open(page, url);
      await page.locator(".vocabulary > summary").click();
      assert.match(await page.locator(".vocabulary").innerText(), /:message_id/);
      // Each decision says what it does, with an example (issue 52).
      assert.match(
        await page.locator(".vocabulary").innerText(),
        /-- @return NAME: ends the call ok, handing the caller these values.*For example -- @return token/,
      );
      await editorExtras(page);
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+End");
      await page.keyboard.press("Enter");
      await page.keyboard.type(":mess");
      await waitForText(page.locator(".cm-tooltip-autocomplete"), /:message_id/);
      await page.keyboard.press("Escape");
      await page.keyboard.press("Enter");
      await page.keyboard.type("-- @re");
      await waitForText(page.locator(".cm-tooltip-autocomplete"), /@refuse CATEGORY unless changed 1/);
      await page.keyboard.press("Escape");
      assert.equal(await page.locator(".hint").count(), 0);
      await page.locator("#show-hint").click();
      assert.equal(await page.locator(".hint").count(), 1);
      await page.locator("#show-hint").click();
      assert.equal(await page.locator(".hint").count(), 2);
      assert.match(await page.locator("#show-hint").innerText(), /Show hint 3 of 4/);
      // The last hint reaches a pass: the whole claim, its @return after the COMMIT.
      await page.locator("#show-hint").click();
      await page.locator("#show-hint").click();
      assert.match(await page.locator(".hint pre").innerText(), /COMMIT;\n-- @return token/);
      await waitForText(page.locator(".hints"), /That was the last hint\./);
    },
  ],
  [
    "without the editor's extras (their file refused), the editor takes an edit and the page checks it; the console says why; back online, they come without a reload",
    async ({ page, url }) => {
      const warnings = [];
      page.on("console", (message) => {
        if (message.type() === "warning") warnings.push(message.text());
      });
      // No service worker: its precache would fetch the extras where the
      // route below cannot refuse them.
      await page.addInitScript(() => {
        navigator.serviceWorker.register = () => Promise.reject(new Error("no service worker in this test"));
      });
      let asked = 0;
      let refusing = true;
      await page.route(/editor-extras(-[0-9a-f]{16})?\.js$/, (route) => {
        asked += 1;
        return refusing ? route.abort() : route.continue();
      });
      await open(page, url);
      await repair(page);
      await waitFor("the page to ask for the extras", () => asked >= 1);
      await waitFor("the warning", () => warnings.some((w) => /editor's extras .* did not load: .*; trying again in 5000 ms$/.test(w)));
      assert.equal(await page.locator(".cm-editor[data-extras]").count(), 0);
      // Undo is the editor's own, not an extra: the starting text comes back.
      await page.locator(EDITOR).click();
      for (let i = 0; i < 40; i += 1) await page.keyboard.press("Control+Z");
      await summary(page, /^0 of 3 scenarios pass$/);
      // The file can be fetched again and the browser says it is online: the
      // extras are asked for again without a reload, and every live editor
      // takes them, its text and verdicts as they were.
      refusing = false;
      const before = asked;
      await page.evaluate(() => window.dispatchEvent(new Event("online")));
      await waitFor("the extras to be asked for again", () => asked > before);
      await page.locator(".cm-editor[data-extras]").first().waitFor({ timeout: 10000 });
      assert.equal(await page.locator(".cm-editor:not([data-extras])").count(), 0);
      await summary(page, /^0 of 3 scenarios pass$/);
    },
  ],
  [
    "a scenario that demonstrates a limit shows 'limit shown', distinct from passed",
    async ({ page, url }) => {
      await open(page, `${url}?exercise=counterexamples-bound-the-protection`);
      const limits = page.locator('.scenario[data-verdict="limit-shown"] .verdict');
      await limits.first().waitFor();
      assert.match(await limits.first().innerText(), /◆ limit shown/);
      assert.doesNotMatch(await limits.first().innerText(), /passed/);
      assert.match(page.url(), /exercise=counterexamples-bound-the-protection/);
    },
  ],
  [
    "Ctrl+Enter re-runs at once",
    async ({ page, url }) => {
      await open(page, url);
      await page.locator(EDITOR).click();
      await page.keyboard.press("Control+Enter");
      // Said at once, and then the verdicts, though they read as before.
      await waitForText(page.locator("#announcer"), /^(Checking your procedures now…|0 of 3 scenarios pass)$/);
      await waitForText(page.locator("#announcer"), /^0 of 3 scenarios pass$/);
      await summary(page, /^0 of 3 scenarios pass$/);
    },
  ],
  [
    "embed mode shows the exercise alone",
    async ({ page, url }) => {
      await open(page, `${url}?embed=1&exercise=${CLAIM}`);
      assert.equal(await page.locator(".exercise-list").count(), 0);
      assert.equal(await page.locator(".masthead").count(), 0);
      assert.match(await page.locator("#exercise-title").innerText(), /The claim that reads, then writes/);
    },
  ],
  [
    "at 390 px wide nothing overflows sideways",
    async ({ page, url }) => {
      await page.setViewportSize({ width: 390, height: 844 });
      await open(page, url);
      await page.locator('.scenario[data-scenario="one winner"] .scenario-select').click();
      await page.locator(".timeline").waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 392, `the page is ${width} px wide`);
    },
  ],
  [
    "the app reloads offline from its service worker",
    async ({ page, url, context }) => {
      await open(page, url);
      await cachedForOffline(page);
      await context.setOffline(true);
      await page.reload();
      await summary(page, /^0 of 3 scenarios pass$/);
      // An exercise never opened has its own page cached too.
      const ids = await page.locator("[data-exercise]").evaluateAll((buttons) => buttons.map((b) => b.dataset.exercise));
      const last = ids[ids.length - 1];
      await page.goto(`${url}${last}.html`);
      await live(page);
      assert.equal(await page.locator("[data-exercise][aria-current]").getAttribute("data-exercise"), last, `${last}.html opens offline on its own exercise`);
      await summary(page, VERDICT_COUNT);
      await context.setOffline(false);
    },
  ],
]);
