// The lab's comparison (part 2): one curve per scoring function on one plot, the held-out loss, the
// held-out accuracy or the training loss (mean of each evaluation interval's batches) against the
// step. Each function keeps its style whatever is ticked, by its place in the registry: the head
// palette of figures/heads.js (8 colour-blind-safe colours that follow the theme) for the first
// eight, and for the 9th and 10th (idw and neg-manhattan today) the 5th and 6th colours dashed, not
// the 1st and 2nd: dot and scaled-dot, which the lab's questions compare with idw, keep colours no
// other line has. A run with an output (the lab's output comparison) keeps its function's colour and
// adds a dash pattern of its own: dotted for the value output, dash-dot for the symmetric one (other
// patterns again for the 9th and 10th functions, whose colours repeat). The
// picture carries its own key (an exported file has no HTML), so colour is never the only cue.
import { scaleLinear, scaleLog } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { Figure } from './base.js';
import { headClass, HEAD_COLOURS } from './heads.js';

// Wide: the key to the right of the plot; narrow (a phone): a smaller plot with the key below it in two columns.
const WIDE = { W: 640, plotH: 280, M: { left: 48, right: 150, top: 14, bottom: 34 } };
const NARROW = { W: 360, plotH: 220, M: { left: 44, right: 12, top: 14, bottom: 34 } };
/** The class names of a scoring function's line, from its place in `order` (the registry's names). */
export function scoreClass(name, order) {
  const i = Math.max(0, order.indexOf(name));
  return i < HEAD_COLOURS ? headClass(i) : `head-c${(i - 4) % HEAD_COLOURS} head-repeat`;
}

export const METRICS = {
  heldOutLoss: { label: 'held-out loss', axis: 'held-out loss (nats, log scale)' },
  accuracy: { label: 'held-out accuracy', axis: 'held-out accuracy' },
  trainLoss: { label: 'training loss', axis: 'training loss (nats, log scale; mean per interval)' },
  outputAccuracy: { label: 'held-out output accuracy', axis: 'output nearest the target word' },
};
// With outputs the losses are of two kinds: the axis says so.
const MIXED_AXIS = {
  heldOutLoss: 'held-out loss (nats, or squared error with an output; log)',
  trainLoss: 'training loss (nats, or squared error with an output; log)',
};

/** A series' line classes: its scoring function's colour, and its output's dash pattern if any. */
export function seriesClass(s, order) {
  const base = scoreClass(s.baseScore ?? s.score, order);
  return s.output && s.output !== 'none' ? `${base} out-${s.output}` : base;
}

/** The points [step, value] of one series for a metric. */
export function seriesPoints(s, metric, evalEvery) {
  if (metric === 'heldOutLoss') return s.evals.map((e) => [e.step, e.loss]);
  if (metric === 'accuracy') return s.evals.map((e) => [e.step, e.accuracy]);
  if (metric === 'outputAccuracy') return s.evals.filter((e) => e.outputAccuracy !== null && e.outputAccuracy !== undefined).map((e) => [e.step, e.outputAccuracy]);
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
      caption: 'Each line is one scoring function trained from the same seed on the same batches; the key names them (the 9th and 10th functions are dashed; ' +
        'a run with a value output is dotted, with the symmetric output dash-dotted, in its function\'s colour).',
      dataFormats: csv ? ['csv'] : [],
    });
    if (csv) this.dataCSV = () => csv(this.data);
    this.metric = 'heldOutLoss';
    const pick = this.body.append('label').attr('class', 'metric-choice').text('Show ');
    this.select = pick.append('select').attr('class', 'metric');
    for (const [k, m] of Object.entries(METRICS)) this.select.append('option').attr('value', k).text(m.label);
    this.select.select('option[value=outputAccuracy]').attr('hidden', true);
    this.select.on('change', () => { this.metric = this.select.property('value'); this.draw(); });
    this.addPlot('compare-curves', {
      gx: 'g.axis.x', gy: 'g.axis.y', chance: 'line.chance', target: 'line.target', targetLabel: 'text.target-label', gLines: 'g.lines', gKey: 'g.key',
    });
    this.targetLabel.attr('text-anchor', 'end').text('90%');
    this.xTitle = this.svg.append('text').attr('class', 'axis-title').text('training step');
    this.yTitle = this.svg.append('text').attr('class', 'axis-title').attr('x', 4).attr('y', 10);
    this.setSize(WIDE.W, WIDE.plotH);
  }

  /*
   * setData(d), d: { series: [{ score (its label), baseScore?, output?, losses, evals, partial }],
   * order: string[] (registry), steps, evalEvery, chance }
   */

  draw() {
    const d = this.data;
    if (!d) return;
    // The output accuracy is offered when a series has an output (and dropped when none has).
    const outputs = d.series.some((s) => s.output && s.output !== 'none');
    this.select.select('option[value=outputAccuracy]').attr('hidden', outputs ? null : true);
    if (!outputs && this.metric === 'outputAccuracy') this.metric = 'accuracy';
    const metric = this.metric;
    this.select.property('value', metric);
    const width = this.slot.clientWidth;
    const base = width > 0 && width < 520 ? NARROW : WIDE;
    // Runs with an output have longer names ("scaled-dot + symmetric"): a wider key to the right.
    const L = outputs && base === WIDE ? { ...WIDE, M: { ...WIDE.M, right: 215 } } : base;
    const { W, M } = L, narrow = base === NARROW;
    const keyRows = narrow ? Math.ceil(d.series.length / 2) : 0;
    // Wide: the key beside the plot, the picture taller when the key is (e.g. 10 functions × 3 outputs).
    const H = narrow ? L.plotH + 6 + keyRows * 16 : Math.max(L.plotH, M.top + 4 + d.series.length * 18 + 4);
    const plotBottom = L.plotH - M.bottom;
    this.setSize(W, H);
    this.xTitle.attr('x', M.left).attr('y', L.plotH - 4);
    this.gKey.attr('transform', narrow ? `translate(${M.left},${L.plotH + 10})` : `translate(${W - M.right + 14},${M.top + 4})`);
    const pts = d.series.map((s) => ({ s, points: seriesPoints(s, metric, d.evalEvery), cls: seriesClass(s, d.order) }));
    // Losses on a log scale (they fall over orders of magnitude, and a plateau such as cosine's
    // bounded scores would otherwise flatten every other curve); accuracy on 0–100% with 90% marked.
    const acc = metric === 'accuracy' || metric === 'outputAccuracy';
    let lo = Infinity, hi = 0;
    if (!acc) for (const p of pts) for (const [, v] of p.points) if (Number.isFinite(v) && v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!(hi > 0)) { lo = 0.01; hi = 1; }
    lo = Math.max(1e-4, Math.min(lo, hi / 10));
    const x = scaleLinear().domain([0, d.steps]).range([M.left, W - M.right]);
    const y = acc ? scaleLinear().domain([0, 1]).range([plotBottom, M.top])
      : scaleLog().domain([lo, hi]).range([plotBottom, M.top]).nice().clamp(true);
    this.gx.attr('transform', `translate(0,${plotBottom})`).call(axisBottom(x).ticks(6));
    this.gy.attr('transform', `translate(${M.left},0)`).call(acc ? axisLeft(y).ticks(5, '%') : axisLeft(y).ticks(4, '~g'));
    this.yTitle.text(outputs && MIXED_AXIS[metric] ? MIXED_AXIS[metric] : METRICS[metric].axis);
    const showChance = acc && Number.isFinite(d.chance);
    this.chance.attr('visibility', showChance ? null : 'hidden')
      .attr('x1', M.left).attr('x2', W - M.right).attr('y1', y(showChance ? d.chance : 1)).attr('y2', y(showChance ? d.chance : 1));
    this.target.attr('visibility', acc ? null : 'hidden')
      .attr('x1', M.left).attr('x2', W - M.right).attr('y1', acc ? y(0.9) : 0).attr('y2', acc ? y(0.9) : 0);
    this.targetLabel.attr('visibility', acc ? null : 'hidden').attr('x', W - M.right - 2).attr('y', acc ? y(0.9) - 3 : 0);
    const line = (points) => points.map(([s, v], i) => `${i ? 'L' : 'M'}${x(s).toFixed(1)},${y(v).toFixed(1)}`).join('') || null;
    this.gLines.selectAll('path').data(pts, (p) => p.s.score).join('path')
      .attr('class', (p) => `series ${p.cls}`).attr('data-score', (p) => p.s.score).attr('d', (p) => line(p.points));
    const key = this.gKey.selectAll('g.entry').data(pts, (p) => p.s.score).join((enter) => {
      const g = enter.append('g').attr('class', 'entry');
      g.append('line').attr('x1', 0).attr('x2', 18).attr('y1', 0).attr('y2', 0);
      g.append('text').attr('x', 24).attr('dy', '0.32em');
      return g;
    });
    key.attr('transform', (p, i) => (narrow ? `translate(${(i % 2) * 150},${Math.floor(i / 2) * 16})` : `translate(0,${i * 18})`)).attr('data-score', (p) => p.s.score);
    key.select('line').attr('class', (p) => `series ${p.cls}`);
    key.select('text').text((p) => `${p.s.score}${p.s.partial ? ' …' : ''}`);
  }
}
