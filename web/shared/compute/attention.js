// From a state to what the figures are drawn from, shared by the demo's worker (web/pages/demo/demo-worker.js) and
// the <attn-scope> element (web/element/): one computation (compute) and the context every figure's feed
// reads (context; web/shared/figures/registry.js holds the feeds), whose need(name) runs the computations of
// ./teaching.js. Every number comes from the attnscope module; nothing here touches the DOM.
import { within } from '../selection.js';
import { teacher } from './teaching.js';

/**
 * The state both use (web/pages/demo/state.js: defaultState):
 * { q, k, score, t, heads, proj, seed, pos, mask, variant, head, values, p, eps?, cell, row, exp }
 */

/**
 * Computes the main result for a state. `limit`: tokens per sentence (longer text is cut: the demo says
 * so; the element refuses it before calling this). `scoreParams`: the state's p and eps apply to every
 * score (the element); without it they are the distance panel's own (the demo).
 * Returns { main, all, base, q, k } or { empty: true, q, k }; q and k are { text, total } (total: the
 * uncut token count).
 */
export function compute(scope, state, opts) {
  const p = plan(scope, state, opts);
  return p.empty ? p : computed(scope, state, p, scope.attend({ ...p.base, score: state.score }));
}

/**
 * The main call of compute() before it runs: { base (attend's options but the score), q, k, nq, nk
 * (the token counts it will have) } or { empty: true, q, k }. The demo's worker runs a long document's
 * main call on its pool of workers (the same options, the same numbers) and then computed().
 */
export function plan(scope, state, { limit, scoreParams = false }) {
  const clip = (text) => {
    let toks;
    try { toks = scope.tokenize(text, { maxTokens: 65536 }); } catch { return { text, total: -1 }; }
    if (toks.length > limit) return { text: text.slice(0, toks[limit - 1].end), total: toks.length };
    return { text, total: toks.length };
  };
  const q = clip(state.q);
  const k = state.k.trim() ? clip(state.k) : null;
  if (q.total === 0 || (k && k.total === 0)) return { empty: true, q, k };
  const base = {
    query: q.text, temperature: state.t, heads: state.heads, projection: state.proj, seed: state.seed,
    positional: state.pos, mask: state.mask, variant: state.variant, maxTokens: limit,
  };
  if (scoreParams) { base.p = state.p; base.eps = state.eps; }
  if (k) base.keys = k.text;
  const nq = Math.min(Math.max(q.total, 0), limit);
  return { base, q, k, nq, nk: k ? Math.min(Math.max(k.total, 0), limit) : nq };
}

/** compute()'s result from its plan and the main result (attend with the plan's options and state.score). */
export function computed(scope, state, { base, q, k }, main) {
  // The other scoring functions are computed when a figure asks for them (the comparison grid, the
  // "Why" table, panel 2), so a keystroke with those out of view costs one attention call, not one per scoring function.
  const cache = new Map([[state.score, main]]);
  const all = {
    get(name) {
      if (!cache.has(name)) cache.set(name, scope.attend({ ...base, score: name }));
      return cache.get(name);
    },
  };
  return { main, all, base, q, k };
}

/**
 * What every figure's feeder needs, for one computation c of state st:
 * { scope, c, st, scoreNames, scoreInfo: Map, nearest(tok) } plus the derived head, masked, cell, row,
 * and need(name) (see below).
 */
export function context(scope, c, st, { scoreNames, scoreInfo, nearest, pre = null }) {
  const r = c.main;
  const { nq, nk, heads } = r;
  const head = Math.min(st.head, heads - 1);
  const causal = st.mask === 'causal';
  const masked = (i, j) => causal && j > i;
  const cell = st.cell && st.cell[0] < nq && st.cell[1] < nk ? st.cell : null;
  // The query word of panels 2 and 3: the chosen one, else the open cell's row, else the first word.
  const row = st.row !== null && st.row !== undefined && st.row < nq ? st.row
    : cell ? cell[0] : Math.max(0, r.queryTokenInfo.findIndex((t) => t.kind === 'word' && !t.oov));
  // Selected rows and columns (the demo's; the element has none), within this result's token counts.
  const rows = within(st.rows, nq), cols = within(st.cols, nk);
  const x = { scope, c, st, r, nq, nk, heads, head, masked, cell, row, rows, cols, scoreNames, scoreInfo, nearest, pre };
  // need(name): one of the computations of web/shared/compute/teaching.js (STEPS) for this state. pre: what
  // the demo's worker already computed (web/pages/demo/demo-worker.js; its page holds no scope); else computed here,
  // with this context's scope, once.
  x.need = pre ? (name) => pre.teach[name] : teacher(x);
  return x;
}

/** The nearest vocabulary words of a token (cached per scope by the caller's Map). */
export function nearestWords(scope, cache, tok) {
  if (tok.oov) return [];
  if (!cache.has(tok.lookup)) {
    let list = [];
    try { list = scope.nearest(tok.lookup, 7).filter((w) => w.word !== tok.lookup).slice(0, 5); } catch { /* no neighbours */ }
    cache.set(tok.lookup, list);
  }
  return cache.get(tok.lookup);
}

/**
 * The per-head numbers of the head summary (the module's headSummaries kernel) of a main result,
 * computed once and kept with it (the demo's worker computes them with the result and sends them).
 */
export function headSummaries(scope, r) {
  if (!r.headSummaries) r.headSummaries = scope.headSummaries(r.weights, { layers: 1, heads: r.heads, nq: r.nq, nk: r.nk });
  return r.headSummaries;
}
