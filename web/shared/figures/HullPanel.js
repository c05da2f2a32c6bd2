// Teaching panel 4: attention outputs are convex combinations of the values. Each output row is
// Σ_j w_j v_j with w_j ≥ 0 and Σ w_j = 1, so it lies inside the convex hull of the value vectors; a
// linear projection to 2-D keeps that true, so the projected outputs sit inside the projected hull.
// The experimental variant that rescales the output by 1/√d_v (times an extra matrix) leaves it.
// The plane is the values' (ticking the variant adds points, it does not turn the picture), and the
// view is fitted to the values and the outputs: an experimental output beyond it is pinned to the
// edge, drawn hollow, and counted in the text.
import { scaleLinear } from 'd3-scale';
import { setTokenText } from './base.js';
import { TeachingPanel } from './TeachingPanel.js';

export class HullPanel extends TeachingPanel {
  constructor(slot, { formula, onToggle }) {
    super(slot, {
      id: 'hull', title: '4 · Outputs stay inside the values', formula, formulaOf: 'convex', width: 860,
      text: 'Attention’s output for a query is the weighted average of the value vectors, with weights that are never negative and sum to 1: a convex combination. So every output lies inside the convex hull of the values (the polygon they span). Here the values are the key sentence’s word vectors (one head, identity projection), flattened to 2-D along their two main directions (PCA); a linear map keeps an average an average, so the outputs must land inside the outline.',
    });
    const c = this.body.append('div').attr('class', 'panel-controls');
    const lab = c.append('label').attr('class', 'checkbox');
    this.toggle = lab.append('input').attr('type', 'checkbox').attr('id', 'hull-experimental')
      .on('change', (ev) => onToggle(ev.target.checked));
    this.toggleText = lab.append('span').text(' also show the EXPERIMENTAL scaled output (A·V·Wₓ)/√d_v');
    this.addPlot('hull', {
      gHull: 'path.hull-path', gLinks: 'g.hull-links', gValues: 'g.values', gOut: 'g.outputs', gExp: 'g.experimental', gLegend: 'g.hull-legend',
    });
    this.stat = this.body.append('p').attr('class', 'teach-stat');
  }

  /*
   * setData(d), d: { kTokens, qTokens, values: Float32Array [nk, dv], outputs: [nq, dv], dv,
   *      experimental: Float32Array [nq, dv] | null, showExperimental,
   *      geometry: what web/shared/compute/hull.js hullGeometry computes of the same data }
   */

  draw() {
    const d = this.data;
    if (!d) return;
    this.toggle.property('checked', !!d.showExperimental);
    // Wide: the legend beside the plot (860 × 400). Narrow (a phone): the plot as wide as the panel and
    // the legend under it, so the labels keep their size instead of the whole picture shrinking.
    const room = this.watchRoom();
    const narrow = room < 640;
    const legendRows = d.geometry && d.geometry.E && d.geometry.E.length ? 4 : 3;
    const legendH = narrow ? legendRows * 18 + 8 : 0;
    const W = narrow ? Math.max(300, Math.floor(room)) : 860, H = narrow ? 320 + legendH : 400, m = narrow ? 22 : 34;
    this.setSize(W, H);
    // The geometry comes computed (web/shared/compute/hull.js: by the demo's worker, or the element's feed).
    const g = d.geometry;
    const { nk, nq, dv, V, O, E } = g;
    if (!V) {
      this.gHull.attr('d', null);
      for (const gr of [this.gValues, this.gOut, this.gExp, this.gLinks]) gr.selectAll('*').remove();
      this.stat.text('Needs at least two keys to draw a hull.');
      return;
    }
    // The view: the values and the outputs (the experimental outputs may lie far outside; pinned below).
    const seen = V.concat(O);
    const xs = seen.map((p) => p[0]), ys = seen.map((p) => p[1]);
    const pad = (lo, hi) => { const r = hi - lo || 1; return [lo - 0.06 * r, hi + 0.06 * r]; };
    const x = scaleLinear().domain(pad(Math.min(...xs), Math.max(...xs))).range([m, W - m - (narrow ? 40 : 230)]);
    const y = scaleLinear().domain(pad(Math.min(...ys), Math.max(...ys))).range([H - legendH - m, m]);
    const [x0, x1] = x.range(), [y1, y0] = y.range();
    const pin = (p) => {
      const px = x(p[0]), py = y(p[1]);
      const cx = Math.min(x1, Math.max(x0, px)), cy = Math.min(y1, Math.max(y0, py));
      return { x: cx, y: cy, out: cx !== px || cy !== py };
    };
    const EP = E.map(pin);
    const h = g.hull;
    this.gHull.attr('d', h.length >= 3 ? 'M' + h.map((p) => `${x(p[0])},${y(p[1])}`).join('L') + 'Z' : null);
    const vg = this.gValues.selectAll('g.v').data(V).join((enter) => {
      const g = enter.append('g').attr('class', 'v');
      g.append('circle').attr('r', 4.5);
      g.append('text').attr('class', 'token-label').attr('x', 7).attr('dominant-baseline', 'central');
      return g;
    }).attr('transform', (p) => `translate(${x(p[0])},${y(p[1])})`);
    vg.select('text').data(d.kTokens).call(setTokenText, (t) => t, 12);
    const og = this.gOut.selectAll('g.o').data(O).join((enter) => {
      const g = enter.append('g').attr('class', 'o');
      g.append('rect').attr('x', -3.5).attr('y', -3.5).attr('width', 7).attr('height', 7).attr('transform', 'rotate(45)');
      g.append('text').attr('class', 'output-label').attr('x', 6).attr('y', 8);
      return g;
    }).attr('transform', (p) => `translate(${x(p[0])},${y(p[1])})`);
    // Name the outputs when there are few enough to read.
    const named = (t) => (nq <= 14 ? t : { text: '', oov: false });
    og.select('text').data(d.qTokens).call(setTokenText, named, 10);
    og.selectAll('title').data((_, i) => [i]).join('title').text((i) => `output of ‘${d.qTokens[i].text}’`);
    const eg = this.gExp.selectAll('g.e').data(EP).join((enter) => {
      const g = enter.append('g').attr('class', 'e');
      g.append('path').attr('d', 'M-5,-5L5,5M-5,5L5,-5');
      g.append('text').attr('class', 'output-label').attr('x', 6).attr('y', -6);
      g.append('title');
      return g;
    }).attr('transform', (p) => `translate(${p.x},${p.y})`).classed('pinned', (p) => p.out);
    eg.select('text').data(d.qTokens.slice(0, EP.length)).call(setTokenText, named, 10);
    eg.select('title').text((p, i) => `experimental output of ‘${d.qTokens[i].text}’${p.out ? ' (outside the drawn area: pinned to its edge)' : ''}`);
    this.gLinks.selectAll('line').data(E.length ? O.map((p, i) => [p, EP[i]]) : []).join('line')
      .attr('x1', (l) => x(l[0][0])).attr('y1', (l) => y(l[0][1])).attr('x2', (l) => l[1].x).attr('y2', (l) => l[1].y);
    // The labels, kept off each other and off the marks (values, outputs, experimental outputs).
    const marks = [...V.map((p) => [x(p[0]), y(p[1]), 5]), ...O.map((p) => [x(p[0]), y(p[1]), 5]), ...EP.map((p) => [p.x, p.y, 6])];
    const hidden = separateLabels([...this.gValues.selectAll('g.v text').nodes(), ...this.gOut.selectAll('g.o text').nodes(), ...this.gExp.selectAll('g.e text').nodes()], marks);

    const legend = [
      { cls: 'lg-v', label: 'value vector (a key word)' },
      { cls: 'lg-o', label: 'output (one per query)' },
      { cls: 'lg-h', label: 'convex hull of the values' },
    ].concat(E.length ? [{ cls: 'lg-e', label: 'experimental scaled output' }] : []);
    this.gLegend.attr('transform', narrow ? `translate(${m},${H - legendH + 12})` : `translate(${W - 220},${m})`);
    const lg = this.gLegend.selectAll('g').data(legend).join((enter) => {
      const g = enter.append('g');
      g.append('rect').attr('width', 10).attr('height', 10).attr('y', -5);
      g.append('text').attr('x', 14).attr('dominant-baseline', 'central');
      return g;
    }).attr('transform', (_, k) => `translate(0,${k * 18})`).attr('class', (l) => l.cls);
    lg.select('text').text((l) => l.label);

    let s = `In all ${dv} dimensions, ${g.inside} of ${nq} outputs lie inside the convex hull of the values.`;
    if (E.length) {
      const pinned = EP.filter((p) => p.out).length;
      s += ` The experimental scaled outputs: ${g.insideE} of ${nq}. Rescaled (and multiplied by another matrix), they are no longer averages of the values`
        + (g.lengthRatio !== null ? `: on average ${fmtRatio(g.lengthRatio)} times as long as the plain outputs${g.lengthRatio < 0.5 ? ', so in this plane they crowd together' : ''}.` : '.');
      if (pinned) s += ` ${pinned} of them lie beyond the drawn area and are pinned to its edge (hollow).`;
    }
    if (hidden) s += ` ${hidden} label${hidden === 1 ? '' : 's'} left out where ${hidden === 1 ? 'it' : 'they'} would overlap another (hover a point for its word).`;
    this.stat.text(s);
    // Here d_k = d_v: one head, identity projections (the word vectors are the queries, keys and values).
    this.toggleText.text(` also show the EXPERIMENTAL scaled output (A·V·Wₓ)/√d_v (here d_v = d_k = ${dv})`);
    this.captionEl.text(`2-D projection: the first two principal components of the ${nk} value vectors (d_v = ${dv}); the same plane with or without the experimental outputs.`);
  }
}

const fmtRatio = (r) => (r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toPrecision(2));

/**
 * Moves apart the labels (SVG text elements inside translated groups) that overlap: each, in order, is
 * tried at its place and then 12, 24 px below or above; one that fits nowhere is emptied (its point keeps
 * its title); `marks` ([x, y, radius] of the points) are kept clear too. Returns how many were emptied. The boxes are estimated from the characters (no layout
 * pass in the draw): ~0.6 em a character, 11 px token labels, 10 px output labels.
 */
function separateLabels(texts, marks = []) {
  const placed = marks.map(([cx, cy, r]) => ({ x: cx - r, y: cy - r, w: 2 * r, h: 2 * r }));
  let hidden = 0;
  for (const t of texts) {
    const chars = Array.from(t.textContent || '').length;
    if (!chars) continue;
    if (t.dataset.y0 === undefined) t.dataset.y0 = t.getAttribute('y') ?? '0';
    const y0 = Number(t.dataset.y0);
    const px = t.classList.contains('token-label') ? 11 : 10;
    const central = t.getAttribute('dominant-baseline') === 'central';
    const [, tx, ty] = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(t.parentNode.getAttribute('transform') || '') || [0, 0, 0];
    const at = (dy) => ({ x: Number(tx) + Number(t.getAttribute('x') || 0), y: Number(ty) + y0 + dy - (central ? px / 2 : 0.8 * px), w: chars * 0.6 * px, h: px });
    const clear = (b) => placed.every((p) => b.x >= p.x + p.w || p.x >= b.x + b.w || b.y >= p.y + p.h || p.y >= b.y + b.h);
    const dy = [0, 12, -12, 24, -24].find((d) => clear(at(d)));
    if (dy === undefined) {
      t.textContent = '';
      hidden++;
      t.setAttribute('y', String(y0));
      continue;
    }
    t.setAttribute('y', String(y0 + dy));
    placed.push(at(dy));
  }
  return hidden;
}
