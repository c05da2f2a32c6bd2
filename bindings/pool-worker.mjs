// attnscope pool: one worker (a node worker_threads Worker or a browser module worker) holding one
// wasm instance and one scope. The pool (pool.mjs) validates every call before it splits it, hands
// each worker a share of the query rows, and puts the shares back together; this side only runs the
// scope's own method on its share (so every number is the scope's) and sends the arrays back by
// transfer. Messages go through comlink (bundled into dist/pool-worker.mjs).
import * as Comlink from 'comlink';
import { createScopeWith, optIn } from './scope.mjs';
import { planInfo, runPlan } from './scope-plan.mjs';
import { splitBuild } from './split-build.mjs';
import { errorTransfer, nodeEndpoint } from './pool-wire.mjs';

Comlink.transferHandlers.set('throw', errorTransfer(Comlink.transferHandlers.get('throw')));

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node) && typeof window === 'undefined' &&
  typeof WorkerGlobalScope === 'undefined';

let scope = null;

/** The next message on `port` (a MessagePort), or null when the port closes first (node). */
function receive(port) {
  return new Promise((resolve) => {
    port.onmessage = (e) => resolve(e.data);
    // Node says when the other side's worker has ended; browsers' ports may not (the pool then
    // ends this worker: see AttnPool._start).
    if (typeof port.once === 'function') port.once('close', () => resolve(null));
  });
}

/** Every ArrayBuffer under the typed arrays of a result (each once), for transfer. */
function buffersOf(value, out = new Set()) {
  if (ArrayBuffer.isView(value)) out.add(value.buffer);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) buffersOf(v, out);
  return out;
}

const api = {
  /** Creates this worker's scope; files: { name: absolute URL } when the pool was given locateFile. */
  async init({ files, vocabulary, preload, assets = {} }) {
    for (const [file, href] of Object.entries(assets)) optIn({ file, url: new URL(href) });
    const options = { preload: !!preload };
    if (files) options.locateFile = (file) => files[file] ?? new URL(file, files['attnscope.wasm']).href;
    if (vocabulary !== undefined) options.vocabulary = vocabulary;
    scope = await createScopeWith(splitBuild, options);
    return planInfo(scope);
  },

  /**
   * Runs a share of a call the pool planned (scope-plan.mjs, runPlan: { method, args, cost, row0 }),
   * and sends its arrays back by transfer. A non-finite element of Q comes back named by its index in
   * the caller's Q.
   */
  run(plan) {
    const result = runPlan(scope, plan);
    return Comlink.transfer(result, [...buffersOf(result)]);
  },

  /**
   * attend() on this worker, heads [headBegin, headEnd) (0, 0: every head: the pool's call on one
   * worker; a range: benchmarks); loads the vocabulary first when it is not loaded yet.
   */
  async attend(options, headBegin = 0, headEnd = 0) {
    if (scope.vocabulary.size === 0) await scope.loadVocabulary();
    const result = runPlan(scope, { method: 'attend', options, headBegin, headEnd });
    return Comlink.transfer(result, [...buffersOf(result)]);
  },

  /**
   * attend() on heads [headBegin, headEnd) of `heads`, as the host of the pool's join (the first
   * share): makes the joined scores and weights, one Float32Array [2, heads, nq, nk] (scores, then
   * weights, of every head), writes this share's heads into it straight from the wasm heap, touches
   * (writes once) every page of the other heads so that the next shares write into memory already
   * mapped, and sends it by transfer on `next` (a MessagePort to the next share's worker) as
   * { joined }, or { failed: true } when this share fails. Resolves to { result } (as attend's,
   * without the scores and weights; the tokens as their JSON, tokensJson: the pool parses them while
   * the other shares finish, the host's share ending first).
   */
  async attendHost(options, headBegin, headEnd, heads, next) {
    let sent = false;
    try {
      if (scope.vocabulary.size === 0) await scope.loadVocabulary();
      let joined = null;
      const result = runPlan(scope, { method: 'attend', options, headBegin, headEnd, tokens: 'json', place: (nq, nk, count) => {
        const cells = nq * nk;
        joined = new Float32Array(2 * heads * cells);
        const touch = (from, to) => { for (let i = from; i < to; i += 1024) joined[i] = 0; };   // a 4 KB page per 1,024 floats
        touch(0, headBegin * cells);
        touch(headEnd * cells, (heads + headBegin) * cells);
        touch((heads + headEnd) * cells, 2 * heads * cells);
        return { scores: joined.subarray(headBegin * cells, (headBegin + count) * cells),
          weights: joined.subarray((heads + headBegin) * cells, (heads + headBegin + count) * cells) };
      } });
      // The rest of the result are views of one small copy (the scores and weights are in joined).
      delete result.scores;
      delete result.weights;
      next.postMessage({ joined }, [joined.buffer]);
      sent = true;
      return Comlink.transfer({ result }, [...buffersOf(result)]);
    } finally {
      if (!sent) next.postMessage({ failed: true });
    }
  },

  /**
   * attend() on heads [headBegin, headEnd) as a later share of the pool's join: computes them, waits
   * for the joined buffer from the share before it (on `prev`, a MessagePort; see attendHost), writes
   * this share's heads into it straight from the wasm heap, and passes it on to the next share
   * (`next`) or, the last share (next null), back to the pool. Resolves to { result, joined? }
   * (result as attend's without the scores and weights, the tokens and the embeddings: the host
   * sends those).
   */
  async attendLinked(options, headBegin, headEnd, heads, prev, next) {
    let sent = false;
    try {
      if (scope.vocabulary.size === 0) await scope.loadVocabulary();
      const kept = runPlan(scope, { method: 'attendKeep', options, headBegin, headEnd });
      let result, joined;
      try {
        const message = await receive(prev);
        if (!message || !(message.joined instanceof Float32Array)) throw new Error('pool: an earlier share of this attend call failed');
        joined = message.joined;
        const cells = kept.nq * kept.nk;
        if (joined.length !== 2 * heads * cells) throw new Error(`pool: the joined buffer holds ${joined.length} floats, not ${2 * heads * cells}`);
        result = kept.finish({ scores: joined.subarray(headBegin * cells, headEnd * cells),
          weights: joined.subarray((heads + headBegin) * cells, (heads + headEnd) * cells) }, false);
      } finally {
        kept.release();
      }
      for (const key of ['scores', 'weights', 'queryEmbeddings', 'keyEmbeddings']) delete result[key];
      if (next) {
        next.postMessage({ joined }, [joined.buffer]);
        sent = true;
        return Comlink.transfer({ result }, [...buffersOf(result)]);
      }
      sent = true;
      return Comlink.transfer({ result, joined }, [...buffersOf(result), joined.buffer]);
    } finally {
      prev.close();
      if (!sent && next) next.postMessage({ failed: true });
    }
  },

  /** attend()'s output from every head's output side by side (concat [nq, cols], transferred here). */
  async attendOutput(options, concat, nq, cols) {
    if (scope.vocabulary.size === 0) await scope.loadVocabulary();
    const result = runPlan(scope, { method: 'attendOutput', options, concat, nq, cols });
    return Comlink.transfer(result, [result.output.buffer]);
  },
};

// No top-level await: bundlers build workers as classic scripts by default (Vite's worker.format is
// 'iife'). Node's parentPort queues messages until its listener is attached.
if (isNode) {
  // A variable specifier, so that no bundler follows it (browsers never take this path).
  const name = 'node:worker_threads';
  import(/* webpackIgnore: true */ /* @vite-ignore */ name).then(({ parentPort }) => Comlink.expose(api, nodeEndpoint(parentPort)));
} else {
  Comlink.expose(api, self);
}
