// The AttnScope's calls on text and sentences, with the scope's word vectors: tokenize, embed, nearest,
// and attend (the sentence pipeline: tokens, embeddings, projections, every head's attention), with the
// pool's halves of it (_attend for some heads, _attendOutput to join them). Methods of Scope (added to
// the class by scope-class.mjs): `this` is the scope.
import { checkEnum, checkInt, checkKnownKeys, checkMatrix, checkShape, checkText, checkWellFormed, coreError, describe } from './scope-checks.mjs';
import { exportMessage, idwOptions, maskOption, scoreOption, scoreParams, scoreWeights, temperatureOption } from './scope-options.mjs';

const MAX_TOKENS_LIMIT = 4096;

export class TextCalls {
  // ---- text ----
  tokenize(text, options = {}) {
    if (typeof text !== 'string') throw new TypeError(`text: expected a string, got ${describe(text)}`);
    checkWellFormed('text', text);
    checkKnownKeys('options', options, ['maxTokens']);
    const maxTokens = options.maxTokens === undefined ? 512 : checkInt('options.maxTokens', options.maxTokens, 1, MAX_TOKENS_LIMIT * 16);
    this._requireVocabulary('tokenize');  // each token says whether the vocabulary has it
    const r = JSON.parse(this._live().tokenizeJson(text, maxTokens));
    if (r.error) throw coreError(r.error);
    return r.tokens;
  }

  embed(word) {
    if (typeof word !== 'string' || word === '') throw new TypeError(`word: expected a non-empty string, got ${describe(word)}`);
    checkWellFormed('word', word);
    this._requireVocabulary('embed');
    const state = this._state;
    const dim = state.vocabularyDim();
    return this._withArrays({}, { out: dim }, (ptrs) => {
      const entry = state.embed(word, ptrs.out);
      return { vector: this._read(ptrs.out, dim), oov: entry < 0, vocabWord: entry < 0 ? null : state.vocabularyWord(entry) };
    });
  }

  nearest(wordOrVector, k = 10) {
    this._requireVocabulary('nearest');
    checkInt('k', k, 1, 1000);
    const dim = this._state.vocabularyDim();
    const vector = typeof wordOrVector === 'string' ? this.embed(wordOrVector).vector
      : checkMatrix('wordOrVector', wordOrVector, dim, `[${dim}]`);
    return this._withArrays({ vector }, {}, (ptrs) => JSON.parse(this._state.nearestJson(ptrs.vector, k)));
  }

  // ---- the sentence pipeline ----
  attend(options) { return this._attend(options, 0, 0); }

  // attend()'s options checked and converted, for _attend and _attendOutput.
  _attendInputs(options) {
    checkKnownKeys('options', options, ['query', 'keys', 'score', 'temperature', 'heads', 'projection', 'seed', 'positional',
      'mask', 'p', 'eps', 'variant', 'maxTokens', 'experimentalScaledOutput', 'W', 'W1', 'W2', 'v', 'hidden', 'Wa', 'maxKeys']);
    const query = checkText('query', options.query);
    const cross = options.keys !== undefined && options.keys !== null;
    const keys = cross ? checkText('keys', options.keys) : '';
    const d = this._requireVocabulary('attend');
    const state = this._state;
    const temperature = temperatureOption('temperature', options.temperature);
    const heads = options.heads === undefined ? 1 : checkInt('heads', options.heads, 1, d);
    const seed = options.seed === undefined ? 1 : checkInt('seed', options.seed, 0, 0xffffffff);
    const maxTokens = options.maxTokens === undefined ? 512 : checkInt('maxTokens', options.maxTokens, 1, MAX_TOKENS_LIMIT);
    const mask = maskOption('mask', options.mask, this._lists);
    const variant = this._variantOption(options.variant);
    const positional = !!options.positional;
    const experimentalScaledOutput = !!options.experimentalScaledOutput;

    // Projections: a name from the registry (except 'user', which is the object form), or matrices.
    let projection = 'identity';
    const proj = { Wq: null, Wk: null, Wv: null, Wo: null };
    let dHead = 0, dValue = 0, dOut = 0;
    const named = this._lists.namedProjections;
    if (options.projection === undefined || typeof options.projection === 'string') {
      if (options.projection !== undefined) { checkEnum('projection', options.projection, named); projection = options.projection; }
    } else if (options.projection && typeof options.projection === 'object') {
      projection = 'user';
      const u = options.projection;
      dHead = checkInt('projection.dHead', u.dHead, 1, 1 << 12);
      dValue = checkInt('projection.dValue', u.dValue, 1, 1 << 12);
      proj.Wq = checkShape('projection.Wq', u.Wq, d * heads * dHead, `[${d}, heads*dHead=${heads * dHead}]`);
      proj.Wk = checkShape('projection.Wk', u.Wk, d * heads * dHead, `[${d}, heads*dHead=${heads * dHead}]`);
      proj.Wv = checkShape('projection.Wv', u.Wv, d * heads * dValue, `[${d}, heads*dValue=${heads * dValue}]`);
      if (u.Wo !== undefined) {
        dOut = checkInt('projection.dOut', u.dOut, 1, 1 << 12);
        proj.Wo = checkShape('projection.Wo', u.Wo, heads * dValue * dOut, `[heads*dValue=${heads * dValue}, dOut=${dOut}]`);
      }
    } else {
      throw new TypeError(`projection: expected ${named.map((n) => `'${n}'`).join(', ')} or an object {Wq, Wk, Wv, dHead, dValue}, got ${describe(options.projection)}`);
    }

    // Score weights given by the caller apply to every head; their size follows the head dimension.
    const score = scoreOption('score', options.score, this._lists);
    const idw = idwOptions('', options);
    let weights = { arrays: {}, hidden: 0, maxKeys: 0 };
    if (['W', 'W1', 'W2', 'v', 'Wa'].some((k) => options[k] !== undefined)) {
      const dh = projection === 'user' ? dHead : projection === 'random' ? Math.max(1, Math.floor(d / heads)) : (d % heads === 0 ? d / heads : 0);
      if (!dh) throw new RangeError(`heads: with your own score weights and the identity projection, heads must divide ${d}`);
      weights = scoreWeights('', options, score, null, { head: dh });
    }

    const e = this._enum;
    const core = (ptrs, headBegin, headEnd) => ({
      score: e.score[score], params: scoreParams(idw, weights, ptrs), temperature, heads, projection: e.projection[projection],
      seed, positional, mask: e.mask[mask], variant: e.variant[variant],
      maxTokens, experimentalScaledOutput, Wq: ptrs.Wq, Wk: ptrs.Wk, Wv: ptrs.Wv, Wo: ptrs.Wo, dHead, dValue, dOut, headBegin, headEnd,
    });
    // The same options as the plain export attnscope_attend's arguments after the addresses of the
    // texts (bindings/embind-scope.cpp): everything but the matrices' addresses and the heads' range.
    const i = e.ints;
    const plain = [i.score[score], i.variant[variant], idw.p, idw.eps, weights.hidden, weights.maxKeys, temperature, heads,
      i.projection[projection], seed, positional ? 1 : 0, i.mask[mask], maxTokens, experimentalScaledOutput ? 1 : 0, dHead, dValue, dOut];
    // The projection matrices (the block's first arrays) are checked to be finite in wasm, by _withArrays.
    const finite = Object.keys(proj).filter((k) => proj[k]);
    return { state, query, keys, cross, d, heads, score, temperature, variant, arrays: { ...proj, ...weights.arrays }, finite, core, plain };
  }

  // attend() through the plain export attnscope_attend (a: _attendInputs'; t0: when the call began):
  // the texts go in as UTF-8 bytes and the options as numbers (no Embind object), the result comes
  // back in two blocks of the heap that are copied out once and freed (readAttendBlock), the tokens
  // without a JSON round trip.
  _attendPlain(a, headBegin, headEnd, t0) {
    const state = this._stateAddress ?? (this._stateAddress = a.state.address());
    // The texts are encoded straight into the call's block (at most 3 UTF-8 bytes per UTF-16 unit).
    const queryMax = 3 * a.query.length, keysMax = a.cross ? 3 * a.keys.length : 0;
    return this._withArrays(a.arrays, { slot: 8, queryBytes: (queryMax + 3) >> 2, keyBytes: (keysMax + 3) >> 2 }, (ptrs) => {
      const m = this._m, p = a.plain, heap8 = m.HEAPU8;
      const queryBytes = utf8Encoder.encodeInto(a.query, heap8.subarray(ptrs.queryBytes, ptrs.queryBytes + queryMax)).written;
      const keyBytes = a.cross ? utf8Encoder.encodeInto(a.keys, heap8.subarray(ptrs.keyBytes, ptrs.keyBytes + keysMax)).written : 0;
      const err = exportMessage(m, m._attnscope_attend(state, ptrs.queryBytes, queryBytes, ptrs.keyBytes, keyBytes,
        a.cross ? 1 : 0, p[0], p[1], p[2], p[3], ptrs.W, ptrs.W1, ptrs.W2, ptrs.v, p[4], ptrs.Wa, p[5], p[6], p[7], p[8], p[9], p[10],
        p[11], p[12], p[13], ptrs.Wq, ptrs.Wk, ptrs.Wv, ptrs.Wo, p[14], p[15], p[16], headBegin, headEnd, ptrs.slot));
      if (err) throw coreError(err);
      const { data, tokens } = readAttendBlock(m, ptrs.slot, a.d);
      return attendResult(data, tokens, a.d, a.score, a.temperature, this._instance.resolvedVariants[a.variant], now() - t0);
    }, a.finite, PROJECTION_LABELS);
  }

  // The pool's (never options): heads [headBegin, headEnd) only (headEnd 0 = every head). The result
  // then holds those heads, and its output is their outputs side by side (dOut their width):
  // _attendOutput turns the joined heads into attend()'s output.
  // place (the pool's workers): place(nq, nk, heads) returns { scores, weights }, two Float32Arrays
  // of heads x nq x nk each, where the result's scores and weights are copied straight from the wasm
  // heap (the joined buffer, or one the worker reuses) instead of a fresh array per call; the
  // result's other arrays are views of one fresh copy of the small parts only.
  // tokens (the pool's, with place): false: the result has no tokens (their JSON is not parsed); 'json': the
  // tokens' JSON unparsed, as tokensJson (parsed on the pool's side: cheaper than sending objects).
  _attend(options, headBegin, headEnd, place = null, tokens = true) {
    if (!place) {
      const a = this._attendInputs(options);
      checkInt('headBegin', headBegin, 0, a.heads);
      checkInt('headEnd', headEnd, 0, a.heads);
      return this._attendPlain(a, headBegin, headEnd, now());   // the scope's attend(), and a whole share
    }
    const kept = this._attendKeep(options, headBegin, headEnd);
    try {
      return kept.finish(place(kept.nq, kept.nk, kept.heads), tokens);
    } finally {
      kept.release();
    }
  }

  // The pool's shares in two steps: heads [headBegin, headEnd) computed, their scores and weights
  // kept in the heap (ScopeState::attendKept), and { nq, nk, heads, finish(big, tokens), release() }
  // returned. finish copies each head's scores and weights from the heap into big ({ scores,
  // weights }: two Float32Arrays of heads x nq x nk, e.g. a region of the joined buffer) and returns
  // the result as _attend's; release() frees the kept heads (always call it; nothing may run in
  // this instance in between). A worker may wait for big between the two (its event loop runs;
  // the kept heads' addresses hold: wasm memory only grows in place).
  _attendKeep(options, headBegin, headEnd) {
    const a = this._attendInputs(options);
    checkInt('headBegin', headBegin, 0, a.heads);
    checkInt('headEnd', headEnd, 0, a.heads);
    const t0 = now();
    let released = false;
    const release = () => { if (!released) { released = true; a.state.releaseKept(); } };
    let res;
    try {
      res = this._withArrays(a.arrays, {}, (ptrs) => a.state.attendKept(a.query, a.keys, a.cross, a.core(ptrs, headBegin, headEnd)), a.finite, PROJECTION_LABELS);
      if (res.error) throw coreError(res.error);
    } catch (e) {
      release();
      throw e;
    }
    const nq = res.data[0], nk = res.data[1], heads = res.data[2], cells = nq * nk;
    const finish = (big, tokens = true) => {
      if (released) throw new Error('attend: the kept heads were released before they were copied');
      if (!big || !(big.scores instanceof Float32Array) || big.scores.length !== heads * cells || !(big.weights instanceof Float32Array) || big.weights.length !== heads * cells) {
        throw new Error(`attend: place() gave no room for ${heads} heads of ${nq} x ${nk}`);
      }
      // Each head's scores and weights, from the core's result in the heap (nothing has allocated
      // in this instance since the call, so the addresses hold; HEAPF32 read now, after any growth).
      const heap = this._m.HEAPF32;
      for (let h = 0; h < heads; h++) {
        big.scores.set(heap.subarray(res.scores[h] >>> 2, (res.scores[h] >>> 2) + cells), h * cells);
        big.weights.set(heap.subarray(res.weights[h] >>> 2, (res.weights[h] >>> 2) + cells), h * cells);
      }
      return unpackAttend(res, a.d, a.score, a.temperature, this._instance.resolvedVariants[a.variant], now() - t0, big, tokens);
    };
    return { nq, nk, heads, finish, release };
  }

  /** attend()'s output from every head's output side by side (concat [nq, cols]): { output, dOut }. */
  _attendOutput(options, concat, nq, cols) {
    const a = this._attendInputs(options);
    checkShape('concat', concat, nq * cols, `[nq=${nq}, cols=${cols}]`);
    return this._withArrays({ ...a.arrays, concat }, {}, (ptrs) => {
      const res = a.state.attendOutput(ptrs.concat, nq, cols, a.core(ptrs, 0, 0));
      if (res.error) throw coreError(res.error);
      return { output: res.data, dOut: res.dOut };
    }, a.finite, PROJECTION_LABELS);
  }
}

const utf8Encoder = new TextEncoder(), utf8Decoder = new TextDecoder();
// The names a non-finite element of a projection matrix is reported under (the option's path).
const PROJECTION_LABELS = Object.freeze({ Wq: 'projection.Wq', Wk: 'projection.Wk', Wv: 'projection.Wv', Wo: 'projection.Wo' });

// The blocks attnscope_attend leaves in the heap (layout in bindings/embind-scope.cpp, attend_block), read
// and freed: { data: one Float32Array of the result's floats in attendResult's order (the scores and
// weights, from their own block, after the embeddings), tokens: { query, keys } (Token objects) }.
// d: the embeddings' width. The strings of every token are decoded in one call and sliced; a table
// whose decoded length is not the one the core counted (bytes that are not UTF-8) is decoded string
// by string instead.
function readAttendBlock(m, slotAddress, d) {
  const slot = m.HEAP32.subarray(slotAddress >> 2, (slotAddress >> 2) + 8);
  const block = slot[0] >>> 0, floats = slot[1], nq = slot[2], nk = slot[3], units = slot[4], bytes = slot[5];
  const matrices = slot[6] >>> 0, matrixFloats = slot[7];
  try {
    const heap = m.HEAPF32, at = block >>> 2, split = 4 + 2 * heap[at + 2] + (nq + nk) * d;  // the header and the embeddings
    const data = new Float32Array(floats + matrixFloats);
    data.set(heap.subarray(at, at + split));
    data.set(heap.subarray(matrices >>> 2, (matrices >>> 2) + matrixFloats), split);
    data.set(heap.subarray(at + split, at + floats), split + matrixFloats);
    const n = nq + nk, rec = at + floats, u16End = rec + 3 * n, byteEnd = u16End + 4 * n, tableAt = (byteEnd + 4 * n) << 2;
    const heap32 = m.HEAP32, heap8 = m.HEAPU8;
    const table = utf8Decoder.decode(heap8.subarray(tableAt, tableAt + bytes));
    const exact = table.length === units;
    let s = 0, from = 0;
    const next = () => {
      const to = exact ? heap32[u16End + s] : heap32[byteEnd + s];
      s++;
      const str = exact ? table.slice(from, to) : utf8Decoder.decode(heap8.subarray(tableAt + from, tableAt + to));
      from = to;
      return str;
    };
    const query = [], keys = [];
    for (let i = 0; i < n; i++) {
      const text = next(), lookup = next(), kind = next(), word = next(), oov = heap32[rec + 3 * i + 2] !== 0;
      (i < nq ? query : keys).push({ text, lookup, start: heap32[rec + 3 * i], end: heap32[rec + 3 * i + 1], kind, oov, vocabWord: oov ? null : word });
    }
    return { data, tokens: { query, keys } };
  } finally {
    m._free(block);
    m._free(matrices);
  }
}

// The pool's shares (place given): the result of ScopeState::attendKept (bindings/embind-scope.cpp).
// withTokens: true (the tokens' fields), 'json' (their JSON unparsed, as tokensJson) or false.
function unpackAttend(res, d, score, temperature, variant, timeMs, big = null, withTokens = true) {
  const full = withTokens && withTokens !== 'json';
  const result = attendResult(res.data, full ? JSON.parse(res.tokens) : null, d, score, temperature, variant, timeMs, big);
  if (!full) {
    for (const key of TOKEN_KEYS) delete result[key];
    if (withTokens === 'json') result.tokensJson = res.tokens;
  }
  return result;
}
const TOKEN_KEYS = ['queryTokens', 'keyTokens', 'queryTokenInfo', 'keyTokenInfo'];

// Splits the floats attend() hands back (layout in bindings/embind-scope.cpp: attend_block, the same as
// ScopeState::attend_packed's) into the result's arrays: views of that one copy, no second copy.
// tokens: { query, keys } (Token objects) or null. big: { scores, weights } held elsewhere (data
// then lacks them: the small parts only, in the same order).
// One object literal with every key written out: spreading the token fields into it instead
// (`{ ...fields, nq, ... }`) made the small attend() call about 30 µs slower in node 20.
function attendResult(data, tokens, d, score, temperature, variant, timeMs, big = null) {
  const nq = data[0], nk = data[1], heads = data[2], dOut = data[3];
  const dHead = Array.from(data.subarray(4, 4 + heads)), dValue = Array.from(data.subarray(4 + heads, 4 + 2 * heads));
  let at = 4 + 2 * heads;
  const take = (n) => data.subarray(at, (at += n));
  const queryEmbeddings = take(nq * d), keyEmbeddings = take(nk * d);
  const scores = big ? big.scores : take(heads * nq * nk), weights = big ? big.weights : take(heads * nq * nk);
  const entropy = take(heads * nq), maxWeight = take(heads * nq), argmax = Uint32Array.from(take(heads * nq));
  const output = take(nq * dOut);
  const q = [], k = [], v = [];
  for (let h = 0; h < heads; h++) { q.push(take(nq * dHead[h])); k.push(take(nk * dHead[h])); v.push(take(nk * dValue[h])); }
  return {
    queryTokens: tokens && tokens.query.map((t) => t.text), keyTokens: tokens && tokens.keys.map((t) => t.text),
    queryTokenInfo: tokens && tokens.query, keyTokenInfo: tokens && tokens.keys, nq, nk, heads, d, dHead, dValue, dOut,
    queryEmbeddings, keyEmbeddings, q, k, v, scores, weights, output, stats: { entropy, maxWeight, argmax },
    score, temperature, variant, timeMs,
  };
}

/** attend()'s token fields from the tokens' JSON (layout in bindings/embind-scope.cpp, ScopeState::attend_packed). */
export function tokenFields(json) {
  const tokens = JSON.parse(json);
  return { queryTokens: tokens.query.map((t) => t.text), keyTokens: tokens.keys.map((t) => t.text), queryTokenInfo: tokens.query, keyTokenInfo: tokens.keys };
}

function now() { return typeof performance !== 'undefined' ? performance.now() : Date.now(); }
