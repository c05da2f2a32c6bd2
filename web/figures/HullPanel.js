// Teaching panel 4: attention outputs are convex combinations of the values. Each output row is
// Σ_j w_j v_j with w_j ≥ 0 and Σ w_j = 1, so it lies inside the convex hull of the value vectors; a
// linear projection to 2-D keeps that true, so the projected outputs sit inside the projected hull.
// The experimental variant that rescales the output by 1/√d_v (times an extra matrix) leaves it.
import { scaleLinear } from 'd3-scale';
import { Figure, setTokenText } from './base.js';

/** The top-2 principal directions of the rows of X [n, d] (power iteration with deflation). */
export function pca2(X, n, d) {
  const mean = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let t = 0; t < d; t++) mean[t] += X[i * d + t] / n;
  const C = new Float64Array(n * d);
  for (let i = 0; i < n; i++) for (let t = 0; t < d; t++) C[i * d + t] = X[i * d + t] - mean[t];
  const comps = [];
  for (let c = 0; c < 2; c++) {
    let v = new Float64Array(d);
    for (let t = 0; t < d; t++) v[t] = Math.sin(1.7 * t + 0.3 + c);   // a fixed start: same picture every time
    for (let it = 0; it < 60; it++) {
      // v ← Cᵀ C v, minus the parts along earlier components
      const u = new Float64Array(n);
      for (let i = 0; i < n; i++) { let s = 0; for (let t = 0; t < d; t++) s += C[i * d + t] * v[t]; u[i] = s; }
      const w = new Float64Array(d);
      for (let i = 0; i < n; i++) for (let t = 0; t < d; t++) w[t] += C[i * d + t] * u[i];
      for (const p of comps) { let s = 0; for (let t = 0; t < d; t++) s += w[t] * p[t]; for (let t = 0; t < d; t++) w[t] -= s * p[t]; }
      let norm = 0;
      for (let t = 0; t < d; t++) norm += w[t] * w[t];
      norm = Math.sqrt(norm);
      if (!(norm > 1e-12)) break;
      for (let t = 0; t < d; t++) w[t] /= norm;
      v = w;
    }
    comps.push(v);
  }
  return { mean, comps };
}

export function project(X, n, d, { mean, comps }) {
  const out = [];
  for (let i = 0; i < n; i++) {
    let a = 0, b = 0;
    for (let t = 0; t < d; t++) { const x = X[i * d + t] - mean[t]; a += x * comps[0][t]; b += x * comps[1][t]; }
    out.push([a, b]);
  }
  return out;
}

/** Convex hull of 2-D points (Andrew's monotone chain), counter-clockwise. */
export function hull2(points) {
  const p = points.map((x, i) => [x[0], x[1], i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [], upper = [];
  for (const q of p) { while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop(); lower.push(q); }
  for (let k = p.length - 1; k >= 0; k--) { const q = p[k]; while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], q) <= 0) upper.pop(); upper.push(q); }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/**
 * Whether each row of X [n, d] lies in the convex hull of the rows of V [m, d], decided in the full d
 * dimensions: the point's barycentric coordinates over the (distinct) values, by least squares, must
 * reproduce it (residual ≈ 0) and be ≥ 0. Exact when the distinct values are affinely independent,
 * which word vectors in 100 dimensions are for up to 101 words.
 */
export function inConvexHull(V, m, d, X, n) {
  const rows = [];
  const seen = new Set();
  for (let i = 0; i < m; i++) {
    const key = Array.prototype.join.call(V.subarray(i * d, (i + 1) * d), ',');
    if (!seen.has(key)) { seen.add(key); rows.push(V.subarray(i * d, (i + 1) * d)); }
  }
  const v0 = rows[0], k = rows.length - 1;
  let scale = 0;
  for (const r of rows) { let s2 = 0; for (let t = 0; t < d; t++) s2 += r[t] * r[t]; scale = Math.max(scale, Math.sqrt(s2)); }
  const D = rows.slice(1).map((r) => Float64Array.from(r, (x, t) => x - v0[t]));
  // Normal equations G c = D (x − v0), G = D Dᵀ, solved by Cholesky (a tiny ridge keeps it definite).
  const G = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let b = 0; b <= a; b++) {
    let s2 = 0;
    for (let t = 0; t < d; t++) s2 += D[a][t] * D[b][t];
    G[a * k + b] = G[b * k + a] = s2 + (a === b ? 1e-9 * scale * scale : 0);
  }
  const L = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let b = 0; b <= a; b++) {
    let s2 = G[a * k + b];
    for (let c = 0; c < b; c++) s2 -= L[a * k + c] * L[b * k + c];
    L[a * k + b] = a === b ? Math.sqrt(Math.max(s2, 1e-30)) : s2 / L[b * k + b];
  }
  const out = [];
  for (let i = 0; i < n; i++) {
    const x = X.subarray(i * d, (i + 1) * d);
    const rhs = new Float64Array(k);
    for (let a = 0; a < k; a++) { let s2 = 0; for (let t = 0; t < d; t++) s2 += D[a][t] * (x[t] - v0[t]); rhs[a] = s2; }
    const y = new Float64Array(k), c = new Float64Array(k);
    for (let a = 0; a < k; a++) { let s2 = rhs[a]; for (let b = 0; b < a; b++) s2 -= L[a * k + b] * y[b]; y[a] = s2 / L[a * k + a]; }
    for (let a = k - 1; a >= 0; a--) { let s2 = y[a]; for (let b = a + 1; b < k; b++) s2 -= L[b * k + a] * c[b]; c[a] = s2 / L[a * k + a]; }
    let resid = 0, c0 = 1;
    for (let a = 0; a < k; a++) c0 -= c[a];
    for (let t = 0; t < d; t++) {
      let r = x[t] - v0[t];
      for (let a = 0; a < k; a++) r -= c[a] * D[a][t];
      resid += r * r;
    }
    const tol = 1e-3;
    out.push(Math.sqrt(resid) <= tol * scale && c0 >= -tol && c.every((v) => v >= -tol));
  }
  return out;
}

/**
 * What the panel draws, computed from its data (pure, so the page's worker can do it off the main
 * thread; at 64 × 100 values the PCA and the hull tests took the page 10–50 ms): the 2-D points of
 * the values V, the outputs O and the experimental outputs E, the hull of V, and how many outputs
 * (and experimental outputs) lie inside the values' hull in all dv dimensions. d as for setData.
 */
export function hullGeometry(d) {
  const nk = d.kTokens.length, nq = d.qTokens.length, dv = d.dv;
  if (nk < 2) return { nk, nq, dv, V: null, showExperimental: false };
  // The plane: the two main directions of the values, and of the experimental outputs when shown
  // (so their way out of the hull is in the picture). Any linear map keeps averages inside.
  const showE = !!(d.showExperimental && d.experimental);
  const fit = showE ? Float32Array.from([...d.values, ...d.experimental]) : d.values;
  const basis = pca2(fit, fit.length / dv, dv);
  const V = project(d.values, nk, dv, basis);
  const O = project(d.outputs, nq, dv, basis);
  const E = showE ? project(d.experimental, nq, dv, basis) : [];
  // Inside or not is decided in all dv dimensions, not in the picture.
  const inside = inConvexHull(d.values, nk, dv, d.outputs, nq).filter(Boolean).length;
  const insideE = showE ? inConvexHull(d.values, nk, dv, d.experimental, nq).filter(Boolean).length : null;
  return { nk, nq, dv, V, O, E, hull: hull2(V), inside, insideE, showExperimental: showE };
}

export class HullPanel extends Figure {
  constructor(slot, { formula, onToggle }) {
    super(slot, { id: 'hull', title: '4 · Outputs stay inside the values' });
    const text = this.body.append('div').attr('class', 'teach-text');
    text.append('p').text('Attention’s output for a query is the weighted average of the value vectors, with weights that are never negative and sum to 1: a convex combination. So every output lies inside the convex hull of the values (the polygon they span). Here the values are the key sentence’s word vectors (one head, identity projection), flattened to 2-D along their two main directions (PCA); a linear map keeps an average an average, so the outputs must land inside the outline.');
    formula(text.append('div').attr('class', 'formula').node(), 'convex');
    const c = this.body.append('div').attr('class', 'panel-controls');
    const lab = c.append('label').attr('class', 'checkbox');
    this.toggle = lab.append('input').attr('type', 'checkbox').attr('id', 'hull-experimental')
      .on('change', (ev) => onToggle(ev.target.checked));
    lab.append('span').text(' also show the EXPERIMENTAL scaled output (A·V·Wₓ)/√d_v');
    this.addPlot('hull');
    this.gHull = this.svg.append('path').attr('class', 'hull-path');
    this.gLinks = this.svg.append('g').attr('class', 'hull-links');
    this.gValues = this.svg.append('g').attr('class', 'values');
    this.gOut = this.svg.append('g').attr('class', 'outputs');
    this.gExp = this.svg.append('g').attr('class', 'experimental');
    this.gLegend = this.svg.append('g').attr('class', 'hull-legend');
    this.stat = this.body.append('p').attr('class', 'teach-stat');
  }

  /**
   * d: { kTokens, qTokens, values: Float32Array [nk, dv], outputs: [nq, dv], dv,
   *      experimental: Float32Array [nq, dv] | null, showExperimental }
   */
  setData(d) { this.d = d; }

  draw() {
    const d = this.d;
    if (!d) return;
    this.toggle.property('checked', !!d.showExperimental);
    const W = 860, H = 400, m = 34;
    this.setSize(W, H);
    // The geometry comes computed (the demo's worker: d.geometry) or is computed here.
    const g = d.geometry || hullGeometry(d);
    const { nk, nq, dv, V, O, E } = g;
    if (!V) {
      this.gHull.attr('d', null);
      for (const gr of [this.gValues, this.gOut, this.gExp, this.gLinks]) gr.selectAll('*').remove();
      this.stat.text('Needs at least two keys to draw a hull.');
      return;
    }
    const all = V.concat(O, E);
    const xs = all.map((p) => p[0]), ys = all.map((p) => p[1]);
    const pad = (lo, hi) => { const r = hi - lo || 1; return [lo - 0.06 * r, hi + 0.06 * r]; };
    const x = scaleLinear().domain(pad(Math.min(...xs), Math.max(...xs))).range([m, W - m - 230]);
    const y = scaleLinear().domain(pad(Math.min(...ys), Math.max(...ys))).range([H - m, m]);
    const h = g.hull;
    this.gHull.attr('d', h.length >= 3 ? 'M' + h.map((p) => `${x(p[0])},${y(p[1])}`).join('L') + 'Z' : null);
    const vg = this.gValues.selectAll('g.v').data(V).join((enter) => {
      const g = enter.append('g').attr('class', 'v');
      g.append('circle').attr('r', 4.5);
      g.append('text').attr('class', 'token-label').attr('x', 7).attr('dominant-baseline', 'central');
      return g;
    }).attr('transform', (p) => `translate(${x(p[0])},${y(p[1])})`);
    vg.select('text').data(d.kTokens).call(setTokenText, (t) => t, 12);
    const og = this.gOut.selectAll('g.o').data(O).join((enter) => {
      const g = enter.append('g').attr('class', 'o');
      g.append('rect').attr('x', -3.5).attr('y', -3.5).attr('width', 7).attr('height', 7).attr('transform', 'rotate(45)');
      g.append('text').attr('class', 'output-label').attr('x', 6).attr('y', 8);
      return g;
    }).attr('transform', (p) => `translate(${x(p[0])},${y(p[1])})`);
    // Name the outputs when there are few enough to read.
    og.select('text').data(d.qTokens).call(setTokenText, (t) => (nq <= 14 ? t : { text: '', oov: false }), 10);
    og.selectAll('title').data((_, i) => [i]).join('title').text((i) => `output of ‘${d.qTokens[i].text}’`);
    this.gExp.selectAll('path').data(E).join('path')
      .attr('d', (p) => `M${x(p[0]) - 5},${y(p[1]) - 5}L${x(p[0]) + 5},${y(p[1]) + 5}M${x(p[0]) - 5},${y(p[1]) + 5}L${x(p[0]) + 5},${y(p[1]) - 5}`);
    this.gLinks.selectAll('line').data(E.length ? O.map((p, i) => [p, E[i]]) : []).join('line')
      .attr('x1', (l) => x(l[0][0])).attr('y1', (l) => y(l[0][1])).attr('x2', (l) => x(l[1][0])).attr('y2', (l) => y(l[1][1]));

    const legend = [
      { cls: 'lg-v', label: 'value vector (a key word)' },
      { cls: 'lg-o', label: 'output (one per query)' },
      { cls: 'lg-h', label: 'convex hull of the values' },
    ].concat(E.length ? [{ cls: 'lg-e', label: 'experimental scaled output' }] : []);
    this.gLegend.attr('transform', `translate(${W - 220},${m})`);
    const lg = this.gLegend.selectAll('g').data(legend).join((enter) => {
      const g = enter.append('g');
      g.append('rect').attr('width', 10).attr('height', 10).attr('y', -5);
      g.append('text').attr('x', 14).attr('dominant-baseline', 'central');
      return g;
    }).attr('transform', (_, k) => `translate(0,${k * 18})`).attr('class', (l) => l.cls);
    lg.select('text').text((l) => l.label);

    let s = `In all ${dv} dimensions, ${g.inside} of ${nq} outputs lie inside the convex hull of the values.`;
    if (E.length) {
      s += ` The experimental scaled outputs: ${g.insideE} of ${nq}. Rescaled (and multiplied by another matrix), they are no longer averages of the values.`;
    }
    this.stat.text(s);
    this.captionEl.text(`2-D projection: the first two principal components of the ${nk} value vectors${E.length ? ' and the experimental outputs' : ''} (d_v = ${dv}).`);
  }
}
