// Teaching panel 2: cosine vs dot on the typed sentence. q·k = ‖q‖‖k‖cos(q,k): for a fixed query,
// the dot product favours keys with long vectors; cosine divides the lengths out. The bars show, for
// one query word, every key's length next to its weight under dot and under cosine.
import { select } from 'd3-selection';
import { Figure, setTokenText, fmt, SVG_NS } from './base.js';

export function pearson(a, b) {
  const n = a.length;
  let ma = 0, mb = 0;
  for (let i = 0; i < n; i++) { ma += a[i]; mb += b[i]; }
  ma /= n; mb /= n;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] - ma, y = b[i] - mb;
    sab += x * y; saa += x * x; sbb += y * y;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : 0;
}

/** A labelled row chooser shared by the teaching panels: a <select> of the query tokens. */
export function rowChooser(parent, id, onChange) {
  const wrap = parent.append('div').attr('class', 'row-chooser');
  wrap.append('label').attr('for', id).text('Query word');
  const sel = wrap.append('select').attr('id', id).on('change', (ev) => onChange(Number(ev.target.value)));
  return {
    set(tokens, row) {
      sel.selectAll('option').data(tokens).join('option')
        .attr('value', (_, i) => i)
        .text((t, i) => `${i + 1}: ${t.text}${t.oov ? ' (not in vocabulary)' : ''}`);
      sel.property('value', String(row));
    },
  };
}

/** Draws rows of bars, one bar per key, aligned under shared key labels. */
export function barRows(g, { rows, kTokens, x0, bw, rowH, maskedKey }) {
  const rg = g.selectAll('g.bar-row').data(rows).join((enter) => {
    const r = enter.append('g').attr('class', 'bar-row');
    r.append('text').attr('class', 'bar-row-label');
    r.append('g').attr('class', 'bars');
    r.append('line').attr('class', 'baseline');
    return r;
  }).attr('transform', (_, r) => `translate(0,${r * (rowH + 22) + 14})`);
  rg.select('.bar-row-label').attr('x', 0).attr('y', -4).text((r) => r.label);
  rg.select('.baseline').attr('x1', x0).attr('x2', x0 + bw * kTokens.length).attr('y1', rowH).attr('y2', rowH);
  rg.each(function (r) {
    let max = 0;
    for (const v of r.values) if (Number.isFinite(v)) max = Math.max(max, v);
    const keys = Array.from(r.values, (v, j) => ({ v, j }));
    const bars = select(this).select('.bars').selectAll('g.b').data(keys).join((enter) => {
      const b = enter.append('g').attr('class', 'b');
      b.append('rect');
      b.append('text').attr('class', 'bar-num');
      return b;
    });
    bars.select('rect').attr('class', `bar ${r.cls}`)
      .classed('masked', (k) => !!maskedKey && maskedKey(k.j))
      .attr('x', (k) => x0 + k.j * bw + 1).attr('width', Math.max(1, bw - 2))
      .attr('y', (k) => rowH - (rowH * Math.max(0, k.v)) / (max || 1))
      .attr('height', (k) => Math.max(0.5, (rowH * Math.max(0, k.v)) / (max || 1)));
    bars.select('text').attr('x', (k) => x0 + k.j * bw + bw / 2)
      .attr('y', (k) => rowH - (rowH * Math.max(0, k.v)) / (max || 1) - 3)
      .attr('text-anchor', 'middle')
      .text((k) => (bw >= 26 ? fmt(k.v, 2) : ''));
    if (r.markers) {
      select(this).selectAll('circle.marker').data(r.markers).join('circle').attr('class', 'marker')
        .attr('cx', (v, j) => x0 + j * bw + bw / 2).attr('cy', (v) => rowH - (rowH * v) / (max || 1)).attr('r', 3.2);
    } else select(this).selectAll('circle.marker').remove();
  });
  const top = rows.length * (rowH + 22) + 14;
  g.selectAll('text.key-label').data(kTokens).join('text').attr('class', 'key-label token-label')
    .attr('transform', (_, j) => `translate(${x0 + j * bw + bw / 2 - 1},${top - 14}) rotate(60)`)
    .attr('text-anchor', 'start').attr('dominant-baseline', 'central')
    .call(setTokenText, (t) => t, 12);
  return top + 70;
}

export class CosineDotPanel extends Figure {
  constructor(slot, { formula, onRow }) {
    super(slot, { id: 'cosine-dot', title: '2 · Cosine vs dot' });
    const text = this.body.append('div').attr('class', 'teach-text');
    text.append('p').text('The dot product is the cosine of the angle between two vectors times both their lengths. For one query, its own length scales every score alike, but each key’s length does not: under dot, keys with long vectors win whatever they mean. Cosine divides the lengths out and keeps only the direction, i.e. the meaning.');
    formula(text.append('div').attr('class', 'formula').node(), 'cosine');
    this.chooser = rowChooser(this.body, 'cosine-row', onRow);
    this.svg = this.body.append('svg').attr('class', 'cosine-dot').attr('xmlns', SVG_NS);
    this.bg = this.svg.append('rect').attr('class', 'plot-bg');
    this.g = this.svg.append('g').attr('transform', 'translate(8,8)');
    this.stat = this.body.append('p').attr('class', 'teach-stat');
  }

  /** d: { qTokens, kTokens, row, keyNorms: number[], dot: AttendResult, cosine: AttendResult, head, temperature, maskedKey } */
  setData(d) { this.d = d; }

  draw() {
    const d = this.d;
    if (!d) return;
    const nk = d.kTokens.length, nq = d.qTokens.length, i = d.row, h = d.head;
    this.chooser.set(d.qTokens, i);
    const rowOf = (r) => r.weights.subarray(h * nq * nk + i * nk, h * nq * nk + (i + 1) * nk);
    const bw = Math.max(10, Math.min(44, 560 / nk));
    const bottom = barRows(this.g, {
      rows: [
        { label: 'length of each key vector ‖k‖', values: d.keyNorms, cls: 'c-norm' },
        { label: `weight under dot (τ = ${fmt(d.temperature)})`, values: rowOf(d.dot), cls: 'c-dot' },
        { label: `weight under cosine (τ = ${fmt(d.temperature)})`, values: rowOf(d.cosine), cls: 'c-cos' },
      ],
      kTokens: d.kTokens, x0: 0, bw, rowH: 52, maskedKey: (j) => d.maskedKey(i, j),
    });
    const W = Math.max(360, nk * bw + 40), H = bottom + 16;
    this.svg.attr('width', W).attr('height', H).attr('viewBox', `0 0 ${W} ${H}`);
    this.bg.attr('width', W).attr('height', H);
    // How much of the attention a key receives (its column sum) against its length, over all queries.
    const colSums = (r) => {
      const s = new Float64Array(nk);
      for (let a = 0; a < nq; a++) for (let j = 0; j < nk; j++) s[j] += r.weights[h * nq * nk + a * nk + j];
      return s;
    };
    if (nk > 2) {
      this.stat.text(`Over all ${nq} query words: correlation between a key’s length and the total attention it receives is ${fmt(pearson(d.keyNorms, colSums(d.dot)), 2)} under dot and ${fmt(pearson(d.keyNorms, colSums(d.cosine)), 2)} under cosine.`);
    } else this.stat.text('');
    this.captionEl.text('Same head and mask as above. The lengths are those of the key vectors the head uses.');
  }
}
