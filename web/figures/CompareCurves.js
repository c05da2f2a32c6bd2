// The lab's comparison (part 2): one curve per scoring function on one plot, the held-out loss, the
// held-out accuracy or the training loss (mean of each evaluation interval's batches) against the
// step. Each function keeps its style whatever is ticked: the head palette of figures/heads.js (8
// colour-blind-safe colours that follow the theme) in the order of SOLID below, which gives the
// functions the lab's questions compare (dot, scaled-dot, cosine; neg-euclidean, idw) colours of
// their own; the last two functions reuse the first two colours, dashed. The picture carries its own
// key (an exported file has no HTML), so colour is never the only cue.
import { scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { Figure } from './base.js';
import { headClass } from './heads.js';

const W = 640, H = 280, M = { left: 48, right: 150, top: 14, bottom: 34 };
const SOLID = ['dot', 'scaled-dot', 'cosine', 'neg-euclidean', 'idw', 'general', 'neg-sq-euclidean', 'additive'];

/** The class names of a scoring function's line (see headClass): a style of its own among `order` (the registry's names). */
export function scoreClass(name, order) {
  const rest = order.filter((n) => !SOLID.includes(n));
  const ranked = [...SOLID, ...rest];
  const i = ranked.indexOf(name);
  return headClass(i < 0 ? ranked.length : i);
}

export const METRICS = {
  heldOutLoss: { label: 'held-out loss', axis: 'held-out loss (nats)' },
  accuracy: { label: 'held-out accuracy', axis: 'held-out accuracy' },
  trainLoss: { label: 'training loss', axis: 'training loss (nats, mean per interval)' },
};

/** The points [step, value] of one series for a metric. */
export function seriesPoints(s, metric, evalEvery) {
  if (metric === 'heldOutLoss') return s.evals.map((e) => [e.step, e.loss]);
  if (metric === 'accuracy') return s.evals.map((e) => [e.step, e.accuracy]);
  const out = [];
  for (let end = evalEvery; end <= s.losses.length; end += evalEvery) {
    let sum = 0;
    for (let i = end - evalEvery; i < end; i++) sum += s.losses[i];
    out.push([end, sum / evalEvery]);
  }
  return out;
}

export class CompareCurves extends Figure {
  /** @param {{ csv?: (data) => string }} [opts]  csv: the numbers behind the plot, as CSV text (adds a CSV button). */
  constructor(slot, { csv } = {}) {
    super(slot, {
      id: 'lab-compare',
      title: 'The same task, one curve per scoring function',
      caption: 'Each line is one scoring function trained from the same seed on the same batches; the key names them (location and neg-manhattan are dashed).',
      dataFormats: csv ? ['csv'] : [],
    });
    if (csv) this.dataCSV = () => csv(this.data);
    this.metric = 'heldOutLoss';
    const pick = this.body.append('label').attr('class', 'metric-choice').text('Show ');
    this.select = pick.append('select').attr('class', 'metric');
    for (const [k, m] of Object.entries(METRICS)) this.select.append('option').attr('value', k).text(m.label);
    this.select.on('change', () => { this.metric = this.select.property('value'); this.draw(); });
    this.addPlot('compare-curves');
    this.gx = this.svg.append('g').attr('class', 'axis x');
    this.gy = this.svg.append('g').attr('class', 'axis y');
    this.chance = this.svg.append('line').attr('class', 'chance');
    this.gLines = this.svg.append('g').attr('class', 'lines');
    this.gKey = this.svg.append('g').attr('class', 'key').attr('transform', `translate(${W - M.right + 14},${M.top + 4})`);
    this.svg.append('text').attr('class', 'axis-title').attr('x', M.left).attr('y', H - 4).text('training step');
    this.yTitle = this.svg.append('text').attr('class', 'axis-title').attr('x', 4).attr('y', 10);
    this.setSize(W, H);
    this.data = null;
  }

  /** d: { series: [{ score, losses, evals, partial }], order: string[] (registry), steps, evalEvery, chance } */
  setData(d) { this.data = d; }

  draw() {
    const d = this.data;
    if (!d) return;
    const metric = this.metric;
    this.select.property('value', metric);
    const pts = d.series.map((s) => ({ s, points: seriesPoints(s, metric, d.evalEvery), cls: scoreClass(s.score, d.order) }));
    let top = metric === 'accuracy' ? 1 : 0.5;
    if (metric !== 'accuracy') for (const p of pts) for (const [, v] of p.points) if (Number.isFinite(v)) top = Math.max(top, v);
    const x = scaleLinear().domain([0, d.steps]).range([M.left, W - M.right]);
    const y = scaleLinear().domain([0, metric === 'accuracy' ? 1 : top * 1.05]).range([H - M.bottom, M.top]).nice();
    this.gx.attr('transform', `translate(0,${H - M.bottom})`).call(axisBottom(x).ticks(6));
    this.gy.attr('transform', `translate(${M.left},0)`).call(metric === 'accuracy' ? axisLeft(y).ticks(5, '%') : axisLeft(y).ticks(5));
    this.yTitle.text(METRICS[metric].axis);
    const showChance = metric === 'accuracy' && Number.isFinite(d.chance);
    this.chance.attr('visibility', showChance ? null : 'hidden')
      .attr('x1', M.left).attr('x2', W - M.right).attr('y1', y(showChance ? d.chance : 0)).attr('y2', y(showChance ? d.chance : 0));
    const line = (points) => points.map(([s, v], i) => `${i ? 'L' : 'M'}${x(s).toFixed(1)},${y(v).toFixed(1)}`).join('') || null;
    this.gLines.selectAll('path').data(pts, (p) => p.s.score).join('path')
      .attr('class', (p) => `series ${p.cls}`).attr('data-score', (p) => p.s.score).attr('d', (p) => line(p.points));
    const key = this.gKey.selectAll('g.entry').data(pts, (p) => p.s.score).join((enter) => {
      const g = enter.append('g').attr('class', 'entry');
      g.append('line').attr('x1', 0).attr('x2', 18).attr('y1', 0).attr('y2', 0);
      g.append('text').attr('x', 24).attr('dy', '0.32em');
      return g;
    });
    key.attr('transform', (p, i) => `translate(0,${i * 18})`).attr('data-score', (p) => p.s.score);
    key.select('line').attr('class', (p) => `series ${p.cls}`);
    key.select('text').text((p) => `${p.s.score}${p.s.partial ? ' …' : ''}`);
  }
}
