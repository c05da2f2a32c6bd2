// Registers the service worker (sw.js, next to this bundle) that saves the page for offline use, and
// says so in one quiet line once the worker controls the page. Where service workers are not
// available (a file:// page, a browser or mode without them, an insecure origin, storage refused)
// nothing happens and the page works as before, online.

/** @param {HTMLElement} line  a hidden element for the one-line status */
export function keepForOffline(line) {
  let container;
  try {
    if (!/^https?:$/.test(location.protocol)) return;
    container = navigator.serviceWorker;   // undefined in insecure contexts; throws in some sandboxes
  } catch {
    return;
  }
  if (!container || typeof container.register !== 'function') return;
  const show = (text) => {
    line.textContent = text;
    line.hidden = false;
  };
  let controlled = !!container.controller;
  if (controlled) show('Available offline: this page and its vocabulary are saved in your browser.');
  container.addEventListener('controllerchange', () => {
    // The first time: the worker has saved everything and took over this page. Later: a new build
    // was saved and replaced the old one; this page still runs the old one until it is reloaded.
    show(controlled ? 'Available offline. A newer version has been saved: reload to use it.'
      : 'Available offline: this page and its vocabulary are saved in your browser.');
    controlled = true;
  });
  // updateViaCache 'none': the browser asks the server for sw.js itself on every check, never an
  // HTTP-cached copy; and every load asks for that check, so a new build (or the kill switch,
  // web/sw-kill.js deployed as sw.js) is found on the next visit, not within a day.
  container.register(new URL('sw.js', import.meta.url), { updateViaCache: 'none' })
    .then((registration) => registration.update())
    .catch(() => {
      // No offline copy this time (private mode, storage full, offline, …): nothing the reader must act on.
    });
}
