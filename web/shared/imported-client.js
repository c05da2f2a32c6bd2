// The model page's one client of its worker (web/pages/imported-attention/model-worker.js, a module worker of the same build),
// as web/shared/compute-client.js is the demo's. call(method, ...args) resolves with the worker's answer or
// rejects with the worker's error; cancel() terminates the worker at once (whatever it is computing
// stops there), rejects every call in flight with a CancelledError and starts a fresh worker, which
// loads the module again (from the browser's cache, or the offline copy). Progress of a call comes
// as 'progress' events { job, text, fraction }.
import * as Comlink from 'comlink';

export class CancelledError extends Error {
  constructor() { super('cancelled'); this.name = 'CancelledError'; }
}

export class ModelClient extends EventTarget {
  /** @param {URL|string} url the worker script */
  constructor(url) {
    super();
    this.url = url;
    this.jobs = 0;
    this.inFlight = new Set();   // { reject } of the calls the worker has not answered
    this.respawns = 0;
    this.spawn();
  }

  spawn() {
    this.worker = new Worker(this.url, { type: 'module' });
    this.api = Comlink.wrap(this.worker);
    // A worker that cannot load (or fails outside a call) fires 'error': what waits on it rejects.
    this.crashed = new Promise((_, reject) => {
      this.worker.addEventListener('error', (ev) => {
        ev.preventDefault();
        reject(new Error(`the page's worker stopped (${ev.message || 'its script could not be loaded'}); reload the page`));
      });
    });
    this.crashed.catch(() => {});
    // One progress channel per worker (a comlink proxy holds a MessagePort: not one per call).
    const progress = Comlink.proxy((job, text, fraction) => {
      this.dispatchEvent(new CustomEvent('progress', { detail: { job, text, fraction } }));
    });
    this.ready = Promise.race([this.api.init(progress), this.crashed]);
    this.ready.catch(() => {});   // reported by the first call
  }

  /** A new job number (progress events carry it). */
  nextJob() { return ++this.jobs; }

  /** Calls the worker's `method` (after it has loaded) with `args`; see web/pages/imported-attention/model-worker.js. */
  call(method, ...args) {
    return new Promise((resolve, reject) => {
      const entry = { reject };
      this.inFlight.add(entry);
      const { api, crashed } = this;
      this.ready
        .then(() => Promise.race([api[method](...args), crashed]))
        .then((v) => { if (this.inFlight.delete(entry)) resolve(v); },
          (e) => { if (this.inFlight.delete(entry)) reject(e); });
    });
  }

  /** True while a call waits for its answer. */
  get busy() { return this.inFlight.size > 0; }

  /** Stops the worker now and starts a fresh one; every call in flight rejects with CancelledError. */
  cancel() {
    this.worker.terminate();
    this.api[Comlink.releaseProxy]();
    this.respawns++;
    const calls = [...this.inFlight];
    this.inFlight.clear();
    this.spawn();
    for (const c of calls) c.reject(new CancelledError());
  }
}
