// The example the "Your model's attention" page opens with (web/model.html): the self-attention of a
// small transformer with random weights (fixed seed, so every build writes the same file), run on one
// sentence. No trained model is downloaded or shipped: the file shows what the page does, not what a
// real model has learnt. Written by scripts/build-web.mjs as dist/web/model-example.json, in the page's
// JSON import format { tokens, attentions: [layers][heads][n][n] }.
//   node scripts/model-example.mjs > example.json     (the same file, to stdout)
import { fileURLToPath } from 'node:url';

export const EXAMPLE_TOKENS = ['[CLS]', 'the', 'animal', 'did', 'not', 'cross', 'the', 'street', 'because', 'it',
  'was', 'too', 'tired', '.', '[SEP]'];

/** mulberry32: a small seeded generator; gaussian() by Box–Muller. */
function generator(seed) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  return { uniform, gaussian };
}

const matrix = (g, rows, cols, std) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => g.gaussian() * std));
const matmul = (X, W) => X.map((x) => W[0].map((_, j) => x.reduce((s, xi, i) => s + xi * W[i][j], 0)));
function layerNorm(X) {
  return X.map((x) => {
    const m = x.reduce((s, v) => s + v, 0) / x.length;
    const v = x.reduce((s, t) => s + (t - m) ** 2, 0) / x.length;
    return x.map((t) => (t - m) / Math.sqrt(v + 1e-5));
  });
}

/**
 * Runs a pre-norm transformer (layers × heads of scaled dot-product self-attention, random weights,
 * residual connections, a small ReLU MLP) on the tokens and returns every layer's attention weights.
 */
export function modelExample({ layers = 6, heads = 4, d = 32, seed = 13, tokens = EXAMPLE_TOKENS } = {}) {
  const g = generator(seed);
  const n = tokens.length;
  const dh = d / heads;
  // Token embeddings (one random vector per distinct token) plus sinusoidal positions.
  const vocab = new Map();
  let X = tokens.map((t, pos) => {
    if (!vocab.has(t)) vocab.set(t, Array.from({ length: d }, () => g.gaussian()));
    return vocab.get(t).map((v, i) => v + (i % 2 ? Math.cos : Math.sin)(pos / 10000 ** ((i - (i % 2)) / d)));
  });
  const attentions = [];
  for (let l = 0; l < layers; l++) {
    const Wq = matrix(g, d, d, 1 / Math.sqrt(d)), Wk = matrix(g, d, d, 1 / Math.sqrt(d));
    const Wv = matrix(g, d, d, 1 / Math.sqrt(d)), Wo = matrix(g, d, d, 1 / Math.sqrt(d));
    const W1 = matrix(g, d, 2 * d, 1 / Math.sqrt(d)), W2 = matrix(g, 2 * d, d, 1 / Math.sqrt(2 * d));
    // Random heads have flat attention; a per-head sharpness (as training would give) makes them differ.
    const sharp = Array.from({ length: heads }, () => 0.8 + 3.2 * g.uniform());
    const H = layerNorm(X);
    const Q = matmul(H, Wq), K = matmul(H, Wk), V = matmul(H, Wv);
    const layer = [];
    const out = X.map(() => new Array(d).fill(0));
    for (let h = 0; h < heads; h++) {
      const A = [];
      for (let i = 0; i < n; i++) {
        const s = [];
        for (let j = 0; j < n; j++) {
          let dot = 0;
          for (let t = h * dh; t < (h + 1) * dh; t++) dot += Q[i][t] * K[j][t];
          s.push((sharp[h] * dot) / Math.sqrt(dh));
        }
        const m = Math.max(...s);
        const e = s.map((v) => Math.exp(v - m));
        const z = e.reduce((a, b) => a + b, 0);
        const row = e.map((v) => v / z);
        A.push(row);
        for (let t = h * dh; t < (h + 1) * dh; t++) out[i][t] = row.reduce((acc, w, j) => acc + w * V[j][t], 0);
      }
      layer.push(A);
    }
    attentions.push(layer);
    const att = matmul(out, Wo);
    X = X.map((x, i) => x.map((v, t) => v + att[i][t]));
    const hidden = matmul(layerNorm(X), W1).map((r) => r.map((v) => Math.max(0, v)));
    const mlp = matmul(hidden, W2);
    X = X.map((x, i) => x.map((v, t) => v + mlp[i][t]));
  }
  // Six significant digits: the file stays small and every row still sums to 1 within 1e-5.
  const round = (v) => Number(v.toPrecision(6));
  return { tokens, attentions: attentions.map((L) => L.map((A) => A.map((r) => r.map(round)))) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(JSON.stringify(modelExample()) + '\n');
