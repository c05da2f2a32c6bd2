// The model page's computations on an imported attention stack [layers, heads, nq, nk], DOM-free: the
// layers × heads grid's thumbnails (web/shared/figures/ModelGrid.js paints them) and which part of the grid
// is shown. The page's worker (web/pages/imported-attention/model-worker.js) runs them beside the module's kernels
// (loadAttentions, headSummaries, rollout), so a big file never holds the page's thread.

/** The grid shows at most GRID_MAX layers × GRID_MAX heads at once: the block that holds the chosen head. */
export const GRID_MAX = 64;
/** px between thumbnails (web/shared/figures/ModelGrid.js). */
export const GRID_GAP = 6;
const GAP = GRID_GAP;

/**
 * The part of the grid holding (layer, head): { l0, h0, layers, heads } (first layer and head, counts),
 * all of it when the stack has at most GRID_MAX layers and heads.
 */
export function gridPage(meta, layer = 0, head = 0) {
  const l0 = Math.floor(Math.min(layer, meta.layers - 1) / GRID_MAX) * GRID_MAX;
  const h0 = Math.floor(Math.min(head, meta.heads - 1) / GRID_MAX) * GRID_MAX;
  return { l0, h0, layers: Math.min(GRID_MAX, meta.layers - l0), heads: Math.min(GRID_MAX, meta.heads - h0) };
}

/** Thumbnail size in pixels for `heads` heads across: up to 120, smaller with many heads; a whole multiple of n when n is small. */
export function thumbSize(heads, nq, nk) {
  const n = Math.max(nq, nk);
  const room = Math.max(16, Math.min(120, Math.floor(720 / heads) - GAP));
  const side = n >= room ? room : n * Math.floor(room / n);
  return { tw: Math.max(1, Math.round(side * (nk / n))), th: Math.max(1, Math.round(side * (nq / n))), side, gap: GAP };
}

/**
 * The thumbnails of one page of the grid: for each head of the page (layers down, heads across), th × tw
 * colour indices 0–255, each pixel the largest weight of the block of cells it covers scaled by the
 * head's largest weight (so a sharp weight never disappears when 512 tokens become 54 pixels).
 * attentions: Float32Array [layers, heads, nq, nk]; meta: { layers, heads, nq, nk }; page: gridPage's.
 * onHead(done, total) is called after each head (progress). Returns { ...page, tw, th, side, gap,
 * levels: Uint8Array [page.layers, page.heads, th, tw] }.
 */
export function gridThumbnails(attentions, meta, page, onHead) {
  const { heads: H, nq, nk } = meta;
  const size = thumbSize(page.heads, nq, nk);
  const { tw, th } = size;
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
  const levels = new Uint8Array(page.layers * page.heads * th * tw);
  const blocks = new Float32Array(th * tw);
  const nn = nq * nk;
  const total = page.layers * page.heads;
  for (let l = 0; l < page.layers; l++) {
    for (let h = 0; h < page.heads; h++) {
      const base = ((page.l0 + l) * H + page.h0 + h) * nn;
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
      const o = (l * page.heads + h) * th * tw;
      for (let k = 0; k < th * tw; k++) levels[o + k] = Math.min(255, Math.round(blocks[k] * scale));
      if (onHead) onHead(l * page.heads + h + 1, total);
    }
  }
  return { ...page, ...size, levels };
}
