// scope.attentionBackward(): every gradient against central finite differences of the attention
// forward, computed in float64 from the plain-JS reference (reference.mjs: scores, masked softmax,
// A·V, written from the formulas, not from the C++), for every scoring function, with a causal mask,
// key padding and τ ≠ 1; one case also against differences of scope.attention() itself (float32, so
// with a coarser step and tolerance). Then the argument checks (TypeError / RangeError naming the
// argument), the limits, and that the instance keeps working.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertThrowsNaming, loadScope, rng } from './helpers.mjs';
import { SCORE_NAMES, refScores, refSoftmax } from './reference.mjs';

const scope = await loadScope({ preload: false });

// L = Σ dO ⊙ O in float64 for the score `name` with parameters `p` (arrays may be Float64Array).
function loss(name, Q, K, V, dO, o, p) {
  const { nq, nk, dv } = o;
  const { S } = refScores(name, Q, K, { ...o, ...p });
  const { A } = refSoftmax(S, nq, nk, { temperature: o.temperature, mask: o.mask, keyPadding: o.keyPadding });
  let L = 0;
  for (let i = 0; i < nq; i++) {
    for (let c = 0; c < dv; c++) {
      let s = 0;
      for (let j = 0; j < nk; j++) s += A[i * nk + j] * V[j * dv + c];
      L += dO[i * dv + c] * s;
    }
  }
  return L;
}

// Central differences (h = 1e-5, float64) of the loss with respect to every entry of every input.
function finiteDifferences(name, inputs, o) {
  const h = 1e-5;
  const x64 = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, Float64Array.from(v)]));
  const L = () => {
    const { Q, K, V, dO, ...p } = x64;
    return loss(name, Q, K, V, dO, o, p);
  };
  const grads = {};
  for (const [k, v] of Object.entries(x64)) {
    if (k === 'dO') continue;
    const g = new Float64Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      v[i] = x + h; const up = L();
      v[i] = x - h; const down = L();
      v[i] = x;
      g[i] = (up - down) / (2 * h);
    }
    grads[k] = g;
  }
  return grads;
}

// |got − fd| <= 2e-3 |fd| + 2e-4 max(scale, 0.01), scale = the largest |fd| of that matrix: float32
// rounding of the gradient, far below what a wrong formula (a lost factor or term) gives.
function assertGradient(got, fd, label) {
  assert.equal(got.length, fd.length, `${label}: length`);
  let scale = 0;
  for (const x of fd) scale = Math.max(scale, Math.abs(x));
  for (let i = 0; i < fd.length; i++) {
    const tol = 2e-3 * Math.abs(fd[i]) + 2e-4 * Math.max(scale, 0.01);
    if (!(Math.abs(got[i] - fd[i]) <= tol)) assert.fail(`${label}[${i}]: ${got[i]}, finite differences ${fd[i]} ± ${tol}`);
  }
}

const GRAD_NAMES = { Q: 'dQ', K: 'dK', V: 'dV', W: 'dW', W1: 'dW1', W2: 'dW2', v: 'dv', Wa: 'dWa' };
const CASES = [
  { nq: 3, nk: 5, d: 4, dv: 2, temperature: 1, mask: 'none' },
  { nq: 4, nk: 4, d: 3, dv: 3, temperature: 0.5, mask: 'causal' },
  { nq: 2, nk: 6, d: 5, dv: 1, temperature: 2, mask: 'none', keyPadding: [0, 1, 0, 0, 1, 0] },
  // causal + padding of key 0: row 0 sees nothing (its gradient is 0 everywhere)
  { nq: 3, nk: 3, d: 2, dv: 2, temperature: 1.5, mask: 'causal', keyPadding: [1, 0, 0] },
];

for (const name of SCORE_NAMES) {
  test(`attentionBackward '${name}': dQ, dK, dV and the score's parameters match finite differences`, () => {
    const r = rng(100 + SCORE_NAMES.indexOf(name));
    for (const c of CASES) {
      const weighted = name === 'general' || name === 'additive';
      const dk = weighted ? c.d + 1 : c.d;
      const hidden = 3;
      const o = { ...c, dk, score: name };
      const inputs = { Q: r.floats(c.nq * c.d), K: r.floats(c.nk * dk), V: r.floats(c.nk * c.dv), dO: r.floats(c.nq * c.dv) };
      const params = {};
      if (name === 'general') params.W = r.floats(c.d * dk);
      if (name === 'additive') { params.W1 = r.floats(hidden * c.d); params.W2 = r.floats(hidden * dk); params.v = r.floats(hidden); }
      if (name === 'location') params.Wa = r.floats((c.nk + 1) * c.d);  // one row more than keys: its gradient is 0
      if (name === 'idw') { o.p = 1.5; o.eps = 0.2; }
      const got = scope.attentionBackward(inputs.Q, inputs.K, inputs.V, inputs.dO, { ...o, ...params });
      const fd = finiteDifferences(name, { ...inputs, ...params }, { ...o, hidden, maxKeys: c.nk + 1 });
      for (const [k, g] of Object.entries(fd)) assertGradient(got[GRAD_NAMES[k]], g, `${name} ${JSON.stringify(c)} ${GRAD_NAMES[k]}`);
      const expected = ['dQ', 'dK', 'dV', ...Object.keys(params).map((k) => GRAD_NAMES[k]), 'variant'];
      assert.deepEqual(Object.keys(got).sort(), expected.sort(), 'exactly the gradients of this score');
      if (c.keyPadding && c.mask === 'causal') {
        // Query 0 sees no key: nothing flows from it.
        assert.ok(got.dQ.subarray(0, c.d).every((x) => x === 0), 'fully masked row: dQ row 0 is 0');
      }
      if (c.keyPadding) {
        const j = c.keyPadding.indexOf(1);
        assert.ok(got.dV.subarray(j * c.dv, (j + 1) * c.dv).every((x) => x === 0), 'padding key: dV row is 0');
      }
    }
  });
}

test('attentionBackward agrees with finite differences of scope.attention() itself (float32 forward)', () => {
  const r = rng(7);
  const o = { nq: 3, nk: 4, d: 3, dv: 2, score: 'scaled-dot', temperature: 0.8, mask: 'causal' };
  const Q = r.floats(o.nq * o.d), K = r.floats(o.nk * o.d), V = r.floats(o.nk * o.dv), dO = r.floats(o.nq * o.dv);
  const L = (q, k, v) => {
    const out = scope.attention(q, k, v, { ...o, returns: ['output'] }).output;
    let s = 0; for (let i = 0; i < out.length; i++) s += dO[i] * out[i];
    return s;
  };
  const got = scope.attentionBackward(Q, K, V, dO, o);
  const h = 1 / 256;  // exact in float32; truncation error ~h², rounding ~1e-7/h
  for (const [name, X, g] of [['Q', Q, got.dQ], ['K', K, got.dK], ['V', V, got.dV]]) {
    for (let i = 0; i < X.length; i++) {
      const x = X[i];
      X[i] = x + h; const up = L(Q, K, V);
      X[i] = x - h; const down = L(Q, K, V);
      X[i] = x;
      const fd = (up - down) / (2 * h);
      assert.ok(Math.abs(g[i] - fd) <= 2e-3 + 1e-2 * Math.abs(fd), `d${name}[${i}]: ${g[i]} vs attention() differences ${fd}`);
    }
  }
});

test('attentionBackward: bad input is a TypeError or RangeError naming the argument; the instance keeps working', () => {
  const r = rng(3);
  const o = { nq: 2, nk: 3, d: 4, dv: 2 };
  const Q = r.floats(8), K = r.floats(12), V = r.floats(6), dO = r.floats(4);
  assertThrowsNaming(() => scope.attentionBackward(Q, K, V, r.floats(5), o), RangeError, [/^gradOutput/, /4 numbers/], 'dO length');
  assertThrowsNaming(() => scope.attentionBackward(Q, K, V, [1, 2, 3, 4], o), TypeError, [/^gradOutput/, /Float32Array/], 'dO array');
  assertThrowsNaming(() => scope.attentionBackward(Q, K, V, undefined, o), TypeError, [/^gradOutput/], 'dO missing');
  const nan = dO.slice(); nan[2] = NaN;
  assertThrowsNaming(() => scope.attentionBackward(Q, K, V, nan, o), RangeError, [/^gradOutput: element 2/], 'dO NaN');
  const badQ = Q.slice(); badQ[5] = Infinity;
  assertThrowsNaming(() => scope.attentionBackward(badQ, K, V, dO, o), RangeError, [/^Q: element 5/], 'Q infinite');
  const badV = V.slice(); badV[1] = NaN;
  assertThrowsNaming(() => scope.attentionBackward(Q, K, badV, dO, o), RangeError, [/^V: element 1/], 'V NaN');
  assertThrowsNaming(() => scope.attentionBackward(Q, K, V, dO, { ...o, returns: ['output'] }), TypeError, [/options\.returns: unknown option/], 'returns');
  assertThrowsNaming(() => scope.attentionBackward(Q, K, V, dO, { ...o, score: 'general' }), TypeError, [/options\.W/], 'W missing');
  assertThrowsNaming(() => scope.attentionBackward(Q, K, V, dO, { ...o, temperature: 0 }), RangeError, [/options\.temperature/], 'τ = 0');
  assertThrowsNaming(() => scope.attentionBackward(Q, K, r.floats(5), dO, o), RangeError, [/^V:/], 'V length');
  assertThrowsNaming(() => scope.attentionBackward(Q, K, V, dO, { ...o, keyPadding: [1, 0] }), RangeError, [/options\.keyPadding/], 'padding');
  // The limits of attention(): 65,536 × 65,536 weights are refused before anything is allocated.
  const big = { nq: 65536, nk: 65536, d: 1, dv: 1 };
  const ones = new Float32Array(65536).fill(0.5);
  assertThrowsNaming(() => scope.attentionBackward(ones, ones, ones, ones, big), RangeError, [/attention backward of 65536 queries x 65536 keys/], 'limit');
  // Still correct afterwards.
  const g = scope.attentionBackward(Q, K, V, dO, o);
  const fd = finiteDifferences('scaled-dot', { Q, K, V, dO }, { ...o, temperature: 1, mask: 'none' });
  assertGradient(g.dQ, fd.Q, 'after the errors: dQ');
});
