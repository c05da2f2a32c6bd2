// Lab part 3's map: the 2-D data (training points filled, test points hollow, one colour per class),
// the classifier's decision regions (each cell of a grid coloured by the class the network picks
// there, stronger where it is surer) and its keys (diamonds in the colour of their value row's
// class, with the path each has travelled since step 0). A key that left the picture is drawn as a
// triangle on its edge, pointing the way it went.
import { scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { Figure, packRGB, toRGB } from './base.js';

const M = { left: 30, right: 10, top: 10, bottom: 24 };
const LEVELS = 255;   // confidence levels of the regions' colours

export class PrototypeMap extends Figure {
  /** opts: { id, title, caption, size (the plot's side, px), small (no axes, smaller marks) } */
  constructor(slot, { id, title, caption = '', size = 420, small = false }) {
    super(slot, { id, title, caption });
    this.size = size;
    this.small = small;
    this.m = small ? { left: 4, right: 4, top: 4, bottom: 4 } : M;
    this.addPlot(`prototype-map${small ? ' small' : ''}`);
    this.svg.attr('role', 'img');
    // The regions on screen: a canvas (one pixel per grid cell, scaled up) inside the SVG, repainted
    // in place on every frame of training. Exports get an <image> with the picture as a data: URL.
    this.liveRegions = this.svg.append('foreignObject').attr('class', 'regions-live');
    this.canvas = this.liveRegions.append('xhtml:canvas').attr('class', 'regions-canvas').attr('width', 1).attr('height', 1).node();
    this.image = this.svg.append('image').attr('class', 'regions').attr('preserveAspectRatio', 'none').attr('display', 'none');
    this.addLayers({
      frame: 'rect.map-frame', gx: 'g.axis.x', gy: 'g.axis.y', gTrain: 'g.points.train', gTest: 'g.points.test', gTrails: 'g.trails', gKeys: 'g.keys',
    });
    this.setSize(size + this.m.left + this.m.right, size + this.m.top + this.m.bottom);
    this.pointsKey = null;
  }

  /*
   * setData(d), d: { view, classes, train: {X, y, n}, test: {X, y, n}, K, V, m, grid: {res, cls, conf},
   *      trails?: Float32Array[] (the keys at earlier steps), keyClass?: Uint8Array, dist?: Float64Array }
   */

  scales() {
    const d = this.data, m = this.m;
    const x = scaleLinear().domain([-d.view, d.view]).range([m.left, m.left + this.size]);
    const y = scaleLinear().domain([-d.view, d.view]).range([m.top + this.size, m.top]);
    return { x, y };
  }

  /**
   * The panel and class colours of the current theme, read from the CSS once per theme (reading
   * computed styles every frame would make the browser recompute styles every frame).
   */
  themeColours(classes) {
    const win = this.root.node().ownerDocument.defaultView;
    const dark = !!(win.matchMedia && win.matchMedia('(prefers-color-scheme: dark)').matches);
    const key = `${dark}:${classes}`;
    if (this.colourKey !== key) {
      const style = getComputedStyle(this.root.node());
      const colours = [];
      for (let c = 0; c < classes; c++) colours.push(toRGB(style.getPropertyValue(`--head-${c + 1}`).trim() || '#888888'));
      this.colourCache = { panel: toRGB(style.getPropertyValue('--panel').trim() || '#ffffff'), colours };
      this.colourKey = key;
    }
    return this.colourCache;
  }

  /** The regions painted into the figure's canvas: each grid cell the class colour over the panel, by confidence. */
  paintRegions(grid, classes) {
    const { panel, colours } = this.themeColours(classes);
    const floor = 1 / classes, n = grid.res;
    // One packed pixel per class and confidence level (LEVELS of them), made once per theme.
    if (this.tableKey !== this.colourKey) {
      this.tableKey = this.colourKey;
      this.table = new Uint32Array(classes * (LEVELS + 1));
      for (let c = 0; c < classes; c++) {
        for (let l = 0; l <= LEVELS; l++) {
          const a = 0.12 + 0.4 * (l / LEVELS);
          this.table[c * (LEVELS + 1) + l] = packRGB([0, 1, 2].map((k) => Math.round(panel[k] + (colours[c][k] - panel[k]) * a)));
        }
      }
    }
    if (this.canvas.width !== n) { this.canvas.width = n; this.canvas.height = n; this.img = null; }
    const ctx = this.canvas.getContext('2d');
    if (!this.img) this.img = ctx.createImageData(n, n);
    const px = new Uint32Array(this.img.data.buffer), table = this.table, scale = LEVELS / (1 - floor);
    for (let i = 0; i < n * n; i++) {
      const l = Math.round((grid.conf[i] - floor) * scale);
      px[i] = table[grid.cls[i] * (LEVELS + 1) + (l < 0 ? 0 : l > LEVELS ? LEVELS : l)];
    }
    ctx.putImageData(this.img, 0, 0);
  }

  /**
   * Exports carry the regions inside the file: while the file's copy of the SVG is made, the <image>
   * shows the canvas as a data: URL and the canvas is left out (both made in toBlob's first,
   * synchronous part, so the page never shows the swap).
   */
  toBlob(format) {
    this.runJob();
    if (!this.data) return super.toBlob(format);
    this.image.attr('href', this.canvas.toDataURL('image/png')).attr('display', null);
    this.liveRegions.attr('display', 'none');
    try {
      return super.toBlob(format);
    } finally {
      this.image.attr('display', 'none').attr('href', null);
      this.liveRegions.attr('display', null);
    }
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const { x, y } = this.scales();
    const m = this.m, S = this.size;
    if (this.placed !== S) {
      this.placed = S;
      this.image.attr('x', m.left).attr('y', m.top).attr('width', S).attr('height', S);
      this.liveRegions.attr('x', m.left).attr('y', m.top).attr('width', S).attr('height', S);
    }
    this.paintRegions(d.grid, d.classes);
    this.frame.attr('x', m.left).attr('y', m.top).attr('width', S).attr('height', S);
    if (!this.small && this.axesView !== d.view) {
      this.axesView = d.view;   // the axes change only with the view
      this.gx.attr('transform', `translate(0,${m.top + S})`).call(axisBottom(x).ticks(5));
      this.gy.attr('transform', `translate(${m.left},0)`).call(axisLeft(y).ticks(5));
    }
    // The points change only with the data set: redrawn only then.
    if (this.pointsKey !== d.train.X) {
      this.pointsKey = d.train.X;
      const r = this.small ? 1.6 : 2.6;
      const pts = (set) => Array.from({ length: set.n }, (_, i) => i);
      this.gTrain.selectAll('circle').data(pts(d.train)).join('circle')
        .attr('class', (i) => `pt cls-${d.train.y[i]}`).attr('r', r)
        .attr('cx', (i) => x(d.train.X[2 * i]).toFixed(1)).attr('cy', (i) => y(d.train.X[2 * i + 1]).toFixed(1));
      this.gTest.selectAll('circle').data(pts(d.test)).join('circle')
        .attr('class', (i) => `pt cls-${d.test.y[i]}`).attr('r', r)
        .attr('cx', (i) => x(d.test.X[2 * i]).toFixed(1)).attr('cy', (i) => y(d.test.X[2 * i + 1]).toFixed(1));
    }
    // Trails: one path per key through its saved positions.
    const trails = d.trails || [];
    const keys = Array.from({ length: d.m }, (_, j) => j);
    const clampX = (v) => Math.max(m.left, Math.min(m.left + S, x(v)));
    const clampY = (v) => Math.max(m.top, Math.min(m.top + S, y(v)));
    // A trail that only grew since the last frame is extended, not rebuilt.
    const from = trails === this.trailsRef && this.trailText && this.trailText.length === d.m && trails.length >= this.trailsDone ? this.trailsDone : 0;
    if (!from) this.trailText = keys.map(() => '');
    for (let t = from; t < trails.length; t++) {
      const K = trails[t];
      for (let j = 0; j < d.m; j++) this.trailText[j] += `${t ? 'L' : 'M'}${clampX(K[2 * j]).toFixed(1)},${clampY(K[2 * j + 1]).toFixed(1)}`;
    }
    this.trailsRef = trails;
    this.trailsDone = trails.length;
    this.gTrails.selectAll('path').data(trails.length > 1 ? keys : []).join('path')
      .attr('class', 'trail')
      .attr('d', (j) => this.trailText[j]);
    // Keys: a diamond inside the picture, a triangle on its edge when outside.
    const size = this.small ? 5 : 8;
    const g = this.gKeys.selectAll('g.key').data(keys).join((enter) => {
      const k = enter.append('g').attr('class', 'key');
      k.append('path');
      k.append('title');
      return k;
    });
    g.attr('class', (j) => `key cls-${d.keyClass ? d.keyClass[j] : 0}`)
      .attr('transform', (j) => `translate(${clampX(d.K[2 * j]).toFixed(1)},${clampY(d.K[2 * j + 1]).toFixed(1)})`);
    g.select('path').attr('d', (j) => {
      const kx = d.K[2 * j], ky = d.K[2 * j + 1];
      if (Math.abs(kx) <= d.view && Math.abs(ky) <= d.view) return `M0,${-size}L${size},0L0,${size}L${-size},0Z`;
      const a = Math.atan2(-ky, kx);   // screen angle of the way out
      const p = (t, r) => `${(r * Math.cos(a + t)).toFixed(1)},${(r * Math.sin(a + t)).toFixed(1)}`;
      return `M${p(0, size)}L${p(2.4, size)}L${p(-2.4, size)}Z`;
    });
    g.select('title').text((j) => {
      const kx = d.K[2 * j], ky = d.K[2 * j + 1];
      const out = Math.abs(kx) > d.view || Math.abs(ky) > d.view ? ' (outside the picture)' : '';
      const near = d.dist ? `; nearest training point ${d.dist[j].toFixed(2)} away` : '';
      return `Key ${j + 1} at (${kx.toFixed(2)}, ${ky.toFixed(2)})${out}; class ${d.keyClass ? d.keyClass[j] + 1 : '?'}${near}`;
    });
    const outside = keys.filter((j) => Math.abs(d.K[2 * j]) > d.view || Math.abs(d.K[2 * j + 1]) > d.view).length;
    this.svg.attr('aria-label', `${d.train.n} training and ${d.test.n} test points in ${d.classes} classes, the decision regions, ` +
      `and ${d.m} keys${outside ? `, ${outside} of them outside the picture` : ''}`);
  }
}
