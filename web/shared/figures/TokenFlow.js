// The rollout of one output token onto the input tokens: row t of the rollout matrix R, one bar per
// input token. Up to 64 tokens, one labelled row per token; beyond that, a column chart whose ten
// largest bars are labelled with their token.
import { Figure, fmt, shortLabel } from './base.js';

const LIST_MAX = 64;

export class TokenFlow extends Figure {
  constructor(slot) {
    super(slot, { id: 'flow', title: 'Rollout of one output token', caption: '' });
    this.addPlot('token-flow', { gBars: 'g', gLabels: 'g' });
  }

  // setData(d), d: { tokens: string[], row: Float32Array [n] (row t of R), t }

  draw() {
    const d = this.data;
    if (!d) return;
    const n = d.row.length;
    let max = 0;
    for (const v of d.row) if (v > max) max = v;
    const scale = max > 0 ? 1 / max : 0;
    const bars = Array.from(d.row, (v, j) => ({ j, v }));
    if (n <= LIST_MAX) {
      const lw = 110, bw = 260, rowH = 18, top = 6;
      this.setSize(lw + bw + 60, top + n * rowH + 4);
      this.gBars.selectAll('rect').data(bars).join('rect').attr('class', 'flow-bar')
        .attr('x', lw).attr('y', (b) => top + b.j * rowH + 3).attr('height', rowH - 6)
        .attr('width', (b) => Math.max(0.5, b.v * scale * bw));
      const labels = [];
      for (const b of bars) {
        labels.push({ x: lw - 6, y: top + b.j * rowH + rowH / 2, a: 'end', t: shortLabel(d.tokens[b.j], 16), cls: b.j === d.t ? 'token-label chosen' : 'token-label' });
        labels.push({ x: lw + b.v * scale * bw + 5, y: top + b.j * rowH + rowH / 2, a: 'start', t: fmt(b.v, 3), cls: 'legend-label' });
      }
      this.drawLabels(labels);
    } else {
      const left = 40, top = 64, w = 760, h = 180;
      const bw = w / n;
      this.setSize(left + w + 10, top + h + 24);
      this.gBars.selectAll('rect').data(bars).join('rect').attr('class', 'flow-bar')
        .attr('x', (b) => left + b.j * bw).attr('width', Math.max(0.6, bw - (bw > 3 ? 1 : 0)))
        .attr('y', (b) => top + h - b.v * scale * h).attr('height', (b) => b.v * scale * h);
      const topTen = [...bars].sort((a, b) => b.v - a.v).slice(0, 10);
      const labels = topTen.map((b) => ({
        x: left + (b.j + 0.5) * bw, y: top + h - b.v * scale * h - 4, a: 'start', rotate: true,
        t: `${shortLabel(d.tokens[b.j], 12)} ${fmt(b.v, 2)}`, cls: 'token-label',
      }));
      labels.push({ x: left, y: top + h + 14, a: 'start', t: 'input token 1', cls: 'axis-title' });
      labels.push({ x: left + w, y: top + h + 14, a: 'end', t: `${n}`, cls: 'axis-title' });
      this.drawLabels(labels);
    }
    this.titleEl.text(`Rollout of output token ${d.t + 1} “${shortLabel(d.tokens[d.t], 24)}”`);
    this.captionEl.text(`Row ${d.t + 1} of the rollout: how much each input token contributes to output token ${d.t + 1} after all the layers (the row sums to 1). `
      + (n > LIST_MAX ? 'The ten largest are labelled.' : ''));
    this.svg.attr('aria-label', `Rollout of output token ${d.t + 1} onto ${n} input tokens`);
  }

  drawLabels(labels) {
    this.gLabels.selectAll('text').data(labels).join('text')
      .attr('class', (l) => l.cls)
      .attr('x', (l) => l.x).attr('y', (l) => l.y)
      .attr('text-anchor', (l) => l.a).attr('dominant-baseline', 'central')
      .attr('transform', (l) => (l.rotate ? `rotate(-50 ${l.x} ${l.y})` : null))
      .text((l) => l.t);
  }
}
