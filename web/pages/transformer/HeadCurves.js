// The transformer page's per-head curves: one line per head of a number the task measures at every
// evaluation (the induction task's prefix-matching score, the reversal's alignment share), on 0–1, with
// the task's target as a dashed line and the step the slider shows marked. Each head keeps a colour of
// the head palette (figures/heads.js) and is named in the key, so colour is never the only cue.
import { scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { Figure } from '../../shared/figures/base.js';
import { headClass, HEAD_COLOURS } from '../../shared/figures/heads.js';

// Wide: the key to the right of the plot; narrow (a phone): a smaller plot with the key below it in two columns.
const WIDE = { W: 640, M: { left: 44, right: 130, top: 14, bottom: 34 } };
const NARROW = { W: 360, M: { left: 40, right: 12, top: 14, bottom: 34 } };
const PLOT_H = 240;

export class HeadCurves extends Figure {
  constructor(slot) {
    super(slot, { id: 'head-curves', title: 'Each head', caption: '' });
    this.addPlot('compare-curves head-curves');
    this.gx = this.svg.append('g').attr('class', 'axis x');
    this.gy = this.svg.append('g').attr('class', 'axis y');
    this.target = this.svg.append('line').attr('class', 'target');
    this.targetLabel = this.svg.append('text').attr('class', 'target-label').attr('text-anchor', 'end');
    this.marker = this.svg.append('line').attr('class', 'step-marker');
    this.gLines = this.svg.append('g').attr('class', 'lines');
    this.gKey = this.svg.append('g').attr('class', 'key');
    this.svg.append('text').attr('class', 'axis-title').attr('x', WIDE.M.left).attr('y', PLOT_H - 4).text('training step');
    this.yTitle = this.svg.append('text').attr('class', 'axis-title').attr('x', 4).attr('y', 10);
    this.setSize(WIDE.W, PLOT_H);
  }

  // setData(d), d: { title, caption, axis, heads: [label], evals: [{ step, values: { label: number } }], target (null: no line), targetText, maxSteps, marker }

  draw() {
    const d = this.data;
    if (!d) return;
    this.titleEl.text(d.title);
    this.captionEl.text(d.caption);
    const width = this.slot.clientWidth;
    const narrow = width > 0 && width < 520;
    const { W, M } = narrow ? NARROW : WIDE;
    const H = narrow ? PLOT_H + 8 + Math.ceil(d.heads.length / 2) * 16 : Math.max(PLOT_H, M.top + 4 + d.heads.length * 16 + 4);
    this.setSize(W, H);
    const bottom = PLOT_H - M.bottom;
    const x = scaleLinear().domain([0, Math.max(d.maxSteps, 1)]).range([M.left, W - M.right]);
    const y = scaleLinear().domain([0, 1]).range([bottom, M.top]);
    this.gx.attr('transform', `translate(0,${bottom})`).call(axisBottom(x).ticks(6));
    this.gy.attr('transform', `translate(${M.left},0)`).call(axisLeft(y).ticks(5));
    this.yTitle.text(d.axis);
    const t = Number.isFinite(d.target) ? d.target : null;   // none: no line
    this.target.attr('visibility', t === null ? 'hidden' : null).attr('x1', M.left).attr('x2', W - M.right).attr('y1', y(t ?? 0)).attr('y2', y(t ?? 0));
    this.targetLabel.attr('visibility', t === null ? 'hidden' : null).attr('x', W - M.right - 2).attr('y', y(t ?? 0) - 3).text(d.targetText);
    this.marker.attr('x1', x(d.marker)).attr('x2', x(d.marker)).attr('y1', M.top).attr('y2', bottom);
    const cls = (i) => (i < HEAD_COLOURS ? headClass(i) : `${headClass(i % HEAD_COLOURS)} head-repeat`);
    const lines = d.heads.map((label, i) => ({
      label, cls: cls(i),
      d: d.evals.map((e, k) => `${k ? 'L' : 'M'}${x(e.step).toFixed(1)},${y(e.values[label] ?? 0).toFixed(1)}`).join('') || null,
    }));
    this.gLines.selectAll('path').data(lines, (l) => l.label).join('path').attr('class', (l) => `series ${l.cls}`).attr('d', (l) => l.d);
    const last = d.evals[d.evals.length - 1];
    const key = this.gKey.selectAll('g.entry').data(lines, (l) => l.label).join((enter) => {
      const g = enter.append('g').attr('class', 'entry');
      g.append('line').attr('x1', 0).attr('x2', 18).attr('y1', 0).attr('y2', 0);
      g.append('text').attr('x', 24).attr('dy', '0.32em');
      return g;
    });
    this.gKey.attr('transform', narrow ? `translate(${M.left},${PLOT_H + 8})` : `translate(${W - M.right + 12},${M.top + 4})`);
    key.attr('transform', (l, i) => (narrow ? `translate(${(i % 2) * 150},${Math.floor(i / 2) * 16})` : `translate(0,${i * 16})`));
    key.select('line').attr('class', (l) => `series ${l.cls}`);
    key.select('text').text((l) => `${l.label}${last ? ` ${(last.values[l.label] ?? 0).toFixed(2)}` : ''}`);
    const desc = last ? d.heads.map((h) => `${h} ${(last.values[h] ?? 0).toFixed(2)}`).join(', ') : '';
    this.svg.attr('aria-label', `${d.axis} of each head against the training step. At step ${last ? last.step : 0}: ${desc}.`);
  }
}
