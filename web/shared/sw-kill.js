// The kill switch of the offline copy. To take the demo's service worker off every browser that
// saved the page, deploy this file AS sw.js (cp sw-kill.js sw.js) in place of the built one, and
// leave it there. Browsers check sw.js on every visit (offline.js registers with
// updateViaCache: 'none' and asks for an update on each load), install this worker, which deletes
// the page's caches, unregisters itself and reloads the open pages from the network.
// (Removing sw.js instead does not work: a failed update check keeps the old worker forever.)

const PREFIX = 'attnscope-web-';

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    let removed = 0;
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && await caches.delete(name)) removed++;
    }
    await self.registration.unregister();
    // Reload the pages an old worker served, so they come from the network again. Only when there
    // was a saved copy: pages keep registering sw.js on each load, and a page already served by
    // the network must not be reloaded again and again.
    if (removed > 0) {
      for (const client of await self.clients.matchAll({ type: 'window' })) client.navigate(client.url);
    }
  })());
});
