// fencelab's service worker: keeps a copy of the app so a reload works
// offline. Network first (a new build is picked up at once), the cache when
// the network fails. Only same-origin GET requests are ever handled; the page
// makes no other kind.
const CACHE = "fencelab-v1";
const APP = [
  "./",
  "./index.html",
  "./boot.js",
  "./editor.js",
  "./style.css",
  "./fencelab-web.js",
  "./fencelab-web_bg.wasm",
  "./worker_loader.js",
  "./worker.js",
  "./worker_bg.wasm",
];

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
          ...APP.map((path) => cache.add(path).catch(() => {})),
          cacheSiteExercises(cache).catch(() => {}),
        ]),
      )
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
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
