// scope.attentionOutput() (the fused, output-only path) and attention()'s `returns` option, against
// the float64 reference: every score, masks, padding, temperatures and shapes that cross the
// kernel's tiles; the same errors as attention(); what `returns` leaves out is not in the result;
// memory O(n·d): n = 16,384 at d = 64 inside 64 MB of wasm memory, and 65,536 keys work.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertClose, assertThrowsNaming, loadScope, rng, weightsFor } from './helpers.mjs';
import { SCORE_NAMES, propagateScoreError, refMatmul, refScores, refSoftmax } from './reference.mjs';

const scope = await loadScope();

// The reference chain: scores → masked softmax → A·V, each bound carried into the next (the bound on
// A·V adds Σ_j tol(a_ij)·|v_jc| for the weights' own error).
function refOutput(name, Q, K, V, o) {
  const { nq, nk, dv } = o;
  const S = refScores(name, Q, K, o);
  const A = refSoftmax(S.S, nq, nk, o);
  const atol = propagateScoreError(A.A, S.tol, nq, nk, o.temperature ?? 1, A.tol);
  const O = refMatmul(A.A, V, nq, nk, dv);
  const tol = Float64Array.from(O.tol);
  for (let i = 0; i < nq; i++)
    for (let c = 0; c < dv; c++) {
      let e = 0;
      for (let j = 0; j < nk; j++) e += atol[i * nk + j] * Math.abs(V[j * dv + c]);
      tol[i * dv + c] += e;
    }
  return { O: O.O, tol };
}


describe('attentionOutput()', () => {
  // 4-row tiles, 8-key strips, 128-key panels and 64-row query blocks: odd sizes on both sides of each.
  const shapes = [
    { nq: 1, nk: 1, d: 1, dv: 1 },
    { nq: 5, nk: 9, d: 7, dv: 3, mask: 'causal', temperature: 0.5 },
    { nq: 67, nk: 131, d: 19, dv: 9, keyPadding: true, temperature: 2 },
    { nq: 70, nk: 70, d: 64, dv: 64, mask: 'causal', keyPadding: true },
  ];
  for (const name of SCORE_NAMES) {
    test(`${name}: equals the float64 reference and attention().output, masks and padding included`, () => {
      const r = rng(300 + SCORE_NAMES.indexOf(name));
      for (const sh of shapes) {
        const { nq, nk, d, dv } = sh;
        const dk = ['general', 'additive', 'location'].includes(name) ? d + 2 : d;
        const Q = r.floats(nq * d), K = r.floats(nk * dk), V = r.floats(nk * dv);
        const keyPadding = sh.keyPadding ? Array.from({ length: nk }, (_, j) => j % 5 === 3) : undefined;
        const opts = { nq, nk, d, dk, dv, score: name, temperature: sh.temperature ?? 1, mask: sh.mask ?? 'none',
          ...(keyPadding ? { keyPadding } : {}), ...weightsFor(name, r, d, dk, nk) };
        const out = scope.attentionOutput(Q, K, V, opts);
        assert.ok(out instanceof Float32Array);
        assert.equal(out.length, nq * dv);
        const ref = refOutput(name, Q, K, V, opts);
        const label = `${name} ${nq}x${nk} d=${d} dv=${dv}`;
        assertClose(out, ref.O, ref.tol, `${label}: attentionOutput`);
        const full = scope.attention(Q, K, V, opts).output;
        assertClose(out, full, ref.tol.map((t) => 2 * t), `${label}: attentionOutput vs attention()`);
        assertClose(scope.attentionOutput(Q, K, V, { ...opts, variant: 'scalar' }), ref.O, ref.tol, `${label}: scalar variant`);
      }
    });
  }

  test('a fully masked row is zeros, as in attention()', () => {
    const r = rng(5);
    const nq = 3, nk = 4, d = 8, dv = 2, Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv);
    const out = scope.attentionOutput(Q, K, V, { nq, nk, d, dv, mask: 'causal', keyPadding: [1, 0, 0, 0] });
    assert.deepEqual(Array.from(out.subarray(0, dv)), [0, 0]);
    assert.ok(out.subarray(dv).every((x) => Number.isFinite(x) && x !== 0));
  });

  test('bad input: the same errors as attention(), and the instance keeps working', () => {
    const r = rng(6);
    const nq = 3, nk = 4, d = 8, dv = 2, Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv);
    const base = { nq, nk, d, dv };
    const before = scope.attentionOutput(Q, K, V, base);
    assertThrowsNaming(() => scope.attentionOutput(Q, K, V.subarray(1), base), RangeError, [/\bV\b/], 'V too short');
    assertThrowsNaming(() => scope.attentionOutput(Q, K, V, { nq, nk, d }), TypeError, [/\bdv\b/], 'dv missing');
    assertThrowsNaming(() => scope.attentionOutput(Q, K, V, { ...base, temperature: 0 }), RangeError, [/temperature/], 'temperature 0');
    assertThrowsNaming(() => scope.attentionOutput(Q, K, V, { ...base, score: 'nope' }), TypeError, [/score/], 'unknown score');
    assertThrowsNaming(() => scope.attentionOutput(Q, K, V, { ...base, returns: ['weights'] }), TypeError, [/returns/], 'returns is attention()\'s');
    const bad = Q.slice(); bad[2] = NaN;
    assertThrowsNaming(() => scope.attentionOutput(bad, K, V, base), RangeError, [/\bQ\b/, /element 2/], 'NaN in Q');
    assert.deepEqual(scope.attentionOutput(Q, K, V, base), before);
  });
});

describe("attention({ returns })", () => {
  const r = rng(7);
  const nq = 6, nk = 10, d = 16, dv = 4, Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv);
  const base = { nq, nk, d, dv, temperature: 0.8, mask: 'causal' };
  const all = scope.attention(Q, K, V, base);

  test('what is not asked for is not in the result; what is asked for is unchanged', () => {
    const w = scope.attention(Q, K, V, { ...base, returns: ['weights'] });
    assert.deepEqual(Object.keys(w).filter((k) => w[k] !== undefined).sort(), ['variant', 'weights']);
    assert.deepEqual(w.weights, all.weights);
    const so = scope.attention(Q, K, V, { ...base, returns: ['scores', 'output'] });
    assert.equal(so.weights, undefined);
    assert.equal(so.stats, undefined);
    assert.deepEqual(so.scores, all.scores);
    assertClose(so.output, all.output, 1e-6, 'output through the fused path');
    const st = scope.attention(Q, K, V, { ...base, returns: ['stats'] });
    assert.deepEqual(st.stats, all.stats);
    assert.equal(st.weights, undefined);
  });

  test('bad returns name the option', () => {
    assertThrowsNaming(() => scope.attention(Q, K, V, { ...base, returns: 'weights' }), TypeError, [/returns/], 'not an array');
    assertThrowsNaming(() => scope.attention(Q, K, V, { ...base, returns: ['weight'] }), TypeError, [/returns/, /weights/], 'unknown name');
    assertThrowsNaming(() => scope.attention(Q, K, V, { ...base, returns: [] }), RangeError, [/returns/], 'empty');
  });
});

describe('long sequences (memory O(n·d))', () => {
  test('n = 16,384 at d = 64 (causal self-attention) stays within 64 MB of wasm memory', async () => {
    const fresh = await loadScope();
    const n = 16384, d = 64, r = rng(8);
    const Q = r.floats(n * d), K = r.floats(n * d), V = r.floats(n * d);
    const out = fresh.attentionOutput(Q, K, V, { nq: n, nk: n, d, dv: d, mask: 'causal' });
    const heap = fresh._m.HEAPU8.buffer.byteLength;
    assert.ok(heap <= 64 * 1024 * 1024, `wasm memory ${heap} bytes`);
    // Spot checks against the float64 reference: the first row (one key), a middle and the last row.
    for (const i of [0, 8191, n - 1]) {
      const nk = i + 1;
      const ref = refOutput('scaled-dot', Q.subarray(i * d, (i + 1) * d), K.subarray(0, nk * d), V.subarray(0, nk * d), { nq: 1, nk, d, dv: d });
      assertClose(out.subarray(i * d, (i + 1) * d), ref.O, ref.tol, `row ${i}`);
    }
  });

  test('65,536 keys work (a few queries, checked against float64)', () => {
    const nq = 3, nk = 65536, d = 64, dv = 8, r = rng(9);
    const Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv);
    const opts = { nq, nk, d, dv, temperature: 0.25 };
    const ref = refOutput('scaled-dot', Q, K, V, opts);
    assertClose(scope.attentionOutput(Q, K, V, opts), ref.O, ref.tol, '65,536 keys');
  });
});
