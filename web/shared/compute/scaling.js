// Teaching panel 1's experiment (the figure 'scaling' of web/shared/figures/registry.js draws it): for random
// vectors with unit-variance components the variance of q·k grows like d, and the softmax of unscaled scores
// collapses onto one key; dividing by √d keeps the variance near 1. Both curves are computed by the
// wasm kernels (scope.scores and scope.softmax) on seeded random vectors.
import { mulberry32 } from '../random.js';

export const DIMS = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
export const N = 64;   // queries and keys per dimension

/** n·d standard normal numbers (Box–Muller). */
export function gaussian(n, seed) {
  const r = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = 1 - r(), v = r();
    const m = Math.sqrt(-2 * Math.log(u));
    out[i] = m * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = m * Math.sin(2 * Math.PI * v);
  }
  return out;
}

function variance(a) {
  let s = 0, s2 = 0;
  for (const x of a) { s += x; s2 += x * x; }
  const m = s / a.length;
  return s2 / a.length - m * m;
}

function meanEntropy(W, rows, cols) {
  let e = 0;
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) {
    const w = W[i * cols + j];
    if (w > 0) e -= w * Math.log(w);
  }
  return e / rows;
}

/** Runs the experiment with the wasm kernels: [{ d, varDot, varScaled, entDot, entScaled }]. */
export function scalingExperiment(scope, seed = 7, variant = 'auto') {
  const rows = [];
  for (const d of DIMS) {
    const Q = gaussian(N * d, seed * 7919 + d), K = gaussian(N * d, seed * 104729 + d + 1);
    const opts = { nq: N, nk: N, d, variant };
    const Sdot = scope.scores(Q, K, { ...opts, score: 'dot' });
    const Sscaled = scope.scores(Q, K, { ...opts, score: 'scaled-dot' });
    const sm = { rows: N, cols: N, temperature: 1, variant };
    rows.push({
      d,
      varDot: variance(Sdot),
      varScaled: variance(Sscaled),
      entDot: meanEntropy(scope.softmax(Sdot, sm), N, N),
      entScaled: meanEntropy(scope.softmax(Sscaled, sm), N, N),
    });
  }
  return rows;
}
