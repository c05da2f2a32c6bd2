// A few square [n, n] matrices over the same tokens side by side (wrapping to fit the width), each a
// one-pixel-per-cell image: 'weights' panels coloured from 0 to their own largest value, 'difference'
// panels on a diverging scale symmetric about 0. Token labels (as text) beside the first panel of
// each row of panels when they fit; pointing at a cell says which tokens and the value. The trained
// model's head view (original, with the surgery, difference) and its rollout/flow are made of it.
import { interpolateRdBu } from 'd3-scale-chromatic';
import { Figure, colourTable, lookup, fmt, shortLabel } from './base.js';
import { panelImage, matrixImage } from '../compute/images.js';

const diverging = colourTable((t) => interpolateRdBu(1 - t));   // blue below 0, red above
const LABEL_MAX = 40;   // tokens up to which the rows are labelled

export class MatrixPanels extends Figure {
  constructor(slot, opts) {
    super(slot, opts);
    this.addPlot('matrix-panels');
    this.gPanels = this.svg.append('g');
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
    const W = labelW + cols * cellW + 4, H = rowsOfPanels * (S + titleH + 12) + 4;
    this.setSize(W, H);
    const tokens = this.tokens, self = this;
    const g = this.gPanels.selectAll('g.mpanel').data(P, (p) => p.key).join((enter) => {
      const e = enter.append('g').attr('class', 'mpanel');
      e.append('text').attr('class', 'panel-title').attr('y', 12);
      e.append('text').attr('class', 'panel-sub').attr('y', 26);
      e.append('rect').attr('class', 'panel-frame');
      e.append('image').attr('class', 'panel-img').attr('preserveAspectRatio', 'none').attr('image-rendering', 'pixelated');
      e.append('g').attr('class', 'row-labels');
      return e;
    });
    g.attr('transform', (_, k) => `translate(${labelW + 2 + (k % cols) * cellW},${2 + Math.floor(k / cols) * (S + titleH + 12)})`)
      .each(function (p, k) {
        const el = this;
        el.querySelector('.panel-title').textContent = p.title;
        const sub = el.querySelector('.panel-sub');
        const frame = el.querySelector('.panel-frame');
        frame.setAttribute('x', -1); frame.setAttribute('y', titleH - 1);
        frame.setAttribute('width', S + 2); frame.setAttribute('height', S + 2);
        const img = el.querySelector('.panel-img');
        img.setAttribute('x', 0); img.setAttribute('y', titleH); img.setAttribute('width', S); img.setAttribute('height', S);
        let href;
        if (p.kind === 'difference') {
          let m = 0;
          for (let i = 0; i < n * n; i++) m = Math.max(m, Math.abs(p.values[i]));
          href = matrixImage(p.values, n, n, (v) => lookup(diverging, m > 0 ? 0.5 + v / (2 * m) : 0.5), 0, 1, 2 * S);
          p.range = m;
          sub.textContent = `${p.subtitle || ''}${p.subtitle ? ' · ' : ''}±${fmt(m)}`;
        } else {
          sub.textContent = p.subtitle || '';
          href = panelImage(p.values, 0, n, n, () => false, 2 * S);
        }
        img.setAttribute('href', href);
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
  }

  /** The panels' numbers: { tokens, n, [key]: number[][] }. */
  dataJSON() {
    const n = this.n, out = { tokens: this.tokens, n };
    for (const p of this.panels) out[p.key] = Array.from({ length: n }, (_, i) => Array.from(p.values.subarray(i * n, (i + 1) * n)));
    return JSON.stringify(out);
  }
}
