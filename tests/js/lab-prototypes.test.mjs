// Lab part 3 (lab/prototypes-*.js): the attention classifier's full gradient — dK and dV of the
// mean cross-entropy, through attentionOutput() and attentionBackward() — against central finite
// differences of the loss computed in float64 from the plain-JS reference (reference.mjs: scores and
// softmax written from the formulas, not from the C++), for each of the five scoring functions; the
// data generators (shapes, determinism, class balance, the split); Adam on a quadratic; training
// determinism and learning; the comparison's table and its reading.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadScope, rng } from './helpers.mjs';
import { refScores, refSoftmax } from './reference.mjs';
import { DATASETS, DATASET_IDS, makeData, uniformRng } from '../../lab/prototypes-data.js';
import { Adam } from '../../lab/prototypes-adam.js';
import { PrototypeClassifier, SCORES, crossEntropy, decisionGrid, initParams, keyStats, lossAndGradient, nearestPoints }
  from '../../lab/prototypes-model.js';
import { compareScores, comparisonCSV, readComparison } from '../../lab/prototypes-compare.js';

const scope = await loadScope({ preload: false });

// The classifier's loss in float64: logits = softmax(score(X, K)/τ)·V, mean cross-entropy.
function refLoss(score, X, y, n, K, V, m, C, temperature) {
  const { S } = refScores(score, X, K, { nq: n, nk: m, d: 2 });
  const { A } = refSoftmax(S, n, m, { temperature });
  let L = 0;
  for (let i = 0; i < n; i++) {
    const z = new Float64Array(C);
    for (let c = 0; c < C; c++) for (let j = 0; j < m; j++) z[c] += A[i * m + j] * V[j * C + c];
    const max = Math.max(...z);
    let sum = 0;
    for (let c = 0; c < C; c++) sum += Math.exp(z[c] - max);
    L -= z[y[i]] - max - Math.log(sum);
  }
  return L / n;
}

function assertGradient(got, fd, label) {
  let scale = 0;
  for (const x of fd) scale = Math.max(scale, Math.abs(x));
  assert.ok(scale > 1e-4, `${label}: the gradient is not trivially zero (largest ${scale})`);
  for (let i = 0; i < fd.length; i++) {
    const tol = 2e-3 * Math.abs(fd[i]) + 2e-4 * Math.max(scale, 0.01);
    if (!(Math.abs(got[i] - fd[i]) <= tol)) assert.fail(`${label}[${i}]: ${got[i]}, finite differences ${fd[i]} ± ${tol}`);
  }
}

for (const score of SCORES) {
  test(`classifier gradient '${score}': dK and dV of the cross-entropy match float64 finite differences`, () => {
    const r = rng(40 + SCORES.indexOf(score));
    for (const [n, m, C, temperature] of [[7, 4, 3, 1], [5, 6, 2, 0.5], [9, 3, 4, 2]]) {
      const X = r.floats(2 * n, 1.5), K = r.floats(2 * m, 1.5), V = r.floats(m * C, 1);
      const y = Uint8Array.from({ length: n }, (_, i) => i % C);
      const o = { score, m, classes: C, temperature };
      const got = lossAndGradient(scope, X, y, n, K, V, o);
      const K64 = Float64Array.from(K), V64 = Float64Array.from(V);
      const L = () => refLoss(score, X, y, n, K64, V64, m, C, temperature);
      assert.ok(Math.abs(got.loss - L()) < 1e-5 * Math.max(1, L()), `${score}: loss ${got.loss} vs reference ${L()}`);
      const h = 1e-5;
      for (const [name, P, g] of [['dK', K64, got.dK], ['dV', V64, got.dV]]) {
        const fd = new Float64Array(P.length);
        for (let i = 0; i < P.length; i++) {
          const x = P[i];
          P[i] = x + h; const up = L();
          P[i] = x - h; const down = L();
          P[i] = x;
          fd[i] = (up - down) / (2 * h);
        }
        assertGradient(g, fd, `${score} n=${n} m=${m} C=${C} τ=${temperature} ${name}`);
      }
    }
  });
}

test('crossEntropy: loss, accuracy and dZ = (softmax − onehot)/n', () => {
  const Z = Float32Array.from([2, 0, 0, 0, 1, 3]);   // 2 points, 3 classes
  const y = Uint8Array.from([0, 1]);
  const ce = crossEntropy(Z, y, 2, 3, true);
  const p0 = [Math.exp(2), 1, 1].map((x) => x / (Math.exp(2) + 2));
  const p1 = [1, Math.exp(1), Math.exp(3)].map((x) => x / (1 + Math.exp(1) + Math.exp(3)));
  assert.ok(Math.abs(ce.loss - (-Math.log(p0[0]) - Math.log(p1[1])) / 2) < 1e-12);
  assert.equal(ce.accuracy, 0.5);
  const want = [p0[0] - 1, p0[1], p0[2], p1[0], p1[1] - 1, p1[2]].map((x) => x / 2);
  want.forEach((w, i) => assert.ok(Math.abs(ce.dZ[i] - w) < 1e-7, `dZ[${i}]`));
});

test('data: shapes, determinism, class balance and a stratified split for every data set', () => {
  for (const d of DATASETS) {
    for (const n of [20, 101, 400]) {
      const a = makeData({ dataset: d.id, n, noise: 0.1, seed: 7 });
      const b = makeData({ dataset: d.id, n, noise: 0.1, seed: 7 });
      const c = makeData({ dataset: d.id, n, noise: 0.1, seed: 8 });
      assert.equal(a.classes, d.classes);
      assert.equal(a.X.length, 2 * n);
      assert.equal(a.y.length, n);
      assert.ok(a.X.every(Number.isFinite));
      assert.deepEqual(a.X, b.X, `${d.id}: same seed, same points`);
      assert.deepEqual(a.train.X, b.train.X, `${d.id}: same seed, same split`);
      assert.notDeepEqual(a.X, c.X, `${d.id}: another seed, other points`);
      assert.equal(a.train.n + a.test.n, n);
      assert.equal(a.train.X.length, 2 * a.train.n);
      const count = (ys) => { const k = new Array(d.classes).fill(0); for (const v of ys) k[v]++; return k; };
      const all = count(a.y);
      assert.ok(Math.max(...all) - Math.min(...all) <= 1, `${d.id} n=${n}: classes ${all}`);
      const tr = count(a.train.y), te = count(a.test.y);
      for (let k = 0; k < d.classes; k++) {
        assert.equal(tr[k] + te[k], all[k]);
        assert.equal(tr[k], Math.round(0.7 * all[k]), `${d.id} n=${n} class ${k}: 70% of it trains`);
      }
      // Every point of the data set is in exactly one of the two sets.
      const key = (X, i) => `${X[2 * i]},${X[2 * i + 1]}`;
      const whole = new Set(Array.from({ length: n }, (_, i) => key(a.X, i)));
      const parts = [...Array.from({ length: a.train.n }, (_, i) => key(a.train.X, i)), ...Array.from({ length: a.test.n }, (_, i) => key(a.test.X, i))];
      assert.equal(new Set(parts).size, whole.size);
      for (const p of parts) assert.ok(whole.has(p));
    }
  }
  // Noise 0: every shape lies where it should.
  const xor = makeData({ dataset: 'xor', n: 200, noise: 0, seed: 1 });
  for (let i = 0; i < 200; i++) assert.equal(xor.X[2 * i] * xor.X[2 * i + 1] > 0 ? 0 : 1, xor.y[i], 'xor: class 0 where x and y share a sign');
  const moons = makeData({ dataset: 'moons', n: 100, noise: 0, seed: 1 });
  for (let i = 0; i < 100; i++) {
    const [cx, cy] = moons.y[i] === 0 ? [-0.5, -0.25] : [0.5, 0.25];
    assert.ok(Math.abs(Math.hypot(moons.X[2 * i] - cx, moons.X[2 * i + 1] - cy) - 1) < 1e-6, 'moons: on a unit half circle');
  }
  assert.throws(() => makeData({ dataset: 'rings', n: 100, seed: 1 }), (e) => e instanceof RangeError && /^dataset/.test(e.message));
  assert.throws(() => makeData({ dataset: 'blobs', n: 5, seed: 1 }), (e) => e instanceof RangeError && /^n:/.test(e.message));
  assert.throws(() => makeData({ dataset: 'blobs', n: 100, seed: -1 }), (e) => e instanceof RangeError && /^seed/.test(e.message));
  assert.throws(() => makeData({ dataset: 'blobs', n: 100, seed: 1, noise: 2 }), (e) => e instanceof RangeError && /^noise/.test(e.message));
  assert.deepEqual(DATASET_IDS, ['blobs', 'moons', 'spirals', 'xor']);
  // The uniform generator: in [0, 1), mean about 1/2.
  const u = uniformRng(3);
  let s = 0;
  for (let i = 0; i < 10000; i++) { const x = u(); assert.ok(x >= 0 && x < 1); s += x; }
  assert.ok(Math.abs(s / 10000 - 0.5) < 0.02);
});

test('Adam minimises a quadratic, and its first step is lr·sign(g)', () => {
  const p = Float64Array.from([3, -2, 0.5]);
  const target = [1, 1, -1], scale = [1, 10, 0.1];
  const adam = new Adam([p], { learningRate: 0.1 });
  const grad = () => Float64Array.from(p, (x, i) => 2 * scale[i] * (x - target[i]));
  const before = Float64Array.from(p);
  adam.step([grad()]);
  // Bias correction: the first update is lr · g / (|g| + ε) per coordinate.
  for (let i = 0; i < 3; i++) assert.ok(Math.abs(before[i] - p[i] - 0.1 * Math.sign(before[i] - target[i])) < 1e-6, `first step ${i}`);
  for (let t = 0; t < 2000; t++) adam.step([grad()]);
  for (let i = 0; i < 3; i++) assert.ok(Math.abs(p[i] - target[i]) < 1e-3, `p[${i}] = ${p[i]}, want ${target[i]}`);
  assert.throws(() => new Adam([p], { learningRate: 0 }), RangeError);
  assert.throws(() => adam.step([new Float64Array(2)]), RangeError);
});

test('the classifier: same seed, same bytes; training raises accuracy on blobs; keyStats and the grid', () => {
  const d = makeData({ dataset: 'blobs', n: 300, noise: 0.1, seed: 2 });
  const o = { score: 'idw', m: 8, classes: d.classes, temperature: 1, learningRate: 0.05, seed: 3 };
  const a = new PrototypeClassifier(scope, d.train, o), b = new PrototypeClassifier(scope, d.train, o);
  const before = a.evaluate(d.test);
  a.step(150);
  b.step(100); b.step(50);
  assert.deepEqual(a.K, b.K, 'keys: the same bytes however the steps are split');
  assert.deepEqual(a.V, b.V);
  assert.deepEqual(a.losses, b.losses);
  assert.equal(a.steps, 150);
  const after = a.evaluate(d.test);
  assert.ok(after.accuracy > 0.9 && after.accuracy > before.accuracy, `test accuracy ${before.accuracy} → ${after.accuracy}`);
  assert.ok(a.losses[149] < 0.5 * a.losses[0], `loss ${a.losses[0]} → ${a.losses[149]}`);
  // The same start for every scoring function.
  const c = new PrototypeClassifier(scope, d.train, { ...o, score: 'dot' });
  assert.deepEqual(c.K, initParams(o).K);
  // nearestPoints / keyStats against a direct search.
  const ks = keyStats(a.K, a.V, o, d.train);
  const np = nearestPoints(a.K, 8, d.train.X, d.train.n);
  for (let j = 0; j < 8; j++) {
    let best = Infinity;
    for (let i = 0; i < d.train.n; i++) best = Math.min(best, Math.hypot(a.K[2 * j] - d.train.X[2 * i], a.K[2 * j + 1] - d.train.X[2 * i + 1]));
    assert.ok(Math.abs(np.dist[j] - best) < 1e-12);
  }
  assert.ok(Math.abs(ks.mean - np.dist.reduce((s, x) => s + x, 0) / 8) < 1e-12);
  assert.ok(ks.agree >= 0 && ks.agree <= 1);
  // The grid: its class at a cell is the argmax of the network's logits at that cell's centre.
  const g = decisionGrid(scope, a.K, a.V, o, 10, 2);
  assert.equal(g.cls.length, 100);
  const at = Float32Array.from([-2 + 0.2 + 3 * 0.4, 2 - 0.2 - 7 * 0.4]);   // row 7, column 3
  const z = scope.attentionOutput(at, a.K, a.V, { nq: 1, nk: 8, d: 2, dv: 3, score: 'idw', temperature: 1 });
  assert.equal(g.cls[7 * 10 + 3], z.indexOf(Math.max(...z)));
  assert.ok(g.conf.every((p) => p >= 1 / 3 - 1e-6 && p <= 1));
  assert.throws(() => new PrototypeClassifier(scope, d.train, { ...o, score: 'general' }), (e) => e instanceof RangeError && /^score/.test(e.message));
  assert.throws(() => new PrototypeClassifier(scope, d.train, { ...o, m: 0 }), (e) => e instanceof RangeError && /^m:/.test(e.message));
});

test('the comparison: five rows from one start, its CSV, and a reading that follows the numbers', async () => {
  const d = makeData({ dataset: 'moons', n: 120, noise: 0.1, seed: 1 });
  const o = { m: 6, temperature: 1, learningRate: 0.05, seed: 1 };
  const calls = [];
  const c = await compareScores(scope, d, { ...o, classes: d.classes }, 120, { grid: 8, between: async (done, total, s) => { calls.push([done, total, s]); } });
  assert.deepEqual(c.results.map((r) => r.score), SCORES);
  assert.equal(calls[calls.length - 1][0], calls[calls.length - 1][1], 'progress reaches the total');
  const mean0 = c.results[0].keys.mean0;
  for (const r of c.results) {
    assert.equal(r.keys.mean0, mean0, 'the same starting keys for every function');
    assert.ok(r.test.accuracy >= 0 && r.test.accuracy <= 1);
    assert.equal(r.grid.cls.length, 64);
  }
  const again = await compareScores(scope, d, { ...o, classes: d.classes }, 120);
  assert.deepEqual(again.results.map((r) => [r.test.accuracy, r.keys.mean]), c.results.map((r) => [r.test.accuracy, r.keys.mean]), 'deterministic');
  const rows = comparisonCSV(c).trim().split('\n').map((l) => l.split(','));
  assert.equal(rows.length, 6);
  assert.equal(rows[0][0], 'score');
  assert.equal(rows[0].length, rows[1].length);
  const i = rows[0].indexOf('key_to_nearest_mean');
  assert.equal(Number(rows[5][i]).toFixed(6), c.results[4].keys.mean.toFixed(6));
  // The reading follows the numbers it is given, whichever way they fall (cosine apart: its keys' length is not learned).
  const fake = (medians, onData) => ({ settings: c.settings, results: SCORES.map((s, k) => ({ ...c.results[k],
    keys: { ...c.results[k].keys, median: medians[k], mean: 2 * medians[k], median0: 0.3, spacing: 0.05, onData: s === 'idw' ? onData : 0 } })) });
  const onSix = readComparison(fake([1, 1.2, 0.01, 0.5, 0.05], 4 / 6)).join(' ');
  assert.match(onSix, /Here 4 of the 6 idw keys ended on the data \(within 0\.10 of a training point, 2× the points' spacing\), and their median distance, 0\.05, is the smallest of the learned keys \(neg-euclidean next at 0\.50\): in line with what McCarter/);
  assert.match(onSix, /2 idw keys ended away from the data/);
  assert.match(onSix, /Cosine is left out of that ranking/);
  const weak = readComparison(fake([1, 1.2, 0.01, 0.5, 0.3], 2 / 6)).join(' ');
  assert.match(weak, /ended nearer the data than the other learned keys \(median 0\.30; neg-euclidean next at 0\.50\), but only 2 of the 6 on it/);
  const far = readComparison(fake([1, 1.2, 0.01, 0.1, 0.5], 1 / 6)).join(' ');
  assert.match(far, /idw keys did not end nearest the data \(median 0\.50; neg-euclidean is nearer at 0\.10; 1 of the 6 idw keys/);
  assert.match(far, /does not show what McCarter \(2023\) reports/);
  const tie = { settings: c.settings, results: c.results.map((x) => ({ ...x, test: { ...x.test, accuracy: 1 } })) };
  assert.match(readComparison(tie)[0], /all 5 functions reach 100\.0%/);
});
