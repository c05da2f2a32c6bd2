// scope.attend(): the sentence pipeline (tokenize → embed → positions → project per head → score →
// softmax → outputs) checked against JS recomputations from the arrays it returns, for every scoring
// function, heads 1/2/4, identity and seeded random projections, positions on/off and the causal mask.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { U, assertClose, assertSameBytes, loadScope, rng } from './helpers.mjs';
import { SCORE_NAMES, positionalEncoding, refMatmul, refRowStats, refScores, refSoftmax } from './reference.mjs';

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

  // Embeddings: the vocabulary vector of each token (its lower-cased lookup form), plus the sinusoidal
  // position when on. Without positions they are bit-identical to embed(); with them the C++ sin/cos
  // (float32 angles up to pos ≈ 15) may differ from Math.sin/cos by ~16u·pos: 1e-5 absolute.
  const checkEmbeddings = (X, info, what) => {
    assert.equal(X.length, info.length * d, `${label}: ${what} shape`);
    info.forEach((t, i) => {
      const e = scope.embed(t.lookup);
      assert.equal(t.oov, e.oov, `${label}: ${what} token ${t.text} oov flag`);
      const row = X.subarray(i * d, (i + 1) * d);
      if (!o.positional) assertSameBytes(row, e.vector, `${label}: ${what} row ${i} (${t.text})`);
      else {
        const pe = positionalEncoding(i, d);
        assertClose(row, e.vector.map((x, c) => x + pe[c]), 1e-5, `${label}: ${what} row ${i} + position`);
      }
    });
  };
  checkEmbeddings(r.queryEmbeddings, r.queryTokenInfo, 'query embeddings');
  checkEmbeddings(r.keyEmbeddings, r.keyTokenInfo, 'key embeddings');

  // Per-head projections.
  assert.equal(r.q.length, heads); assert.equal(r.k.length, heads); assert.equal(r.v.length, heads);
  assert.equal(r.dHead.length, heads); assert.equal(r.dValue.length, heads);
  for (let h = 0; h < heads; h++) {
    if (projection === 'identity') {
      const [c0, c1] = headColumns(d, heads, h);
      assert.equal(r.dHead[h], c1 - c0); assert.equal(r.dValue[h], c1 - c0);
      assertSameBytes(r.q[h], columns(r.queryEmbeddings, nq, d, c0, c1), `${label}: q[${h}] is its columns of the embeddings`);
      assertSameBytes(r.k[h], columns(r.keyEmbeddings, nk, d, c0, c1), `${label}: k[${h}]`);
      assertSameBytes(r.v[h], columns(r.keyEmbeddings, nk, d, c0, c1), `${label}: v[${h}]`);
    } else if (projection === 'random') {
      assert.equal(r.dHead[h], Math.floor(d / heads)); assert.equal(r.dValue[h], Math.floor(d / heads));
    }
    assert.equal(r.q[h].length, nq * r.dHead[h]); assert.equal(r.k[h].length, nk * r.dHead[h]);
    assert.equal(r.v[h].length, nk * r.dValue[h]);
  }

  // Scores, weights, stats per head.
  assert.equal(r.scores.length, heads * nq * nk); assert.equal(r.weights.length, heads * nq * nk);
  for (const a of [r.stats.entropy, r.stats.maxWeight, r.stats.argmax]) assert.equal(a.length, heads * nq);
  const mask = o.mask ?? 'none';
  for (let h = 0; h < heads; h++) {
    const Sh = r.scores.subarray(h * nq * nk, (h + 1) * nq * nk);
    const Ah = r.weights.subarray(h * nq * nk, (h + 1) * nq * nk);
    const dh = r.dHead[h];
    // The score recomputed from r.q / r.k where its weights are known (not the seeded ones).
    const known = !['general', 'additive', 'location'].includes(score) || (score === 'general' && o.W) ||
      (score === 'additive' && o.W1) || (score === 'location' && o.Wa);
    if (known) {
      const ref = refScores(score, r.q[h], r.k[h], { nq, nk, d: dh, W: o.W, W1: o.W1, W2: o.W2, v: o.v, hidden: o.hidden, Wa: o.Wa, p: o.p, eps: o.eps });
      assertClose(Sh, ref.S, ref.tol, `${label}: head ${h} scores recomputed from q, k`);
    } else {
      assert.ok(Sh.every(Number.isFinite), `${label}: head ${h} scores finite`);
    }
    const soft = refSoftmax(Sh, nq, nk, { temperature, mask });
    assertClose(Ah, soft.A, soft.tol, `${label}: head ${h} weights = softmax(scores/τ)`);
    for (let i = 0; i < nq; i++) {
      let s = 0;
      for (let j = 0; j < nk; j++) {
        s += Ah[i * nk + j];
        if (mask === 'causal' && j > i) assert.equal(Ah[i * nk + j], 0, `${label}: causal weight [${i}, ${j}]`);
      }
      assert.ok(Math.abs(s - 1) <= (nk + 8) * 4 * U, `${label}: head ${h} row ${i} sums to ${s}`);
    }
    const st = refRowStats(Ah, nq, nk);
    assertClose(r.stats.entropy.subarray(h * nq, (h + 1) * nq), st.entropy, Array.from(st.entropy, (x) => 2 * U * x + 1e-12), `${label}: entropy`);
    assert.deepEqual(Array.from(r.stats.maxWeight.subarray(h * nq, (h + 1) * nq)), Array.from(st.maxWeight, Math.fround));
    assert.deepEqual(Array.from(r.stats.argmax.subarray(h * nq, (h + 1) * nq)), Array.from(st.argmax));
  }

  // Output: without an output projection, the heads' A·V side by side.
  if (projection === 'identity' && !o.experimentalScaledOutput) {
    assert.equal(r.dOut, d);
    assert.equal(r.output.length, nq * d);
    let col = 0;
    for (let h = 0; h < heads; h++) {
      const dv = r.dValue[h];
      const O = refMatmul(r.weights.subarray(h * nq * nk, (h + 1) * nq * nk), r.v[h], nq, nk, dv);
      assertClose(columns(r.output, nq, d, col, col + dv), O.O, O.tol, `${label}: output of head ${h} = weights·v`);
      col += dv;
    }
  } else {
    assert.equal(r.output.length, nq * r.dOut);
    assert.ok(r.output.every(Number.isFinite), `${label}: output finite`);
  }
  return r;
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

  test('user projections: q = X·Wq per head, output = concat(heads)·Wo', () => {
    const r = rng(5);
    const d = 100, heads = 2, dHead = 8, dValue = 6, dOut = 5;
    const P = { Wq: r.floats(d * heads * dHead, 0.1), Wk: r.floats(d * heads * dHead, 0.1), Wv: r.floats(d * heads * dValue, 0.1),
      Wo: r.floats(heads * dValue * dOut, 0.3), dHead, dValue, dOut };
    const res = checkAttend({ query: S1, keys: S2, heads, projection: P, score: 'cosine' }, 'user projection');
    assert.deepEqual(res.dHead, [dHead, dHead]);
    assert.deepEqual(res.dValue, [dValue, dValue]);
    assert.equal(res.dOut, dOut);
    // Column block h of X·W, X [n, d] and W [d, heads*w].
    const project = (X, n, W, w, h) => {
      const Wh = new Float32Array(d * w);
      for (let a = 0; a < d; a++) Wh.set(W.subarray(a * heads * w + h * w, a * heads * w + (h + 1) * w), a * w);
      return refMatmul(X, Wh, n, d, w);
    };
    const concat = new Float32Array(res.nq * heads * dValue);
    for (let h = 0; h < heads; h++) {
      let p = project(res.queryEmbeddings, res.nq, P.Wq, dHead, h);
      assertClose(res.q[h], p.O, p.tol, `q[${h}]`);
      p = project(res.keyEmbeddings, res.nk, P.Wk, dHead, h);
      assertClose(res.k[h], p.O, p.tol, `k[${h}]`);
      p = project(res.keyEmbeddings, res.nk, P.Wv, dValue, h);
      assertClose(res.v[h], p.O, p.tol, `v[${h}]`);
      const O = refMatmul(res.weights.subarray(h * res.nq * res.nk, (h + 1) * res.nq * res.nk), res.v[h], res.nq, res.nk, dValue);
      for (let i = 0; i < res.nq; i++) for (let c = 0; c < dValue; c++) concat[i * heads * dValue + h * dValue + c] = O.O[i * dValue + c];
    }
    // The head outputs themselves are only known to their bound; 1e-5 relative covers it twice over.
    const out = refMatmul(concat, P.Wo, res.nq, heads * dValue, dOut);
    assertClose(res.output, out.O, out.tol.map((t, i) => t + 1e-5 * (Math.abs(out.O[i]) + 1e-2)), 'output = concat·Wo');
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
    const king = scope.embed('king');
    assert.equal(king.oov, false);
    assert.ok(king.vector instanceof Float32Array && king.vector.length === 100);
    assert.ok(king.vector.some((x) => x !== 0));
    const oov = scope.embed('zqxjvbkwrtplm');
    assert.equal(oov.oov, true);
    assert.equal(oov.vector.length, 100);
    assert.ok(oov.vector.every(Number.isFinite) && oov.vector.some((x) => x !== 0));
    assertSameBytes(oov.vector, scope.embed('zqxjvbkwrtplm').vector, 'OOV vectors are deterministic');
    assert.ok(scope.embed('zqxjvbkwrtplq').vector.some((x, i) => x !== oov.vector[i]), 'different OOV words differ');
    // Related words are closer than unrelated ones.
    const cos = (a, b) => { let s = 0, x = 0, y = 0; for (let i = 0; i < a.length; i++) { s += a[i] * b[i]; x += a[i] ** 2; y += b[i] ** 2; } return s / Math.sqrt(x * y); };
    assert.ok(cos(king.vector, scope.embed('queen').vector) > cos(king.vector, scope.embed('computer').vector));
  });

  test("nearest('king') includes 'queen', best first, cosines as computed in JS", () => {
    const list = scope.nearest('king', 10);
    assert.equal(list.length, 10);
    const words = list.map((x) => x.word);
    assert.ok(words.includes('queen'), `queen among ${words}`);
    const king = scope.embed('king').vector;
    for (let i = 0; i < list.length; i++) {
      if (i) assert.ok(list[i].cosine <= list[i - 1].cosine, 'sorted best first');
      const v = scope.embed(list[i].word).vector;
      let s = 0, x = 0, y = 0;
      for (let c = 0; c < 100; c++) { s += king[c] * v[c]; x += king[c] ** 2; y += v[c] ** 2; }
      // The float32 cosine is good to ~(d+8)u ≈ 1e-5; allow for the digits the result is printed with.
      assert.ok(Math.abs(list[i].cosine - s / Math.sqrt(x * y)) < 2e-5, `${list[i].word}: ${list[i].cosine} vs ${s / Math.sqrt(x * y)}`);
    }
    const byVector = scope.nearest(king, 10);
    assert.deepEqual(byVector.map((x) => x.word), words, 'a vector finds the same words');
    assert.equal(scope.nearest('king').length, 10, 'k defaults to 10');
  });

  test('scoreFunctions lists the nine scores with their formulas, for generating a UI', () => {
    const list = scope.scoreFunctions;
    assert.deepEqual(list.map((s) => s.name), SCORE_NAMES);
    const formulas = { 'dot': 'q·k', 'scaled-dot': '√d', 'cosine': '‖q‖', 'general': 'W', 'additive': 'tanh', 'location': 'W_a',
      'neg-euclidean': '‖q', 'neg-sq-euclidean': '²', 'idw': 'log' };
    for (const s of list) {
      for (const key of ['formula', 'latex', 'source', 'description']) assert.ok(typeof s[key] === 'string' && s[key].length > 0, `${s.name}.${key}`);
      assert.ok(s.formula.includes(formulas[s.name]), `${s.name}: formula ${s.formula}`);
      assert.equal(s.needsWeights, ['general', 'additive', 'location'].includes(s.name), `${s.name}.needsWeights`);
    }
    assert.ok(Object.isFrozen(list), 'the list cannot be changed by a caller');
  });
});
