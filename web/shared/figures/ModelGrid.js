// bertviz's "model view", drawn as one image: every (layer, head) of an imported attention stack as a
// small matrix, layers down, heads across. All thumbnails are painted into one canvas through
// ImageData (one pass over the numbers; each thumbnail pixel is the largest weight of the block of
// cells it covers, so a sharp weight never disappears when 512 tokens become 54 pixels), and the canvas
// goes into the SVG as a single <image>: 144 heads of 512 tokens cost one image, not 37 million cells.
// The thumbnails' levels come from web/shared/compute/imported.js (the model page computes them in its worker).
// A stack of more than GRID_MAX layers or heads is shown GRID_MAX × GRID_MAX heads at a time: the
// block holding the current head (its labels count from the block's first layer and head).
// Click a thumbnail, or move with the arrow keys, to pick a head ('pick' event { layer, head }).
import { interpolateViridis } from 'd3-scale-chromatic';
import { Figure, colourTable, consumeKey, withCommandModifier } from './base.js';
import { AriaGrid } from './aria-grid.js';
import { GRID_GAP, gridPage, gridThumbnails } from '../compute/imported.js';

const viridis = colourTable(interpolateViridis);
const GAP = GRID_GAP;   // px between thumbnails
const LEFT = 34, TOP = 20;

export class ModelGrid extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'grid',
      title: 'Layers × heads',
      caption: 'One small attention matrix per layer (rows) and head (columns): rows of a matrix are the output tokens, columns the input tokens, each coloured from 0 to its own largest weight. With more tokens than pixels, a pixel shows the largest weight it covers. Click a head, or use the arrow keys, to open it below.',
    });
    // The plot is a grid (aria-grid.js) of layers (rows) by heads (columns), one tab stop.
    this.addPlot('model-grid').attr('tabindex', 0).attr('aria-roledescription', 'grid of attention heads');
    this.image = this.svg.append('image').attr('class', 'grid-img').attr('preserveAspectRatio', 'none')
      .attr('image-rendering', 'optimizeSpeed');
    this.gRows = this.svg.append('g').attr('class', 'grid-labels');
    this.gCols = this.svg.append('g').attr('class', 'grid-labels');
    this.currentRect = this.svg.append('rect').attr('class', 'grid-current').attr('visibility', 'hidden');
    this.ariaGrid = new AriaGrid(this.svg.node());
    this.live = this.body.append('p').attr('class', 'visually-hidden').attr('aria-live', 'polite');
    this.canvas = slot.ownerDocument.createElement('canvas');
    this.current = { layer: 0, head: 0 };
    this.svg.on('click', (ev) => {
      const at = this.at(ev);
      if (at) this.emit('pick', at);
    });
    this.svg.on('keydown', (ev) => {
      const d = this.data;
      if (!d) return;
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      const m = moves[ev.key];
      if (!m || withCommandModifier(ev)) return;
      consumeKey(ev);
      const layer = Math.max(0, Math.min(d.layers - 1, this.current.layer + m[0]));
      const head = Math.max(0, Math.min(d.heads - 1, this.current.head + m[1]));
      this.emit('pick', { layer, head });
    });
  }

  /**
   * d: { layers, heads, nq, nk, attentions?: Float32Array [layers, heads, nq, nk], thumbs?: the
   * thumbnails of the part shown (web/shared/compute/imported.js gridThumbnails, computed by the page's
   * worker) }. Without thumbs they are computed here from attentions, for the part holding the current head.
   */
  setData(d) { this.data = d; this.geom = null; }
  setCurrent(layer, head) { this.current = { layer, head }; }

  /** The thumbnails to draw: the data's, or computed here (GRID_MAX × GRID_MAX heads at most). */
  thumbs() {
    const d = this.data;
    if (d.thumbs) return d.thumbs;
    return gridThumbnails(d.attentions, d, gridPage(d, this.current.layer, this.current.head));
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const { nq, nk } = d;
    const t = this.thumbs();
    const { tw, th, side, levels, l0, h0, layers, heads } = t;
    const cw = side + GAP, ch = side + GAP;
    const W = heads * cw - GAP, H = layers * ch - GAP;
    this.geom = { cw, ch, tw, th, l0, h0, layers, heads };
    this.setSize(LEFT + W + 4, TOP + H + 4);
    const canvas = this.canvas;
    canvas.width = W;
    canvas.height = H;
    const ctx = canvas.getContext('2d');
    const img = ctx.createImageData(W, H);
    const px = img.data;
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        const src = (l * heads + h) * th * tw;
        const ox = h * cw, oy = l * ch;
        for (let y = 0; y < th; y++) {
          let o = ((oy + y) * W + ox) * 4;
          for (let x = 0; x < tw; x++, o += 4) {
            const c = viridis[levels[src + y * tw + x]];
            px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = 255;
          }
        }
      }
    }
    ctx.putImageData(img, 0, 0);
    this.image.attr('x', LEFT).attr('y', TOP).attr('width', W).attr('height', H).attr('href', canvas.toDataURL('image/png'));
    const every = Math.max(1, Math.ceil(14 / cw));   // label every k-th head when they are narrow
    this.gCols.selectAll('text').data(Array.from({ length: heads }, (_, h) => h).filter((h) => h % every === 0 || h === heads - 1))
      .join('text').attr('class', 'axis-title').attr('text-anchor', 'middle')
      .attr('x', (h) => LEFT + h * cw + tw / 2).attr('y', TOP - 6).text((h) => `H${h0 + h + 1}`);
    const everyRow = Math.max(1, Math.ceil(12 / ch));
    this.gRows.selectAll('text').data(Array.from({ length: layers }, (_, l) => l).filter((l) => l % everyRow === 0 || l === layers - 1))
      .join('text').attr('class', 'axis-title').attr('text-anchor', 'end').attr('dominant-baseline', 'central')
      .attr('x', LEFT - 5).attr('y', (l) => TOP + l * ch + th / 2).text((l) => `L${l0 + l + 1}`);
    const part = layers < d.layers || heads < d.heads
      ? ` Shown: layers ${l0 + 1} to ${l0 + layers}, heads ${h0 + 1} to ${h0 + heads}.` : '';
    this.svg.attr('aria-label', `${d.layers} layers by ${d.heads} heads of ${nq} by ${nk} attention matrices.${part} Arrow keys pick a head.`);
    this.drawCurrent();
  }

  drawCurrent() {
    const g = this.geom;
    if (!g) return;
    const layer = this.current.layer - g.l0, head = this.current.head - g.h0;
    const inside = layer >= 0 && head >= 0 && layer < g.layers && head < g.heads;
    this.currentRect.attr('visibility', inside ? 'visible' : 'hidden')
      .attr('x', LEFT + head * g.cw - 2).attr('y', TOP + layer * g.ch - 2).attr('width', g.tw + 4).attr('height', g.th + 4);
    this.live.text(`Layer ${this.current.layer + 1}, head ${this.current.head + 1}`);
    // The grid for assistive technology: the block of heads shown, placed in the whole stack.
    const { l0, h0 } = g;
    this.ariaGrid.update({
      id: `figure-${this.id}-cell`, rows: g.layers, cols: g.heads, active: [layer, head],
      rowBase: l0, colBase: h0, rowCount: this.data.layers, colCount: this.data.heads,
      colHeader: (h) => ({ label: `head ${h0 + h + 1}`, x: LEFT + h * g.cw, y: 0, w: g.tw, h: TOP }),
      rowHeader: (l) => ({ label: `layer ${l0 + l + 1}`, x: 0, y: TOP + l * g.ch, w: LEFT, h: g.th }),
      cell: (l, h) => ({ label: `layer ${l0 + l + 1}, head ${h0 + h + 1}`, selected: l === layer && h === head,
        x: LEFT + h * g.cw, y: TOP + l * g.ch, w: g.tw, h: g.th }),
    });
  }

  at(ev) {
    const g = this.geom;
    if (!g) return null;
    const box = this.svg.node().getBoundingClientRect();
    const k = this.svg.node().viewBox.baseVal.width / box.width;
    const x = (ev.clientX - box.left) * k - LEFT, y = (ev.clientY - box.top) * k - TOP;
    const head = Math.floor(x / g.cw), layer = Math.floor(y / g.ch);
    if (head < 0 || layer < 0 || head >= g.heads || layer >= g.layers) return null;
    return { layer: g.l0 + layer, head: g.h0 + head };
  }
}
