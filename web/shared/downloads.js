// Downloads: figures as SVG or PNG (drawn by web/shared/figures/export.js) and the attention weights as CSV
// or JSON.
import { svgBlob, pngBlob, csvCell, csvNumber as num } from './figures/export.js';

export { standaloneSVG, svgString, svgBlob, pngBlob } from './figures/export.js';

export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoked only once the browser has surely read it: a busy machine can take seconds to start a
  // download, and a revoked URL makes it fail without a word.
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

export function exportSVG(svg, stem) {
  download(svgBlob(svg), `${stem}.svg`);
}

/** Renders the standalone SVG into a canvas at 2× and downloads it as PNG. */
export async function exportPNG(svg, stem, scale = 2) {
  download(await pngBlob(svg, scale), `${stem}.png`);
}


/**
 * The weights (and raw scores) of every head in long form: one line per (head, query, key).
 * Numbers are written with 9 significant digits, enough to read back the exact float32.
 */
export function weightsCSV(r) {
  const lines = ['head,query_index,query_token,key_index,key_token,weight,score'];
  for (let h = 0; h < r.heads; h++) for (let i = 0; i < r.nq; i++) for (let j = 0; j < r.nk; j++) {
    const k = h * r.nq * r.nk + i * r.nk + j;
    lines.push([h, i, csvCell(r.queryTokens[i]), j, csvCell(r.keyTokens[j]),
      num(r.weights[k]), num(r.scores[k])].join(','));
  }
  return lines.join('\n') + '\n';
}


export function weightsJSON(r, settings) {
  const m = (a) => {
    const out = [];
    for (let h = 0; h < r.heads; h++) {
      const rows = [];
      for (let i = 0; i < r.nq; i++) rows.push(Array.from(a.subarray(h * r.nq * r.nk + i * r.nk, h * r.nq * r.nk + (i + 1) * r.nk), (x) => (Number.isFinite(x) ? x : String(x))));
      out.push(rows);
    }
    return out;
  };
  return JSON.stringify({
    generator: 'attnscope web demo',
    settings,
    queryTokens: r.queryTokens,
    keyTokens: r.keyTokens,
    oov: { query: r.queryTokenInfo.map((t) => t.oov), keys: r.keyTokenInfo.map((t) => t.oov) },
    heads: r.heads, nq: r.nq, nk: r.nk, d: r.d, dHead: r.dHead,
    variant: r.variant,
    shape: '[heads][nq][nk]',
    weights: m(r.weights),
    scores: m(r.scores),
  }, null, 1) + '\n';
}
