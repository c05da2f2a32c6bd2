// attention() and attentionOutput() take one of two routes through the heap (bindings/scope-class.mjs,
// _attentionBlock): a block of at most 64 KiB is allocated first and the export checks the call's
// cost, the inputs' finiteness and computes in one wasm call; a larger block has its cost checked by
// its own call before anything is allocated. Both routes must give the same numbers, the same errors,
// and leave nothing allocated.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertSameBytes, assertThrowsNaming, loadScope, rng, weightsFor } from './helpers.mjs';
import { SCORE_NAMES } from './reference.mjs';

const scope = await loadScope();
const heapBytes = () => scope._m.HEAPU8.buffer.byteLength;
// K and V of 64 keys and Q of 128 queries (d = dv = 64) take 64 KiB before any output: the large
// route; a share of 16 query rows with all four outputs, 48.2 KiB: the small route.
const nq = 128, nk = 64, d = 64, dv = 64, ROWS = 16;
const r = rng(2025);
const Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv);

function sameResult(got, want, label) {
  assert.deepEqual(Object.keys(got), Object.keys(want), `${label}: keys`);
  for (const part of ['scores', 'weights', 'output']) if (want[part]) assertSameBytes(got[part], want[part], `${label}: ${part}`);
  if (want.stats) for (const s of ['entropy', 'maxWeight', 'argmax']) assertSameBytes(got.stats[s], want.stats[s], `${label}: stats.${s}`);
  assert.equal(got.variant, want.variant);
}
// Rows [i0, i1) of a whole result (query rows are computed independently: the pool relies on it too).
function rowsOf(result, i0, i1) {
  const rows = (a, w) => a.subarray(i0 * w, i1 * w);
  const out = {};
  if (result.scores) out.scores = rows(result.scores, nk);
  if (result.weights) out.weights = rows(result.weights, nk);
  if (result.output) out.output = rows(result.output, dv);
  if (result.stats) {
    const s = result.stats;
    out.stats = { entropy: s.entropy.subarray(i0, i1), maxWeight: s.maxWeight.subarray(i0, i1), argmax: s.argmax.subarray(i0, i1) };
  }
  out.variant = result.variant;
  return out;
}

test('small and large calls give the same numbers, for every score and returns choice', () => {
  for (const score of SCORE_NAMES) {
    const weights = weightsFor(score, rng(7), d, d, nk);
    for (const returns of [undefined, ['weights'], ['output'], ['stats', 'scores']]) {
      const options = { nk, d, dv, score, ...weights, ...(returns ? { returns } : {}) };
      const whole = scope.attention(Q, K, V, { ...options, nq });                      // 96 KiB: the large route
      for (let i0 = 0; i0 < nq; i0 += ROWS) {
        const part = scope.attention(Q.subarray(i0 * d, (i0 + ROWS) * d), K, V, { ...options, nq: ROWS });  // the small route
        sameResult(part, rowsOf(whole, i0, i0 + ROWS), `${score} ${returns ?? 'all'} rows ${i0}..`);
      }
    }
    const options = { nk, d, dv, score, ...weights };
    const whole = scope.attentionOutput(Q, K, V, { ...options, nq });
    for (let i0 = 0; i0 < nq; i0 += ROWS) {
      const part = scope.attentionOutput(Q.subarray(i0 * d, (i0 + ROWS) * d), K, V, { ...options, nq: ROWS });
      assertSameBytes(part, whole.subarray(i0 * dv, (i0 + ROWS) * dv), `${score} attentionOutput rows ${i0}..`);
    }
  }
});

test('a non-finite input is named the same way on both routes', () => {
  for (const [rows, label] of [[ROWS, 'small'], [nq, 'large']]) {
    for (const [name, at] of [['Q', 5], ['K', 3 * d + 1], ['V', nk * dv - 1]]) {
      const arrays = { Q: Q.slice(0, rows * d), K: K.slice(), V: V.slice() };
      arrays[name][at] = name === 'K' ? -Infinity : NaN;
      const message = `${name}: element ${at} is ${arrays[name][at]}; every element must be a finite number`;
      for (const call of ['attention', 'attentionOutput']) {
        const e = assertThrowsNaming(() => scope[call](arrays.Q, arrays.K, arrays.V, { nq: rows, nk, d, dv }), RangeError, [], `${label} ${call} ${name}`);
        assert.equal(e.message, message);
      }
    }
  }
});

// additive asked only for the row statistics: 36 KiB in the heap, far more work than one call may do.
const tooMuch = () => {
  const h = 1024, n = 1024;
  return [new Float32Array(n), new Float32Array(n), new Float32Array(n),
    { nq: n, nk: n, d: 1, dv: 1, score: 'additive', W1: new Float32Array(h), W2: new Float32Array(h), v: new Float32Array(h), returns: ['stats'] }];
};
const WORK = /work: attention of 1024 queries x 1024 keys needs 3\.46e\+10 multiply-adds, more than the limit of 4\.29e\+09 per call \(about 2 s in wasm\); ask only for the output/;

test('a small call over the work budget is refused by the export with the cost message, nothing left allocated', () => {
  const [q, k, v, options] = tooMuch();
  const inUse = scope.memoryInUse(), heap = heapBytes();
  assertThrowsNaming(() => scope.attention(q, k, v, options), RangeError, [WORK], 'attention');
  // The cost comes before the finiteness of the inputs, as when it was checked by its own call.
  const bad = q.slice(); bad[0] = NaN;
  assertThrowsNaming(() => scope.attention(bad, k, v, options), RangeError, [WORK], 'cost before finiteness');
  assert.equal(scope.memoryInUse(), inUse, 'bytes in use');
  assert.equal(heapBytes(), heap, 'heap size');
});

test('when the heap cannot give a small block, the cost is checked first, then the allocation refused', () => {
  const m = scope._m, malloc = m._malloc;
  m._malloc = () => 0;
  try {
    const [q, k, v, options] = tooMuch();
    assertThrowsNaming(() => scope.attention(q, k, v, options), RangeError, [WORK], 'over budget');
    // Q 4 KiB, K and V 16 KiB each, scores and weights 4 KiB each, output 4 KiB, statistics 192 bytes.
    assertThrowsNaming(() => scope.attention(Q.subarray(0, ROWS * d), K, V, { nq: ROWS, nk, d, dv }), RangeError,
      [/^memory: the wasm heap could not grow by 49344 bytes \(the engine refused memory\); use smaller inputs$/], 'within budget');
  } finally {
    m._malloc = malloc;
  }
  sameResult(scope.attention(Q.subarray(0, ROWS * d), K, V, { nq: ROWS, nk, d, dv }),
    rowsOf(scope.attention(Q, K, V, { nq, nk, d, dv }), 0, ROWS), 'working afterwards');
});

test('3,000 small, large and refused calls leave the bytes in use and the heap where they were', () => {
  const small = Q.subarray(0, ROWS * d), bad = small.slice(); bad[7] = NaN;
  const [q, k, v, options] = tooMuch();
  const calls = [
    () => scope.attention(small, K, V, { nq: ROWS, nk, d, dv }),
    () => scope.attention(Q, K, V, { nq, nk, d, dv, mask: 'causal', keyPadding: [1, ...new Array(nk - 1).fill(0)] }),
    () => scope.attentionOutput(small, K, V, { nq: ROWS, nk, d, dv, score: 'cosine' }),
    () => assert.throws(() => scope.attention(bad, K, V, { nq: ROWS, nk, d, dv }), /^RangeError: Q: element 7 is NaN/),
    () => assert.throws(() => scope.attention(q, k, v, options), WORK),
    () => assert.throws(() => scope.attention(small, K, V, { nq: ROWS, nk, d, dv, score: 'location' }), /^TypeError: options\.Wa: /),
  ];
  for (let i = 0; i < 2 * calls.length; i++) calls[i % calls.length]();
  const inUse = scope.memoryInUse(), heap = heapBytes();
  for (let i = 0; i < 3000; i++) calls[i % calls.length]();
  assert.equal(scope.memoryInUse(), inUse, 'bytes in use');
  assert.equal(heapBytes(), heap, 'heap size');
});
