// Issue 15 through the JS API: sizes are measured with the engine's own typed-array getters and
// checked before anything is allocated (finding 1), calls beyond the work and memory budgets are
// refused up front (finding 2), finite input gives finite numbers (finding 3), and a heap that
// cannot grow gives a RangeError, after which the instance keeps working.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertSameBytes, loadScope } from './helpers.mjs';

const scope = await loadScope();
const words = (n) => Array.from({ length: n }, (_, i) => (i % 3 ? 'cat' : 'the')).join(' ');
const SENT = 'The cat sat on the mat.';
const baseline = () => ({
  nearest: scope.nearest('king', 2).map((x) => `${x.word} ${x.cosine}`).join(', '),
  weights: scope.attend({ query: SENT, heads: 2, projection: 'random' }).weights,
});
const before = baseline();
const memoryAtStart = scope.memoryInUse();

function intact(label) {
  const now = baseline();
  assert.equal(now.nearest, before.nearest, `${label}: nearest('king') unchanged`);
  assertSameBytes(now.weights, before.weights, `${label}: attend() unchanged`);
  assert.equal(scope.memoryInUse(), memoryAtStart, `${label}: no wasm memory leaked`);
}

test('finding 1: an output of 2^32 bytes is refused, not wrapped; the heap stays intact', () => {
  const a = new Float32Array(32768).fill(1);
  for (let i = 0; i < 5; i++) {
    assert.throws(() => scope.scores(a, a, { nq: 32768, nk: 32768, d: 1 }),
      (e) => e instanceof RangeError && /^memory: .*32768 queries x 32768 keys.*512 MiB/.test(e.message), 'scores');
    const q = new Float32Array(65536).fill(1), k = new Float32Array(1).fill(1), v = new Float32Array(65536).fill(1);
    assert.throws(() => scope.attention(q, k, v, { nq: 65536, nk: 1, d: 1, dv: 65536 }),
      (e) => e instanceof RangeError && /^memory: /.test(e.message), 'attention');
  }
  intact('after 10 refused calls');
});

test('finding 1: typed arrays are measured by the engine, not by their own properties', () => {
  const liar = new Float32Array(1 << 16).fill(0.5);
  Object.defineProperty(liar, 'length', { value: 1 });
  Object.defineProperty(liar, 'byteLength', { value: 4 });
  assert.throws(() => scope.scores(liar, liar, { nq: 1, nk: 1, d: 1 }),
    (e) => e instanceof RangeError && /Q: expected 1 numbers .*got 65536/.test(e.message));
  const small = new Float32Array(1).fill(0.5);
  const bigLiar = new Float32Array(1).fill(0.5);
  Object.defineProperty(bigLiar, 'length', { value: 1 << 20 });
  assert.throws(() => scope.scores(bigLiar, small, { nq: 1 << 20, nk: 1, d: 1 }), RangeError);
  // A Proxy is not a typed array to the engine's getter.
  assert.throws(() => scope.scores(new Proxy(new Float32Array(4), {}), small, { nq: 4, nk: 1, d: 1 }), TypeError);
  // A lie in the other direction changes nothing: the engine's length (100) is the one used.
  const ones = Object.defineProperty(new Float32Array(100).fill(1), 'length', { value: 1 << 30 });
  assert.equal(scope.nearest(ones, 3).length, 3);
  intact('after lying arrays');
});

test('finding 2: calls beyond the work and memory budgets are refused up front', () => {
  const refusals = [
    () => scope.attend({ query: words(512), score: 'additive', heads: 100, hidden: 4096 }),
    () => scope.attend({ query: words(4096), maxTokens: 4096, heads: 10, projection: 'random' }),
    () => scope.attend({ query: words(4096), maxTokens: 4096, heads: 20, projection: 'random' }),
  ];
  for (const call of refusals) {
    assert.throws(call, (e) => e instanceof RangeError && /^(memory|work): .*; use fewer heads/.test(e.message));
  }
  const n = 256, h = 65536, d = 2;
  const X = new Float32Array(n * d).fill(0.1), W = new Float32Array(h * d).fill(0.01), v = new Float32Array(h).fill(1);
  assert.throws(() => scope.scores(X, X, { nq: n, nk: n, d, score: 'additive', W1: W, W2: W, v, hidden: h }),
    (e) => e instanceof RangeError && /^work: .*limit of 4\.29e\+09.*smaller hidden size/.test(e.message));
  assert.throws(() => scope.attend({ query: 'a '.repeat(600000) }),
    (e) => e instanceof RangeError && /1 MiB/.test(e.message));
  intact('after refused calls');
});

test('finding 3: finite input anywhere in the float range gives finite, right numbers', () => {
  const one = (x) => new Float32Array([x]);
  assert.equal(scope.scores(one(1e20), one(1e20), { nq: 1, nk: 1, d: 1, score: 'cosine' })[0], 1);
  const q = new Float32Array([1e4, 0]), k = new Float32Array([1e4, 1]);
  assert.equal(scope.scores(q, k, { nq: 1, nk: 1, d: 2, score: 'neg-euclidean' })[0], -1);
  const z = new Float32Array(2), keys = new Float32Array([10, 0, 0, 20]);
  const idw = scope.scores(z, keys, { nq: 1, nk: 2, d: 2, score: 'idw', p: 50 });
  assert.ok(Math.abs(idw[0] + 50 * Math.log(10)) < 1e-3 && Math.abs(idw[1] + 50 * Math.log(20)) < 1e-3, `${idw}`);
  const w = scope.attention(z, keys, new Float32Array([1, 2]), { nq: 1, nk: 2, d: 2, dv: 1, score: 'idw', p: 50 }).weights;
  assert.ok(w[0] > 0.99 && w[0] + w[1] > 0.999, `weights ${w}`);
  for (const x of [1e-40, 3e38, -1e-45]) {
    const near = scope.nearest(new Float32Array(100).fill(x), 3);
    assert.equal(near.length, 3, `nearest of ${x}`);
    for (const { cosine } of near) assert.ok(Number.isFinite(cosine) && Math.abs(cosine) <= 1 + 1e-6);
  }
  intact('after extreme values');
});

test('a heap that cannot grow gives a RangeError, and the instance keeps working', async () => {
  const own = await loadScope();
  const m = own._m;
  const hog = [];
  // Take the wasm heap up to its 2 GiB maximum in 64 MiB blocks (malloc returns 0 when it cannot).
  for (let p; (p = m._malloc(64 << 20)) !== 0;) hog.push(p);
  try {
    const a = new Float32Array(4096).fill(1);
    assert.throws(() => own.scores(a, a, { nq: 4096, nk: 4096, d: 1 }),   // 64 MiB of output
      (e) => e instanceof RangeError && /^memory: /.test(e.message));
    assert.throws(() => own.attend({ query: words(1500), maxTokens: 4096, heads: 4, projection: 'random' }),   // 72 MiB
      (e) => e instanceof RangeError && /^memory: /.test(e.message));
  } finally {
    for (const p of hog) m._free(p);
  }
  const a = new Float32Array(4096).fill(1);
  assert.equal(own.scores(a, a, { nq: 4096, nk: 4096, d: 1 }).length, 4096 * 4096);
  assert.ok(own.nearest('king', 2).length === 2);
});
