// scope.createTrainer(): determinism for a seed (same bytes), a loss that falls and a held-out
// accuracy that rises on a learnable rule (each word attends to the previous one), gradients equal to
// what attentionBackward() gives for the same loss, and the argument checks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertSameBytes, assertThrowsNaming, loadScope, rng } from './helpers.mjs';
import { SCORE_NAMES } from './reference.mjs';

const scope = await loadScope({ preload: false });

// Sentences of 3 to `maxLen` words from a vocabulary of random vectors; target: the previous word.
function previousWordData(sentences, dIn, seed, maxLen = 10) {
  const r = rng(seed);
  const vocab = Array.from({ length: 40 }, () => r.floats(dIn));
  const lengths = [], targets = [], rows = [];
  for (let s = 0; s < sentences; s++) {
    const n = r.int(3, maxLen);
    lengths.push(n);
    for (let i = 0; i < n; i++) { rows.push(vocab[r.int(0, 39)]); targets.push(i - 1); }
  }
  const vectors = new Float32Array(rows.length * dIn);
  rows.forEach((v, i) => vectors.set(v, i * dIn));
  return { vectors, lengths, targets };
}

const dIn = 12;
const train = previousWordData(80, dIn, 1), heldOut = previousWordData(30, dIn, 2);
const base = { data: train, dIn, dHead: 8, positions: 'concat', dPos: 8, maxLen: 10, batch: 8, learningRate: 0.03 };

test('the same seed gives the same bytes; another seed does not; reset(seed) starts over', () => {
  const a = scope.createTrainer({ ...base, seed: 5 }), b = scope.createTrainer({ ...base, seed: 5 }), c = scope.createTrainer({ ...base, seed: 6 });
  try {
    a.step(40);
    b.step(25); b.step(15);
    c.step(40);
    const wa = a.weights(), wb = b.weights(), wc = c.weights();
    assertSameBytes(wa.Wq, wb.Wq, 'Wq'); assertSameBytes(wa.Wk, wb.Wk, 'Wk');
    assertSameBytes(a.losses, b.losses, 'losses');
    assert.notDeepEqual(Array.from(wa.Wq), Array.from(wc.Wq), 'another seed, other weights');
    a.reset();
    assert.equal(a.steps, 0);
    a.step(40);
    assertSameBytes(a.weights().Wq, wb.Wq, 'after reset(): the same run again');
    a.reset(6);
    a.step(40);
    assertSameBytes(a.weights().Wq, wc.Wq, 'reset(6) = a trainer created with seed 6');
  } finally { a.dispose(); b.dispose(); c.dispose(); }
});

test('previous-word rule: the loss falls and held-out accuracy rises far above chance', () => {
  const t = scope.createTrainer({ ...base, seed: 1 });
  try {
    const before = t.evaluate(heldOut);
    t.step(200);
    const after = t.evaluate(heldOut);
    const l = t.losses;
    const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
    assert.ok(mean(l.subarray(-20)) < 0.3 * mean(l.subarray(0, 20)), `batch loss ${mean(l.subarray(0, 20))} → ${mean(l.subarray(-20))}`);
    assert.ok(after.loss < 0.3 * before.loss, `held-out loss ${before.loss} → ${after.loss}`);
    // Chance for a query with n keys is 1/n, at most 1/2 here; the rule is learned almost exactly.
    assert.ok(after.accuracy > 0.9, `held-out accuracy ${before.accuracy} → ${after.accuracy} (${after.hits}/${after.count})`);
    // The heatmap of one held-out sentence puts its weight on the previous word.
    const n = heldOut.lengths[0];
    const A = t.attentionWeights(heldOut.vectors.subarray(0, n * dIn));
    for (let i = 1; i < n; i++) assert.ok(A[i * n + i - 1] > 0.5, `row ${i}: weight on the previous word ${A[i * n + i - 1]}`);
  } finally { t.dispose(); }
});

// The trainer's loss per target row is −log A[i, t]: through attention() with V = I (so O = A) its
// gradient with respect to O is −1/(A[i, t] · count) at (i, t) and 0 elsewhere. attentionBackward()
// of that dO must give the trainer's dQ and dK, and Fᵀ dQ, Fᵀ dK its dW_q, dW_k.
for (const score of SCORE_NAMES) {
  test(`'${score}': the trainer's gradients equal attentionBackward()'s`, () => {
    const mask = score === 'dot' || score === 'idw' ? 'causal' : 'none';
    const temperature = score === 'cosine' ? 0.25 : 1;
    const t = scope.createTrainer({ ...base, score, mask, temperature, hidden: 5, seed: 3 });
    try {
      t.step(3);  // away from the initial point
      const examples = [0, 4, 7];
      const g = t.gradients(examples);
      const w = t.weights();
      const params = scoreParams(w);
      const dh = t.options.dHead, dF = t.layout.dFeat;
      const dQ = new Float64Array(g.rows * dh), dK = new Float64Array(g.rows * dh);
      const sum = { dW: 0, dW1: 0, dW2: 0, dv: 0, dWa: 0 };
      const acc = {};
      let row = 0, offset = 0;
      const starts = [];
      for (let s = 0, o = 0; s < train.lengths.length; s++) { starts.push(o); o += train.lengths[s]; }
      for (const e of examples) {
        const n = train.lengths[e];
        const q = g.Q.slice(row * dh, (row + n) * dh), k = g.K.slice(row * dh, (row + n) * dh);
        const A = scope.attention(q, k, identity(n), { nq: n, nk: n, d: dh, dv: n, score, mask, temperature, ...params, maxKeys: 10, returns: ['weights'] }).weights;
        const dO = new Float32Array(n * n);
        for (let i = 0; i < n; i++) {
          const target = train.targets[starts[e] + i];
          if (target >= 0) dO[i * n + target] = -1 / (A[i * n + target] * g.count);
        }
        const b = scope.attentionBackward(q, k, identity(n), dO, { nq: n, nk: n, d: dh, dv: n, score, mask, temperature, ...params, maxKeys: 10 });
        dQ.set(b.dQ, row * dh); dK.set(b.dK, row * dh);
        for (const name of Object.keys(sum)) if (b[name]) { acc[name] ??= new Float64Array(b[name].length); b[name].forEach((x, i) => { acc[name][i] += x; }); }
        row += n; offset += n;
      }
      assert.equal(row, g.rows);
      close(g.dQ, dQ, `${score} dQ`);
      close(g.dK, dK, `${score} dK`);
      close(g.grads.Wq, matTN(g.features, dQ, g.rows, dF, dh), `${score} dWq = Fᵀ dQ`);
      close(g.grads.Wk, matTN(g.features, dK, g.rows, dF, dh), `${score} dWk = Fᵀ dK`);
      if (w.W) close(g.grads.W, acc.dW, `${score} dW`);
      if (w.W1) { close(g.grads.W1, acc.dW1, 'dW1'); close(g.grads.W2, acc.dW2, 'dW2'); close(g.grads.v, acc.dv, 'dv'); }
      if (w.Wa) close(g.grads.Wa, acc.dWa, 'dWa');
    } finally { t.dispose(); }
  });
}

// Temperature 'learned': log τ is a parameter (start 0: τ = 1). Its gradient against central differences
// of the batch loss recomputed from the trainer's own Q and K at τ = exp(log τ ± h); the loss at the
// trainer's τ is the trainer's; training moves τ, and cosine (bounded) learns a τ well below 1.
for (const score of ['scaled-dot', 'cosine', 'idw', 'additive']) {
  test(`'${score}', temperature 'learned': d loss / d log τ equals central differences; the loss is the trainer's`, () => {
    const mask = score === 'idw' ? 'causal' : 'none';
    const t = scope.createTrainer({ ...base, score, mask, temperature: 'learned', hidden: 5, seed: 4 });
    try {
      assert.deepEqual(Array.from(t.weights().logTau), [0]);
      t.step(20);
      const w = t.weights();
      const logTau = w.logTau[0];
      assert.notEqual(logTau, 0, 'training moved τ');
      const examples = [1, 5, 9, 12];
      const g = t.gradients(examples);
      const dh = t.options.dHead, params = scoreParams(w);
      const starts = [];
      for (let s = 0, o = 0; s < train.lengths.length; s++) { starts.push(o); o += train.lengths[s]; }
      const loss = (tau) => {
        let sum = 0, row = 0;
        for (const e of examples) {
          const n = train.lengths[e];
          const q = g.Q.slice(row * dh, (row + n) * dh), k = g.K.slice(row * dh, (row + n) * dh);
          const A = scope.attention(q, k, identity(n), { nq: n, nk: n, d: dh, dv: n, score, mask, temperature: tau, ...params, maxKeys: 10, returns: ['weights'] }).weights;
          for (let i = 0; i < n; i++) {
            const target = train.targets[starts[e] + i];
            if (target >= 0) sum -= Math.log(A[i * n + target]);
          }
          row += n;
        }
        return sum / g.count;
      };
      assert.ok(Math.abs(loss(Math.exp(logTau)) - g.loss) <= 1e-4 * Math.abs(g.loss) + 1e-6, `loss ${loss(Math.exp(logTau))} vs the trainer's ${g.loss}`);
      const h = 1e-2;
      const fd = (loss(Math.exp(logTau + h)) - loss(Math.exp(logTau - h))) / (2 * h);
      const got = g.grads.logTau[0];
      assert.ok(Math.abs(got - fd) <= 2e-3 * Math.abs(fd) + 2e-4, `d loss / d log τ: trainer ${got}, central differences ${fd}`);
      assert.ok(Math.abs(fd) > 1e-4, `a gradient worth checking: ${fd}`);
    } finally { t.dispose(); }
  });
}

test("temperature 'learned': same seed, same bytes; with an output it is refused; the trainer's attention uses the learnt τ", () => {
  const a = scope.createTrainer({ ...base, score: 'cosine', temperature: 'learned', seed: 2 });
  const b = scope.createTrainer({ ...base, score: 'cosine', temperature: 'learned', seed: 2 });
  try {
    a.step(30); b.step(30);
    assertSameBytes(a.weights().logTau, b.weights().logTau);
    const tau = Math.exp(a.weights().logTau[0]);
    assert.ok(tau < 0.8, `cosine learns a sharper τ than 1: ${tau}`);
    assert.ok(a.evaluate(heldOut).accuracy > 0.5);
  } finally { a.dispose(); b.dispose(); }
  assertThrowsNaming(() => scope.createTrainer({ ...base, temperature: 'learned', output: 'value' }), RangeError, [/^options\.temperature: 'learned' trains an attention-only head/]);
  assertThrowsNaming(() => scope.createTrainer({ ...base, temperature: 'learnt' }), TypeError, [/^options\.temperature/]);
});

/** The score's own parameters among a trainer's weights (W; W1, W2, v; Wa), as attentionBackward() takes them. */
function scoreParams(w) {
  const params = {};
  if (w.W) params.W = w.W;
  if (w.W1) Object.assign(params, { W1: w.W1, W2: w.W2, v: w.v });
  if (w.Wa) params.Wa = w.Wa;
  return params;
}

function identity(n) {
  const I = new Float32Array(n * n);
  for (let i = 0; i < n; i++) I[i * n + i] = 1;
  return I;
}
// Fᵀ D (F [rows, a], D [rows, b]) in float64.
function matTN(F, D, rows, a, b) {
  const out = new Float64Array(a * b);
  for (let r = 0; r < rows; r++) for (let i = 0; i < a; i++) for (let j = 0; j < b; j++) out[i * b + j] += F[r * a + i] * D[r * b + j];
  return out;
}
// Two float32 computations of the same gradient by different routes: |x − y| <= 1e-3 |y| + 1e-4 max|y|.
function close(got, want, label) {
  assert.equal(got.length, want.length, `${label}: length`);
  let scale = 0;
  for (const x of want) scale = Math.max(scale, Math.abs(x));
  assert.ok(scale > 0 || label.includes('dK'), `${label}: all zero`);
  for (let i = 0; i < want.length; i++) {
    const tol = 1e-3 * Math.abs(want[i]) + 1e-4 * scale + 1e-12;
    if (!(Math.abs(got[i] - want[i]) <= tol)) assert.fail(`${label}[${i}]: trainer ${got[i]}, attentionBackward ${want[i]} ± ${tol}`);
  }
}

test('createTrainer and its methods: bad input is a TypeError or RangeError naming the argument', () => {
  assertThrowsNaming(() => scope.createTrainer({ ...base, dIn: undefined }), TypeError, [/options\.dIn/], 'dIn');
  assertThrowsNaming(() => scope.createTrainer({ ...base, positions: 'learned' }), TypeError, [/options\.positions/, /'concat'/], 'positions');
  assertThrowsNaming(() => scope.createTrainer({ ...base, score: 'dott' }), TypeError, [/options\.score/], 'score');
  assertThrowsNaming(() => scope.createTrainer({ ...base, learningRate: 0 }), RangeError, [/options\.learningRate/], 'lr');
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...train, lengths: [] } }), RangeError, [/options\.data\.lengths/], 'no sentence');
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...train, lengths: [11, ...train.lengths.slice(1)] } }), RangeError, [/options\.data\.lengths\[0\]/], 'too long');
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...train, vectors: train.vectors.subarray(1) } }), RangeError, [/options\.data\.vectors/], 'vectors');
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...train, targets: train.targets.slice(1) } }), RangeError, [/options\.data\.targets/], 'targets');
  const badTarget = train.targets.slice(); badTarget[1] = 7;
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...train, targets: badTarget } }), RangeError, [/options\.data\.targets\[1\]/], 'target outside');
  const ahead = train.targets.map((x, i) => (i === 0 ? 1 : x));
  assertThrowsNaming(() => scope.createTrainer({ ...base, mask: 'causal', data: { ...train, targets: ahead } }), RangeError, [/causal/], 'causal target');
  assertThrowsNaming(() => scope.createTrainer({ ...base, extra: 1 }), TypeError, [/options\.extra: unknown option/], 'unknown');
  const t = scope.createTrainer({ ...base, batch: 4096, maxLen: 1024, data: previousWordData(2, dIn, 9, 1000) });
  try {
    assertThrowsNaming(() => t.step(0), RangeError, [/^count/], 'step(0)');
    assertThrowsNaming(() => t.step(1 << 20), RangeError, [/training steps/, /fewer steps at a time/], 'work limit');
  } finally { t.dispose(); }
  const u = scope.createTrainer(base);
  assertThrowsNaming(() => u.evaluate({ ...heldOut, vectors: [1, 2] }), TypeError, [/^data\.vectors/], 'evaluate vectors');
  assertThrowsNaming(() => u.attentionWeights(new Float32Array(dIn * 11)), RangeError, [/maxLen=10/], 'too long');
  assertThrowsNaming(() => u.gradients([train.lengths.length]), RangeError, [/examples\[0\]/], 'index');
  assert.equal(u.step(2), 2, 'still working');
  u.dispose();
  assert.throws(() => u.step(), /disposed/);
  u.dispose();  // twice is fine
});

// ---- cross-attention: queries from a sentence, keys from its "paraphrase" ----

// Pairs: a sentence of 3 to `maxLen` random-vocabulary words and its paraphrase (the words rotated,
// one replaced, one added), lengths differing; target = the word's index in the paraphrase where it
// occurs once in each, else -1.
function paraphraseData(pairs, dIn, seed, maxLen = 9) {
  const r = rng(seed);
  const vocab = Array.from({ length: 40 }, () => r.floats(dIn));
  const lengths = [], keyLengths = [], targets = [], rows = [], keyRows = [];
  for (let s = 0; s < pairs; s++) {
    const n = r.int(3, maxLen - 1);
    const w = Array.from({ length: n }, () => r.int(0, 39));
    const rot = r.int(0, n - 1);
    const k = w.map((_, i) => w[(i + rot) % n]);
    k[r.int(0, n - 1)] = r.int(0, 39);
    k.splice(r.int(0, n), 0, r.int(0, 39));
    lengths.push(n); keyLengths.push(k.length);
    for (const id of w) {
      const once = w.filter((x) => x === id).length === 1 && k.filter((x) => x === id).length === 1;
      targets.push(once ? k.indexOf(id) : -1);
      rows.push(vocab[id]);
    }
    for (const id of k) keyRows.push(vocab[id]);
  }
  const stack = (list) => { const v = new Float32Array(list.length * dIn); list.forEach((x, i) => v.set(x, i * dIn)); return v; };
  return { vectors: stack(rows), lengths, targets, keyVectors: stack(keyRows), keyLengths };
}
const pairs = paraphraseData(80, dIn, 11), heldPairs = paraphraseData(30, dIn, 12);
const crossBase = { ...base, data: pairs };

test('cross-attention: the same seed gives the same bytes; the head learns to find each word in the paraphrase', () => {
  const a = scope.createTrainer({ ...crossBase, seed: 2 }), b = scope.createTrainer({ ...crossBase, seed: 2 });
  try {
    assert.equal(a.cross, true);
    const before = a.evaluate(heldPairs);
    a.step(200);
    b.step(120); b.step(80);
    assertSameBytes(a.weights().Wk, b.weights().Wk, 'Wk');
    assertSameBytes(a.losses, b.losses, 'losses');
    const after = a.evaluate(heldPairs);
    assert.ok(after.count > 30, `${after.count} held-out target rows`);
    assert.ok(after.loss < 0.5 * before.loss, `held-out loss ${before.loss} → ${after.loss}`);
    assert.ok(after.accuracy > 0.9, `held-out accuracy ${before.accuracy} → ${after.accuracy}`);
    // One pair's heatmap: n x m, each row on its target.
    const n = heldPairs.lengths[0], m = heldPairs.keyLengths[0];
    const A = a.attentionWeights(heldPairs.vectors.subarray(0, n * dIn), heldPairs.keyVectors.subarray(0, m * dIn));
    assert.equal(A.length, n * m);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < m; j++) sum += A[i * m + j];
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${i} sums to ${sum}`);
    }
  } finally { a.dispose(); b.dispose(); }
});

test('cross-attention with each sentence as its own key sentence is self-attention, bit for bit', () => {
  const self = scope.createTrainer({ ...base, seed: 4 });
  const cross = scope.createTrainer({ ...base, seed: 4, data: { ...train, keyVectors: train.vectors, keyLengths: train.lengths } });
  try {
    assert.equal(self.cross, false);
    self.step(30); cross.step(30);
    assertSameBytes(self.weights().Wq, cross.weights().Wq, 'Wq');
    assertSameBytes(self.weights().Wk, cross.weights().Wk, 'Wk');
    assertSameBytes(self.losses, cross.losses, 'losses');
    const x = heldOut.vectors.subarray(0, heldOut.lengths[0] * dIn);
    assertSameBytes(self.attentionWeights(x), self.attentionWeights(x, x), 'attentionWeights(x) = attentionWeights(x, x)');
  } finally { self.dispose(); cross.dispose(); }
});

// As above for self-attention: the trainer's dQ, dK of pairs equal attentionBackward()'s with the
// rectangular Q [n, d], K [m, d], and dW_k = Gᵀ dK with G the paraphrases' features (dK flows there).
for (const score of SCORE_NAMES) {
  test(`'${score}', cross-attention: the trainer's gradients equal attentionBackward()'s; dWk = Gᵀ dK`, () => {
    const mask = score === 'dot' ? 'causal' : 'none';
    let data = pairs;
    if (mask === 'causal') {  // targets ahead of their query are hidden by the mask: none
      let at = 0;
      const targets = pairs.targets.slice();
      pairs.lengths.forEach((n) => { for (let i = 0; i < n; i++) if (targets[at + i] > i) targets[at + i] = -1; at += n; });
      data = { ...pairs, targets };
    }
    const t = scope.createTrainer({ ...crossBase, data, score, mask, hidden: 5, seed: 3 });
    try {
      t.step(3);
      const examples = [0, 4, 7];
      const g = t.gradients(examples);
      const w = t.weights();
      const params = scoreParams(w);
      const dh = t.options.dHead, dF = t.layout.dFeat;
      assert.equal(g.keyFeatures.length, g.keyRows * dF);
      const dQ = new Float64Array(g.rows * dh), dK = new Float64Array(g.keyRows * dh);
      const starts = [];
      for (let s = 0, o = 0; s < data.lengths.length; s++) { starts.push(o); o += data.lengths[s]; }
      let row = 0, krow = 0;
      for (const e of examples) {
        const n = data.lengths[e], m = data.keyLengths[e];
        const q = g.Q.slice(row * dh, (row + n) * dh), k = g.K.slice(krow * dh, (krow + m) * dh);
        const opts = { nq: n, nk: m, d: dh, dv: m, score, mask, ...params, maxKeys: 10 };
        const A = scope.attention(q, k, identity(m), { ...opts, returns: ['weights'] }).weights;
        const dO = new Float32Array(n * m);
        for (let i = 0; i < n; i++) {
          const target = data.targets[starts[e] + i];
          if (target >= 0) dO[i * m + target] = -1 / (A[i * m + target] * g.count);
        }
        const b = scope.attentionBackward(q, k, identity(m), dO, opts);
        dQ.set(b.dQ, row * dh); dK.set(b.dK, krow * dh);
        row += n; krow += m;
      }
      assert.equal(row, g.rows);
      assert.equal(krow, g.keyRows);
      close(g.dQ, dQ, `${score} dQ`);
      close(g.dK, dK, `${score} dK`);
      close(g.grads.Wq, matTN(g.features, dQ, g.rows, dF, dh), `${score} dWq = Fᵀ dQ`);
      close(g.grads.Wk, matTN(g.keyFeatures, dK, g.keyRows, dF, dh), `${score} dWk = Gᵀ dK`);
    } finally { t.dispose(); }
  });
}

test('cross-attention: bad key sentences are a TypeError or RangeError naming the argument', () => {
  const { keyVectors, ...noKeyVectors } = pairs;
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: noKeyVectors }), TypeError, [/options\.data\.keyVectors: missing/], 'keyLengths alone');
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...pairs, keyLengths: pairs.keyLengths.slice(1) } }), RangeError,
    [/options\.data\.keyLengths: expected one key sentence per sentence/], 'too few key lengths');
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...pairs, keyLengths: [11, ...pairs.keyLengths.slice(1)] } }), RangeError,
    [/options\.data\.keyLengths\[0\]/], 'key sentence too long');
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...pairs, keyVectors: keyVectors.subarray(1) } }), RangeError,
    [/options\.data\.keyVectors/], 'key vectors short');
  const nan = keyVectors.slice(); nan[5] = NaN;
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...pairs, keyVectors: nan } }), RangeError, [/options\.data\.keyVectors: element 5/], 'NaN');
  const beyond = pairs.targets.slice(); beyond[0] = pairs.keyLengths[0];
  assertThrowsNaming(() => scope.createTrainer({ ...base, data: { ...pairs, targets: beyond } }), RangeError,
    [/options\.data\.targets\[0\]/, /key sentence/], 'target past the paraphrase');
  const t = scope.createTrainer(crossBase);
  try {
    assertThrowsNaming(() => t.attentionWeights(new Float32Array(dIn * 3), new Float32Array(dIn * 11)), RangeError, [/^keyVectors/, /maxLen=10/], 'key too long');
    assertThrowsNaming(() => t.attentionWeights(new Float32Array(dIn * 3), [1, 2]), TypeError, [/^keyVectors/], 'key not a Float32Array');
    assertThrowsNaming(() => t.evaluate({ ...heldPairs, keyLengths: undefined }), TypeError, [/^data\.keyLengths: missing/], 'evaluate');
    assert.equal(t.step(2), 2, 'still working');
    assert.ok(t.evaluate(heldOut).count > 0, 'self-attention data evaluates on a cross-trained head');
  } finally { t.dispose(); }
});

// ---- output modes: O = A V ('value') or A V W_extra / √dIn ('scaled'), trained to copy the target's vector ----

test("output modes: weights, layout, evaluate's output accuracy; same seed, same bytes; 'none' is the default", () => {
  const plain = scope.createTrainer({ ...base, seed: 4 }), none = scope.createTrainer({ ...base, seed: 4, output: 'none' });
  const value = scope.createTrainer({ ...base, seed: 4, output: 'value' });
  const a = scope.createTrainer({ ...base, seed: 4, output: 'scaled' }), b = scope.createTrainer({ ...base, seed: 4, output: 'scaled' });
  try {
    assert.equal(plain.options.output, 'none');
    plain.step(20); none.step(20);
    assertSameBytes(plain.weights().Wq, none.weights().Wq, "output 'none' = no output option");
    assertSameBytes(plain.losses, none.losses, 'losses');
    const dF = plain.layout.dFeat;
    assert.deepEqual(Object.keys(plain.weights()), ['Wq', 'Wk']);
    assert.deepEqual(Object.keys(value.weights()), ['Wq', 'Wk', 'Wv']);
    assert.deepEqual(Object.keys(a.weights()), ['Wq', 'Wk', 'Wv', 'Wextra']);
    assert.equal(a.weights().Wv.length, dF * dIn);
    assert.equal(a.weights().Wextra.length, dIn * dIn);
    assert.equal(a.layout.total, 2 * dF * 8 + dF * dIn + dIn * dIn);
    // The same seed draws the same W_q, W_k (and W_v) whatever the output.
    assertSameBytes(value.weights().Wq, a.weights().Wq, 'Wq');
    assertSameBytes(value.weights().Wv, a.weights().Wv, 'Wv');
    const e0 = plain.evaluate(heldOut);
    assert.equal(e0.outputAccuracy, null);
    assert.equal(e0.outputHits, null);
    a.step(30); b.step(10); b.step(20);
    for (const k of ['Wq', 'Wk', 'Wv', 'Wextra']) assertSameBytes(a.weights()[k], b.weights()[k], k);
    assertSameBytes(a.losses, b.losses, 'losses');
    const e = a.evaluate(heldOut);
    assert.ok(e.outputAccuracy >= 0 && e.outputAccuracy <= 1 && e.outputHits === Math.round(e.outputAccuracy * e.count));
    const g = a.gradients([0]);
    assert.equal(g.V.length, g.keyRows * dIn);
    assert.equal(g.dO.length, g.rows * dIn);
    assert.equal(plain.gradients([0]).V, null);
  } finally { for (const t of [plain, none, value, a, b]) t.dispose(); }
});

test('output modes: both learn to copy the previous word\'s vector from the output alone', () => {
  for (const output of ['value', 'scaled']) {
    const t = scope.createTrainer({ ...base, seed: 1, output });
    try {
      const before = t.evaluate(heldOut);
      t.step(300);
      const after = t.evaluate(heldOut);
      assert.ok(after.loss < 0.5 * before.loss, `${output}: held-out loss ${before.loss} → ${after.loss}`);
      assert.ok(after.outputAccuracy > 0.8, `${output}: output accuracy ${after.outputAccuracy}`);
      assert.ok(after.outputAccuracy > before.outputAccuracy + 0.3, `${output}: ${before.outputAccuracy} → ${after.outputAccuracy}`);
    } finally { t.dispose(); }
  }
});

// The trainer's gradients against routes of their own: 'value' through attentionBackward() with its
// V and dO; 'scaled' by recomputing O = A V W / √d in float64 (A from attention()) for dO and
// dW_extra = (A V)ᵀ dO / √d; both with dO = 2 (O − x_t) / (dIn · count) and dW_v = Gᵀ dV.
for (const score of ['scaled-dot', 'general', 'idw', 'location']) {
  for (const output of ['value', 'scaled']) {
    test(`output '${output}', '${score}': dO, dV, dW_v (and dW_extra) from their definitions`, () => {
      const t = scope.createTrainer({ ...base, score, output, hidden: 5, seed: 2 });
      try {
        t.step(3);
        const examples = [1, 5];
        const g = t.gradients(examples), w = t.weights();
        const params = {};
        if (w.W) params.W = w.W;
        if (w.Wa) params.Wa = w.Wa;
        const dh = t.options.dHead, dF = t.layout.dFeat, s = Math.sqrt(dIn);
        const starts = [];
        for (let e = 0, o = 0; e < train.lengths.length; e++) { starts.push(o); o += train.lengths[e]; }
        const dO = new Float64Array(g.rows * dIn), dWx = new Float64Array(dIn * dIn), dV = new Float64Array(g.rows * dIn);
        let row = 0;
        for (const e of examples) {
          const n = train.lengths[e];
          const q = g.Q.slice(row * dh, (row + n) * dh), k = g.K.slice(row * dh, (row + n) * dh), V = g.V.slice(row * dIn, (row + n) * dIn);
          const A = scope.attention(q, k, V, { nq: n, nk: n, d: dh, dv: dIn, score, ...params, maxKeys: 10, returns: ['weights'] }).weights;
          const AV = new Float64Array(n * dIn);
          for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let c = 0; c < dIn; c++) AV[i * dIn + c] += A[i * n + j] * V[j * dIn + c];
          const O = new Float64Array(n * dIn);
          if (output === 'value') O.set(AV);
          else for (let i = 0; i < n; i++) for (let a = 0; a < dIn; a++) for (let c = 0; c < dIn; c++) O[i * dIn + c] += AV[i * dIn + a] * w.Wextra[a * dIn + c] / s;
          for (let i = 0; i < n; i++) {
            const target = train.targets[starts[e] + i];
            if (target < 0) continue;
            for (let c = 0; c < dIn; c++) dO[(row + i) * dIn + c] = 2 * (O[i * dIn + c] - train.vectors[(starts[e] + target) * dIn + c]) / (dIn * g.count);
          }
          const dOe = Float32Array.from(dO.subarray(row * dIn, (row + n) * dIn));
          if (output === 'value') {
            const b = scope.attentionBackward(q, k, V, dOe, { nq: n, nk: n, d: dh, dv: dIn, score, ...params, maxKeys: 10 });
            close(g.dQ.subarray(row * dh, (row + n) * dh), b.dQ, `${score} dQ`);
            close(g.dK.subarray(row * dh, (row + n) * dh), b.dK, `${score} dK`);
            close(g.dV.subarray(row * dIn, (row + n) * dIn), b.dV, `${score} dV`);
          } else {
            for (let i = 0; i < n; i++) for (let a = 0; a < dIn; a++) for (let c = 0; c < dIn; c++) dWx[a * dIn + c] += AV[i * dIn + a] * dOe[i * dIn + c] / s;
          }
          row += n;
        }
        close(g.dO, dO, `${output} dO`);
        if (output === 'scaled') close(g.grads.Wextra, dWx, 'dW_extra');
        dV.set(g.dV);
        close(g.grads.Wv, matTN(g.features, dV, g.rows, dF, dIn), 'dWv = Gᵀ dV');
      } finally { t.dispose(); }
    });
  }
}

test('output: a bad value is a TypeError naming options.output; the scope keeps working', () => {
  assertThrowsNaming(() => scope.createTrainer({ ...base, output: 'symmetric' }), TypeError, [/options\.output/, /'scaled'/], 'output');
  assertThrowsNaming(() => scope.createTrainer({ ...base, output: 1 }), TypeError, [/options\.output/], 'output number');
  const t = scope.createTrainer({ ...base, output: 'value' });
  try {
    assert.equal(t.step(2), 2, 'a trainer created after the errors works');
    assertThrowsNaming(() => t.evaluate({ ...heldOut, targets: [] }), RangeError, [/^data\.targets/], 'evaluate targets');
    assert.equal(t.step(1), 3, 'and keeps working');
  } finally { t.dispose(); }
});

// Reliability: a learning rate out of range is refused; a step whose loss or update is not finite is
// not taken (before: learningRate 1e20 was accepted and one step left every loss and weight NaN while
// evaluate() still reported an accuracy); gradients() has the same budget as every public call
// (before: 150 copies of a 1,024-token sentence at dIn 4096 aborted the wasm instance).
test('trainer: learningRate range, no silent NaN, a budget on gradients(); the scope keeps working', () => {
  for (const lr of [1e20, 1.5, Infinity, -1]) {
    assertThrowsNaming(() => scope.createTrainer({ ...base, learningRate: lr }), lr === Infinity ? TypeError : RangeError, [/options\.learningRate/], `lr ${lr}`);
  }
  assert.throws(() => scope.createTrainer({ ...base, learningRate: 1e20 }), /<= 1/);
  const ok = scope.createTrainer({ ...base, learningRate: 1 });
  ok.step(3);
  for (const l of ok.losses) assert.ok(Number.isFinite(l));
  ok.dispose();

  // Finite vectors so large that the projected scores overflow float: the first step's loss is not finite.
  const huge = { ...train, vectors: train.vectors.map((x) => x * 1e30) };
  const t = scope.createTrainer({ ...base, data: huge, score: 'dot' });
  try {
    const before = t.weights().Wq;
    assert.throws(() => t.step(1), (e) => e instanceof RangeError && /training diverged at step 1: (the loss is|a gradient is not finite)/.test(e.message) && /learningRate/.test(e.message));
    assert.equal(t.steps, 0, 'the diverged step is not counted');
    assertSameBytes(t.weights().Wq, before, 'the parameters stay those of the last finite step');
  } finally {
    t.dispose();
  }

  const n = 1024, d = 4096;
  const big = scope.createTrainer({ data: { vectors: new Float32Array(n * d).fill(0.01), lengths: [n], targets: Array.from({ length: n }, (_, i) => i - 1) },
    dIn: d, maxLen: n, batch: 1 });
  try {
    assert.throws(() => big.gradients(Array(150).fill(0)), (e) => e instanceof RangeError && /gradients\(\) of 150 sentences/.test(e.message) && /fewer sentences/.test(e.message));
    assert.equal(big.gradients([0]).rows, n, 'one sentence is within the budget');
  } finally {
    big.dispose();
  }
  const again = scope.createTrainer(base);
  again.step(2);
  assert.equal(again.steps, 2);
  again.dispose();
});
