// fencelab's service worker: keeps a copy of the app so a reload works
// offline, and answers the app's files without asking the network.
//
// The build (crates/xtask/src/hashed.rs, trunk's post_build hook) writes the
// three lines below: ASSETS, every file the page and its worker fetch, each
// named after its content (`boot-<hash>.js`); PAGES, the pages; and CACHE,
// named after both lists. A name always means the same bytes, so an asset in
// the cache is answered from it at once; a new build is new names, a new
// service worker and a new cache, and the old cache is deleted when it takes
// over, so an old page never meets a new worker. The pages (index.html, each
// exercise's ID.html) and the site's exercises keep their names: network
// first (a new build is picked up at once), the cache when the network
// fails. Only same-origin GET requests are ever handled; the page makes no
// other kind.
const CACHE = "fencelab-unbuilt";
const ASSETS = [];
// The addresses that keep their names: index.html and each bundled
// exercise's page (ID.html, rendered at build time, web/prerender), so an
// exercise's own address opens offline; and the bundled exercise files the
// authoring view's templates fetch (templates/NAME.toml).
const PAGES = [];
const PAGE = ["./", ...PAGES];
/** The assets' paths, to tell them from the page's other requests. */
const HASHED = new Set(ASSETS.map((path) => new URL(path, self.location).pathname));

// The site's own exercises: its index and every file it names. The first
// visit fetched them before this worker controlled the page, so without this
// an author's exercise opened once would not reload offline. The index names
// plain file names only (crates/model/src/site.rs), quoted, ending in .toml.
const INDEX = "./exercises/index.toml";

async function cacheSiteExercises(cache) {
  const response = await fetch(INDEX);
  if (!response.ok) return;
  const text = await response.clone().text();
  await cache.put(INDEX, response);
  const files = [...text.matchAll(/"([A-Za-z0-9_.-]+\.toml)"/g)].map((match) => `./exercises/${match[1]}`);
  await Promise.all(files.map((path) => cache.add(path).catch(() => {})));
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) =>
        Promise.all([
          ...[...PAGE, ...ASSETS].map((path) => cache.add(path).catch(() => {})),
          cacheSiteExercises(cache).catch(() => {}),
        ]),
      )
      .then(() => self.skipWaiting()),
  );
});

// This build's cache replaces every earlier build's.
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names.filter((name) => name.startsWith("fencelab-") && name !== CACHE).map((name) => caches.delete(name)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

/** An asset from this build's cache, or from the network (then kept). */
async function immutable(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, { ignoreSearch: true });
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (HASHED.has(url.pathname)) {
    event.respondWith(immutable(request));
    return;
  }
  event.respondWith(
    fetch(request)
      .then((response) => {
        // A 404 is kept too: a site without its own exercises says so
        // offline as well, rather than failing to answer.
        if (response.ok || response.status === 404) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(() =>
        caches
          .match(request, { ignoreSearch: true })
          .then((hit) => hit ?? (request.mode === "navigate" ? caches.match("./") : undefined))
          .then((hit) => hit ?? new Response("offline, and not cached", { status: 503 })),
      ),
  );
});
