// bertviz's "model view", drawn as one image: every (layer, head) of an imported attention stack as a
// small matrix, layers down, heads across. All thumbnails are painted into one canvas through
// ImageData (one pass over the numbers; each thumbnail pixel is the largest weight of the block of
// cells it covers, so a sharp weight never disappears when 512 tokens become 54 pixels), and the canvas
// goes into the SVG as a single <image>: 144 heads of 512 tokens cost one image, not 37 million cells.
// Click a thumbnail, or move with the arrow keys, to pick a head ('pick' event { layer, head }).
import { interpolateViridis } from 'd3-scale-chromatic';
import { Figure, colourTable, consumeKey, withCommandModifier } from './base.js';
import { AriaGrid } from './aria-grid.js';

const viridis = colourTable(interpolateViridis);
const GAP = 6;           // px between thumbnails
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
    this.data = null;
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

  /** d: { layers, heads, nq, nk, attentions: Float32Array [layers, heads, nq, nk] } */
  setData(d) { this.data = d; this.geom = null; }
  setCurrent(layer, head) { this.current = { layer, head }; }

  /** Thumbnail size in pixels: up to 120, smaller with many heads; a whole multiple of n when n is small. */
  thumb() {
    const d = this.data;
    const n = Math.max(d.nq, d.nk);
    const room = Math.max(16, Math.min(120, Math.floor(720 / d.heads) - GAP));
    const side = n >= room ? room : n * Math.floor(room / n);
    return { tw: Math.max(1, Math.round(side * (d.nk / n))), th: Math.max(1, Math.round(side * (d.nq / n))), side };
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const { layers, heads, nq, nk, attentions } = d;
    const { tw, th, side } = this.thumb();
    const cw = side + GAP, ch = side + GAP;
    const W = heads * cw - GAP, H = layers * ch - GAP;
    this.geom = { cw, ch, tw, th };
    this.setSize(LEFT + W + 4, TOP + H + 4);
    // Block edges: thumbnail pixel x covers columns [j0[x], j1[x]) (at least one), rows likewise.
    const edges = (cells, px) => {
      const a = new Int32Array(px), b = new Int32Array(px);
      for (let x = 0; x < px; x++) {
        a[x] = Math.floor((x * cells) / px);
        b[x] = Math.max(a[x] + 1, Math.floor(((x + 1) * cells) / px));
      }
      return [a, b];
    };
    const [j0, j1] = edges(nk, tw);
    const [i0, i1] = edges(nq, th);
    const canvas = this.canvas;
    canvas.width = W;
    canvas.height = H;
    const ctx = canvas.getContext('2d');
    const img = ctx.createImageData(W, H);
    const px = img.data;
    // One pass over each head: the block maxima (th × tw), whose largest is the head's largest weight.
    const blocks = new Float32Array(th * tw);
    const nn = nq * nk;
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        const base = (l * heads + h) * nn;
        blocks.fill(0);
        let max = 0;
        for (let y = 0; y < th; y++) {
          const out = y * tw;
          for (let i = i0[y]; i < i1[y]; i++) {
            const row = base + i * nk;
            for (let x = 0; x < tw; x++) {
              let m = blocks[out + x];
              const end = row + j1[x];
              for (let k = row + j0[x]; k < end; k++) { const v = attentions[k]; if (v > m) m = v; }
              blocks[out + x] = m;
            }
          }
          for (let x = 0; x < tw; x++) if (blocks[out + x] > max) max = blocks[out + x];
        }
        const scale = max > 0 ? 255 / max : 0;
        const ox = h * cw, oy = l * ch;
        for (let y = 0; y < th; y++) {
          let o = ((oy + y) * W + ox) * 4;
          for (let x = 0; x < tw; x++, o += 4) {
            const c = viridis[Math.min(255, Math.round(blocks[y * tw + x] * scale))];
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
      .attr('x', (h) => LEFT + h * cw + tw / 2).attr('y', TOP - 6).text((h) => `H${h + 1}`);
    const everyRow = Math.max(1, Math.ceil(12 / ch));
    this.gRows.selectAll('text').data(Array.from({ length: layers }, (_, l) => l).filter((l) => l % everyRow === 0 || l === layers - 1))
      .join('text').attr('class', 'axis-title').attr('text-anchor', 'end').attr('dominant-baseline', 'central')
      .attr('x', LEFT - 5).attr('y', (l) => TOP + l * ch + th / 2).text((l) => `L${l + 1}`);
    this.svg.attr('aria-label', `${layers} layers by ${heads} heads of ${nq} by ${nk} attention matrices. Arrow keys pick a head.`);
    this.drawCurrent();
  }

  drawCurrent() {
    const g = this.geom;
    if (!g) return;
    const { layer, head } = this.current;
    this.currentRect.attr('visibility', 'visible')
      .attr('x', LEFT + head * g.cw - 2).attr('y', TOP + layer * g.ch - 2).attr('width', g.tw + 4).attr('height', g.th + 4);
    this.live.text(`Layer ${layer + 1}, head ${head + 1}`);
    const d = this.data;
    this.ariaGrid.update({
      id: `figure-${this.id}-cell`, rows: d.layers, cols: d.heads, active: [layer, head],
      colHeader: (h) => ({ label: `head ${h + 1}`, x: LEFT + h * g.cw, y: 0, w: g.tw, h: TOP }),
      rowHeader: (l) => ({ label: `layer ${l + 1}`, x: 0, y: TOP + l * g.ch, w: LEFT, h: g.th }),
      cell: (l, h) => ({ label: `layer ${l + 1}, head ${h + 1}`, selected: l === layer && h === head,
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
    if (head < 0 || layer < 0 || head >= this.data.heads || layer >= this.data.layers) return null;
    return { layer, head };
  }
}
