// The attention matrix of one head for long documents (up to 2,000 × 2,000 tokens): drawn on canvas,
// an overview of the whole matrix (one pixel per cell, scaled down) beside a zoomed detail. The detail
// zooms and pans with d3-zoom (wheel, pinch, drag) and the keyboard (+ and − zoom, arrows pan, 0 shows
// everything); its token labels appear once a row or column is tall enough for them. Clicking a cell
// emits `select` ({ i, j, shift, kind: 'cell' }) like the SVG heatmap; setSelection({ rows, cols })
// highlights whole rows and columns. Exported as PNG, or as SVG with the two pictures embedded.
// A long × short matrix (2,000 query tokens against a 7-word key sentence, or the transpose) is drawn
// with cells that are not square: the short axis fills the detail, labelled, and stays put, while the
// long one gets cells of at least MIN_LONG_CELL px, windowed (it pans and zooms; the overview shows all
// of it); the overview's short side is at least OV_SHORT_CELL px a cell. `geometry` (and the detail's
// data-* attributes) say how the cells are drawn.
import { select } from 'd3-selection';
import { zoom as d3zoom, zoomIdentity } from 'd3-zoom';
import { interpolateViridis, interpolateCividis } from 'd3-scale-chromatic';
import { Figure, fmt, shortLabel, colourTable, toRGB, packRGB, SVG_NS, consumeKey, withCommandModifier } from './base.js';
import { pngBlob } from './export.js';
import { Kept } from './keyed.js';

const VIRIDIS = colourTable(interpolateViridis);
const CIVIDIS = colourTable(interpolateCividis);
const OVERVIEW = 200;       // px: the overview's longer side
const LABEL_MIN = 11;       // px a row or column needs before its label is drawn
const MARGIN = 84;          // px for the labels left of and above the detail
const MAX_ZOOM_CELL = 48;   // px: the largest a cell gets when zoomed in
const MIN_LONG_CELL = 4;    // px: a long × short matrix's cells on its long axis, at the least
const OV_SHORT_CELL = 6;    // px: a long × short matrix's cells on the overview's short axis, at the least
const LONG_RATIO = 4;       // a matrix is long × short from this ratio of its sides on

/**
 * How the detail draws the cells of an nq × nk matrix in a matrix area of aw × ah px: 'square' (one
 * cell size, the whole matrix fits at zoom 1), or for a long × short matrix whose short side can be
 * labelled whole, 'rows' (many query rows: the key columns fill the width) or 'cols' (the transpose).
 * Then `short` is the short axis's cell (px, fixed) and `long` the long axis's at zoom 1.
 * A long × short matrix whose short side is too long to be labelled whole (2,000 × 100) keeps square
 * cells, but sized so that its short side fills the detail: a window of the long axis at zoom 1 (the
 * overview shows all of it), where the whole matrix would have been a strip a few pixels wide.
 */
export function cellGeometry(nq, nk, aw, ah) {
  const fit = Math.min(aw / nk, ah / nq);
  const rows = nq >= nk;
  const [nLong, nShort, longSide, shortSide] = rows ? [nq, nk, ah, aw] : [nk, nq, aw, ah];
  const short = Math.min(MAX_ZOOM_CELL, shortSide / nShort);
  if (fit >= LABEL_MIN || nLong < LONG_RATIO * nShort) return { mode: 'square', fit };
  if (short < LABEL_MIN) return { mode: 'square', fit: Math.max(fit, short), windowed: short > fit };
  return { mode: rows ? 'rows' : 'cols', fit, short, long: Math.max(longSide / nLong, MIN_LONG_CELL), nLong, nShort };
}

export class HeatmapCanvas extends Figure {
  constructor(slot) {
    super(slot, { id: 'heatmap-large', title: 'Attention weights', caption: '' });
    const wrap = this.body.append('div').attr('class', 'hmc-wrap');
    const ov = wrap.append('div').attr('class', 'hmc-overview-box');
    ov.append('div').attr('class', 'hmc-label').text('Whole matrix (click to move the detail there)');
    this.overview = ov.append('canvas').attr('class', 'hmc-overview')
      .attr('aria-label', 'Overview of the whole attention matrix; the outlined box is the part shown in the detail').attr('role', 'img');
    const dt = wrap.append('div').attr('class', 'hmc-detail-box');
    this.detail = dt.append('canvas').attr('class', 'hmc-detail').attr('tabindex', 0).attr('role', 'application')
      .attr('aria-roledescription', 'zoomable attention matrix')
      .attr('aria-describedby', `figure-${this.id}-range`);
    // The range shown, and (heard, not seen: the readout under it shows it) the keyboard's cell after
    // a key moved it: one polite live region, which speaks what changed of the two.
    this.rangeEl = this.body.append('p').attr('class', 'hmc-range').attr('id', `figure-${this.id}-range`).attr('aria-live', 'polite');
    this.rangeText = this.rangeEl.append('span');
    this.keyText = this.rangeEl.append('span').attr('class', 'visually-hidden');
    this.readout = this.body.append('p').attr('class', 'hmc-readout');
    this.base = document.createElement('canvas');   // one pixel per cell
    this.selection = { rows: [], cols: [] };
    this.selected = null;
    this.t = zoomIdentity;
    // The keyboard's cell (what Enter explains, outlined while the detail has focus): the centre of
    // the detail moved by kOff cells along an axis where the arrows cannot pan any further (that edge
    // of the matrix is in view, or the whole axis fits), so every cell can be reached from the keyboard:
    // the edge rows and columns, and each of a short axis' few cells.
    this.kOff = [0, 0];
    this.frame = 0;
    this.zoom = d3zoom().on('zoom', (ev) => {
      this.t = ev.transform;
      if (ev.sourceEvent && ev.sourceEvent.clientX !== undefined) this.showValue(this.cellAt(ev.sourceEvent)); else this.showValue(null);
      this.requestFrame();
    });
    this.detail.call(this.zoom).on('dblclick.zoom', null);
    this.detail.on('click', (ev) => {
      const c = this.cellAt(ev);
      if (c) this.emit('select', { i: c[0], j: c[1], shift: !!ev.shiftKey, toggle: !!(ev.ctrlKey || ev.metaKey), kind: 'cell' });
    }).on('mousemove', (ev) => this.showValue(this.cellAt(ev)))
      .on('mouseleave', () => this.showValue(null))
      .on('keydown', (ev) => this.onKey(ev))
      .on('focus', () => this.requestFrame()).on('blur', () => { this.keptKey?.setText(''); this.requestFrame(); });
    this.overview.on('click', (ev) => this.centreOn(ev));
    // The canvas takes its colours (background, labels, masked cells) from the theme: read again
    // and repainted when the system's colour scheme changes.
    if (typeof matchMedia === 'function') {
      matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { this.colours = null; if (this.data) this.requestFrame(); });
    }
    // The figure's width, from a ResizeObserver (observedWidth) rather than read in layout(), where
    // the DOM a redraw has just changed (the token strips) would force a layout of the whole page in
    // the middle of the keystroke's task; a new width lays the canvases out again.
    this.observedWidth(this.body.node(), () => { if (this.data) this.layout(); });
  }

  /** d: { qTokens, kTokens, nq, nk, weights, scores (this head, [nq, nk]), rowMax? (this head's largest
   * weight per row, [nq]: the module's stats.maxWeight), masked(i, j), head, heads } */
  setData(d) {
    const reset = !this.data || this.data.nq !== d.nq || this.data.nk !== d.nk;
    this.data = d;
    this.keptKey?.setText('');   // the keyboard's cell is read again at the next key, with its new value
    if (reset) this.resetZoom = true;
  }
  setValueKind(kind) { this.kind = kind; }
  setSelected(cell) { this.selected = cell; }
  /** Highlights whole query rows and key columns (the page's selection). */
  setSelection({ rows = [], cols = [] } = {}) {
    this.selection = { rows: [...rows], cols: [...cols] };
    this.requestFrame();
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const t0 = performance.now();
    this.paintBase();
    performance.measure('attnscope:heatmap-colour', { start: t0, end: performance.now() });
    this.layout();
    const what = this.kind === 'scores' ? 'raw scores' : 'weights';
    this.setTitle(d.heads > 1 ? `Attention ${what}, head ${d.head + 1} of ${d.heads}` : `Attention ${what}`);
    const g = this.geo;
    this.setCaption(`${d.nq} query tokens (rows) × ${d.nk} key tokens (columns), `
      + (g.mode === 'square' ? 'one pixel per cell in the overview; '
        : `drawn with wider ${g.mode === 'rows' ? 'columns' : 'rows'} so that the ${d.nq > d.nk ? 'key columns' : 'query rows'} stay readable; `)
      + (this.kind === 'scores' ? `raw scores from ${fmt(this.range[0])} (dark) to ${fmt(this.range[1])} (bright). `
        : 'each row is coloured from 0 (dark) to its own largest weight (bright): hover a cell for its value. ')
      + (g.mode === 'square' ? (g.windowed ? `The detail shows a window of the ${d.nq > d.nk ? 'query rows' : 'key columns'}, all the ${d.nq > d.nk ? 'key columns' : 'query rows'} across it. ` : '')
        + `Zoom the detail with the wheel or a pinch, drag to pan; from the keyboard, + and − zoom, the arrows pan and 0 ${g.windowed ? 'goes back to the start; click the overview to move there' : 'shows everything'}. `
        : `The detail shows a window of the ${g.mode === 'rows' ? 'query rows' : 'key columns'}: the wheel or a pinch zooms it, a drag or the arrows move it, `
          + '+ and − zoom, 0 goes back to the start; click the overview to move there. ')
      + 'Enter explains the outlined cell, at the centre of the detail (its value is shown under it); where the arrows cannot pan further, they move the outline on to the edge cells; Home and End go to the row’s first and last column. '
      + 'Token labels appear once they fit; click a cell to see why.');
  }

  /** Colours every cell once into the one-pixel-per-cell canvas (ImageData, no per-cell drawing call). */
  paintBase() {
    const d = this.data;
    const { nq, nk } = d;
    const vals = this.kind === 'scores' ? d.scores : d.weights;
    // The same matrix again (a cell opened, a selection changed): its picture is already there.
    const same = this.painted_ && this.painted_.buffer === vals.buffer && this.painted_.offset === vals.byteOffset
      && this.painted_.kind === this.kind && this.painted_.causal === !!d.causal && this.painted_.nq === nq && this.painted_.nk === nk;
    if (same) return;
    this.painted_ = { buffer: vals.buffer, offset: vals.byteOffset, kind: this.kind, causal: !!d.causal, nq, nk };
    // Raw scores share one scale: their range takes a pass over every cell. Weights are coloured
    // per row, from 0 to the row's largest weight (the module's stats.maxWeight when given), and
    // need no pass over the whole matrix first.
    const rowScaled = this.kind !== 'scores';
    let lo = 0, hi = 1;
    if (!rowScaled) {
      lo = Infinity; hi = -Infinity;
      for (let i = 0, k = 0; i < nq; i++, k += nk) {
        const jm = d.causal ? Math.min(nk, i + 1) : nk;
        for (let j = 0; j < jm; j++) {
          const v = vals[k + j];
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
      if (!(hi > lo)) hi = lo + 1;
      if (!Number.isFinite(lo)) lo = hi - 1;
    }
    this.range = [lo, hi];
    const rowMax = rowScaled && d.rowMax && d.rowMax.length === nq ? d.rowMax : null;
    const table = (this.kind === 'scores' ? CIVIDIS : VIRIDIS).map(packRGB);
    // Masked cells are left transparent (a new ImageData is all zeros): each frame fills the matrix
    // with the theme's masked colour under the picture, so a light/dark switch recolours them
    // without colouring the matrix again.
    this.base.width = nk;
    this.base.height = nq;
    const ctx = this.base.getContext('2d');
    const img = ctx.createImageData(nk, nq);
    const px = new Uint32Array(img.data.buffer);
    const scale = 255 / (hi - lo);
    // One look-up per cell into a table of packed pixels; a causal mask hides j > i. Coloured in
    // blocks of rows, one task each (about 100,000 cells), so that a 2,000 × 2,000 matrix never
    // blocks the page for long: the detail is redrawn as the blocks land.
    const job = {};
    this.paintJob = job;
    const block = Math.max(1, Math.floor(100000 / nk));
    const paintRows = (r0) => {
      if (this.paintJob !== job) return;   // newer data: this picture is out of date
      const r1 = Math.min(nq, r0 + block);
      for (let i = r0, k = r0 * nk; i < r1; i++) {
        const jm = d.causal ? Math.min(nk, i + 1) : nk;
        // Weights: each row from 0 to its own largest weight (a row of 2,000 weights sums to 1, so
        // one matrix-wide scale would leave all but the strongest cells dark). Scores: one scale.
        let base = lo, gain = scale;
        if (rowScaled) {
          let m = rowMax ? rowMax[i] : 0;
          if (!rowMax) for (let j = 0; j < jm; j++) if (vals[k + j] > m) m = vals[k + j];
          base = 0;
          gain = m > 0 ? 255 / m : 0;
        }
        for (let j = 0; j < jm; j++, k++) {
          const t = ((vals[k] - base) * gain + 0.5) | 0;
          px[k] = table[t > 255 ? 255 : t > 0 ? t : 0];
        }
        k += nk - jm;
      }
      ctx.putImageData(img, 0, 0, 0, r0, nk, r1 - r0);
      this.painted = r1;
      this.requestFrame();
      if (r1 < nq) setTimeout(() => paintRows(r1), 0);
      else this.paintJob = null;
    };
    this.painted = 0;
    paintRows(0);
  }

  /** Sizes both canvases to the figure's width and sets the zoom's limits. */
  layout() {
    const d = this.data;
    const avail = Math.max(240, this.observedWidth(this.body.node()) || 700);
    const narrow = avail < 620;
    const ovSide = narrow ? Math.min(OVERVIEW, avail) : OVERVIEW;
    const ar = d.nk / d.nq;
    // The overview keeps the matrix's proportions, but its short side is never thinner than
    // OV_SHORT_CELL px a cell (or the overview's side): 7 key columns beside 2,000 rows stay visible.
    const ovShort = Math.min(ovSide, Math.max(Math.round(ovSide * Math.min(ar, 1 / ar)), Math.min(d.nq, d.nk) * OV_SHORT_CELL));
    this.ov = { w: ar >= 1 ? ovSide : ovShort, h: ar >= 1 ? ovShort : ovSide };
    let dw = Math.min(820, narrow ? avail : avail - OVERVIEW - 20);
    let dh = Math.min(640, Math.max(260, Math.round(dw * 0.85)));
    // The matrix area inside the detail, below and right of the label margins. Square cells: at zoom 1
    // the whole matrix fits it (cells may be smaller than a pixel, then the image is scaled down), or
    // for a long × short matrix with too many short-axis cells to label, its short side does.
    // Long × short: the short axis fills it (the canvas shrinks to it when its cells reach
    // MAX_ZOOM_CELL), the long axis shows a window of cells of at least MIN_LONG_CELL px.
    const g = cellGeometry(d.nq, d.nk, dw - MARGIN, dh - MARGIN);
    if (g.mode === 'rows') dw = Math.min(dw, MARGIN + Math.ceil(g.short * d.nk) + 1);
    if (g.mode === 'cols') dh = Math.min(dh, MARGIN + Math.ceil(g.short * d.nq) + 1);
    this.size = { w: dw, h: dh };
    const aw = dw - MARGIN, ah = dh - MARGIN;
    this.geo = g;
    this.fit = g.fit;
    // The zoom's coordinates: the matrix at zoom 1, cells of vw × vh px. Square: the transform moves
    // and scales both axes; long × short: only the long axis (the short one stays fitted).
    const [vw, vh] = g.mode === 'square' ? [g.fit, g.fit] : g.mode === 'rows' ? [g.short, g.long] : [g.long, g.short];
    this.vcell = { w: vw, h: vh };
    const maxK = g.mode === 'square' ? MAX_ZOOM_CELL / g.fit : MAX_ZOOM_CELL / g.long;
    this.zoom.scaleExtent([1, Math.max(1, maxK)])
      .translateExtent([[0, 0], [d.nk * vw, d.nq * vh]])
      .extent([[0, 0], [aw, ah]]);
    const dpr = window.devicePixelRatio || 1;
    for (const [c, w, h] of [[this.overview, this.ov.w, this.ov.h], [this.detail, dw, dh]]) {
      const n = c.node();
      if (n.width !== Math.round(w * dpr) || n.height !== Math.round(h * dpr)) {
        n.width = Math.round(w * dpr);
        n.height = Math.round(h * dpr);
        n.style.width = `${w}px`;
        n.style.height = `${h}px`;
      }
    }
    if (this.resetZoom) {
      this.resetZoom = false;
      this.kOff = [0, 0];
      this.detail.call(this.zoom.transform, zoomIdentity);   // redraws through the zoom event
    }
    this.requestFrame();
    this.drawNow();
  }

  /**
   * The theme's colours the canvas paints with, read once and again after a light/dark switch
   * (the page's theme follows prefers-color-scheme). Read at every draw, getComputedStyle forced a
   * style recalculation of the page in the middle of each keystroke's redraw.
   */
  themeColours() {
    const cs = getComputedStyle(this.root.node());
    return {
      fg: cs.getPropertyValue('--fg').trim() || '#222',
      accent: cs.getPropertyValue('--focus').trim() || '#d97706',
      bg: cs.getPropertyValue('--panel').trim() || '#fff',
      masked: cs.getPropertyValue('--masked').trim() || '#969696',
    };
  }

  requestFrame() {
    if (this.frame || !this.data) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.drawNow(); });
  }

  /**
   * Where the detail draws the cells now: cell width cw and height ch (px), and the offsets ox, oy of
   * cell (0, 0) from the matrix area's corner. Square cells follow the zoom on both axes; a long ×
   * short matrix's short axis stays fitted.
   */
  cells() {
    const t = this.t, g = this.geo;
    if (g.mode === 'rows') return { cw: g.short, ch: g.long * t.k, ox: 0, oy: t.y };
    if (g.mode === 'cols') return { cw: g.long * t.k, ch: g.short, ox: t.x, oy: 0 };
    const cell = g.fit * t.k;
    return { cw: cell, ch: cell, ox: t.x, oy: t.y };
  }

  /** The rows and columns visible in the detail: { i0, i1, j0, j1 } (end exclusive), and the cells' geometry (cells()). */
  visibleRange() {
    const d = this.data;
    const c = this.cells();
    const { cw, ch, ox, oy } = c;
    const aw = this.size.w - MARGIN, ah = this.size.h - MARGIN;
    const j0 = Math.max(0, Math.floor(-ox / cw)), i0 = Math.max(0, Math.floor(-oy / ch));
    const j1 = Math.min(d.nk, Math.ceil((aw - ox) / cw)), i1 = Math.min(d.nq, Math.ceil((ah - oy) / ch));
    return { i0, i1, j0, j1, ...c };
  }

  /**
   * How the cells are drawn now, for tests and tools: the mode ('square', or 'rows' / 'cols' for a
   * long × short matrix), the detail's cell width and height and whether its rows and columns are
   * labelled, the overview's size and its cells' width and height (px, CSS pixels).
   */
  get geometry() {
    const d = this.data;
    if (!d || !this.size) return null;
    const { cw, ch } = this.cells();
    return {
      mode: this.geo.mode, cellWidth: cw, cellHeight: ch, rowsLabelled: ch >= LABEL_MIN, colsLabelled: cw >= LABEL_MIN,
      detail: { ...this.size, margin: MARGIN },
      overview: { w: this.ov.w, h: this.ov.h, cellWidth: this.ov.w / d.nk, cellHeight: this.ov.h / d.nq },
    };
  }

  drawNow() {
    if (this.frame) { cancelAnimationFrame(this.frame); this.frame = 0; }
    const d = this.data;
    if (!d || !this.size) return;
    const t0 = performance.now();
    const { fg, accent, bg, masked } = this.colours ??= this.themeColours();
    const dpr = window.devicePixelRatio || 1;
    const { w, h } = this.size;
    const ctx = this.detail.node().getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, w, h);
    const r = this.visibleRange();
    const { i0, i1, j0, j1, cw, ch, ox, oy } = r;
    // The visible cells: one drawImage of the source rectangle, without smoothing (cells stay sharp).
    ctx.imageSmoothingEnabled = Math.min(cw, ch) < 1;
    ctx.save();
    ctx.beginPath();
    ctx.rect(MARGIN, MARGIN, w - MARGIN, h - MARGIN);
    ctx.clip();
    const x = (j) => MARGIN + ox + j * cw, y = (i) => MARGIN + oy + i * ch;
    if (i1 > i0 && j1 > j0) {
      if (d.causal) { ctx.fillStyle = masked; ctx.fillRect(x(j0), y(i0), (j1 - j0) * cw, (i1 - i0) * ch); }
      ctx.drawImage(this.base, j0, i0, j1 - j0, i1 - i0, x(j0), y(i0), (j1 - j0) * cw, (i1 - i0) * ch);
    }
    this.drawMarks(ctx, x, y, cw, ch, accent, { i0, i1, j0, j1 });
    ctx.restore();
    // Labels, once a row (column) is tall (wide) enough; drawn as text by the canvas, never as HTML.
    // Each axis on its own: a long × short matrix's short axis is labelled at any zoom.
    ctx.fillStyle = fg;
    const rowsLabelled = ch >= LABEL_MIN, colsLabelled = cw >= LABEL_MIN;
    this.labelsShown = rowsLabelled && colsLabelled;
    // A token's label (a word not in the vocabulary marked '?'), in a font sized to its row or column.
    const label = (tok) => shortLabel(tok.text, 12) + (tok.oov ? '?' : '');
    const labelFont = (cell, align) => {
      ctx.font = `${Math.min(12, Math.floor(cell * 0.8))}px system-ui, sans-serif`;
      ctx.textAlign = align;
      ctx.textBaseline = 'middle';
    };
    if (rowsLabelled) {
      labelFont(ch, 'right');
      for (let i = i0; i < i1; i++) ctx.fillText(label(d.qTokens[i]), MARGIN - 4, y(i) + ch / 2, MARGIN - 6);
    }
    if (colsLabelled) {
      labelFont(cw, 'left');
      for (let j = j0; j < j1; j++) {
        ctx.save();
        ctx.translate(x(j) + cw / 2, MARGIN - 4);
        ctx.rotate(-Math.PI / 3);
        ctx.fillText(label(d.kTokens[j]), 0, 0, MARGIN + 10);
        ctx.restore();
      }
    }
    if (!rowsLabelled || !colsLabelled) {
      ctx.textAlign = 'left';
      ctx.textBaseline = 'top';
      ctx.font = '11px system-ui, sans-serif';
      if (!rowsLabelled && !colsLabelled) ctx.fillText('zoom in for token labels', 4, 4);
      else {
        ctx.fillText('zoom in for', 4, 4, MARGIN - 8);
        ctx.fillText(rowsLabelled ? 'key labels' : 'query labels', 4, 18, MARGIN - 8);
      }
    }
    this.drawOverview(r, accent, masked);
    const f = (a, b, n) => `${a + 1}–${b} of ${n}`;
    const t = this.t;
    const labelled = this.labelsShown ? ', labelled' : rowsLabelled ? ', query rows labelled' : colsLabelled ? ', key columns labelled' : '';
    const range = `Detail shows query rows ${f(i0, i1, d.nq)} and key columns ${f(j0, j1, d.nk)}`
      + ` (zoom ×${fmt(t.k, 3)}${labelled}).`
      + (this.painted < d.nq ? ` Colouring rows: ${this.painted} of ${d.nq}…` : '');
    (this.keptRange ||= new Kept(this.rangeText.node())).setText(range);   // unchanged text: no layout for the frame
    const dn = this.detail.node();
    if (dn.dataset.cellWidth !== String(+cw.toFixed(2)) || dn.dataset.cellHeight !== String(+ch.toFixed(2)) || dn.dataset.mode !== this.geo.mode) {
      dn.dataset.mode = this.geo.mode;
      dn.dataset.cellWidth = String(+cw.toFixed(2));
      dn.dataset.cellHeight = String(+ch.toFixed(2));
    }
    this.lastFrameMs = performance.now() - t0;
    performance.measure('attnscope:heatmap-frame', { start: t0, end: performance.now() });
  }

  /** Selection bands (rows, columns), the open cell's outline. */
  drawMarks(ctx, x, y, cw, ch, accent, { i0, i1, j0, j1 }) {
    const { rows, cols } = this.selection;
    const d = this.data;
    const { w, h } = this.size;
    ctx.fillStyle = accent;
    ctx.globalAlpha = 0.28;
    for (const i of rows) if (i >= i0 && i < i1) ctx.fillRect(MARGIN, y(i), w - MARGIN, Math.max(1, ch));
    for (const j of cols) if (j >= j0 && j < j1) ctx.fillRect(x(j), MARGIN, Math.max(1, cw), h - MARGIN);
    ctx.globalAlpha = 1;
    const s = this.selected;
    if (s && s[0] < d.nq && s[1] < d.nk) {
      ctx.strokeStyle = accent;
      ctx.lineWidth = 2;
      ctx.strokeRect(x(s[1]) - 1, y(s[0]) - 1, Math.max(3, cw) + 2, Math.max(3, ch) + 2);
    }
    // The keyboard's cell, while the detail has focus: a dashed outline in the text colour, a
    // lighter one inside it, so that it shows on dark and bright cells alike.
    const k = this.detail.node().ownerDocument.activeElement === this.detail.node() ? this.keyCell() : null;
    if (k) {
      const kx = x(k[1]) - 2, ky = y(k[0]) - 2, kw = Math.max(3, cw) + 4, kh = Math.max(3, ch) + 4;
      ctx.lineWidth = 2;
      ctx.setLineDash([4, 3]);
      ctx.strokeStyle = this.colours.fg;
      ctx.strokeRect(kx, ky, kw, kh);
      ctx.setLineDash([]);
      ctx.lineWidth = 1;
      ctx.strokeStyle = this.colours.bg;
      ctx.strokeRect(kx + 1.5, ky + 1.5, kw - 3, kh - 3);
    }
  }

  drawOverview(r, accent, masked) {
    const d = this.data;
    const dpr = window.devicePixelRatio || 1;
    const ctx = this.overview.node().getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const { w, h } = this.ov;
    ctx.imageSmoothingEnabled = true;
    ctx.clearRect(0, 0, w, h);
    if (d.causal) { ctx.fillStyle = masked; ctx.fillRect(0, 0, w, h); }
    ctx.drawImage(this.base, 0, 0, w, h);
    const sx = w / d.nk, sy = h / d.nq;
    ctx.fillStyle = accent;
    ctx.globalAlpha = 0.35;
    for (const i of this.selection.rows) ctx.fillRect(0, i * sy, w, Math.max(1, sy));
    for (const j of this.selection.cols) ctx.fillRect(j * sx, 0, Math.max(1, sx), h);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = accent;
    ctx.lineWidth = 2;
    ctx.strokeRect(r.j0 * sx, r.i0 * sy, Math.max(2, (r.j1 - r.j0) * sx), Math.max(2, (r.i1 - r.i0) * sy));
  }

  /** Moves the detail so that it is centred on the overview point clicked. */
  centreOn(ev) {
    const d = this.data;
    if (!d) return;
    const box = this.overview.node().getBoundingClientRect();
    const j = ((ev.clientX - box.left) / box.width) * d.nk, i = ((ev.clientY - box.top) / box.height) * d.nq;
    this.detail.call(this.zoom.translateTo, j * this.vcell.w, i * this.vcell.h);
  }

  cellAt(ev) {
    const d = this.data;
    if (!d || !this.size) return null;
    const box = this.detail.node().getBoundingClientRect();
    const { cw, ch, ox, oy } = this.cells();
    const j = Math.floor((ev.clientX - box.left - MARGIN - ox) / cw);
    const i = Math.floor((ev.clientY - box.top - MARGIN - oy) / ch);
    if (ev.clientX - box.left < MARGIN || ev.clientY - box.top < MARGIN) return null;
    if (i < 0 || j < 0 || i >= d.nq || j >= d.nk) return null;
    return [i, j];
  }

  showValue(c) {
    const d = this.data;
    if (!c || !d) { this.readout.text(''); return; }
    const [i, j] = c;
    const q = d.qTokens[i], k = d.kTokens[j];
    const v = d.masked(i, j) ? 'masked (weight 0)' : `weight ${fmt(d.weights[i * d.nk + j], 4)} · score ${fmt(d.scores[i * d.nk + j], 4)}`;
    this.readout.text(`row ${i + 1} “${q.text}” → column ${j + 1} “${k.text}”: ${v}`);
  }

  onKey(ev) {
    if (withCommandModifier(ev)) return;
    const z = this.zoom, sel = this.detail;
    const zoomed = (f) => () => { this.kOff = [0, 0]; f(); };
    const act = {
      '+': zoomed(() => sel.call(z.scaleBy, 1.6)), '=': zoomed(() => sel.call(z.scaleBy, 1.6)),
      '-': zoomed(() => sel.call(z.scaleBy, 1 / 1.6)), '−': zoomed(() => sel.call(z.scaleBy, 1 / 1.6)), _: zoomed(() => sel.call(z.scaleBy, 1 / 1.6)),
      0: zoomed(() => sel.call(z.transform, zoomIdentity)),
      ArrowLeft: () => this.arrow(1, -1), ArrowRight: () => this.arrow(1, 1),
      ArrowUp: () => this.arrow(0, -1), ArrowDown: () => this.arrow(0, 1),
      Home: () => this.toEdge(-1), End: () => this.toEdge(1),
    }[ev.key];
    if (act) {
      consumeKey(ev);
      act();
      const k = this.keyCell();
      this.showValue(k);   // the cell Enter would explain
      (this.keptKey ||= new Kept(this.keyText.node())).setText(k ? ` Outlined: ${this.readout.text()}.` : '');
      this.requestFrame();
    } else if (ev.key === 'Enter' && !ev.altKey) {
      // Enter explains the keyboard's cell (pan and zoom to it first), as a click does.
      const c = this.keyCell();
      if (!c) return;
      consumeKey(ev);
      this.emit('select', { i: c[0], j: c[1], shift: ev.shiftKey, toggle: false, kind: 'cell' });
    }
  }

  /**
   * An arrow key along an axis (0: rows, 1: columns; s = -1 towards the start, +1 towards the end):
   * the keyboard's cell first comes back towards the centre if it had moved off it the other way;
   * otherwise the detail pans, and where it cannot (that edge is in view) the cell moves one on.
   */
  arrow(axis, s) {
    const d = this.data;
    if (!d || !this.size) return;
    if (this.kOff[axis] * s < 0) { this.kOff[axis] += s; return; }
    const step = 60 / this.t.k;
    const before = axis ? this.t.x : this.t.y;
    this.detail.call(this.zoom.translateBy, axis ? -s * step : 0, axis ? 0 : -s * step);
    if (Math.abs((axis ? this.t.x : this.t.y) - before) >= 0.5) return;
    const c = this.centreCell(), k = this.keyCell();
    const next = k[axis] + s;
    if (next >= 0 && next < (axis ? d.nk : d.nq)) this.kOff[axis] = next - c[axis];
  }

  /** Home / End: the keyboard's cell to the first / last column of its row (the detail pans there). */
  toEdge(s) {
    const d = this.data;
    if (!d || !this.size) return;
    const row = this.keyCell()[0];
    this.detail.call(this.zoom.translateBy, -s * d.nk * this.vcell.w, 0);   // as far as the edge allows
    const c = this.centreCell();
    this.kOff = [row - c[0], (s < 0 ? 0 : d.nk - 1) - c[1]];
  }

  /** The keyboard's cell: the centre cell moved by kOff, kept inside the matrix and the detail's visible cells. */
  keyCell() {
    const c = this.centreCell();
    if (!c) return null;
    const r = this.visibleRange();
    const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi - 1, v));
    return [clamp(c[0] + this.kOff[0], r.i0, Math.max(r.i0 + 1, r.i1)), clamp(c[1] + this.kOff[1], r.j0, Math.max(r.j0 + 1, r.j1))];
  }

  /** The cell at the centre of the detail's cells, or the nearest one when the matrix does not reach it (for the keyboard). */
  centreCell() {
    const d = this.data;
    if (!d || !this.size) return null;
    const box = this.detail.node().getBoundingClientRect();
    const { cw, ch, ox, oy } = this.cells();   // the same geometry as cellAt
    const near = (v, n) => Math.max(0, Math.min(n - 1, Math.floor(v)));
    return [near(((box.height - MARGIN) / 2 - oy) / ch, d.nq), near(((box.width - MARGIN) / 2 - ox) / cw, d.nk)];
  }

  /** For exports: an SVG holding the overview and the detail as embedded PNG images, and a title. */
  exportNode() {
    if (!this.data) return null;
    this.drawNow();
    const doc = this.root.node().ownerDocument;
    const svg = doc.createElementNS(SVG_NS, 'svg');
    const gap = 20, top = 24;
    const W = this.ov.w + gap + this.size.w, H = top + Math.max(this.ov.h, this.size.h);
    svg.setAttribute('width', W);
    svg.setAttribute('height', H);
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    const title = doc.createElementNS(SVG_NS, 'text');
    title.setAttribute('x', 0);
    title.setAttribute('y', 14);
    title.setAttribute('font-size', 13);
    title.setAttribute('fill', getComputedStyle(this.root.node()).color);
    title.textContent = `${this.titleEl.text()} — ${this.rangeText.text()}`;
    svg.appendChild(title);
    for (const [c, x, w, h] of [[this.overview, 0, this.ov.w, this.ov.h], [this.detail, this.ov.w + gap, this.size.w, this.size.h]]) {
      const img = doc.createElementNS(SVG_NS, 'image');
      img.setAttribute('x', x);
      img.setAttribute('y', top);
      img.setAttribute('width', w);
      img.setAttribute('height', h);
      img.setAttribute('href', c.node().toDataURL('image/png'));
      svg.appendChild(img);
    }
    // Attached out of sight while it is serialised (the export reads computed styles).
    svg.setAttribute('class', 'hmc-export');
    this.body.node().appendChild(svg);
    queueMicrotask(() => svg.remove());
    return svg;
  }

  async toBlob(format = 'png') {
    this.runJob();
    if (format === 'png' && this.data) {
      // The detail and overview at their pixel resolution: through the SVG (as the other figures).
      return pngBlob(this.exportNode(), 1, this.exportBackground());
    }
    return super.toBlob(format);
  }
}
