// Two columns of tokens, queries on the left and keys on the right, joined by one line per
// (head, query, key): line opacity = weight, one colour per head (as in bertviz's head view).
// Hovering or focusing a token isolates its lines and prints their weights; the legend toggles heads.
// Head colours: see heads.js.
import { Figure, SVG_NS, shortLabel, labelWidth, fmt, consumeKey, withCommandModifier } from './base.js';
import { Kept, KeyedNodes, keptTokenText, range, KEY_SIDE } from './keyed.js';
import { headClass, HEAD_COLOURS } from './heads.js';

const ROW = 20;
const GAP = 220;    // px between the two columns
const MIN_W = 1e-3; // a line with weight below this is fully transparent to the eye: not drawn
const KEY_ENTRY = 70; // px per entry of the in-picture head key

export class LineView extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'lines',
      title: 'Who looks at whom',
      caption: 'Each query word (left) sends a line to every key word (right); the more attention, the more opaque the line. Hover a word, or tab to the words and move with the arrow keys, to see only its lines and their weights.',
    });
    this.legend = this.body.append('div').attr('class', 'head-legend').attr('role', 'group')
      .attr('aria-label', 'Heads shown');
    this.addPlot('lineview', {
      gLines: 'g.lines', gFocus: 'g.focus-lines', gLeft: 'g.tokens.left', gRight: 'g.tokens.right', gWeights: 'g.focus-weights',
      gKey: 'g.svg-key',   // head colours inside the picture, for exports
      colTitles: 'g.axis-titles',
    });
    this.colTitles.append('text').attr('class', 'axis-title q-title').text('queries');
    this.colTitles.append('text').attr('class', 'axis-title k-title').text('keys');
    this.focus = null;          // { side: 'q' | 'k', index }
    this.tabStop = { side: 'q', index: 0 };   // the token Tab reaches (onTokenKey)
    this.shown = new Set([0]);  // heads drawn
    this.heads = 0;
    this.firstHead = 0;         // the number of the first head minus 1 (a block of a larger layer)
    this.focusRows = null;      // at large n: the query rows whose strongest links are drawn
    this.topLinks = 8;
    this.defaultCaption = this.captionEl.text();
  }

  /**
   * Long documents: draw only these query rows and, for each, its `top` strongest keys (per head),
   * instead of every (query, key) line. null: every line (short texts).
   */
  setFocusRows(rows, top = 8) {
    this.focusRows = rows && rows.length ? [...new Set(rows)].sort((a, b) => a - b).slice(0, 24) : null;
    this.topLinks = top;
  }

  /** The data reduced to the focus rows and the union of their strongest keys (real weights). */
  reduce(d) {
    const { nq, nk, heads, weights } = d;
    const rows = this.focusRows.filter((i) => i >= 0 && i < nq);
    const keys = new Set();
    for (const i of rows) {
      for (let h = 0; h < heads; h++) {
        const off = h * nq * nk + i * nk;
        const order = [];
        for (let j = 0; j < nk; j++) order.push(j);
        // Partial selection would do; nk ≤ 2,000 and a few rows keep a sort cheap.
        order.sort((a, b) => weights[off + b] - weights[off + a]);
        for (const j of order.slice(0, this.topLinks)) keys.add(j);
      }
    }
    const cols = [...keys].sort((a, b) => a - b);
    const w = new Float32Array(heads * rows.length * cols.length);
    for (let h = 0; h < heads; h++) {
      rows.forEach((i, a) => cols.forEach((j, b) => { w[(h * rows.length + a) * cols.length + b] = weights[h * nq * nk + i * nk + j]; }));
    }
    const label = (t, i) => ({ ...t, text: `${i + 1}: ${t.text}` });
    this.reduced = { rows, cols, nq, nk };
    return { ...d, qTokens: rows.map((i) => label(d.qTokens[i], i)), kTokens: cols.map((j) => label(d.kTokens[j], j)),
      nq: rows.length, nk: cols.length, weights: w };
  }

  /** d: { qTokens, kTokens, nq, nk, heads, weights: Float32Array [heads, nq, nk], selectedRows?: the
   *  page's selected query rows (their labels are marked, and the other rows' lines fade), firstHead?:
   *  the number of the first head minus 1, when the heads are a block of a larger layer (labels only) } */
  setData(d) {
    this.reduced = null;
    this.selectedRows = new Set(d.selectedRows || []);
    if (this.focusRows) d = this.reduce(d);
    this.setCaption(this.reduced
      ? `${this.reduced.nq} query × ${this.reduced.nk} key tokens${d.heads > 1 ? ` × ${d.heads} heads` : ''}: too many for one line each, so only the `
        + `${this.topLinks} strongest links of the selected query token${this.reduced.rows.length > 1 ? 's' : ''} `
        + `(${this.reduced.rows.map((i) => i + 1).join(', ')}) are drawn, per head, opaque in proportion to the strongest of them; labels give each token's position. `
        + 'Select query tokens, or click a cell of the heatmap, to choose which.'
      : this.defaultCaption);
    if (!this.data || d.heads !== this.heads || (d.firstHead || 0) !== this.firstHead) {
      this.shown = new Set(Array.from({ length: d.heads }, (_, h) => h));
      this.heads = d.heads;
      this.firstHead = d.firstHead || 0;
    }
    this.data = d;
    if (this.focus && (this.focus.side === 'q' ? this.focus.index >= d.nq : this.focus.index >= d.nk)) this.focus = null;
  }

  setShownHeads(list) { this.shown = new Set(list); }

  draw() {
    const d = this.data;
    if (!d) return;
    const { nq, nk } = d;
    const lw = labelWidth(d.qTokens), rw = labelWidth(d.kTokens);
    const x1 = 40 + lw + 6, x2 = x1 + GAP, top = 26;
    const W = x2 + rw + 46;
    // With several heads, a key of the shown heads under the columns ("━ head 1  ━ head 2 …"), so an
    // exported PNG/SVG says which colour is which head (the toggles above are HTML, not in the file).
    const shownHeads = this.heads > 1 ? [...this.shown].sort((a, b) => a - b) : [];
    const perRow = Math.max(1, Math.floor((W - 16) / KEY_ENTRY));
    const keyRows = Math.ceil(shownHeads.length / perRow);
    const bodyBottom = top + Math.max(nq, nk) * ROW + 6;
    const H = bodyBottom + (keyRows ? keyRows * 16 + 8 : 0);
    // Everything below is written only where it differs from the previous draw (keyed.js): a keystroke
    // that keeps the tokens' count and widths writes the lines' opacities that changed and nothing else.
    const frame = `${this.scale}|${W}|${H}|${x1}|${x2}|${bodyBottom}|${perRow}|${shownHeads.join(',')}`;
    if (frame !== this.frame) {
      this.frame = frame;
      this.gKey.attr('transform', `translate(8,${bodyBottom + 8})`);
      const entries = this.gKey.selectAll('g.key-entry').data(shownHeads).join((enter) => {
        const e = enter.append('g').attr('class', 'key-entry');
        e.append('line').attr('x1', 0).attr('x2', 18).attr('y1', 0).attr('y2', 0);
        e.append('text').attr('class', 'axis-title').attr('x', 22).attr('dominant-baseline', 'central');
        return e;
      })
        .attr('transform', (_, k) => `translate(${(k % perRow) * KEY_ENTRY},${Math.floor(k / perRow) * 16})`);
      entries.select('line').attr('class', (h) => `key-line ${headClass(h)}`);
      entries.select('text').text((h) => `head ${this.firstHead + h + 1}`);
      this.setSize(W, H);
      this.colTitles.select('.q-title').attr('x', x1 - 4).attr('y', 12).attr('text-anchor', 'end');
      this.colTitles.select('.k-title').attr('x', x2 + 4).attr('y', 12).attr('text-anchor', 'start');
    }
    this.geom = { x1, x2, top };

    this.drawLegend();

    // One <line> per (shown head, query, key), kept across draws by that key: the lines of the tokens
    // a keystroke keeps are the same elements, with the same geometry (written again only if the
    // columns moved); a line too faint to see is hidden.
    const shown = [...this.shown].sort((a, b) => a - b);
    const y = (i) => top + i * ROW + ROW / 2;
    if (!this.lineSet) this.lineSet = new KeyedNodes(this.gLines.node(), () => this.gLines.node().ownerDocument.createElementNS(SVG_NS, 'line'));
    const shape = `${nq}x${nk}x${x1}x${x2}x${shown.join(',')}`;
    if (shape !== this.shape) {
      this.shape = shape;
      const keys = [];
      for (const h of shown) for (let i = 0; i < nq; i++) for (let j = 0; j < nk; j++) keys.push((h * KEY_SIDE + i) * KEY_SIDE + j);
      this.lineItems = this.lineSet.sync(keys);
      let k = 0;
      for (const h of shown) {
        const cls = headClass(h);
        for (let i = 0; i < nq; i++) {
          const y1 = y(i);
          for (let j = 0; j < nk; j++, k++) {
            const item = this.lineItems[k];
            item.attr('x1', x1); item.attr('x2', x2); item.attr('y1', y1); item.attr('y2', y(j));
            item.base = cls;
          }
        }
      }
    }
    const w = d.weights;
    // A long document's few drawn links may all be small (a word spread over 2,000 keys): their
    // opacity is then relative to the strongest drawn link (the caption says so).
    let gain = 1;
    if (this.reduced) {
      let max = 0;
      for (let t = 0; t < w.length; t++) if (w[t] > max) max = w[t];
      gain = max > 0 ? 1 / max : 1;
    }
    this.gain = gain;
    // The selected query rows (original indices; a long document's drawn rows are all selected ones):
    // the other rows' lines fade, unless nothing is selected.
    const sel = this.selectedRows;
    const rowOf = (i) => (this.reduced ? this.reduced.rows[i] : i);
    const fade = this.fades();
    const items = this.lineItems;
    let k = 0;
    for (const h of shown) {
      const base = h * nq * nk;
      for (let ij = 0; ij < nq * nk; ij++, k++) {
        const v = w[base + ij] * gain;
        const item = items[k];
        const off = fade && !sel.has(Math.floor(ij / nk));
        item.attr('class', off ? `${item.base} unselected` : item.base);
        if (v >= MIN_W) {
          item.attr('visibility', 'visible');
          item.attr('stroke-opacity', v.toFixed(3));
        } else item.attr('visibility', 'hidden');
      }
    }

    if (this.tabStop.index >= (this.tabStop.side === 'q' ? d.qTokens : d.kTokens).length) this.tabStop = { side: 'q', index: 0 };
    this.tokenRows('q', this.gLeft, d.qTokens, x1 - 4, lw);
    this.tokenRows('k', this.gRight, d.kTokens, x2 + 4, rw);
    const left = this.tokItems.q;
    for (let i = 0; i < left.length; i++) left[i].selected = sel.has(rowOf(i));
    this.drawFocus();
  }

  /** The token labels of one column (side 'q' or 'k'), kept by position across draws. */
  tokenRows(side, g, tokens, x, width) {
    this.tokSets ||= {};
    this.tokItems ||= {};
    const self = this;
    const parent = g.node();
    if (!this.tokSets[side]) {
      this.tokSets[side] = new KeyedNodes(parent, (i) => {
        const doc = parent.ownerDocument;
        const t = doc.createElementNS(SVG_NS, 'g');
        t.setAttribute('role', 'button');
        const rect = doc.createElementNS(SVG_NS, 'rect');
        rect.setAttribute('class', 'tok-bg');
        const text = doc.createElementNS(SVG_NS, 'text');
        t.append(rect, text);
        const enter = () => self.setFocus(side, i), leave = () => self.setFocus(null);
        t.addEventListener('mouseenter', enter);
        t.addEventListener('focus', () => { self.moveTabStop(side, i); enter(); });
        t.addEventListener('mouseleave', leave);
        t.addEventListener('blur', leave);
        t.addEventListener('keydown', (ev) => self.onTokenKey(ev, side, i));
        return t;
      });
    }
    const items = this.tokSets[side].sync(range(tokens.length));
    this.tokItems[side] = items;
    const y = (i) => this.geom.top + i * ROW + ROW / 2;
    for (let i = 0; i < items.length; i++) {
      const item = items[i], t = tokens[i];
      if (!item.bg) {
        item.bg = new Kept(item.node.firstChild);
        item.label = new Kept(item.node.lastChild);
        item.selected = false;
        item.focused = false;
      }
      // One tab stop for all the tokens (a roving tabindex): the arrows move between them (onTokenKey).
      item.attr('tabindex', this.tabStop.side === side && this.tabStop.index === i ? 0 : -1);
      item.attr('transform', `translate(${x},${y(i)})`);
      item.attr('aria-label', `${side === 'q' ? 'query' : 'key'} ${i + 1}: ${t.text}${t.oov ? ' (not in vocabulary)' : ''}`);
      item.bg.attr('x', side === 'q' ? -width : -2);
      item.bg.attr('y', -ROW / 2 + 1);
      item.bg.attr('width', width + 2);
      item.bg.attr('height', ROW - 2);
      item.label.attr('class', t.oov ? 'token-label oov' : 'token-label');
      item.label.attr('text-anchor', side === 'q' ? 'end' : 'start');
      item.label.attr('dominant-baseline', 'central');
      keptTokenText(item.label, shortLabel(t.text), t.oov);
    }
  }

  /** Whether the lines of the query rows not selected fade (a selection, every line drawn). */
  fades() { return this.selectedRows.size > 0 && !this.reduced; }

  drawLegend() {
    // Rebuilt only when the heads or the shown ones change (a keystroke changes neither).
    const state = `${this.heads}|${[...this.shown].sort((a, b) => a - b).join(',')}`;
    if (state === this.legendState) return;
    this.legendState = state;
    const heads = Array.from({ length: this.heads }, (_, h) => h);
    const self = this;
    this.legend.classed('single', this.heads === 1);
    this.legend.selectAll('button').data(heads).join((enter) => {
      const b = enter.append('button').attr('type', 'button').attr('class', 'head-toggle');
      b.append('span').attr('class', 'swatch');
      b.append('span').attr('class', 'label');
      return b;
    })
      .attr('aria-pressed', (h) => String(this.shown.has(h)))
      .attr('title', (h) => (h >= HEAD_COLOURS ? `Head ${this.firstHead + h + 1}: dashed lines, in the colour of head ${this.firstHead + (h % HEAD_COLOURS) + 1}` : null))
      .call((b) => b.select('.swatch').attr('class', (h) => `swatch ${headClass(h)}`))
      .call((b) => b.select('.label').text((h) => `head ${this.firstHead + h + 1}`))
      .on('click', function (_, h) {
        if (self.shown.has(h)) { if (self.shown.size > 1) self.shown.delete(h); } else self.shown.add(h);
        self.draw();
        self.emit('heads', { shown: [...self.shown] });
      });
  }

  setFocus(side, index) {
    this.focus = side ? { side, index } : null;
    this.drawFocus();
  }

  /**
   * The tokens are one tab stop: ↑ and ↓ move within a column, ← and → to the other column (same row,
   * or its last), Home and End to a column's ends. Every key handled is consumed (consumeKey).
   */
  onTokenKey(ev, side, i) {
    const items = this.tokItems || {};
    if (withCommandModifier(ev) || !items[side]) return;
    let to = null;
    const last = (s) => (items[s] ? items[s].length - 1 : -1);
    if (ev.key === 'ArrowUp') to = [side, Math.max(0, i - 1)];
    else if (ev.key === 'ArrowDown') to = [side, Math.min(last(side), i + 1)];
    else if (ev.key === 'Home') to = [side, 0];
    else if (ev.key === 'End') to = [side, last(side)];
    else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
      const other = ev.key === 'ArrowLeft' ? 'q' : 'k';
      to = last(other) >= 0 ? [other, Math.min(last(other), i)] : [side, i];
    }
    if (!to) return;
    consumeKey(ev);
    this.moveTabStop(to[0], to[1]);
    items[to[0]][to[1]].node.focus();
  }

  /** Makes token `index` of column `side` the figure's tab stop. */
  moveTabStop(side, index) {
    const items = this.tokItems || {};
    const old = this.tabStop;
    if (items[old.side] && items[old.side][old.index]) items[old.side][old.index].attr('tabindex', -1);
    this.tabStop = { side, index };
    if (items[side] && items[side][index]) items[side][index].attr('tabindex', 0);
  }

  drawFocus() {
    const d = this.data, f = this.focus;
    if (!d) return;
    const { x1, x2, top } = this.geom;
    const { nq, nk } = d;
    const y = (i) => top + i * ROW + ROW / 2;
    // The group's class (drawFocus ends every draw): has-selection as above, dimmed while a token is focused.
    (this.linesClass ||= new Kept(this.gLines.node())).attr('class', `lines${this.fades() ? ' has-selection' : ''}${f ? ' dimmed' : ''}`);
    for (const side of ['q', 'k']) {
      const items = this.tokItems?.[side] || [];
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        item.focused = !!f && f.side === side && f.index === i;
        item.attr('class', `tok${item.selected ? ' selected' : ''}${item.focused ? ' focused' : ''}`);
      }
    }
    const lines = [];
    const labels = [];
    if (f) {
      for (const h of this.shown) {
        const base = h * nq * nk;
        if (f.side === 'q') for (let j = 0; j < nk; j++) lines.push([h, f.index, j, d.weights[base + f.index * nk + j]]);
        else for (let i = 0; i < nq; i++) lines.push([h, i, f.index, d.weights[base + i * nk + f.index]]);
      }
      // The weights of the first shown head, printed beside the other column.
      const h0 = Math.min(...this.shown);
      for (const l of lines) if (l[0] === h0) labels.push(l);
    }
    this.gFocus.selectAll('line').data(lines).join('line')
      .attr('x1', x1).attr('x2', x2)
      .attr('y1', (l) => y(l[1])).attr('y2', (l) => y(l[2]))
      .attr('class', (l) => headClass(l[0]))
      .attr('stroke-opacity', (l) => Math.max(l[3], 0.04))
      .attr('stroke-width', (l) => 1 + 3 * l[3]);
    const rw = labelWidth(d.kTokens);
    const wx = f && f.side === 'q' ? x2 + rw + 8 : x1 - labelWidth(d.qTokens) - 8;
    const anchor = f && f.side === 'q' ? 'start' : 'end';
    this.gWeights.selectAll('text.focus-weight').data(labels).join('text').attr('class', 'focus-weight')
      .attr('x', wx)
      .attr('y', (l) => y(f.side === 'q' ? l[2] : l[1]))
      .attr('text-anchor', anchor)
      .attr('dominant-baseline', 'central')
      .text((l) => fmt(l[3], 2));
    // With several heads drawn, say whose weights these are (by name: colour is not the only cue).
    const whose = f && this.shown.size > 1 ? [Math.min(...this.shown)] : [];
    this.gWeights.selectAll('text.focus-weight-head').data(whose).join('text').attr('class', 'focus-weight-head')
      .attr('x', wx).attr('y', 12).attr('text-anchor', anchor)
      .text((h) => `head ${this.firstHead + h + 1}`);
  }
}
