// Trained models on a scope's wasm instance: scope.loadModel() (a method of Scope, added to the class by
// scope-class.mjs) and the Model it resolves to: encode / encodeIds (every layer's and head's attention
// and the sentence embedding, heads re-scored or knocked out), similarity.
import { createSentencePiece } from './sentencepiece.mjs';
import { readUrl, toUrl } from './scope-assets.mjs';
import { checkInt, checkKnownKeys, checkPlainEntries, checkTextBytes, checkWellFormed, clip, coreError, describe, headIndex, initOrDelete, typedKind } from './scope-checks.mjs';
import { deepFreeze, temperatureOption } from './scope-options.mjs';
import { surgeryOptions } from './scope-surgery.mjs';
import { isSafetensors, loadTransformer } from './scope-transformer.mjs';

const MODEL_FILE = 'use-lite.bin';
const MODEL_MAGIC = { bytes: Array.from('ATSMODEL', (c) => c.charCodeAt(0)), kind: 'an attnscope model file (starting "ATSMODEL")' };
const NO_MODEL = 'model: this Model was disposed; load another with scope.loadModel()';
// The Cache API store the models downloaded over http(s) are kept in (browsers and workers; Node has
// none): the 14 MB file is fetched once, then read from the cache, by URL, with no request (as
// transformers.js keeps its models). A bundler's file names carry the content's hash, so a new model
// gets a new URL; options.cache: false skips the store, and caches.delete('attnscope-models') empties it.
export const MODEL_CACHE = 'attnscope-models';
const SAFETENSORS_OR_MODEL = (bytes) => MODEL_MAGIC.bytes.every((b, i) => bytes[i] === b) || isSafetensors(bytes);

/**
 * The bytes of a model at `url`: from the Cache API store when it holds a model file for that URL,
 * else downloaded by `download()` and put in the store (a full store or a refused one is no error: the
 * model loads all the same). Resolves { bytes, from: 'cache' | 'network' | 'file' }.
 */
export async function cachedModelBytes(url, download, { cache = true, onProgress } = {}) {
  let store = null;
  if (cache && /^https?:$/.test(url.protocol) && typeof caches !== 'undefined') {
    try { store = await caches.open(MODEL_CACHE); } catch { store = null; }   // an opaque origin refuses
  }
  if (store) {
    try {
      const hit = await store.match(url.href);
      if (hit) {
        const bytes = new Uint8Array(await hit.arrayBuffer());
        if (SAFETENSORS_OR_MODEL(bytes)) {
          if (onProgress) onProgress(bytes.length, bytes.length);
          return { bytes, from: 'cache' };
        }
        await store.delete(url.href);   // not a model (a damaged entry): fetched again below
      }
    } catch { /* a store that cannot be read: the network, as without one */ }
  }
  const bytes = await download();
  if (store) {
    try {
      await store.put(url.href, new Response(bytes, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) } }));
    } catch { /* over the quota, or private browsing: not kept */ }
  }
  return { bytes, from: url.protocol === 'file:' ? 'file' : 'network' };
}

export class ModelCalls {
  /**
   * Loads a trained model (default: the shipped USE-Lite file, use-lite.bin, found next to the module
   * like the vocabulary). options.model: 'default', the file's bytes (Uint8Array | ArrayBuffer), or
   * its URL; a safetensors file saved by model.save() resolves to that TransformerModel instead; options.onProgress(loaded, total) follows the download. Resolves to a Model that lives on
   * this scope's wasm instance until model.dispose().
   */
  async loadModel(options = {}) {
    checkKnownKeys('options', options, ['model', 'onProgress', 'cache']);
    this._live();
    const { onProgress } = options;
    if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError(`options.onProgress: expected a function, got ${describe(onProgress)}`);
    if (options.cache !== undefined && typeof options.cache !== 'boolean') throw new TypeError(`options.cache: expected true (keep the download in the Cache API store '${MODEL_CACHE}', the default) or false, got ${describe(options.cache)}`);
    const cache = options.cache !== false;
    let from = 'bytes';
    const source = options.model === undefined ? 'default' : options.model;
    let bytes, label;
    if (source === 'default') {
      if (!this._instance.canLocate(MODEL_FILE)) {
        throw new TypeError(`options.model: this build does not ship ${MODEL_FILE} (the single-file build carries no model); ` +
          `pass its URL or bytes as options.model, or use locateFile, or import 'attnscope' (the split build)`);
      }
      const url = await this._instance.locate(MODEL_FILE);
      ({ bytes, from } = await cachedModelBytes(url, () => readUrl(url, { what: MODEL_FILE, expect: MODEL_MAGIC, onProgress, fix: this._instance.fixFor?.(MODEL_FILE) }),
        { cache, onProgress }));
      label = `attnscope: ${url.href}`;
    } else if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
      bytes = new Uint8Array(source);
      label = 'options.model';
      // A transformer saved by model.save() (safetensors): the model it describes (scope-transformer.mjs).
      if (isSafetensors(bytes)) return withSource(await loadTransformer(this, bytes, label), from);
    } else if ((typeof source === 'string' && source !== '') || source instanceof URL) {
      const url = await toUrl(source, 'options.model');
      label = `attnscope: ${url.href}`;
      ({ bytes, from } = await cachedModelBytes(url, async () => {
        const got = await readUrl(url, { what: 'the model file', onProgress, fix: 'check the URL given as options.model' });
        if (!SAFETENSORS_OR_MODEL(got)) {
          throw new Error(`${label} should be the model file, ${MODEL_MAGIC.kind} or a safetensors model saved by model.save(), but it is neither; check the URL given as options.model`);
        }
        return got;
      }, { cache, onProgress }));
      if (isSafetensors(bytes)) return withSource(await loadTransformer(this, bytes, label), from);
    } else {
      throw new TypeError(`options.model: expected 'default', a Uint8Array or ArrayBuffer of a model file, or its URL, got ${describe(source)}`);
    }
    const m = this._m;
    const state = initOrDelete(new m.ModelState(), (s) => {
      const ptr = m._malloc(bytes.length);
      if (!ptr) throw new RangeError(`${label}: out of wasm memory for ${bytes.length} bytes`);
      try {
        m.HEAPU8.set(bytes, ptr);
        const err = s.load(ptr, bytes.length);
        if (err) throw (label === 'options.model' ? new RangeError(`options.model: ${err}`) : new Error(`${label}: ${err}`));
      } finally {
        m._free(ptr);
      }
    });
    return withSource(new Model(this, state), from);
  }
}

// Where a loaded model's bytes came from: 'network', 'cache' (the Cache API store), 'file' (Node, from
// disk) or 'bytes' (given).
function withSource(model, from) {
  Object.defineProperty(model, 'loadedFrom', { value: from, enumerable: true });
  return model;
}

/**
 * A trained transformer (USE-Lite) run by the scope's kernels. encode() gives every layer's and head's
 * attention and the sentence embedding; options re-score heads with any scoring function of the
 * registry and knock heads out (see attnscope.d.ts).
 */
class Model {
  constructor(scope, state) {
    this._scope = scope;
    this._state = state;
    this.name = 'use-lite';
    this.layers = state.layers();
    this.heads = state.heads();
    this.maxTokens = state.maxTokens();
    this.dim = state.outputDim();
    this.headDims = Object.freeze(Array.from({ length: this.layers }, (_, l) => state.headDim(l)));
    this.vocabularySize = state.vocabularyRows();
    this._pieces = null;
  }

  /** The SentencePiece vocabulary the ids index: [piece, log-probability | null][] (frozen). */
  get vocabulary() {
    this._pieces ??= deepFreeze(JSON.parse(this._live().piecesJson()));
    return this._pieces;
  }

  _live() {
    if (!this._state) throw new Error(NO_MODEL);
    this._scope._live();
    return this._state;
  }

  /** 'L.H' labels of every head, layer-major. */
  _labels() {
    const out = [];
    for (let l = 0; l < this.layers; l++) for (let h = 0; h < this.heads; h++) out.push(`${l}.${h}`);
    return out;
  }
  _headIndex(name, label) {
    return headIndex(name, label, this.layers, this.heads);
  }
  /**
   * The options of encode(): { scores: '' | names joined by ',', ablate: '' | '0'/'1' per head,
   * temperatures: '' | one τ per head joined by ',', variant }. options.temperature: a number for every
   * head, or { 'L.H': τ } for some (the others keep the model's τ = 1).
   */
  _surgery(options) {
    checkKnownKeys('options', options, ['score', 'ablate', 'temperature', 'variant']);
    const count = this.layers * this.heads;
    const index = (name, label) => this._headIndex(name, label);
    const { scores, ablate } = surgeryOptions(options, {
      names: this._scope._lists.scores, count, own: Array(count).fill('scaled-dot'), example: 'L.H', index,
    });
    let temperatures = '';
    const t = options.temperature;
    const tau = (name, v) => {
      const x = temperatureOption(name, v);
      // The core divides in float32: τ and 1/τ must both be finite floats there.
      const f = Math.fround(x);
      if (!(f > 0 && Number.isFinite(Math.fround(1 / f)))) throw new RangeError(`${name}: ${x} is too small a temperature (1/τ overflows a float32); expected a number >= 1e-30 (1 = the model's own)`);
      if (!Number.isFinite(f)) throw new RangeError(`${name}: ${x} is too large a temperature for a float32; expected a number <= 1e30`);
      return x;
    };
    if (typeof t === 'number') {
      temperatures = Array(count).fill(tau('options.temperature', t)).join(',');
    } else if (t !== undefined) {
      if (t === null || typeof t !== 'object' || Array.isArray(t)) {
        throw new TypeError(`options.temperature: expected a number > 0 for every head, or an object { 'L.H': number } for some, got ${describe(t)}`);
      }
      const per = Array(count).fill(1);
      for (const [label, value] of checkPlainEntries('options.temperature', t, "{ 'L.H': number } naming at least one head")) {
        const name = `options.temperature['${clip(label)}']`;
        per[index(name, label)] = tau(name, value);
      }
      temperatures = per.join(',');
    }
    return { scores, ablate, temperatures, variant: this._scope._variantOption(options.variant) };
  }

  /**
   * The model on token ids (numbers in [0, vocabularySize)): as encode(), with tokens the ids' pieces.
   * More than maxTokens ids are cut (truncated: true).
   */
  encodeIds(ids, options = {}) {
    const state = this._live();
    let arr;
    if (typedKind(ids) === 'Int32Array') arr = Int32Array.from(ids);
    else if (Array.isArray(ids)) arr = Int32Array.from(ids, (v, i) => checkInt(`ids[${i}]`, v, 0, this.vocabularySize - 1));
    else throw new TypeError(`ids: expected an Int32Array or an array of token ids, got ${describe(ids)}`);
    if (arr.length === 0) throw new RangeError('ids: expected at least one token id');
    const o = this._surgery(options);
    const m = this._scope._m;
    const ptr = m._malloc(Math.max(4, arr.length * 4));
    if (!ptr) throw new RangeError(`ids: out of wasm memory for ${arr.length} ids`);
    let r;
    try {
      m.HEAP32.set(arr, ptr >> 2);
      r = state.encode(ptr, arr.length, o.scores, o.ablate, o.temperatures, this._scope._enum.variant[o.variant]);
    } finally {
      m._free(ptr);
    }
    if (r.error) throw coreError(r.error);
    const n = r.n, size = this.layers * this.heads * n * n;
    const pieces = this.vocabulary;
    const used = arr.subarray(0, n);
    return {
      tokens: Array.from(used, (id) => (id < pieces.length ? pieces[id][0] : `<${id}>`)),
      ids: Int32Array.from(used), n,
      attentions: r.data.slice(0, size), embedding: r.data.slice(size),
      truncated: r.truncated, layers: this.layers, heads: this.heads,
      variant: this._scope._instance.resolvedVariants[o.variant],
    };
  }

  /**
   * The model on text: { tokens, ids, n, attentions [layers, heads, n, n], embedding [dim], truncated,
   * spans }. Tokenised by the model's SentencePiece vocabulary (bindings/sentencepiece.mjs, the reference
   * tokenizer's ids); tokens are the pieces' texts, spans their [start, end) UTF-16 offsets in `text`.
   */
  encode(text, options = {}) {
    if (typeof text !== 'string') throw new TypeError(`text: expected a string, got ${describe(text)}`);
    // Before normalising or tokenizing anything (10 MB took seconds and hundreds of MiB to use 128 tokens).
    checkTextBytes('text', text, `the model reads its first ${this.maxTokens} tokens: pass the start of the text`);
    checkWellFormed('text', text);
    this._live();
    this._surgery(options);  // option errors before any work
    this._tokenizer ??= createSentencePiece(this.vocabulary);
    const t = this._tokenizer.encode(text);
    if (t.ids.length === 0) throw new RangeError("text: expected text with at least one token, got ''");
    const r = this.encodeIds(t.ids, options);
    r.tokens = t.pieces.slice(0, r.n);
    r.spans = t.spans.slice(0, 2 * r.n);
    return r;
  }

  /** Cosine of the embeddings of a and b (texts, or token ids), with the same options for both. */
  similarity(a, b, options = {}) {
    const run = (x, name) => {
      if (typeof x === 'string') return this.encode(x, options).embedding;
      if (Array.isArray(x) || typedKind(x) === 'Int32Array') return this.encodeIds(x, options).embedding;
      throw new TypeError(`${name}: expected a string or token ids, got ${describe(x)}`);
    };
    const ea = run(a, 'a'), eb = run(b, 'b');
    let dot = 0, na = 0, nb = 0;
    for (let i = 0; i < ea.length; i++) { dot += ea[i] * eb[i]; na += ea[i] * ea[i]; nb += eb[i] * eb[i]; }
    return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
  }

  /** Frees the model's weights in the wasm instance; the scope stays usable. */
  dispose() {
    if (this._state) { this._state.delete(); this._state = null; }
  }
}
