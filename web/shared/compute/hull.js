// Teaching panel 4's geometry (the figure 'hull' of web/shared/figures/registry.js draws it): the outputs of
// attention are convex combinations of the values, so they lie inside the values' convex hull. PCA to the plane, the 2-D
// hull, and the test "inside the hull in all dv dimensions". Pure: the demo's worker runs it.

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
 * (and experimental outputs) lie inside the values' hull in all dv dimensions, and the experimental
 * outputs' mean length over the plain outputs' (lengthRatio; null when not shown). d as for setData.
 */
export function hullGeometry(d) {
  const nk = d.kTokens.length, nq = d.qTokens.length, dv = d.dv;
  if (nk < 2) return { nk, nq, dv, V: null, showExperimental: false };
  // The plane: the two main directions of the values alone, so that showing the experimental outputs
  // adds points to the same picture instead of turning it (any linear map keeps averages inside).
  const showE = !!(d.showExperimental && d.experimental);
  const basis = pca2(d.values, nk, dv);
  const V = project(d.values, nk, dv, basis);
  const O = project(d.outputs, nq, dv, basis);
  const E = showE ? project(d.experimental, nq, dv, basis) : [];
  // Inside or not is decided in all dv dimensions, not in the picture.
  const inside = inConvexHull(d.values, nk, dv, d.outputs, nq).filter(Boolean).length;
  const insideE = showE ? inConvexHull(d.values, nk, dv, d.experimental, nq).filter(Boolean).length : null;
  // How long the experimental outputs are against the plain ones (mean Euclidean norms, all dv dimensions).
  const meanNorm = (X) => {
    let total = 0;
    for (let i = 0; i < nq; i++) { let s2 = 0; for (let t = 0; t < dv; t++) s2 += X[i * dv + t] ** 2; total += Math.sqrt(s2); }
    return total / nq;
  };
  const plain = showE ? meanNorm(d.outputs) : 0;
  const lengthRatio = showE && plain > 0 ? meanNorm(d.experimental) / plain : null;
  return { nk, nq, dv, V, O, E, hull: hull2(V), inside, insideE, lengthRatio, showExperimental: showE };
}
