// scope.scores(), scope.softmax() and scope.attention() against the float64 reference in
// reference.mjs, for every scoring function, several shapes and each kernel variant.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { U, assertClose, loadScope, rng } from './helpers.mjs';
import { SCORE_NAMES, propagateScoreError, refMatmul, refRowStats, refScores, refSoftmax } from './reference.mjs';

const scope = await loadScope();
const VARIANTS = ['auto', 'simd', 'scalar'];

// [nq, nk, d]: single elements, sizes below, at and above the SIMD width (4 floats) and the tiles,
// odd sizes for the scalar tails, and the GloVe width 100.
const SHAPES = [[1, 1, 1], [3, 5, 7], [4, 4, 16], [17, 9, 33], [8, 13, 100], [2, 64, 129]];
// The scores with matrices take keys of another width dk (their matrices map between the two).
const dkFor = (name, d) => (['general', 'additive', 'location'].includes(name) ? d + 3 : d);

/** Random score weights with the shapes of attnscope.d.ts, scaled so scores stay O(1). */
function weightsFor(name, r, d, dk, nk) {
  switch (name) {
    case 'general': return { W: r.floats(d * dk, 1 / Math.sqrt(d)) };
    case 'additive': {
      const hidden = 1 + ((d * 7) % 19);
      return { W1: r.floats(hidden * d, 1 / Math.sqrt(d)), W2: r.floats(hidden * dk, 1 / Math.sqrt(dk)), v: r.floats(hidden), hidden };
    }
    case 'location': {
      const maxKeys = nk + 2;  // more rows than keys: only the first nk are used
      return { Wa: r.floats(maxKeys * d, 1 / Math.sqrt(d)), maxKeys };
    }
    default: return {};
  }
}

/** A random problem for `name`: Q [nq, d], K [nk, dk], V [nk, dv], the score weights. */
function problem(name, [nq, nk, d], seed, scale = 1) {
  const r = rng(seed);
  const dk = dkFor(name, d), dv = 1 + (d % 11);
  return { nq, nk, d, dk, dv, Q: r.floats(nq * d, scale), K: r.floats(nk * dk, scale), V: r.floats(nk * dv), w: weightsFor(name, r, d, dk, nk) };
}

describe('scores() against the float64 reference', () => {
  for (const variant of VARIANTS) {
    for (const name of SCORE_NAMES) {
      test(`${name}, variant '${variant}'`, () => {
        SHAPES.forEach((shape, s) => {
          for (const scale of [1, 4]) {
            const P = problem(name, shape, 1000 * s + scale, scale);
            const opts = { nq: P.nq, nk: P.nk, d: P.d, score: name, variant, ...P.w };
            if (P.dk !== P.d) opts.dk = P.dk;
            const S = scope.scores(P.Q, P.K, opts);
            assert.ok(S instanceof Float32Array);
            const ref = refScores(name, P.Q, P.K, { ...opts, dk: P.dk });
            assertClose(S, ref.S, ref.tol, `${name} ${shape} scale ${scale} ${variant}`);
          }
        });
      });
    }
  }

  test('idw with custom p and ε (every variant)', () => {
    for (const variant of VARIANTS) {
      for (const [p, eps] of [[1, 0.1], [0.5, 0], [3, 1e-6], [2, 1e-3], [1.7, 2]]) {
        SHAPES.forEach((shape, s) => {
          const P = problem('idw', shape, 77 + s);
          const opts = { nq: P.nq, nk: P.nk, d: P.d, score: 'idw', p, eps, variant };
          const ref = refScores('idw', P.Q, P.K, opts);
          assertClose(scope.scores(P.Q, P.K, opts), ref.S, ref.tol, `idw p=${p} eps=${eps} ${shape} ${variant}`);
        });
      }
    }
  });

  test('idw defaults are p = 2, ε = 1e-3', () => {
    const P = problem('idw', [5, 6, 12], 5);
    const base = { nq: 5, nk: 6, d: 12 };
    assert.deepEqual(scope.scores(P.Q, P.K, { ...base, score: 'idw' }), scope.scores(P.Q, P.K, { ...base, score: 'idw', p: 2, eps: 1e-3 }));
  });

  test('idw of an exact match stays near −log ε (the distance identity cancels to ~0)', () => {
    // q = k: the true distance is 0, so the score is −log ε; the identity ‖q‖²+‖k‖²−2q·k leaves at most
    // the bound e of reference.mjs, so the score lies in [−log(ε + e), −log ε].
    const r = rng(9);
    const d = 50, Q = r.floats(3 * d), eps = 1e-3;
    let e = 0;
    for (let i = 0; i < 3; i++) { let s = 0; for (let c = 0; c < d; c++) s += Q[i * d + c] ** 2; e = Math.max(e, (d + 3) * U * 4 * s); }
    for (const variant of VARIANTS) {
      const S = scope.scores(Q, Q, { nq: 3, nk: 3, d, score: 'idw', eps, variant });
      for (let i = 0; i < 3; i++) {
        const s = S[i * 3 + i];
        assert.ok(s <= -Math.log(Math.fround(eps)) + 1e-5 && s >= -Math.log(eps + e) - 1e-5, `diagonal ${i}: ${s} (${variant})`);
      }
    }
  });

  test('cosine with a zero vector scores 0 (documented convention)', () => {
    const Q = new Float32Array([0, 0, 0, 1, 2, 3]);
    const K = new Float32Array([1, 1, 1, 0, 0, 0]);
    for (const variant of VARIANTS) {
      const S = scope.scores(Q, K, { nq: 2, nk: 2, d: 3, score: 'cosine', variant });
      // S [2, 2]: q0 is zero (row 0), k1 is zero (column 1); only q1·k0 is a real cosine.
      assert.deepEqual([S[0], S[1], S[3]], [0, 0, 0], variant);
      assert.ok(Math.abs(S[2] - 6 / Math.sqrt(3 * 14)) < 1e-6, variant);
    }
  });

  test('location ignores the content of the keys', () => {
    const P = problem('location', [4, 6, 9], 3);
    const opts = { nq: 4, nk: 6, d: 9, dk: P.dk, score: 'location', ...P.w };
    const other = rng(4).floats(P.K.length, 10);
    assert.deepEqual(scope.scores(P.Q, P.K, opts), scope.scores(P.Q, other, opts));
  });

  test('default score is scaled-dot', () => {
    const P = problem('scaled-dot', [3, 4, 8], 11);
    assert.deepEqual(scope.scores(P.Q, P.K, { nq: 3, nk: 4, d: 8 }), scope.scores(P.Q, P.K, { nq: 3, nk: 4, d: 8, score: 'scaled-dot' }));
  });
});

describe('softmax() against the float64 reference', () => {
  const cases = [[1, 1], [1, 7], [5, 5], [6, 3], [3, 17], [12, 64]];
  for (const variant of VARIANTS) {
    test(`temperature, causal mask and key padding, variant '${variant}'`, () => {
      cases.forEach(([rows, cols], c) => {
        const r = rng(500 + c);
        for (const scale of [1, 8, 1000]) {
          const S = r.floats(rows * cols, scale);
          const padding = Uint8Array.from({ length: cols }, () => (r.next() < 0.3 ? 1 : 0));
          for (const temperature of [undefined, 1, 0.25, 3.5]) {
            for (const mask of [undefined, 'none', 'causal']) {
              for (const keyPadding of [undefined, padding, Array.from(padding, Boolean)]) {
                const opts = { rows, cols, variant };
                if (temperature !== undefined) opts.temperature = temperature;
                if (mask !== undefined) opts.mask = mask;
                if (keyPadding !== undefined) opts.keyPadding = keyPadding;
                const A = scope.softmax(S, opts);
                const ref = refSoftmax(S, rows, cols, { temperature, mask, keyPadding });
                const label = `${rows}x${cols} scale ${scale} τ=${temperature} mask=${mask} padding=${!!keyPadding} ${variant}`;
                assertClose(A, ref.A, ref.tol, label);
                checkRows(A, rows, cols, label);
              }
            }
          }
        }
      });
    });
  }

  test('a fully masked row is all zeros, never NaN (causal + padding, every variant)', () => {
    const S = rng(1).floats(4 * 4);
    for (const variant of VARIANTS) {
      // Key 0 is padding, so causal row 0 (which sees only key 0) has nothing left.
      const A = scope.softmax(S, { rows: 4, cols: 4, mask: 'causal', keyPadding: [true, false, false, false], variant });
      assert.deepEqual(Array.from(A.slice(0, 4)), [0, 0, 0, 0], variant);
      const ref = refSoftmax(S, 4, 4, { mask: 'causal', keyPadding: [1, 0, 0, 0] });
      assertClose(A, ref.A, ref.tol, `fully masked ${variant}`);
      const all = scope.softmax(S, { rows: 4, cols: 4, keyPadding: new Uint8Array([1, 1, 1, 1]), variant });
      assert.deepEqual(Array.from(all), new Array(16).fill(0), variant);
    }
  });

  test('−∞ scores get weight 0 and +∞ scores share the row (documented conventions)', () => {
    const S = new Float32Array([-Infinity, 1, 2, 0, Infinity, 3, Infinity, -Infinity, -Infinity, -Infinity, -Infinity, -Infinity]);
    for (const variant of VARIANTS) {
      const A = scope.softmax(S, { rows: 3, cols: 4, variant });
      const ref = refSoftmax(S, 3, 4);
      assertClose(A, ref.A, ref.tol, `infinities ${variant}`);
      assert.equal(A[0], 0);
      assert.deepEqual(Array.from(A.slice(4, 8)), [0.5, 0, 0.5, 0], variant);
      assert.deepEqual(Array.from(A.slice(8)), [0, 0, 0, 0], variant);
    }
  });

  test('the input is not modified and the result is a copy', () => {
    const S = rng(2).floats(12);
    const before = S.slice();
    const A1 = scope.softmax(S, { rows: 3, cols: 4 });
    const A2 = scope.softmax(S, { rows: 3, cols: 4 });
    assert.deepEqual(S, before);
    assert.notEqual(A1.buffer, A2.buffer);
    A1[0] = 42;
    assert.notEqual(A2[0], 42);
  });
});

/** Rows that are not fully masked sum to 1 within the float32 bound (cols+8)·4u; masked rows sum to 0. */
function checkRows(A, rows, cols, label) {
  for (let i = 0; i < rows; i++) {
    let s = 0;
    for (let j = 0; j < cols; j++) { assert.ok(A[i * cols + j] >= 0 && A[i * cols + j] <= 1, `${label}: weight out of [0, 1]`); s += A[i * cols + j]; }
    assert.ok(s === 0 || Math.abs(s - 1) <= (cols + 8) * 4 * U, `${label}: row ${i} sums to ${s}`);
  }
}

describe('attention() against the float64 reference', () => {
  for (const variant of VARIANTS) {
    test(`every score, τ, mask, padding, variant '${variant}'`, () => {
      for (const name of SCORE_NAMES) {
        SHAPES.forEach((shape, s) => {
          const P = problem(name, shape, 300 + s);
          const r = rng(s);
          const temperature = [1, 0.5, 2][s % 3];
          const mask = s % 2 ? 'causal' : undefined;
          const keyPadding = s >= 3 ? Uint8Array.from({ length: P.nk }, (_, j) => (j % 4 === 3 ? 1 : 0)) : undefined;
          const opts = { nq: P.nq, nk: P.nk, d: P.d, dv: P.dv, score: name, temperature, variant, ...P.w };
          if (P.dk !== P.d) opts.dk = P.dk;
          if (mask) opts.mask = mask;
          if (keyPadding) opts.keyPadding = keyPadding;
          if (name === 'idw' && s % 2) Object.assign(opts, { p: 1 + r.next(), eps: 0.01 });
          const label = `${name} ${shape} τ=${temperature} mask=${mask} ${variant}`;
          const res = scope.attention(P.Q, P.K, P.V, opts);

          assert.equal(res.variant, variant === 'scalar' ? 'scalar' : 'simd', label);
          // Scores: the formula.
          const refS = refScores(name, P.Q, P.K, { ...opts, dk: P.dk });
          assertClose(res.scores, refS.S, refS.tol, `${label}: scores`);
          // Weights: the softmax of the scores the call returned (isolates the softmax) ...
          const soft = refSoftmax(res.scores, P.nq, P.nk, { temperature, mask, keyPadding });
          assertClose(res.weights, soft.A, soft.tol, `${label}: weights from its scores`);
          // ... and of the reference scores, with their error carried through the softmax.
          const full = refSoftmax(refS.S, P.nq, P.nk, { temperature, mask, keyPadding });
          assertClose(res.weights, full.A, propagateScoreError(full.A, refS.tol, P.nq, P.nk, temperature, full.tol), `${label}: weights`);
          checkRows(res.weights, P.nq, P.nk, label);
          // Output = weights · V.
          const O = refMatmul(res.weights, P.V, P.nq, P.nk, P.dv);
          assertClose(res.output, O.O, O.tol, `${label}: output`);
          // Row statistics of the returned weights (computed in double, then rounded to float32).
          const st = refRowStats(res.weights, P.nq, P.nk);
          assertClose(res.stats.entropy, st.entropy, Array.from(st.entropy, (h) => 2 * U * Math.abs(h) + 1e-12), `${label}: entropy`);
          assert.deepEqual(Array.from(res.stats.maxWeight), Array.from(st.maxWeight, Math.fround), `${label}: maxWeight`);
          assert.deepEqual(Array.from(res.stats.argmax), Array.from(st.argmax), `${label}: argmax`);
          assert.ok(res.stats.argmax instanceof Uint32Array);
        });
      }
    });
  }

  test('outputs are convex combinations of V rows (each column within the rows\' range)', () => {
    const P = problem('cosine', [6, 10, 20], 42);
    const res = scope.attention(P.Q, P.K, P.V, { nq: 6, nk: 10, d: 20, dv: P.dv, score: 'cosine', temperature: 0.2 });
    for (let c = 0; c < P.dv; c++) {
      let lo = Infinity, hi = -Infinity;
      for (let j = 0; j < 10; j++) { lo = Math.min(lo, P.V[j * P.dv + c]); hi = Math.max(hi, P.V[j * P.dv + c]); }
      for (let i = 0; i < 6; i++) {
        const o = res.output[i * P.dv + c];
        assert.ok(o >= lo - 1e-6 && o <= hi + 1e-6, `output[${i}, ${c}] = ${o} outside [${lo}, ${hi}]`);
      }
    }
  });
});

describe('variants', () => {
  test('variants info of the SIMD build', () => {
    assert.deepEqual([...scope.variants.available].sort(), ['auto', 'scalar', 'simd']);
    assert.equal(scope.variants.simd, true);
    assert.equal(typeof scope.variants.isa, 'string');
    assert.ok(scope.variants.isa.length > 0);
    assert.equal(scope.variant, 'auto');
  });

  test('SIMD and scalar agree within the sum of their bounds, for every score', () => {
    for (const name of SCORE_NAMES) {
      for (const shape of SHAPES) {
        const P = problem(name, shape, 4242);
        const opts = { nq: P.nq, nk: P.nk, d: P.d, dv: P.dv, score: name, ...P.w };
        if (P.dk !== P.d) opts.dk = P.dk;
        const a = scope.attention(P.Q, P.K, P.V, { ...opts, variant: 'simd' });
        const b = scope.attention(P.Q, P.K, P.V, { ...opts, variant: 'scalar' });
        const refS = refScores(name, P.Q, P.K, { ...opts, dk: P.dk });
        assertClose(a.scores, b.scores, refS.tol.map((t) => 2 * t), `${name} ${shape}: simd vs scalar scores`);
        const full = refSoftmax(refS.S, P.nq, P.nk);
        const wt = propagateScoreError(full.A, refS.tol, P.nq, P.nk, 1, full.tol);
        assertClose(a.weights, b.weights, wt.map((t) => 2 * t), `${name} ${shape}: simd vs scalar weights`);
      }
    }
  });

  test('scope.variant sets the default variant of later calls', () => {
    const P = problem('dot', [3, 3, 8], 1);
    const opts = { nq: 3, nk: 3, d: 8, dv: P.dv };
    try {
      scope.variant = 'scalar';
      assert.equal(scope.attention(P.Q, P.K, P.V, opts).variant, 'scalar');
      assert.equal(scope.attention(P.Q, P.K, P.V, { ...opts, variant: 'simd' }).variant, 'simd');
      scope.variant = 'simd';
      assert.equal(scope.attention(P.Q, P.K, P.V, opts).variant, 'simd');
    } finally {
      scope.variant = 'auto';
    }
    assert.equal(scope.attention(P.Q, P.K, P.V, opts).variant, 'simd');
  });
});
