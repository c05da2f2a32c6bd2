// Registers the service worker (sw.js, next to this bundle) that saves the site for offline use, asks
// it to keep this page's files (with every page's code; large data only where this page uses it: see
// web/shared/sw.js), and says so in one quiet line once they are saved. Where service workers are not available (a file:// page, a browser or
// mode without them, an insecure origin, storage refused) nothing happens and the page works as
// before, online.

const SAVED = 'Available offline: this site\'s pages and what this page needs are saved in your browser.';
const NEWER = 'Available offline. A newer version has been saved: reload to use it.';

/** Asks the active worker to keep this page's files; resolves true once they are saved. */
function keepPage(worker) {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (ev) => resolve(!!(ev.data && ev.data.kept));
    worker.postMessage({ type: 'keep' }, [channel.port2]);
  });
}

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
  let controlled = !!container.controller, newer = false;
  // Controlled at load: this worker saved the page on an earlier visit (or saves it now: see below).
  if (controlled) show(SAVED);
  container.addEventListener('controllerchange', () => {
    // The first time: the worker has saved the pages open while it installed, this one among them,
    // and took over this page. Later: a new build was saved and replaced the old one; this page
    // still runs the old one until it is reloaded.
    if (controlled) { newer = true; show(NEWER); } else show(SAVED);
    controlled = true;
  });
  // updateViaCache 'none': the browser asks the server for sw.js itself on every check, never an
  // HTTP-cached copy; and every load asks for that check, so a new build (or the kill switch,
  // web/shared/sw-kill.js deployed as sw.js) is found on the next visit, not within a day.
  container.register(new URL('sw.js', import.meta.url), { updateViaCache: 'none' })
    .then((registration) => registration.update())
    .catch(() => {
      // No offline copy this time (private mode, storage full, offline, …): nothing the reader must act on.
    });
  // Once a worker is active (installed by this load or an earlier one, maybe for another page of the
  // site): it saves this page's files if it lacks any. The line marks when they are saved.
  container.ready
    .then((registration) => (registration.active ? keepPage(registration.active) : false))
    .then((kept) => {
      line.dataset.kept = String(kept);
      if (kept && !newer) show(SAVED);
    })
    .catch(() => {});
}
