// Shared pieces of the browser end-to-end tests: a static server for the
// trunk-built site on 127.0.0.1, Debian's Chromium through playwright-core,
// a tiny test runner that reports like the other stages, and what a learner
// does on the claim exercise (typing the repaired claim), for every test file.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { readFile, readdir, mkdir } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import assert from "node:assert/strict";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium } from "playwright-core";

export const ROOT = resolve(new URL("../..", import.meta.url).pathname);
// FENCELAB_DIST names another trunk-built site (several builds on one
// machine each keep their own); `dist/` by default, where `trunk build` puts it.
export const DIST = process.env.FENCELAB_DIST ? resolve(process.env.FENCELAB_DIST) : join(ROOT, "dist");
export const ARTIFACTS = join(ROOT, "tests/artifacts");

/**
 * The folder of the binaries `cargo xtask test`'s native tests built (it names
 * it in FENCELAB_BUILT), or null outside that command. Building one again with
 * `cargo build -p` would take a minute: features unify differently.
 */
export const BUILT = process.env.FENCELAB_BUILT ?? null;

/**
 * The program and arguments that run `fencelab ARGS...` as an author runs it:
 * the binary in BUILT, else the CLI built and run by cargo.
 */
export function fencelabCommand(...args) {
  return BUILT
    ? [join(BUILT, "fencelab"), args]
    : ["cargo", ["run", "--quiet", "--locked", "-p", "fencelab-cli", "--", ...args]];
}

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".webmanifest": "application/manifest+json",
};

/**
 * Serves `dir` on 127.0.0.1 at a free port; resolves to { url, close }.
 * `headers` are added to every answer (a site whose embed.js other origins
 * import needs `access-control-allow-origin`); the path of every request
 * is pushed to `served`, when given, as it comes.
 */
export async function serveDir(dir = DIST, headers = {}, served = null) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    served?.push(path);
    const file = normalize(join(dir, path.endsWith("/") ? path + "index.html" : path));
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, "content-type": MIME[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}

/**
 * Serves `dir` with `cargo xtask serve --site` (the std server that sends
 * the precompressed copies and cache headers a static host should) at a
 * free port; resolves to { url, close } once it says where it listens.
 */
export async function serveWithXtask(dir) {
  const server = spawn("cargo", ["run", "--quiet", "-p", "xtask", "--", "serve", "--site", dir, "--port", "0"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((ok, fail) => {
    let seen = "";
    server.stdout.on("data", (chunk) => {
      seen += chunk;
      const found = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(seen);
      if (found) ok(found[1]);
    });
    server.on("exit", (code) => fail(new Error(`cargo xtask serve ended (${code}) before serving: ${seen}`)));
  });
  return {
    url,
    close: () =>
      new Promise((ok) => {
        server.once("exit", ok);
        server.kill();
      }),
  };
}

/**
 * The name the file trunk calls `name` has in the built site `dir`: the
 * build renames every asset `NAME-<16 hex>.EXT` after its content
 * (crates/xtask/src/hashed.rs); index.html, sw.js and embed.js keep theirs.
 */
export async function builtName(dir, name) {
  const files = await readdir(dir);
  if (files.includes(name)) return name;
  const dot = name.lastIndexOf(".");
  const [stem, extension] = [name.slice(0, dot), name.slice(dot)];
  const found = files.filter(
    (file) => file.startsWith(`${stem}-`) && file.endsWith(extension) && /^[0-9a-f]{16}$/.test(file.slice(stem.length + 1, -extension.length)),
  );
  assert.equal(found.length, 1, `one built ${name} in ${dir}: ${found.join(", ") || "none"}`);
  return found[0];
}

/**
 * Waits until the service worker controls `page` and its cache holds every
 * asset of this build (the list and the cache name the build wrote into
 * sw.js) and each of `paths`: then a reload works offline.
 */
export async function cachedForOffline(page, paths = []) {
  await page.evaluate(async (paths) => {
    const sleep = () => new Promise((ok) => setTimeout(ok, 100));
    await navigator.serviceWorker.ready;
    for (let i = 0; i < 100 && !navigator.serviceWorker.controller; i++) await sleep();
    const worker = await (await fetch("./sw.js")).text();
    const name = /^const CACHE = "([^"]+)";$/m.exec(worker)?.[1];
    const assets = JSON.parse(/^const ASSETS = (\[.*\]);$/m.exec(worker)?.[1] ?? "[]");
    if (!name || assets.length === 0) throw new Error("sw.js names no cache or no assets: was the site built by trunk with its hook?");
    const pages = JSON.parse(/^const PAGES = (\[.*\]);$/m.exec(worker)?.[1] ?? "[]");
    const wanted = [...assets, ...pages].map((path) => path.slice(1)).concat(paths);
    const cache = await caches.open(name);
    const has = async () => {
      const keys = (await cache.keys()).map((request) => new URL(request.url).pathname);
      return wanted.every((path) => keys.some((key) => key.endsWith(path)));
    };
    for (let i = 0; i < 100 && !(await has()); i++) await sleep();
    if (!(await has())) throw new Error(`the service worker did not cache ${wanted.join(", ")}`);
  }, paths);
}

/** Debian's Chromium, headless, with the flags this closed network needs. */
export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Runs named async tests in order, each with a fresh page, saving a
 * screenshot per test, and exits non-zero when any fails. `serve` starts
 * the site's server (by default `serveDir()` of the built site).
 */
export async function runTests(suite, tests, { serve = serveDir } = {}) {
  await mkdir(ARTIFACTS, { recursive: true });
  const site = await serve();
  const browser = await launchChromium();
  let passed = 0;
  let failed = 0;
  try {
    for (const [name, body] of tests) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const errors = [];
      // Every page of the context is watched, a tab the page opens too: an
      // uncaught error or a dialog (a script's alert) fails the test.
      context.on("page", (opened) => {
        opened.on("pageerror", (e) => errors.push(String(e)));
        opened.on("dialog", (dialog) => {
          errors.push(`a dialog opened: ${dialog.message()}`);
          dialog.dismiss().catch(() => {});
        });
        opened.on("console", (message) => {
          if (/Content.Security.Policy/i.test(message.text())) errors.push(`CSP: ${message.text()}`);
        });
      });
      const page = await context.newPage();
      // The page must keep to its own origin and its Content-Security-Policy.
      const origin = new URL(site.url).origin;
      context.on("request", (request) => {
        const address = new URL(request.url());
        if (/^https?:$/.test(address.protocol) && address.origin !== origin) {
          errors.push(`a request left the page's origin: ${request.url()}`);
        }
      });
      const started = Date.now();
      try {
        await body({ page, url: site.url, context, browser });
        if (errors.length) throw new Error(`the page threw: ${errors.join("; ")}`);
        passed++;
        console.log(`ok - ${name} (${Date.now() - started} ms)`);
      } catch (error) {
        failed++;
        console.log(`not ok - ${name}\n  ${String(error?.stack ?? error).replace(/\n/g, "\n  ")}`);
      } finally {
        const shot = join(ARTIFACTS, `${suite}-${name.replace(/[^a-z0-9]+/gi, "-")}.png`);
        await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await site.close();
  }
  console.log(`${suite}: ${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

/** Runs axe-core on the page as it is; fails on any serious or critical violation. */
export async function assertNoSeriousViolations(page, view) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = serious
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`)
    .join("\n  ");
  assert.equal(serious.length, 0, `${view}: ${serious.length} serious or critical violations:\n  ${report}`);
}

// ----- acting as a learner on the claim exercise -----

export const CLAIM = "claim-compare-and-set";
export const EDITOR = '.editor[data-procedure="claim"] .cm-content';

// The repaired claim, one statement per line so typing needs no care about
// auto-indentation. CodeMirror closes brackets and quotes as they are typed
// and steps over the closing one when it is typed too, so the text is typed
// exactly as it reads.
export const REPAIRED = [
  "BEGIN IMMEDIATE;",
  "INSERT INTO lease_tokens (kind) VALUES ('mailbox_claim') RETURNING token;",
  "UPDATE messages SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token",
  "WHERE id = :message_id AND state = 'NEW';",
  "-- @refuse not_claimable unless changed 1: not claimable",
  "COMMIT;",
  "-- @return token",
];

/** Polls `test` until it gives something truthy, and returns that; `what` names it on a timeout. */
export async function waitFor(what, test, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const seen = await test();
    if (seen) return seen;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Waits until `locator`'s text matches `pattern`, reporting the last text seen. */
export async function waitForText(locator, pattern, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let text = "";
  while (Date.now() < deadline) {
    text = (await locator.first().innerText().catch(() => "")) ?? "";
    if (pattern.test(text)) return text;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`timed out waiting for ${pattern}; last text: ${JSON.stringify(text)}`);
}

/**
 * Waits until the verdicts shown are those of the newest check: every edit
 * is checked, and older verdicts stay shown (marked stale) until the newest
 * arrive, so a verdict read before this may be an earlier text's.
 */
export async function verdictsCurrent(page, timeout = 90_000) {
  await live(page, timeout);
  await settled(page);
  await page.waitForFunction(
    () => {
      const list = document.querySelector("[data-check-seq]");
      return list !== null && list.dataset.checkSeq === list.dataset.reportSeq;
    },
    null,
    { timeout },
  );
}

/**
 * Waits for the first verdict count or an editor that could not start,
 * whichever comes first (an editor's refusal is said at once, not after a
 * long wait); resolves to the refusal's text, or null.
 */
export async function editorRefused(page, timeout = 90_000) {
  const seen = await page.waitForFunction(() => {
    const alert = document.querySelector(".procedure .error[role=alert]");
    if (alert) return { refused: alert.textContent };
    return /^\d+ of \d+ scenarios? pass/.test(document.querySelector("#scenario-summary")?.textContent ?? "") ? { refused: null } : null;
  }, null, { timeout, polling: 100 }).then((h) => h.jsonValue());
  return seen.refused;
}

/**
 * The verdict count as the page says it: "N of M scenarios pass", with
 * ", L limits shown" where limits showed (a limit is never a pass).
 */
export const VERDICT_COUNT = /^\d+ of \d+ scenarios? pass(es)?(, \d+ limits? shown)?$/;

/** Opens the page at `url` and waits for its first verdicts. */
export async function open(page, url) {
  await page.goto(url);
  await waitForText(page.locator("#scenario-summary"), VERDICT_COUNT);
  await live(page);
}

/**
 * Waits until the app answers the learner: a prerendered page shows its
 * verdicts before its wasm has even loaded, and a click on that HTML does
 * nothing until the app has hydrated it and read the saved work
 * (`data-live`, which a page rendered afresh has from its first frame).
 */
export async function live(page, timeout = 90_000) {
  await page.locator(".app[data-live]").first().waitFor({ state: "attached", timeout });
}

/**
 * Waits until every editor has its extras (web/editor/extras.js: the SQL
 * colours, completion, search, lint), which the page loads once it is idle
 * after its first editor: a test of one of them waits for them first, as a
 * learner's first keystrokes need not.
 */
export async function editorExtras(page, timeout = 30_000) {
  await page.waitForFunction(
    () => {
      const editors = [...document.querySelectorAll(".cm-editor")];
      return editors.length > 0 && editors.every((editor) => editor.hasAttribute("data-extras"));
    },
    null,
    { timeout, polling: 50 },
  );
}

/**
 * Clears the claim editor (or the one `editor` selects) and types `lines`,
 * closing any completion popup before each newline; `within` is the page or
 * a frame (a frameLocator) that holds the editor.
 */
export async function typeClaim(page, lines, within = page, editor = EDITOR) {
  await within.locator(editor).click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  for (const [i, line] of lines.entries()) {
    await page.keyboard.type(line);
    await page.keyboard.press("Escape");
    if (i < lines.length - 1) await page.keyboard.press("Enter");
  }
}

// ----- geometry: what the user sees -----

/** Where `locator`'s element is, and what could hide it. */
export async function placement(locator) {
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    // Every ancestor that scrolls or clips: the element must lie inside its
    // client area (its box without borders and scroll bars).
    const clippedBy = [];
    for (let a = element.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX === "visible" && style.overflowY === "visible") continue;
      const r = a.getBoundingClientRect();
      const left = r.left + a.clientLeft;
      const top = r.top + a.clientTop;
      if (box.left < left - 0.5 || box.right > left + a.clientWidth + 0.5 || box.top < top - 0.5 || box.bottom > top + a.clientHeight + 0.5) {
        clippedBy.push(`${a.tagName.toLowerCase()}.${a.className}`);
      }
    }
    const x = box.left + box.width / 2;
    const y = box.top + box.height / 2;
    const hit = document.elementFromPoint(x, y);
    return {
      top: Math.round(box.top),
      bottom: Math.round(box.bottom),
      left: Math.round(box.left),
      right: Math.round(box.right),
      viewportWidth: window.innerWidth,
      viewportHeight: window.innerHeight,
      clippedBy,
      onTop: hit !== null && (hit === element || element.contains(hit)),
    };
  });
}

export function assertInView(box, what) {
  const where = JSON.stringify(box);
  assert.ok(box.bottom > box.top, `${what} has no height: ${where}`);
  assert.ok(box.top >= 0 && box.bottom <= box.viewportHeight, `${what} is not inside the viewport: ${where}`);
  assert.ok(box.left >= 0 && box.right <= box.viewportWidth, `${what} is outside the viewport sideways: ${where}`);
  assert.deepEqual(box.clippedBy, [], `${what} is clipped by a scrolling ancestor: ${where}`);
  assert.ok(box.onTop, `${what} is covered by another element: ${where}`);
}

/** Lets the effects of the last render run (they follow the next frame). */
export async function settled(page) {
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
}
