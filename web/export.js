// Downloads: any figure as a standalone SVG or PNG, and the attention weights as CSV or JSON.
// The page's CSS is turned into SVG presentation attributes on a copy of the figure, so the file
// looks the same outside the page (and the page's Content-Security-Policy never sees inline style).

const PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-opacity', 'stroke-width', 'stroke-dasharray',
  'opacity', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline',
  'visibility', 'image-rendering'];
const SVG_NS = 'http://www.w3.org/2000/svg';

/** A standalone copy of an SVG element, with computed styles written as presentation attributes. */
export function standaloneSVG(svg) {
  const clone = svg.cloneNode(true);
  const src = [svg, ...svg.querySelectorAll('*')];
  const dst = [clone, ...clone.querySelectorAll('*')];
  for (let k = 0; k < src.length; k++) {
    const el = src[k], out = dst[k];
    const cs = getComputedStyle(el);
    if (cs.display === 'none') { out.remove(); continue; }
    if (el instanceof SVGElement) {
      // Inherited properties are written only where they differ from the parent's (whose own value
      // was written, by induction), which keeps the file small without changing what it shows.
      const parent = el === svg ? null : getComputedStyle(el.parentNode);
      for (const p of PROPS) {
        const v = cs.getPropertyValue(p);
        if (!v) continue;
        if (p === 'opacity') { if (v !== '1') out.setAttribute(p, v); continue; }
        if (p === 'dominant-baseline') { if (v !== 'auto') out.setAttribute(p, v); continue; }
        if (parent && parent.getPropertyValue(p) === v) continue;
        out.setAttribute(p, v);
      }
    }
    // Interaction and page wiring mean nothing in a file: keep only what draws (and aria-label).
    for (const a of [...out.attributes]) {
      if (a.name === 'class' || a.name === 'tabindex' || a.name === 'role' || (a.name.startsWith('aria-') && a.name !== 'aria-label')) out.removeAttribute(a.name);
    }
  }
  clone.setAttribute('xmlns', SVG_NS);
  clone.setAttribute('font-family', getComputedStyle(svg).fontFamily);
  // A background the size of the picture, in the page's background colour.
  const bg = svg.ownerDocument.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', getComputedStyle(svg.ownerDocument.body).backgroundColor);
  clone.insertBefore(bg, clone.firstChild);
  return clone;
}

export function svgString(svg) {
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(standaloneSVG(svg));
}

export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function exportSVG(svg, stem) {
  download(new Blob([svgString(svg)], { type: 'image/svg+xml' }), `${stem}.svg`);
}

/** Renders the standalone SVG into a canvas at 2× and downloads it as PNG. */
export async function exportPNG(svg, stem, scale = 2) {
  const text = svgString(svg);
  const w = Number(svg.getAttribute('width')), h = Number(svg.getAttribute('height'));
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.decoding = 'sync';
    await new Promise((resolve, reject) => {
      img.onload = resolve;
      img.onerror = () => reject(new Error('the figure could not be rendered to an image'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(w * scale);
    canvas.height = Math.round(h * scale);
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, w, h);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    download(blob, `${stem}.png`);
  } finally {
    URL.revokeObjectURL(url);
  }
}

function csvCell(v) {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
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

function num(x) {
  if (Number.isFinite(x)) return Number(x.toPrecision(9)).toString();
  return x > 0 ? 'Infinity' : x < 0 ? '-Infinity' : 'NaN';
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
