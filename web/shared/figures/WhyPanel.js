// "Why this weight?": the computation behind one cell of the heatmap. The query and key vectors as
// colour strips, their element-wise product, the norms, the pair's score under every scoring function,
// and the softmax over the row that turns the scores into the weight.
import { select } from 'd3-selection';
import { scaleDiverging } from 'd3-scale';
import { interpolatePuOr } from 'd3-scale-chromatic';
import { Figure, appendParts, setTokenText, shortLabel, fmt, consumeKey, withCommandModifier, scrollableByKeyboard } from './base.js';

const STRIP_W = 300, STRIP_H = 16, LABEL_W = 96;

export class WhyPanel extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'why',
      title: 'Why this weight?',
      caption: '',
    });
    this.closeBtn = this.tools.insert('button', ':first-child').attr('type', 'button').attr('class', 'close')
      .attr('aria-label', 'Close “Why this weight?”').text('×')
      .on('click', () => this.emit('close', {}));
    this.intro = this.body.append('p').attr('class', 'why-intro').attr('id', `figure-${this.id}-intro`);
    // Opened from a heatmap's cell (Enter or a click), the panel is scrolled into view and its heading
    // takes the focus (reveal): a screen reader reads the heading and, as its description, the intro
    // ("‘cat’ (row 2) gives ‘kitten’ …"). Escape anywhere in the panel, or this button, goes back to
    // the heatmap, on the same cell.
    this.titleEl.attr('tabindex', -1).attr('aria-describedby', `figure-${this.id}-intro`);
    this.backBtn = select(this.titleEl.node().parentNode).insert('button', '.fig-tools').attr('type', 'button').attr('class', 'linkish why-back')
      .attr('hidden', '').text('Back to the heatmap (Esc)')
      .on('click', () => this.back());
    this.root.on('keydown', (ev) => {
      if (ev.key === 'Escape' && this.backTo && this.backTo.isConnected && !withCommandModifier(ev)) { consumeKey(ev); this.back(); }
    });
    this.backTo = null;     // the element the focus goes back to (the heatmap)
    this.revealFor = null;  // [i, j]: reveal once the panel shows this cell
    this.addPlot('why');
    this.gStrips = this.svg.append('g').attr('class', 'strips');
    this.gBars = this.svg.append('g').attr('class', 'row-bars');
    this.softmaxText = this.body.append('p').attr('class', 'why-softmax');
    const tableWrap = this.body.append('div').attr('class', 'table-wrap');
    scrollableByKeyboard(tableWrap.node(), () => 'This pair under every scoring function');
    this.table = tableWrap.append('table').attr('class', 'why-scores');
    this.table.append('caption').text('This pair under every scoring function (same head, τ and mask)');
    const hr = this.table.append('thead').append('tr');
    for (const h of ['function', 'score', 'weight']) hr.append('th').attr('scope', 'col').text(h);
    this.tbody = this.table.append('tbody');
    this.nearestEl = this.body.append('p').attr('class', 'why-nearest');
    this.empty = this.body.append('p').attr('class', 'why-empty')
      .text('Click a cell of the heatmap (or focus it and press Enter) to see how its weight is computed.');
    this.model = null;
  }

  /**
   * m: { i, j, head, qToken, kToken, q: Float32Array (dHead), k, rowScores: Float32Array (nk),
   *      rowWeights (nk, from the wasm softmax), kTokens, masked(j), temperature, scoreName,
   *      table: [{ name, formula, score, weight }], nearest: { q: [...], k: [...] } | null,
   *      heatmapWeight }  or null for "nothing chosen"
   */
  setModel(m) { this.model = m; }

  /**
   * Reveals the panel (scrolled into view, its heading focused) as soon as it shows cell [i, j], now if
   * it already does; `from` is where Escape and "Back to the heatmap" return the focus.
   */
  revealWhenShowing(cell, from) {
    this.backTo = from || null;
    this.revealFor = cell;
    const m = this.model;
    if (m && m.i === cell[0] && m.j === cell[1] && !this.job) this.reveal();
  }

  reveal() {
    this.revealFor = null;
    this.backBtn.attr('hidden', this.backTo ? null : '');
    this.root.node().scrollIntoView({ block: 'start' });
    this.titleEl.node().focus({ preventScroll: true });
  }

  /** Back to the heatmap: the focus returns to it (which shows its cursor on the cell explained). */
  back() {
    const to = this.backTo;
    if (!to || !to.isConnected) return;
    to.focus({ preventScroll: true });
    to.scrollIntoView({ block: 'nearest' });
  }

  draw() {
    const m = this.model;
    this.root.classed('is-empty', !m);
    this.empty.attr('hidden', m ? '' : null);
    for (const el of [this.intro, this.svg, this.softmaxText, this.table, this.nearestEl]) el.attr('hidden', m ? null : '');
    this.tools.selectAll('.export').attr('disabled', m ? null : '');
    if (!m) { this.backBtn.attr('hidden', ''); return; }

    const qName = `‘${m.qToken.text}’`, kName = `‘${m.kToken.text}’`;
    this.intro.text(m.masked
      ? `${qName} (row ${m.i + 1}) may not look at ${kName} (column ${m.j + 1}): the causal mask hides later words, so the weight is 0.`
      : `${qName} (row ${m.i + 1}) gives ${kName} (column ${m.j + 1}) the weight ${fmt(m.weight, 4)}${m.heads > 1 ? ` in head ${m.head + 1}` : ''}. Here is how.`);

    // --- strips: q, k, q⊙k ---------------------------------------------------------------------------
    const d = m.q.length;
    const prod = new Float32Array(d);
    let dot = 0, nq = 0, nk = 0, dist2 = 0;
    for (let t = 0; t < d; t++) {
      prod[t] = m.q[t] * m.k[t];
      dot += prod[t]; nq += m.q[t] * m.q[t]; nk += m.k[t] * m.k[t];
      dist2 += (m.q[t] - m.k[t]) ** 2;
    }
    let vmax = 0, pmax = 0;
    for (let t = 0; t < d; t++) {
      vmax = Math.max(vmax, Math.abs(m.q[t]), Math.abs(m.k[t]));
      pmax = Math.max(pmax, Math.abs(prod[t]));
    }
    const cv = scaleDiverging(interpolatePuOr).domain([-vmax || -1, 0, vmax || 1]);
    const cp = scaleDiverging(interpolatePuOr).domain([-pmax || -1, 0, pmax || 1]);
    const cw = STRIP_W / d;
    const rows = [
      { label: `q ${shortLabel(m.qToken.text, 10)}`, values: m.q, colour: cv, note: `‖q‖ = ${fmt(Math.sqrt(nq))}` },
      { label: `k ${shortLabel(m.kToken.text, 10)}`, values: m.k, colour: cv, note: `‖k‖ = ${fmt(Math.sqrt(nk))}` },
      { label: 'q ⊙ k', values: prod, colour: cp, note: `Σ = q·k = ${fmt(dot)}` },
    ];
    const g = this.gStrips.attr('transform', 'translate(0, 18)');
    g.selectAll('text.strip-head').data([0]).join('text').attr('class', 'strip-head')
      .attr('x', LABEL_W).attr('y', -6)
      .text(`the ${d} numbers of each vector (purple < 0 < orange)`);
    const rowG = g.selectAll('g.strip').data(rows)
      .join((enter) => appendParts(enter.append('g').attr('class', 'strip'), ['text.strip-label', 'g.strip-cells', 'text.strip-note']))
      .attr('transform', (_, r) => `translate(0,${r * (STRIP_H + 8)})`);
    rowG.select('.strip-label').attr('x', LABEL_W - 6).attr('y', STRIP_H / 2).attr('text-anchor', 'end')
      .attr('dominant-baseline', 'central').text((r) => r.label);
    rowG.select('.strip-note').attr('x', LABEL_W + STRIP_W + 8).attr('y', STRIP_H / 2)
      .attr('dominant-baseline', 'central').text((r) => r.note);
    rowG.each(function (r) {
      select(this).select('.strip-cells').selectAll('rect').data(Array.from(r.values)).join('rect')
        .attr('x', (_, t) => LABEL_W + t * cw).attr('y', 0).attr('width', cw + 0.3).attr('height', STRIP_H)
        .attr('fill', (v) => r.colour(v));
    });
    const stripsH = 18 + rows.length * (STRIP_H + 8);
    g.selectAll('text.strip-extra').data([0]).join('text').attr('class', 'strip-extra')
      .attr('x', LABEL_W).attr('y', rows.length * (STRIP_H + 8) + 6)
      .text(`‖q − k‖ = ${fmt(Math.sqrt(dist2))} · cos(q, k) = ${fmt(nq > 0 && nk > 0 ? dot / Math.sqrt(nq * nk) : 0)}`);

    // --- the softmax over the row --------------------------------------------------------------------
    const nkeys = m.rowWeights.length;
    const barsTop = stripsH + 50, barsH = 80;
    const bw = Math.min(28, (LABEL_W + STRIP_W) / nkeys);
    const gb = this.gBars.attr('transform', `translate(0,${barsTop})`);
    gb.selectAll('text.bars-head').data([0]).join('text').attr('class', 'bars-head').attr('x', 0).attr('y', -20)
      .text(`softmax over row ${m.i + 1} (${m.scoreName}, τ = ${fmt(m.temperature)}): the weights of ${qName} on every key`);
    let wmax = 0;
    for (const w of m.rowWeights) wmax = Math.max(wmax, w);
    const keys = Array.from({ length: nkeys }, (_, t) => t);
    gb.selectAll('rect.bar').data(keys).join('rect')
      .attr('class', (t) => (t === m.j ? 'bar chosen' : m.maskedKey(t) ? 'bar masked' : 'bar'))
      .attr('x', (t) => t * bw).attr('width', Math.max(1, bw - 2))
      .attr('y', (t) => barsH - (barsH * m.rowWeights[t]) / (wmax || 1))
      .attr('height', (t) => Math.max(0.5, (barsH * m.rowWeights[t]) / (wmax || 1)));
    gb.selectAll('text.bar-label').data(keys).join('text')
      .attr('class', (t) => (t === m.j ? 'bar-label chosen' : 'bar-label'))
      .attr('transform', (t) => `translate(${t * bw + bw / 2 - 1},${barsH + 6}) rotate(60)`)
      .attr('text-anchor', 'start').attr('dominant-baseline', 'central')
      .call(setTokenText, (t) => m.kTokens[t], 10);
    gb.selectAll('text.bar-value').data([m.j]).join('text').attr('class', 'bar-value')
      // Centred over its bar, but never cut at the picture's left edge (a first bar narrower than its number).
      .attr('x', (t) => Math.max(t * bw + bw / 2, 18)).attr('y', (t) => barsH - (barsH * m.rowWeights[t]) / (wmax || 1) - 4)
      .attr('text-anchor', 'middle').text((t) => fmt(m.rowWeights[t], 3));
    const W = LABEL_W + STRIP_W + 120, H = barsTop + barsH + 80;
    this.setSize(W, H);

    const s = m.rowScores[m.j];
    let best = -1;
    for (let t = 0; t < nkeys; t++) if (!m.maskedKey(t) && (best < 0 || m.rowScores[t] > m.rowScores[best])) best = t;
    this.softmaxText.text(m.masked
      ? 'The causal mask sets this score to −∞ before the softmax, so its weight is exactly 0.'
      : `Score ${fmt(s, 4)}; divided by τ: ${fmt(s / m.temperature, 4)}. The softmax exponentiates every score/τ of the row and divides by their sum (after subtracting the row’s largest, ${fmt(m.rowScores[best] / m.temperature, 4)} for ‘${m.kTokens[best].text}’, which changes nothing but avoids overflow): weight = ${fmt(m.weight, 4)}.`);

    // --- every scoring function ----------------------------------------------------------------------
    this.tbody.selectAll('tr').data(m.table, (r) => r.name).join((enter) => {
      const tr = enter.append('tr');
      tr.append('th').attr('scope', 'row');
      tr.append('td').attr('class', 'num score');
      tr.append('td').attr('class', 'num weight');
      return tr;
    })
      .classed('current', (r) => r.name === m.scoreName)
      .call((tr) => tr.select('th').text((r) => `${r.name}  ${r.formula}`))
      .call((tr) => tr.select('.score').text((r) => (m.masked ? 'masked' : fmt(r.score, 4))))
      .call((tr) => tr.select('.weight').text((r) => fmt(r.weight, 4)));

    if (m.nearest) {
      const part = (tok, list) => (tok.oov
        ? `‘${tok.text}’ is not in the vocabulary (its vector is pseudo-random)`
        : `‘${tok.text}’ is closest to ${list.map((x) => x.word).join(', ')}`);
      this.nearestEl.attr('hidden', null).text(`Nearest words in the vocabulary (cosine of the word vectors): ${part(m.qToken, m.nearest.q)}; ${part(m.kToken, m.nearest.k)}.`);
    } else this.nearestEl.attr('hidden', '');
    this.captionEl.text('');
    const want = this.revealFor;
    if (want && want[0] === m.i && want[1] === m.j) this.reveal();
  }
}
