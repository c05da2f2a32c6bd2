// From a state to drawn figures, shared by the demo page (web/main.js) and the <attn-scope> element
// (web/element/): one computation (compute), then one function per figure that hands it its data and
// draws it (FEED). The demo and the element differ only in which figures they have and which
// controls change the state; every number still comes from the attnscope module.
import { scalingExperiment } from './ScalingPanel.js';
import { within, overHeads } from '../selection.js';

/**
 * The state both use (web/state.js: defaultState):
 * { q, k, score, t, heads, proj, seed, pos, mask, variant, head, values, p, eps?, cell, row, exp }
 */

/**
 * Computes the main result for a state. `limit`: tokens per sentence (longer text is cut: the demo says
 * so; the element refuses it before calling this). `scoreParams`: the state's p and eps apply to every
 * score (the element); without it they are the distance panel's own (the demo).
 * Returns { main, all, base, q, k } or { empty: true, q, k }; q and k are { text, total } (total: the
 * uncut token count).
 */
export function compute(scope, state, { limit, scoreParams = false }) {
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
  const main = scope.attend({ ...base, score: state.score });
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
 * { scope, c, st, scoreNames, scoreInfo: Map, nearest(tok) } plus the derived head, masked, cell, row.
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
  // pre: what the demo's worker already computed for this state (web/worker.js): the feeders then
  // take the teaching panels' results and "Why this weight?"'s model from it instead of calling scope.
  return { scope, c, st, r, nq, nk, heads, head, masked, cell, row, rows, cols, scoreNames, scoreInfo, nearest, pre };
}

const slice = (x, a) => a.subarray(x.head * x.nq * x.nk, (x.head + 1) * x.nq * x.nk);

/** name → (figure, ctx) => void: gives the figure its data and draws it. */
export const FEED = {
  heatmap(fig, x) {
    const { r, st } = x;
    fig.setValueKind(st.values);
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq: x.nq, nk: x.nk, heads: x.heads, head: x.head,
      weights: slice(x, r.weights), scores: slice(x, r.scores), masked: x.masked, causal: st.mask === 'causal',
      rowMax: r.stats.maxWeight ? r.stats.maxWeight.subarray(x.head * x.nq, (x.head + 1) * x.nq) : null,
      selfIdentity: !x.c.k && st.proj === 'identity' });
    fig.setSelected(x.cell);
    fig.setSelection({ rows: x.rows, cols: x.cols });
    fig.draw();
  },
  /** The selected rows and columns; with none selected, the open cell's row and column. */
  selection(fig, x) {
    const { r } = x;
    const fromCell = !x.rows.length && !x.cols.length && !!x.cell;
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq: x.nq, nk: x.nk, weights: slice(x, r.weights),
      head: x.head, heads: x.heads, rows: fromCell ? [x.cell[0]] : x.rows, cols: fromCell ? [x.cell[1]] : x.cols, fromCell });
    fig.draw();
  },
  /** Mean and max over heads (here: a pass over the weights); entropies from the module's kernels. */
  headsum(fig, x) {
    const { r, scope } = x;
    const { mean, max } = overHeads(r.weights, x.heads, x.nq, x.nk);
    // The demo's worker computed them with the result (its page holds no scope); the element asks its own.
    const perHead = r.headSummaries || scope.headSummaries(r.weights, { layers: 1, heads: x.heads, nq: x.nq, nk: x.nk });
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq: x.nq, nk: x.nk, heads: x.heads,
      mean, max, rowEntropy: r.stats.entropy, perHead, masked: x.masked });
    fig.draw();
  },
  lines(fig, x) {
    const { r } = x;
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq: x.nq, nk: x.nk, heads: x.heads, weights: r.weights,
      selectedRows: x.rows });
    fig.draw();
  },
  heads(fig, x) {
    fig.setData({ ...x.r, masked: x.masked });
    fig.setCurrent(x.head);
    fig.draw();
  },
  compare(fig, x) {
    fig.setData({
      results: x.scoreNames.map((name) => ({ info: x.scoreInfo.get(name) || { name, formula: '' }, result: x.c.all.get(name) })),
      head: x.head, masked: x.masked, temperature: x.st.t,
    });
    fig.setCurrent(x.st.score);
    fig.draw();
  },
  why(fig, x) {
    if (x.pre) {
      const m = x.pre.why;
      fig.setModel(m && x.cell ? { ...m, kTokens: x.r.keyTokenInfo, maskedKey: (t) => x.masked(m.i, t) } : null);
    } else fig.setModel(x.cell ? whyModel(x, x.cell[0], x.cell[1]) : null);
    fig.draw();
  },
  /** Panel 1 depends only on the kernels chosen, not on the sentences. */
  scaling(fig, x) {
    fig.setRows(x.pre ? x.pre.teach.scaling : scalingExperiment(x.scope, 7, x.st.variant));
    fig.draw();
  },
  cosine(fig, x) {
    const { r, nk, head } = x;
    const dh = r.dHead[head];
    const K = r.k[head];
    const keyNorms = Array.from({ length: nk }, (_, j) => {
      let s2 = 0;
      for (let t = 0; t < dh; t++) s2 += K[j * dh + t] ** 2;
      return Math.sqrt(s2);
    });
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, row: x.row, head, keyNorms,
      dot: x.c.all.get('dot'), cosine: x.c.all.get('cosine'), temperature: x.st.t, maskedKey: x.masked });
    fig.draw();
  },
  distance(fig, x) {
    const { r, st } = x;
    const atOne = { ...x.c.base, temperature: 1 };
    const eps = st.eps === undefined ? 1e-3 : st.eps;
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, row: x.row, head: x.head, p: st.p, eps,
      negEuclid: x.pre ? x.pre.teach.negEuclid : x.scope.attend({ ...atOne, score: 'neg-euclidean' }),
      idw: x.pre ? x.pre.teach.idw : x.scope.attend({ ...atOne, score: 'idw', p: st.p }),
      maskedKey: x.masked });
    fig.draw();
  },
  hull(fig, x) {
    const { st } = x;
    // One head of raw word vectors: the values are the key words' vectors themselves.
    const hullBase = { ...x.c.base, score: st.score, heads: 1, projection: 'identity' };
    const hv = x.pre ? x.pre.teach.hull : x.scope.attend(hullBase);
    const ex = !st.exp ? null : x.pre ? x.pre.teach.hullExp : x.scope.attend({ ...hullBase, experimentalScaledOutput: true });
    // The demo's worker sends the panel's geometry too (PCA, hull, inside counts: HullPanel.hullGeometry),
    // used when it was computed for what is shown now.
    const geom = x.pre && x.pre.teach.hullGeometry;
    fig.setData({ qTokens: hv.queryTokenInfo, kTokens: hv.keyTokenInfo, values: hv.v[0], dv: hv.dValue[0],
      outputs: hv.output, experimental: ex ? ex.output : null, showExperimental: st.exp,
      geometry: geom && geom.showExperimental === !!(st.exp && ex) ? geom : null });
    fig.draw();
  },
};

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
