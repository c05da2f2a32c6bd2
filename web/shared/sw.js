// The service worker that keeps the site's pages usable offline once one of them has been loaded.
// The first visit of any page saves the code of every page (HTML, scripts, styles, wasm, workers:
// SITE), so the other pages then open offline too; large data is saved only by a page that uses it
// (the vocabulary, by the demo and the lab: PAGES), so lab part 3 or the model page never downloads
// the 50 MB vocabulary; the trained model (MODEL) is saved as a page first downloads it. The build
// writes in every file with its SHA-256, SITE, and for each page the files it needs (scripts/build-web.mjs, see scripts/offline-manifest.mjs). Files go into one cache
// named after the build's content hash: on install, SITE, the large files of the pages open now (the
// one registering this worker among them) and those an older build's cache held; afterwards, the
// large files of each page that loads (web/shared/offline.js asks with a 'keep' message). Requests for saved files are answered from the
// cache, never asking the network. A new build has a new hash, so a new sw.js: the browser installs
// it next to the old one, and once it has the files it takes over and deletes older builds' caches.
// Not bundled and not a module (service workers as modules are not supported everywhere).

const VERSION = /* build: VERSION */ 'unbuilt';
const FILES = /* build: FILES */ {};   // path relative to this file → SHA-256 of its bytes (hex)
const PAGES = /* build: PAGES */ {};   // page (its .html) → the files it needs, itself included
const SITE = /* build: SITE */ [];     // every page's code: saved by the first visit of any page
// The trained model's files (about 14 MB) → SHA-256: never fetched by the worker itself, but saved as
// a page first downloads them (the fetch handler), so the model downloads once and then opens offline.
const MODEL = /* build: MODEL */ {};
const PREFIX = 'attnscope-web-';
const CACHE = PREFIX + VERSION;

const at = (file) => new URL(file, self.location.href).href;   // the files sit next to this one
const scope = self.registration.scope;
const INDEX = at('index.html');
const PRECACHED = new Set(Object.keys(FILES).map(at));
const MODEL_AT = new Map(Object.keys(MODEL).map((f) => [at(f), f]));

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether a response holds this build's `file` (its SHA-256 in FILES or MODEL); the response stays unread. */
async function isBuildFile(file, response) {
  return await sha256(await response.clone().arrayBuffer()) === (FILES[file] ?? MODEL[file]);
}

/** The page (a key of PAGES) at a URL, or null; the scope itself is the demo. */
function pageAt(href) {
  const url = new URL(href);
  url.search = '';
  url.hash = '';
  if (url.href === scope) return 'index.html';
  return Object.keys(PAGES).find((p) => at(p) === url.href) || null;
}

/** Saves SITE, the files of `pages` and `more` that the cache lacks, each checked against the build's hash. */
async function keep(pages, more = []) {
  const cache = await caches.open(CACHE);
  const files = new Set([...SITE, ...more]);
  for (const p of pages) for (const f of PAGES[p] || []) files.add(f);
  await Promise.all([...files].map(async (file) => {
    const url = at(file);
    if (await cache.match(url)) return;
    // 'no-cache': revalidated with the server, so a stale copy in the HTTP cache is never saved.
    const response = await fetch(url, { cache: 'no-cache' });
    if (!response.ok) throw new Error(`sw: ${file}: HTTP ${response.status}`);
    // A file from another build (a deploy half done, a proxy's old copy) would mix versions in
    // this cache: refuse it, and the install (or the keep) fails and is retried on a later visit.
    if (!(await isBuildFile(file, response))) throw new Error(`sw: ${file} is not the file of build ${VERSION}`);
    await cache.put(url, response);
  }));
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const pages = new Set();
    for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) {
      const p = pageAt(client.url);
      if (p) pages.add(p);
    }
    // The large files an older build saved (a page that uses them was visited): saved again, in
    // their new version; those never used stay unsaved.
    const large = new Set();
    const site = new Set(SITE);
    for (const name of await caches.keys()) {
      if (!name.startsWith(PREFIX) || name === CACHE) continue;
      const old = await caches.open(name);
      for (const f of [...Object.keys(FILES), ...Object.keys(MODEL)]) if (!site.has(f) && await old.match(at(f))) large.add(f);
    }
    await keep(pages, [...large]);
    // Take over from an older build's worker at once. Safe for a page it was serving: the page
    // fetches every file it needs while it loads (one wasm, one vocabulary), so it asks nothing of
    // the new cache; its next load is the new build.
    await self.skipWaiting();
  })());
});

// A page that loaded asks for its files ({ type: 'keep' }, a MessagePort to answer on): saved, the
// answer is { kept: true }; else { kept: false, error }.
self.addEventListener('message', (event) => {
  if (!event.data || event.data.type !== 'keep') return;
  const port = event.ports && event.ports[0];
  const page = event.source && event.source.url ? pageAt(event.source.url) : null;
  event.waitUntil((async () => {
    try {
      if (!page) throw new Error('not one of the pages this worker saves');
      await keep([page]);
      if (port) port.postMessage({ kept: true, page });
    } catch (e) {
      if (port) port.postMessage({ kept: false, page, error: String(e && e.message || e) });
    }
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    // Control the page that registered this worker too, so it works offline without a reload.
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';   // a request's URL keeps the fragment (the page's state lives there)
  const modelFile = MODEL_AT.get(url.href);
  if (modelFile) {
    // The model: from the cache once saved; else from the network, the page reading it as it comes
    // (its progress bar), and a copy saved once it is whole and is this build's file.
    event.respondWith((async () => {
      const cached = await caches.match(url.href, { cacheName: CACHE });
      if (cached) return cached;
      const response = await fetch(request);
      if (response.status === 200) {
        const copy = response.clone();
        event.waitUntil((async () => {
          // Another build's file (a deploy half done) is not saved.
          if (await isBuildFile(modelFile, copy)) await (await caches.open(CACHE)).put(url.href, copy);
        })().catch(() => {}));
      }
      return response;
    })());
    return;
  }
  let key = null;
  if (request.mode === 'navigate' && (url.href === scope || url.href === INDEX)) key = INDEX;
  else if (PRECACHED.has(url.href)) key = url.href;
  if (!key) return;   // not one of the page's files (a source map, say): the network, as without us
  event.respondWith((async () => {
    const cached = await caches.match(key, { cacheName: CACHE });
    // Missing if no page that needs it was kept yet, or if the browser evicted the cache: the network.
    return cached || fetch(request);
  })());
});
