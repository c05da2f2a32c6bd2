// Teaching panel 4: attention outputs are convex combinations of the values. Each output row is
// Σ_j w_j v_j with w_j ≥ 0 and Σ w_j = 1, so it lies inside the convex hull of the value vectors; a
// linear projection to 2-D keeps that true, so the projected outputs sit inside the projected hull.
// The experimental variant that rescales the output by 1/√d_v (times an extra matrix) leaves it.
import { scaleLinear } from 'd3-scale';
import { Figure, setTokenText } from './base.js';

export class HullPanel extends Figure {
  constructor(slot, { formula, onToggle }) {
    super(slot, { id: 'hull', title: '4 · Outputs stay inside the values' });
    const text = this.body.append('div').attr('class', 'teach-text');
    text.append('p').text('Attention’s output for a query is the weighted average of the value vectors, with weights that are never negative and sum to 1: a convex combination. So every output lies inside the convex hull of the values (the polygon they span). Here the values are the key sentence’s word vectors (one head, identity projection), flattened to 2-D along their two main directions (PCA); a linear map keeps an average an average, so the outputs must land inside the outline.');
    formula(text.append('div').attr('class', 'formula').node(), 'convex');
    const c = this.body.append('div').attr('class', 'panel-controls');
    const lab = c.append('label').attr('class', 'checkbox');
    this.toggle = lab.append('input').attr('type', 'checkbox').attr('id', 'hull-experimental')
      .on('change', (ev) => onToggle(ev.target.checked));
    lab.append('span').text(' also show the EXPERIMENTAL scaled output (A·V·Wₓ)/√d_v');
    this.addPlot('hull');
    this.gHull = this.svg.append('path').attr('class', 'hull-path');
    this.gLinks = this.svg.append('g').attr('class', 'hull-links');
    this.gValues = this.svg.append('g').attr('class', 'values');
    this.gOut = this.svg.append('g').attr('class', 'outputs');
    this.gExp = this.svg.append('g').attr('class', 'experimental');
    this.gLegend = this.svg.append('g').attr('class', 'hull-legend');
    this.stat = this.body.append('p').attr('class', 'teach-stat');
  }

  /**
   * d: { kTokens, qTokens, values: Float32Array [nk, dv], outputs: [nq, dv], dv,
   *      experimental: Float32Array [nq, dv] | null, showExperimental,
   *      geometry: what web/shared/compute/hull.js hullGeometry computes of the same data }
   */
  setData(d) { this.d = d; }

  draw() {
    const d = this.d;
    if (!d) return;
    this.toggle.property('checked', !!d.showExperimental);
    const W = 860, H = 400, m = 34;
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
    const all = V.concat(O, E);
    const xs = all.map((p) => p[0]), ys = all.map((p) => p[1]);
    const pad = (lo, hi) => { const r = hi - lo || 1; return [lo - 0.06 * r, hi + 0.06 * r]; };
    const x = scaleLinear().domain(pad(Math.min(...xs), Math.max(...xs))).range([m, W - m - 230]);
    const y = scaleLinear().domain(pad(Math.min(...ys), Math.max(...ys))).range([H - m, m]);
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
    og.select('text').data(d.qTokens).call(setTokenText, (t) => (nq <= 14 ? t : { text: '', oov: false }), 10);
    og.selectAll('title').data((_, i) => [i]).join('title').text((i) => `output of ‘${d.qTokens[i].text}’`);
    this.gExp.selectAll('path').data(E).join('path')
      .attr('d', (p) => `M${x(p[0]) - 5},${y(p[1]) - 5}L${x(p[0]) + 5},${y(p[1]) + 5}M${x(p[0]) - 5},${y(p[1]) + 5}L${x(p[0]) + 5},${y(p[1]) - 5}`);
    this.gLinks.selectAll('line').data(E.length ? O.map((p, i) => [p, E[i]]) : []).join('line')
      .attr('x1', (l) => x(l[0][0])).attr('y1', (l) => y(l[0][1])).attr('x2', (l) => x(l[1][0])).attr('y2', (l) => y(l[1][1]));

    const legend = [
      { cls: 'lg-v', label: 'value vector (a key word)' },
      { cls: 'lg-o', label: 'output (one per query)' },
      { cls: 'lg-h', label: 'convex hull of the values' },
    ].concat(E.length ? [{ cls: 'lg-e', label: 'experimental scaled output' }] : []);
    this.gLegend.attr('transform', `translate(${W - 220},${m})`);
    const lg = this.gLegend.selectAll('g').data(legend).join((enter) => {
      const g = enter.append('g');
      g.append('rect').attr('width', 10).attr('height', 10).attr('y', -5);
      g.append('text').attr('x', 14).attr('dominant-baseline', 'central');
      return g;
    }).attr('transform', (_, k) => `translate(0,${k * 18})`).attr('class', (l) => l.cls);
    lg.select('text').text((l) => l.label);

    let s = `In all ${dv} dimensions, ${g.inside} of ${nq} outputs lie inside the convex hull of the values.`;
    if (E.length) {
      s += ` The experimental scaled outputs: ${g.insideE} of ${nq}. Rescaled (and multiplied by another matrix), they are no longer averages of the values.`;
    }
    this.stat.text(s);
    this.captionEl.text(`2-D projection: the first two principal components of the ${nk} value vectors${E.length ? ' and the experimental outputs' : ''} (d_v = ${dv}).`);
  }
}
