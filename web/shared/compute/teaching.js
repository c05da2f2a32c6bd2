// The computations the figures need beyond the main result, by name: the registry's `needs`
// (web/shared/figures/registry.js) name them, the demo's worker runs the ones its page's figures need
// (web/pages/demo/demo-worker.js) and the <attn-scope> element runs them as its figures ask (context's need(name),
// web/shared/compute/attention.js). Each takes the context x of a state (scope, c, st, …) and need(), for
// the computations it builds on. The model of "Why this weight?" and slim() (what the comparison and
// the panels read of a result) live here too: attention.js imports this module, never the reverse.
import { scalingExperiment } from './scaling.js';
import { hullGeometry } from './hull.js';

/** One head of raw word vectors: the values are the key words' vectors themselves (panel 4). */
const hullBase = (x) => ({ ...x.c.base, score: x.st.score, heads: 1, projection: 'identity' });
/** The distance panel's two results are at τ = 1. */
const atOne = (x) => ({ ...x.c.base, temperature: 1 });

export const STEPS = {
  /** "Why this weight?": the model of the open cell, or null. */
  why: (x) => (x.cell ? whyModel(x, x.cell[0], x.cell[1]) : null),
  /** Panel 1's experiment: depends only on the kernels chosen, not on the sentences. */
  scaling: (x) => scalingExperiment(x.scope, 7, x.st.variant),
  /** Panel 3: neg-euclidean and idw at τ = 1. */
  negEuclid: (x) => slim(x.scope.attend({ ...atOne(x), score: 'neg-euclidean' })),
  idw: (x) => slim(x.scope.attend({ ...atOne(x), score: 'idw', p: x.st.p })),
  /** Panel 4: the current function on one head of raw word vectors, and its experimental output. */
  hull: (x) => x.scope.attend(hullBase(x)),
  hullExp: (x) => (x.st.exp ? x.scope.attend({ ...hullBase(x), experimentalScaledOutput: true }) : null),
  /** Panel 4's PCA, hull and inside counts (10–50 ms at 64 × 100 values: the demo's worker does it). */
  hullGeometry: (x, need) => {
    const hv = need('hull'), ex = need('hullExp');
    return hullGeometry({ qTokens: hv.queryTokenInfo, kTokens: hv.keyTokenInfo, values: hv.v[0], dv: hv.dValue[0],
      outputs: hv.output, experimental: ex ? ex.output : null, showExperimental: x.st.exp });
  },
};

/**
 * The computations about the whole document: the others are computed on a long document's first
 * tokens (the demo's worker: SMALL_TOKENS), as the comparison is.
 */
export const WHOLE_DOCUMENT = new Set(['why']);

/** need(name) for context x: computes STEPS[name] once (and what it builds on). */
export function teacher(x) {
  const done = new Map();
  const need = (name) => {
    if (!STEPS[name]) throw new Error(`no computation named ${name} (web/shared/compute/teaching.js STEPS)`);
    if (!done.has(name)) done.set(name, STEPS[name](x, need));
    return done.get(name);
  };
  return need;
}

/** The model of "Why this weight?" for cell (i, j) of the current head. */
export function whyModel(x, i, j) {
  const { r, st, head, masked, scope } = x;
  const { nq, nk } = r;
  const dh = r.dHead[head];
  const rowOff = head * nq * nk + i * nk;
  const rowScores = r.scores.slice(rowOff, rowOff + nk);
  const keyPadding = new Uint8Array(nk);
  for (let t = 0; t < nk; t++) keyPadding[t] = masked(i, t) ? 1 : 0;
  // The softmax over the row, recomputed by the wasm softmax kernel from the row's raw scores.
  const rowWeights = scope.softmax(rowScores, { rows: 1, cols: nk, temperature: st.t, keyPadding, variant: st.variant });
  const table = x.scoreNames.map((name) => {
    const y = x.c.all.get(name);
    const info = x.scoreInfo.get(name);
    return { name, formula: info ? info.formula : '', score: y.scores[rowOff + j], weight: y.weights[rowOff + j] };
  });
  const qTok = r.queryTokenInfo[i], kTok = r.keyTokenInfo[j];
  return {
    i, j, head, heads: r.heads, qToken: qTok, kToken: kTok,
    q: r.q[head].subarray(i * dh, (i + 1) * dh), k: r.k[head].subarray(j * dh, (j + 1) * dh),
    rowScores, rowWeights, kTokens: r.keyTokenInfo, masked: masked(i, j), maskedKey: (t) => masked(i, t),
    weight: r.weights[rowOff + j], temperature: st.t, scoreName: st.score, table,
    nearest: { q: x.nearest(qTok), k: x.nearest(kTok) },
  };
}

/** What the comparison, "Why this weight?"'s table and the teaching panels read of a result. */
export function slim(r) {
  if (!r || r.error) return r;
  return { nq: r.nq, nk: r.nk, heads: r.heads, weights: r.weights, scores: r.scores, stats: { entropy: r.stats.entropy } };
}
