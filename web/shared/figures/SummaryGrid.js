// Head and layer summaries of an imported attention stack (from scope.headSummaries, a C++ kernel):
// one cell per (layer, head) coloured by the chosen measure, plus a column with each layer's mean over
// its heads. Measures: mean row entropy (nats; low = focused heads), the largest weight, and the mean of
// each row's largest weight. Clicking a cell picks that head ('pick' event { layer, head }).
import { interpolateViridis } from 'd3-scale-chromatic';
import { Figure, fmt, colourTable, luminance } from './base.js';

const viridis = colourTable(interpolateViridis);
export const SUMMARY_MEASURES = [
  ['entropy', 'mean row entropy (nats)'],
  ['max', 'largest weight'],
  ['meanMax', 'mean row maximum'],
];

export class SummaryGrid extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'summary',
      title: 'Head summaries',
      caption: '',
    });
    const wrap = this.tools.insert('span', ':first-child').attr('class', 'values-choice');
    wrap.append('label').attr('for', 'summary-measure').attr('class', 'inline-label').text('show');
    this.select = wrap.append('select').attr('id', 'summary-measure')
      .on('change', (ev) => this.emit('measure', { measure: ev.target.value }));
    this.select.selectAll('option').data(SUMMARY_MEASURES).join('option').attr('value', (o) => o[0]).text((o) => o[1]);
    this.addPlot('summary-grid');
    this.gCells = this.svg.append('g');
    this.gLabels = this.svg.append('g');
    this.currentRect = this.svg.append('rect').attr('class', 'grid-current');
    this.measure = 'entropy';
    this.current = { layer: 0, head: 0 };
  }

  /*
   * setData(d), d: { layers, heads, summaries: { entropy, max, meanMax: Float32Array [layers, heads] },
   * page?: the part drawn, { l0, h0, layers, heads } (web/shared/compute/imported.js gridPage; default
   * all of it) }. The layer means are over all of a layer's heads, drawn or not.
   */
  setMeasure(m) { this.measure = m; this.select.property('value', m); }
  setCurrent(layer, head) { this.current = { layer, head }; }

  /** Each layer's mean over its heads of the current measure. */
  layerMeans() {
    const { layers, heads, summaries } = this.data;
    const v = summaries[this.measure];
    return Array.from({ length: layers }, (_, l) => {
      let s = 0;
      for (let h = 0; h < heads; h++) s += v[l * heads + h];
      return s / heads;
    });
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const { summaries } = d;
    const all = summaries[this.measure];
    const page = d.page || { l0: 0, h0: 0, layers: d.layers, heads: d.heads };
    const { layers, heads, l0, h0 } = page;
    const v = new Float32Array(layers * heads);
    for (let l = 0; l < layers; l++) v.set(all.subarray((l0 + l) * d.heads + h0, (l0 + l) * d.heads + h0 + heads), l * heads);
    const cell = Math.max(6, Math.min(44, Math.floor(640 / (heads + 1.5))));
    const left = 36, top = 22, gap = cell / 2;
    const W = left + (heads + 1) * cell + gap + 4, H = top + layers * cell + 4;
    this.setSize(W, H);
    let lo = Infinity, hi = -Infinity;
    for (const x of v) { if (x < lo) lo = x; if (x > hi) hi = x; }
    const span = hi > lo ? hi - lo : 1;
    const colour = (x) => viridis[Math.max(0, Math.min(255, Math.round(((x - lo) / span) * 255)))];
    const means = this.layerMeans().slice(l0, l0 + layers);
    const cells = [];
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) cells.push({ l, h, x: v[l * heads + h], mean: false });
      cells.push({ l, h: heads, x: means[l], mean: true });
    }
    const X = (c) => left + c.h * cell + (c.mean ? gap : 0);
    const Y = (c) => top + c.l * cell;
    const text = cell >= 34;
    const rgb = (c) => colour(c.x);
    const g = this.gCells.selectAll('g.sum-cell').data(cells).join((enter) => {
      const e = enter.append('g').attr('class', 'sum-cell');
      e.append('rect');
      e.append('text').attr('class', 'cell-value').attr('text-anchor', 'middle').attr('dominant-baseline', 'central');
      return e;
    });
    g.classed('layer-mean', (c) => c.mean)
      .on('click', (_, c) => { if (!c.mean) this.emit('pick', { layer: l0 + c.l, head: h0 + c.h }); });
    g.select('rect').attr('x', X).attr('y', Y).attr('width', cell - 1).attr('height', cell - 1)
      .attr('fill', (c) => `rgb(${rgb(c).join(',')})`);
    g.select('text').attr('x', (c) => X(c) + cell / 2 - 0.5).attr('y', (c) => Y(c) + cell / 2)
      .attr('class', (c) => `cell-value ${luminance(rgb(c)) > 0.35 ? 'dark' : 'light'}`)
      .text((c) => (text ? fmt(c.x, 2) : ''));
    g.selectAll('title').remove();
    g.append('title').text((c) => (c.mean ? `layer ${l0 + c.l + 1}, mean over heads: ${fmt(c.x, 4)}` : `layer ${l0 + c.l + 1}, head ${h0 + c.h + 1}: ${fmt(c.x, 4)}`));
    const every = Math.max(1, Math.ceil(16 / cell));
    const labels = [];
    for (let h = 0; h < heads; h += every) labels.push({ x: left + h * cell + cell / 2, y: top - 6, t: `H${h0 + h + 1}`, a: 'middle' });
    labels.push({ x: left + heads * cell + gap + cell / 2, y: top - 6, t: 'mean', a: 'middle' });
    for (let l = 0; l < layers; l += every) labels.push({ x: left - 5, y: top + l * cell + cell / 2, t: `L${l0 + l + 1}`, a: 'end' });
    this.gLabels.selectAll('text').data(labels).join('text').attr('class', 'axis-title')
      .attr('x', (t) => t.x).attr('y', (t) => t.y).attr('text-anchor', (t) => t.a).attr('dominant-baseline', 'central')
      .text((t) => t.t);
    const layer = this.current.layer - l0, head = this.current.head - h0;
    this.currentRect.attr('visibility', layer >= 0 && head >= 0 && layer < layers && head < heads ? 'visible' : 'hidden');
    this.currentRect.attr('x', left + head * cell - 1.5).attr('y', top + layer * cell - 1.5).attr('width', cell + 2).attr('height', cell + 2);
    const name = SUMMARY_MEASURES.find((m) => m[0] === this.measure)[1];
    this.titleEl.text(`Head summaries: ${name}`);
    const lowest = means.indexOf(Math.min(...means)), highest = means.indexOf(Math.max(...means));
    this.captionEl.text(`Each cell is one head's ${name}, coloured from ${fmt(lo, 3)} to ${fmt(hi, 3)}; the last column is each layer's mean over its heads (lowest: layer ${l0 + lowest + 1}, ${fmt(means[lowest], 3)}; highest: layer ${l0 + highest + 1}, ${fmt(means[highest], 3)}). `
      + (layers < d.layers || heads < d.heads ? `Shown: layers ${l0 + 1}–${l0 + layers} and heads ${h0 + 1}–${h0 + heads} of ${d.layers} × ${d.heads}, the block holding the chosen head. ` : '')
      + 'Computed by the headSummaries C++ kernel. Click a head to open it above.');
  }
}
