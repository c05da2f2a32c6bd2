// Transformers built from a config on a scope's wasm instance (issue #32): scope.createModel() (a
// method of Scope, added to the class by scope-class.mjs) and the TransformerModel it returns:
// parameters / setParameters (nanoGPT's names, PyTorch's shapes), encodeIds (logits and every head's
// attention, heads re-scored or knocked out), lossAndGradients (the mean cross-entropy and the
// gradient of every parameter). The C++ side is src/attnscope/transformer.hpp; its Embind glue
// bindings/embind-transformer.cpp. docs/transformer.md describes the models and this contract.
import { checkBlock, checkInt, checkKnownKeys, checkPlainEntries, clip, coreError, describe, headIndex, initOrDelete, typedKind, typedLength } from './scope-checks.mjs';
import { surgeryOptions } from './scope-surgery.mjs';

const NO_MODEL = 'model: this model was disposed; create another with scope.createModel()';
const KINDS = Object.freeze(['decoder', 'encoder-decoder']);
const TRAINER_KEYS = Object.freeze(['data', 'batch', 'learningRate', 'weightDecay', 'clip', 'seed', 'variant']);
const NO_TRAINER = 'trainer: this trainer was disposed; create another with scope.createModelTrainer()';
const CONFIG_KEYS = Object.freeze(['kind', 'layers', 'heads', 'dModel', 'dFF', 'vocab', 'maxTokens', 'score', 'temperature', 'seed', 'positions', 'norm', 'activation']);
// The config's named choices, each list's first the default, in the core's enum order.
const CHOICES = Object.freeze({
  positions: Object.freeze(['learned', 'sinusoidal']), norm: Object.freeze(['pre', 'post']), activation: Object.freeze(['gelu', 'relu', 'tanh']),
});
function choiceOption(key, value) {
  const names = CHOICES[key];
  if (value === undefined) return names[0];
  if (typeof value !== 'string' || !names.includes(value)) {
    throw new (typeof value === 'string' ? RangeError : TypeError)(`config.${key}: expected ${names.map((n) => `'${n}'`).join(' or ')} (default '${names[0]}'), got ${describe(value)}`);
  }
  return value;
}
// The core's limits (transformer_limits in transformer.hpp), checked here first so the messages use JS names.
const LIMITS = Object.freeze({ layers: 64, heads: 64, width: 4096, vocab: 1 << 20, tokens: 4096 });

export class TransformerCalls {
  /**
   * A transformer from a config (see attnscope.d.ts, ModelConfig): { kind: 'decoder', layers, heads,
   * dModel, dFF, vocab, maxTokens, score, temperature, seed }. Lives on this scope's wasm instance
   * until model.dispose().
   */
  createModel(config) {
    this._live();
    return new TransformerModel(this, config);
  }

  /**
   * A trainer of a model made by createModel: options { data: { ids, targets, rows, cols }, batch,
   * learningRate, weightDecay, clip, seed, variant } (AdamW with the gradient's global norm clipped).
   * It updates the model in place; step(k), losses, evaluate(data), dispose().
   */
  createModelTrainer(model, options) {
    this._live();
    if (!(model instanceof TransformerModel) || model._scope !== this) {
      throw new TypeError(`model: expected a model made by this scope's createModel(), got ${describe(model)}`);
    }
    return new ModelTrainer(model, options);
  }
}

/**
 * Every head's label in the core's order: 'L.H' for a decoder; for an encoder-decoder 'encoder.L.H' (the
 * encoder's self-attention), 'decoder.L.H' (the decoder's causal self-attention), then 'cross.L.H' (its
 * cross-attention over the source).
 */
function headLabels(kind, layers, heads) {
  const plain = [];
  for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) plain.push(`${l}.${h}`);
  if (kind === 'decoder') return plain;
  return ['encoder', 'decoder', 'cross'].flatMap((stack) => plain.map((x) => `${stack}.${x}`));
}
const STACKS = Object.freeze(['encoder', 'decoder', 'cross']);
/** The index (core's order) of a head label for this kind of model; errors name the argument and the labels. */
function labelIndex(name, label, kind, layers, heads) {
  if (kind === 'decoder') return headIndex(name, label, layers, heads);
  const m = typeof label === 'string' ? /^(encoder|decoder|cross)\.(.*)$/.exec(label) : null;
  if (!m) {
    throw new (typeof label === 'string' ? RangeError : TypeError)(
      `${name}: expected a head label 'encoder.L.H', 'decoder.L.H' or 'cross.L.H' (an encoder-decoder's heads; L from 0 to ${layers - 1}, H from 0 to ${heads - 1}), got ${describe(label)}`);
  }
  return STACKS.indexOf(m[1]) * layers * heads + headIndex(name, m[2], layers, heads);
}

function sizeOption(name, value, fallback, min, max) {
  return value === undefined ? fallback : checkInt(`config.${name}`, value, min, max);
}

/** ids (Int32Array or array of integers) as an Int32Array checked against [min, max]. */
function idArray(name, value, min, max) {
  if (typedKind(value) === 'Int32Array') {
    const a = Int32Array.from(value);
    for (let i = 0; i < a.length; i++) if (a[i] < min || a[i] > max) throw new RangeError(`${name}[${i}]: expected an integer from ${min} to ${max}, got ${a[i]}`);
    return a;
  }
  if (Array.isArray(value)) return Int32Array.from(value, (v, i) => checkInt(`${name}[${i}]`, v, min, max));
  throw new TypeError(`${name}: expected an Int32Array or an array of integers, got ${describe(value)}`);
}

class TransformerModel {
  /** A new model from `config`, or (loaded: a TransformerState holding a model read from a file) that model. */
  constructor(scope, config, loaded = null) {
    let state, kind, layers, heads, dModel, dFF, vocab, maxTokens, seed, scores, t, learned, positions, norm, activation;
    if (loaded) {
      state = loaded;
      const c = JSON.parse(state.configJson());
      ({ kind, layers, heads, dModel, dFF, vocab, maxTokens, seed } = c);
      ({ positions = 'learned', norm = 'pre', activation = 'gelu' } = c);  // absent in a default model's file
      scores = c.score;
      learned = c.temperature === 'learned';
      t = learned ? 'learned' : c.temperature;
    } else {
      checkKnownKeys('config', config, CONFIG_KEYS);
      kind = config.kind === undefined ? 'decoder' : config.kind;
      if (!KINDS.includes(kind)) throw new TypeError(`config.kind: expected 'decoder' or 'encoder-decoder', got ${describe(kind)}`);
      layers = sizeOption('layers', config.layers, 2, 1, LIMITS.layers);
      heads = sizeOption('heads', config.heads, 4, 1, LIMITS.heads);
      dModel = sizeOption('dModel', config.dModel, 64, 1, LIMITS.width);
      if (dModel % heads !== 0) throw new RangeError(`config.dModel: expected a multiple of heads (${heads}), got ${dModel}; each head takes dModel / heads of q, k and v`);
      dFF = sizeOption('dFF', config.dFF, 4 * dModel, 0, LIMITS.width);
      vocab = sizeOption('vocab', config.vocab, 64, 1, LIMITS.vocab);
      maxTokens = sizeOption('maxTokens', config.maxTokens, 64, 1, LIMITS.tokens);
      seed = config.seed === undefined ? 1 : checkInt('config.seed', config.seed, 0, 2 ** 32 - 1);
      positions = choiceOption('positions', config.positions);
      norm = choiceOption('norm', config.norm);
      activation = choiceOption('activation', config.activation);
      const names = scope._lists.scores;
      const checkName = (name, value) => {
        if (typeof value !== 'string' || !names.includes(value)) {
          throw new (typeof value === 'string' ? RangeError : TypeError)(`${name}: expected one of ${names.map((n) => `'${n}'`).join(', ')}, got ${describe(value)}`);
        }
        return value;
      };
      const labels = headLabels(kind, layers, heads);
      scores = Array(labels.length).fill('scaled-dot');
      const s = config.score;
      if (typeof s === 'string') {
        scores.fill(checkName('config.score', s));
      } else if (s !== undefined) {
        if (s === null || typeof s !== 'object' || Array.isArray(s)) {
          throw new TypeError(`config.score: expected a scoring function's name or an object { '${labels[labels.length - 1]}': name } (heads not named use 'scaled-dot'), got ${describe(s)}`);
        }
        for (const [label, value] of checkPlainEntries('config.score', s, `{ '${labels[labels.length - 1]}': name } naming at least one head`)) {
          const name = `config.score['${clip(label)}']`;
          scores[labelIndex(name, label, kind, layers, heads)] = checkName(name, value);
        }
      }
      t = config.temperature === undefined ? 1 : config.temperature;
      learned = t === 'learned';
      if (!learned && !(typeof t === 'number' && Number.isFinite(t) && t >= 1e-30)) {
        throw new (typeof t === 'number' ? RangeError : TypeError)(`config.temperature: expected a finite number >= 1e-30 or 'learned' (τ = exp(log_tau) per head), got ${describe(t)}`);
      }
      state = initOrDelete(new scope._m.TransformerState(), (s) => {
        const err = s.create(kind === 'decoder' ? 0 : 1, layers, heads, dModel, dFF, vocab, maxTokens, scores.join(','), learned, learned ? 1 : t, seed,
          CHOICES.positions.indexOf(positions), CHOICES.norm.indexOf(norm), CHOICES.activation.indexOf(activation));
        if (err) throw coreError(err.startsWith('model:') ? `config: ${err.slice(7)}` : `config.${err}`);
      });
    }
    this._scope = scope;
    this._state = state;
    Object.assign(this, { kind, layers, heads, dModel, dFF, vocab, maxTokens, temperature: learned ? 'learned' : t, seed, positions, norm, activation });
    this._labels = headLabels(kind, layers, heads);
    /** Every head's scoring function, by label: 'L.H' (decoder), 'encoder.L.H' | 'decoder.L.H' | 'cross.L.H' (encoder-decoder) (frozen). */
    this.scores = Object.freeze(Object.fromEntries(scores.map((name, i) => [this._labels[i], name])));
    const tensors = JSON.parse(state.tensorsJson());
    this._tensors = tensors;
    this._byName = new Map(tensors.map((t, i) => [t.name, i]));
    /** The parameters' names and PyTorch shapes, in state_dict order (frozen). */
    this.shapes = Object.freeze(Object.fromEntries(tensors.map((t) => [t.name, Object.freeze(t.shape.slice())])));
    const tokens = state.tokens();
    this._tokens = tokens.length ? Object.freeze(tokens) : null;
  }

  /** The text each id stands for (a frozen array, one string per id), or null: setTokens(), or the file's. */
  get tokens() { return this._tokens; }

  /**
   * Names the text each id stands for (an array of vocab non-empty strings, id order; null: none), saved
   * with the model (`attnscope.tokens` in the file's metadata) so that a reader, such as the
   * <attn-scope> element, can turn text into ids and draw them. A refused call changes nothing.
   */
  setTokens(tokens) {
    const state = this._live();
    if (tokens === null) {
      state.setTokens([]);
      this._tokens = null;
      return;
    }
    if (!Array.isArray(tokens)) throw new TypeError(`tokens: expected an array of ${this.vocab} strings (the text of each id, in id order) or null, got ${describe(tokens)}`);
    const bad = tokens.findIndex((x) => typeof x !== 'string');
    if (bad >= 0) throw new TypeError(`tokens[${bad}]: expected a string (the text id ${bad} stands for), got ${describe(tokens[bad])}`);
    const err = state.setTokens(tokens);
    if (err) throw new RangeError(err);
    this._tokens = Object.freeze(tokens.slice());
  }

  /** The config it was made from, as createModel takes it (score: one name per head label). */
  get config() {
    return {
      kind: this.kind, layers: this.layers, heads: this.heads, dModel: this.dModel, dFF: this.dFF, vocab: this.vocab,
      maxTokens: this.maxTokens, score: { ...this.scores }, temperature: this.temperature, seed: this.seed,
      positions: this.positions, norm: this.norm, activation: this.activation,
    };
  }

  _live() {
    if (!this._state) throw new Error(NO_MODEL);
    this._scope._live();
    return this._state;
  }

  /** { name: Float32Array } of every parameter: copies, row-major in PyTorch's shapes (model.shapes). */
  parameters() {
    const flat = this._live().params();
    return Object.fromEntries(this._tensors.map((t) => [t.name, flat.slice(t.offset, t.offset + t.size)]));
  }

  /**
   * Replaces the named parameters ({ name: Float32Array }, any subset of parameters()). Every name and
   * length is checked before any is replaced, so a refused call changes nothing.
   */
  setParameters(map) {
    const state = this._live();
    if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new TypeError(`parameters: expected an object { name: Float32Array }, got ${describe(map)}`);
    const entries = checkPlainEntries('parameters', map, '{ name: Float32Array } naming at least one parameter');
    for (const [name, value] of entries) {
      const i = this._byName.get(name);
      if (i === undefined) {
        throw new RangeError(`parameters['${clip(name)}']: not a parameter of this model; expected one of its names (model.shapes), e.g. '${this._tensors[0].name}'`);
      }
      const t = this._tensors[i], shape = `[${t.shape.join(', ')}]`;
      if (typedKind(value) !== 'Float32Array') throw new TypeError(`parameters['${name}']: expected a Float32Array ${shape} (row-major), got ${describe(value)}`);
      if (typedLength(value) !== t.size) throw new RangeError(`parameters['${name}']: expected ${t.size} numbers ${shape}, got ${typedLength(value)}`);
      for (let k = 0; k < t.size; k++) {
        if (!Number.isFinite(value[k])) throw new RangeError(`parameters['${name}']: element ${k} is ${value[k]}; every element must be a finite number`);
      }
    }
    const m = this._scope._m;
    for (const [name, value] of entries) {
      const i = this._byName.get(name), t = this._tensors[i];
      const ptr = m._malloc(Math.max(4, t.size * 4));
      if (!ptr) throw new RangeError(`parameters['${name}']: out of wasm memory for ${t.size} numbers`);
      try {
        m.HEAPF32.set(value, ptr >> 2);
        const err = state.setTensor(i, ptr, t.size);
        if (err) throw coreError(err);
      } finally {
        m._free(ptr);
      }
    }
  }

  _withIds(arrays, fn) {
    const m = this._scope._m;
    const total = arrays.reduce((s, a) => s + a.length, 0);
    checkBlock(total * 4);  // within the per-call limit, so the 32-bit malloc size cannot wrap
    const ptr = m._malloc(Math.max(4, total * 4));
    if (!ptr) throw new RangeError(`ids: out of wasm memory for ${total} ids`);
    try {
      const ptrs = [];
      let at = ptr;
      for (const a of arrays) { m.HEAP32.set(a, at >> 2); ptrs.push(at); at += a.length * 4; }
      return fn(...ptrs);
    } finally {
      m._free(ptr);
    }
  }

  /** The checked arguments of encodeIds and attentionGradients (`more`: the call's other option keys). */
  _encodeArgs(ids, options, more) {
    const pairs = this.kind === 'encoder-decoder';
    const source = pairs ? 'sourceIds' : 'ids';
    const arr = idArray(source, ids, 0, this.vocab - 1);
    if (arr.length === 0) throw new RangeError(`${source}: expected at least one token id`);
    if (arr.length > this.maxTokens) throw new RangeError(`${source}: ${arr.length} ids are more than the model's maxTokens (${this.maxTokens}); pass at most maxTokens ids`);
    checkKnownKeys('options', options, [...(pairs ? ['target'] : []), 'score', 'ablate', 'variant', ...more]);
    let target = null;
    if (pairs) {
      if (options.target === undefined) throw new TypeError('options.target: an encoder-decoder needs the target ids (logits[i] predicts target[i] from the source and target[0 … i−1])');
      target = idArray('options.target', options.target, -(2 ** 31), this.vocab - 1);
      if (target.length === 0 || target.length > this.maxTokens) throw new RangeError(`options.target: expected 1 to maxTokens (${this.maxTokens}) ids, got ${target.length}`);
    }
    const scope = this._scope, count = this._labels.length;
    const { scores, ablate } = surgeryOptions(options, {
      names: scope._lists.scores, count, own: Object.values(this.scores), example: this._labels[count - 1],
      index: (name, label) => this._index(name, label),
    });
    return { arr, target, scores, ablate, variant: scope._variantOption(options.variant) };
  }

  /**
   * The model on token ids (1 to maxTokens of them, each in [0, vocab)): { n, ids, attentions
   * [layers, heads, n, n], logits [n, vocab], layers, heads, variant }. options.score re-scores heads (a
   * name for all, or { 'L.H': name }); options.ablate knocks heads out (['L.H', ...]).
   */
  encodeIds(ids, options = {}) {
    const state = this._live();
    const pairs = this.kind === 'encoder-decoder';
    const { arr, target, scores, ablate, variant } = this._encodeArgs(ids, options, []);
    const scope = this._scope;
    const v = scope._enum.variant[variant];
    const r = pairs
      ? this._withIds([arr, target], (p, q) => state.encodePair(p, arr.length, q, target.length, scores, ablate, v))
      : this._withIds([arr], (p) => state.encode(p, arr.length, scores, ablate, v));
    if (r.error) throw coreError(r.error);
    const out = {
      n: r.n, ids: arr, attentions: r.attentions, logits: r.logits, layers: this.layers, heads: this.heads, vocab: this.vocab,
      variant: scope._instance.resolvedVariants[variant],
    };
    if (pairs) Object.assign(out, { nSource: r.nSource, target, encoderAttentions: r.encoderAttentions, cross: r.cross });
    return out;
  }

  _index(name, label) { return labelIndex(name, label, this.kind, this.layers, this.heads); }

  /**
   * Gradient × attention for one prediction: ∂ logits[position, token] / ∂ A for every head's weights A
   * (after softmax), laid out as the attentions: { n, ids, position, token, logit, logits, attentions,
   * gradients, layers, heads, vocab, variant } (an encoder-decoder's also nSource, target,
   * encoderAttentions, encoderGradients, cross, crossGradients). position defaults to the last one;
   * token to the argmax at that position; score and ablate as in encodeIds.
   */
  attentionGradients(ids, options = {}) {
    const state = this._live();
    const pairs = this.kind === 'encoder-decoder';
    const { arr, target, scores, ablate, variant } = this._encodeArgs(ids, options, ['position', 'token']);
    const n = pairs ? target.length : arr.length;
    const position = options.position === undefined ? n - 1
      : checkInt('options.position', options.position, 0, n - 1);
    const token = options.token === undefined ? -1 : checkInt('options.token', options.token, 0, this.vocab - 1);
    const v = this._scope._enum.variant[variant];
    const r = pairs
      ? this._withIds([arr, target], (p, q) => state.attentionGradients(p, arr.length, q, target.length, position, token, scores, ablate, v))
      : this._withIds([arr], (p) => state.attentionGradients(0, 0, p, arr.length, position, token, scores, ablate, v));
    if (r.error) throw coreError(r.error);
    const out = {
      n: r.n, ids: arr, position: r.position, token: r.token, logit: r.logit, logits: r.logits, attentions: r.attentions,
      gradients: r.gradients, layers: this.layers, heads: this.heads, vocab: this.vocab, variant: this._scope._instance.resolvedVariants[variant],
    };
    if (pairs) {
      Object.assign(out, { nSource: r.nSource, target, encoderAttentions: r.encoderAttentions, encoderGradients: r.encoderGradients, cross: r.cross,
        crossGradients: r.crossGradients });
    }
    return out;
  }

  /**
   * The mean cross-entropy of logits[i] against targets[i] over the positions with targets[i] >= 0, and
   * its gradient: { loss, count, gradients: { name: Float32Array } } (names and shapes as parameters()).
   */
  lossAndGradients(ids, targets, options = {}) {
    const state = this._live();
    checkKnownKeys('options', options, ['variant']);
    if (this.kind === 'encoder-decoder') {
      const src = idArray('source', ids, 0, this.vocab - 1), tgt = idArray('target', targets, -(2 ** 31), this.vocab - 1);
      if (src.length === 0 || src.length > this.maxTokens) throw new RangeError(`source: expected 1 to maxTokens (${this.maxTokens}) ids, got ${src.length}`);
      if (tgt.length === 0 || tgt.length > this.maxTokens) throw new RangeError(`target: expected 1 to maxTokens (${this.maxTokens}) ids, got ${tgt.length}`);
      const variant = this._scope._variantOption(options.variant);
      const r = this._withIds([src, tgt], (ps, pt) => state.lossPairs(ps, pt, 1, src.length, tgt.length, true, this._scope._enum.variant[variant]));
      if (r.error) throw coreError(r.error);
      return { loss: r.loss, count: r.count, gradients: Object.fromEntries(this._tensors.map((x) => [x.name, r.gradients.slice(x.offset, x.offset + x.size)])) };
    }
    const a = idArray('ids', ids, 0, this.vocab - 1);
    if (a.length === 0) throw new RangeError('ids: expected at least one token id');
    if (a.length > this.maxTokens) throw new RangeError(`ids: ${a.length} ids are more than the model's maxTokens (${this.maxTokens}); pass at most maxTokens ids`);
    const t = idArray('targets', targets, -(2 ** 31), this.vocab - 1);
    if (t.length !== a.length) throw new RangeError(`targets: expected one target per id (${a.length}), got ${t.length}; use -1 where a position has no target`);
    const variant = this._scope._variantOption(options.variant);
    const r = this._withIds([a, t], (pa, pt) => state.loss(pa, pt, 1, a.length, true, this._scope._enum.variant[variant]));
    if (r.error) throw coreError(r.error);
    const g = r.gradients;
    return {
      loss: r.loss, count: r.count,
      gradients: Object.fromEntries(this._tensors.map((x) => [x.name, g.slice(x.offset, x.offset + x.size)])),
    };
  }

  /**
   * The model as a safetensors file (Uint8Array): every parameter as float32 under its nanoGPT name, and
   * in __metadata__ 'attnscope.architecture' ('decoder') and 'attnscope.config' (the config as JSON), and
   * 'attnscope.tokens' (the text of each id, a JSON array) when the model has tokens (setTokens()).
   * scope.loadModel({ model: bytes }) gives the same model back; PyTorch reads it with safetensors.
   */
  save() {
    const r = this._live().save();
    if (!(r instanceof Uint8Array)) throw coreError(r.error);
    return r;
  }

  /** Frees the model in the wasm instance; the scope stays usable. */
  dispose() {
    if (this._state) { this._state.delete(); this._state = null; }
  }
}

/** Whether bytes look like a safetensors file: an 8-byte header length within the file, then '{'. */
export function isSafetensors(bytes) {
  if (bytes.length < 10 || bytes[8] !== 0x7b) return false;
  let n = 0;
  for (let i = 7; i >= 0; i--) n = n * 256 + bytes[i];
  return n >= 2 && n <= bytes.length - 8;
}

/** A TransformerModel read from safetensors bytes saved by model.save(); `label` names the source in errors. */
export function loadTransformer(scope, bytes, label) {
  const m = scope._m;
  const state = new m.TransformerState();
  try {
    const ptr = m._malloc(Math.max(4, bytes.length));
    if (!ptr) throw new RangeError(`${label}: out of wasm memory for ${bytes.length} bytes`);
    try {
      m.HEAPU8.set(bytes, ptr);
      const err = state.load(ptr, bytes.length);
      if (err) throw new RangeError(`${label}: ${err}`);
    } finally {
      m._free(ptr);
    }
    return new TransformerModel(scope, null, state);
  } catch (e) {
    state.delete();
    throw e;
  }
}

/**
 * { ids, targets, rows, cols } (a decoder's) or { source, target, rows, sourceCols, targetCols } (an
 * encoder-decoder's) checked against the model, as { ids, targets, rows, cols, targetCols } for the core
 * (an encoder-decoder's source in ids, its target in targets).
 */
function tokenData(name, data, model) {
  if (model.kind === 'encoder-decoder') {
    checkKnownKeys(name, data, ['source', 'target', 'rows', 'sourceCols', 'targetCols']);
    const rows = checkInt(`${name}.rows`, data.rows, 1, 2 ** 24);
    const sourceCols = checkInt(`${name}.sourceCols`, data.sourceCols, 1, model.maxTokens);
    const targetCols = checkInt(`${name}.targetCols`, data.targetCols, 1, model.maxTokens);
    const source = idArray(`${name}.source`, data.source, 0, model.vocab - 1);
    const target = idArray(`${name}.target`, data.target, -(2 ** 31), model.vocab - 1);
    if (source.length !== rows * sourceCols) throw new RangeError(`${name}.source: expected rows x sourceCols = ${rows * sourceCols} ids (row-major), got ${source.length}`);
    if (target.length !== rows * targetCols) throw new RangeError(`${name}.target: expected rows x targetCols = ${rows * targetCols} ids (row-major, -1 for padding), got ${target.length}`);
    return { ids: source, targets: target, rows, cols: sourceCols, targetCols };
  }
  checkKnownKeys(name, data, ['ids', 'targets', 'rows', 'cols']);
  const rows = checkInt(`${name}.rows`, data.rows, 1, 2 ** 24);
  const cols = checkInt(`${name}.cols`, data.cols, 1, model.maxTokens);
  const ids = idArray(`${name}.ids`, data.ids, 0, model.vocab - 1);
  const targets = idArray(`${name}.targets`, data.targets, -(2 ** 31), model.vocab - 1);
  if (ids.length !== rows * cols) throw new RangeError(`${name}.ids: expected rows x cols = ${rows * cols} ids (row-major), got ${ids.length}`);
  if (targets.length !== rows * cols) throw new RangeError(`${name}.targets: expected rows x cols = ${rows * cols} targets (one per id, -1 for none), got ${targets.length}`);
  return { ids, targets, rows, cols, targetCols: cols };
}

/**
 * Trains a TransformerModel in place: each step draws `batch` rows of the data (with replacement, from
 * the seed's stream), takes the mean cross-entropy's gradient, clips its global L2 norm to `clip` and
 * makes one AdamW step (weight decay on the matrices). Deterministic for a seed.
 */
class ModelTrainer {
  constructor(model, options) {
    checkKnownKeys('options', options, TRAINER_KEYS);
    if (options.data === undefined) {
      throw new TypeError(model.kind === 'decoder' ? 'options.data: expected { ids, targets, rows, cols } (Int32Arrays of rows x cols token ids and targets)'
        : 'options.data: expected { source, target, rows, sourceCols, targetCols } (Int32Arrays of rows x sourceCols and rows x targetCols ids)');
    }
    const data = tokenData('options.data', options.data, model);
    const batch = options.batch === undefined ? 16 : checkInt('options.batch', options.batch, 1, 4096);
    const num = (key, fallback, min, max, hint) => {
      const v = options[key] === undefined ? fallback : options[key];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`options.${key}: expected a finite number, got ${describe(v)}`);
      if (!(v >= min && v <= max) || (key === 'learningRate' && !(v > 0))) throw new RangeError(`options.${key}: expected ${hint}, got ${v}`);
      return v;
    };
    const learningRate = num('learningRate', 1e-3, 0, 1, 'a number > 0 and <= 1 (AdamW moves each weight by about this much per step; 1e-3 to 1e-2 are usual)');
    const weightDecay = num('weightDecay', 0.1, 0, 1e6, 'a number >= 0 (AdamW\'s decay of the matrices; nanoGPT uses 0.1)');
    if (weightDecay * learningRate >= 1) throw new RangeError(`options.weightDecay: learningRate x weightDecay must be < 1, got ${weightDecay * learningRate}`);
    const clip = num('clip', 1, 0, 1e30, 'a number >= 0 (the gradient\'s global norm is scaled down to it; 0 = no clipping)');
    const seed = options.seed === undefined ? 1 : checkInt('options.seed', options.seed, 0, 2 ** 32 - 1);
    const scope = model._scope;
    const variant = scope._variantOption(options.variant);
    const modelState = model._live();
    const m = scope._m;
    this._model = model;
    this._state = initOrDelete(new m.ModelTrainerState(), (state) => {
      const err = model._withIds([data.ids, data.targets], (pi, pt) =>
        state.init(modelState, pi, pt, data.rows, data.cols, data.targetCols, batch, learningRate, weightDecay, clip, seed, scope._enum.variant[variant]));
      if (err) throw coreError(/^(memory|work):/.test(err) ? `options.batch: ${err}` : `options.${err.replace(/^weight_decay/, 'weightDecay')}`);
    });
    Object.assign(this, { batch, learningRate, weightDecay, clip, seed, model });
  }

  _live() {
    if (!this._state) throw new Error(NO_TRAINER);
    if (!this._model._state) throw new Error('model: the trainer\'s model was disposed; a trainer cannot run without it');
    this._model._live();
    return this._state;
  }

  /** `count` steps (default 1); returns the number of steps taken so far. */
  step(count = 1) {
    const state = this._live();
    checkInt('count', count, 1, 1e6);
    const err = state.step(count);
    if (err) throw coreError(err.startsWith('work') ? `count: ${err}` : err);
    return this.steps;
  }

  /** Every step's batch loss (before its update), a copy. */
  get losses() { return this._live().losses(); }
  /** Steps taken. */
  get steps() { return this._live().losses().length; }
  /** The gradient's global L2 norm at the last step, before clipping. */
  get lastGradNorm() { return this._live().lastGradNorm(); }

  /** { loss, accuracy } of the current model on data ({ ids, targets, rows, cols }): mean cross-entropy and argmax accuracy over the targets >= 0. */
  evaluate(data) {
    const state = this._live();
    const d = tokenData('data', data, this._model);
    const r = this._model._withIds([d.ids, d.targets], (pi, pt) => state.evaluate(pi, pt, d.rows, d.cols, d.targetCols));
    if (r.error) throw coreError(r.error);
    return { loss: r.loss, accuracy: r.count ? r.hits / r.count : 0, count: r.count };
  }

  /** Frees the trainer (its AdamW state); the model stays. */
  dispose() {
    if (this._state) { this._state.delete(); this._state = null; }
  }
}
