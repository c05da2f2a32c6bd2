// The computations the figures need beyond the main result, by name: the registry's `needs`
// (web/figures/registry.js) name them, the demo's worker runs the ones its page's figures need
// (web/demo-worker.js) and the <attn-scope> element runs them as its figures ask (context's need(name),
// web/compute/attention.js). Each takes the context x of a state (scope, c, st, …) and need(), for
// the computations it builds on.
import { scalingExperiment } from './scaling.js';
import { hullGeometry } from './hull.js';
import { whyModel, slim } from './attention.js';

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
    if (!STEPS[name]) throw new Error(`no computation named ${name} (web/compute/teaching.js STEPS)`);
    if (!done.has(name)) done.set(name, STEPS[name](x, need));
    return done.get(name);
  };
  return need;
}
