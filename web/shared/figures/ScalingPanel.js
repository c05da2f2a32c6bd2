// Teaching panel 1: why divide by √d. For random vectors with unit-variance components, the variance
// of q·k grows like d, so the softmax of unscaled scores collapses onto one key as d grows; dividing
// by √d keeps the variance near 1 and the weights spread. Both curves are computed live by the wasm
// kernels (scope.scores and scope.softmax) on seeded random vectors: web/shared/compute/scaling.js.
import { scaleLog, scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { Figure, fmt } from './base.js';
import { DIMS, N } from '../compute/scaling.js';

export class ScalingPanel extends Figure {
  constructor(slot, { formula }) {
    super(slot, { id: 'scaling', title: '1 · Why divide by √d?' });
    const text = this.body.append('div').attr('class', 'teach-text');
    text.append('p').text('Take a query and a key whose d numbers are random with mean 0 and variance 1. Their dot product is a sum of d such products, so its variance is d: at d = 512 typical scores are ±20, and the softmax of such scores puts almost all the weight on one key (entropy near 0) before any learning has happened. Dividing by √d brings the variance back to 1, and the weights stay spread (entropy near log n, the uniform value).');
    this.formulaEl = text.append('div').attr('class', 'formula');
    formula(this.formulaEl.node(), 'scaling');
    text.append('p').attr('class', 'hint').text(`Computed now, in your browser, by the wasm kernels: for each d, ${N} random queries × ${N} random keys scored with dot and scaled-dot, then a softmax at τ = 1.`);
    this.addPlot('scaling', { left: 'g', right: 'g' });
    this.rows = null;
  }

  setRows(rows) { this.rows = rows; }

  draw() {
    if (!this.rows) return;
    const W = 840, H = 250, pw = 300, ph = 170, m = { l: 56, t: 24 };
    this.setSize(W, H);
    const x = scaleLog().base(2).domain([DIMS[0], DIMS[DIMS.length - 1]]).range([0, pw]);
    const vmax = Math.max(...this.rows.map((r) => r.varDot));
    const yv = scaleLog().domain([0.25, vmax * 2]).range([ph, 0]);
    const ymaxE = Math.log(N) * 1.08;
    const ye = scaleLinear().domain([0, ymaxE]).range([ph, 0]);
    const xAxis = axisBottom(x).tickValues(DIMS).tickFormat((v) => String(v));

    const chart = (g, ox, y, keys, title, ylab, refs) => {
      g.attr('transform', `translate(${ox + m.l},${m.t})`);
      g.selectAll('text.chart-title').data([title]).join('text').attr('class', 'chart-title').attr('x', 0).attr('y', -8).text((t) => t);
      g.selectAll('g.x-axis').data([0]).join('g').attr('class', 'axis x-axis').attr('transform', `translate(0,${ph})`).call(xAxis);
      g.selectAll('g.y-axis').data([0]).join('g').attr('class', 'axis y-axis')
        .call(axisLeft(y).ticks(5, y.base ? '~g' : undefined));
      g.selectAll('text.x-label').data([0]).join('text').attr('class', 'axis-title x-label')
        .attr('x', pw / 2).attr('y', ph + 32).attr('text-anchor', 'middle').text('dimension d');
      g.selectAll('text.y-label').data([ylab]).join('text').attr('class', 'axis-title y-label')
        .attr('transform', `translate(${-44},${ph / 2}) rotate(-90)`).attr('text-anchor', 'middle').text((t) => t);
      g.selectAll('line.ref').data(refs).join('line').attr('class', 'ref')
        .attr('x1', 0).attr('x2', pw).attr('y1', (r) => y(r.v)).attr('y2', (r) => y(r.v));
      g.selectAll('text.ref-label').data(refs).join('text').attr('class', 'ref-label')
        .attr('x', pw - 2).attr('y', (r) => y(r.v) - 4).attr('text-anchor', 'end').text((r) => r.label);
      const series = keys.map((k) => ({ ...k, pts: this.rows.map((r) => [x(r.d), y(Math.max(r[k.key], y.domain()[0]))]) }));
      g.selectAll('path.series').data(series).join('path').attr('class', (s) => `series ${s.cls}`)
        .attr('d', (s) => 'M' + s.pts.map((p) => `${p[0]},${p[1]}`).join('L'));
      g.selectAll('g.dots').data(series).join('g').attr('class', (s) => `dots ${s.cls}`)
        .selectAll('circle').data((s) => s.pts).join('circle').attr('r', 3).attr('cx', (p) => p[0]).attr('cy', (p) => p[1]);
      g.selectAll('text.series-label').data(series).join('text').attr('class', (s) => `series-label ${s.cls}`)
        .attr('x', (s) => s.pts[s.pts.length - 1][0] + 6).attr('y', (s) => s.pts[s.pts.length - 1][1])
        .attr('dominant-baseline', 'central').text((s) => s.label);
    };
    chart(this.left, 0, yv, [
      { key: 'varDot', label: 'q·k', cls: 's-unscaled' },
      { key: 'varScaled', label: 'q·k/√d', cls: 's-scaled' },
    ], 'variance of the scores', 'variance (log scale)', [{ v: 1, label: '1' }]);
    chart(this.right, 420, ye, [
      { key: 'entDot', label: 'q·k', cls: 's-unscaled' },
      { key: 'entScaled', label: 'q·k/√d', cls: 's-scaled' },
    ], 'entropy of the softmax weights', 'mean row entropy (nats)', [{ v: Math.log(N), label: `uniform: log ${N}` }]);
    const last = this.rows[this.rows.length - 1];
    this.captionEl.text(`At d = ${last.d}: variance ${fmt(last.varDot)} without scaling, ${fmt(last.varScaled)} with; entropy ${fmt(last.entDot)} vs ${fmt(last.entScaled)} nats (uniform: ${fmt(Math.log(N))}).`);
  }
}
