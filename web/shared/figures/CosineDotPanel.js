// Teaching panel 2: cosine vs dot on the typed sentence. q·k = ‖q‖‖k‖cos(q,k): for a fixed query,
// the dot product favours keys with long vectors; cosine divides the lengths out. The bars show, for
// one query word, every key's length next to its weight under dot and under cosine.
import { select } from 'd3-selection';
import { appendParts, setTokenText, fmt, fmtApart } from './base.js';
import { TeachingPanel } from './TeachingPanel.js';

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

/**
 * Draws rows of bars, one bar per key, aligned under each other above shared key labels. Each row:
 * its title, room for the numbers over the bars, the bars. Returns the height used.
 */
export function barRows(g, { rows, kTokens, x0, bw, rowH, maskedKey }) {
  const TITLE = 14, NUMS = 13, GAP = 10, block = TITLE + NUMS + rowH + GAP;
  const rg = g.selectAll('g.bar-row').data(rows)
    .join((enter) => appendParts(enter.append('g').attr('class', 'bar-row'), ['text.bar-row-label', 'g.bars', 'line.baseline']))
    .attr('transform', (_, r) => `translate(0,${r * block})`);
  rg.select('.bar-row-label').attr('x', 0).attr('y', 10).text((r) => r.label);
  const base = TITLE + NUMS + rowH;
  rg.select('.baseline').attr('x1', x0).attr('x2', x0 + bw * kTokens.length).attr('y1', base).attr('y2', base);
  rg.each(function (r) {
    let max = 0;
    for (const v of r.values) if (Number.isFinite(v)) max = Math.max(max, v);
    const hgt = (v) => (rowH * Math.max(0, v)) / (max || 1);
    const keys = Array.from(r.values, (v, j) => ({ v, j }));
    const bars = select(this).select('.bars').selectAll('g.b').data(keys)
      .join((enter) => appendParts(enter.append('g').attr('class', 'b'), ['rect', 'text.bar-num']));
    bars.select('rect').attr('class', `bar ${r.cls}`)
      .classed('masked', (k) => !!maskedKey && maskedKey(k.j))
      .attr('x', (k) => x0 + k.j * bw + 1).attr('width', Math.max(1, bw - 2))
      .attr('y', (k) => base - hgt(k.v))
      .attr('height', (k) => Math.max(0.5, hgt(k.v)));
    bars.select('text').attr('x', (k) => x0 + k.j * bw + bw / 2)
      .attr('y', (k) => base - hgt(k.v) - 3)
      .attr('text-anchor', 'middle')
      // Narrow bars (a phone): tiny weights with one significant digit ("1e−12"), so neighbours do not run together.
      .text((k) => (bw >= 30 ? fmt(k.v, bw < 56 && k.v !== 0 && Math.abs(k.v) < 1e-3 ? 1 : 2) : ''));
    select(this).selectAll('circle.marker').data(r.markers || []).join('circle').attr('class', 'marker')
      .attr('cx', (v, j) => x0 + j * bw + bw / 2).attr('cy', (v) => base - hgt(v)).attr('r', 3.2);
  });
  const top = rows.length * block;
  g.selectAll('text.key-label').data(kTokens).join('text').attr('class', 'key-label token-label')
    .attr('transform', (_, j) => `translate(${x0 + j * bw + bw / 2 - 1},${top - GAP + 6}) rotate(60)`)
    .attr('text-anchor', 'start').attr('dominant-baseline', 'central')
    .call(setTokenText, (t) => t, 12);
  return top + 60;
}

/**
 * A teaching panel that shows rows of bars for one query word (2 · cosine vs dot, 3 · distance): its
 * plot and the sentence under it, and the bars drawn as wide as the panel has room for.
 */
export class BarRowsPanel extends TeachingPanel {
  /** The plot (class `name`) and the paragraph under it, after whatever controls the panel put above. */
  addBars(name) {
    this.addPlot(name);
    this.g = this.svg.append('g').attr('transform', 'translate(8,8)');
    this.stat = this.body.append('p').attr('class', 'teach-stat');
  }

  /**
   * Shows this.data's query row (d.row, also set in the panel's chooser) by the subclass's drawRow(d, off,
   * nk): that row's nk values of head d.head start at `off` in each [heads, nq, nk] array of d.
   */
  draw() {
    const d = this.data;
    if (!d) return;
    this.chooser.set(d.qTokens, d.row);
    const nk = d.kTokens.length;
    this.drawRow(d, (d.head * d.qTokens.length + d.row) * nk, nk);
  }

  /** The rows of bars (see barRows) for query row i of this.data, the plot sized to them and to the room. */
  drawBars(rows, i, room = this.watchRoom()) {
    const d = this.data, nk = d.kTokens.length;
    const bw = Math.max(12, Math.min(48, 520 / nk, (room - 44) / nk));
    const bottom = barRows(this.g, { rows, kTokens: d.kTokens, x0: 0, bw, rowH: 48, maskedKey: (j) => d.maskedKey(i, j) });
    this.setSize(Math.max(Math.min(440, room - 4), nk * bw + 40), bottom + 8);
  }
}

export class CosineDotPanel extends BarRowsPanel {
  constructor(slot, { formula, onRow }) {
    super(slot, {
      id: 'cosine-dot', title: '2 · Cosine vs dot', formula, formulaOf: 'cosine', width: 520,
      text: 'The dot product is the cosine of the angle between two vectors times both their lengths. For one query, its own length scales every score alike, but each key’s length does not: under dot, keys with long vectors win whatever they mean. Cosine divides the lengths out and keeps only the direction, i.e. the meaning.',
    });
    this.chooser = rowChooser(this.body, 'cosine-row', onRow);
    this.addBars('cosine-dot');
  }

  // setData(d), d: { qTokens, kTokens, row, keyNorms: number[], dot: AttendResult, cosine: AttendResult, head, temperature, maskedKey }

  drawRow(d, off, nk) {
    const i = d.row;
    const rowOf = (r) => r.weights.subarray(off, off + nk);
    this.drawBars([
      { label: 'length of each key vector ‖k‖', values: d.keyNorms, cls: 'c-norm' },
      { label: `weight under dot (τ = ${fmt(d.temperature)})`, values: rowOf(d.dot), cls: 'c-dot' },
      { label: `weight under cosine (τ = ${fmt(d.temperature)})`, values: rowOf(d.cosine), cls: 'c-cos' },
    ], i);
    // A pair of keys that the two scores rank in opposite orders, where the longer key wins under dot.
    const sd = d.dot.scores, sc = d.cosine.scores;
    let flip = null;
    for (let a = 0; a < nk; a++) for (let b = 0; b < nk; b++) {
      if (d.maskedKey(i, a) || d.maskedKey(i, b)) continue;
      if (sc[off + a] > sc[off + b] && sd[off + a] < sd[off + b]) {
        const gap = d.keyNorms[b] / d.keyNorms[a];
        if (!flip || gap > flip.gap) flip = { a, b, gap };
      }
    }
    const q = `‘${d.qTokens[i].text}’`, tok = (j) => `‘${d.kTokens[j].text}’`;
    if (flip) {
      const { a, b } = flip;
      // Each pair with the digits it takes to read as two different numbers.
      const [ca, cb] = fmtApart(sc[off + a], sc[off + b], 2), [db, da] = fmtApart(sd[off + b], sd[off + a], 3);
      const [nb, na] = fmtApart(d.keyNorms[b], d.keyNorms[a], 2);
      this.stat.text(`For ${q}: cosine prefers ${tok(a)} to ${tok(b)} (${ca} vs ${cb}), `
        + `but dot prefers ${tok(b)} (${db} vs ${da}) because its vector is longer `
        + `(‖k‖ = ${nb} vs ${na}).`);
    } else {
      this.stat.text(`For ${q}, dot and cosine rank the keys in the same order: the lengths did not change the winner here. Try another word.`);
    }
    this.captionEl.text('Same head and mask as above. The lengths are those of the key vectors the head uses.');
  }
}
