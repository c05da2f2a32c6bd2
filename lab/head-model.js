// The lab's head as plain JS, for any saved step: the trainer's features (token vectors with the
// sinusoidal encoding concatenated, as src/trainer.cpp builds them), Q = F W_q, K = F W_k, then the
// weights from scope.attention() with the snapshot's score matrices. The page keeps one copy of the
// weights per saved step (trainer.weights()) and draws any sentence at any of them with this; the
// tests check it against trainer.attentionWeights() for the current step.

/** PE(pos) of width d into out[offset..offset+d): sin for even j, cos for odd j, as Vaswani et al. */
export function sinusoid(pos, d, out, offset = 0) {
  for (let j = 0; j < d; j++) {
    const angle = pos / Math.pow(10000, (j - (j % 2)) / d);
    out[offset + j] = j % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
  }
}

/** Features [n, dFeat] of vectors [n, dIn] under the trainer's options (positions none/add/concat). */
export function features(vectors, o) {
  const n = vectors.length / o.dIn;
  const dFeat = o.dIn + (o.positions === 'concat' ? o.dPos : 0);
  const F = new Float32Array(n * dFeat);
  const pe = new Float32Array(o.positions === 'concat' ? o.dPos : o.dIn);
  for (let i = 0; i < n; i++) {
    F.set(vectors.subarray(i * o.dIn, (i + 1) * o.dIn), i * dFeat);
    if (o.positions === 'none') continue;
    sinusoid(i, pe.length, pe);
    if (o.positions === 'add') for (let c = 0; c < o.dIn; c++) F[i * dFeat + c] += pe[c];
    else F.set(pe, i * dFeat + o.dIn);
  }
  return { F, n, dFeat };
}

function project(F, n, dFeat, W, dHead) {
  const out = new Float32Array(n * dHead);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < dHead; c++) {
      let s = 0;
      for (let t = 0; t < dFeat; t++) s += F[i * dFeat + t] * W[t * dHead + c];
      out[i * dHead + c] = s;
    }
  }
  return out;
}

/**
 * The attention weights [n, n] of one sentence (vectors [n, dIn]) under saved weights
 * ({ Wq, Wk, W?, W1?, W2?, v?, Wa? } from trainer.weights()) and the trainer's options; with
 * keyVectors [m, dIn] (cross-attention: the keys from a second sentence, e.g. its paraphrase) [n, m].
 */
/** The head's τ at a saved step: exp(logTau) when the trainer learns it (temperature 'learned'), else the option's. */
export function headTemperature(weights, o) {
  return o.temperature === 'learned' ? Math.exp(weights.logTau[0]) : o.temperature;
}

export function headWeights(scope, weights, o, vectors, keyVectors) {
  const { F, n, dFeat } = features(vectors, o);
  const keys = keyVectors ? features(keyVectors, o) : { F, n };
  const m = keys.n;
  const Q = project(F, n, dFeat, weights.Wq, o.dHead), K = project(keys.F, m, dFeat, weights.Wk, o.dHead);
  const params = {};
  if (weights.W) params.W = weights.W;
  if (weights.W1) Object.assign(params, { W1: weights.W1, W2: weights.W2, v: weights.v, hidden: o.hidden });
  if (weights.Wa) Object.assign(params, { Wa: weights.Wa, maxKeys: o.maxLen });
  return scope.attention(Q, K, new Float32Array(m), {
    nq: n, nk: m, d: o.dHead, dv: 1, score: o.score, temperature: headTemperature(weights, o), mask: o.mask, p: o.p, eps: o.eps,
    ...params, returns: ['weights'],
  }).weights;
}
