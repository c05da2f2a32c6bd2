// Your model's attention (stateless: nothing stays in the instance): scope.loadAttentions() with the input
// forms handled in JS (format sniffing, JSON, token lists, nested arrays), and rollout, attentionFlow
// and headSummaries over such a stack. Methods of Scope (added to the class by scope-class.mjs).
import { checkEnum, checkInt, checkKnownKeys, checkMatrix, checkNumber, checkWellFormed, coreError, describe } from './scope-checks.mjs';

export class ImportedCalls {
  /**
   * Loads attention exported from a model: .npy / .npz / .safetensors bytes, JSON text or bytes, or an
   * object { tokens, keyTokens?, attentions: nested arrays }. Parsed and validated in C++ (the JSON
   * route is parsed here and validated there by the same rules). See attnscope.d.ts.
   */
  loadAttentions(input, options = {}) {
    checkKnownKeys('options', options, ['tokens', 'keyTokens', 'format', 'softmax']);
    if (options.format !== undefined) checkEnum('options.format', options.format, IMPORT_FORMATS);
    let tokens = options.tokens === undefined ? null : tokenList('options.tokens', options.tokens);
    let keyTokens = options.keyTokens === undefined ? null : tokenList('options.keyTokens', options.keyTokens);
    const softmax = !!options.softmax;
    let bytes = null;
    if (input instanceof ArrayBuffer) bytes = new Uint8Array(input);
    else if (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer) bytes = new Uint8Array(input);
    else if (input instanceof Uint8Array) bytes = input;
    else if (ArrayBuffer.isView(input)) throw new TypeError(`input: expected the file's bytes as a Uint8Array or ArrayBuffer, got ${describe(input)}; pass new Uint8Array(x.buffer, x.byteOffset, x.byteLength)`);
    let format = options.format;
    if (bytes && !format) format = sniffFormat(bytes);
    let object = null;
    if (typeof input === 'string') object = parseJsonInput(input);
    else if (bytes && format === 'json') object = parseJsonInput(new TextDecoder('utf-8', { fatal: false }).decode(bytes));
    else if (!bytes) {
      if (input === null || typeof input !== 'object' || Array.isArray(input))
        throw new TypeError(`input: expected file bytes (Uint8Array), JSON text or { tokens, attentions }, got ${describe(input)}`);
      object = input;
    }
    let floats, shape = '';
    if (object) {
      checkKnownKeys('input', object, ['tokens', 'keyTokens', 'attentions']);
      if (!tokens && object.tokens !== undefined) tokens = tokenList('input.tokens', object.tokens);
      if (!keyTokens && object.keyTokens !== undefined) keyTokens = tokenList('input.keyTokens', object.keyTokens);
      const flat = flattenNested('input.attentions', object.attentions);
      floats = new Uint8Array(flat.values.buffer);
      shape = flat.shape.join(',');
      format = 'json';
    } else if (!bytes) {
      throw new TypeError('input: expected file bytes, JSON text or an object');
    }
    const m = this._m;
    const data = floats || bytes;
    return this._withArrays({ data }, {}, (ptrs) => {
      const res = m._loadAttentions(format === 'json' ? 'f32' : format, ptrs.data, data.length, shape,
        tokens ? JSON.stringify(tokens) : '', keyTokens ? JSON.stringify(keyTokens) : '', softmax);
      if (res.error) throw coreError(res.error);
      const meta = JSON.parse(res.meta);
      return { format, layers: meta.layers, heads: meta.heads, nq: meta.nq, nk: meta.nk, tokens: meta.tokens,
        keyTokens: meta.keyTokens, attentions: res.data, warnings: meta.warnings };
    });
  }

  /**
   * Attention rollout (Abnar & Zuidema 2020) of self-attention [layers, heads, n, n] → Float32Array [n, n].
   * residual (default 0.5) is the weight of the identity: Ā = residual·I + (1 − residual)·A, rows renormalised.
   */
  rollout(attentions, options) {
    return stackToMatrix(this, attentions, options, (l, h, t) => this._m._rolloutCost(l, h, t), (...args) => this._m._rollout(...args));
  }

  /**
   * Attention flow (Abnar & Zuidema 2020) of self-attention [layers, heads, n, n] → Float32Array [n, n]:
   * flow[i, j] is the max-flow from (layers, i) to (0, j) through edges of capacity Ā (rollout's matrices,
   * same options). Exact (closed forms for 1 and 2 layers, Dinic beyond); refused over a work limit
   * (kMaxFlowWork in src/attnscope/flow.hpp: 2 layers up to 812 tokens, 3 up to 53, 12 up to 30) and the
   * call budget of every method. See docs/flow.md.
   */
  attentionFlow(attentions, options) {
    return stackToMatrix(this, attentions, options, (l, h, t) => this._m._attentionFlowCost(l, h, t), (...args) => this._m._attentionFlow(...args));
  }

  /** Per layer and head: mean row entropy (nats), largest weight, mean row maximum; each Float32Array [layers, heads]. */
  headSummaries(attentions, options) {
    checkKnownKeys('options', options, ['layers', 'heads', 'nq', 'nk']);
    const layers = checkInt('options.layers', options.layers, 1, 1024);
    const heads = checkInt('options.heads', options.heads, 1, 1024);
    const nq = checkInt('options.nq', options.nq, 1, 4096);
    const nk = checkInt('options.nk', options.nk, 1, 4096);
    if (layers * heads * nq * nk > MAX_ATTENTION_VALUES) throw new RangeError(`attentions: over the limit of ${MAX_ATTENTION_VALUES} numbers`);
    checkMatrix('attentions', attentions, layers * heads * nq * nk, `[layers=${layers}, heads=${heads}, nq=${nq}, nk=${nk}]`);
    const lh = layers * heads;
    return this._withArrays({ attentions }, { out: 3 * lh }, (ptrs) => {
      const err = this._m._headSummaries(ptrs.attentions, layers, heads, nq, nk, ptrs.out);
      if (err) throw coreError(err);
      const o = this._read(ptrs.out, 3 * lh);
      return { entropy: o.slice(0, lh), max: o.slice(lh, 2 * lh), meanMax: o.slice(2 * lh) };
    });
  }
}

// ---- imported attention: input forms handled in JS --------------------------------------------

const IMPORT_FORMATS = ['npy', 'npz', 'safetensors', 'json'];
const MAX_ATTENTION_VALUES = 2 ** 26;  // = kMaxAttentionValues in src/attnscope/imported.hpp
/**
 * The options and shape checks rollout and attentionFlow share; cost(layers, heads, n) is the core's
 * budget check ('' or the refusal), run before the stack is copied into wasm memory.
 */
function stackOptions(attentions, options, cost) {
  checkKnownKeys('options', options, ['layers', 'heads', 'n', 'residual', 'head']);
  const layers = checkInt('options.layers', options.layers, 1, 1024);
  const heads = checkInt('options.heads', options.heads, 1, 1024);
  const n = checkInt('options.n', options.n, 1, 4096);
  if (layers * heads * n * n > MAX_ATTENTION_VALUES) throw new RangeError(`attentions: ${layers}x${heads}x${n}x${n} is over the limit of ${MAX_ATTENTION_VALUES} numbers; use fewer layers, heads or tokens`);
  const refused = cost(layers, heads, n);
  if (refused) throw coreError(refused);
  checkMatrix('attentions', attentions, layers * heads * n * n, `[layers=${layers}, heads=${heads}, n=${n}, n=${n}]`);
  const residual = options.residual === undefined ? 0.5 : checkNumber('options.residual', options.residual, { min: 0 });
  if (residual > 1) throw new RangeError(`options.residual: expected a number from 0 to 1 (the weight of the identity), got ${residual}`);
  const head = options.head === undefined ? 'mean' : options.head;
  let mode = head, index = 0;
  if (typeof head === 'number') { index = checkInt('options.head', head, 0, heads - 1); mode = 'index'; }
  else if (head !== 'mean' && head !== 'max') throw new TypeError(`options.head: expected 'mean', 'max' or a head index from 0 to ${heads - 1}, got ${describe(head)}`);
  return { layers, heads, n, residual, mode, index };
}

/**
 * What rollout and attentionFlow share: the stack's options read, the [n, n] answer computed by the
 * core's `kernel(attentions, layers, heads, n, residual, mode, index, out)` and handed back as a copy.
 */
function stackToMatrix(scope, attentions, options, cost, kernel) {
  const { layers, heads, n, residual, mode, index } = stackOptions(attentions, options, cost);
  return scope._withArrays({ attentions }, { out: n * n }, (ptrs) => {
    const err = kernel(ptrs.attentions, layers, heads, n, residual, mode, index, ptrs.out);
    if (err) throw coreError(err);
    return scope._read(ptrs.out, n * n);
  });
}

/** The format from a file's first bytes. */
function sniffFormat(b) {
  if (b.length >= 6 && b[0] === 0x93 && b[1] === 0x4e && b[2] === 0x55 && b[3] === 0x4d && b[4] === 0x50 && b[5] === 0x59) return 'npy';
  if (b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5) && (b[3] === 4 || b[3] === 6)) return 'npz';
  let i = 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09 || b[i] === 0xef || b[i] === 0xbb || b[i] === 0xbf)) i++;
  if (b[i] === 0x7b) return 'json';  // '{'
  if (b.length >= 9 && b[8] === 0x7b && b[4] === 0 && b[5] === 0 && b[6] === 0 && b[7] === 0) return 'safetensors';
  throw new RangeError("input: not a recognised attention file (.npy, .npz, .safetensors or JSON); pass options.format if it is one");
}

function parseJsonInput(text) {
  try {
    const o = JSON.parse(text);
    if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new Error('not an object');
    return o;
  } catch (e) {
    throw new RangeError(`input: invalid JSON (${e.message}); expected { "tokens": [...], "attentions": [[...]] }`);
  }
}

/** Tokens as string[], or a file's text: a JSON array, or one token per line. */
function tokenList(name, value) {
  let list = value;
  if (typeof value === 'string') {
    // A JSON array when the text is one; otherwise one token per line (a first line '[CLS]' is a token).
    let parsed = null;
    if (value.trim().startsWith('[')) { try { parsed = JSON.parse(value); } catch { parsed = null; } }
    if (Array.isArray(parsed)) list = parsed;
    else {
      list = value.split('\n').map((l) => l.replace(/\r$/, ''));
      if (list.length && list[list.length - 1] === '') list.pop();
    }
  }
  if (!Array.isArray(list)) throw new TypeError(`${name}: expected an array of strings or a file's text (one token per line), got ${describe(value)}`);
  list.forEach((t, i) => {
    if (typeof t !== 'string') throw new TypeError(`${name}[${i}]: expected a string, got ${describe(t)}; convert the tokens with String()`);
    checkWellFormed(`${name}[${i}]`, t);
  });
  if (list.length > 4096) throw new RangeError(`${name}: ${list.length} tokens, over the limit of 4096`);
  return list;
}

/** Nested arrays of numbers (2 to 4 levels) → { shape, values: Float32Array }; ragged arrays refused. */
function flattenNested(name, value) {
  if (value instanceof Float32Array) throw new TypeError(`${name}: expected nested arrays [layers][heads][nq][nk]; for a flat Float32Array write a .npy`);
  const shape = [];
  for (let x = value; Array.isArray(x); x = x[0]) {
    shape.push(x.length);
    if (x.length === 0) break;
  }
  if (shape.length < 2 || shape.length > 4) throw new RangeError(`${name}: expected nested arrays [layers][heads][nq][nk], [heads][n][n] or [n][n], got ${shape.length} level(s)`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (count > MAX_ATTENTION_VALUES) throw new RangeError(`${name}: ${count} numbers, over the limit of ${MAX_ATTENTION_VALUES}`);
  const values = new Float32Array(count);
  let at = 0;
  const walk = (x, depth, path) => {
    if (!Array.isArray(x) || x.length !== shape[depth]) throw new RangeError(`${name}${path}: expected an array of ${shape[depth]} (the arrays are ragged)`);
    if (depth === shape.length - 1) {
      for (let i = 0; i < x.length; i++) {
        if (typeof x[i] !== 'number') throw new TypeError(`${name}${path}[${i}]: expected a number, got ${describe(x[i])}`);
        // float32 holds magnitudes up to 3.4e38: a larger finite number (JSON's 1e39) would become an
        // infinity and be reported as one.
        if (Math.abs(x[i]) > 3.4028234663852886e38)
          throw new RangeError(`${name}${path}[${i}]: ${x[i]} is outside the float32 range (±3.4e38); attention weights lie in [0, 1] (fix the export)`);
        values[at++] = x[i];
      }
    } else {
      for (let i = 0; i < x.length; i++) walk(x[i], depth + 1, `${path}[${i}]`);
    }
  };
  walk(value, 0, '');
  return { shape, values };
}
