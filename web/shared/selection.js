// Selections of tokens (state.rows: query rows, state.cols: key columns): how a click, a shift-click,
// a ctrl/cmd-click or a drag changes a selection, and the sums and means a selection shows. Pure
// functions: the page (demo.js) keeps the anchor of the last plain click and turns each `select`
// event of a figure or a token strip into a new list.

/**
 * The list after one gesture on token `index`:
 * - plain (no modifier): just that token (a drag then extends from it);
 * - `shift`: the range from the anchor to the token, added to the list as it was when the range began;
 * - `toggle` (ctrl or cmd): the token added or removed.
 * `sel` = { list, anchor, base }: base is the list before the current range began. Returns a new sel.
 */
export function applySelect(sel, index, { shift = false, toggle = false } = {}) {
  const { list = [], anchor = null, base = [] } = sel || {};
  if (shift && anchor !== null) {
    const lo = Math.min(anchor, index), hi = Math.max(anchor, index);
    const set = new Set(base);
    for (let t = lo; t <= hi; t++) set.add(t);
    return { list: sorted(set), anchor, base };
  }
  if (toggle) {
    const set = new Set(list);
    if (set.has(index)) set.delete(index); else set.add(index);
    const next = sorted(set);
    return { list: next, anchor: index, base: next.filter((t) => t !== index) };
  }
  return { list: [index], anchor: index, base: [] };
}

function sorted(set) {
  return [...set].sort((a, b) => a - b);
}

/** The indices of a list below n (a selection read from a link is checked against the token counts). */
export function within(list, n) {
  return (list || []).filter((t) => t < n);
}

/**
 * Summed and mean attention of selected query rows over the keys: w is one head [nq, nk];
 * returns { sum: Float64Array [nk], mean: Float64Array [nk] } (sum over the rows, mean = sum / rows).
 */
export function rowSummary(w, nq, nk, rows) {
  const sum = new Float64Array(nk);
  for (const i of rows) for (let j = 0; j < nk; j++) sum[j] += w[i * nk + j];
  const mean = sum.map((v) => v / Math.max(1, rows.length));
  return { sum, mean };
}

/**
 * Who attends to the selected key columns: for each query row, the summed weight it gives them and the
 * mean over them. Returns { sum: Float64Array [nq], mean: Float64Array [nq] }.
 */
export function colSummary(w, nq, nk, cols) {
  const sum = new Float64Array(nq);
  for (let i = 0; i < nq; i++) for (const j of cols) sum[i] += w[i * nk + j];
  const mean = sum.map((v) => v / Math.max(1, cols.length));
  return { sum, mean };
}

/**
 * Over the heads of weights [heads, nq, nk]: the mean and the max of every cell,
 * { mean: Float32Array [nq, nk], max: Float32Array [nq, nk] }.
 */
export function overHeads(weights, heads, nq, nk) {
  const n = nq * nk;
  const mean = new Float32Array(n), max = new Float32Array(n).fill(-Infinity);
  const acc = new Float64Array(n);
  for (let h = 0; h < heads; h++) {
    const o = h * n;
    for (let c = 0; c < n; c++) {
      const v = weights[o + c];
      acc[c] += v;
      if (v > max[c]) max[c] = v;
    }
  }
  for (let c = 0; c < n; c++) mean[c] = acc[c] / heads;
  return { mean, max };
}
