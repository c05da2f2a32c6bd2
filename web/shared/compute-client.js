// The page's one client of its compute worker (web/pages/demo/demo-worker.js, a module worker of the same build).
// request() sends a state and resolves with what the worker computed, or with { stale: true } when a
// newer request superseded it, or { cancelled: true } after cancel(). Requests never queue: at most
// one runs and one waits, and a newer one replaces the waiting one. A run that has been going for
// longer than LONG_MS when a newer request comes is stopped by terminating the worker, which is then
// respawned (loading the module and vocabulary again: from the browser's cache, or the offline copy).
// A request whose worker says it waits for its pool of workers (a long document's main call: the
// worker's thread is free) is aborted instead: the pooled call stops at once and the worker stays.
import * as Comlink from 'comlink';
import { LONG_MS } from './scale.js';

export class ComputeClient extends EventTarget {
  /**
   * @param {URL|string} url  the worker script
   * @param {{ onLoadProgress?: (loaded: number, total: number) => void, onVocabulary?: (loaded: number, total: number, info: object|null, error?: string) => void, longMs?: number }} [opts]
   *   onVocabulary: the worker's full vocabulary as it downloads in the background after the first one
   *   (info: its size and dimension once the computations use it; error: why it could not be loaded).
   */
  constructor(url, { onLoadProgress, onVocabulary, longMs = LONG_MS } = {}) {
    super();
    this.url = url;
    this.onLoadProgress = onLoadProgress;
    this.onVocabulary = onVocabulary;
    this.longMs = longMs;
    this.gen = 0;          // the generation of the newest request
    this.running = null;   // { gen, st, opts, resolve, start }
    this.pending = null;
    this.respawns = 0;
    this.spawn();
  }

  spawn() {
    const t0 = performance.now();
    this.worker = new Worker(this.url, { type: 'module' });
    this.api = Comlink.wrap(this.worker);
    const load = this.onLoadProgress;
    // One progress channel per worker (a comlink proxy holds a MessagePort: not one per request).
    const progress = Comlink.proxy((gen, fraction, text, pooled) => {
      if (this.running && this.running.gen === gen) {
        if (pooled !== undefined) this.running.pooled = pooled;
        this.dispatchEvent(new CustomEvent('progress', { detail: { gen, fraction, text } }));
      }
    });
    const full = this.onVocabulary;
    this.ready = this.api.init(load ? Comlink.proxy((a, b) => load(a, b)) : null, progress,
      full ? Comlink.proxy((a, b, info, error) => full(a, b, info, error)) : null);
    this.ready.then(() => { this.spawnMs = performance.now() - t0; }, () => {});   // errors: reported by the first request
  }

  /** Stops the worker now and starts a new one; the running request resolves as `how`. */
  restart(how) {
    const run = this.running;
    this.running = null;
    this.worker.terminate();
    this.api[Comlink.releaseProxy]();
    this.respawns++;
    this.spawn();
    if (run) run.resolve({ [how]: true, gen: run.gen });
  }

  /** True while a request runs or waits. */
  get busy() { return !!(this.running || this.pending); }

  /** Milliseconds the running request has taken so far (0 when none). */
  runningFor() { return this.running && this.running.start ? performance.now() - this.running.start : 0; }

  /**
   * Computes everything for state `st` (see demo-worker.js prepare). Resolves with { result, gen },
   * { stale: true } (a newer request came), { cancelled: true } or { error }.
   */
  request(st, opts) {
    const gen = ++this.gen;
    return new Promise((resolve) => {
      if (this.pending) this.pending.resolve({ stale: true, gen: this.pending.gen });
      this.pending = { gen, st, opts, resolve };
      // Stop a long run rather than wait for it: one that has taken longer than LONG_MS and longer
      // than a respawn of the worker costs (a short one finishes sooner than a new worker starts).
      if (this.running && !this.running.pooled && this.running.start && this.runningFor() > Math.max(this.longMs, this.spawnMs || 0)) this.restart('stale');
      // A shorter one is asked to stop at its next step (the worker yields between scoring functions);
      // a pooled one that has run that long is aborted at once (the pool restarts the workers it
      // stops, which costs about what a respawn of this worker does), a shorter one finishes.
      else if (this.running) {
        const stopPool = !!this.running.pooled && this.runningFor() > Math.max(this.longMs, this.spawnMs || 0);
        this.api.abort(gen, stopPool).catch(() => {});
      }
      this.pump();
    });
  }

  /** Stops what runs and drops what waits; the page keeps its previous picture. */
  cancel() {
    if (this.pending) { this.pending.resolve({ cancelled: true, gen: this.pending.gen }); this.pending = null; }
    const run = this.running;
    if (run && run.pooled) {
      // The worker waits for its pool: the pooled call is aborted (at once) and the worker kept.
      this.running = null;
      this.api.cancel(run.gen).catch(() => {});
      run.resolve({ cancelled: true, gen: run.gen });
    } else if (run) {
      this.restart('cancelled');
    }
  }

  pump() {
    if (this.running || !this.pending) return;
    const job = this.pending;
    this.pending = null;
    const run = { ...job, start: 0 };   // start: when the worker takes it (after loading, if it was)
    this.running = run;
    const done = (answer) => {
      if (this.running !== run) return;   // cancelled or superseded: already resolved
      this.running = null;
      run.resolve(answer);
      this.pump();
    };
    this.ready
      .then(() => {
        run.start = performance.now();
        // opts.method 'model': the trained model's views (demo-worker.js model); else prepare.
        return run.opts.method === 'model' ? this.api.model(run.st, { gen: run.gen }) : this.api.prepare(run.st, { ...run.opts, gen: run.gen });
      })
      .then((result) => done(run.gen === this.gen && !result.aborted ? { result, gen: run.gen } : { stale: true, gen: run.gen }),
        (error) => done({ error, gen: run.gen }));
  }
}
