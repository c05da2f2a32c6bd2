// Teaching panel 4's geometry (web/shared/compute/hull.js hullGeometry), which the demo's worker now
// computes off the page's thread: convex combinations of the values are inside their hull in all
// dimensions, rescaled ones are not; the 2-D hull's vertices are projected values; the result is a
// pure function of its data (the worker's and the page's computation agree).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hullGeometry, pca2, project } from '../../web/shared/compute/hull.js';

function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32 - 0.5; };
}
const tokens = (n) => Array.from({ length: n }, (_, i) => ({ text: `w${i}`, oov: false }));

function data({ nk = 12, nq = 9, dv = 20, seed = 1, scale = 1, showExperimental = false } = {}) {
  const r = rng(seed);
  const values = Float32Array.from({ length: nk * dv }, r);
  const outputs = new Float32Array(nq * dv);
  for (let i = 0; i < nq; i++) {
    const w = Array.from({ length: nk }, () => Math.exp(3 * r()));
    const sum = w.reduce((a, b) => a + b, 0);
    for (let j = 0; j < nk; j++) for (let t = 0; t < dv; t++) outputs[i * dv + t] += (w[j] / sum) * values[j * dv + t];
  }
  const experimental = showExperimental ? outputs.map((x) => x * scale) : null;
  return { kTokens: tokens(nk), qTokens: tokens(nq), values, outputs, dv, experimental, showExperimental };
}

test('averages of the values lie inside their hull; outputs scaled by 3 do not', () => {
  const g = hullGeometry(data({ showExperimental: true, scale: 3 }));
  assert.equal(g.inside, 9);
  assert.equal(g.insideE, 0);
  assert.equal(g.showExperimental, true);
  assert.equal(g.V.length, 12);
  assert.equal(g.O.length, 9);
  assert.equal(g.E.length, 9);
});

test('the 2-D hull is made of projected values and holds every projected output', () => {
  const g = hullGeometry(data({ seed: 3 }));
  for (const [x, y, i] of g.hull) assert.deepEqual([x, y], g.V[i]);
  // Counter-clockwise polygon: every output is on the inner side of every edge (within rounding).
  const h = g.hull;
  for (const [px, py] of g.O) {
    for (let k = 0; k < h.length; k++) {
      const [ax, ay] = h[k], [bx, by] = h[(k + 1) % h.length];
      assert.ok((bx - ax) * (py - ay) - (by - ay) * (px - ax) >= -1e-9, 'an output outside the projected hull');
    }
  }
  assert.equal(g.E.length, 0);
  assert.equal(g.insideE, null);
});

test('the projection is the one pca2/project give, and the same data gives the same numbers', () => {
  const d = data({ seed: 5 });
  const a = hullGeometry(d), b = hullGeometry(structuredClone(d));
  assert.deepEqual(a, b);
  assert.deepEqual(a.V, project(d.values, 12, d.dv, pca2(d.values, 12, d.dv)));
});

test('fewer than two keys: nothing to draw', () => {
  const g = hullGeometry(data({ nk: 1 }));
  assert.equal(g.V, null);
  assert.equal(g.showExperimental, false);
});

test('the plane is the values\' alone: showing the experimental outputs adds points, it does not turn the picture', () => {
  const off = hullGeometry(data({ seed: 4 }));
  const on = hullGeometry({ ...data({ seed: 4 }), experimental: data({ seed: 4, showExperimental: true, scale: 40 }).experimental, showExperimental: true });
  assert.deepEqual(on.V, off.V);
  assert.deepEqual(on.O, off.O);
  assert.equal(off.lengthRatio, null);
  assert.ok(Math.abs(on.lengthRatio - 40) < 1e-3, `${on.lengthRatio}: outputs scaled by 40 are 40 times as long`);
  assert.ok(Math.abs(hullGeometry(data({ showExperimental: true, scale: 0.1 })).lengthRatio - 0.1) < 1e-6);
});
