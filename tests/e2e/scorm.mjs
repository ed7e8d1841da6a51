// SCORM packages, acted out as a course author, an LMS and a learner. The
// author copies the built site, gives it two exercises of their own (the
// claim exercise under two new ids and titles) and runs `fencelab scorm`
// for SCORM 1.2 and for 2004; each zip is unpacked with unzip, as an LMS
// would, and served from one origin that also serves the "LMS": a host page
// running scorm-again (npm, the runtime every call goes through) that
// launches a SCO in an iframe. The server says `.wasm` is
// application/octet-stream, as many LMS file servers do, so the page must
// fall back from streaming compilation.
//
// The learner repairs the claim inside the SCO; the test then reads from
// the runtime what the LMS would record (status, score, suspend_data, the
// Commit and Terminate calls), relaunches with only what the runtime kept
// (this browser's storage cleared) and sees the texts come back; opens a
// SCO with no runtime around it (one line says so, the exercise works);
// hands it suspend data that is not its own (one line, the texts stay);
// and types texts too long for SCORM 1.2's 4,096 characters (one line:
// they stay in this browser).
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
const VERSIONS = ["1.2", "2004"];
const RUNTIME_TIMEOUT_MS = 30_000;
/** SCORM 1.2's suspend_data, CMIString4096. */
const SUSPEND_CHARS_MAX_SCORM12 = 4096;

/** Served as many LMS file servers do: no application/wasm. */
const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".xml": "application/xml",
};

const work = await mkdtemp(join(tmpdir(), "fencelab-scorm-"));

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
  for (const version of VERSIONS) {
    const zip = join(work, `course-${version}.zip`);
    const started = Date.now();
    execFileSync(...fencelabCommand("scorm", site, "--version", version, "--out", zip, "--title", COURSE_TITLE), {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
    });
    console.log(`# SCORM ${version}: ${(await stat(zip)).size} bytes, packaged in ${Date.now() - started} ms`);
    execFileSync("unzip", ["-q", zip, "-d", join(work, `scorm${version}`)]);
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

function serve() {
  const runtime = join(ROOT, "node_modules/scorm-again/dist/scorm-again.js");
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === "/lms.html") return res.writeHead(200, { "content-type": MIME[".html"] }).end(LMS_PAGE);
    const file = path === "/scorm-again.js" ? runtime : normalize(join(work, path.endsWith("/") ? path + "index.html" : path));
    if (file !== runtime && !file.startsWith(work)) return res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": MIME[extname(file)] ?? "application/octet-stream" }).end(body);
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

/** The exercise inside the SCO's launch page inside the LMS page. */
const inLms = (page) => page.frameLocator("#sco").frameLocator("iframe");

function lmsAddress(url, version, id, saved) {
  const address = new URL("lms.html", url);
  address.searchParams.set("v", version);
  address.searchParams.set("sco", `/scorm${version}/scorm/${id}.html`);
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

/** Solves the exercise inside the LMS and returns what the runtime then holds. */
async function solveInLms(page, url, version) {
  const wasmTypes = new Set();
  page.on("response", (response) => {
    if (response.url().endsWith(".wasm")) wasmTypes.add(response.headers()["content-type"]);
  });
  await page.goto(lmsAddress(url, version, COURSE[0].id));
  const exercise = inLms(page);
  await waitForText(exercise.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/, 120_000);
  assert.deepEqual([...wasmTypes], ["application/octet-stream"], "the wasm arrived under a wrong MIME type, and loaded");
  assert.equal(await page.frameLocator("#sco").locator("#lms-status").innerText(), "", "no notice with a runtime in reach");
  const before = await runtimeState(page, version);
  assert.ok(before.calls.includes(version === "1.2" ? "LMSInitialize" : "Initialize"), `initialized: ${before.calls}`);
  await typeClaim(page, REPAIRED, exercise);
  const total = await waitForText(exercise.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/, 90_000);
  console.log(`# SCORM ${version}: solved (${total})`);
  const solved =
    version === "1.2"
      ? (s) => s.status === "passed" && s.raw === "100" && s.max === "100"
      : (s) => s.completion === "completed" && s.success === "passed" && Number(s.scaled) === 1 && s.raw === "100";
  const state = await until(`the runtime to record the solve (SCORM ${version})`, async () => {
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
  console.log(`# SCORM ${version}: calls ${left.calls.join(" ")}`);
  return left;
}

/** Relaunches with only what the runtime kept, this browser's own copy gone. */
async function relaunch(page, url, version, state) {
  await page.evaluate(() => localStorage.clear());
  const saved =
    version === "1.2"
      ? { "cmi.suspend_data": state.suspend_data, "cmi.core.lesson_status": state.status, "cmi.core.score.raw": state.raw }
      : { "cmi.suspend_data": state.suspend_data, "cmi.completion_status": state.completion, "cmi.success_status": state.success };
  await page.goto(lmsAddress(url, version, COURSE[0].id, saved));
  const exercise = inLms(page);
  await waitForText(exercise.locator(".editor .cm-content"), /BEGIN IMMEDIATE;[\s\S]*-- @return token/, 120_000);
  await waitForText(exercise.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/, 90_000);
  const again = await runtimeState(page, version);
  assert.equal(version === "1.2" ? again.status : again.success, "passed", "a relaunch keeps the pass");
}

function versionTest(version) {
  return [
    `SCORM ${version} under scorm-again: solving records the pass, the score and the texts; a relaunch restores them`,
    async ({ page, url }) => {
      const state = await solveInLms(page, url, version);
      await relaunch(page, url, version, state);
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

await runTests(
  "scorm",
  [
    [
      "each package has imsmanifest.xml at its root, an item per exercise by its title, every file it names, no service worker",
      async () => {
        for (const version of VERSIONS) {
          const dir = join(work, `scorm${version}`);
          const manifest = await readFile(join(dir, "imsmanifest.xml"), "utf8");
          const schema = version === "1.2" ? "1.2" : "2004 4th Edition";
          assert.ok(manifest.includes(`<schemaversion>${schema}</schemaversion>`), `SCORM ${version}: ${schema}`);
          assert.ok(manifest.includes(`<title>${COURSE_TITLE}</title>`));
          const items = [...manifest.matchAll(/<item identifier="[^"]+" identifierref="([^"]+)">\s*<title>([^<]+)<\/title>/g)];
          assert.deepEqual(items.map((m) => m[2]), COURSE.map((c) => c.title), `SCORM ${version}: the items by title`);
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
    versionTest("1.2"),
    versionTest("2004"),
    [
      "with no runtime in reach, one line says so, the exercise works, and no service worker is registered",
      async ({ page, url }) => {
        await page.goto(new URL(`scorm1.2/scorm/${COURSE[1].id}.html`, url).href);
        const text = await assertOneLineNotice(page, /^No LMS found/);
        console.log(`# without a runtime: ${text}`);
        const exercise = page.frameLocator("iframe");
        await waitForText(exercise.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/, 120_000);
        await typeClaim(page, REPAIRED, exercise);
        await waitForText(exercise.locator("#scenario-summary"), /^(\d+) of \1 scenarios pass$/, 90_000);
        const registrations = await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length);
        assert.equal(registrations, 0, "a packaged frame registers no service worker");
      },
    ],
    [
      "suspend data that is not the bridge's is reported in one line and changes nothing",
      async ({ page, url }) => {
        await page.goto(lmsAddress(url, "2004", COURSE[0].id, { "cmi.suspend_data": "fencelab1:!!not base64!!" }));
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
        await page.goto(lmsAddress(url, "1.2", COURSE[1].id));
        const exercise = inLms(page);
        await waitForText(exercise.locator("#scenario-summary"), /^\d+ of \d+ scenarios pass$/, 120_000);
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
  ],
  { serve },
);

await rm(work, { recursive: true, force: true });
