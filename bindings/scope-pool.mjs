// What the pool of workers (pool.mjs) needs of the scope: its argument checks, without a wasm instance.
import { Scope } from './scope-class.mjs';
import { checkKnownKeys } from './scope-checks.mjs';
import { SCORE_KEYS, listsOf, returnsOption } from './scope-options.mjs';

// Some scores choose their path for all rows at once by whether every query row lies in the safe
// range (src/score.cpp, row_in_safe_range: 2^-40 to 2^40; the distance family's fused identity or
// its blocked direct distances). A call with a row outside it is not split, whatever its score: the
// registry does not say which scores do this, and such rows are rare enough that one worker is fine.
function rowInSafeRange(Q, i, d) {
  let m = 0;
  for (let t = i * d, end = t + d; t < end; t++) {
    const a = Math.abs(Q[t]);
    if (!Number.isFinite(a)) return true;
    if (a > m) m = a;
  }
  return m === 0 || (m >= 2 ** -40 && m <= 2 ** 40);
}

/**
 * What the pool needs to split a call the way one scope computes it, without a wasm instance:
 * validate(method, args) checks the arguments exactly as Scope[method] does before it touches wasm
 * memory (the same errors, the same order) and returns { nq, d, cost, splittable }: cost is the
 * whole call's _checkCost arguments (each worker checks them), splittable whether the query rows may
 * go to different instances with no number changing: not when a query row lies outside the safe
 * range (a distance score then takes another path for every row). (Under the causal mask a
 * share is run with its first row's index, Scope._attention's queryOffset.)
 * registry: the module's registry; available: scope.variants.available of an instance.
 */
export function callValidator(registry, available) {
  const v = Object.create(Scope.prototype);
  v._lists = listsOf(registry);
  v.variants = { available };
  v._variant = 'auto';
  const splittable = (score, Q, nq, d) => {
    for (let i = 0; i < nq; i++) if (!rowInSafeRange(Q, i, d)) return false;
    return true;
  };
  return {
    scores(Q, K, options) {
      checkKnownKeys('options', options, ['nq', 'nk', 'd', 'dk', ...SCORE_KEYS]);
      const { nq, nk, d, dk } = v._queryKeyShapes(Q, K, options);
      const { score, weights } = v._scoreAndVariant(options, d, dk, nk);
      return { nq, d, cost: [score, nq, nk, d, dk, 0, weights.hidden || 0, false], splittable: splittable(score, Q, nq, d) };
    },
    attention(Q, K, V, options) {
      const a = v._attentionInputs(Q, K, V, options, ['returns']);
      const want = returnsOption('options.returns', options.returns);
      const outputOnly = want.size === 1 && want.has('output');
      return { nq: a.nq, d: a.d, want, cost: [a.score, a.nq, a.nk, a.d, a.dk, a.dv, a.weights.hidden || 0, outputOnly],
        splittable: splittable(a.score, Q, a.nq, a.d) };
    },
    attentionOutput(Q, K, V, options) {
      const a = v._attentionInputs(Q, K, V, options, []);
      return { nq: a.nq, d: a.d, cost: [a.score, a.nq, a.nk, a.d, a.dk, a.dv, a.weights.hidden || 0, true],
        splittable: splittable(a.score, Q, a.nq, a.d) };
    },
  };
}
