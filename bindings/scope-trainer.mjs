// The head trainer (src/attnscope/trainer.hpp): scope.createTrainer(options) makes one; it trains one
// attention head on the caller's sentences, in the scope's wasm instance.
import { checkEnum, checkFloat32, checkInt, checkKnownKeys, checkMatrix, checkNumber, coreError, describe, initOrDelete, typedKind, typedLength } from './scope-checks.mjs';
import { SCORE_MATRICES, idwOptions, maskOption, scoreOption, temperatureOption } from './scope-options.mjs';

const TRAINER_KEYS = ['data', 'dIn', 'dHead', 'positions', 'dPos', 'maxLen', 'score', 'p', 'eps', 'hidden', 'temperature',
  'mask', 'learningRate', 'batch', 'seed', 'variant', 'output'];
const TRAINER_POSITIONS = ['none', 'add', 'concat'];
const TRAINER_OUTPUTS = ['none', 'value', 'scaled'];
const NO_TRAINER = 'trainer: this Trainer was disposed; create a new one with scope.createTrainer()';

/** lengths as a Uint32Array: a Uint32Array or an array of integers from 1 to maxLen. */
function lengthsOption(name, value, maxLen) {
  const typed = typedKind(value) === 'Uint32Array';
  if (!typed && !Array.isArray(value)) throw new TypeError(`${name}: expected a Uint32Array or number[] of sentence lengths, got ${describe(value)}`);
  const n = typed ? typedLength(value) : value.length;
  if (n === 0) throw new RangeError(`${name}: expected at least one sentence`);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = checkInt(`${name}[${i}]`, value[i], 1, maxLen);
  return out;
}
/** targets as an Int32Array: one per token, -1 (none) or the index of a key in its sentence. */
function targetsOption(name, value, tokens) {
  const typed = typedKind(value) === 'Int32Array';
  if (!typed && !Array.isArray(value)) throw new TypeError(`${name}: expected an Int32Array or number[] (one target per token, -1 = none), got ${describe(value)}`);
  const n = typed ? typedLength(value) : value.length;
  if (n !== tokens) throw new RangeError(`${name}: expected ${tokens} entries (one per token, the sum of lengths), got ${n}`);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = checkInt(`${name}[${i}]`, value[i], -1, 1 << 20);
  return out;
}

// An integer array's bytes, as _withArrays copies them (malloc's blocks are 8-byte aligned).
const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export class Trainer {
  constructor(scope, options) {
    checkKnownKeys('options', options, TRAINER_KEYS);
    const lists = scope._lists;
    const o = {
      dIn: checkInt('options.dIn', options.dIn, 1, 4096),
      dHead: options.dHead === undefined ? 16 : checkInt('options.dHead', options.dHead, 1, 1024),
      positions: options.positions === undefined ? 'none' : options.positions,
      dPos: options.dPos === undefined ? 16 : checkInt('options.dPos', options.dPos, 1, 1024),
      maxLen: options.maxLen === undefined ? 64 : checkInt('options.maxLen', options.maxLen, 1, 1024),
      score: scoreOption('options.score', options.score, lists),
      ...idwOptions('options.', options),
      hidden: options.hidden === undefined ? 16 : checkInt('options.hidden', options.hidden, 1, 1024),
      // A number, or 'learned': τ trained with the rest (log τ from 0, τ = 1; attention-only heads).
      temperature: options.temperature === 'learned' ? 'learned' : temperatureOption('options.temperature', options.temperature),
      mask: maskOption('options.mask', options.mask, lists),
      learningRate: options.learningRate === undefined ? 0.01 : checkNumber('options.learningRate', options.learningRate,
        { min: 0, exclusiveMin: true, max: 1, hint: ' (Adam moves each weight by about this much per step; 0.001 to 0.03 are usual)' }),
      batch: options.batch === undefined ? 32 : checkInt('options.batch', options.batch, 1, 4096),
      seed: options.seed === undefined ? 1 : checkInt('options.seed', options.seed, 0, 0xffffffff),
      variant: scope._variantOption(options.variant),
      output: options.output === undefined ? 'none' : options.output,
    };
    checkEnum('options.positions', o.positions, TRAINER_POSITIONS);
    checkEnum('options.output', o.output, TRAINER_OUTPUTS);
    if (o.temperature === 'learned' && o.output !== 'none') {
      throw new RangeError(`options.temperature: 'learned' trains an attention-only head (output 'none'); with output '${o.output}' give a number`);
    }
    if (o.positions === 'add' && o.dIn % 2 !== 0) { /* sinusoidal pairs: an odd width keeps its last sine; allowed */ }
    this._scope = scope;
    this._m = scope._m;
    this.options = Object.freeze({ ...o });
    const data = this._data('options.data', options.data);
    const t = initOrDelete(new this._m.HeadTrainer(), (trainer) => {
      scope._withArrays(this._arrays(data), {}, (ptrs) => {
        const e = scope._enum;
        const learned = o.temperature === 'learned';
        const err = trainer.init({ ...o, temperature: learned ? 1 : o.temperature, learnedTemperature: learned,
          positions: TRAINER_POSITIONS.indexOf(o.positions), score: e.score[o.score], mask: e.mask[o.mask],
          variant: e.variant[o.variant], output: TRAINER_OUTPUTS.indexOf(o.output) }, ptrs.X, data.tokens, ptrs.L, data.lengths.length, ptrs.T, ptrs.KX, data.keyTokens, ptrs.KL);
        if (err) throw coreError(err.replace(/^(vectors|lengths|targets|keyVectors|keyLengths)/, 'options.data.$1'));
      });
    });
    this._t = t;
    this.layout = Object.freeze(JSON.parse(t.layoutJson()));
    /** Number of training sentences. */
    this.examples = t.examples();
    /** True when trained on pairs (cross-attention: keys from each sentence's key sentence). */
    this.cross = t.cross();
  }

  // The heap arrays of checked data (KX, KL null for self-attention).
  _arrays(d) {
    return { X: d.vectors, L: bytesOf(d.lengths), T: bytesOf(d.targets), KX: d.keyVectors, KL: d.keyLengths && bytesOf(d.keyLengths) };
  }

  _live() {
    if (!this._t) throw new Error(NO_TRAINER);
    return this._t;
  }

  // { vectors, lengths, targets[, keyVectors, keyLengths] } checked and converted; tokens = the sum of
  // lengths, keyTokens the sum of keyLengths (0 and keyVectors = keyLengths = null for self-attention).
  _data(name, data) {
    if (data === null || typeof data !== 'object') throw new TypeError(`${name}: expected { vectors, lengths, targets } (and keyVectors, keyLengths for cross-attention), got ${describe(data)}`);
    checkKnownKeys(name, data, ['vectors', 'lengths', 'targets', 'keyVectors', 'keyLengths']);
    const lengths = lengthsOption(`${name}.lengths`, data.lengths, this.options.maxLen);
    let tokens = 0;
    for (const n of lengths) tokens += n;
    const vectors = checkMatrix(`${name}.vectors`, data.vectors, tokens * this.options.dIn, `[tokens=${tokens}, dIn=${this.options.dIn}]`);
    const targets = targetsOption(`${name}.targets`, data.targets, tokens);
    let keyVectors = null, keyLengths = null, keyTokens = 0;
    if ((data.keyVectors === undefined) !== (data.keyLengths === undefined)) {
      const missing = data.keyVectors === undefined ? 'keyVectors' : 'keyLengths';
      throw new TypeError(`${name}.${missing}: missing; cross-attention needs both keyVectors and keyLengths (leave both out for self-attention)`);
    }
    if (data.keyLengths !== undefined) {
      keyLengths = lengthsOption(`${name}.keyLengths`, data.keyLengths, this.options.maxLen);
      if (keyLengths.length !== lengths.length) throw new RangeError(`${name}.keyLengths: expected one key sentence per sentence (${lengths.length}), got ${keyLengths.length}`);
      for (const n of keyLengths) keyTokens += n;
      keyVectors = checkMatrix(`${name}.keyVectors`, data.keyVectors, keyTokens * this.options.dIn, `[key tokens=${keyTokens}, dIn=${this.options.dIn}]`);
    }
    return { vectors, lengths, targets, tokens, keyVectors, keyLengths, keyTokens };
  }

  /** Runs `count` optimisation steps (default 1); returns the total number of steps taken so far. */
  step(count = 1) {
    const t = this._live();
    checkInt('count', count, 1, 1 << 20);
    const cost = t.stepCost(count);
    if (cost) throw coreError(cost);
    const err = t.step(count);
    if (err) throw coreError(err);
    return this.steps;
  }

  /** The batch loss of every step so far (a copy). */
  get losses() { return this._live().losses(); }
  /** Steps taken since creation or the last reset(). */
  get steps() { return this._live().losses().length; }

  /**
   * Copies of the trained matrices: Wq, Wk [dFeat, dHead], the score's (W; W1, W2, v; Wa) and the
   * output's (Wv [dFeat, dIn] with output 'value' or 'scaled'; Wextra [dIn, dIn] with 'scaled'); with
   * temperature 'learned', logTau [1] (τ = exp(logTau)).
   */
  weights() {
    const t = this._live();
    const n = t.paramCount();
    const all = this._scope._withArrays({}, { out: n }, (ptrs) => { t.readParams(ptrs.out); return this._scope._read(ptrs.out, n); });
    return this._split(all);
  }

  _split(flat) {
    const L = this.layout, o = this.options, out = {};
    const take = (name, at, size) => { out[name] = flat.slice(at, at + size); };
    take('Wq', L.Wq, L.dFeat * o.dHead);
    take('Wk', L.Wk, L.dFeat * o.dHead);
    for (const m of this._scope._lists.scoreInfo.get(o.score).matrices) take(m, L[m], SCORE_MATRICES[m].trained(o));
    if (o.output !== 'none') take('Wv', L.Wv, L.dFeat * o.dIn);
    if (o.output === 'scaled') take('Wextra', L.Wx, o.dIn * o.dIn);
    if (o.temperature === 'learned') take('logTau', L.logTau, 1);
    return out;
  }

  /**
   * Mean cross-entropy and argmax accuracy on other sentences ({ vectors, lengths, targets }, or pairs
   * with keyVectors and keyLengths). Output modes: loss is the mean ‖O_i − x_target‖² / dIn, and
   * outputHits / outputAccuracy count the rows whose output is nearest (or tied) to the target's vector
   * among its sentence's keys (null for output 'none').
   */
  evaluate(data) {
    const t = this._live();
    const d = this._data('data', data);
    return this._scope._withArrays(this._arrays(d), {}, (ptrs) => {
      const r = t.evaluate(ptrs.X, d.tokens, ptrs.L, d.lengths.length, ptrs.T, ptrs.KX, d.keyTokens, ptrs.KL);
      if (r.error) throw coreError('data.' + r.error);
      const out = this.options.output !== 'none';
      return { loss: r.loss, hits: r.hits, count: r.count, accuracy: r.count ? r.hits / r.count : 0,
        outputHits: out ? r.outputHits : null, outputAccuracy: out ? (r.count ? r.outputHits / r.count : 0) : null };
    });
  }

  /**
   * The attention weights of one sentence under the current parameters: [n, n] over itself (vectors
   * [n, dIn]), or with keyVectors [m, dIn] (cross-attention, e.g. its paraphrase) [n, m].
   */
  attentionWeights(vectors, keyVectors) {
    const t = this._live();
    const rows = (name, v) => {
      const dIn = this.options.dIn;
      const len = checkFloat32(name, v, `[n, dIn=${dIn}]`);
      if (len === 0 || len % dIn !== 0) throw new RangeError(`${name}: expected n rows of dIn=${dIn} numbers, got ${len} numbers`);
      const n = len / dIn;
      if (n > this.options.maxLen) throw new RangeError(`${name}: ${n} tokens, more than maxLen=${this.options.maxLen}; shorten the sentence or create the trainer with a larger maxLen`);
      checkMatrix(name, v, len, `[n=${n}, dIn=${dIn}]`);
      return n;
    };
    const n = rows('vectors', vectors);
    const m = keyVectors === undefined ? n : rows('keyVectors', keyVectors);
    return this._scope._withArrays({ X: vectors, KX: keyVectors === undefined ? null : keyVectors }, { A: n * m }, (ptrs) => {
      const err = t.weightsOf(ptrs.X, n, ptrs.KX, m, ptrs.A);
      if (err) throw coreError(err);
      return this._scope._read(ptrs.A, n * m);
    });
  }

  /**
   * The loss and gradients of the given training sentences as one batch at the current parameters,
   * exactly what step() computes before its update: { loss, count, grads: {Wq, Wk, ...}, rows,
   * features [rows, dFeat], Q, dQ [rows, dHead], keyRows, K, dK [keyRows, dHead], keyFeatures
   * [keyRows, dFeat] (cross-attention; null for self-attention, whose keys are the rows of features),
   * and for output 'value' / 'scaled' V, dV [keyRows, dIn] and dO [rows, dIn] (null for output 'none') }.
   */
  gradients(examples) {
    const t = this._live();
    if (!Array.isArray(examples) || examples.length === 0) throw new TypeError(`examples: expected a non-empty array of training sentence indices, got ${describe(examples)}`);
    const idx = Uint32Array.from(examples, (e, i) => checkInt(`examples[${i}]`, e, 0, this.examples - 1));
    const ptr = this._scope._alloc(idx.length * 4);
    let r;
    try {
      this._m.HEAPU32.set(idx, ptr >> 2);
      r = t.gradients(ptr, idx.length);
    } finally {
      this._m._free(ptr);
    }
    if (r.error) throw coreError(r.error);
    const L = this.layout, rows = r.rows, keyRows = r.keyRows, dh = this.options.dHead;
    let at = L.total;
    const take = (n) => r.data.slice(at, (at += n));
    const grads = this._split(r.data.subarray(0, L.total));
    const features = take(rows * L.dFeat), Q = take(rows * dh), K = take(keyRows * dh), dQ = take(rows * dh), dK = take(keyRows * dh);
    const keyFeatures = this.cross ? take(keyRows * L.dFeat) : null;
    const out = this.options.output !== 'none', dIn = this.options.dIn;
    const V = out ? take(keyRows * dIn) : null, dV = out ? take(keyRows * dIn) : null, dO = out ? take(rows * dIn) : null;
    return { loss: r.loss, count: r.count, rows, keyRows, grads, features, Q, K, dQ, dK, keyFeatures, V, dV, dO };
  }

  /** Back to the initial state, with the parameters drawn from `seed` (default: the trainer's seed). */
  reset(seed = this.options.seed) {
    const t = this._live();
    checkInt('seed', seed, 0, 0xffffffff);
    t.reset(seed);
    this.options = Object.freeze({ ...this.options, seed });
  }

  /** Frees the trainer's memory in the wasm instance; later calls throw. */
  dispose() {
    if (this._t) { this._t.delete(); this._t = null; }
  }
}
