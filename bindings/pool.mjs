// attnscope pool: the scope's calls on every core. Each worker (worker_threads in node, a module
// worker in browsers) holds one wasm instance; a call is validated here exactly as the scope
// validates it, split over query rows in blocks of the fused kernel's 64-row block (so every row
// is computed by the same tiles, with the same neighbours in its tile, as in one scope; under the
// causal mask a share counts its rows from its first row's index: the numbers are the scope's, bit
// for bit), and the shares' rows are put back together in order. No
// SharedArrayBuffer: each worker gets its own copy of the keys and values and its rows by transfer;
// results come back by transfer. See docs/pool.md.
import * as Comlink from 'comlink';
import { checkInteger, checkOptionKeys, describeValue, optedInFiles, toAbsoluteUrl } from './scope.mjs';
import { planner } from './scope-plan.mjs';
import { tokenFields } from './scope-text.mjs';
import { errorTransfer, nodeEndpoint, wireRecord } from './pool-wire.mjs';

Comlink.transferHandlers.set('throw', errorTransfer(Comlink.transferHandlers.get('throw')));

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node) && typeof window === 'undefined' &&
  typeof WorkerGlobalScope === 'undefined';
const MAX_WORKERS = 256;
// Query rows per block of the fused kernel (src/kernels/fused_simd.cpp, kQueries; its 4-row tiles,
// the GEMMs' 4-row tiles and the blocked paths' 64-row blocks all divide it): shares start on a
// multiple of it, so a share's blocks and tiles are exactly the whole call's.
const ROW_BLOCK = 64;
// attend()'s shares of heads per worker but the host (see attendShares).
const CHUNKS_PER_WORKER = 1;
// What touching one head's pages of the joined buffer costs the host, in heads' computing (see
// attendShares). 0.5 since a head's computing got cheaper (its scores and weights written in place,
// attention() in cache-sized blocks): 8 heads on 2 workers, the host then takes 2 heads, not 3; node,
// 1,000 words, pools of 2 interleaved: 54.0-58.4 ms against 58.7-60.6 ms with 0.25.
const TOUCH_PER_HEAD = 0.5;
const FILES = ['attnscope.wasm', 'attnscope-relaxed.wasm', 'attnscope-scalar.wasm', 'glove-50k.bin', 'glove-10k.bin'];
const NO_POOL = 'pool: this AttnPool was disposed; create a new one with createAttnPool()';

async function nodeModule(name) {
  const specifier = 'node:' + name;
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
}

/** The machine's parallelism less one (the caller's own thread), at least 1. */
async function defaultWorkers() {
  let cores = 1;
  if (isNode) {
    const os = await nodeModule('os');
    cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  } else if (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) {
    cores = navigator.hardwareConcurrency;
  }
  return Math.max(1, Math.min(MAX_WORKERS, cores - 1));
}

/** A started worker: its comlink endpoint, terminate(), ref()/unref() (node), and its fatal errors. */
async function spawnWorker(onFatal) {
  if (isNode) {
    const { Worker } = await nodeModule('worker_threads');
    const w = new Worker(new URL('./pool-worker.mjs', import.meta.url));
    w.on('error', (e) => onFatal(e));
    w.on('exit', (code) => onFatal(new Error(`pool: a worker exited (code ${code})`)));
    return { endpoint: nodeEndpoint(w), terminate: () => w.terminate(), ref: () => w.ref(), unref: () => w.unref() };
  }
  const w = new Worker(new URL('./pool-worker.mjs', import.meta.url), { type: 'module' });
  w.addEventListener('error', (e) => onFatal(new Error(`pool: a worker failed${e && e.message ? `: ${e.message}` : ' to load or run (see the console)'}`)));
  return { endpoint: w, terminate: () => w.terminate(), ref() {}, unref() {} };
}

function abortError(signal) {
  const e = new DOMException('pool: the call was aborted', 'AbortError');
  if (signal && signal.reason !== undefined) Object.defineProperty(e, 'cause', { value: signal.reason, configurable: true });
  return e;
}

/** One worker of the pool: 'starting', 'idle', 'busy' or 'dead'. */
class Slot {
  constructor(init) {
    this.state = 'starting';
    this.task = null;
    this.handle = null;
    this.api = null;
    this.error = null;
    this.death = new Promise((_, reject) => { this._die = reject; });
    this.death.catch(() => {});
    // Who waits for this worker's death (its running task): a set that is emptied as tasks end. A
    // task must not race the death promise itself: that promise lives as long as the worker, and
    // each race would leave a reaction on it holding the task's result (1 MiB for scores() of
    // 512 x 512) until the worker ended.
    this._watchers = new Set();
    this.ready = (async () => {
      this.handle = await spawnWorker((e) => this.kill(e));
      if (this.state === 'dead') { this.handle.terminate(); throw this.error; }
      this.api = Comlink.wrap(this.handle.endpoint);
      const info = await Promise.race([this.api.init(init), this.death]);
      this.state = 'idle';
      this.started = true;
      this.handle.unref();
      return info;
    })();
    this.ready.catch((e) => this.kill(e));
  }

  /** Calls fn(reason) if the worker dies before the returned function is called (at once if it is dead). */
  onDeath(fn) {
    if (this.state === 'dead') { fn(this.error); return () => {}; }
    this._watchers.add(fn);
    return () => this._watchers.delete(fn);
  }

  /** Ends the worker (once); its running task rejects with `reason`. */
  kill(reason) {
    if (this.state === 'dead') return;
    this.state = 'dead';
    this.error = reason;
    this._die(reason);
    const watchers = [...this._watchers];
    this._watchers.clear();
    for (const fn of watchers) fn(reason);
    if (this.handle) this.handle.terminate();
    if (this.onDied) this.onDied(reason);
  }
}

class AttnPool {
  constructor(slots, info, init) {
    this._slots = slots;
    this._init = init;
    this._queue = [];
    this._disposed = false;
    slots.forEach((slot) => this._watch(slot));
    this._planner = planner(info);
    /** The module's registry (scoring functions, masks, variants ...), as scope.registry. */
    this.registry = info.registry;
    /** As scope.variants: the variants the workers' instances have. */
    this.variants = info.variants;
    this.scoreFunctions = info.registry.scores;
    // Shares of heads per worker for attend() (benchmarks vary it; the numbers do not depend on it).
    this._attendShares = CHUNKS_PER_WORKER;
    // What touching a head's pages costs the host, in heads (benchmarks vary it: see attendShares).
    this._touchPerHead = TOUCH_PER_HEAD;
  }

  /** How many workers (wasm instances) the pool runs. */
  get workers() { return this._slots.length; }

  scores(Q, K, options) { return this._rows('scores', [Q, K], options, 1); }
  attention(Q, K, V, options) { return this._rows('attention', [Q, K, V], options, 2); }
  attentionOutput(Q, K, V, options) { return this._rows('attentionOutput', [Q, K, V], options, 2); }

  /**
   * attend(), split over heads: each worker computes a range of heads of the same call (the same
   * tokens, embeddings, seeded matrices), the heads are joined in order, and where there is an
   * output projection one more call on one worker multiplies the joined heads by it.
   */
  async attend(options) {
    this._live();
    let { signal, rest } = this._signal(options);
    if (signal && signal.aborted) throw abortError(signal);
    const t0 = typeof performance !== 'undefined' ? performance.now() : Date.now();
    rest = copyOptions(rest);  // read now: changing the caller's object after the call changes nothing
    const H = rest && typeof rest === 'object' && Number.isInteger(rest.heads) && rest.heads > 1 ? rest.heads : 1;
    const count = Math.min(this._slots.length, H);
    if (count === 1) return this._submit(signal, [(api) => api.attend(rest)], (results) => results[0]);
    const ranges = attendShares(H, count, this._attendShares, this._touchPerHead);
    // The shares are linked in a chain by message ports: the first share's worker (the host) makes
    // the joined scores and weights (one buffer for every head: the scope's are views of one buffer
    // too), writes its heads into it, touches the other heads' pages while the other workers
    // compute (fresh memory costs a page fault per 4 KB: the host pays for all of it), and sends it
    // on to the next share's worker, which writes its heads into it straight from its wasm heap and
    // passes it on; the last share sends it back here. Nothing of the scores and weights is copied
    // on this thread. Only the host sends the tokens and the embeddings (every share computes the
    // same ones): its share ends first, so they are parsed here while the others finish.
    const links = ranges.slice(1).map(() => new MessageChannel());
    const jobs = ranges.map(([h0, h1], s) => (s === 0
      ? (api) => api.attendHost(rest, h0, h1, H, Comlink.transfer(links[0].port1, [links[0].port1]))
      : (api) => {
        const prev = links[s - 1].port2, next = s < links.length ? links[s].port1 : null;
        return api.attendLinked(rest, h0, h1, H, Comlink.transfer(prev, [prev]), next && Comlink.transfer(next, [next]));
      }));
    const join = new HeadJoin(H, ranges);
    const joined = await this._submit(signal, jobs, () => join.result(), (s, part) => join.add(s, part), true);
    const projected = rest.projection === 'random' || (rest.projection && typeof rest.projection === 'object' && rest.projection.Wo !== undefined);
    if (projected) {
      const { concat, nq, cols } = joined.concat;
      const [out] = await this._submit(signal, [(api) => api.attendOutput(rest, Comlink.transfer(concat, [concat.buffer]), nq, cols)], (r) => r);
      joined.result.output = out.output;
      joined.result.dOut = out.dOut;
    } else {
      joined.result.output = joined.concat.concat;
      joined.result.dOut = joined.concat.cols;
    }
    joined.result.timeMs = (typeof performance !== 'undefined' ? performance.now() : Date.now()) - t0;
    return joined.result;
  }

  /** Terminates every worker; pending and later calls reject. Resolves when the workers have ended. */
  async dispose() {
    if (this._disposed) return;
    this._disposed = true;
    const err = new Error(NO_POOL);
    for (const task of this._queue.splice(0)) task.reject(err);
    const ends = [];
    for (const slot of this._slots) {
      const h = slot.handle;
      slot.kill(err);
      if (h) ends.push(Promise.resolve(h.terminate()).catch(() => {}));
    }
    await Promise.all(ends);
  }

  _live() {
    if (this._disposed) throw new Error(NO_POOL);
  }

  // options.signal, checked and taken out of the options the scope sees.
  _signal(options) {
    if (options === null || typeof options !== 'object' || !('signal' in options)) return { signal: undefined, rest: options };
    const { signal, ...rest } = options;
    if (signal !== undefined && !(typeof AbortSignal !== 'undefined' && signal instanceof AbortSignal))
      throw new TypeError(`options.signal: expected an AbortSignal (new AbortController().signal), got ${describeValue(signal)}`);
    return { signal, rest };
  }

  // scores / attention / attentionOutput: validated here, then split over query rows.
  async _rows(method, arrays, options, keyArrays) {
    this._live();
    const { signal, rest } = this._signal(options);
    if (signal && signal.aborted) throw abortError(signal);
    const plan = this._planner.plan(method, [...arrays, rest]);
    const [Q] = arrays;
    const { nq, d } = plan;
    const blocks = Math.ceil(nq / ROW_BLOCK);
    const count = plan.splittable ? Math.max(1, Math.min(this._slots.length, blocks)) : 1;
    // Everything the call reads is copied now, as the scope reads it during the call: a caller may
    // refill or detach its buffers, or change its options, as soon as the call returns its promise.
    // K and V once (each share's worker gets a clone of the copy), Q share by share.
    const copied = copyOptions(rest);
    const keys = arrays.slice(1, 1 + keyArrays).map((a) => (ArrayBuffer.isView(a) ? a.slice() : a));
    const jobs = [];
    for (let s = 0; s < count; s++) {
      const r0 = count === 1 ? 0 : Math.floor((s * blocks) / count) * ROW_BLOCK;
      const r1 = count === 1 ? nq : Math.min(nq, Math.floor(((s + 1) * blocks) / count) * ROW_BLOCK);
      const rows = ArrayBuffer.isView(Q) ? Q.slice(r0 * d, count === 1 ? Q.length : r1 * d) : Q;
      const args = [rows, ...keys, count === 1 ? copied : { ...copied, nq: r1 - r0 }];
      // The share's rows are its own: transferred; K and V are cloned by postMessage.
      const share = { method, args, cost: plan.cost, row0: r0 };
      jobs.push((api) => api.run(Comlink.transfer(share, ArrayBuffer.isView(rows) ? [rows.buffer] : [])));
    }
    return this._submit(signal, jobs, (results) => (results.length === 1 ? results[0] : joinRows(results)));
  }

  /**
   * Queues the jobs of one call (each runs on the next free worker); resolves with join(results in
   * job order), or rejects with the error the scope would have raised first, or with an AbortError
   * as soon as the signal fires (the workers busy with this call are then replaced). onPart(i,
   * result of job i), when given, takes each job's result as it arrives (join then gets undefined
   * for it); an error it throws rejects the call. linked: the jobs wait on one another (attend's
   * chain of shares): when a worker dies under one of them, the others are ended too.
   */
  _submit(signal, jobs, join, onPart = null, linked = false) {
    return new Promise((resolve, reject) => {
      const call = { done: false, tasks: [], linked };
      let onAbort = null;
      const finish = (fn, value) => {
        if (call.done) return;
        call.done = true;
        if (onAbort) signal.removeEventListener('abort', onAbort);
        fn(value);
      };
      if (signal) {
        if (signal.aborted) { reject(abortError(signal)); return; }
        onAbort = () => {
          finish(reject, abortError(signal));
          this._abandon(call);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      for (const job of jobs) {
        const task = { call, job, state: 'queued' };
        task.promise = new Promise((res, rej) => { task.resolve = res; task.reject = rej; });
        call.tasks.push(task);
        this._queue.push(task);
      }
      const results = onPart ? call.tasks.map((t, i) => t.promise.then((v) => { if (!call.done) onPart(i, v); })) : call.tasks.map((t) => t.promise);
      Promise.allSettled(results).then((settled) => {
        const failed = settled.filter((s) => s.status === 'rejected').map((s) => s.reason);
        if (failed.length === 0) {
          try { finish(resolve, join(settled.map((s) => s.value))); } catch (e) { finish(reject, e); }
          return;
        }
        // The scope checks Q's elements before K's and V's: a share's non-finite Q element is the
        // error the scope raises, the first such share's; otherwise the first share's error.
        finish(reject, failed.find(isQElement) || failed[0]);
      });
      this._pump();
    });
  }

  // An aborted call: its queued shares are dropped, its running ones' workers replaced.
  _abandon(call) {
    const aborted = new DOMException('pool: the call was aborted', 'AbortError');
    this._queue = this._queue.filter((t) => t.call !== call);
    for (const task of call.tasks) {
      if (task.state === 'queued') task.reject(aborted);
    }
    this._slots.forEach((slot, i) => {
      if (slot.task && slot.task.call === call) this._replace(i, aborted);
    });
    this._pump();
  }

  // The shares of a call still queued or running end with `reason` (their workers replaced).
  _endCall(call, reason) {
    this._queue = this._queue.filter((t) => t.call !== call);
    for (const task of call.tasks) {
      if (task.state === 'queued') task.reject(reason);
    }
    this._slots.forEach((slot, i) => {
      if (slot.task && slot.task.call === call) this._replace(i, reason);
    });
  }

  _replace(i, reason) {
    const old = this._slots[i];
    old.kill(reason);
    if (this._disposed) return;
    const slot = new Slot(this._init);
    this._slots[i] = slot;
    this._watch(slot);
    slot.ready.then(() => this._pump(), () => this._pump());
  }

  // A worker that dies while idle (killed from outside, out of memory) is replaced at once, as one that
  // dies under a task is (AttnPool._start). One that never started is not: a worker that cannot load
  // would be restarted for ever (_pump then fails what waits).
  _watch(slot) {
    slot.onDied = (reason) => {
      const i = this._slots.indexOf(slot);
      if (i >= 0 && !this._disposed && !slot.task && slot.started) this._replace(i, reason);
    };
  }

  _pump() {
    if (this._disposed) return;
    for (const slot of this._slots) {
      if (this._queue.length === 0) return;
      if (slot.state !== 'idle') continue;
      const task = this._queue.shift();
      this._start(slot, task);
    }
    // Every worker gone (a failed restart): nothing would ever run what waits.
    if (this._queue.length && this._slots.every((s) => s.state === 'dead')) {
      const err = this._slots[0].error || new Error('pool: no worker is running');
      for (const task of this._queue.splice(0)) task.reject(err);
    }
  }

  _start(slot, task) {
    slot.state = 'busy';
    slot.task = task;
    task.state = 'running';
    slot.handle.ref();
    let work;
    try { work = task.job(slot.api); } catch (e) { work = Promise.reject(e); }
    // The worker is given its next task before this one's result is handed on (a call's onPart
    // copies it: the worker computes meanwhile).
    const settle = (fn, value) => {
      if (slot.task === task) slot.task = null;
      if (slot.state === 'busy') { slot.state = 'idle'; slot.handle.unref(); }
      if (slot.state === 'dead' && this._slots.includes(slot) && !this._disposed) {
        // A worker that died under its task (not one the pool ended) is restarted.
        this._replace(this._slots.indexOf(slot), slot.error);
        // The shares of a linked call that wait for this one's buffer would wait for ever (a
        // browser's port does not say that its other side has gone): they end with it.
        if (task.call.linked) this._endCall(task.call, slot.error);
      }
      this._pump();
      fn(value);
    };
    let ended = false, unwatch = () => {};
    const end = (fn, value) => {
      if (ended) return;
      ended = true;
      unwatch();
      settle(fn, value);
    };
    unwatch = slot.onDeath((e) => end(task.reject, e));
    Promise.resolve(work).then((v) => end(task.resolve, v), (e) => end(task.reject, e));
  }
}

/** Whether a share's error is the scope's for a non-finite element of Q (by its code, from the wire). */
function isQElement(e) {
  const r = wireRecord(e);
  return !!r && r.code === 'non-finite' && r.argument === 'Q';
}

/**
 * attend()'s shares of heads on `count` workers: [[h0, h1), ...], the host's (share 0) first. The host
 * also copies its heads into the joined buffer and touches the other heads' pages (about
 * TOUCH_PER_HEAD of a head's computing per head), so it takes fewer heads: h + TOUCH_PER_HEAD * H =
 * (H - h) / (count - 1) balances it with the others. The rest are split evenly, `perWorker` shares
 * per worker (the join copies a share as soon as it arrives).
 */
function attendShares(H, count, perWorker = 1, touch = TOUCH_PER_HEAD) {
  const host = Math.min(H - (count - 1), Math.max(1, Math.round((H * (1 - touch * (count - 1))) / count)));
  const rest = H - host, shares = Math.min(rest, (count - 1) * perWorker);
  const ranges = [[0, host]];
  for (let s = 0; s < shares; s++) ranges.push([host + Math.floor((s * rest) / shares), host + Math.floor(((s + 1) * rest) / shares)]);
  return ranges;
}

/**
 * attend()'s shares of heads (ranges[s] = [h0, h1)) joined, as they arrive in any order, into one
 * result shaped like the scope's. Every share brings { result } (its heads' small parts: per-head
 * vectors, statistics, outputs); the last also brings the joined scores and weights (one buffer that
 * went from share to share, each writing its heads into it: see AttnPool.attend). add() keeps copies
 * of a share's small parts so its transferred buffer can go. result(): { result (without output and
 * dOut), concat: { concat [nq, cols]: the heads' outputs side by side, nq, cols } }.
 */
class HeadJoin {
  constructor(H, ranges) {
    this.H = H;
    this.ranges = ranges;
    this.small = new Array(ranges.length);
    this.big = null;
    this.meta = null;
  }

  add(s, value) {
    const [h0, h1] = this.ranges[s];
    const part = value.result;
    const { nq, nk } = part;
    if (part.heads !== h1 - h0) throw new Error(`pool: a share of heads ${h0}..${h1} came back with ${part.heads} heads`);
    if (!this.stats) {
      const rows = this.H * nq;
      this.stats = { nq, nk, entropy: new Float32Array(rows), maxWeight: new Float32Array(rows), argmax: new Uint32Array(rows) };
    }
    const st = this.stats;
    if (st.nq !== nq || st.nk !== nk) throw new Error(`pool: shares of one attend call disagree on its tokens (${nq} x ${nk}, ${st.nq} x ${st.nk})`);
    st.entropy.set(part.stats.entropy, h0 * nq);
    st.maxWeight.set(part.stats.maxWeight, h0 * nq);
    st.argmax.set(part.stats.argmax, h0 * nq);
    const copies = (list) => list.map((a) => a.slice());
    this.small[s] = { dHead: part.dHead, dValue: part.dValue, q: copies(part.q), k: copies(part.k), v: copies(part.v),
      output: part.output.slice(), dOut: part.dOut };
    if (part.tokensJson) {
      const { scores, weights, stats, q, k, v, output, queryEmbeddings, keyEmbeddings, tokensJson, ...meta } = part;
      this.meta = { ...tokenFields(tokensJson), ...meta, queryEmbeddings: queryEmbeddings.slice(), keyEmbeddings: keyEmbeddings.slice() };
    }
    if (s === this.ranges.length - 1) {
      const cells = this.H * nq * nk, joined = value.joined;
      if (!(joined instanceof Float32Array) || joined.length !== 2 * cells) throw new Error('pool: the last share sent no joined scores and weights');
      this.big = { scores: joined.subarray(0, cells), weights: joined.subarray(cells) };
    }
  }

  result() {
    const parts = this.small, st = this.stats, nq = st.nq;
    const widths = parts.map((p) => p.dOut);
    const cols = widths.reduce((x, y) => x + y, 0);
    const joinedOutput = new Float32Array(nq * cols);
    for (let i = 0, at = 0; i < nq; i++) {
      for (let s = 0; s < parts.length; s++) {
        const w = widths[s];
        joinedOutput.set(parts[s].output.subarray(i * w, (i + 1) * w), at);
        at += w;
      }
    }
    const result = {
      ...this.meta, heads: this.H,
      dHead: parts.flatMap((p) => p.dHead), dValue: parts.flatMap((p) => p.dValue),
      scores: this.big.scores, weights: this.big.weights, stats: { entropy: st.entropy, maxWeight: st.maxWeight, argmax: st.argmax },
      q: parts.flatMap((p) => p.q), k: parts.flatMap((p) => p.k), v: parts.flatMap((p) => p.v),
    };
    return { result, concat: { concat: joinedOutput, nq, cols } };
  }
}

/**
 * A call's options as they are now (a deep copy: typed arrays copied, nested objects too), so that the
 * workers see what the caller passed at the call, whatever it changes afterwards.
 */
function copyOptions(options) {
  if (options === null || typeof options !== 'object') return options;
  try {
    return structuredClone(options);
  } catch (e) {
    throw new TypeError(`options: cannot be copied for the pool's workers (${e.message}); pass plain numbers, strings, arrays, objects and typed arrays`);
  }
}

/** The shares' results, row blocks in order, as one result shaped like the scope's. */
function joinRows(results) {
  const first = results[0];
  if (ArrayBuffer.isView(first)) return concat(results);
  const out = {};
  for (const [key, value] of Object.entries(first)) {
    if (ArrayBuffer.isView(value)) out[key] = concat(results.map((r) => r[key]));
    else if (value && typeof value === 'object') out[key] = joinRows(results.map((r) => r[key]));
    else out[key] = value;
  }
  return out;
}
function concat(arrays) {
  let n = 0;
  for (const a of arrays) n += a.length;
  const out = new arrays[0].constructor(n);
  let at = 0;
  for (const a of arrays) { out.set(a, at); at += a.length; }
  return out;
}

/**
 * A pool of `workers` wasm instances with the scope's calls, asynchronous: see attnscope.d.ts
 * (AttnPool) and docs/pool.md.
 */
export async function createAttnPool(options = {}) {
  checkOptionKeys('options', options, ['workers', 'preload', 'vocabulary', 'locateFile']);
  const workers = options.workers === undefined ? await defaultWorkers() : checkInteger('options.workers', options.workers, 1, MAX_WORKERS);
  if (options.locateFile !== undefined && typeof options.locateFile !== 'function')
    throw new TypeError(`options.locateFile: expected a function, got ${describeValue(options.locateFile)}`);
  // The data files this app opted into (import 'attnscope/vocab-50k', ...): the workers' own copy of the
  // scope finds them where the app's bundler put them.
  const init = { preload: !!options.preload, assets: optedInFiles() };
  // Functions do not cross to a worker: locateFile is asked here, for every file a worker may load.
  if (options.locateFile) {
    const folder = new URL('./', new URL('./pool-worker.mjs', import.meta.url)).href;
    init.files = {};
    for (const file of FILES) init.files[file] = (await toAbsoluteUrl(options.locateFile(file, folder), `locateFile('${file}')`)).href;
  }
  const v = options.vocabulary;
  if (v !== undefined) {
    if (v === 'default' || v === 'small' || v instanceof Uint8Array || v instanceof ArrayBuffer) init.vocabulary = v;
    else if ((typeof v === 'string' && v !== '') || v instanceof URL) init.vocabulary = (await toAbsoluteUrl(v, 'options.vocabulary')).href;
    else throw new TypeError(`options.vocabulary: expected 'default', 'small', a Uint8Array or ArrayBuffer of a vocabulary file, or its URL, got ${describeValue(v)}`);
  }
  const slots = Array.from({ length: workers }, () => new Slot(init));
  let infos;
  try {
    infos = await Promise.all(slots.map((s) => s.ready));
  } catch (e) {
    for (const s of slots) s.kill(e);
    throw e;
  }
  return new AttnPool(slots, infos[0], init);
}
