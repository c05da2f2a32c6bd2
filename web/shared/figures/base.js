// What every figure shares: the frame (title, caption, export buttons), events, token labels, its
// size, its own redraw scheduling, its export, and a tiny raster of a matrix for small multiples.
// A figure works the same in a page and inside a Shadow DOM (the <attn-scope> element): it never looks
// anything up in the document, and its styles (figures.css) are plain selectors under its root.
import { select } from 'd3-selection';
import { svgBlob, pngBlob } from './export.js';
import { toRGB } from '../compute/images.js';
import { Kept } from './keyed.js';

// The matrix pictures are built by web/shared/compute/images.js (DOM-free: the demo's worker builds some).
export { packRGB, matrixImage, matrixIndexedImage, toRGB } from '../compute/images.js';

export const SVG_NS = 'http://www.w3.org/2000/svg';

// ---- keys --------------------------------------------------------------------------------------
/**
 * A key a figure acted on is its own: no default action (scrolling) and no listener above it (a
 * reveal.js deck turning the slide on an arrow, a page's shortcuts) sees it, so focus stays where it is.
 */
export function consumeKey(ev) {
  ev.preventDefault();
  ev.stopPropagation();
}

/** A key pressed with Alt, Ctrl or Meta belongs to the browser or the page (Alt+← is "back"), not to a figure. */
export function withCommandModifier(ev) {
  return ev.altKey || ev.ctrlKey || ev.metaKey;
}

// ---- boxes that scroll sideways -------------------------------------------------------------------
/**
 * A box whose content is wider than it (a figure's body or a table on a phone) scrolls sideways: while
 * it does and holds nothing focusable, it is a tab stop of its own (a region named `label()`), so that
 * the keyboard can scroll it (the arrow keys scroll a focused box); once it fits again it is none.
 */
export function scrollableByKeyboard(el, label) {
  if (typeof ResizeObserver !== 'function' || typeof MutationObserver !== 'function') return;
  const check = () => {
    const want = el.scrollWidth > el.clientWidth + 1 && !el.querySelector('a[href], button, input, select, textarea, [tabindex="0"]');
    if (want === (el.getAttribute('tabindex') === '0')) return;
    if (want) {
      el.setAttribute('tabindex', '0');
      el.setAttribute('role', 'region');
      el.setAttribute('aria-label', `${label()} (scrolls sideways)`);
    } else for (const a of ['tabindex', 'role', 'aria-label']) el.removeAttribute(a);
  };
  const ro = new ResizeObserver(check);
  const watch = () => { ro.observe(el); for (const c of el.children) ro.observe(c); };
  watch();
  new MutationObserver(() => { watch(); check(); }).observe(el, { childList: true });
}

// ---- redraw scheduling, shared by every figure of the page --------------------------------------
// A figure out of view is not redrawn on every change: it keeps the job and runs it when it scrolls
// into view (one IntersectionObserver for all figures) or when the page is idle, so an export or a
// scroll never shows a stale plot.
const byTarget = new WeakMap();      // observed element → figure
let observer = null;
function viewObserver() {
  if (!observer && typeof IntersectionObserver === 'function') {
    observer = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const f = byTarget.get(e.target);
        if (!f) continue;
        f.visible = e.isIntersecting;
        if (f.visible) f.runJob();
      }
    }, { rootMargin: '200px 0px' });
  }
  return observer;
}
// One figure per idle period: each redraw is its own task, and the browser lays out and paints what it
// changed before the next one starts. Run together, the figures below the fold of a 2,000-token
// document (heads, comparison, teaching panels: ~2,500 new SVG elements) were one task of JS and then
// one style-and-layout pass of 100–300 ms, the page's longest (issue 11).
const idleQueue = new Set();
let idleHandle = 0;
function whenIdle(figure) {
  idleQueue.add(figure);
  if (!idleHandle) idleHandle = idleSoon(idleFlush);
}
function idleSoon(fn) {
  return typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 300 }) : setTimeout(fn, 50);
}
function idleFlush() {
  idleHandle = 0;
  const [first] = idleQueue;
  if (!first) return;
  idleQueue.delete(first);
  first.runJob();
  if (idleQueue.size) idleHandle = idleSoon(idleFlush);
}

// Figures in view drawn after the next frame (Figure.scheduleAfterFrame), one task each: the figures
// that change first (the heatmap) are painted without waiting for the ones below them.
const frameQueue = new Set();
let framePending = false;
const frameChannel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
function afterFrame(figure) {
  frameQueue.add(figure);
  if (framePending) return;
  framePending = true;
  const raf = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (fn) => setTimeout(fn, 16);
  raf(() => nextFrameJob());
}
function nextFrameJob() {
  if (frameChannel) { frameChannel.port1.onmessage = frameFlush; frameChannel.port2.postMessage(0); } else setTimeout(frameFlush, 0);
}
function frameFlush() {
  const [first] = frameQueue;
  if (!first) { framePending = false; return; }
  frameQueue.delete(first);
  first.runJob();
  if (frameQueue.size) nextFrameJob(); else framePending = false;
}

/** Appends to each element of `sel` a child written 'tag.class.class' ('g.axis.x': <g class="axis x">); returns the children. */
function appendPart(sel, part) {
  const [tag, ...classes] = part.split('.');
  return sel.append(tag).attr('class', classes.length ? classes.join(' ') : null);
}

/**
 * Appends to each element of `sel` its `parts` ('tag.class.class' each, see appendPart) in the order
 * given, a later one drawn over an earlier one; returns `sel`. For a data join's entering groups:
 * join((enter) => appendParts(enter.append('g').attr('class', 'row'), ['text.label', 'g.bars'])).
 */
export function appendParts(sel, parts) {
  for (const part of parts) appendPart(sel, part);
  return sel;
}

/**
 * The fixed attributes of a matrix panel's entering groups, whose parts appendParts made: a title (the
 * first text) and its .panel-sub line under it, and the .panel-img picture, one image pixel a cell,
 * stretched to the panel's cells. Returns `g`. (The panels of the head summaries and of the weights' matrices.)
 */
export function matrixPanelParts(g) {
  g.select('text').attr('y', 12);
  g.select('.panel-sub').attr('y', 26);
  g.select('.panel-img').attr('preserveAspectRatio', 'none').attr('image-rendering', 'pixelated');
  return g;
}

/**
 * A figure: builds its fixed DOM once in the constructor, takes state through setters (its data through
 * setData), binds data in draw(), and reports interactions as DOM-style events
 * (figure.addEventListener('select', …)).
 */
export class Figure extends EventTarget {
  /**
   * @param {HTMLElement} slot   where the figure lives (observed for visibility)
   * @param {{id: string, title: string, caption?: string, exportable?: boolean, dataFormats?: string[]}} opts
   *   dataFormats: also offer the figure's numbers as files ('csv', 'json'): the figure then has
   *   dataCSV() and dataJSON() returning text.
   */
  constructor(slot, { id, title, caption = '', exportable = true, dataFormats = [] }) {
    super();
    this.id = id;
    this.measureName = id;   // the performance measure of a redraw: "attnscope:<measureName>"
    this.scale = 1;          // plots are drawn at scale × their natural size (projectors: larger)
    this.slot = slot;
    this.job = null;
    this.visible = false;
    this.data = null;        // what setData gave it last
    this.root = select(slot).append('figure').attr('class', `fig fig-${id}`).attr('id', `figure-${id}`);
    const head = this.root.append('div').attr('class', 'fig-head');
    this.titleEl = head.append('h3').attr('class', 'fig-title').attr('id', `figure-${id}-title`).text(title);
    this.root.attr('aria-labelledby', `figure-${id}-title`);
    this.tools = head.append('div').attr('class', 'fig-tools').attr('role', 'group')
      .attr('aria-label', `Download ${title}`);
    if (exportable) {
      for (const format of ['png', 'svg']) {
        this.tools.append('button').attr('type', 'button').attr('class', `export export-${format}`)
          .attr('data-format', format)
          .attr('aria-label', `Download “${title}” as ${format.toUpperCase()}`)
          .text(format.toUpperCase())
          .on('click', () => this.emit('export', { format, figure: this }));
      }
      for (const format of dataFormats) {
        this.tools.append('button').attr('type', 'button').attr('class', `export export-${format}`)
          .attr('data-format', format)
          .attr('aria-label', `Download the numbers of “${title}” as ${format.toUpperCase()}`)
          .text(format.toUpperCase())
          .on('click', () => this.emit('export', { format, figure: this }));
      }
    }
    this.body = this.root.append('div').attr('class', 'fig-body');
    scrollableByKeyboard(this.body.node(), () => this.titleEl.text());
    // part="caption": a page holding the figure in <attn-scope> (a shadow root) can style it, e.g. a slide
    // that gives its own short caption hides the figure's long one (attn-scope::part(caption)).
    this.captionEl = this.root.append('figcaption').attr('class', 'fig-caption').attr('part', 'caption');
    if (caption) this.captionEl.text(caption);
    const io = viewObserver();
    if (io) { byTarget.set(slot, this); io.observe(slot); } else this.visible = true;
  }

  /**
   * A plot wider than its box scrolls sideways inside it (.fig-body) and says so: a hint above the
   * plot, shown only while the plot overflows (watched with a ResizeObserver on the box and the plot).
   */
  /**
   * The title's heading level (1–6; a figure is made with an h3, the level of the demo's figures).
   * The title element is replaced by one of that level, keeping its attributes and content, so a
   * figure can sit under whatever heading its host page puts above it without skipping a level.
   */
  setHeadingLevel(level) {
    if (!Number.isInteger(level) || level < 1 || level > 6) {
      throw new RangeError(`setHeadingLevel(level): level must be a whole number from 1 to 6, got ${String(level)}`);
    }
    const old = this.titleEl.node();
    const tag = `h${level}`;
    if (old.localName === tag) return;
    const h = old.ownerDocument.createElement(tag);
    for (const a of old.attributes) h.setAttribute(a.name, a.value);
    while (old.firstChild) h.appendChild(old.firstChild);
    const hadFocus = old.getRootNode().activeElement === old;
    old.replaceWith(h);
    this.titleEl = select(h);
    this.keptTitle = null;
    if (hadFocus) h.focus({ preventScroll: true });
  }

  /**
   * The data the next draw() draws; each figure says the shape it takes ("setData(d), d: …"). A figure
   * that works something out from it as it comes overrides this.
   */
  setData(d) { this.data = d; }

  /** The title and the caption, written only when they change (a text written again is one the next frame lays out again). */
  setTitle(text) { (this.keptTitle ||= new Kept(this.titleEl.node())).setText(text); }
  setCaption(text) { (this.keptCaption ||= new Kept(this.captionEl.node())).setText(text); }

  /**
   * node's clientWidth, kept by a ResizeObserver (which also calls onResize, given with the first call
   * for that node, when the size changes), so that a redraw does not force a layout to read it. Read
   * directly only before the observer has reported, or while it last saw 0 (the node was hidden).
   */
  observedWidth(node, onResize) {
    this.widths ||= new Map();
    let w = this.widths.get(node);
    if (!w) {
      w = {};
      this.widths.set(node, w);
      if (typeof ResizeObserver === 'function') {
        w.observer = new ResizeObserver(() => { w.value = node.clientWidth; if (onResize) onResize(); });
        w.observer.observe(node);
      }
    }
    return w.value || node.clientWidth;
  }

  sayWhenScrolling(text = 'Wider than the screen: scroll the plot sideways to see all of it.') {
    if (this.scrollHint || typeof ResizeObserver !== 'function') return;
    this.scrollHint = this.root.insert('p', '.fig-body').attr('class', 'scroll-hint').property('hidden', true).text(text);
    const body = this.body.node();
    const check = () => {
      const over = body.scrollWidth > body.clientWidth + 1;
      if (this.scrollHint.property('hidden') === over) this.scrollHint.property('hidden', !over);
    };
    const ro = new ResizeObserver(check);
    ro.observe(body);
    const watchPlot = () => { for (const el of body.children) ro.observe(el); };
    watchPlot();
    new MutationObserver(() => { watchPlot(); check(); }).observe(body, { childList: true });
  }

  /**
   * Enables or disables the figure's download buttons. Disabled (nothing drawn, e.g. no sentence
   * yet), `why` becomes their tooltip, so a reader learns what to do instead of getting an empty file.
   */
  setExportEnabled(on, why = '') {
    this.tools.selectAll('button.export').property('disabled', !on).attr('title', on ? null : why);
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // ---- scheduling ----
  /** Leaves `job` (set data, draw) to run now (`now`, or when in view) or once in view / idle. */
  schedule(job, now = false) {
    this.job = job;
    if (now || this.visible) this.runJob();
    else whenIdle(this);
  }

  /**
   * Like schedule, but a figure in view is drawn in a task of its own just after the next frame (a
   * figure below the one the reader is looking at, e.g. the heads under the heatmap), not in the task
   * that draws the heatmap; one out of view waits for view or idle time as with schedule.
   */
  scheduleAfterFrame(job, now = false) {
    this.job = job;
    if (now) this.runJob();
    else if (this.visible) afterFrame(this);
    else whenIdle(this);
  }

  /** Runs the pending job, if any, and records its duration as "attnscope:<measureName>". */
  runJob() {
    const job = this.job;
    if (!job) return;
    this.job = null;
    const t0 = performance.now();
    job();
    performance.measure(`attnscope:${this.measureName}`, { start: t0, end: performance.now() });
  }

  /** Drops a pending job (nothing to draw any more). */
  cancel() {
    this.job = null;
    idleQueue.delete(this);
    frameQueue.delete(this);
  }

  /** Stops watching the figure's slot and drops its pending job (the figure is being thrown away). */
  dispose() {
    this.cancel();
    if (observer) observer.unobserve(this.slot);
    byTarget.delete(this.slot);
    if (this.widths) for (const w of this.widths.values()) if (w.observer) w.observer.disconnect();
  }

  // ---- size ----
  /**
   * The figure's drawing surface: an <svg class="cls"> in the body with its background rect (so
   * exports keep the theme's background), then its `layers` (addLayers). Sets this.svg and this.bg
   * and returns the svg.
   */
  addPlot(cls, layers = {}) {
    this.svg = this.body.append('svg').attr('class', cls).attr('xmlns', SVG_NS);
    this.bg = this.svg.append('rect').attr('class', 'plot-bg');
    this.addLayers(layers);
    return this.svg;
  }

  /**
   * The plot's fixed parts, appended to `parent` (the svg by default) in the order given, so a later
   * one is drawn over an earlier one; each is written 'tag.class.class' and kept on the figure under
   * its key: addLayers({ gx: 'g.axis.x', marker: 'line.step-marker' }) sets this.gx to a
   * <g class="axis x"> and this.marker to a <line class="step-marker">.
   */
  addLayers(layers, parent = this.svg) {
    for (const [key, part] of Object.entries(layers)) this[key] = appendPart(parent, part);
  }

  /** Sets the plot's coordinate system to W × H and its size on screen to scale × that. */
  setSize(W, H) {
    const k = this.scale;
    this.svg.attr('width', Math.round(W * k * 100) / 100).attr('height', Math.round(H * k * 100) / 100)
      .attr('viewBox', `0 0 ${W} ${H}`);
    this.bg.attr('width', W).attr('height', H);
  }

  // ---- export ----
  /** The SVG element exported as PNG/SVG (figures with several return the main one). */
  exportNode() {
    return this.root.select('svg').node();
  }

  /** The colour behind an exported picture: the page's, or the element's inside a Shadow DOM. */
  exportBackground() {
    const node = this.root.node();
    const top = node.getRootNode();
    const from = typeof ShadowRoot === 'function' && top instanceof ShadowRoot ? node.closest('.attn') || node : node.ownerDocument.body;
    return getComputedStyle(from).backgroundColor;
  }

  /** The figure as a file: a Blob of type image/svg+xml or image/png (PNG at 2× its size). */
  async toBlob(format = 'png') {
    this.runJob();
    const node = this.exportNode();
    if (!node) throw new Error(`the figure “${this.id}” has nothing drawn to export yet`);
    if (format === 'svg') return svgBlob(node, this.exportBackground());
    if (format === 'png') return pngBlob(node, 2, this.exportBackground());
    if (format === 'csv' && this.dataCSV) return new Blob([this.dataCSV()], { type: 'text/csv' });
    if (format === 'json' && this.dataJSON) return new Blob([this.dataJSON()], { type: 'application/json' });
    throw new TypeError(`format: expected 'png' or 'svg'${this.dataCSV ? ", 'csv' or 'json'" : ''}, got '${format}'`);
  }

  /** A file-name-safe stem for downloads. */
  fileStem() {
    return `attnscope-${this.id}`;
  }
}

/** Mean over the nq query rows of head h of the per-row entropies (stats.entropy is [heads, nq]). */
export function meanEntropy(stats, h, nq) {
  let e = 0;
  for (let i = 0; i < nq; i++) e += stats.entropy[h * nq + i];
  return e / nq;
}

/** Shortens a token for a label; the full text stays available in tooltips. */
export function shortLabel(text, max = 14) {
  const chars = Array.from(text);   // by code point, so an emoji is never cut in half
  return chars.length > max ? chars.slice(0, max - 1).join('') + '…' : text;
}

/**
 * Writes a token into an SVG <text> (or HTML) selection as text only: the word, plus a "?" mark
 * when it is out of the vocabulary.
 */
export function setTokenText(sel, info, max = 14) {
  sel.each(function (d) {
    const t = typeof info === 'function' ? info(d) : info;
    const node = this;
    node.textContent = '';
    const isSvg = node.namespaceURI === SVG_NS;
    const word = node.ownerDocument.createElementNS(isSvg ? SVG_NS : 'http://www.w3.org/1999/xhtml', isSvg ? 'tspan' : 'span');
    word.textContent = shortLabel(t.text, max);
    node.appendChild(word);
    if (t.oov) {
      const mark = node.ownerDocument.createElementNS(isSvg ? SVG_NS : 'http://www.w3.org/1999/xhtml', isSvg ? 'tspan' : 'span');
      mark.setAttribute('class', 'oov-mark');
      mark.textContent = '?';
      node.appendChild(mark);
    }
    node.classList.toggle('oov', !!t.oov);
  });
}

/** Estimated width in px of a label at ~11px sans-serif (no layout pass needed). */
export function labelWidth(tokens, max = 14, px = 6.6) {
  let w = 0;
  for (const t of tokens) w = Math.max(w, Math.min(Array.from(t.text).length, max) + (t.oov ? 1 : 0));
  return Math.ceil(w * px) + 8;
}

/** A colour map sampled into a 256-entry lookup table of [r, g, b]: fast per-cell colouring. */
export function colourTable(interpolator) {
  const table = new Array(256);
  for (let i = 0; i < 256; i++) table[i] = toRGB(interpolator(i / 255));
  return table;
}

export function lookup(table, x) {
  const i = Math.max(0, Math.min(255, Math.round(x * 255)));
  return table[i];
}

/** Relative luminance of [r,g,b] in 0..1, to pick dark or light text over a cell. */
export function luminance(rgb) {
  const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]);
}

/** Formats a number for display: 3 significant digits, no "-0", ∞ for infinities. */
/**
 * Two numbers a sentence compares, written with as many significant digits as it takes (from
 * `digits`, at most 7) for them to read differently when they differ: "20.84 vs 20.79", not "20.8 vs 20.8".
 */
export function fmtApart(a, b, digits = 3) {
  let d = digits;
  while (d < 7 && a !== b && fmt(a, d) === fmt(b, d)) d++;
  return [fmt(a, d), fmt(b, d)];
}

export function fmt(x, digits = 3) {
  if (x === Infinity) return '∞';
  if (x === -Infinity) return '−∞';
  if (Number.isNaN(x)) return 'NaN';
  if (x === 0 || Object.is(x, -0)) return '0';
  const a = Math.abs(x);
  let s;
  if (a >= 1e5 || a < 1e-3) s = x.toExponential(digits - 1);
  else s = Number(x.toPrecision(digits)).toString();
  return s.replace('-', '−');
}
