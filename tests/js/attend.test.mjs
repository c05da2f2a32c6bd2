// scope.attend(): the sentence pipeline (tokenize → embed → positions → project per head → score →
// softmax → outputs) checked against JS recomputations from the arrays it returns, for every scoring
// function, heads 1/2/4, identity and seeded random projections, positions on/off and the causal mask.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DIST, U, assertClose, assertSameBytes, loadScope, rng } from './helpers.mjs';
import { SCORE_NAMES, oovVector, parseVocabulary, positionalEncoding, refMatmul, refRowStats, refScores, refSoftmax, xavier } from './reference.mjs';

const scope = await loadScope();
const S1 = "The animal didn't cross the street because it was too tired.";
const S2 = 'A small dog slept under the old tree.';

/** The columns head h of `heads` sees when the d dimensions are split without projections (DESIGN.md). */
function headColumns(d, heads, h) {
  const base = Math.floor(d / heads), extra = d % heads;
  const begin = h * base + Math.min(h, extra);
  return [begin, begin + base + (h < extra ? 1 : 0)];
}

function columns(X, rows, cols, c0, c1) {
  const out = new Float32Array(rows * (c1 - c0));
  for (let i = 0; i < rows; i++) out.set(X.subarray(i * cols + c0, i * cols + c1), i * (c1 - c0));
  return out;
}

function checkTokens(info, tokens, text, label) {
  assert.deepEqual(tokens, info.map((t) => t.text), `${label}: tokens are the texts of the token info`);
  let last = 0;
  for (const t of info) {
    assert.equal(t.text, text.slice(t.start, t.end), `${label}: span of ${JSON.stringify(t.text)}`);
    assert.ok(t.start >= last && t.end > t.start, `${label}: spans in order and not empty`);
    assert.equal(text.slice(last, t.start).trim(), '', `${label}: only whitespace between tokens`);
    assert.equal(t.vocabWord === null, t.oov, `${label}: ${t.text}: vocabWord is null exactly when oov`);
    last = t.end;
  }
  assert.equal(text.slice(last).trim(), '', `${label}: nothing left after the last token`);
}

/**
 * Every check that holds for any attend() result; `o` is the options passed.
 * Returns the result for further checks.
 */
function checkAttend(o, label) {
  const r = scope.attend(o);
  const heads = o.heads ?? 1, temperature = o.temperature ?? 1, score = o.score ?? 'scaled-dot';
  const cross = o.keys !== undefined;
  const projection = o.projection ?? 'identity';
  const { nq, nk, d } = r;
  assert.equal(d, 100, `${label}: GloVe dimension`);
  assert.equal(r.heads, heads);
  assert.equal(r.score, score);
  assert.equal(r.temperature, temperature);
  assert.equal(r.variant, o.variant === 'scalar' ? 'scalar' : 'simd');
  assert.ok(r.timeMs >= 0 && Number.isFinite(r.timeMs));

  // Tokens.
  checkTokens(r.queryTokenInfo, r.queryTokens, o.query, `${label} query`);
  checkTokens(r.keyTokenInfo, r.keyTokens, cross ? o.keys : o.query, `${label} keys`);
  assert.equal(nq, r.queryTokens.length);
  assert.equal(nk, r.keyTokens.length);
  if (!cross) assert.deepEqual(r.keyTokenInfo, r.queryTokenInfo, `${label}: self-attention keys are the query`);

  // Embeddings: the vocabulary vector of each token (its lower-cased lookup form), bit-identical to
  // embed(); with positions, plus PE(i) computed in double and rounded to float32, then added in float32:
  // Math.sin/cos and the wasm libm may differ in the last double bit, so allow an ulp or two of the sum.
  const checkEmbeddings = (X, info, what) => {
    assert.equal(X.length, info.length * d, `${label}: ${what} shape`);
    info.forEach((t, i) => {
      const e = scope.embed(t.lookup);
      assert.equal(t.oov, e.oov, `${label}: ${what} token ${t.text} oov flag`);
      const row = X.subarray(i * d, (i + 1) * d);
      if (!o.positional) assertSameBytes(row, e.vector, `${label}: ${what} row ${i} (${t.text})`);
      else {
        const pe = positionalEncoding(i, d);
        assertClose(row, Array.from(e.vector, (x, c) => x + Math.fround(pe[c])),
          Array.from(e.vector, (x, c) => 4 * U * (Math.abs(x) + Math.abs(pe[c]))), `${label}: ${what} row ${i} + position`);
      }
    });
  };
  checkEmbeddings(r.queryEmbeddings, r.queryTokenInfo, 'query embeddings');
  checkEmbeddings(r.keyEmbeddings, r.keyTokenInfo, 'key embeddings');

  // Per-head projections: identity = the head's columns of the embeddings; otherwise X·W with the
  // caller's matrices or the seeded Xavier ones (recomputed in JS from the documented PCG32 streams).
  const seed = o.seed ?? 1;
  let P = null;
  if (projection === 'random') {
    const dh = Math.max(1, Math.floor(d / heads));
    P = { Wq: xavier(d, heads * dh, seed, 'Wq'), Wk: xavier(d, heads * dh, seed, 'Wk'), Wv: xavier(d, heads * dh, seed, 'Wv'),
      Wo: xavier(heads * dh, d, seed, 'Wo'), dHead: dh, dValue: dh, dOut: d };
  } else if (typeof projection === 'object') {
    P = projection;
  }
  assert.equal(r.q.length, heads); assert.equal(r.k.length, heads); assert.equal(r.v.length, heads);
  assert.equal(r.dHead.length, heads); assert.equal(r.dValue.length, heads);
  for (let h = 0; h < heads; h++) {
    if (!P) {
      const [c0, c1] = headColumns(d, heads, h);
      assert.equal(r.dHead[h], c1 - c0); assert.equal(r.dValue[h], c1 - c0);
      assertSameBytes(r.q[h], columns(r.queryEmbeddings, nq, d, c0, c1), `${label}: q[${h}] is its columns of the embeddings`);
      assertSameBytes(r.k[h], columns(r.keyEmbeddings, nk, d, c0, c1), `${label}: k[${h}]`);
      assertSameBytes(r.v[h], columns(r.keyEmbeddings, nk, d, c0, c1), `${label}: v[${h}]`);
    } else {
      assert.equal(r.dHead[h], P.dHead); assert.equal(r.dValue[h], P.dValue);
      const check = (got, X, n, W, w, what) => {
        const ref = refMatmul(X, columns(W, d, heads * w, h * w, (h + 1) * w), n, d, w);
        assertClose(got, ref.O, ref.tol, `${label}: ${what}[${h}] = X·W${what}`);
      };
      check(r.q[h], r.queryEmbeddings, nq, P.Wq, P.dHead, 'q');
      check(r.k[h], r.keyEmbeddings, nk, P.Wk, P.dHead, 'k');
      check(r.v[h], r.keyEmbeddings, nk, P.Wv, P.dValue, 'v');
    }
  }

  // Scores (recomputed from r.q, r.k with the caller's or the seeded score weights), weights, stats.
  assert.equal(r.scores.length, heads * nq * nk); assert.equal(r.weights.length, heads * nq * nk);
  for (const a of [r.stats.entropy, r.stats.maxWeight, r.stats.argmax]) assert.equal(a.length, heads * nq);
  const mask = o.mask ?? 'none';
  for (let h = 0; h < heads; h++) {
    const Sh = r.scores.subarray(h * nq * nk, (h + 1) * nq * nk);
    const Ah = r.weights.subarray(h * nq * nk, (h + 1) * nq * nk);
    const dh = r.dHead[h];
    const w = { W: o.W, W1: o.W1, W2: o.W2, v: o.v, hidden: o.hidden, Wa: o.Wa, p: o.p, eps: o.eps };
    if (score === 'general' && !w.W) w.W = xavier(dh, dh, seed, 'W_general', h);
    if (score === 'additive' && !w.W1) {
      const hid = o.hidden ?? dh;
      Object.assign(w, { hidden: hid, W1: xavier(hid, dh, seed, 'W1_additive', h), W2: xavier(hid, dh, seed, 'W2_additive', h), v: xavier(hid, 1, seed, 'v_additive', h) });
    }
    if (score === 'location' && !w.Wa) w.Wa = xavier(nk, dh, seed, 'Wa_location', h);
    const ref = refScores(score, r.q[h], r.k[h], { nq, nk, d: dh, ...w });
    assertClose(Sh, ref.S, ref.tol, `${label}: head ${h} scores recomputed from q, k`);
    const soft = refSoftmax(Sh, nq, nk, { temperature, mask });
    assertClose(Ah, soft.A, soft.tol, `${label}: head ${h} weights = softmax(scores/τ)`);
    for (let i = 0; i < nq; i++) {
      let sum = 0;
      for (let j = 0; j < nk; j++) {
        sum += Ah[i * nk + j];
        if (mask === 'causal' && j > i) assert.equal(Ah[i * nk + j], 0, `${label}: causal weight [${i}, ${j}]`);
      }
      assert.ok(Math.abs(sum - 1) <= (nk + 8) * 4 * U, `${label}: head ${h} row ${i} sums to ${sum}`);
    }
    // The entropy is computed from the scores (one logarithm per row: src/attnscope/softmax.hpp,
    // row_stats), i.e. of the weights as the softmax defines them; each float weight is within a few
    // ulp of that (the exponential's 2, the division's 1), which moves −Σ a log a by at most
    // max_j |δ_j − δ_r| ≤ 8u: the tolerance is the float rounding of the entropy plus that.
    const st = refRowStats(Ah, nq, nk);
    assertClose(r.stats.entropy.subarray(h * nq, (h + 1) * nq), st.entropy, Array.from(st.entropy, (x) => 2 * U * x + 8 * U), `${label}: entropy`);
    assert.deepEqual(Array.from(r.stats.maxWeight.subarray(h * nq, (h + 1) * nq)), Array.from(st.maxWeight, Math.fround));
    assert.deepEqual(Array.from(r.stats.argmax.subarray(h * nq, (h + 1) * nq)), Array.from(st.argmax));
  }

  // Output: each head's weights·v (or, experimentally, (weights·v·W_x)/√dv with a seeded W_x), side by
  // side, then ·Wo when there is an output projection. Errors carried through each product.
  const widths = r.dValue, total = widths.reduce((a, b) => a + b, 0);
  const concat = new Float64Array(nq * total), concatTol = new Float64Array(nq * total);
  let col = 0;
  for (let h = 0; h < heads; h++) {
    const dv = widths[h];
    let O = refMatmul(r.weights.subarray(h * nq * nk, (h + 1) * nq * nk), r.v[h], nq, nk, dv);
    if (o.experimentalScaledOutput) {
      const x = matmulCarry(O.O, O.tol, xavier(dv, dv, seed, 'W_extra', h), nq, dv, dv);
      const scale = 1 / Math.sqrt(dv);
      O = { O: x.O.map((v) => v * scale), tol: x.tol.map((t, i) => t * scale + 3 * U * Math.abs(x.O[i] * scale)) };
    }
    for (let i = 0; i < nq; i++) for (let c = 0; c < dv; c++) {
      concat[i * total + col + c] = O.O[i * dv + c]; concatTol[i * total + col + c] = O.tol[i * dv + c];
    }
    col += dv;
  }
  let out = { O: concat, tol: concatTol };
  if (P && P.Wo) out = matmulCarry(concat, concatTol, P.Wo, nq, total, P.dOut);
  assert.equal(r.dOut, P && P.Wo ? P.dOut : total);
  assertClose(r.output, out.O, out.tol, `${label}: output`);
  return r;
}

/** X·W where X itself is known to ±Xtol: the float32 product's bound plus the carried error Σ Xtol·|W|. */
function matmulCarry(X, Xtol, W, n, inner, cols) {
  const ref = refMatmul(X, W, n, inner, cols);
  for (let i = 0; i < n; i++) for (let c = 0; c < cols; c++) {
    let carried = 0;
    for (let a = 0; a < inner; a++) carried += Xtol[i * inner + a] * Math.abs(W[a * cols + c]);
    ref.tol[i * cols + c] += carried + U * Math.abs(ref.O[i * cols + c]);
  }
  return ref;
}

describe('attend() against JS recomputation', () => {
  for (const score of SCORE_NAMES) {
    test(`${score}: self and cross, heads 1/2/4, identity and random, positions, causal`, () => {
      let n = 0;
      for (const [query, keys] of [[S1, undefined], [S2, undefined], [S1, S2], [S2, S1]]) {
        for (const heads of [1, 2, 4]) {
          for (const projection of ['identity', 'random']) {
            for (const positional of [false, true]) {
              for (const mask of [undefined, 'causal']) {
                const o = { query, score, heads, projection, positional, temperature: [1, 0.5, 2][n++ % 3] };
                if (keys !== undefined) o.keys = keys;
                if (mask) o.mask = mask;
                checkAttend(o, `${score} ${keys ? 'cross' : 'self'} h=${heads} ${projection} pos=${positional} mask=${mask}`);
              }
            }
          }
        }
      }
    });
  }

  test('uneven head split (3 heads of 100 dims: 34, 33, 33)', () => {
    const r = checkAttend({ query: S1, keys: S2, heads: 3 }, 'heads 3');
    assert.deepEqual(r.dHead, [34, 33, 33]);
  });

  test('idw with custom p and ε, every variant', () => {
    for (const variant of ['auto', 'simd', 'scalar'])
      checkAttend({ query: S1, keys: S2, score: 'idw', p: 1, eps: 0.05, variant, heads: 2 }, `idw ${variant}`);
  });

  test('user score weights: general W, additive W1/W2/v, location Wa (recomputed from q, k)', () => {
    const r = rng(17);
    const dh = 50;  // identity projection, 2 heads: each head sees 50 dimensions
    checkAttend({ query: S1, keys: S2, heads: 2, score: 'general', W: r.floats(dh * dh, 0.2) }, 'general W');
    const hidden = 7;
    checkAttend({ query: S1, heads: 2, score: 'additive', W1: r.floats(hidden * dh, 0.2), W2: r.floats(hidden * dh, 0.2), v: r.floats(hidden), hidden }, 'additive');
    checkAttend({ query: S2, keys: S1, heads: 2, score: 'location', Wa: r.floats(20 * dh, 0.2), maxKeys: 20 }, 'location Wa');
  });

  test('user projections: q, k, v = X·W per head, output = concat(heads)·Wo (or the concatenation without Wo)', () => {
    const r = rng(5);
    const d = 100, heads = 2, dHead = 8, dValue = 6, dOut = 5;
    const P = { Wq: r.floats(d * heads * dHead, 0.1), Wk: r.floats(d * heads * dHead, 0.1), Wv: r.floats(d * heads * dValue, 0.1),
      Wo: r.floats(heads * dValue * dOut, 0.3), dHead, dValue, dOut };
    for (const score of SCORE_NAMES) {
      const res = checkAttend({ query: S1, keys: S2, heads, projection: P, score, positional: true }, `user projection ${score}`);
      assert.deepEqual(res.dHead, [dHead, dHead]);
      assert.deepEqual(res.dValue, [dValue, dValue]);
      assert.equal(res.dOut, dOut);
    }
    const { Wo, dOut: _, ...noWo } = P;
    const res = checkAttend({ query: S1, heads, projection: noWo, mask: 'causal' }, 'user projection without Wo');
    assert.equal(res.dOut, heads * dValue);
  });

  test('seeded matrices follow the documented PCG32 streams (Xavier W_q, W_k, W_v, W_o and score weights)', () => {
    // checkAttend recomputes q, k, v, the scores and the output from JS-generated seeded matrices; here
    // every weighted score, several seeds and head counts, with the experimental output too.
    for (const seed of [0, 1, 7, 0xdeadbeef]) {
      for (const score of ['general', 'additive', 'location']) {
        checkAttend({ query: S1, keys: S2, score, seed, heads: 1 + (seed % 4), projection: 'random' }, `seed ${seed} ${score}`);
        checkAttend({ query: S2, score, seed, heads: 2 }, `seed ${seed} ${score} identity`);
      }
      checkAttend({ query: S1, keys: S2, seed, heads: 2, projection: 'random', experimentalScaledOutput: true }, `seed ${seed} experimental`);
    }
  });

  test('default options: scaled-dot, τ = 1, one head, identity, no mask', () => {
    const a = scope.attend({ query: S1 });
    const b = scope.attend({ query: S1, score: 'scaled-dot', temperature: 1, heads: 1, projection: 'identity', mask: 'none', seed: 1, positional: false });
    assertSameBytes(a.weights, b.weights, 'defaults');
    assertSameBytes(a.output, b.output, 'defaults');
  });

  test('location scores do not depend on what the keys say, only how many there are', () => {
    const q = 'The cat sat on the mat.';
    const a = scope.attend({ query: q, keys: 'one two three four', score: 'location' });
    const b = scope.attend({ query: q, keys: 'red blue green yellow', score: 'location' });
    assert.equal(a.nk, 4);
    assertSameBytes(a.scores, b.scores, 'location scores');
  });

  test('cross-attention: queries from the first sentence, keys from the second', () => {
    const r = scope.attend({ query: S1, keys: S2 });
    const self2 = scope.attend({ query: S2 });
    assert.deepEqual(r.keyTokens, self2.queryTokens);
    assertSameBytes(r.keyEmbeddings, self2.queryEmbeddings, 'key embeddings are the second sentence\'s');
    assert.notEqual(r.nq, r.nk);
  });

  test('experimental scaled output keeps the weights and changes only the output', () => {
    const a = scope.attend({ query: S1, keys: S2, heads: 2 });
    const b = checkAttend({ query: S1, keys: S2, heads: 2, experimentalScaledOutput: true }, 'experimental');
    assertSameBytes(a.weights, b.weights, 'weights unchanged');
    assert.equal(b.output.length, a.output.length);
    assert.ok(b.output.some((x, i) => x !== a.output[i]), 'output differs');
  });
});

describe('seeded random projections', () => {
  const run = (s, seed, extra = {}) => s.attend({ query: S1, keys: S2, heads: 2, projection: 'random', score: 'general', seed, ...extra });

  test('the same seed gives the same bytes, in this and in a new instance', async () => {
    const a = run(scope, 7), b = run(scope, 7);
    const other = await loadScope();
    const c = run(other, 7);
    for (const x of [b, c]) {
      for (const key of ['scores', 'weights', 'output']) assertSameBytes(a[key], x[key], `seed 7: ${key}`);
      for (let h = 0; h < 2; h++) for (const key of ['q', 'k', 'v']) assertSameBytes(a[key][h], x[key][h], `seed 7: ${key}[${h}]`);
    }
  });

  test('a different seed gives different projections and score weights', () => {
    const a = run(scope, 7), b = run(scope, 8);
    for (const key of ['q', 'k', 'v']) assert.ok(a[key][0].some((x, i) => x !== b[key][0][i]), `${key}[0] differs`);
    assert.ok(a.output.some((x, i) => x !== b.output[i]), 'output differs');
    // Identity projections do not use the seed at all (dot products of the raw embeddings).
    const i1 = scope.attend({ query: S1, seed: 1 }), i2 = scope.attend({ query: S1, seed: 99 });
    assertSameBytes(i1.weights, i2.weights, 'identity ignores the seed');
  });

  test('the full uint32 seed range is accepted and distinct', () => {
    const a = run(scope, 0), b = run(scope, 0xffffffff), c = run(scope, 0x7fffffff);
    assert.ok(a.q[0].some((x, i) => x !== b.q[0][i]));
    assert.ok(b.q[0].some((x, i) => x !== c.q[0][i]));
  });

  test('random projections: Xavier-sized values (|q| bounded by ‖x‖·√(6/(d+H·dh))·√d)', () => {
    const r = run(scope, 3, { score: 'scaled-dot' });
    const d = 100, bound = Math.sqrt(6 / (d + 100));
    for (let i = 0; i < r.nq; i++) {
      let nx = 0; for (let c = 0; c < d; c++) nx += r.queryEmbeddings[i * d + c] ** 2;
      const lim = Math.sqrt(nx) * bound * Math.sqrt(d) * 1.0001;
      for (let c = 0; c < r.dHead[0]; c++) assert.ok(Math.abs(r.q[0][i * r.dHead[0] + c]) <= lim);
    }
  });
});

describe('text and vocabulary', () => {
  test('vocabulary info', () => {
    assert.deepEqual(scope.vocabulary, { size: 50000, dim: 100, name: 'glove-50k.bin' });
  });

  test('tokenize(): spans index the input string (UTF-16), text === input.slice(start, end)', () => {
    for (const text of [S1, S2, '  Hello,   world!  ', 'Café naïve — “quoted” 42.5% 😀 and 日本語 text', 'e\u0301t\u00e9 👍🏽 x', 'a\tb\nc']) {
      const tokens = scope.tokenize(text);
      assert.ok(Array.isArray(tokens) && tokens.length > 0);
      checkTokens(tokens, tokens.map((t) => t.text), text, JSON.stringify(text));
      for (const t of tokens) {
        assert.ok(['word', 'number', 'punctuation', 'symbol', 'cjk'].includes(t.kind), `kind ${t.kind}`);
        assert.equal(typeof t.oov, 'boolean');
        assert.equal(t.lookup, t.lookup.toLowerCase(), `lookup is lower-cased: ${t.lookup}`);
      }
    }
  });

  test("attend()'s tokens are tokenize()'s: text, lookup, spans, kind, oov and vocabWord, any script", () => {
    const texts = [S1, S2, '  Hello,   world!  ', 'Café naïve — “quoted” 42.5% 😀 and 日本語 text', 'e\u0301t\u00e9 👍🏽 x', 'a\tb\nc',
      "I didn't see a café, Mr. Smith's 3 cats... zqxjvb!", 'Ünïcödé “mixed” with 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and emoji 👩‍👩‍👧'];
    for (const query of texts) {
      const self = scope.attend({ query });
      assert.deepEqual(self.queryTokenInfo, scope.tokenize(query), `self: ${JSON.stringify(query)}`);
      assert.deepEqual(self.keyTokenInfo, self.queryTokenInfo);
      assert.deepEqual(self.queryTokens, self.queryTokenInfo.map((t) => t.text));
      for (const keys of [texts[3], texts[7]]) {
        const cross = scope.attend({ query, keys });
        assert.deepEqual(cross.queryTokenInfo, scope.tokenize(query), `cross query: ${JSON.stringify(query)}`);
        assert.deepEqual(cross.keyTokenInfo, scope.tokenize(keys), `cross keys: ${JSON.stringify(keys)}`);
        assert.deepEqual(cross.keyTokens, cross.keyTokenInfo.map((t) => t.text));
      }
    }
  });

  test('tokenize(): the example sentence, words and punctuation', () => {
    const tokens = scope.tokenize(S1);
    const texts = tokens.map((t) => t.text);
    for (const w of ['The', 'animal', 'cross', 'street', 'because', 'tired', '.']) assert.ok(texts.includes(w), `${w} in ${texts}`);
    assert.equal(tokens[0].lookup, 'the');
    assert.equal(tokens.at(-1).kind, 'punctuation');
    for (const t of tokens) {
      if (['the', 'animal', 'did', 'cross', 'street', 'because', 'it', 'was', 'too', 'tired'].includes(t.lookup)) assert.equal(t.oov, false, `${t.text} is in GloVe`);
    }
    assert.deepEqual(scope.tokenize('42').map((t) => t.kind), ['number']);
    assert.deepEqual(scope.tokenize(''), []);
    assert.deepEqual(scope.tokenize('   '), []);
  });

  test('embed(): a known word is its vocabulary vector; an unknown one a deterministic OOV vector', () => {
    // The JS reference reads dist/glove-50k.bin itself (docs/vocab-format.md) and implements the OOV rule.
    const vocab = parseVocabulary(readFileSync(join(DIST, 'glove-50k.bin')));
    assert.equal(vocab.count, 50000); assert.equal(vocab.dim, 100);
    const r = rng(99);
    const sample = ['king', 'queen', 'the', ',', 'street', vocab.words[49999], ...Array.from({ length: 20 }, () => vocab.words[r.int(0, 49999)])];
    for (const word of sample) {
      const e = scope.embed(word);
      assert.equal(e.oov, false, word);
      assert.ok(e.vector instanceof Float32Array);
      assertSameBytes(e.vector, vocab.vector(vocab.index.get(word)), `embed(${JSON.stringify(word)}) = float32(code · scale)`);
    }
    for (const word of ['zqxjvbkwrtplm', 'zqxjvbkwrtplq', 'kingdom-ish', 'naïve日本', '😀']) {
      const e = scope.embed(word);
      assert.equal(e.oov, true, word);
      const ref = oovVector(word, 100, vocab.medianNorm);
      assertSameBytes(e.vector, ref, `OOV vector of ${JSON.stringify(word)} (PCG32 seeded with FNV-1a, scaled to the median norm)`);
      const norm = Math.hypot(...e.vector);
      assert.ok(Math.abs(norm - vocab.medianNorm) < 1e-5 * norm, `OOV norm ${norm} = median norm ${vocab.medianNorm}`);
    }
    assert.ok(scope.embed('zqxjvbkwrtplq').vector.some((x, i) => x !== scope.embed('zqxjvbkwrtplm').vector[i]), 'different OOV words differ');
    // Related words are closer than unrelated ones.
    const cos = (a, b) => { let s = 0, x = 0, y = 0; for (let i = 0; i < a.length; i++) { s += a[i] * b[i]; x += a[i] ** 2; y += b[i] ** 2; } return s / Math.sqrt(x * y); };
    assert.ok(cos(scope.embed('king').vector, scope.embed('queen').vector) > cos(scope.embed('king').vector, scope.embed('computer').vector));
    // Normalised as in attend(): case and curly apostrophes do not matter; vocabWord says which entry.
    assertSameBytes(scope.embed('King').vector, scope.embed('king').vector, "embed('King') is the vector of 'king'");
    assert.equal(scope.embed('King').vocabWord, 'king');
    assert.equal(scope.embed('n’t').vocabWord, 'not');
    assert.equal(scope.embed('zqxjvbkwrtplm').vocabWord, null);
  });

  test('stand-ins for GloVe forms the word list lacks (docs/vocab-format.md): embed() and Token.vocabWord', () => {
    const vocab = parseVocabulary(readFileSync(join(DIST, 'glove-50k.bin')));
    const standIns = [["n't", 'not'], ['n’t', 'not'], ["'ll", 'will'], ["'re", 'are'], ["'m", 'am'], ["'ve", 'have'], ["'d", 'would'], ["'s", 'is'],
      ['a', 'an'], ['i', 'me'], ['0', 'zero'], ['7', 'seven'], ['10', 'ten'], ['...', '…'], ['mr.', 'mr'], ['café', 'cafe']];
    for (const [form, standIn] of standIns) {
      assert.equal(vocab.index.has(form), false, `${form} is not in the word list (else no stand-in is needed)`);
      const e = scope.embed(form);
      assert.equal(e.oov, false, `${form} has a stand-in`);
      assertSameBytes(e.vector, vocab.vector(vocab.index.get(standIn)), `embed(${JSON.stringify(form)}) is the vector of ${JSON.stringify(standIn)}`);
    }
    const text = "I didn't see a café, Mr. Smith's 3 cats... zqxjvb!";
    const tokens = scope.tokenize(text);
    const by = Object.fromEntries(tokens.map((t) => [t.text, t]));
    assert.equal(by["n't"].vocabWord, 'not');
    assert.equal(by.I.vocabWord, 'me');
    assert.equal(by.a.vocabWord, 'an');
    assert.equal(by['café'].vocabWord, 'cafe');
    assert.equal(by['3'].vocabWord, 'three');
    assert.equal(by.see.vocabWord, 'see');
    assert.equal(by.zqxjvb.vocabWord, null);
    for (const t of tokens) {
      assert.equal(t.vocabWord === null, t.oov, `${t.text}: vocabWord is null exactly when oov`);
      if (t.vocabWord !== null) assert.ok(vocab.index.has(t.vocabWord), `${t.text}: ${t.vocabWord} is a vocabulary word`);
    }
    // The sentence pipeline embeds each token with the vector of its vocabWord.
    const r = scope.attend({ query: text });
    r.queryTokenInfo.forEach((t, i) => {
      const expected = t.vocabWord === null ? scope.embed(t.lookup).vector : vocab.vector(vocab.index.get(t.vocabWord));
      assertSameBytes(r.queryEmbeddings.subarray(i * 100, (i + 1) * 100), expected, `row ${i} (${t.text})`);
    });
  });

  test("nearest('king') includes 'queen': the top 10 by cosine over the whole vocabulary, computed in JS", () => {
    const vocab = parseVocabulary(readFileSync(join(DIST, 'glove-50k.bin')));
    const bruteForce = (v, k) => {
      const nv = Math.hypot(...v), all = new Float64Array(vocab.count);
      for (let w = 0; w < vocab.count; w++) {
        let s = 0, n = 0;  // the scale cancels out of a cosine: the int8 codes suffice
        for (let c = 0; c < 100; c++) { const q = vocab.codes[w * 100 + c]; s += q * v[c]; n += q * q; }
        all[w] = n ? s / (Math.sqrt(n) * nv) : -Infinity;
      }
      return Array.from(all.keys()).sort((a, b) => all[b] - all[a] || a - b).slice(0, k).map((w) => ({ word: vocab.words[w], cosine: all[w] }));
    };
    for (const [query, k] of [['king', 10], ['paris', 5], ['happy', 20], [new Float32Array(100).fill(0.1), 10]]) {
      const got = typeof query === 'string' ? scope.nearest(query, k) : scope.nearest(query, k);
      const ref = bruteForce(typeof query === 'string' ? scope.embed(query).vector : query, k);
      assert.equal(got.length, k);
      for (let i = 0; i < k; i++) {
        if (i) assert.ok(got[i].cosine <= got[i - 1].cosine, 'sorted best first');
        // float32 cosines are good to ~(d+8)u ≈ 1e-5; words may only swap where the cosines (near-)tie.
        assert.ok(Math.abs(got[i].cosine - ref[i].cosine) < 2e-5, `${query} #${i}: ${got[i].word} ${got[i].cosine} vs ${ref[i].word} ${ref[i].cosine}`);
        if (got[i].word !== ref[i].word) assert.ok(Math.abs(ref[i].cosine - (ref[i + 1]?.cosine ?? ref[i - 1].cosine)) < 2e-5, `${query} #${i}: ${got[i].word} vs ${ref[i].word}`);
      }
    }
    assert.ok(scope.nearest('king', 10).some((x) => x.word === 'queen'));
    assert.deepEqual(scope.nearest(scope.embed('king').vector, 10), scope.nearest('king', 10), 'a word and its vector find the same');
    assert.equal(scope.nearest('king').length, 10, 'k defaults to 10');
    assert.deepEqual(scope.nearest(new Float32Array(100)), [], 'a zero vector has no direction: no neighbours');
  });

  test('scoreFunctions lists every score of the registry with its formulas, for generating a UI', () => {
    const list = scope.scoreFunctions;
    assert.deepEqual(list.map((s) => s.name), SCORE_NAMES);
    const formulas = { 'dot': 'q·k', 'scaled-dot': '√d', 'cosine': '‖q‖', 'general': 'W', 'additive': 'tanh', 'location': 'W_a',
      'neg-euclidean': '‖q', 'neg-sq-euclidean': '²', 'idw': 'log', 'neg-manhattan': '₁' };
    for (const s of list) {
      for (const key of ['formula', 'latex', 'source', 'description']) assert.ok(typeof s[key] === 'string' && s[key].length > 0, `${s.name}.${key}`);
      assert.ok(s.formula.includes(formulas[s.name]), `${s.name}: formula ${s.formula}`);
      assert.equal(s.needsWeights, ['general', 'additive', 'location'].includes(s.name), `${s.name}.needsWeights`);
    }
    assert.ok(Object.isFrozen(list), 'the list cannot be changed by a caller');
  });
});
