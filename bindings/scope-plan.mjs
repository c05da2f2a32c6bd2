// The scope's one internal seam, for the pool of workers (pool.mjs, pool-worker.mjs): a call planned
// without a wasm instance, run on a scope, and its errors in a form that crosses a worker boundary.
// The scope's own calls validate through the same functions (Scope._queryKeyShapes and friends in
// scope-class.mjs are these), so the pool refuses a call exactly as one scope refuses it; nothing
// outside this file reaches into a scope's private members for the pool.
//   planInfo(scope)          what planning needs of an instance: { registry, variants, safeRange },
//                            structured-cloneable (a worker sends it to the pool)
//   planner(info)            → plan(method, args): validates scores / attention / attentionOutput as
//                            the scope does and returns a plain plan { method, nq, d, cost, splittable }
//   runPlan(scope, plan)     runs a plan (a share of one) on a scope, in the caller's terms
//   errorRecord(e)           an error as { name, message, code?, argument?, index?, value? }
import { checkEnum, checkInt, checkKnownKeys, checkShape, errorDetails, nonFiniteElement, typedKind, typedLength } from './scope-checks.mjs';
import {
  SCORE_KEYS, idwOptions, listsOf, maskOption, paddingOption, returnsOption, scoreOption, scoreWeights, temperatureOption,
} from './scope-options.mjs';

// attention()'s and attentionOutput()'s option names (the extra one: attention()'s `returns`).
const ATTENTION_KEYS = Object.freeze(['nq', 'nk', 'd', 'dk', 'dv', 'temperature', 'mask', 'keyPadding', ...SCORE_KEYS]);
const ATTENTION_KEYS_RETURNS = Object.freeze([...ATTENTION_KEYS, 'returns']);
const SCORES_KEYS = Object.freeze(['nq', 'nk', 'd', 'dk', ...SCORE_KEYS]);

// ---- the checks of the calls on your own vectors (the scope's and the pool's) ----

/** Shapes shared by scores() and attention(): nq, nk, d, dk (default d), then Q [nq, d] and K [nk, dk]. */
export function queryKeyShapes(Q, K, options) {
  const nq = checkInt('options.nq', options.nq, 1, 1 << 16);
  const nk = checkInt('options.nk', options.nk, 1, 1 << 16);
  const d = checkInt('options.d', options.d, 1, 1 << 16);
  const dk = options.dk === undefined ? d : checkInt('options.dk', options.dk, 1, 1 << 16);
  // The shape in the message is written only when it is needed (the check itself is checkShape's).
  if (typedKind(Q) !== 'Float32Array' || typedLength(Q) !== nq * d) checkShape('Q', Q, nq * d, `[nq=${nq}, d=${d}]`);  // finite: checked in wasm
  if (typedKind(K) !== 'Float32Array' || typedLength(K) !== nk * dk) checkShape('K', K, nk * dk, `[nk=${nk}, dk=${dk}]`);
  return { nq, nk, d, dk };
}

/**
 * The variant and the score with its parameters; keys narrower or wider than queries only where a
 * score's matrices map between them (the registry's needsWeights). on: { lists, available, variant }
 * (the instance's lists, its variants, the scope's current variant).
 */
export function scoreAndVariant(on, options, d, dk, nk) {
  const variant = options.variant === undefined ? on.variant : options.variant;
  checkEnum('variant', variant, on.available);
  const score = scoreOption('options.score', options.score, on.lists);
  const idw = idwOptions('options.', options);
  const info = on.lists.scoreInfo.get(score);
  const weights = scoreWeights('options.', options, score, info, { dq: d, dk, nk });
  if (dk !== d && !info.needsWeights)
    throw new RangeError(`options.dk: score '${score}' needs keys as wide as queries (d=${d}), got dk=${dk}`);
  return { variant, score, idw, weights };
}

/** Shapes and options shared by attention() and attentionOutput(): validated once, the same way. */
export function attentionInputs(on, Q, K, V, options, extraKeys) {
  checkKnownKeys('options', options, extraKeys.length ? ATTENTION_KEYS_RETURNS : ATTENTION_KEYS);
  const { nq, nk, d, dk } = queryKeyShapes(Q, K, options);
  const dv = checkInt('options.dv', options.dv, 1, 1 << 16);
  if (typedKind(V) !== 'Float32Array' || typedLength(V) !== nk * dv) checkShape('V', V, nk * dv, `[nk=${nk}, dv=${dv}]`);  // finite: checked in wasm
  const temperature = temperatureOption('options.temperature', options.temperature);
  const mask = maskOption('options.mask', options.mask, on.lists);
  const padding = paddingOption('options.keyPadding', options.keyPadding, nk);
  const { variant, score, idw, weights } = scoreAndVariant(on, options, d, dk, nk);
  return { nq, nk, d, dk, dv, temperature, mask, padding, variant, score, idw, weights };
}

// ---- planning (no wasm instance) ----

/** What planning needs of a scope's instance, structured-cloneable. */
export function planInfo(scope) {
  const { min, max } = scope._m._safeRowRange();
  return { registry: scope.registry, variants: scope.variants, safeRange: { min, max } };
}

/**
 * The planner of the calls a pool splits by query rows, from planInfo(scope) of an instance:
 * plan(method, args) checks the arguments exactly as scope[method] does before it touches wasm memory
 * (the same errors, the same order) and returns { method, nq, d, cost, splittable }: cost, the whole
 * call's cost-check arguments (each share checks them); splittable, whether the query rows may go to
 * different instances with no number changing: not when a query row lies outside the safe range
 * (the distance scores then take another path for every row; the registry does not say which scores
 * do this, and such rows are rare enough that one worker is fine).
 */
export function planner(info) {
  const on = { lists: listsOf(info.registry), available: info.variants.available, variant: 'auto' };
  const { min, max } = info.safeRange;
  // Largest |component| of row i within the safe range, or 0 (NaN and infinity count as in range), as
  // src/score.cpp's row_in_safe_range.
  const rowInRange = (Q, i, d) => {
    let m = 0;
    for (let t = i * d, end = t + d; t < end; t++) {
      const a = Math.abs(Q[t]);
      if (!Number.isFinite(a)) return true;
      if (a > m) m = a;
    }
    return m === 0 || (m >= min && m <= max);
  };
  const splittable = (Q, nq, d) => {
    for (let i = 0; i < nq; i++) if (!rowInRange(Q, i, d)) return false;
    return true;
  };
  const plans = {
    scores(Q, K, options) {
      checkKnownKeys('options', options, SCORES_KEYS);
      const { nq, nk, d, dk } = queryKeyShapes(Q, K, options);
      const { score, weights } = scoreAndVariant(on, options, d, dk, nk);
      return { nq, d, cost: [score, nq, nk, d, dk, 0, weights.hidden || 0, false], splittable: splittable(Q, nq, d) };
    },
    attention(Q, K, V, options) {
      const a = attentionInputs(on, Q, K, V, options, ['returns']);
      const want = returnsOption('options.returns', options.returns);
      const outputOnly = want.size === 1 && want.has('output');
      return { nq: a.nq, d: a.d, cost: [a.score, a.nq, a.nk, a.d, a.dk, a.dv, a.weights.hidden || 0, outputOnly], splittable: splittable(Q, a.nq, a.d) };
    },
    attentionOutput(Q, K, V, options) {
      const a = attentionInputs(on, Q, K, V, options, []);
      return { nq: a.nq, d: a.d, cost: [a.score, a.nq, a.nk, a.d, a.dk, a.dv, a.weights.hidden || 0, true], splittable: splittable(Q, a.nq, a.d) };
    },
  };
  return {
    plan(method, args) {
      if (!Object.hasOwn(plans, method)) throw new TypeError(`pool: no method ${method}`);
      return { method, ...plans[method](...args) };
    },
  };
}

// ---- running a plan on a scope ----

/**
 * Runs a plan, or a share of one, on a scope, and returns the scope's result. Plans:
 *   { method: 'scores' | 'attention' | 'attentionOutput', args, cost, row0 }
 *     the call on args (a share: Q its rows from row0 of the caller's Q, options.nq their count);
 *     cost: the whole call's cost-check arguments, checked first, so that a call too large for one
 *     scope is refused the same way whole or in shares; under the causal mask the share counts its
 *     rows from row0. A non-finite element of Q is named by its index in the caller's Q.
 *   { method: 'attend', options, headBegin, headEnd, place?, tokens? }
 *     attend() for heads [headBegin, headEnd) (0, 0: all), with the scope's place and tokens hooks
 *     (scope-text.mjs, _attend).
 *   { method: 'attendKeep', options, headBegin, headEnd }
 *     those heads computed and kept in the heap: { nq, nk, heads, finish(big, tokens), release() }.
 *   { method: 'attendOutput', options, concat, nq, cols }
 *     attend()'s output from the heads' outputs side by side.
 */
export function runPlan(scope, plan) {
  switch (plan.method) {
    case 'scores': case 'attention': case 'attentionOutput': {
      const { args, cost, row0 = 0 } = plan;
      try {
        if (cost) scope._checkCost(...cost);
        return plan.method === 'scores' ? scope.scores(...args)
          : plan.method === 'attention' ? scope._attention(...args, row0) : scope._attentionOutput(...args, row0);
      } catch (e) {
        const r = errorDetails(e);
        if (!r || r.code !== 'non-finite' || r.argument !== 'Q' || !row0) throw e;
        // The scope's error for the caller's Q: its index counted from the caller's first row.
        const { d } = args[args.length - 1];
        throw nonFiniteElement('Q', r.index + row0 * d, r.value);
      }
    }
    case 'attend':
      return scope._attend(plan.options, plan.headBegin ?? 0, plan.headEnd ?? 0, plan.place ?? null, plan.tokens ?? true);
    case 'attendKeep':
      return scope._attendKeep(plan.options, plan.headBegin, plan.headEnd);
    case 'attendOutput':
      return scope._attendOutput(plan.options, plan.concat, plan.nq, plan.cols);
    default:
      throw new TypeError(`runPlan: no method ${plan.method}`);
  }
}

// ---- errors across a worker boundary ----

/**
 * An error as plain data: { name, message } and, for the errors the scope raises with a code
 * (scope-checks.mjs, errorDetails), { code, argument, index, value }: a non-finite element is
 * { code: 'non-finite', argument: 'Q' | 'K' | 'V' | ..., index, value }.
 */
export function errorRecord(e) {
  const record = { name: e && e.name, message: e && e.message };
  const details = errorDetails(e);
  if (details) Object.assign(record, details);
  return record;
}
