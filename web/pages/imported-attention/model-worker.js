// The model page's computation, off its main thread: a module worker that holds the attnscope module
// and answers web/shared/imported-client.js (its only caller) through comlink. It reads a dropped file (the
// page hands it the File itself: no copy of the bytes on the page's thread), parses it with the
// module's C++ readers (scope.loadAttentions), and computes what the page draws: the layers × heads
// grid's thumbnails (web/shared/compute/imported.js), the head summaries (scope.headSummaries, one layer at a
// time so that it can say how far it is) and the rollout (scope.rollout). The stack goes to the page
// transferred, not copied; the worker keeps a copy of its own for the later rollouts and grid blocks
// the page asks for. The trained model's example (scope.loadModel, model.encode) runs here too.
// Every step posts progress ("summaries: head 37 of 128"); the page's Cancel terminates the worker.
import * as Comlink from 'comlink';
import { createAttnScope } from 'attnscope';
import { gridPage, gridThumbnails } from '../../shared/compute/imported.js';

let scope = null;
let report = null;          // (job, text, fraction): the page's progress channel
/** The stack the page shows: { id, res (loadAttentions' result, with the attentions) }. */
let held = null;
/** The id of the newest file asked for: a request about an older one is answered { stale: true }, unparsed. */
let newest = 0;
let model = null;

/** Progress of job `job`, at most one message per PROGRESS_MS (each is a task on the page's thread). */
const PROGRESS_MS = 50;
function progressOf(job) {
  let last = -Infinity;
  return (text, fraction, force = false) => {
    const t = performance.now();
    if (!report || (!force && t - last < PROGRESS_MS)) return;
    last = t;
    report(job, text, fraction);
  };
}

/** The stack of `source` ({ id, blob, tokensText, softmax }): the one held, or the file parsed again. */
async function stackOf(source, progress) {
  if (held && held.id === source.id) return held.res;
  progress('loading the file…', 0, true);
  const bytes = new Uint8Array(await source.blob.arrayBuffer());
  // One call of the module (inflating, parsing and checking every number): no progress inside it.
  progress(`reading and checking the file (${(bytes.length / 1e6).toFixed(1)} MB: one step, no progress inside it)…`, 0.05, true);
  const options = { softmax: !!source.softmax };
  if (source.tokensText !== null && source.tokensText !== undefined) options.tokens = source.tokensText;
  const res = scope.loadAttentions(bytes, options);
  held = { id: source.id, res };
  return res;
}

/** Per-head summaries, one layer at a time (each a C++ call), with progress per head. */
function summaries(res, progress) {
  const { layers, heads, nq, nk, attentions } = res;
  const lh = layers * heads, per = heads * nq * nk;
  const out = { entropy: new Float32Array(lh), max: new Float32Array(lh), meanMax: new Float32Array(lh) };
  for (let l = 0; l < layers; l++) {
    progress(`summaries: head ${l * heads + 1} of ${lh}`, 0.5 + (0.3 * l) / layers);
    const s = scope.headSummaries(attentions.subarray(l * per, (l + 1) * per), { layers: 1, heads, nq, nk });
    out.entropy.set(s.entropy, l * heads);
    out.max.set(s.max, l * heads);
    out.meanMax.set(s.meanMax, l * heads);
  }
  return out;
}

/** The rollout for the page's settings, or { error } when the module refuses it (its work limit). */
function rolloutOf(res, settings) {
  if (res.nq !== res.nk || !res.tokens.every((t, i) => t === res.keyTokens[i])) return { error: 'cross-attention' };
  try {
    return { matrix: scope.rollout(res.attentions, { layers: res.layers, heads: res.heads, n: res.nq, residual: settings.residual, head: settings.head }) };
  } catch (e) {
    return { error: e.message };
  }
}

const api = {
  /** Loads the module (no vocabulary: the page needs none). */
  async init(progress) {
    report = progress;
    scope = await createAttnScope({ locateFile: (path) => new URL(path, import.meta.url).href });
    return { isa: scope.variants.isa };
  },

  /**
   * Everything the page draws for a file. source: { id, blob, tokensText, softmax }; view: { layer,
   * head, residual, rolloutHead } (the grid's block and the rollout's settings). Returns { meta (format,
   * layers, heads, nq, nk, tokens, keyTokens, warnings), attentions (transferred), summaries, thumbs,
   * rollout: { key, matrix } | { key, error }, ms }.
   */
  async analyse(job, source, view) {
    const t0 = performance.now();
    const progress = progressOf(job);
    // A new file: the previous one is the page's now (it is read again if asked for after all).
    held = null;
    const before = newest;
    newest = Math.max(newest, source.id);
    let res;
    try {
      res = await stackOf(source, progress);
    } catch (e) {
      newest = before;   // the page keeps showing the previous file: its requests are not stale
      throw e;
    }
    const { layers, heads, nq, nk } = res;
    const t1 = performance.now();
    const page = gridPage(res, view.layer, view.head);
    const shown = page.layers * page.heads;
    const thumbs = gridThumbnails(res.attentions, res, page, (done) => progress(`grid: head ${done} of ${shown}`, 0.1 + (0.4 * done) / shown));
    const t2 = performance.now();
    const sums = summaries(res, progress);
    const t3 = performance.now();
    progress('rollout…', 0.85, true);
    // A head the file does not have falls back to the mean (as the page's view does).
    const rh = typeof view.rolloutHead === 'number' && view.rolloutHead >= heads ? 'mean' : view.rolloutHead;
    const rollout = { key: `${view.residual}|${rh}`, ...rolloutOf(res, { residual: view.residual, head: rh }) };
    const t4 = performance.now();
    progress('drawing…', 1, true);
    // The page gets the stack itself (transferred); the worker keeps a copy for later requests.
    const attentions = res.attentions;
    held = { id: source.id, res: { ...res, attentions: attentions.slice() } };
    const meta = { format: res.format, layers, heads, nq, nk, tokens: res.tokens, keyTokens: res.keyTokens, warnings: res.warnings };
    const transfer = [attentions.buffer, thumbs.levels.buffer, sums.entropy.buffer, sums.max.buffer, sums.meanMax.buffer];
    if (rollout.matrix) transfer.push(rollout.matrix.buffer);
    return Comlink.transfer({
      meta, attentions, summaries: sums, thumbs, rollout,
      ms: { parse: t1 - t0, grid: t2 - t1, summaries: t3 - t2, rollout: t4 - t3 },
    }, transfer);
  },

  /** The rollout of `source` for { residual, rolloutHead }: { key, matrix } or { key, error }. */
  async rollout(job, source, settings) {
    if (source.id < newest) return { stale: true };
    newest = source.id;
    const res = await stackOf(source, progressOf(job));
    const r = { key: `${settings.residual}|${settings.rolloutHead}`, ...rolloutOf(res, { residual: settings.residual, head: settings.rolloutHead }) };
    return r.matrix ? Comlink.transfer(r, [r.matrix.buffer]) : r;
  },

  /** The grid's block holding (layer, head) of `source`: gridThumbnails' result. */
  async grid(job, source, layer, head) {
    if (source.id < newest) return { stale: true };
    newest = source.id;
    const progress = progressOf(job);
    const res = await stackOf(source, progress);
    const page = gridPage(res, layer, head);
    const shown = page.layers * page.heads;
    const thumbs = gridThumbnails(res.attentions, res, page, (done) => progress(`grid: head ${done} of ${shown}`, done / shown));
    return Comlink.transfer(thumbs, [thumbs.levels.buffer]);
  },

  /**
   * The trained model (USE-Lite) on `text`, as a file of the JSON format ({ tokens, attentions }), so
   * that it goes through the same reader and views as a dropped one: { blob, model, truncated, maxTokens }.
   */
  async example(job, text) {
    const progress = progressOf(job);
    if (!model) {
      progress('Loading the trained model (USE-Lite, about 14 MB)…', 0, true);
      model = await scope.loadModel({
        onProgress: (loaded, total) => progress(`Loading the trained model… ${(loaded / 1e6).toFixed(1)}${total > 0 ? ` of ${(total / 1e6).toFixed(1)}` : ''} MB`,
          total > 0 ? loaded / total : 0),
      });
    }
    const r = model.encode(text);
    const { layers, heads, n } = r;
    const attentions = Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (_, h) => Array.from({ length: n }, (_, i) =>
      Array.from(r.attentions.subarray(((l * heads + h) * n + i) * n, ((l * heads + h) * n + i + 1) * n)))));
    const blob = new Blob([JSON.stringify({ tokens: r.tokens, attentions })], { type: 'application/json' });
    return { blob, model: model.name, truncated: r.truncated, maxTokens: model.maxTokens };
  },
};

Comlink.expose(api);
