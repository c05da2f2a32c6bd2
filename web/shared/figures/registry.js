// Every figure of the demo page (web/pages/demo/demo.js) and of the <attn-scope> element (web/element/), with its
// wiring: the figures own their drawing (web/shared/figures/<Class>.js), this registry owns how they are
// made, fed and scheduled; the computations they need live in web/shared/compute/ (the demo's worker runs
// them there, web/pages/demo/demo-worker.js). A new figure is its class and one entry here (plus its slot in
// web/pages/demo/index.html when the demo shows it).
//
// An entry:
//   figure   the class.
//   options  (host) => the constructor's options. host: { formula(el, key) (web/shared/formulas.js),
//            set(patch) (a change of the state: the demo's setState; the element routes each field to
//            its attribute or its own state), tooltip?, selectable? (the demo's heatmap) }.
//   on       { event: (detail) => patch }: the figure's events as changes of the state.
//   needs    what it is drawn from besides the main result: 'scores' (every scoring function, c.all),
//            'keyVectors' (the main result's k, which the demo's first answer leaves out) and the
//            names of computations in web/shared/compute/teaching.js STEPS (context's need(name)).
//   feed     (fig, x) => void: gives the figure its data from context x (web/shared/compute/attention.js)
//            and draws it.
//   when     when the demo draws it: 'model' (with the trained model's answer, web/shared/compute/use-lite.js
//            modelViews: x is { v: that answer, scoreFunctions: the module's [{ name, formula }] }); 'first' (the first screen: with the main result, before the next
//            paint), 'after-frame' (with the main result, in a task after the next frame), 'extras'
//            (with the worker's second answer: the comparison and teaching computations), 'idle' (with
//            the second answer, only when in view or when the browser is idle, never forced).
//   long     for a long document (isLong, default: a side of LARGE_FROM tokens or more): 'hide' (the
//            figure is hidden), 'extras' (drawn with the second answer instead); short: 'hide' (hidden
//            unless the document is long).
//   whole    drawn from the whole document with the second answer too; other figures drawn with it
//            show a long document's first SMALL_TOKENS tokens (what the worker computed them on).
//   only     'variant': depends only on the kernels chosen, computed and drawn when they change.
//   slot     the demo page's element id, or absent when the demo does not show the figure.
//   views    the element's views this entry adds: { view: [figure names, in order] }.
import { Heatmap } from './Heatmap.js';
import { HeatmapCanvas } from './HeatmapCanvas.js';
import { LineView } from './LineView.js';
import { SelectionSummary } from './SelectionSummary.js';
import { HeadSummary } from './HeadSummary.js';
import { HeadGrid } from './HeadGrid.js';
import { ScoreComparison } from './ScoreComparison.js';
import { WhyPanel } from './WhyPanel.js';
import { ScalingPanel } from './ScalingPanel.js';
import { CosineDotPanel } from './CosineDotPanel.js';
import { DistancePanel } from './DistancePanel.js';
import { HullPanel } from './HullPanel.js';
import { ModelHeads } from './ModelHeads.js';
import { ModelHeadView } from './ModelHeadView.js';
import { ModelKnockouts } from './ModelKnockouts.js';
import { ModelEffect } from './ModelEffect.js';
import { ModelFlow } from './ModelFlow.js';
import { overHeads } from '../selection.js';
import { headSummaries } from '../compute/attention.js';
import { hullGeometry } from '../compute/hull.js';
import { STEPS } from '../compute/teaching.js';
import { HEAD_IMAGES_FROM } from '../scale.js';

/** Head h's [nq, nk] block of a [heads, nq, nk] array. */
const slice = (x, a) => a.subarray(x.head * x.nq * x.nk, (x.head + 1) * x.nq * x.nk);

/** The heatmap's data (the SVG one and the canvas one of a long document take the same). */
function feedHeatmap(fig, x) {
  const { r, st } = x;
  fig.setValueKind(st.values);
  fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq: x.nq, nk: x.nk, heads: x.heads, head: x.head,
    weights: slice(x, r.weights), scores: slice(x, r.scores), masked: x.masked, causal: st.mask === 'causal',
    rowMax: r.stats.maxWeight ? r.stats.maxWeight.subarray(x.head * x.nq, (x.head + 1) * x.nq) : null,
    selfIdentity: !x.c.k && st.proj === 'identity' });
  fig.setSelected(x.cell);
  fig.setSelection({ rows: x.rows, cols: x.cols });
  fig.draw();
}

const onRow = (host) => (i) => host.set({ row: i });

// Each entry is a constant of its own, exported, so that a page that makes one of these figures outside
// the demo (web/pages/imported-attention/model.js, web/pages/lab/lab.js) takes its class from its entry (`new heatmap.figure(slot)`) and
// its bundle keeps only that entry, not every figure.
export const heatmap = {
  figure: Heatmap,
  options: (host) => ({ tooltip: host.tooltip, selectable: !!host.selectable }),
  on: { values: (d) => ({ values: d.kind }) },   // its `select` event: each host's own (cells, rows, columns)
  feed: feedHeatmap,
  when: 'first', long: 'hide', slot: 'fig-heatmap',
  views: { heatmap: ['heatmap'] },
};

/** A long document's heatmap: a canvas. */
export const heatmapLarge = {
  figure: HeatmapCanvas,
  feed: feedHeatmap,
  when: 'first', short: 'hide', slot: 'fig-heatmap-large',
};

export const lines = {
  figure: LineView,
  feed(fig, x) {
    const { r } = x;
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq: x.nq, nk: x.nk, heads: x.heads, weights: r.weights,
      selectedRows: x.rows });
    fig.draw();
  },
  when: 'first', slot: 'fig-lines',
  views: { lines: ['lines'], both: ['heatmap', 'lines'] },
};

/** The selected rows and columns; with none selected, the open cell's row and column. */
export const selection = {
  figure: SelectionSummary,
  on: { clear: () => ({ rows: [], cols: [] }) },
  feed(fig, x) {
    const { r } = x;
    const fromCell = !x.rows.length && !x.cols.length && !!x.cell;
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq: x.nq, nk: x.nk, weights: slice(x, r.weights),
      head: x.head, heads: x.heads, rows: fromCell ? [x.cell[0]] : x.rows, cols: fromCell ? [x.cell[1]] : x.cols, fromCell });
    fig.draw();
  },
  when: 'first', slot: 'fig-selection',
};

/** Mean and max over heads (a pass over the weights); entropies from the module's kernels. */
export const headsum = {
  figure: HeadSummary,
  feed(fig, x) {
    const { r } = x;
    const { mean, max } = overHeads(r.weights, x.heads, x.nq, x.nk);
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq: x.nq, nk: x.nk, heads: x.heads,
      mean, max, rowEntropy: r.stats.entropy, perHead: headSummaries(x.scope, r), masked: x.masked });
    fig.draw();
  },
  when: 'after-frame', long: 'extras', slot: 'fig-headsum',
};

export const heads = {
  figure: HeadGrid,
  on: { pick: (d) => ({ head: d.key }) },
  feed(fig, x) {
    fig.setData({ ...x.r, masked: x.masked });
    fig.setCurrent(x.head);
    fig.draw();
  },
  // A long document's heads are drawn from the pictures the worker builds (web/shared/compute/images.js
  // headImages, with the second answer), unless the result already has them.
  when: 'after-frame', long: 'extras', isLong: (r) => !r.headImages && r.heads * r.nq * r.nk >= HEAD_IMAGES_FROM,
  whole: true, slot: 'fig-heads',
  views: { heads: ['heads', 'heatmap'] },
};

export const compare = {
  figure: ScoreComparison,
  on: { pick: (d) => ({ score: d.key }) },
  needs: ['scores'],
  feed(fig, x) {
    fig.setData({
      results: x.scoreNames.map((name) => ({ info: x.scoreInfo.get(name) || { name, formula: '' }, result: x.c.all.get(name) })),
      head: x.head, masked: x.masked, temperature: x.st.t,
      tokens: { rows: x.r.queryTokenInfo.map((t) => t.text), cols: x.r.keyTokenInfo.map((t) => t.text) },
    });
    fig.setCurrent(x.st.score);
    fig.draw();
  },
  when: 'extras', slot: 'fig-compare',
  views: { compare: ['compare'] },
};

export const why = {
  figure: WhyPanel,
  on: { close: () => ({ cell: null }) },
  needs: ['scores', 'why'],
  feed(fig, x) {
    const m = x.need('why');
    fig.setModel(m && x.cell ? { ...m, kTokens: x.r.keyTokenInfo, maskedKey: (t) => x.masked(m.i, t) } : null);
    fig.draw();
  },
  when: 'extras', whole: true, slot: 'fig-why',
  views: { why: ['heatmap', 'why'] },
};

export const scaling = {
  figure: ScalingPanel,
  options: (host) => ({ formula: host.formula }),
  needs: ['scaling'],
  feed(fig, x) {
    fig.setRows(x.need('scaling'));
    fig.draw();
  },
  when: 'idle', only: 'variant', slot: 'teach-scaling',
  views: { scaling: ['scaling'] },
};

export const cosine = {
  figure: CosineDotPanel,
  options: (host) => ({ formula: host.formula, onRow: onRow(host) }),
  needs: ['scores', 'keyVectors'],
  feed(fig, x) {
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
  when: 'extras', slot: 'teach-cosine',
  views: { 'cosine-dot': ['cosine'] },
};

export const distance = {
  figure: DistancePanel,
  options: (host) => ({ formula: host.formula, onRow: onRow(host), onP: (p) => host.set({ p }) }),
  needs: ['negEuclid', 'idw'],
  feed(fig, x) {
    const { r, st } = x;
    fig.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, row: x.row, head: x.head, p: st.p,
      eps: st.eps === undefined ? 1e-3 : st.eps, negEuclid: x.need('negEuclid'), idw: x.need('idw'), maskedKey: x.masked });
    fig.draw();
  },
  when: 'extras', slot: 'teach-distance',
  views: { distance: ['distance'] },
};

export const hull = {
  figure: HullPanel,
  options: (host) => ({ formula: host.formula, onToggle: (on) => host.set({ exp: on }) }),
  needs: ['hull', 'hullExp', 'hullGeometry'],
  feed(fig, x) {
    const { st } = x;
    const hv = x.need('hull');
    const ex = st.exp ? x.need('hullExp') : null;
    const d = { qTokens: hv.queryTokenInfo, kTokens: hv.keyTokenInfo, values: hv.v[0], dv: hv.dValue[0],
      outputs: hv.output, experimental: ex ? ex.output : null, showExperimental: st.exp };
    // The geometry computed with the rest (by the demo's worker), when it was for what is shown now.
    const geom = x.need('hullGeometry');
    fig.setData({ ...d, geometry: geom && geom.showExperimental === !!(st.exp && ex) ? geom : hullGeometry(d) });
    fig.draw();
  },
  when: 'extras', slot: 'teach-hull',
  views: { hull: ['hull'] },
};

// The trained model (the demo's "trained model" choice, <attn-scope model="use-lite">): x.v is
// web/shared/compute/use-lite.js modelViews' answer; the state's fields: mhead ('L.H'), mswap, mtau, mknock.

/** The model's views that take x.v as it is (the knock-outs, the effect, the flow). */
function feedModelView(fig, x) {
  fig.setData(x.v);
  fig.draw();
}

export const modelHeads = {
  figure: ModelHeads,
  on: { pick: (d) => ({ mhead: d.key }) },
  feed(fig, x) {
    fig.setData(x.v);
    fig.setCurrent(x.v.head);
    fig.draw();
  },
  when: 'model', slot: 'fig-model-heads',
  views: { model: ['modelHeads', 'modelHead', 'modelKnock', 'modelEffect', 'modelFlow'] },
};

export const modelHead = {
  figure: ModelHeadView,
  on: { swap: (d) => ({ mswap: d.name }), tau: (d) => ({ mtau: d.tau }) },
  feed(fig, x) {
    fig.setScoreNames(x.scoreFunctions);
    fig.setData(x.v);
    fig.draw();
  },
  when: 'model', slot: 'fig-model-head',
};

export const modelKnock = {
  figure: ModelKnockouts,
  on: { knock: (d) => ({ mknock: d.heads }) },
  feed: feedModelView,
  when: 'model', slot: 'fig-model-knock',
};

export const modelEffect = {
  figure: ModelEffect,
  feed: feedModelView,
  when: 'model', slot: 'fig-model-effect',
};

export const modelFlow = {
  figure: ModelFlow,
  feed: feedModelView,
  when: 'model', slot: 'fig-model-flow',
};

/** name → entry (see above). The order is the element's order of views. */
export const FIGURES = {
  heatmap, heatmapLarge, lines, selection, headsum, heads, compare, why, scaling, cosine, distance, hull,
  modelHeads, modelHead, modelKnock, modelEffect, modelFlow,
};

/** The element's views: which figures each shows, in order (from the entries' `views`). */
// (Computed in a call marked pure, so that a bundle which does not use VIEWS keeps none of the entries.)
export const VIEWS = /* @__PURE__ */ (() => Object.fromEntries(Object.values(FIGURES).flatMap((e) => Object.entries(e.views || {}))))();

/**
 * Makes the figure `name` in `slot` for a host (see `options` above) and turns its events into
 * host.set(patch). Returns the figure.
 */
export function makeFigure(name, slot, host) {
  const e = FIGURES[name];
  if (!e) throw new Error(`unknown figure ${name} (web/shared/figures/registry.js)`);
  const f = e.options ? new e.figure(slot, e.options(host)) : new e.figure(slot);
  for (const [type, patch] of Object.entries(e.on || {})) f.addEventListener(type, (ev) => host.set(patch(ev.detail)));
  return f;
}

/** The computations (web/shared/compute/teaching.js STEPS) that the figures `names` need. */
export function stepsFor(names) {
  return [...new Set(names.flatMap((n) => (FIGURES[n].needs || []).filter((s) => s in STEPS)))];
}
