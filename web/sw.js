// The service worker that keeps the demo usable offline once it has been loaded. On install it
// saves every file of the page (the list and each file's SHA-256 are written in by
// scripts/build-web.mjs, see scripts/offline-manifest.mjs) into one cache named after the build's
// content hash; afterwards it answers requests for those files from that cache, never asking the
// network. A new build has a new hash, so a new sw.js: the browser installs it next to the old one,
// and once it has every file it takes over and deletes the caches of older builds.
// Not bundled and not a module (service workers as modules are not supported everywhere).

const VERSION = /* build: VERSION */ 'unbuilt';
const FILES = /* build: FILES */ {};   // path relative to this file → SHA-256 of its bytes (hex)
const PREFIX = 'attnscope-web-';
const CACHE = PREFIX + VERSION;

const at = (file) => new URL(file, self.location.href).href;   // the files sit next to this one
const scope = self.registration.scope;
const INDEX = at('index.html');
const PRECACHED = new Set(Object.keys(FILES).map(at));

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(Object.entries(FILES).map(async ([file, hash]) => {
      const url = at(file);
      // 'no-cache': revalidated with the server, so a stale copy in the HTTP cache is never saved.
      const response = await fetch(url, { cache: 'no-cache' });
      if (!response.ok) throw new Error(`sw: ${file}: HTTP ${response.status}`);
      // A file from another build (a deploy half done, a proxy's old copy) would mix versions in
      // this cache: refuse it, and the install fails and is retried on a later visit.
      const got = await sha256(await response.clone().arrayBuffer());
      if (got !== hash) throw new Error(`sw: ${file} is not the file of build ${VERSION}`);
      await cache.put(url, response);
    }));
    // Take over from an older build's worker at once. Safe for a page it was serving: the page
    // fetches every file it needs while it loads (one wasm, one vocabulary), so it asks nothing of
    // the new cache; its next load is the new build.
    await self.skipWaiting();
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
  let key = null;
  if (request.mode === 'navigate' && (url.href === scope || url.href === INDEX)) key = INDEX;
  else if (PRECACHED.has(url.href)) key = url.href;
  if (!key) return;   // not one of the page's files (a source map, say): the network, as without us
  event.respondWith((async () => {
    const cached = await caches.match(key, { cacheName: CACHE });
    // Missing only if the browser evicted the cache: fall back to the network.
    return cached || fetch(request);
  })());
});
