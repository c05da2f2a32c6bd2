// The demo page's computation, off the main thread: a module worker that holds the attnscope module
// (the same dist build the page would load) and answers one request per state through comlink
// (web/shared/compute-client.js is its only caller). Everything the figures need from the wasm for one state
// is computed here in one go — the main result, the other scoring functions for the comparison and
// "Why this weight?", the computations the page's figures need (web/shared/compute/teaching.js, named by
// the figures' registry, web/shared/figures/registry.js) — and handed back with its typed arrays
// transferred, not copied. Progress is reported between those calls (the real unit of work the
// page can split); the main attention call itself is one call and cannot be split.
import * as Comlink from 'comlink';
import { createAttnScope } from 'attnscope';
import { createAttnPool } from 'attnscope/pool';
import { compute, plan, computed, context, nearestWords, headSummaries } from '../../shared/compute/attention.js';
import { STEPS, WHOLE_DOCUMENT, slim } from '../../shared/compute/teaching.js';
import { headImages as pictures } from '../../shared/compute/images.js';
import { SMALL_TOKENS, HEAD_IMAGES_FROM, POOL_FROM, POOL_MAX_WORKERS } from '../../shared/scale.js';
import { modelViews } from '../../shared/compute/use-lite.js';

let scope = null;
let fullVocabulary = false;   // whether `scope` holds the 50,000-word vocabulary yet (init)
const nearestCache = new Map();
// The last main computation, kept here (the page gets copies): a state that changes only what is
// drawn (the open cell, the head, the idw exponent) reuses it instead of recomputing 2,000 × 2,000.
let lastMain = null;    // { key, c }
const ABORTED = Symbol('aborted');
let abortBelow = 0;          // requests of an older generation than this stop at their next step
const channel = new MessageChannel();
/** Lets the worker read its messages (an abort) between two steps of a request. */
const breathe = () => new Promise((resolve) => { channel.port1.onmessage = () => resolve(); channel.port2.postMessage(0); });
let reportProgress = null;   // (gen, fraction, text, pooled?): the page's progress channel

// A long document's main call runs on a pool of workers (createAttnPool: its heads split over every
// core, the same numbers as one scope), created at the first such call and kept. The pooled call
// can be aborted at once (Cancel, or a newer request): this worker stays, the pool replaces the
// workers it stopped.
let poolStarting = null;
let pooledCall = null;       // { gen, controller } of the pooled call running now
const cores = () => (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
/** Whether the main call of plan p (state st) is long enough, with heads enough, for the pool. */
// (Only with the full vocabulary: the pool's workers load that one, and a pooled call gives one scope's numbers.)
const usePool = (p, st) => fullVocabulary && cores() >= 2 && st.heads >= 2 && st.heads * p.nq * p.nk >= POOL_FROM;
function startPool() {
  poolStarting ??= createAttnPool({
    workers: Math.max(2, Math.min(POOL_MAX_WORKERS, cores())),
    preload: true,
    locateFile: (path) => new URL(path, import.meta.url).href,
  }).catch((e) => { poolStarting = null; throw e; });
  return poolStarting;
}
/** `promise`, or ABORTED as soon as `signal` fires. */
function unlessAborted(promise, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { resolve(ABORTED); return; }
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
/**
 * attend(options) on the pool for request gen: { main, pool: { workers, ms } }, or ABORTED when the
 * request was aborted (before or while it ran).
 */
async function pooledAttend(options, gen, progress) {
  if (gen < abortBelow) return ABORTED;
  const controller = new AbortController();
  const call = { gen, controller };
  pooledCall = call;
  try {
    progress(0, poolStarting ? 'Computing the attention weights on every core…' : 'Computing the attention weights: starting a worker per core…', true);
    const pool = await unlessAborted(startPool(), controller.signal);
    if (pool === ABORTED) return ABORTED;
    const workers = Math.min(pool.workers, options.heads);
    progress(0.1, `Computing the attention weights on ${workers} workers…`, true);
    const t0 = performance.now();
    const main = await pool.attend({ ...options, signal: controller.signal });
    return { main, pool: { workers, ms: performance.now() - t0 } };
  } catch (e) {
    if (e && e.name === 'AbortError' && controller.signal.aborted) return ABORTED;
    throw e;
  } finally {
    if (pooledCall === call) pooledCall = null;
    progress(0.3, 'Computing the attention weights…', false);
  }
}

/** The fields of a state that change the main attention result, and the vocabulary's size (the first
 * plots come from the 10,000 words, the same state again from the 50,000). */
export function mainKey(st, limit, words) {
  const { q, k, score, t, heads, proj, seed, pos, mask, variant } = st;
  return JSON.stringify([q, k, score, t, heads, proj, seed, pos, mask, variant, limit, words]);
}

/** What the page draws from the main result (the heatmap, the line view, the selection, the heads, the
 * head summary, the exports): all of it but the per-head vectors (q, k, v), the outputs and the
 * embeddings, which no figure of the page reads (the cosine panel's key norms come with the second
 * answer). At 10 heads of 64 + 64 tokens they were 2/3 of the typed arrays copied and sent per change. */
function lean(r) {
  if (!r) return r;
  const { q, k, v, output, queryEmbeddings, keyEmbeddings, ...rest } = r;
  return rest;
}

/** The heads figure's pictures of a computation's main result (built once, kept with it). */
function headImages(c, st) {
  const m = c.main;
  if (!m.headImages) m.headImages = pictures(m, st.mask === 'causal' ? (i, j) => j > i : () => false);
  return m.headImages;
}

/** Copies every typed array of `value` (recursively) and lists the copies' buffers for transfer. */
function detachable(value, transfer) {
  if (ArrayBuffer.isView(value)) {
    const copy = value.slice();
    transfer.push(copy.buffer);
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => detachable(v, transfer));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'function') continue;
      out[k] = detachable(v, transfer);
    }
    return out;
  }
  return value;
}

/** Adds the head summary figure's per-head numbers (the module's kernel) to a computation's result. */
function withSummaries(c) {
  if (!c.empty) headSummaries(scope, c.main);
  return c;
}

// The trained model (web/shared/compute/use-lite.js): loaded on the first request of the "trained model"
// mode only (its file is fetched then, like the vocabulary), then kept.
let model = null;
let modelLoading = null;
function loadModel(progress) {
  modelLoading ??= scope.loadModel({
    onProgress: (loaded, total) => progress(total > 0 ? loaded / total : 0,
      `Loading the trained model… ${(loaded / 1e6).toFixed(1)}${total > 0 ? ` of ${(total / 1e6).toFixed(1)}` : ''} MB`),
  }).then((m) => { model = m; return m; }, (e) => { modelLoading = null; throw e; });
  return modelLoading;
}

const api = {
  /**
   * Loads the module and the first vocabulary (1.1 MB: the 10,000 most frequent words and the examples'
   * rarer ones; the first plots come from it);
   * onProgress(loaded, total) as it downloads. Then the 50,000-word one (5.6 MB) downloads in the
   * background, onFull(loaded, total, null) as it does; once it is in, every computation after uses it
   * and onFull(1, 1, info) says so (onFull(0, 0, null, message) if it could not be loaded: the
   * small one stays). The two files hold the same vectors for the words they share.
   */
  async init(onProgress, computeProgress, onFull) {
    reportProgress = computeProgress;
    const t0 = performance.now();
    const locateFile = (path) => new URL(path, import.meta.url).href;
    scope = await createAttnScope({
      preload: true,
      // The 10,000 most frequent words and the rarer words of the examples (scripts/build-first-vocab.mjs).
      vocabulary: locateFile('glove-first.bin'),
      locateFile,
      onProgress: onProgress ? (loaded, total) => { onProgress(loaded, total); } : undefined,
    });
    fullVocabulary = false;
    // Tier the kernels up now (V8 runs new wasm in a baseline tier at first), off the page's thread.
    scope.attend({ query: 'warm up the kernels', maxTokens: 8 });
    const small = scope;
    small.newScope({ vocabulary: 'default', preload: true, onProgress: onFull ? (loaded, total) => { onFull(loaded, total, null); } : undefined })
      .then((full) => {
        scope = full;
        fullVocabulary = true;
        nearestCache.clear();   // the nearest words of the 10,000
        // Not disposed: a model loaded on it, or a computation between two of its steps, may still hold it.
        if (onFull) onFull(1, 1, { ...full.vocabulary });
      }, (e) => { if (onFull) onFull(0, 0, null, e.message); });
    return {
      scoreFunctions: scope.scoreFunctions.map((s) => ({ ...s })),
      variants: { ...scope.variants, available: [...scope.variants.available] },
      vocabulary: { ...scope.vocabulary },
      loadMs: performance.now() - t0,
    };
  },

  /**
   * Everything the page draws for `st`. opts: { limit (tokens per side), scoreNames, haveMain (the
   * mainKey the page already holds: the main result is then not sent again), needs (the names of the
   * computations of web/shared/compute/teaching.js its figures need: web/shared/figures/registry.js stepsFor), gen
   * (the request's generation, echoed with its progress) }.
   * phase 'main': only { key, main?, q, k, base, large }; 'extras': all of it but the main result;
   * 'all' (default): both. Returns { empty, q, k } or { key, main?, q, k, base, large, all: {name:
   * result}, teach: {name: what STEPS[name] computed} }.
   */
  /** Makes every running request older than `gen` stop at its next step (resolving { aborted }); with
   * stopPool, a pooled call of one of them stops at once (else it finishes, and the request then stops). */
  abort(gen, stopPool = true) {
    abortBelow = Math.max(abortBelow, gen);
    if (stopPool && pooledCall && pooledCall.gen < gen) pooledCall.controller.abort();
  },

  /** Stops request `gen` (Cancel): as abort(gen + 1). */
  cancel(gen) { api.abort(gen + 1); },

  /**
   * The trained model's views of st (web/shared/compute/use-lite.js modelViews: st.q the sentence, st.k the
   * second one, st.mhead, st.mswap, st.mtau, st.mknock), with the model's file loaded first if it is not yet.
   */
  async model(st, opts) {
    const { gen } = opts;
    const progress = (f, text) => { if (reportProgress) reportProgress(gen, f, text); };
    const t0 = performance.now();
    const m = model || await loadModel(progress);
    const loadMs = performance.now() - t0;
    if (gen < abortBelow) return { aborted: true };
    if (!st.q.trim()) return { empty: true, model: { name: m.name, layers: m.layers, heads: m.heads } };
    const v = modelViews(scope, m, { text: st.q, text2: st.k, head: st.mhead, swap: st.mswap, tau: st.mtau, knock: st.mknock });
    v.loadMs = loadMs;
    const transfer = [];
    return Comlink.transfer(detachable(v, transfer), transfer);
  },

  async prepare(st, opts) {
    const { limit, scoreNames, haveMain, needs = [], gen, phase = 'all' } = opts;
    const progress = (f, text, pooled) => { if (reportProgress) reportProgress(gen, f, text, pooled); };
    const t0 = performance.now();
    const laps = {};
    let tl = t0;
    const lap = (name) => { const n = performance.now(); laps[name] = n - tl; tl = n; };
    const key = mainKey(st, limit, scope.vocabulary.size);
    let c;
    if (lastMain && lastMain.key === key) c = lastMain.c;
    else {
      // No progress message before the main call: the page shows "Computing the attention weights…"
      // by itself if this takes long (the call cannot be split), and a message here would reach the
      // page before the answer, one more main-thread task on each keystroke's way to the heatmap.
      // (A long document's pooled call says so: it is long, and the page needs to know that the
      // call can be aborted.)
      const p = plan(scope, st, { limit });
      if (p.empty) c = p;
      else if (usePool(p, st)) {
        const r = await pooledAttend({ ...p.base, score: st.score }, gen, progress);
        if (r === ABORTED) return { aborted: true };
        c = computed(scope, st, p, r.main);
        c.pool = r.pool;
        withSummaries(c);
      } else {
        c = withSummaries(computed(scope, st, p, scope.attend({ ...p.base, score: st.score })));
      }
      lastMain = c.empty ? null : { key, c };
      // Superseded while the pool computed (kept above for a return to this state): nothing to send.
      if (gen < abortBelow) return { aborted: true };
    }
    lap('main');
    if (c.empty) return { empty: true, q: c.q, k: c.k };
    const r = c.main;
    const large = Math.max(r.nq, r.nk) > SMALL_TOKENS;
    const sendMain = haveMain !== key && phase !== 'extras';
    if (phase === 'main') {
      // The first answer to a change: only what the heatmap, the line view and the heads need.
      const transfer = [];
      const out = detachable({ key, q: c.q, k: c.k, base: c.base, large, main: sendMain ? lean(r) : null, pool: c.pool || null, laps }, transfer);
      lap('copy');
      out.laps = laps;
      return Comlink.transfer(out, transfer);
    }
    const nearest = (tok) => nearestWords(scope, nearestCache, tok);
    const scoreInfo = new Map(scope.scoreFunctions.map((s) => [s.name, s]));
    // The comparison and the teaching panels: at most SMALL_TOKENS tokens per side (a 2,000-token
    // document would cost every scoring function a full 2,000 × 2,000 call); the page says so.
    const cs = large ? withSummaries(compute(scope, st, { limit: SMALL_TOKENS })) : c;
    const all = {};
    const others = scoreNames.filter((n) => n !== st.score);
    for (const [i, name] of others.entries()) {
      await breathe();
      if (gen < abortBelow) return { aborted: true };
      progress(0.4 + (0.5 * i) / others.length, `Comparing the scoring functions: ${name} (${i + 1} of ${others.length})…`);
      try { all[name] = slim(cs.all.get(name)); } catch (e) { all[name] = { error: e.message }; }
    }
    await breathe();
    if (gen < abortBelow) return { aborted: true };
    all[st.score] = slim(cs.main);
    lap('comparison');
    progress(0.92, 'Teaching panels…');
    // "Why this weight?" explains a cell of the whole document: at full size its table lists the current
    // function only (the others were computed on the first SMALL_TOKENS tokens, which may not hold the cell).
    const x = context(scope, c, st, { scoreNames: large ? [st.score] : scoreNames, scoreInfo, nearest });
    const xs = large ? context(scope, cs, st, { scoreNames, scoreInfo, nearest }) : x;
    const teach = {};
    for (const name of needs) {
      if (!STEPS[name]) throw new Error(`no computation named ${name} (web/shared/compute/teaching.js STEPS)`);
      await breathe();
      if (gen < abortBelow) return { aborted: true };
      teach[name] = (WHOLE_DOCUMENT.has(name) ? x : xs).need(name);
    }
    // "Why this weight?"'s model is sent without what the page has (its key tokens, its mask function).
    if (teach.why) teach.why = { ...teach.why, kTokens: null, maskedKey: null };
    lap('teaching');
    progress(1, 'Drawing…');
    const transfer = [];
    // The heads' pictures of a long document (HEAD_IMAGES_FROM: built here, not by the page), and
    // the key vectors the cosine panel measures (the first answer leaves the vectors out).
    const late = r.heads * r.nq * r.nk >= HEAD_IMAGES_FROM ? headImages(c, st) : null;
    const out = detachable({
      key, q: c.q, k: c.k, base: c.base, large,
      main: sendMain ? lean(r) : null,
      headImages: late,
      keyVectors: large ? null : r.k,
      small: large ? { main: cs.main, q: cs.q, k: cs.k, base: cs.base } : null,
      all, teach, laps,
    }, transfer);
    lap('copy');
    out.laps = laps;   // where the worker's time went (main, comparison, teaching, copy): ms
    return Comlink.transfer(out, transfer);
  },
};

Comlink.expose(api);
