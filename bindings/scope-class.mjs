// The AttnScope class: what one scope holds (its ScopeState, the instance's registry and enums, the
// variant), the wasm memory helpers every call goes through (_withArrays: one heap block per call, inputs
// copied in, results copied out, freed in `finally`), and the calls on vectors the caller brings
// (scores, softmax, attention, attentionOutput, attentionBackward).
// The rest of its methods are written beside it, each group in its own file, and added to the class
// below: the text and sentence calls (scope-text.mjs), trained models (scope-model.mjs) and attention
// imported from a model (scope-imported.mjs), transformers built from a config (scope-transformer.mjs);
// createTrainer makes a Trainer (scope-trainer.mjs).
import { vocabularySource, vocabularyLoader } from './scope-assets.mjs';
import {
  MAX_CALL_BYTES, checkBlock, checkEnum, checkFloat32, checkInt, checkKnownKeys, checkShape, coreError, describe, nonFinite, typedKind, typedLength,
} from './scope-checks.mjs';
import { ImportedCalls } from './scope-imported.mjs';
import { attentionInputs, queryKeyShapes, scoreAndVariant } from './scope-plan.mjs';
import { ModelCalls } from './scope-model.mjs';
import {
  SCORE_KEYS, SCORE_MATRICES, exportMessage, maskOption, paddingOption, returnsOption, scoreParams, temperatureOption,
} from './scope-options.mjs';
import { TextCalls } from './scope-text.mjs';
import { TransformerCalls } from './scope-transformer.mjs';
import { Trainer } from './scope-trainer.mjs';

const NO_NAMES = Object.freeze([]);
const QK = Object.freeze(['Q', 'K']), QKV_DO = Object.freeze(['Q', 'K', 'V', 'gradOutput']);

const RETURNS = Object.freeze(['returns']);
// attention()'s and attentionOutput()'s blocks up to this size are allocated before the call's cost
// is checked, which the export then checks first (_attentionBlock): one crossing of the boundary is
// saved, and a refused call of this size holds at most this much for the moment of its refusal.
// (n = 16, d = dv = 64 takes 18.2 KiB.)
const SMALL_CALL_BYTES = 64 * 1024;
// The slots of _attentionBlock's address array: the inputs (in the block's order), the outputs, the
// block (to free) and which cost check the export makes. parts: the inputs and outputs.
const AT = Object.freeze({
  Q: 0, K: 1, V: 2, padding: 3, W: 4, W1: 5, W2: 6, v: 7, Wa: 8, S: 9, A: 10, O: 11, stats: 12, parts: 13,
  block: 13, costCheck: 14, count: 15,
});

const NO_SCOPE = 'scope: this AttnScope was disposed; create a new one (createAttnScope or scope.newScope)';

class Scope {
  /**
   * instance: what the scopes of one wasm instance share: { module, registry, locate, smallVocabulary }.
   * state: this scope's ScopeState (its vocabulary), owned by this object.
   */
  constructor(instance, state, vocabName) {
    const module = instance.module;
    this._instance = instance;
    this._m = module;
    this._state = state;
    this.registry = instance.registry;
    this._enum = instance.enums;
    this._lists = instance.lists;
    this.scoreFunctions = this.registry.scores;
    const simd = module._simdIsa() !== 'none';
    const compiled = this.registry.variants.filter((v) => v.compiled && v.name !== 'auto').map((v) => v.name);
    // 'auto' first, then the fastest variant first (the manifest lists the scalar reference first).
    const relaxed = instance.build === 'relaxed-simd';
    this.variants = Object.freeze({
      available: ['auto', ...compiled.reverse()], simd, relaxed, build: instance.build ?? (simd ? 'simd' : 'scalar'),
      isa: simd ? `wasm ${relaxed ? 'relaxed simd' : 'simd128'} (xsimd ${module._simdIsa()})` : 'scalar',
    });
    this._variant = 'auto';
    this._at = new Array(AT.count).fill(0);      // _attentionBlock's addresses, reused by every call
    this._bytes = new Array(AT.parts).fill(0);   // and its parts' sizes
    this._vocabName = vocabName;
  }

  get variant() { return this._variant; }
  set variant(v) { checkEnum('variant', v, this.variants.available); this._variant = v; }

  get vocabulary() {
    const s = this._live();
    return { size: s.vocabularySize(), dim: s.vocabularyDim(), name: this._vocabName };
  }

  memoryInUse() { return this._m._memoryInUse(); }

  /** Another scope on this scope's wasm instance, with its own vocabulary (default: the same kind). */
  async newScope(options = {}) {
    checkKnownKeys('options', options, ['vocabulary', 'preload', 'onProgress']);
    this._live();
    return scopeOn(this._instance, options.vocabulary, { preload: options.preload, onProgress: options.onProgress });
  }

  /** Frees this scope's vocabulary; the wasm instance stays for the other scopes on it. */
  dispose() {
    if (this._state) { this._state.delete(); this._state = null; }
  }

  _live() {
    if (!this._state) throw new Error(NO_SCOPE);
    return this._state;
  }

  // ---- memory helpers ----
  // One block of the wasm heap. _malloc takes a 32-bit size: a larger count would wrap (2^32 bytes
  // became 0), so sizes are checked here as JS numbers first, against the core's per-call limit.
  _alloc(bytes) {
    if (!(Number.isSafeInteger(bytes) && bytes >= 0 && bytes <= 4 * MAX_CALL_BYTES))
      throw new RangeError(`memory: ${bytes} bytes in one call is more than the limit of ${4 * MAX_CALL_BYTES} (the wasm heap is at most 2 GiB); use smaller inputs`);
    const ptr = this._m._malloc(Math.max(4, bytes));
    if (!ptr) throw new RangeError(`memory: the wasm heap could not grow by ${bytes} bytes (the engine refused memory); use smaller inputs`);
    return ptr;
  }
  // The core's memory and work budget for scores() (dv = 0) or attention(), before any allocation.
  _checkCost(score, nq, nk, d, dk, dv, hidden, outputOnly = false) {
    const err = exportMessage(this._m, this._m._attnscope_call_cost(this._enum.ints.score[score], nq, nk, d, dk, dv, hidden, outputOnly ? 1 : 0));
    if (err) throw coreError(err);
  }
  _withArrays(arrays, outputs, fn, finite = NO_NAMES, labels = undefined) {
    // arrays: {name: Float32Array|Uint8Array|null}, outputs: {name: floatCount}; fn(ptrs) → copies;
    // finite: names of Float32Array inputs whose elements are checked here (in wasm) to be finite;
    // labels: {name: what an error calls it} where that is not the name itself.
    // Every input and output of the call shares one block of the heap (each part 16-byte aligned):
    // one malloc and one free per call instead of one per array, which small calls feel.
    const ptrs = {};
    const parts = [];
    let total = 0;
    for (const [name, a] of Object.entries(arrays)) {
      if (!a) { ptrs[name] = 0; continue; }
      const kind = typedKind(a);   // the engine's view of the array (checked by the callers)
      if (kind !== 'Float32Array' && kind !== 'Uint8Array') throw new TypeError(`${name}: expected a Float32Array or Uint8Array`);
      const bytes = typedLength(a) * (kind === 'Float32Array' ? 4 : 1);
      checkBlock(bytes);
      parts.push(name, a, kind === 'Float32Array', total);
      total += (bytes + 15) & ~15;
    }
    for (const [name, n] of Object.entries(outputs)) {
      checkBlock(n * 4);
      parts.push(name, null, true, total);
      total += (n * 4 + 15) & ~15;
    }
    const base = this._alloc(total);
    try {
      const heap32 = this._m.HEAPF32, heap8 = this._m.HEAPU8;
      for (let i = 0; i < parts.length; i += 4) {
        const p = base + parts[i + 3], a = parts[i + 1];
        ptrs[parts[i]] = p;
        if (a) { if (parts[i + 2]) heap32.set(a, p >> 2); else heap8.set(a, p); }
      }
      if (finite.length) this._checkFinite(arrays, ptrs, finite, labels);
      return fn(ptrs);
    } finally {
      this._m._free(base);
    }
  }
  // The Float32Array inputs named in `finite` (the first arrays of the block, in order) are checked in
  // one wasm call over their whole span: the alignment gaps between them are zeroed first, and an
  // element found non-finite is mapped back to its array and index for the message.
  _checkFinite(arrays, ptrs, finite, labels = undefined) {
    const heap32 = this._m.HEAPF32;
    const first = ptrs[finite[0]] >> 2;
    let end = first;
    for (const name of finite) {
      const at = ptrs[name] >> 2;
      if (at !== end) heap32.fill(0, end, at);
      end = at + typedLength(arrays[name]);
    }
    const bad = this._m._attnscope_first_non_finite(first << 2, end - first);
    if (bad < 0) return;
    for (const name of finite) {
      const i = first + bad - (ptrs[name] >> 2);
      if (i >= 0 && i < typedLength(arrays[name])) throw nonFinite(labels?.[name] ?? name, arrays[name], i);
    }
    throw new Error(`attnscope: a non-finite value at ${bad} lies in no input (an internal error)`);
  }
  _read(ptr, n) { return this._m.HEAPF32.slice(ptr >> 2, (ptr >> 2) + n); }
  _variantOption(v) {
    const name = v === undefined ? this._variant : v;
    checkEnum('variant', name, this.variants.available);
    return name;
  }

  // ---- bring your own vectors ----
  // The checks the scope shares with the pool's planner (scope-plan.mjs), on this scope's lists,
  // variants and current variant.
  _queryKeyShapes(Q, K, options) { return queryKeyShapes(Q, K, options); }
  _scoreAndVariant(options, d, dk, nk) { return scoreAndVariant(this._checks(), options, d, dk, nk); }
  _checks() { return { lists: this._lists, available: this.variants.available, variant: this._variant }; }

  scores(Q, K, options) {
    checkKnownKeys('options', options, ['nq', 'nk', 'd', 'dk', ...SCORE_KEYS]);
    const { nq, nk, d, dk } = this._queryKeyShapes(Q, K, options);
    const { variant, score, idw, weights } = this._scoreAndVariant(options, d, dk, nk);
    this._checkCost(score, nq, nk, d, dk, 0, weights.hidden || 0);
    return this._withArrays({ Q, K, ...weights.arrays }, { S: nq * nk }, (ptrs) => {
      const e = this._enum.ints;
      const err = exportMessage(this._m, this._m._attnscope_scores(ptrs.Q, ptrs.K, nq, nk, d, dk, e.score[score], e.variant[variant],
        idw.p, idw.eps, ptrs.W || 0, ptrs.W1 || 0, ptrs.W2 || 0, ptrs.v || 0, weights.hidden, ptrs.Wa || 0, weights.maxKeys, ptrs.S));
      if (err) throw coreError(err);
      return this._read(ptrs.S, nq * nk);
    }, QK);
  }

  softmax(S, options) {
    checkKnownKeys('options', options, ['rows', 'cols', 'temperature', 'mask', 'keyPadding', 'variant']);
    const rows = checkInt('options.rows', options.rows, 1, 1 << 20);
    const cols = checkInt('options.cols', options.cols, 1, 1 << 20);
    const n = checkFloat32('S', S, '[rows, cols]');
    if (n !== rows * cols) throw new RangeError(`S: expected ${rows * cols} numbers [rows=${rows}, cols=${cols}], got ${n}`);
    if (2 * n > MAX_CALL_BYTES / 4) throw new RangeError(`memory: softmax of ${rows} x ${cols} needs ${2 * n} floats, more than the limit of ${MAX_CALL_BYTES / 4} (512 MiB per call); use fewer rows per call`);
    for (let i = 0; i < n; i++) if (Number.isNaN(S[i])) throw new RangeError(`S: element ${i} is NaN; scores may be ±Infinity (masked) but not NaN`);
    const temperature = temperatureOption('options.temperature', options.temperature);
    const mask = maskOption('options.mask', options.mask, this._lists);
    const padding = paddingOption('options.keyPadding', options.keyPadding, cols);
    const variant = this._variantOption(options.variant);
    return this._withArrays({ S, padding }, { A: rows * cols }, (ptrs) => {
      const e = this._enum;
      const err = this._m._softmax(ptrs.S, rows, cols, temperature, e.mask[mask], ptrs.padding, e.variant[variant], ptrs.A);
      if (err) throw coreError(err);
      return this._read(ptrs.A, rows * cols);
    });
  }

  // Shapes and options shared by attention() and attentionOutput(): validated once, the same way.
  _attentionInputs(Q, K, V, options, extraKeys) { return attentionInputs(this._checks(), Q, K, V, options, extraKeys); }

  attention(Q, K, V, options) { return this._attention(Q, K, V, options, 0); }
  attentionOutput(Q, K, V, options) { return this._attentionOutput(Q, K, V, options, 0); }

  // queryOffset (the pool's, never an option): the index of Q's first row in a longer query, which
  // only the causal mask reads (key j is hidden from row i when j > queryOffset + i): rows [r0, r1)
  // with queryOffset r0 give exactly those rows of the whole call.
  _attention(Q, K, V, options, queryOffset) {
    checkInt('queryOffset', queryOffset, 0, 1 << 16);
    const a = this._attentionInputs(Q, K, V, options, RETURNS);
    const { nq, nk, dv } = a;
    const want = returnsOption('options.returns', options.returns);
    const outputOnly = want.size === 1 && want.has('output');
    // Only what is asked for gets a buffer; the core skips the work of the rest (no buffer = 0).
    const at = this._attentionBlock(Q, K, V, a, want.has('scores') ? nq * nk : 0, want.has('weights') ? nq * nk : 0,
      want.has('output') ? nq * dv : 0, want.has('stats') ? 3 * nq : 0, outputOnly);
    try {
      const e = this._enum.ints, w = a.weights;
      const r = this._m._attnscope_attention(at[AT.Q], at[AT.K], at[AT.V], nq, nk, a.d, a.dk, dv, e.score[a.score],
        e.variant[a.variant], a.idw.p, a.idw.eps, at[AT.W], at[AT.W1], at[AT.W2], at[AT.v], w.hidden, at[AT.Wa],
        w.maxKeys, a.temperature, e.mask[a.mask], at[AT.padding], at[AT.S], at[AT.A], at[AT.O], at[AT.stats], queryOffset,
        at[AT.costCheck], at[AT.Q], this._finiteSpan(Q, K, V, at));
      if (r !== 0) throw this._attentionRefusal(r, Q, K, V, at);
      // The parts asked for lie in order in one block of the heap: one copy of it comes out, and the
      // result's arrays are views of that copy (as attend()'s are), which small calls feel.
      let first = 0, last = 0;
      for (let j = AT.S; j < AT.parts; j++) {
        if (!at[j]) continue;
        if (!first) first = at[j];
        last = j;
      }
      const lastCount = last === AT.stats ? 3 * nq : last === AT.O ? nq * dv : nq * nk;
      const block = this._read(first, ((at[last] - first) >> 2) + lastCount);
      const view = (p, n) => block.subarray((p - first) >> 2, ((p - first) >> 2) + n);
      const result = {};
      if (at[AT.S]) result.scores = view(at[AT.S], nq * nk);
      if (at[AT.A]) result.weights = view(at[AT.A], nq * nk);
      if (at[AT.O]) result.output = view(at[AT.O], nq * dv);
      if (at[AT.stats]) {
        const v = view(at[AT.stats], 3 * nq), argmax = new Uint32Array(nq);
        for (let i = 0; i < nq; i++) argmax[i] = v[2 * nq + i];
        result.stats = { entropy: v.subarray(0, nq), maxWeight: v.subarray(nq, 2 * nq), argmax };
      }
      result.variant = this._instance.resolvedVariants[a.variant];
      return result;
    } finally {
      this._m._free(at[AT.block]);
    }
  }

  _attentionOutput(Q, K, V, options, queryOffset) {
    checkInt('queryOffset', queryOffset, 0, 1 << 16);
    const a = this._attentionInputs(Q, K, V, options, NO_NAMES);
    const { nq, nk, dv } = a;
    const at = this._attentionBlock(Q, K, V, a, 0, 0, nq * dv, 0, true);
    try {
      const e = this._enum.ints, w = a.weights;
      const r = this._m._attnscope_attention_output(at[AT.Q], at[AT.K], at[AT.V], nq, nk, a.d, a.dk, dv,
        e.score[a.score], e.variant[a.variant], a.idw.p, a.idw.eps, at[AT.W], at[AT.W1], at[AT.W2], at[AT.v],
        w.hidden, at[AT.Wa], w.maxKeys, a.temperature, e.mask[a.mask], at[AT.padding], at[AT.O], queryOffset,
        at[AT.costCheck], at[AT.Q], this._finiteSpan(Q, K, V, at));
      if (r !== 0) throw this._attentionRefusal(r, Q, K, V, at);
      return this._read(at[AT.O], nq * dv);
    } finally {
      this._m._free(at[AT.block]);
    }
  }

  // The heap block of attention() and attentionOutput(), laid out and checked as _withArrays lays out
  // { Q, K, V, padding, W, W1, W2, v, Wa } and the outputs { S, A, O, stats } (floats; 0 = not asked
  // for), with the inputs copied in; without its per-call objects, which a small call feels.
  // The call's cost is checked before its block is allocated, as _checkCost does, except in a small
  // call (a block of at most SMALL_CALL_BYTES): the export checks it first there, in the same wasm
  // call as the computation (at[AT.costCheck] says which check it makes), and if the heap cannot give even
  // that block, the cost is checked before the allocation is refused, so the same call fails with the
  // same message either way.
  // Returns this scope's address array (reused by the next call; slots named by AT): the inputs', the
  // outputs' (0 = none), the block's (to free), the export's cost check (0: none, made here;
  // 1: attention()'s; 2: the output-only path's).
  _attentionBlock(Q, K, V, a, nS, nA, nO, nStats, outputOnly) {
    const w = a.weights.arrays, at = this._at;
    const inputs = [Q, K, V, a.padding, w.W, w.W1, w.W2, w.v, w.Wa];
    let total = 0;
    for (let i = 0; i < AT.parts; i++) {
      const x = i < AT.S ? inputs[i] : null;
      const bytes = i < AT.S ? (!x ? -1 : i === AT.padding ? typedLength(x) : 4 * typedLength(x))   // the padding is a Uint8Array
        : 4 * (i === AT.S ? nS : i === AT.A ? nA : i === AT.O ? nO : nStats) || -1;
      this._bytes[i] = bytes;
      if (bytes < 0) { at[i] = -1; continue; }
      at[i] = total;
      total += (bytes + 15) & ~15;
    }
    const cost = () => this._checkCost(a.score, a.nq, a.nk, a.d, a.dk, a.dv, a.weights.hidden || 0, outputOnly);
    let base = 0;
    at[AT.costCheck] = 0;
    if (total <= SMALL_CALL_BYTES) {
      base = this._m._malloc(total);
      if (base) at[AT.costCheck] = outputOnly ? 2 : 1;
      else { cost(); base = this._alloc(total); }
    } else {
      cost();
      for (let i = 0; i < AT.parts; i++) if (this._bytes[i] >= 0) checkBlock(this._bytes[i]);
      base = this._alloc(total);
    }
    const heap32 = this._m.HEAPF32;
    for (let i = 0; i < AT.parts; i++) {
      if (at[i] < 0) { at[i] = 0; continue; }
      at[i] += base;
      if (i === AT.padding) this._m.HEAPU8.set(inputs[AT.padding], at[AT.padding]);
      else if (i < AT.S) heap32.set(inputs[i], at[i] >> 2);
    }
    at[AT.block] = base;
    return at;
  }
  // Q, K and V (the first three parts of the block) are checked for non-finite values in the export,
  // over their span from Q's first float: the alignment gaps between them are zeroed here first.
  // Returns the span's length in floats.
  _finiteSpan(Q, K, V, at) {
    const heap32 = this._m.HEAPF32;
    const qEnd = (at[AT.Q] >> 2) + typedLength(Q), kEnd = (at[AT.K] >> 2) + typedLength(K);
    if (at[AT.K] >> 2 !== qEnd) heap32.fill(0, qEnd, at[AT.K] >> 2);
    if (at[AT.V] >> 2 !== kEnd) heap32.fill(0, kEnd, at[AT.V] >> 2);
    return (at[AT.V] >> 2) + typedLength(V) - (at[AT.Q] >> 2);
  }
  // The error of an export's refusal r (embind-attention.cpp, checked_first): a message, or the index of a
  // non-finite element in the span of Q, K and V, named by its array (as _checkFinite names it).
  _attentionRefusal(r, Q, K, V, at) {
    if (r > 0) return coreError(exportMessage(this._m, r));
    const bad = -1 - r, arrays = [Q, K, V];
    for (let k = 0; k < 3; k++) {
      const i = (at[AT.Q] >> 2) + bad - (at[k] >> 2);
      if (i >= 0 && i < typedLength(arrays[k])) return nonFinite('QKV'[k], arrays[k], i);
    }
    return new Error(`attnscope: a non-finite value at ${bad} lies in no input (an internal error)`);
  }

  /**
   * Gradients of L through O = attention(Q, K, V, options).output, given gradOutput = dL/dO [nq, dv]:
   * { dQ, dK, dV } and the score's own parameter gradients (dW; dW1, dW2, dv; dWa). Same options,
   * checks and limits as attention(); the forward is recomputed inside (nothing is kept between calls).
   */
  attentionBackward(Q, K, V, gradOutput, options) {
    const a = this._attentionInputs(Q, K, V, options, []);
    const { nq, nk, d, dk, dv } = a;
    checkShape('gradOutput', gradOutput, nq * dv, `[nq=${nq}, dv=${dv}] (dL/dO, shaped like the output)`);  // finite: checked by _withArrays
    const hidden = a.weights.hidden || 0;
    const err0 = this._m._backwardCost(a.score, nq, nk, d, dk, dv, hidden);
    if (err0) throw coreError(err0);
    const outputs = { dQ: nq * d, dK: nk * dk, dV: nk * dv };
    for (const m of this._lists.scoreInfo.get(a.score).matrices) {
      outputs[SCORE_MATRICES[m].grad] = SCORE_MATRICES[m].size({ d, dk, hidden, maxKeys: a.weights.maxKeys });
    }
    return this._withArrays({ Q, K, V, gradOutput, padding: a.padding, ...a.weights.arrays }, outputs, (ptrs) => {
      const e = this._enum;
      const err = this._m._attentionBackward(ptrs.Q, ptrs.K, ptrs.V, nq, nk, d, dk, dv, e.score[a.score], e.variant[a.variant],
        scoreParams(a.idw, a.weights, ptrs), a.temperature, e.mask[a.mask], ptrs.padding || 0, ptrs.gradOutput,
        ptrs.dQ, ptrs.dK, ptrs.dV, ptrs.dW || 0, ptrs.dW1 || 0, ptrs.dW2 || 0, ptrs.dv || 0, ptrs.dWa || 0);
      if (err) throw coreError(err);
      const result = {};
      for (const [name, n] of Object.entries(outputs)) result[name] = this._read(ptrs[name], n);
      result.variant = this._instance.resolvedVariants[a.variant];
      return result;
    }, QKV_DO);
  }

  /** A trainer of one attention head (scope-trainer.mjs, and attnscope.d.ts). */
  createTrainer(options) {
    return new Trainer(this, options);
  }

  // Calls that need the word vectors (attend, embed, nearest, tokenize) stay synchronous: a vocabulary
  // still to be downloaded makes them throw, naming the fix (see scopeOn below).
  // Loads the vocabulary now if it can be (else throws); returns its dimension. A scope's vocabulary is
  // installed once (the loader installs only while none is loaded), so its dimension is asked of the
  // core once: the small calls then cross no Embind boundary for it.
  _requireVocabulary(caller) {
    const state = this._live();
    if (this._vocabularyDim) return this._vocabularyDim;
    if (state.vocabularySize() === 0) this._vocabLoader.requireNow(caller);
    const dim = state.vocabularyDim();
    if (state.vocabularySize() > 0) this._vocabularyDim = dim;
    return dim;
  }

  loadVocabulary(...args) {
    // The file is chosen when the scope is made; an argument here would be silently ignored.
    if (args.length > 0 && args[0] !== undefined) {
      return Promise.reject(new TypeError('loadVocabulary() takes no argument: pass the vocabulary when you make the scope, ' +
        'createAttnScope({ vocabulary }) or scope.newScope({ vocabulary })'));
    }
    return this._vocabLoader.load();
  }
}

// The method groups of the other files become methods of the class, defined as the class's own are
// (writable, configurable, not enumerable).
for (const Calls of [TextCalls, ModelCalls, ImportedCalls, TransformerCalls]) {
  for (const [name, property] of Object.entries(Object.getOwnPropertyDescriptors(Calls.prototype))) {
    if (name !== 'constructor') Object.defineProperty(Scope.prototype, name, property);
  }
}

/** A new scope (its own ScopeState) on an instance; see createScopeWith for when its vocabulary loads. */
async function scopeOn(instance, vocab, { preload, onProgress } = {}) {
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError(`options.onProgress: expected a function, got ${describe(onProgress)}`);
  const source = vocabularySource(vocab === undefined ? instance.defaultVocabulary : vocab, instance);
  const scope = new Scope(instance, new instance.module.ScopeState(), source.name);
  scope._vocabLoader = vocabularyLoader(scope, instance.module, source, onProgress);
  try {
    // Bytes at hand (the caller's, or the single-file build's inlined ones) are loaded, and checked, now.
    if (source.bytes) scope._vocabLoader.requireNow('createAttnScope');
    if (preload) await scope.loadVocabulary();
  } catch (e) {
    scope.dispose();
    throw e;
  }
  return scope;
}

export { Scope, scopeOn };
