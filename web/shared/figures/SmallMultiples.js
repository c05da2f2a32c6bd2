// A grid of small attention matrices in one SVG, each drawn as a one-pixel-per-cell image (so 9
// matrices of 40×40 tokens stay cheap to redraw). Each panel is a button: click or Enter picks it.
import { interpolateViridis } from 'd3-scale-chromatic';
import { Figure, consumeKey, fmt, shortLabel, labelWidth } from './base.js';
import { panelImage } from '../compute/images.js';

const TOKEN_LABELS_UP_TO = 40;   // tokens up to which the panels' rows and columns are labelled

const MIN_PANEL = 52;       // the smallest side a panel is drawn at (keepColumns)
const WIDE_TITLE = 100;     // a panel narrower than this (with its gap) writes its title on two lines

export class SmallMultiples extends Figure {
  constructor(slot, opts) {
    super(slot, opts);
    this.addPlot('multiples');
    this.gPanels = this.svg.append('g');
    this.panels = [];
    this.current = null;
    this.panelSize = 128;
    this.columns = 5;
    this.fitWidth = false;   // true: as many columns as fit the figure's width (and redrawn when it changes)
    this.fitColumns = 0;
    // true: always this.columns a row (a model's grid: one row per layer), the panels made smaller to
    // fit the width (down to MIN_PANEL, then the plot scrolls sideways) instead of wrapping.
    this.keepColumns = false;
    // true: every panel coloured from 0 to the largest weight of all of them (one colour bar says so);
    // false: each to its own largest.
    this.sharedScale = false;
    this.tokenLabels = null;   // { rows: string[], cols: string[] }: token labels beside and under the panels
    this.pickText = 'Show this one above.';   // what picking a panel does, for screen readers
  }

  /** The panels' side when keepColumns: as large as panelSize, smaller to fit this.columns in the width. */
  panelSideThatFits(padX) {
    const avail = this.observedWidth(this.body.node(), () => {
      if (this.panels.length && this.panelSideThatFits(padX) !== this.side) this.draw();
    });
    if (!(avail > 0)) return this.panelSize;
    const fit = Math.floor((avail - 4) / (this.columns * this.scale)) - padX;
    return Math.max(MIN_PANEL, Math.min(this.panelSize, fit));
  }

  /** How many columns fit the figure's body at its current width (this.columns when not fitting). */
  columnsThatFit(cellW) {
    if (!this.fitWidth) return this.columns;
    // The figure owns its size: when its width changes so that another number of columns fits, redraw.
    const avail = this.observedWidth(this.body.node(), () => {
      if (this.panels.length && this.columnsThatFit(this.cellW) !== this.fitColumns) this.draw();
    });
    if (!(avail > 0)) return this.columns;
    return Math.max(1, Math.min(this.columns, Math.floor((avail / this.scale - 4 - (this.labelW || 0)) / cellW)));
  }

  /**
   * panels: [{ key, title, subtitle, weights: Float32Array, offset, nq, nk, masked(i, j), mark?, href? }]
   * mark: classes of a short line sample drawn before the title (a head's colour, see heads.js).
   * href: the panel's picture when it was already built (panelImage with maxSide 2 × panelSize).
   * current: the key drawn as chosen.
   */
  setPanels(panels) { this.panels = panels; }
  setCurrent(key) { this.current = key; }

  draw() {
    const P = this.panels;
    const padX = 22;
    const S = this.keepColumns ? this.panelSideThatFits(padX) : this.panelSize;
    this.side = S;
    // Narrow panels (a model's grid on a phone) write "layer 1, head 2" as "layer 1," over "head 2".
    const narrow = S + padX < WIDE_TITLE;
    const titleH = narrow ? 46 : 34;
    // Token labels: beside the first panel of each row of panels and under the panels with none below.
    const T = this.tokenLabels && P.length && P[0].nq <= TOKEN_LABELS_UP_TO && P[0].nk <= TOKEN_LABELS_UP_TO ? this.tokenLabels : null;
    const tokenPx = T ? Math.min(11, Math.max(6, S / Math.max(P[0].nq, P[0].nk) - 1)) : 0;
    const labelW = T ? Math.ceil(labelWidth(T.rows.map((t) => ({ text: t })), 10, tokenPx * 0.6)) : 0;
    const colLabelH = T ? Math.ceil(labelWidth(T.cols.map((t) => ({ text: t })), 10, tokenPx * 0.6)) : 0;
    this.labelW = labelW;
    const cellW = S + padX, cellH = S + titleH + 14;
    this.cellW = cellW;
    this.fitColumns = this.keepColumns ? this.columns : this.columnsThatFit(cellW);
    const cols = Math.min(this.fitColumns, Math.max(1, P.length));
    const rowsOfPanels = Math.ceil(P.length / cols);
    // The shared colour bar: beside the panels where the figure has the room (a slide, a wide page), else under them.
    const SIDE_BAR = 64;
    const avail = this.sharedScale ? this.observedWidth(this.body.node()) / this.scale : 0;
    const side = this.sharedScale && avail >= labelW + cols * cellW + 4 + SIDE_BAR;
    const barH = this.sharedScale && !side ? 34 : 0;
    const W = labelW + cols * cellW + 4 + (side ? SIDE_BAR : 0), H = rowsOfPanels * cellH + colLabelH + barH + 4;
    this.setSize(W, H);
    // One scale for every panel: 0 to the largest weight among them.
    let top = null;
    if (this.sharedScale) {
      top = 0;
      for (const p of P) for (let i = 0; i < p.nq * p.nk; i++) if (!p.masked(Math.floor(i / p.nk), i % p.nk)) top = Math.max(top, p.weights[p.offset + i]);
    }
    this.top = top;
    this.drawExtras(T, { S, titleH, cellW, cellH, cols, rowsOfPanels, labelW, colLabelH, tokenPx, barH, top, side });
    const self = this;
    this.gPanels.selectAll('g.panel').data(P, (p) => p.key).join((enter) => {
      const g = enter.append('g').attr('class', 'panel').attr('tabindex', 0).attr('role', 'button');
      g.append('line').attr('class', 'panel-mark').attr('x1', 0).attr('x2', 16).attr('y1', 8).attr('y2', 8);
      g.append('text').attr('class', 'panel-title').attr('x', 0).attr('y', 12);
      // A space between the title and the subtitle (not drawn): read as one text, as assistive
      // technology and checkers of a button's name against its visible words read it, their words stay apart.
      g.each(function () { this.appendChild(this.ownerDocument.createTextNode(' ')); });
      g.append('text').attr('class', 'panel-sub').attr('x', 0).attr('y', 26);
      g.append('rect').attr('class', 'panel-frame');
      g.append('image').attr('class', 'panel-img').attr('preserveAspectRatio', 'none')
        .attr('image-rendering', 'pixelated');
      return g;
    })
      .attr('transform', (_, k) => `translate(${labelW + 2 + (k % cols) * cellW},${2 + Math.floor(k / cols) * cellH})`)
      .classed('current', (p) => p.key === this.current)
      .attr('aria-pressed', (p) => String(p.key === this.current))
      .attr('aria-label', (p) => `${p.title}: ${p.subtitle}. ${this.pickText}`)
      .on('click', (_, p) => self.emit('pick', { key: p.key }))
      .on('keydown', (ev, p) => {
        if ((ev.key === 'Enter' || ev.key === ' ') && !ev.altKey && !ev.ctrlKey && !ev.metaKey) { consumeKey(ev); self.emit('pick', { key: p.key }); }
      })
      .each(function (p) {
        const g = this;
        const title = g.querySelector('.panel-title');
        const cut = narrow ? p.title.indexOf(', ') : -1;
        title.textContent = '';
        if (cut < 0) title.textContent = p.title;
        else {
          // Two lines; the comma stays with the first, so the title reads as one text.
          for (const [k, part] of [p.title.slice(0, cut + 1), p.title.slice(cut + 2)].entries()) {
            const t = g.ownerDocument.createElementNS('http://www.w3.org/2000/svg', 'tspan');
            t.setAttribute('x', title.getAttribute('x'));
            if (k) { t.setAttribute('dy', '12'); t.textContent = ` ${part}`; } else t.textContent = part;
            title.appendChild(t);
          }
        }
        const mark = g.querySelector('.panel-mark');
        mark.setAttribute('class', p.mark ? `panel-mark ${p.mark}` : 'panel-mark');
        mark.setAttribute('visibility', p.mark ? 'visible' : 'hidden');
        title.setAttribute('x', p.mark ? 21 : 0);
        for (const t of title.querySelectorAll('tspan')) t.setAttribute('x', p.mark ? 21 : 0);
        const sub = g.querySelector('.panel-sub');
        sub.setAttribute('y', titleH - 8);
        sub.textContent = narrow && p.subtitleShort ? p.subtitleShort : p.subtitle;
        // Keep the matrix's aspect ratio inside the square.
        const ar = p.nk / p.nq;
        const w = ar >= 1 ? S : S * ar, h = ar >= 1 ? S / ar : S;
        const frame = g.querySelector('.panel-frame');
        frame.setAttribute('x', -1); frame.setAttribute('y', titleH - 1);
        frame.setAttribute('width', w + 2); frame.setAttribute('height', h + 2);
        const img = g.querySelector('.panel-img');
        img.setAttribute('x', 0); img.setAttribute('y', titleH);
        img.setAttribute('width', w); img.setAttribute('height', h);
        // One pixel per cell, scaled up without smoothing (image-rendering: pixelated, kept in
        // exports), at most 2 pixels per panel pixel: a long document is max-pooled down to the panel's size.
        // Masked cells are transparent over the frame's masked fill (figures.css), in either theme.
        const href = (top === null && p.href) || panelImage(p.weights, p.offset, p.nq, p.nk, p.masked, 2 * S, top);
        if (img.getAttribute('href') !== href) img.setAttribute('href', href);
      });
  }

  /** The token labels (rows beside each row of panels, columns under the lowest panel of each column) and the shared colour bar. */
  drawExtras(T, G) {
    if (!this.gExtras) this.gExtras = this.svg.append('g').attr('class', 'multiples-extras').attr('aria-hidden', 'true');
    const g = this.gExtras.node(), doc = g.ownerDocument, NS = 'http://www.w3.org/2000/svg';
    g.textContent = '';
    const text = (x, y, str, attrs = {}) => {
      const t = doc.createElementNS(NS, 'text');
      t.setAttribute('x', x); t.setAttribute('y', y);
      for (const [k, v] of Object.entries(attrs)) t.setAttribute(k, v);
      t.textContent = str;
      g.appendChild(t);
      return t;
    };
    const P = this.panels;
    if (T) {
      const n = P[0].nq, m = P[0].nk, ar = m / n;
      const w = ar >= 1 ? G.S : G.S * ar, h = ar >= 1 ? G.S / ar : G.S;
      for (let r = 0; r < G.rowsOfPanels; r++) {
        const y0 = 2 + r * G.cellH + G.titleH;
        for (let i = 0; i < n; i++) {
          text(G.labelW - 3, y0 + ((i + 0.5) * h) / n, shortLabel(T.rows[i] || '', 10),
            { 'text-anchor': 'end', 'dominant-baseline': 'central', class: 'tick', 'font-size': G.tokenPx });
        }
      }
      for (let k = 0; k < P.length; k++) {
        if (k + G.cols < P.length) continue;   // a panel below has the labels
        const x0 = G.labelW + 2 + (k % G.cols) * G.cellW, y0 = 2 + Math.floor(k / G.cols) * G.cellH + G.titleH + h + 3;
        for (let j = 0; j < m; j++) {
          const t = text(0, 0, shortLabel(T.cols[j] || '', 10), { 'text-anchor': 'end', 'dominant-baseline': 'central', class: 'tick', 'font-size': G.tokenPx });
          t.setAttribute('transform', `translate(${x0 + ((j + 0.5) * w) / m},${y0}) rotate(-90)`);
        }
      }
    }
    if (G.top !== null && G.side) {
      // Upright, right of the panels: the largest weight at the top, 0 at the bottom.
      const x = G.labelW + 2 + G.cols * G.cellW + 6, y0 = 2 + G.titleH, bh = Math.max(60, Math.min(200, G.rowsOfPanels * G.cellH - G.titleH - 14));
      for (let k = 0; k < 24; k++) {
        const r = doc.createElementNS(NS, 'rect');
        r.setAttribute('x', x); r.setAttribute('width', 8);
        r.setAttribute('y', y0 + bh - ((k + 1) * bh) / 24); r.setAttribute('height', bh / 24 + 0.5);
        r.setAttribute('fill', interpolateViridis((k + 0.5) / 24));
        g.appendChild(r);
      }
      text(x + 12, y0 + bh, '0', { class: 'legend-label' });
      text(x + 12, y0 + 8, fmt(G.top), { class: 'legend-label' });
      const t = text(0, 0, 'one scale, every panel', { class: 'legend-label', 'text-anchor': 'middle' });
      t.setAttribute('transform', `translate(${x + 30},${y0 + bh / 2}) rotate(90)`);
    } else if (G.top !== null) {
      const y = 2 + G.rowsOfPanels * G.cellH + G.colLabelH + 4, x0 = G.labelW + 2, bw = Math.min(240, G.cols * G.cellW - 22);
      for (let k = 0; k < 24; k++) {
        const r = doc.createElementNS(NS, 'rect');
        r.setAttribute('x', x0 + (k * bw) / 24); r.setAttribute('width', bw / 24 + 0.5);
        r.setAttribute('y', y); r.setAttribute('height', 8);
        r.setAttribute('fill', interpolateViridis((k + 0.5) / 24));
        g.appendChild(r);
      }
      text(x0, y + 20, '0', { class: 'legend-label' });
      text(x0 + bw, y + 20, fmt(G.top), { class: 'legend-label', 'text-anchor': 'end' });
      text(x0 + bw / 2, y + 20, 'one scale, every panel', { class: 'legend-label', 'text-anchor': 'middle' });
    }
  }
}
