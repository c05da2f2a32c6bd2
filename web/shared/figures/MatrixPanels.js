// A few square [n, n] matrices over the same tokens side by side (wrapping to fit the width), each a
// one-pixel-per-cell image: 'weights' panels coloured from 0 to their own largest value (or, with
// sharedScale, all of them to the largest of them), 'difference' panels on a diverging scale symmetric
// about 0; under each panel its colour scale. Token labels (as text) beside the first panel of each
// row of panels (the rows) and under every panel (the columns) when they fit. Pointing at a cell, or
// the arrow keys (the plot is one keyboard grid, aria-grid.js, over the first panel), says which
// tokens and every panel's value there. The trained model's head view (original, with the surgery,
// difference) and its rollout/flow are made of it.
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';
import { Figure, appendParts, matrixPanelParts, colourTable, lookup, fmt, shortLabel, labelWidth, consumeKey, withCommandModifier, toRGB } from './base.js';
import { matrixImage } from '../compute/images.js';
import { AriaGrid } from './aria-grid.js';

const RdBu = colourTable((t) => interpolateRdBu(1 - t));   // blue below 0, red above
const BLUE = RdBu[20], RED = RdBu[235];
/**
 * A difference's colours: from the page's background at 0 to blue (below) or red (above) at the
 * largest change, so "no change" is the background in either theme (RdBu's white middle made an
 * unchanged head a bright block in dark mode).
 */
function divergingTable(bg) {
  return Array.from({ length: 256 }, (_, k) => {
    const t = (k - 127.5) / 127.5, end = t < 0 ? BLUE : RED, a = Math.min(1, Math.abs(t));
    return bg.map((c, i) => Math.round(c + (end[i] - c) * a));
  });
}
const viridis = colourTable(interpolateViridis);
const BAR_H = 30;       // a panel's colour scale: the bar and its end labels
const LABEL_MAX = 40;   // tokens up to which the rows are labelled

export class MatrixPanels extends Figure {
  constructor(slot, opts) {
    super(slot, opts);
    this.addPlot('matrix-panels').attr('tabindex', 0).attr('aria-roledescription', 'grid of token pairs');
    this.gPanels = this.svg.append('g');
    this.ariaGrid = new AriaGrid(this.svg.node());
    this.cursorAt = [0, 0];
    this.sharedScale = false;   // true: every 'weights' panel coloured from 0 to the largest of them
    this.svg.on('keydown', (ev) => this.onKey(ev))
      .on('focus', () => this.showCursor(true))
      .on('blur', () => this.showCursor(false));
    this.readout = this.body.append('p').attr('class', 'matrix-readout').attr('aria-live', 'polite');
    this.panels = [];
    this.tokens = [];
    this.n = 0;
  }

  /** panels: [{ key, title, values: Float32Array [n, n], kind: 'weights' | 'difference' }], tokens: strings. */
  setPanels(panels, tokens, n) { this.panels = panels; this.tokens = tokens; this.n = n; }

  draw() {
    const P = this.panels, n = this.n;
    if (!P.length || !n) return;
    const labels = n <= LABEL_MAX;
    const labelW = labels ? 74 : 0;
    const colLabelH = labels ? Math.min(72, labelWidth(this.tokens.map((t) => ({ text: t })), 10)) : 0;   // the column labels under each panel
    // The side a matrix wants (12 px a token, 120 to 260), made smaller (down to 120) when that keeps
    // every panel in one row; otherwise as many panels a row as fit. Redrawn when the width changes so.
    const wanted = Math.max(120, Math.min(260, n * 12));
    this.fits = () => {
      const avail = this.observedWidth(this.body.node(), () => {
        if (this.panels.length && this.fits().join() !== [this.cols, this.side].join()) this.draw();
      }) || 900;
      const oneRow = Math.floor((avail / this.scale - labelW - 4) / this.panels.length) - 18;
      const side = Math.max(120, Math.min(wanted, oneRow));
      return [Math.max(1, Math.min(this.panels.length, Math.floor((avail / this.scale - labelW - 4) / (side + 18)))), side];
    };
    [this.cols, this.side] = this.fits();
    const S = this.side;
    const cellW = S + 18, titleH = 36;
    const cols = this.cols, rowsOfPanels = Math.ceil(P.length / cols);
    const rowH = S + titleH + colLabelH + BAR_H + 12;
    const W = labelW + cols * cellW + 4, H = rowsOfPanels * rowH + 4;
    this.setSize(W, H);
    // The weights panels' common top, with sharedScale.
    let bg = [252, 252, 251];
    try { bg = toRGB(getComputedStyle(this.svg.node()).getPropertyValue('--bg').trim() || '#fcfcfb'); } catch { /* the light default */ }
    if (bg.join() !== (this.divergingBg || []).join()) { this.divergingBg = bg; this.diverging = divergingTable(bg); }
    const diverging = this.diverging;
    let shared = 0;
    if (this.sharedScale) for (const p of P) if (p.kind !== 'difference') for (let i = 0; i < n * n; i++) shared = Math.max(shared, p.values[i]);
    this.geom = { S, labelW, titleH, cols, rowH, cellW };
    const tokens = this.tokens, self = this;
    const g = this.gPanels.selectAll('g.mpanel').data(P, (p) => p.key).join((enter) => {
      const e = appendParts(enter.append('g').attr('class', 'mpanel'),
        ['text.panel-title', 'text.panel-sub', 'rect.panel-frame', 'image.panel-img', 'g.row-labels', 'g.col-labels', 'g.legend', 'rect.mcursor']);
      e.select('.mcursor').attr('visibility', 'hidden');
      return matrixPanelParts(e);
    });
    g.attr('transform', (_, k) => `translate(${labelW + 2 + (k % cols) * cellW},${2 + Math.floor(k / cols) * rowH})`)
      .each(function (p, k) {
        const el = this;
        el.querySelector('.panel-title').textContent = p.title;
        const sub = el.querySelector('.panel-sub');
        const frame = el.querySelector('.panel-frame');
        frame.setAttribute('x', -1); frame.setAttribute('y', titleH - 1);
        frame.setAttribute('width', S + 2); frame.setAttribute('height', S + 2);
        const img = el.querySelector('.panel-img');
        img.setAttribute('x', 0); img.setAttribute('y', titleH); img.setAttribute('width', S); img.setAttribute('height', S);
        let href, lo, hi, table;
        if (p.kind === 'difference') {
          let m = 0;
          for (let i = 0; i < n * n; i++) m = Math.max(m, Math.abs(p.values[i]));
          href = matrixImage(p.values, n, n, (v) => lookup(diverging, m > 0 ? 0.5 + v / (2 * m) : 0.5), 0, 1, 2 * S);
          p.range = m;
          sub.textContent = `${p.subtitle || ''}${p.subtitle ? ' · ' : ''}±${fmt(m)}`;
          [lo, hi, table] = [-m, m, diverging];
        } else {
          sub.textContent = p.subtitle || '';
          let m = shared;
          if (!self.sharedScale) for (let i = 0; i < n * n; i++) m = Math.max(m, p.values[i]);
          href = matrixImage(p.values, n, n, (v) => lookup(viridis, m > 0 ? v / m : 0), 0, 1, 2 * S);
          [lo, hi, table] = [0, m, viridis];
        }
        p.scale = [lo, hi];
        img.setAttribute('href', href);
        self.drawBar(el.querySelector('.legend'), table, lo, hi, S, titleH + S + colLabelH + 6, p.kind === 'difference');
        // Column labels under every panel (each panel is read on its own on a projector).
        const cl = el.querySelector('.col-labels');
        cl.textContent = '';
        if (labels) {
          const cw = S / n;
          for (let j = 0; j < n; j++) {
            const t = el.ownerDocument.createElementNS('http://www.w3.org/2000/svg', 'text');
            const x = (j + 0.5) * cw, y = titleH + S + 4;
            t.setAttribute('transform', `translate(${x},${y}) rotate(-90)`);
            t.setAttribute('text-anchor', 'end');
            t.setAttribute('dominant-baseline', 'central');
            t.setAttribute('class', 'tick');
            t.setAttribute('font-size', Math.min(11, Math.max(6, cw - 1)));
            t.textContent = shortLabel(tokens[j] || '', 10);
            cl.appendChild(t);
          }
        }
        // Row labels, beside the first panel of each row of panels.
        const rl = el.querySelector('.row-labels');
        rl.textContent = '';
        if (labels && k % cols === 0) {
          const ch = S / n;
          for (let i = 0; i < n; i++) {
            const t = el.ownerDocument.createElementNS('http://www.w3.org/2000/svg', 'text');
            t.setAttribute('x', -4); t.setAttribute('y', titleH + (i + 0.5) * ch + 3.5);
            t.setAttribute('text-anchor', 'end');
            t.setAttribute('class', 'tick');
            t.setAttribute('font-size', Math.min(11, Math.max(6, ch - 1)));
            t.textContent = shortLabel(tokens[i] || '', 10);
            rl.appendChild(t);
          }
        }
        img.onmousemove = (ev) => {
          const box = img.getBoundingClientRect();
          const j = Math.floor(((ev.clientX - box.left) / box.width) * n), i = Math.floor(((ev.clientY - box.top) / box.height) * n);
          if (i < 0 || j < 0 || i >= n || j >= n) return;
          self.readout.text(`${p.title}: “${tokens[i]}” → “${tokens[j]}”: ${fmt(p.values[i * n + j])}`);
        };
      });
    this.cursorAt = this.cursorAt.map((x) => Math.min(n - 1, x));
    this.drawAria();
  }

  /** A panel's colour scale under it: a bar from lo to hi with its two ends written. */
  drawBar(g, table, lo, hi, S, y, signed) {
    const doc = g.ownerDocument, NS = 'http://www.w3.org/2000/svg';
    g.textContent = '';
    g.setAttribute('transform', `translate(0,${y})`);
    const steps = 24;
    for (let k = 0; k < steps; k++) {
      const r = doc.createElementNS(NS, 'rect');
      r.setAttribute('x', (k * S) / steps); r.setAttribute('width', S / steps + 0.5);
      r.setAttribute('y', 0); r.setAttribute('height', 8);
      const [cr, cg, cb] = table[Math.round(((k + 0.5) / steps) * 255)];
      r.setAttribute('fill', `rgb(${cr},${cg},${cb})`);
      g.appendChild(r);
    }
    const label = (x, anchor, text) => {
      const t = doc.createElementNS(NS, 'text');
      t.setAttribute('x', x); t.setAttribute('y', 20);
      t.setAttribute('text-anchor', anchor); t.setAttribute('class', 'legend-label');
      t.textContent = text;
      g.appendChild(t);
    };
    if (signed && !(hi > 0)) { label(S / 2, 'middle', '0 (no change)'); return; }
    label(0, 'start', signed ? `−${fmt(hi)}` : fmt(lo));
    if (signed) label(S / 2, 'middle', '0');
    label(S, 'end', signed ? `+${fmt(hi)}` : fmt(hi));
  }

  /** Every panel's value at (i, j), in words. */
  describe(i, j) {
    const t = this.tokens, n = this.n;
    // "title: value; title: value": a title may hold numbers of its own ("cosine at τ = 0.1").
    return `“${t[i]}” → “${t[j]}”: ${this.panels.map((p) => `${p.title}: ${fmt(p.values[i * n + j])}`).join('; ')}`;
  }

  /** The keyboard grid (aria-grid.js) over the first panel: headers the tokens, each cell every panel's value. */
  drawAria() {
    const G = this.geom, n = this.n;
    if (!G || !n) return;
    const x0 = G.labelW + 2, y0 = 2 + G.titleH, c = G.S / n;
    this.ariaGrid.update({
      id: `figure-${this.id}-cell`, rows: n, cols: n, active: this.cursorAt,
      colHeader: (j) => ({ label: this.tokens[j], x: x0 + j * c, y: y0 + G.S, w: c, h: 60 }),
      rowHeader: (i) => ({ label: this.tokens[i], x: 2, y: y0 + i * c, w: G.labelW - 2, h: c }),
      cell: (i, j) => ({ label: this.describe(i, j), x: x0 + j * c, y: y0 + i * c, w: c, h: c }),
    });
    this.svg.attr('aria-label', `${this.panels.map((p) => p.title).join(', ')}: ${n} × ${n} tokens. Arrow keys move between token pairs; each says every panel's value.`);
    if (this.focused) this.showCursor(true);
  }

  onKey(ev) {
    const n = this.n;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const m = moves[ev.key];
    if (!n || withCommandModifier(ev)) return;
    let [i, j] = this.cursorAt;
    if (m) { i += m[0]; j += m[1]; } else if (ev.key === 'Home') j = 0; else if (ev.key === 'End') j = n - 1; else return;
    consumeKey(ev);
    this.cursorAt = [Math.max(0, Math.min(n - 1, i)), Math.max(0, Math.min(n - 1, j))];
    this.drawAria();
    this.showCursor(true);
  }

  /** The cursor drawn in every panel at the same token pair, and said in the readout. */
  showCursor(on) {
    this.focused = on;
    const G = this.geom, n = this.n;
    if (!G || !n) return;
    const [i, j] = this.cursorAt, c = G.S / n;
    this.gPanels.selectAll('rect.mcursor').attr('visibility', on ? 'visible' : 'hidden')
      .attr('x', j * c - 1).attr('y', G.titleH + i * c - 1).attr('width', c + 2).attr('height', c + 2);
    if (on) this.readout.text(this.describe(i, j));
  }

  /** The panels' numbers: { tokens, n, [key]: number[][] }. */
  dataJSON() {
    const n = this.n, out = { tokens: this.tokens, n };
    for (const p of this.panels) out[p.key] = Array.from({ length: n }, (_, i) => Array.from(p.values.subarray(i * n, (i + 1) * n)));
    return JSON.stringify(out);
  }
}
