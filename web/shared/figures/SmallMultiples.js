// A grid of small attention matrices in one SVG, each drawn as a one-pixel-per-cell image (so 9
// matrices of 40×40 tokens stay cheap to redraw). Each panel is a button: click or Enter picks it.
import { Figure, consumeKey } from './base.js';
import { panelImage } from '../compute/images.js';

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
    return Math.max(1, Math.min(this.columns, Math.floor((avail - 4) / (cellW * this.scale))));
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
    const cellW = S + padX, cellH = S + titleH + 14;
    this.cellW = cellW;
    this.fitColumns = this.keepColumns ? this.columns : this.columnsThatFit(cellW);
    const cols = Math.min(this.fitColumns, Math.max(1, P.length));
    const W = cols * cellW + 4, H = Math.ceil(P.length / cols) * cellH + 4;
    this.setSize(W, H);
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
      .attr('transform', (_, k) => `translate(${2 + (k % cols) * cellW},${2 + Math.floor(k / cols) * cellH})`)
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
        const href = p.href || panelImage(p.weights, p.offset, p.nq, p.nk, p.masked, 2 * S);
        if (img.getAttribute('href') !== href) img.setAttribute('href', href);
      });
  }
}
