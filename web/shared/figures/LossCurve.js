// The lab's training curves: the batch loss of every step (a line), the held-out loss and accuracy at
// the steps they were measured (dots on their own scales), chance accuracy (a dashed line), and a
// marker at the step the slider shows. Optionally (opts.csv) a CSV button for the numbers behind it.
import { scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft, axisRight } from 'd3-axis';
import { Figure } from './base.js';

const W = 560, H = 240, M = { left: 48, right: 52, top: 14, bottom: 34 };

export class LossCurve extends Figure {
  /** @param {{ csv?: (data) => string }} [opts]  csv: the curves as CSV text (adds a CSV button). */
  constructor(slot, { csv } = {}) {
    super(slot, {
      id: 'loss-curve',
      title: 'Training curves',
      caption: 'Line: the loss (cross-entropy, nats) of each training batch. Dots: held-out loss (same scale) and held-out accuracy (right scale; dashed: chance). The vertical line marks the step shown below.',
      dataFormats: csv ? ['csv'] : [],
    });
    if (csv) this.dataCSV = () => csv(this.data);
    this.addPlot('loss-curve', {
      gx: 'g.axis.x', gy: 'g.axis.y', gy2: 'g.axis.y2', chance: 'line.chance', path: 'path.loss-line',
      gHeld: 'g.held-loss', gAcc: 'g.held-acc', marker: 'line.step-marker',
    });
    this.svg.append('text').attr('class', 'axis-title').attr('x', M.left).attr('y', H - 4).text('training step');
    this.svg.append('text').attr('class', 'axis-title').attr('x', 4).attr('y', 10).text('loss');
    this.svg.append('text').attr('class', 'axis-title').attr('x', W - 4).attr('y', 10).attr('text-anchor', 'end').text('accuracy');
    this.setSize(W, H);
  }

  // setData(d), d: { losses: Float32Array, evals: [{ step, loss, accuracy }], chance, maxSteps, marker }

  draw() {
    const d = this.data;
    if (!d) return;
    const n = d.losses.length;
    let top = 0.5;
    for (const l of d.losses) top = Math.max(top, l);
    for (const e of d.evals) top = Math.max(top, e.loss);
    const x = scaleLinear().domain([0, Math.max(d.maxSteps, n)]).range([M.left, W - M.right]);
    const y = scaleLinear().domain([0, top * 1.05]).range([H - M.bottom, M.top]).nice();
    const ya = scaleLinear().domain([0, 1]).range([H - M.bottom, M.top]);
    // While a run trains this is redrawn every frame: the axes (text, the costly part to lay out) and
    // the dots are rewritten only when their scales or the evaluations changed, and the path is
    // extended, not rebuilt, while the scales stay.
    const scales = `${x.domain()}|${y.domain()}`;
    if (scales !== this.scalesKey) {
      this.scalesKey = scales;
      this.pathText = '';
      this.pathPoints = 0;
      this.evalsKey = null;
      this.gx.attr('transform', `translate(0,${H - M.bottom})`).call(axisBottom(x).ticks(6));
      this.gy.attr('transform', `translate(${M.left},0)`).call(axisLeft(y).ticks(5));
      this.gy2.attr('transform', `translate(${W - M.right},0)`).call(axisRight(ya).ticks(5, '%'));
    }
    // The path drawn so far is kept only if these losses begin with the ones it shows (same first
    // and last value), e.g. the same run a few steps on.
    const k = this.pathPoints;
    if (k && (n < k || d.losses[0] !== this.pathFirst || d.losses[k - 1] !== this.pathLast)) { this.pathText = ''; this.pathPoints = 0; }
    if (n !== this.pathPoints || n === 0) {
      let path = this.pathText;
      for (let i = this.pathPoints; i < n; i++) path += `${i ? 'L' : 'M'}${x(i + 1).toFixed(1)},${y(d.losses[i]).toFixed(1)}`;
      this.pathText = path;
      this.pathPoints = n;
      this.pathFirst = d.losses[0];
      this.pathLast = d.losses[n - 1];
      this.path.attr('d', path || null);
    }
    const last = d.evals[d.evals.length - 1];
    const evalsKey = `${d.evals.length}|${last ? `${last.step},${last.loss},${last.accuracy}` : ''}`;
    if (evalsKey !== this.evalsKey) {
      this.evalsKey = evalsKey;
      this.gHeld.selectAll('circle').data(d.evals).join('circle').attr('r', 3)
        .attr('cx', (e) => x(e.step)).attr('cy', (e) => y(e.loss));
      this.gAcc.selectAll('rect').data(d.evals).join('rect').attr('width', 6).attr('height', 6)
        .attr('x', (e) => x(e.step) - 3).attr('y', (e) => ya(e.accuracy) - 3);
    }
    this.chance.attr('x1', M.left).attr('x2', W - M.right).attr('y1', ya(d.chance)).attr('y2', ya(d.chance));
    this.marker.attr('x1', x(d.marker)).attr('x2', x(d.marker)).attr('y1', M.top).attr('y2', H - M.bottom);
  }
}
