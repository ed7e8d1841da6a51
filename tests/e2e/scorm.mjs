// SCORM packages, acted out as a course author, an LMS and a learner. The
// author copies the built site, gives it two exercises of their own (the
// claim exercise under two new ids and titles) and runs `fencelab scorm`
// for SCORM 1.2 and for 2004; each zip is unpacked with unzip, as an LMS
// would, and served as Moodle serves an unpacked package (`moodleFiles`
// below): files only, never a folder, under a path the package cannot
// predict, with Moodle's content types. The same origin serves the "LMS":
// a host page running scorm-again (npm, the runtime every call goes
// through) that launches a SCO in an iframe. Moodle says nothing of
// `.wasm`, so the page must fall back from streaming compilation.
//
// The author also packages each exercise on its own (`--each-exercise`, for
// an LMS that grades one activity per package), and the same is asked of
// one such package per version as of the course's.
//
// The learner's first check is of the starting text, and the runtime then
// holds no score (the share the starting text passes is not the
// learner's); the learner's own edit brings the score, and the repair
// inside the SCO the pass; the test reads from the runtime what the LMS
// would record (status, score, suspend_data, the Commit and Terminate
// calls), relaunches with only what the runtime kept
// (this browser's storage cleared) and sees the texts come back; opens a
// SCO with no runtime around it (one line says so, the exercise works);
// hands it suspend data that is not its own (one line, the texts stay);
// and types texts too long for SCORM 1.2's 4,096 characters (one line:
// they stay in this browser). Every test fails on any request of the
// package's that Moodle answers 404: a folder, or a file it does not hold.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { inflateRawSync } from "node:zlib";
import { DIST, REPAIRED, ROOT, fencelabCommand, placement, runTests, typeClaim, waitForText } from "./harness.mjs";

const COURSE = [
  { id: "course-claim-one", title: "Week 3: the claim" },
  { id: "course-claim-two", title: "Week 3: the claim, again" },
];
const COURSE_TITLE = "Fencing, week 3";
/** The identifier the author gives the 2004 course and every per-exercise package. */
const IDENTIFIER = "fencing-week-3";
const VERSIONS = ["1.2", "2004"];
const RUNTIME_TIMEOUT_MS = 30_000;
/** SCORM 1.2's suspend_data, CMIString4096. */
const SUSPEND_CHARS_MAX_SCORM12 = 4096;

/**
 * Moodle's content types by extension, for the extensions a package holds
 * (lib/classes/filetypes.php, `core_filetypes::get_default_types`): `.js`
 * is application/x-javascript there, and an extension the table does not
 * list (`.wasm`, `.toml`, `.webmanifest`) is its unknown type,
 * document/unknown.
 */
const MOODLE_TYPES = {
  ".html": "text/html",
  ".htm": "text/html",
  ".js": "application/x-javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".xml": "application/xml",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/vnd.microsoft.icon",
  ".txt": "text/plain",
};
const MOODLE_UNKNOWN_TYPE = "document/unknown";
const LMS_PAGE_PATH = "/mod/scorm/player.php";

const work = await mkdtemp(join(tmpdir(), "fencelab-scorm-"));

/**
 * The packages served, each as its own activity of the LMS: the course's
 * for each version, and the first exercise's own package for each. Each
 * is unpacked at an address made as Moodle's are: the activity's context
 * id, the file area, and a revision number that Moodle ignores. Neither
 * number is anything the package could know.
 */
const PACKAGES = [
  { name: "1.2", version: "1.2", dir: join(work, "scorm1.2"), prefix: "/pluginfile.php/123/mod_scorm/content/1/" },
  { name: "2004", version: "2004", dir: join(work, "scorm2004"), prefix: "/pluginfile.php/4567/mod_scorm/content/89/" },
  ...VERSIONS.map((version, i) => ({
    name: `${version}, one exercise's package`,
    version,
    each: true,
    dir: join(work, `each-${version}`, COURSE[0].id),
    prefix: `/pluginfile.php/${200 + i}/mod_scorm/content/${7 + i}/`,
  })),
];
/** The course's package of `version`. */
const coursePackage = (version) => PACKAGES.find((p) => p.name === version);

/** The author's site with two exercises of their own, packaged twice and unzipped. */
async function buildPackages() {
  const site = join(work, "site");
  await cp(DIST, site, { recursive: true });
  const claim = await readFile(join(ROOT, "crates/model/exercises/01-claim-compare-and-set.toml"), "utf8");
  const names = [];
  for (const { id, title } of COURSE) {
    const mine = claim.replace('id = "claim-compare-and-set"', `id = "${id}"`).replace(/^title = ".*"$/m, `title = "${title}"`);
    assert.notEqual(mine, claim);
    await writeFile(join(site, "exercises", `${id}.toml`), mine);
    names.push(`"${id}.toml"`);
  }
  await writeFile(join(site, "exercises/index.toml"), `format = 1\nexercises = [${names.join(", ")}]\n`);
  const scorm = (...args) =>
    execFileSync(...fencelabCommand("scorm", site, "--title", COURSE_TITLE, ...args), {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
    });
  for (const version of VERSIONS) {
    const zip = join(work, `course-${version}.zip`);
    const started = Date.now();
    // The 1.2 course keeps the identifier made from its title.
    scorm("--version", version, "--out", zip, ...(version === "2004" ? ["--identifier", IDENTIFIER] : []));
    console.log(`# SCORM ${version}: ${(await stat(zip)).size} bytes, packaged in ${Date.now() - started} ms`);
    execFileSync("unzip", ["-q", zip, "-d", coursePackage(version).dir]);
    const each = join(work, `each-${version}`);
    scorm("--version", version, "--each-exercise", "--identifier", IDENTIFIER, "--out", each);
    for (const { id } of COURSE) execFileSync("unzip", ["-q", join(each, `${id}-scorm-${version}.zip`), "-d", join(each, id)]);
  }
}

/** The "LMS": scorm-again as `API` or `API_1484_11`, launching the SCO `?sco=` in a frame. */
const LMS_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>An LMS</title>
<script src="/scorm-again.js"></script></head>
<body style="margin:0;font-family:sans-serif"><h1 style="margin:0;font-size:18px">An LMS</h1>
<iframe id="sco" title="the SCO" style="display:block;width:1100px;height:760px;border:0"></iframe>
<script>
  const params = new URLSearchParams(location.search);
  const version = params.get("v");
  const api = version === "1.2" ? new Scorm12API({ logLevel: 5 }) : new Scorm2004API({ logLevel: 5 });
  if (params.has("saved")) api.loadFromFlattenedJSON(JSON.parse(params.get("saved")));
  window[version === "1.2" ? "API" : "API_1484_11"] = api;
  window.calls = [];
  for (const name of ["LMSInitialize", "LMSCommit", "LMSFinish", "Initialize", "Commit", "Terminate"]) {
    api.on(name, () => window.calls.push(name));
  }
  document.getElementById("sco").src = params.get("sco");
</script></body></html>`;

/**
 * Every request the pages made that Moodle answers 404 (a folder, a file
 * the package does not hold, or an address outside the package, which it
 * cannot know), since the test began, each with why: a frame asked for
 * one stays empty, so a test fails on any.
 */
const refused = [];

/**
 * The file (or null) a package's address names, as Moodle's file server
 * answers it. Moodle serves an unpacked package through `scorm_pluginfile`
 * (mod/scorm/lib.php): for the `content` area it drops the revision number
 * after the area's name, joins what follows into a path inside the
 * package, and looks up that one stored file. When there is none, or the
 * entry found is a folder, it sends a 404 at once; there is no index file
 * for a folder and no listing. What it does send goes out with the type
 * its file table gives the name's extension.
 */
async function moodleFiles(path) {
  for (const { prefix, dir: folder } of PACKAGES) {
    if (!path.startsWith(prefix)) continue;
    const inside = path.slice(prefix.length);
    const file = normalize(join(folder, inside));
    if (file !== folder && !file.startsWith(folder + "/")) return null;
    const found = await stat(file).catch(() => null);
    if (inside === "" || inside.endsWith("/") || found?.isDirectory()) {
      refused.push(`${path} (a folder)`);
      return null;
    }
    if (!found?.isFile()) refused.push(`${path} (no such file)`);
    return found?.isFile() ? file : null;
  }
  // The browser's own guess at an icon for a page opened alone is no
  // request of the package's.
  if (path !== "/favicon.ico") refused.push(`${path} (outside the package)`);
  return null;
}

function serve() {
  const runtime = join(ROOT, "node_modules/scorm-again/dist/scorm-again.js");
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === LMS_PAGE_PATH) return res.writeHead(200, { "content-type": "text/html" }).end(LMS_PAGE);
    const file = path === "/scorm-again.js" ? runtime : await moodleFiles(path);
    if (file === null) return res.writeHead(404).end("not found");
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": MOODLE_TYPES[extname(file)] ?? MOODLE_UNKNOWN_TYPE }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((ok) =>
    server.listen(0, "127.0.0.1", () =>
      ok({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((done) => server.close(done)) }),
    ),
  );
}

/** The address of SCO `id`'s launch page in the package `pkg`, as the LMS serves it. */
function scoAddress(url, pkg, id) {
  return new URL(`${pkg.prefix}scorm/${id}.html`, url).href;
}

/**
 * Waits until the exercise's verdicts show in `exercise` (a frame), failing
 * at once, with the addresses, when the package asked for what Moodle
 * answers 404: the frame would stay empty, as it does in Moodle.
 */
async function exerciseShown(exercise) {
  return until("the exercise's verdicts", async () => {
    assertAllServed();
    const text = await exercise.locator("#scenario-summary").first().innerText({ timeout: 1000 }).catch(() => "");
    return { ok: /^\d+ of \d+ scenarios pass$/.test(text), value: text };
  }, 120_000);
}

function assertAllServed() {
  assert.deepEqual(refused, [], "the package asked for addresses Moodle answers 404 (a frame asked for one stays empty)");
}

/** The exercise inside the SCO's launch page inside the LMS page. */
const inLms = (page) => page.frameLocator("#sco").frameLocator("iframe");

function lmsAddress(url, pkg, id, saved) {
  const address = new URL(LMS_PAGE_PATH, url);
  address.searchParams.set("v", pkg.version);
  address.searchParams.set("sco", scoAddress(url, pkg, id));
  if (saved) address.searchParams.set("saved", JSON.stringify(saved));
  return address.href;
}

/** What the runtime holds, read as the LMS would store it. */
function runtimeState(page, version) {
  return page.evaluate((version) => {
    const cmi = version === "1.2" ? window.API.cmi : window.API_1484_11.cmi;
    const common = { suspend_data: cmi.suspend_data, calls: window.calls.slice() };
    return version === "1.2"
      ? { ...common, status: cmi.core.lesson_status, raw: cmi.core.score.raw, max: cmi.core.score.max }
      : { ...common, completion: cmi.completion_status, success: cmi.success_status, scaled: cmi.score.scaled, raw: cmi.score.raw };
  }, version);
}

async function until(what, test, timeout = RUNTIME_TIMEOUT_MS) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await test();
    if (last.ok) return last.value;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last?.value)}`);
}

/** The texts in suspend data, decoded as the bridge wrote them. */
function keptTexts(suspend) {
  assert.match(suspend, /^fencelab1:[A-Za-z0-9+/=]+$/, "suspend_data is the bridge's format");
  const saved = JSON.parse(inflateRawSync(Buffer.from(suspend.slice("fencelab1:".length), "base64")).toString("utf8"));
  return saved.procedures;
}

/** The one-line notice above the exercise: visible, one line high, above the frame. */
async function assertOneLineNotice(sco, pattern) {
  const status = sco.locator("#lms-status");
  const text = await waitForText(status, pattern);
  const box = await placement(status);
  const lineHeight = await status.evaluate((element) => Number.parseFloat(getComputedStyle(element).lineHeight));
  assert.ok(box.bottom - box.top < 2 * lineHeight + 12, `the notice is one line, not ${box.bottom - box.top} px: ${text}`);
  const frame = await placement(sco.locator("iframe"));
  assert.ok(frame.top >= box.bottom - 1, `the exercise starts below the notice: ${JSON.stringify({ box, frame })}`);
  return text;
}

/** The score the runtime holds: SCORM 1.2's raw, or 2004's raw and scaled. */
const score = (state) => (state.scaled === undefined ? [state.raw] : [state.raw, state.scaled]);

/**
 * Launches the package `pkg`'s first exercise inside the LMS: the starting
 * text's check is recorded with no score, the learner's own edit brings
 * one, and the repair the pass. Returns what the runtime then holds.
 */
async function solveInLms(page, url, pkg) {
  const { version } = pkg;
  const wasmTypes = new Set();
  page.on("response", (response) => {
    if (response.url().endsWith(".wasm")) wasmTypes.add(response.headers()["content-type"]);
  });
  await page.goto(lmsAddress(url, pkg, COURSE[0].id));
  const exercise = inLms(page);
  const starting = await exerciseShown(exercise);
  assert.deepEqual([...wasmTypes], [MOODLE_UNKNOWN_TYPE], "the wasm arrived under Moodle's unknown type, and loaded");
  assert.equal(await page.frameLocator("#sco").locator("#lms-status").innerText(), "", "no notice with a runtime in reach");
  // The starting text's check is recorded (its texts are kept), with no
  // score: the share it passes is not the learner's.
  const first = await until("the starting text's check in the runtime", async () => {
    const s = await runtimeState(page, version);
    return { ok: s.suspend_data.startsWith("fencelab1:"), value: s };
  });
  assert.ok(first.calls.includes(version === "1.2" ? "LMSInitialize" : "Initialize"), `initialized: ${first.calls}`);
  assert.deepEqual(score(first), score(first).map(() => ""), `no score before the learner's own check (${starting})`);
  assert.equal(version === "1.2" ? first.status : first.completion, "incomplete");
  // The learner's own text, passing what the starting text passes: now
  // the LMS has a score, that share.
  const [, passed, total] = starting.match(/^(\d+) of (\d+)/).map(Number);
  await exercise.locator(".editor .cm-content").first().click();
  await page.keyboard.press("Control+End");
  await page.keyboard.insertText("\n-- my own note");
  const own = await until("a score after the learner's own check", async () => {
    const s = await runtimeState(page, version);
    return { ok: s.raw !== "", value: s };
  });
  assert.equal(own.raw, String(Math.round((100 * passed) / total)), `the share of ${starting}`);
  assert.equal(version === "1.2" ? own.status : own.success, version === "1.2" ? "incomplete" : "unknown", "not solved");
  console.log(`# SCORM ${pkg.name}: no score at launch, ${own.raw} after the learner's own check`);
  await typeClaim(page, REPAIRED, exercise);
  const solvedText = await waitForText(exercise.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/, 90_000);
  console.log(`# SCORM ${pkg.name}: solved (${solvedText})`);
  const solved =
    version === "1.2"
      ? (s) => s.status === "passed" && s.raw === "100" && s.max === "100"
      : (s) => s.completion === "completed" && s.success === "passed" && Number(s.scaled) === 1 && s.raw === "100";
  const state = await until(`the runtime to record the solve (SCORM ${pkg.name})`, async () => {
    const s = await runtimeState(page, version);
    return { ok: solved(s) && s.suspend_data !== "" && s.calls.includes(version === "1.2" ? "LMSCommit" : "Commit"), value: s };
  });
  assert.match(keptTexts(state.suspend_data).claim, /BEGIN IMMEDIATE;[\s\S]*-- @return token/, "the repaired text is in suspend_data");
  assert.ok(state.suspend_data.length <= SUSPEND_CHARS_MAX_SCORM12, `${state.suspend_data.length} characters of suspend_data`);
  // The learner leaves: the SCO's page goes away and terminates the session.
  await page.evaluate(() => (document.getElementById("sco").src = "about:blank"));
  const terminate = version === "1.2" ? "LMSFinish" : "Terminate";
  const left = await until(`${terminate}`, async () => {
    const s = await runtimeState(page, version);
    return { ok: s.calls.includes(terminate), value: s };
  });
  console.log(`# SCORM ${pkg.name}: calls ${left.calls.join(" ")}`);
  return left;
}

/**
 * Relaunches with only what the runtime kept (the texts, the status and
 * the score), this browser's own copy gone: the texts come back, and the
 * pass and the score stay as they were.
 */
async function relaunch(page, url, pkg, state) {
  const { version } = pkg;
  await page.evaluate(() => localStorage.clear());
  const saved =
    version === "1.2"
      ? { "cmi.suspend_data": state.suspend_data, "cmi.core.lesson_status": state.status, "cmi.core.score.raw": state.raw }
      : {
          "cmi.suspend_data": state.suspend_data,
          "cmi.completion_status": state.completion,
          "cmi.success_status": state.success,
          "cmi.score.raw": state.raw,
          "cmi.score.scaled": state.scaled,
        };
  await page.goto(lmsAddress(url, pkg, COURSE[0].id, saved));
  const exercise = inLms(page);
  await exerciseShown(exercise);
  await waitForText(exercise.locator(".editor .cm-content"), /BEGIN IMMEDIATE;[\s\S]*-- @return token/, 30_000);
  await waitForText(exercise.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/, 90_000);
  const again = await runtimeState(page, version);
  assert.equal(version === "1.2" ? again.status : again.success, "passed", "a relaunch keeps the pass");
  assert.equal(again.raw, "100", "and the score");
}

function packageTest(pkg) {
  return [
    `SCORM ${pkg.name} under scorm-again: no score until the learner's own check; solving records the pass, the score and the texts; a relaunch restores them`,
    async ({ page, url }) => {
      const state = await solveInLms(page, url, pkg);
      await relaunch(page, url, pkg, state);
    },
  ];
}

await buildPackages();

// The ADL's schemas (cargo xtask setup fetches them): the manifest's own
// namespace and ADL's extension to it, imported by one schema for xmllint.
const SCHEMAS = join(ROOT, "target/xtask-tools/scorm-xsd/package/lib/schemas/definitionFiles");
const SCHEMA_IMPORTS = {
  "1.2": ["scorm12edition", [["http://www.imsproject.org/xsd/imscp_rootv1p1p2", "imscp_rootv1p1p2.xsd"], ["http://www.adlnet.org/xsd/adlcp_rootv1p2", "adlcp_rootv1p2.xsd"]]],
  "2004": ["scorm20044thedition", [["http://www.imsglobal.org/xsd/imscp_v1p1", "imscp_v1p1.xsd"], ["http://www.adlnet.org/xsd/adlcp_v1p3", "adlcp_v1p3.xsd"]]],
};

/** Validates `manifest` with xmllint against the ADL's schemas of `version`. */
async function assertValidManifest(version, manifest) {
  const [edition, imports] = SCHEMA_IMPORTS[version];
  const folder = join(SCHEMAS, edition);
  await stat(folder).catch(() => assert.fail(`${folder} is missing: run cargo xtask setup`));
  const all = join(work, `schemas-${version}.xsd`);
  const lines = imports.map(([ns, file]) => `  <xsd:import namespace="${ns}" schemaLocation="${join(folder, file)}"/>`);
  await writeFile(all, `<?xml version="1.0"?>\n<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">\n${lines.join("\n")}\n</xsd:schema>\n`);
  try {
    execFileSync("xmllint", ["--noout", "--schema", all, manifest], { stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    assert.fail(`SCORM ${version}: imsmanifest.xml is not valid against the ADL's schemas:\n${error.stderr}`);
  }
}

/**
 * `body`, failing when the package asked meanwhile for an address Moodle
 * answers 404, even if the page went on without it; that failure is said
 * before any other, as it is the cause of what else went wrong.
 */
function askingForFilesOnly([name, body]) {
  return [
    name,
    async (context) => {
      refused.length = 0;
      let failure = null;
      try {
        await body(context);
      } catch (error) {
        failure = error;
      }
      assertAllServed();
      if (failure) throw failure;
    },
  ];
}

await runTests(
  "scorm",
  [
    [
      "each package has imsmanifest.xml at its root, an item per exercise by its title, every file it names, no service worker",
      async () => {
        const packages = VERSIONS.flatMap((version) => [
          // The 1.2 course's identifier is made from its title, as without --identifier.
          { version, dir: coursePackage(version).dir, title: COURSE_TITLE, items: COURSE, identifier: version === "1.2" ? "fencelab-Fencing--week-3-scorm12" : IDENTIFIER },
          ...COURSE.map((exercise) => ({
            version,
            dir: join(work, `each-${version}`, exercise.id),
            title: exercise.title,
            items: [exercise],
            identifier: `${IDENTIFIER}-${exercise.id}`,
          })),
        ]);
        for (const { version, dir, title, items: expected, identifier } of packages) {
          const manifest = await readFile(join(dir, "imsmanifest.xml"), "utf8");
          const schema = version === "1.2" ? "1.2" : "2004 4th Edition";
          assert.ok(manifest.includes(`<schemaversion>${schema}</schemaversion>`), `SCORM ${version}: ${schema}`);
          assert.ok(manifest.includes(`<manifest identifier="${identifier}" `), `SCORM ${version}: ${identifier}`);
          assert.match(manifest, new RegExp(`<organization identifier="course">\\s*<title>${title}</title>`), `${dir}: titled ${title}`);
          const items = [...manifest.matchAll(/<item identifier="[^"]+" identifierref="([^"]+)">\s*<title>([^<]+)<\/title>/g)];
          assert.deepEqual(items.map((m) => m[2]), expected.map((c) => c.title), `${dir}: the items by title`);
          const pages = (await readdir(join(dir, "scorm"))).filter((name) => name.endsWith(".html")).sort();
          assert.deepEqual(pages, expected.map((c) => `${c.id}.html`).sort(), `${dir}: a launch page per item, no other`);
          const type = version === "1.2" ? "scormtype" : "scormType";
          for (const [, ref] of items) {
            assert.match(manifest, new RegExp(`<resource identifier="${ref}" type="webcontent" adlcp:${type}="sco" href="scorm/[a-z0-9-]+\\.html">`));
          }
          for (const [, href] of manifest.matchAll(/<file href="([^"]+)"\/>/g)) await stat(join(dir, href));
          await assertValidManifest(version, join(dir, "imsmanifest.xml"));
          // The check bites: an element the schema does not know fails it.
          const broken = join(work, `broken-${version}.xml`);
          await writeFile(broken, manifest.replace("<organizations ", "<organisations ").replace("</organizations>", "</organisations>"));
          await assert.rejects(assertValidManifest(version, broken), /not valid against the ADL's schemas/);
          const top = await readdir(dir);
          assert.ok(!top.includes("sw.js") && !top.some((f) => /\.(br|gz)$/.test(f)), `SCORM ${version}: no sw.js, no .br/.gz: ${top}`);
        }
      },
    ],
    ...PACKAGES.map(packageTest),
    [
      "with no runtime in reach, one line says so, the exercise works, and no service worker is registered",
      async ({ page, url }) => {
        await page.goto(scoAddress(url, coursePackage("1.2"), COURSE[1].id));
        const text = await assertOneLineNotice(page, /^No LMS found/);
        console.log(`# without a runtime: ${text}`);
        const exercise = page.frameLocator("iframe");
        await exerciseShown(exercise);
        await typeClaim(page, REPAIRED, exercise);
        await waitForText(exercise.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/, 90_000);
        const registrations = await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length);
        assert.equal(registrations, 0, "a packaged frame registers no service worker");
      },
    ],
    [
      "suspend data that is not the bridge's is reported in one line and changes nothing",
      async ({ page, url }) => {
        await page.goto(lmsAddress(url, coursePackage("2004"), COURSE[0].id, { "cmi.suspend_data": "fencelab1:!!not base64!!" }));
        const sco = page.frameLocator("#sco");
        const text = await assertOneLineNotice(sco, /could not be read \(it is not base64\)/);
        console.log(`# a bad suspend_data: ${text}`);
        const editor = await waitForText(inLms(page).locator(".editor .cm-content"), /\S/);
        assert.doesNotMatch(editor, /BEGIN IMMEDIATE/, "the starting text stays");
      },
    ],
    [
      "texts too long for SCORM 1.2's 4,096 characters are kept in this browser only, and said so in one line",
      async ({ page, url }) => {
        await page.goto(lmsAddress(url, coursePackage("1.2"), COURSE[1].id));
        const exercise = inLms(page);
        await exerciseShown(exercise);
        await until("a first suspend_data", async () => {
          const s = await runtimeState(page, "1.2");
          return { ok: s.suspend_data.startsWith("fencelab1:"), value: s };
        });
        // Digits in no pattern deflate to about half their length: far
        // more than 4,096 characters of base64.
        let noise = "";
        for (let i = 0; noise.length < 12_000; i++) noise += ((i * 7_919 + (i >> 3) * 104_729) % 1_000_003).toString(36);
        await exercise.locator(".editor .cm-content").first().click();
        await page.keyboard.press("Control+End");
        await page.keyboard.insertText(`\n-- ${noise}`);
        const text = await assertOneLineNotice(page.frameLocator("#sco"), /too long for this LMS's 4,096 characters/);
        console.log(`# too long: ${text}`);
        const state = await runtimeState(page, "1.2");
        assert.equal(state.suspend_data, "", "the LMS keeps no older copy that would come back");
      },
    ],
  ].map(askingForFilesOnly),
  { serve },
);

await rm(work, { recursive: true, force: true });
