// The attention matrix of one head: rows are query tokens, columns key tokens, colour = weight (or
// raw score). Hover shows the value; click or Enter opens "Why this weight?". Arrow keys move a cursor.
// Selections (the demo, with `selectable`): click a row or column label to select it, shift-click or
// drag along the labels for several, ctrl/cmd-click to add or remove one; shift-click a cell extends
// the rows; Shift+arrows from the keyboard. Each gesture is a `select` event
// { i, j, shift, toggle, kind: 'cell' | 'row' | 'col', from? } (CONTRACT-11); setSelection draws them.
import { scaleSequential } from 'd3-scale';
import { interpolateViridis, interpolateCividis } from 'd3-scale-chromatic';
import { Figure, SVG_NS, consumeKey, withCommandModifier, shortLabel, labelWidth, fmt, luminance, toRGB, colourTable, matrixImage } from './base.js';
import { Kept, KeyedNodes, keptTokenText, range, KEY_SIDE } from './keyed.js';
import { AriaGrid } from './aria-grid.js';

const MAX_PLOT = 620;   // px available for the cells
const NARROW_BOX = 700;       // a figure box narrower than this gets cells sized to fit it
const NARROW_MIN_CELL = 12;   // px: rows for 11 px labels at 0.8
// 256-step colour tables: one string look-up per cell instead of an interpolation.
const VIRIDIS = Array.from({ length: 256 }, (_, i) => interpolateViridis(i / 255));
const CIVIDIS = Array.from({ length: 256 }, (_, i) => interpolateCividis(i / 255));
// The same tables as [r, g, b], for the cells drawn as one image.
const VIRIDIS_RGB = colourTable(interpolateViridis);
const CIVIDIS_RGB = colourTable(interpolateCividis);
/** Cells of at most this many px a side have no gap between them and no number in them: from there
 * (57 tokens on a side) the cells are one image of one pixel per cell, scaled up without smoothing,
 * instead of one <rect> each (64 × 64 tokens were 4,096 rects restyled on every change). The picture
 * is the same; hover, click, the keyboard cursor and the selection work from the pointer's position
 * and stay SVG on top of it. */
export const IMAGE_MAX_CELL = 10;

export class Heatmap extends Figure {
  /**
   * @param {HTMLElement} slot
   * @param {{tooltip?: HTMLElement}} [opts] the page's shared tooltip (positioned absolutely in the
   *   document); without one the figure makes its own, fixed to the viewport (works in a Shadow DOM).
   *   id: the figure's id (default 'heatmap'), for a page with more than one heatmap.
   *   selectable: rows and columns can be selected from their labels and the keyboard (the demo).
   */
  constructor(slot, { tooltip, selectable = false, id = 'heatmap' } = {}) {
    super(slot, {
      id,
      title: 'Attention weights',
      caption: '',
    });
    // The plot is the grid (aria-grid.js): one tab stop, the arrows move its cursor.
    this.addPlot('heatmap')
      .attr('tabindex', 0).attr('aria-roledescription', 'attention matrix');
    this.addLayers({
      gCols: 'g.col-labels', gRows: 'g.row-labels', gCells: 'g.cells', gSel: 'g.selection', gText: 'g.cell-values',
      cursor: 'rect.cursor', selRect: 'rect.selected-cell', gLegend: 'g.legend', axisTitles: 'g.axis-titles',
    });
    this.cursor.attr('visibility', 'hidden');
    this.selRect.attr('visibility', 'hidden');
    this.xTitle = this.axisTitles.append('text').attr('class', 'axis-title').text('keys →');
    this.yTitle = this.axisTitles.append('text').attr('class', 'axis-title').text('queries ↓');
    this.ariaGrid = new AriaGrid(this.svg.node());
    // One source per announcement: a move of the cursor is read from the focus (aria-activedescendant
    // names the cell; its row and column headers are read as they change), so this polite region says
    // only what the focus does not: the value under a focused cursor changed by a redraw (a new text,
    // temperature, head, weights ↔ scores), which a screen reader does not read again on its own.
    this.live = this.body.append('p').attr('class', 'visually-hidden').attr('id', `figure-${this.id}-live`)
      .attr('aria-live', 'polite');
    this.cursorSaid = null;   // what the focus conveys of the cursor's cell now (its row, column and value)
    // What the colours show: the weights (after the softmax) or the raw scores (before it).
    const kindWrap = this.tools.insert('span', ':first-child').attr('class', 'values-choice');
    kindWrap.append('label').attr('for', `${id}-values`).attr('class', 'inline-label').text('show');
    this.kindSelect = kindWrap.append('select').attr('id', `${id}-values`)
      .on('change', (ev) => this.emit('values', { kind: ev.target.value }));
    this.kindSelect.selectAll('option').data([['weights', 'weights'], ['scores', 'raw scores']]).join('option')
      .attr('value', (o) => o[0]).text((o) => o[1]);
    this.selected = null;
    this.selection = { rows: [], cols: [] };
    this.selectable = selectable;
    this.svg.classed('selectable', selectable);
    this.focusCell = [0, 0];
    if (tooltip) {
      this.tooltip = tooltip;
      this.tooltipFixed = false;
    } else {
      this.tooltip = this.root.append('div').attr('class', 'tooltip fixed').attr('role', 'tooltip')
        .attr('hidden', '').node();
      this.tooltipFixed = true;
    }

    const self = this;
    this.gCells.on('mousemove', (ev) => {
      const cell = self.cellAt(ev);
      if (cell) self.hover(cell[0], cell[1], ev);
    }).on('mouseleave', () => self.unhover())
      .on('click', (ev) => {
        const cell = self.cellAt(ev);
        if (cell) {
          self.focusCell = cell;
          if (self.svg.node().getRootNode().activeElement === self.svg.node()) self.showCursor();
          self.emit('select', { i: cell[0], j: cell[1], kind: 'cell', ...modifiers(ev) });
        }
      });
    if (selectable) {
      // A press on a row (column) label selects it; moving with the button down extends the range.
      this.svg.on('pointerdown.select', (ev) => {
        const L = self.layout;
        if (!L || ev.button !== 0) return;
        const box = self.svg.node().getBoundingClientRect();
        const sx = (self.svg.node().viewBox.baseVal.width || box.width) / box.width;
        const x = (ev.clientX - box.left) * sx, y = (ev.clientY - box.top) * sx;
        const kind = x < L.left && y >= L.top ? 'row' : y < L.top && x >= L.left - 10 ? 'col' : null;
        const at = kind ? self.labelAt(ev, kind) : null;
        if (at === null) return;
        ev.preventDefault();
        self.drag = { kind, last: at };
        self.svg.node().setPointerCapture?.(ev.pointerId);
        self.emit('select', kind === 'row' ? { i: at, j: null, kind, ...modifiers(ev) } : { i: null, j: at, kind, ...modifiers(ev) });
      });
      this.svg.on('pointermove.select', (ev) => {
        const g = self.drag;
        if (!g) return;
        const at = self.labelAt(ev, g.kind, true);
        if (at === null || at === g.last) return;
        g.last = at;
        self.emit('select', g.kind === 'row' ? { i: at, j: null, kind: 'row', shift: true, toggle: false }
          : { i: null, j: at, kind: 'col', shift: true, toggle: false });
      }).on('pointerup.select pointercancel.select', () => { self.drag = null; });
    }
    this.svg.on('keydown', (ev) => this.onKey(ev))
      .on('focus', () => this.showCursor())
      .on('blur', () => { this.cursor.attr('visibility', 'hidden'); this.unhover(); });
  }

  /*
   * setData(d), d: { qTokens, kTokens: Token[], nq, nk, weights, scores: Float32Array (this head,
   *   [nq, nk]), masked(i, j): boolean, head, heads, scoreName, temperature }
   */
  setValueKind(kind) { this.kind = kind; this.kindSelect.property('value', kind); }
  setSelected(cell) { this.selected = cell; }
  /** Highlights the selected query rows and key columns (sorted index lists; out-of-range ones ignored). */
  setSelection({ rows = [], cols = [] } = {}) {
    this.selection = { rows, cols };
    this.drawSelection();
  }

  values() {
    return this.kind === 'scores' ? this.data.scores : this.data.weights;
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const { nq, nk } = d;
    const rowLab = labelWidth(d.qTokens);
    const colLab = labelWidth(d.kTokens);
    const left = rowLab + 18, top = colLab + 18;
    let size = Math.max(6, Math.min(34, Math.floor(MAX_PLOT / Math.max(nq, nk))));
    // A narrow box (a phone): cells small enough that the plot fits at 0.8 of its size or more, so
    // its 11 px labels stay legible, but never under NARROW_MIN_CELL (then the page may scroll it).
    // The slot's container (the slot itself may be as wide as the plot it holds).
    const boxWidth = this.observedWidth(this.slot.parentElement || this.body.node());
    if (boxWidth > 0 && boxWidth < NARROW_BOX) {
      const fit = Math.floor((boxWidth / 0.8 - left - 90) / nk);
      size = Math.min(size, Math.max(NARROW_MIN_CELL, fit));
    }
    const W = left + nk * size + 90, H = top + nq * size + 12;
    this.layout = { left, top, size, nq, nk };
    // Everything below is written only where it differs from the previous draw (keyed.js): a keystroke
    // that keeps the shape writes the cells' colours that changed, and one that adds a token the new
    // row and column (the other cells keep their place unless the cells' size or the labels' room changed).
    const frame = `${this.scale}|${W}|${H}|${left}|${top}`;
    if (frame !== this.frame) {
      this.frame = frame;
      this.setSize(W, H);
      // The drawn width, for a page's CSS that keeps the labels legible on a narrow screen (style.css).
      this.svg.node().style.setProperty('--natural-width', `${Math.round(W * this.scale)}px`);
      this.xTitle.attr('x', left).attr('y', 11);
      this.yTitle.attr('x', 4).attr('y', top - 8);
    }

    // Colour: weights on [0, max of the matrix] (viridis); raw scores on [min, max] (cividis).
    const vals = this.values();
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < nq; i++) for (let j = 0; j < nk; j++) {
      if (d.masked(i, j)) continue;
      const v = vals[i * nk + j];
      if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    }
    if (this.kind !== 'scores') lo = 0;
    if (!(hi > lo)) hi = lo + 1;
    const colour = scaleSequential(this.kind === 'scores' ? interpolateCividis : interpolateViridis).domain([lo, hi]);
    this.colour = colour;

    const span = hi - lo;
    if (size <= IMAGE_MAX_CELL) this.drawImage(vals, lo, span, left, top, size);
    else this.drawRects(vals, lo, span, left, top, size);

    // Numbers in the cells when there is room for them, kept by cell like the cells.
    const showText = size >= 30 && this.kind !== 'scores';
    const doc = this.svg.node().ownerDocument;
    this.textSet ||= new KeyedNodes(this.gText.node(), () => doc.createElementNS(SVG_NS, 'text'));
    const texts = this.textSet.sync(showText ? cellKeys(nq, nk) : []);
    for (let k = 0; k < texts.length; k++) {
      const i = (k / nk) | 0, j = k - i * nk;
      const item = texts[k];
      const masked = d.masked(i, j);
      item.attr('class', masked ? 'cell-value hidden' : luminance(toRGB(colour(vals[k]))) > 0.35 ? 'cell-value dark' : 'cell-value light');
      item.attr('x', left + j * size + size / 2 - 0.5);
      item.attr('y', top + i * size + size / 2);
      item.setText(masked ? '' : fmtCell(vals[k]));
    }

    // Row and column labels, kept by position.
    this.rowSet ||= new KeyedNodes(this.gRows.node(), () => doc.createElementNS(SVG_NS, 'text'));
    this.colSet ||= new KeyedNodes(this.gCols.node(), () => doc.createElementNS(SVG_NS, 'text'));
    this.rowItems = this.rowSet.sync(range(nq));
    this.colItems = this.colSet.sync(range(nk));
    for (let i = 0; i < nq; i++) {
      const item = this.rowItems[i], t = d.qTokens[i];
      item.oov = !!t.oov;
      item.attr('x', left - 5);
      item.attr('y', top + i * size + size / 2);
      item.attr('text-anchor', 'end');
      item.attr('dominant-baseline', 'central');
      keptTokenText(item, shortLabel(t.text), t.oov);
    }
    for (let j = 0; j < nk; j++) {
      const item = this.colItems[j], t = d.kTokens[j];
      item.oov = !!t.oov;
      item.attr('transform', `translate(${left + j * size + size / 2},${top - 5}) rotate(-60)`);
      item.attr('text-anchor', 'start');
      item.attr('dominant-baseline', 'central');
      keptTokenText(item, shortLabel(t.text), t.oov);
    }

    this.drawLegend(lo, hi, left + nk * size + 16, top, Math.min(160, Math.max(60, nq * size)));
    this.drawSelection();
    const what = this.kind === 'scores' ? 'raw scores' : 'weights';
    this.setTitle(d.heads > 1 ? `Attention ${what}, head ${d.head + 1} of ${d.heads}` : `Attention ${what}`);
    (this.keptSvg ||= new Kept(this.svg.node())).attr('aria-label', `Attention ${what}: ${nq} query tokens (rows) by ${nk} key tokens (columns), `
      + `coloured from ${fmt(lo)} to ${fmt(hi)}. Arrow keys move, Enter explains a cell.`);
    this.drawAria();
    this.announceRedrawnCursor();
    this.setCaption(this.kind === 'scores'
      ? 'Each cell is the raw score of a query (row) against a key (column), before the softmax.'
      : `Each row is one query word; its ${nk} cells (one per key word) sum to 1. Brighter = more attention. Hover for values; click a cell to see why.`
        + (d.selfIdentity ? ' With one sentence and the raw word vectors, every word is most like itself, so the diagonal is bright: try a second sentence, the random projection or the causal mask.' : ''));
  }

  /** The grid for assistive technology (aria-grid.js): headers the token texts, each cell its value. */
  drawAria() {
    const d = this.data, L = this.layout;
    if (!d || !L) return;
    const { left, top, size } = L;
    const name = (t) => (t.oov ? `${t.text} (not in the vocabulary)` : t.text);
    this.ariaGrid.update({
      id: `figure-${this.id}-cell`, rows: L.nq, cols: L.nk, active: this.focusCell,
      colHeader: (j) => ({ label: name(d.kTokens[j]), x: left + j * size, y: 0, w: size, h: top }),
      rowHeader: (i) => ({ label: name(d.qTokens[i]), x: 0, y: top + i * size, w: left, h: size }),
      cell: (i, j) => ({ label: this.describe(i, j).text, x: left + j * size, y: top + i * size, w: size, h: size }),
    });
  }

  /** One <rect> per cell (cells with room for a gap and a number), kept by cell across draws. */
  drawRects(vals, lo, span, left, top, size) {
    const d = this.data;
    const { nq, nk } = d;
    if (this.cellImage) { this.cellImage.remove(); this.cellImage = null; }
    if (this.cellBack) { this.cellBack.remove(); this.cellBack = null; }
    const doc = this.svg.node().ownerDocument;
    this.cellSet ||= new KeyedNodes(this.gCells.node(), () => doc.createElementNS(SVG_NS, 'rect'));
    // The cells' geometry changes only with the matrix's shape; on a keystroke that keeps the shape,
    // only the colours (and the mask) are written where they changed.
    const shape = `${nq}x${nk}x${size}x${left}x${top}`;
    if (shape !== this.shape) {
      this.shape = shape;
      this.cellItems = this.cellSet.sync(cellKeys(nq, nk));
      const side = size - (size > 10 ? 1 : 0);
      for (let k = 0; k < this.cellItems.length; k++) {
        const i = (k / nk) | 0, j = k - i * nk;
        const item = this.cellItems[k];
        item.attr('x', left + j * size);
        item.attr('y', top + i * size);
        item.attr('width', side);
        item.attr('height', side);
      }
    }
    const table = this.kind === 'scores' ? CIVIDIS : VIRIDIS;
    const items = this.cellItems;
    for (let k = 0; k < items.length; k++) {
      const i = (k / nk) | 0, j = k - i * nk;
      const item = items[k];
      if (d.masked(i, j)) {
        item.attr('class', 'cell masked');
        item.attr('fill', null);
      } else {
        item.attr('class', 'cell');
        item.attr('fill', table[Math.max(0, Math.min(255, Math.round(((vals[k] - lo) / span) * 255))) || 0]);
      }
    }
  }

  /**
   * Every cell as one pixel of a PNG in an SVG <image> (IMAGE_MAX_CELL): exports keep the picture
   * (the SVG file embeds it, the PNG renders it). Its data-rows, data-cols, data-lo and data-hi say
   * what it shows: pixel (j, i) is cell (i, j), coloured from data-lo to data-hi.
   */
  drawImage(vals, lo, span, left, top, size) {
    const d = this.data;
    const { nq, nk } = d;
    if (this.cellSet && this.cellSet.items.length) { this.cellSet.clear(); this.cellItems = []; this.shape = null; }
    if (!this.cellImage) {
      this.cellImage = this.gCells.append('image').attr('class', 'cells-img').attr('preserveAspectRatio', 'none')
        .attr('image-rendering', 'pixelated');
    }
    // Masked cells are transparent pixels over a rectangle filled with the theme's masked colour
    // (CSS), so a light/dark switch recolours them without a new picture.
    if (!this.cellBack) this.cellBack = this.gCells.insert('rect', 'image').attr('class', 'cells-back');
    const table = this.kind === 'scores' ? CIVIDIS_RGB : VIRIDIS_RGB;
    const href = matrixImage(vals, nq, nk, (v, i, j) => (d.masked(i, j) ? null
      : table[Math.max(0, Math.min(255, Math.round(((v - lo) / span) * 255))) || 0]));
    this.cellBack.attr('x', left).attr('y', top).attr('width', nk * size).attr('height', nq * size);
    this.cellImage.attr('x', left).attr('y', top).attr('width', nk * size).attr('height', nq * size)
      .attr('data-rows', nq).attr('data-cols', nk).attr('data-lo', lo).attr('data-hi', lo + span)
      .attr('data-kind', this.kind === 'scores' ? 'scores' : 'weights')
      .attr('href', href);
  }

  drawLegend(lo, hi, x, y, h) {
    const n = 24;
    const doc = this.svg.node().ownerDocument;
    const parent = this.gLegend.node();
    if (!this.legendItems) {
      // 24 swatches, then the two end labels; made once, then written where they changed.
      const make = (tag, cls) => { const e = new Kept(parent.appendChild(doc.createElementNS(SVG_NS, tag))); e.attr('class', cls); return e; };
      this.legendItems = { g: new Kept(parent), swatches: Array.from({ length: n }, () => make('rect', 'swatch')),
        labels: [make('text', 'legend-label'), make('text', 'legend-label')] };
    }
    const L = this.legendItems;
    L.g.attr('transform', `translate(${x},${y})`);
    L.swatches.forEach((s, i) => {
      s.attr('x', 0); s.attr('width', 12);
      s.attr('y', h - ((i + 1) * h) / n); s.attr('height', h / n + 0.5);
      s.attr('fill', this.colour(lo + ((i + 0.5) / n) * (hi - lo)));
    });
    [[hi, 0], [lo, h]].forEach((t, k) => {
      const e = L.labels[k];
      e.attr('x', 16); e.attr('y', t[1]); e.attr('dominant-baseline', 'central');
      e.setText(fmt(t[0]));
    });
  }

  drawSelection() {
    const L = this.layout;
    if (!L) return;
    const s = this.selected;
    if (s && s[0] < L.nq && s[1] < L.nk) {
      this.selRect.attr('visibility', 'visible').attr('x', L.left + s[1] * L.size - 1.5).attr('y', L.top + s[0] * L.size - 1.5)
        .attr('width', L.size + 2).attr('height', L.size + 2);
    } else this.selRect.attr('visibility', 'hidden');
    // Selected rows and columns: one outline per run of neighbours, and their labels marked.
    const rows = this.selection.rows.filter((i) => i < L.nq), cols = this.selection.cols.filter((j) => j < L.nk);
    const bands = [
      ...runs(rows).map(([a, b]) => ({ kind: 'row', x: L.left - 2, y: L.top + a * L.size - 2, w: L.nk * L.size + 3, h: (b - a + 1) * L.size + 3 })),
      ...runs(cols).map(([a, b]) => ({ kind: 'col', x: L.left + a * L.size - 2, y: L.top - 2, w: (b - a + 1) * L.size + 3, h: L.nq * L.size + 3 })),
    ];
    this.gSel.selectAll('rect').data(bands).join('rect')
      .attr('class', (b) => `sel-band sel-${b.kind}`)
      .attr('x', (b) => b.x).attr('y', (b) => b.y).attr('width', (b) => b.w).attr('height', (b) => b.h);
    const rs = new Set(rows), cs = new Set(cols);
    const mark = (items, set) => {
      for (let t = 0; t < items.length; t++) {
        const item = items[t];
        item.attr('class', `token-label${item.oov ? ' oov' : ''}${set.has(t) ? ' selected' : ''}`);
      }
    };
    mark(this.rowItems || [], rs);
    mark(this.colItems || [], cs);
  }

  /**
   * The row (kind 'row') or column under a pointer event on the labels, or null; `anywhere`: from the
   * pointer's position alone (a drag that left the labels still follows the rows or columns).
   */
  labelAt(ev, kind, anywhere = false) {
    const L = this.layout;
    if (!L) return null;
    const box = this.svg.node().getBoundingClientRect();
    const sx = (this.svg.node().viewBox.baseVal.width || box.width) / box.width;
    const x = (ev.clientX - box.left) * sx, y = (ev.clientY - box.top) * sx;
    if (kind === 'row') {
      if (!anywhere && x > L.left) return null;
      const i = Math.floor((y - L.top) / L.size);
      return anywhere ? Math.max(0, Math.min(L.nq - 1, i)) : (i >= 0 && i < L.nq ? i : null);
    }
    // Column labels are rotated -60°: follow the label's slant back to the top edge of the cells.
    const back = anywhere ? 0 : Math.max(0, L.top - y) / Math.tan(Math.PI / 3);
    const j = Math.floor((x - back - L.left) / L.size);
    return anywhere ? Math.max(0, Math.min(L.nk - 1, j)) : (j >= 0 && j < L.nk ? j : null);
  }

  cellAt(ev) {
    const L = this.layout;
    if (!L) return null;
    const box = this.svg.node().getBoundingClientRect();
    const sx = (this.svg.node().viewBox.baseVal.width || box.width) / box.width;
    const x = (ev.clientX - box.left) * sx - L.left, y = (ev.clientY - box.top) * sx - L.top;
    const j = Math.floor(x / L.size), i = Math.floor(y / L.size);
    if (i < 0 || j < 0 || i >= L.nq || j >= L.nk) return null;
    return [i, j];
  }

  describe(i, j) {
    const d = this.data;
    const q = d.qTokens[i], k = d.kTokens[j];
    if (d.masked(i, j)) return { q, k, text: 'masked: this query may not look at later keys (weight 0)' };
    const w = d.weights[i * d.nk + j], s = d.scores[i * d.nk + j];
    return { q, k, text: `weight ${fmt(w, 4)} · score ${fmt(s, 4)}` };
  }

  hover(i, j, ev) {
    const info = this.describe(i, j);
    const tip = this.tooltip;
    tip.textContent = '';
    const doc = tip.ownerDocument;
    const head = doc.createElement('div');
    head.className = 'tip-head';
    head.textContent = `${info.q.text}${info.q.oov ? '?' : ''} → ${info.k.text}${info.k.oov ? '?' : ''}`;
    const body = doc.createElement('div');
    body.className = 'tip-body';
    body.textContent = info.text;
    tip.append(head, body);
    tip.hidden = false;
    let x, y;
    if (ev) { x = ev.clientX + 14; y = ev.clientY + 14; }
    else {
      const L = this.layout, box = this.svg.node().getBoundingClientRect();
      x = box.left + L.left + (j + 1) * L.size + 6; y = box.top + L.top + (i + 1) * L.size + 6;
    }
    const tw = tip.offsetWidth;
    const win = doc.defaultView;
    if (x + tw > win.innerWidth - 8) x = Math.max(8, x - tw - 28);
    tip.style.left = `${x + (this.tooltipFixed ? 0 : win.scrollX)}px`;
    tip.style.top = `${y + (this.tooltipFixed ? 0 : win.scrollY)}px`;
    this.emit('hover', { i, j });
  }

  unhover() {
    this.tooltip.hidden = true;
  }

  showCursor() {
    const L = this.layout;
    if (!L) return;
    let [i, j] = this.focusCell;
    i = Math.min(i, L.nq - 1); j = Math.min(j, L.nk - 1);
    this.focusCell = [i, j];
    this.drawAria();   // the active cell (and the window of rows around it)
    this.cursor.attr('visibility', 'visible').attr('x', L.left + j * L.size - 1).attr('y', L.top + i * L.size - 1)
      .attr('width', L.size + 1).attr('height', L.size + 1);
    // The focus moved to the cell (or onto the grid): that is what is read; the region is emptied so
    // it holds nothing stale.
    this.cursorSaid = this.cursorText(i, j);
    if (this.live.text()) this.live.text('');
  }

  /** The cursor's cell as the readout says it: "Row 2, cat; column 3, sat: weight 0.1234 · score 1.2345". */
  cursorText(i, j) {
    const info = this.describe(i, j);
    return `Row ${i + 1}, ${info.q.text}; column ${j + 1}, ${info.k.text}: ${info.text}`;
  }

  /**
   * After a redraw: with the grid focused, a cursor cell whose row, column or value changed (the focus
   * stayed on the same cell id, so nothing else says it) is announced in the live region.
   */
  announceRedrawnCursor() {
    const svg = this.svg.node();
    if (svg.getRootNode().activeElement !== svg || !this.layout) { this.cursorSaid = null; return; }
    const [i, j] = this.focusCell;
    const L = this.layout;
    const text = this.cursorText(Math.min(i, L.nq - 1), Math.min(j, L.nk - 1));
    if (text === this.cursorSaid) return;
    this.cursorSaid = text;
    this.live.text(text);
  }

  onKey(ev) {
    const L = this.layout;
    if (!L) return;
    let [i, j] = this.focusCell;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      Home: [0, -Infinity], End: [0, Infinity] };
    // Every key handled here is consumed (consumeKey): a slide deck or the page never sees it.
    if (moves[ev.key] && withCommandModifier(ev)) return;
    if (moves[ev.key] && ev.shiftKey && this.selectable && ev.key.startsWith('Arrow')) {
      // Shift+arrows: move and extend the selection of rows (up/down) or columns (left/right).
      const [di, dj] = moves[ev.key];
      const from = [i, j];
      i = Math.max(0, Math.min(L.nq - 1, i + di));
      j = Math.max(0, Math.min(L.nk - 1, j + dj));
      this.focusCell = [i, j];
      this.showCursor();
      consumeKey(ev);
      if (di) this.emit('select', { i, j: null, kind: 'row', shift: true, toggle: false, from: from[0] });
      else this.emit('select', { i: null, j, kind: 'col', shift: true, toggle: false, from: from[1] });
    } else if (moves[ev.key]) {
      const [di, dj] = moves[ev.key];
      i = Math.max(0, Math.min(L.nq - 1, i + di));
      j = Math.max(0, Math.min(L.nk - 1, j + (Number.isFinite(dj) ? dj : dj > 0 ? L.nk : -L.nk)));
      this.focusCell = [i, j];
      this.showCursor();
      this.hover(i, j, null);
      consumeKey(ev);
    } else if ((ev.key === 'Enter' || ev.key === ' ') && !ev.altKey) {
      consumeKey(ev);
      this.emit('select', { i, j, kind: 'cell', shift: ev.shiftKey, toggle: ev.ctrlKey || ev.metaKey });
    } else if (ev.key === 'Escape' && !this.tooltip.hidden) {
      // Escape closes the tooltip; with none open it is the page's (reveal.js: the overview).
      consumeKey(ev);
      this.unhover();
    }
  }
}

function modifiers(ev) {
  return { shift: !!ev.shiftKey, toggle: !!(ev.ctrlKey || ev.metaKey) };
}

/** Runs of consecutive indices in a sorted list: [1, 2, 3, 7] → [[1, 3], [7, 7]]. */
function runs(list) {
  const out = [];
  for (const t of list) {
    if (out.length && out[out.length - 1][1] === t - 1) out[out.length - 1][1] = t;
    else out.push([t, t]);
  }
  return out;
}

/** The keys of the cells of an nq × nk matrix, row by row: cell (i, j) is kept as i × KEY_SIDE + j. */
function cellKeys(nq, nk) {
  const keys = new Array(nq * nk);
  for (let i = 0, k = 0; i < nq; i++) for (let j = 0; j < nk; j++, k++) keys[k] = i * KEY_SIDE + j;
  return keys;
}

function fmtCell(w) {
  if (!(w >= 0)) return '';
  if (w >= 0.995) return '1';
  return w.toFixed(2).replace(/^0/, '');
}

