// The plain-JS float64 reference the API is checked against, written from the formulas in
// DESIGN.md (not from the C++), together with an error bound for every element.
//
// How the tolerances are derived (u = 2^-24, the float32 unit roundoff): the inputs are float32
// numbers, so the reference sees exactly the values the kernel sees, and the only differences are
// the kernel's float32 rounding errors. A float32 sum of n products, in any order and blocking (the
// SIMD kernels sum in lanes and tiles), errs by at most about (n+1)·u·Σ|terms| (Higham, "Accuracy
// and Stability of Numerical Algorithms", §3.1: γ_n). Every bound below follows that rule through the
// formula; transcendental functions (exp, log, tanh, pow, xsimd or libm) are given 8u of relative
// error, a few times what they are measured to have, so a failure means a wrong formula or a real
// accuracy bug, not noise.
import { U } from './helpers.mjs';

const TRANSCENDENTAL = 8 * U;

function dotAbs(a, ao, b, bo, n) {
  let s = 0, m = 0;
  for (let i = 0; i < n; i++) { const t = a[ao + i] * b[bo + i]; s += t; m += Math.abs(t); }
  return [s, m];
}

/**
 * S[i*nk+j] = score(Q row i, K row j) in float64, and tol, the bound on the float32 kernel's error.
 * o: { nq, nk, d, dk?, W?, W1?, W2?, v?, hidden?, Wa?, p?, eps? } with the shapes of attnscope.d.ts.
 */
export function refScores(name, Q, K, o) {
  const { nq, nk, d } = o;
  const dk = o.dk ?? d;
  const S = new Float64Array(nq * nk), tol = new Float64Array(nq * nk);
  const sumsq = (X, r, n) => dotAbs(X, r * n, X, r * n, n)[0];
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < nk; j++) {
      let s, t;
      switch (name) {
        case 'dot': {
          const [x, m] = dotAbs(Q, i * d, K, j * d, d);
          s = x; t = (d + 1) * U * m;
          break;
        }
        case 'scaled-dot': {
          // Two more roundings: 1/√d as a float32, and the multiplication by it.
          const [x, m] = dotAbs(Q, i * d, K, j * d, d);
          s = x / Math.sqrt(d); t = (d + 3) * U * m / Math.sqrt(d);
          break;
        }
        case 'cosine': {
          // The norms are float32 sums of squares (relative error (d+1)u each, halved by the square
          // root), then reciprocals and a product: (d+8)u relative on top of the dot product's error.
          const [x, m] = dotAbs(Q, i * d, K, j * d, d);
          const nq2 = sumsq(Q, i, d), nk2 = sumsq(K, j, d);
          if (nq2 === 0 || nk2 === 0) { s = 0; t = 0; break; }  // documented: a zero vector scores 0
          const den = Math.sqrt(nq2 * nk2);
          s = x / den; t = (d + 1) * U * m / den + (d + 8) * U * Math.abs(s);
          break;
        }
        case 'general': {
          // qᵀ W k with W [d, dk], computed as (qW)·k: the error of qW (d terms) carried through the
          // second sum (dk terms).
          const W = o.W;
          s = 0; let m2 = 0, carried = 0;
          for (let b = 0; b < dk; b++) {
            let qw = 0, qwAbs = 0;
            for (let a = 0; a < d; a++) { const x = Q[i * d + a] * W[a * dk + b]; qw += x; qwAbs += Math.abs(x); }
            const kb = K[j * dk + b];
            s += qw * kb; m2 += Math.abs(qw * kb); carried += qwAbs * Math.abs(kb);
          }
          t = (dk + 1) * U * m2 + (d + 1) * U * carried;
          break;
        }
        case 'additive': {
          // vᵀ tanh(W₁q + W₂k), W1 [hidden, d], W2 [hidden, dk], v [hidden]; tanh' ≤ 1 carries the
          // errors of W₁q and W₂k through unchanged.
          const h = o.hidden ?? o.v.length;
          s = 0; let m = 0, carried = 0;
          for (let r = 0; r < h; r++) {
            const [a, am] = dotAbs(o.W1, r * d, Q, i * d, d);
            const [b, bm] = dotAbs(o.W2, r * dk, K, j * dk, dk);
            const th = Math.tanh(a + b);
            const eth = (d + 1) * U * am + (dk + 1) * U * bm + U * Math.abs(a + b) + TRANSCENDENTAL * Math.abs(th) + U * U;
            s += o.v[r] * th; m += Math.abs(o.v[r] * th); carried += Math.abs(o.v[r]) * eth;
          }
          t = (h + 1) * U * m + carried;
          break;
        }
        case 'location': {
          // (Wa q)_j with Wa [maxKeys, d]: row j of Wa stands where the key would.
          const [x, m] = dotAbs(o.Wa, j * d, Q, i * d, d);
          s = x; t = (d + 1) * U * m;
          break;
        }
        case 'neg-manhattan': {
          // −Σ|q_t − k_t|: one rounding per difference, then a sum of d non-negative terms.
          let l1 = 0;
          for (let c = 0; c < d; c++) l1 += Math.abs(Q[i * d + c] - K[j * d + c]);
          s = -l1; t = (d + 2) * U * l1;
          break;
        }
        case 'neg-euclidean':
        case 'neg-sq-euclidean':
        case 'idw': {
          // The kernel computes ‖q−k‖² as ‖q‖² + ‖k‖² − 2q·k (documented), so its error is set by
          // the sizes of those three terms, not by the distance: (d+3)u·(‖q‖² + ‖k‖² + 2Σ|q_i k_i|).
          // The distance-based scores are then bounded by evaluating the (monotone) formula at both
          // ends of the interval [sq − e, sq + e], which stays valid near zero distance.
          let sq = 0;
          for (let c = 0; c < d; c++) { const diff = Q[i * d + c] - K[j * d + c]; sq += diff * diff; }
          const [, m] = dotAbs(Q, i * d, K, j * d, d);
          const e = (d + 3) * U * (sumsq(Q, i, d) + sumsq(K, j, d) + 2 * m);
          const lo = Math.max(0, sq - e), hi = sq + e;
          if (name === 'neg-sq-euclidean') { s = -sq; t = e; break; }
          if (name === 'neg-euclidean') {
            s = -Math.sqrt(sq);
            t = Math.max(Math.sqrt(sq) - Math.sqrt(lo), Math.sqrt(hi) - Math.sqrt(sq)) + 2 * U * Math.sqrt(sq);
            break;
          }
          // idw: −log(ε + ‖q−k‖^p). The kernel holds p and ε as float32.
          const p = Math.fround(o.p ?? 2), eps = Math.fround(o.eps ?? 1e-3);
          const f = (x) => -Math.log(eps + Math.pow(x, p / 2));
          s = f(sq);
          t = Math.max(Math.abs(f(lo) - s), Math.abs(s - f(hi))) + 2 * TRANSCENDENTAL + TRANSCENDENTAL * Math.abs(s);
          break;
        }
        default: throw new Error(`refScores: unknown score ${name}`);
      }
      S[i * nk + j] = s; tol[i * nk + j] = t;
    }
  }
  return { S, tol };
}

/**
 * Row softmax of S/τ with the documented conventions: masked (causal j > i, or key padding) and −∞
 * scores get weight 0; a fully masked row is all 0; +∞ scores share the row equally.
 * Tolerance: the kernel forms x_j = (s_j − max)/τ in float32 (absolute error ≲ 4u(|s_j| + |max|)/τ,
 * counting τ and 1/τ held as float32), takes exp (8u relative) and normalises by a float32 sum
 * ((cols+1)u relative); a weight's relative error is its own x error plus the largest x error (which
 * reaches every weight through the sum) plus those. Weights below 1e-30 may underflow: absolute 1e-30.
 */
export function refSoftmax(S, rows, cols, { temperature = 1, mask = 'none', keyPadding } = {}) {
  const A = new Float64Array(rows * cols), tol = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const visible = [];
    for (let j = 0; j < cols; j++) {
      const hidden = (mask === 'causal' && j > i) || (keyPadding && keyPadding[j]) || S[i * cols + j] === -Infinity;
      if (!hidden) visible.push(j);
    }
    if (visible.length === 0) continue;  // all zeros, tolerance 0: exactly zero expected
    const posInf = visible.filter((j) => S[i * cols + j] === Infinity);
    if (posInf.length) {
      for (const j of posInf) A[i * cols + j] = 1 / posInf.length;
      for (const j of visible) tol[i * cols + j] = (cols + 4) * U;
      continue;
    }
    let m = -Infinity;
    for (const j of visible) m = Math.max(m, S[i * cols + j]);
    let sum = 0, maxErr = 0;
    const err = new Float64Array(cols);
    for (const j of visible) {
      const s = S[i * cols + j];
      sum += (A[i * cols + j] = Math.exp((s - m) / temperature));
      err[j] = 4 * U * (Math.abs(s) + Math.abs(m)) / temperature;
      maxErr = Math.max(maxErr, err[j]);
    }
    for (const j of visible) {
      A[i * cols + j] /= sum;
      tol[i * cols + j] = A[i * cols + j] * (err[j] + maxErr + TRANSCENDENTAL + (cols + 2) * U) + 1e-30;
    }
  }
  return { A, tol };
}

/** O = A·V (A [nq, nk], V [nk, dv]) in float64, with the float32 bound (nk+1)u·Σ|a||v|. */
export function refMatmul(A, V, nq, nk, dv) {
  const O = new Float64Array(nq * dv), tol = new Float64Array(nq * dv);
  for (let i = 0; i < nq; i++) {
    for (let c = 0; c < dv; c++) {
      let s = 0, m = 0;
      for (let j = 0; j < nk; j++) { const t = A[i * nk + j] * V[j * dv + c]; s += t; m += Math.abs(t); }
      O[i * dv + c] = s; tol[i * dv + c] = (nk + 1) * U * m;
    }
  }
  return { O, tol };
}

/**
 * How far weights move when their scores move by at most scoreTol[j] (propagation through the
 * softmax): |δa_j| ≤ a_j·(δs_j + max_k δs_k)/τ. Adds that to a softmax tolerance.
 */
export function propagateScoreError(A, scoreTol, rows, cols, temperature, tol) {
  const out = Float64Array.from(tol);
  for (let i = 0; i < rows; i++) {
    let maxE = 0;
    for (let j = 0; j < cols; j++) maxE = Math.max(maxE, scoreTol[i * cols + j]);
    for (let j = 0; j < cols; j++) out[i * cols + j] += A[i * cols + j] * (scoreTol[i * cols + j] + maxE) / temperature;
  }
  return out;
}

/** Entropy (nats), max weight and argmax (first on ties) of each row, in float64. */
export function refRowStats(A, rows, cols) {
  const entropy = new Float64Array(rows), maxWeight = new Float64Array(rows), argmax = new Uint32Array(rows);
  for (let i = 0; i < rows; i++) {
    let h = 0, best = 0, arg = 0;
    for (let j = 0; j < cols; j++) {
      const a = A[i * cols + j];
      if (a > 0) h -= a * Math.log(a);
      if (a > best) { best = a; arg = j; }
    }
    entropy[i] = h; maxWeight[i] = best; argmax[i] = arg;
  }
  return { entropy, maxWeight, argmax };
}

/** Sinusoidal positional encoding (Vaswani 2017): PE(pos, 2i) = sin(pos/10000^(2i/d)), PE(pos, 2i+1) = cos(·). */
export function positionalEncoding(pos, d) {
  const out = new Float64Array(d);
  for (let c = 0; c < d; c++) {
    const i2 = c - (c % 2);
    const angle = pos / Math.pow(10000, i2 / d);
    out[c] = c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
  }
  return out;
}

export const SCORE_NAMES = ['dot', 'scaled-dot', 'cosine', 'general', 'additive', 'location',
  'neg-euclidean', 'neg-sq-euclidean', 'idw', 'neg-manhattan'];

// ---- seeded numbers, word vectors: independent JS implementations of the documented definitions ----

const M64 = (1n << 64n) - 1n;

/** PCG32 (XSH RR 64/32) exactly as src/attnscope/random.hpp defines it; seed and stream are 64-bit. */
export class Pcg32 {
  constructor(seed, stream = 0x5851f42d4c957f2dn) {
    this.inc = ((BigInt(stream) << 1n) | 1n) & M64;
    this.state = 0n;
    this.next();
    this.state = (this.state + BigInt(seed)) & M64;
    this.next();
  }
  next() {
    const old = this.state;
    this.state = (old * 6364136223846793005n + this.inc) & M64;
    const xorshifted = Number((((old >> 18n) ^ old) >> 27n) & 0xffffffffn);
    const rot = Number(old >> 59n);
    return ((xorshifted >>> rot) | (xorshifted << ((32 - rot) & 31))) >>> 0;
  }
  /** Uniform in [0, 1) with 24 random bits (exact in float32). */
  uniform() { return (this.next() >>> 8) / 16777216; }
  /** Uniform in [-a, a): float32((2u − 1)·a); 2u − 1 is exact, and so is the double product before rounding. */
  symmetric(a) { return Math.fround((2 * this.uniform() - 1) * a); }
}

/** 64-bit FNV-1a of the UTF-8 bytes of s. */
export function fnv1a64(s) {
  let h = 0xcbf29ce484222325n;
  for (const c of new TextEncoder().encode(s)) h = ((h ^ BigInt(c)) * 0x100000001b3n) & M64;
  return h;
}

/** The stream of a seeded matrix (src/attnscope/projection.hpp): kind << 32 | head. */
export const MATRIX_KIND = { Wq: 1, Wk: 2, Wv: 3, Wo: 4, W_general: 5, W1_additive: 6, W2_additive: 7, v_additive: 8, Wa_location: 9, W_extra: 10 };
const xavierCache = new Map();
/** rows x cols Xavier-uniform float32 matrix, a = float32 √(6/(rows+cols)), from Pcg32(seed, stream(kind, head)). */
export function xavier(rows, cols, seed, kind, head = 0) {
  const key = `${rows},${cols},${seed},${kind},${head}`;
  let w = xavierCache.get(key);
  if (!w) {
    // float32 division and square root are correctly rounded, and so are double ones rounded to float32.
    const a = Math.fround(Math.sqrt(Math.fround(6 / (rows + cols))));
    const rng = new Pcg32(seed, (BigInt(MATRIX_KIND[kind]) << 32n) | BigInt(head));
    w = new Float32Array(rows * cols);
    for (let i = 0; i < w.length; i++) w[i] = rng.symmetric(a);
    xavierCache.set(key, w);
  }
  return w;
}

/** A vocabulary file (docs/vocab-format.md, ATSVOCAB v1) parsed in JS: words, dequantised vectors. */
export function parseVocabulary(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== 'ATSVOCAB' || view.getUint32(8, true) !== 1) throw new Error('not an ATSVOCAB v1 file');
  const dim = view.getUint32(16, true), count = view.getUint32(20, true);
  const scalesOffset = Number(view.getBigUint64(48, true)), vectorsOffset = Number(view.getBigUint64(64, true));
  const medianNorm = view.getFloat32(88, true);
  const words = [], index = new Map();
  const decoder = new TextDecoder();
  for (let p = 96, i = 0; i < count; i++) {
    const n = bytes[p];
    words.push(decoder.decode(bytes.subarray(p + 1, p + 1 + n)));
    index.set(words[i], i);
    p += 1 + n;
  }
  const codes = new Int8Array(bytes.buffer, bytes.byteOffset + vectorsOffset, count * dim);
  const vector = (i) => {
    const scale = view.getFloat32(scalesOffset + 4 * i, true);
    return Float32Array.from(codes.subarray(i * dim, (i + 1) * dim), (q) => q * scale);  // float32(q·scale), as the loader
  };
  return { dim, count, medianNorm, words, index, codes, vector };
}

/** The documented out-of-vocabulary vector: Pcg32(fnv1a64(word)) directions scaled to the median norm. */
export function oovVector(word, dim, medianNorm) {
  const rng = new Pcg32(fnv1a64(word));
  const y = new Float64Array(dim);
  let s = 0;
  for (let j = 0; j < dim; j++) { y[j] = rng.symmetric(1); s += y[j] * y[j]; }
  const out = new Float32Array(dim);
  if (s === 0) { out[0] = medianNorm; return out; }
  const f = medianNorm / Math.sqrt(s);
  for (let j = 0; j < dim; j++) out[j] = y[j] * f;
  return out;
}
