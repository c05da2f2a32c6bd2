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
      const params = {};
      if (w.W) params.W = w.W;
      if (w.W1) Object.assign(params, { W1: w.W1, W2: w.W2, v: w.v });
      if (w.Wa) params.Wa = w.Wa;
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
