// Figures as files: a standalone SVG or PNG Blob of any figure. The CSS (the page's, or the
// <attn-scope> element's shadow styles) is turned into SVG presentation attributes on a copy of the
// figure, so the file looks the same anywhere (and a Content-Security-Policy never sees inline style).

const PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-opacity', 'stroke-width', 'stroke-dasharray',
  'opacity', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline',
  'visibility', 'image-rendering'];
const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * A standalone copy of an SVG element, with computed styles written as presentation attributes and a
 * background rectangle of colour `background` (default: the page's background colour).
 */
export function standaloneSVG(svg, background) {
  const clone = svg.cloneNode(true);
  const src = [svg, ...svg.querySelectorAll('*')];
  const dst = [clone, ...clone.querySelectorAll('*')];
  for (let k = 0; k < src.length; k++) {
    const el = src[k], out = dst[k];
    const cs = getComputedStyle(el);
    // Not drawn, or there only for assistive technology (aria-grid.js): not in the file.
    if (cs.display === 'none' || el.classList?.contains('aria-only')) { out.remove(); continue; }
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
  bg.setAttribute('fill', background || getComputedStyle(svg.ownerDocument.body).backgroundColor);
  clone.insertBefore(bg, clone.firstChild);
  return clone;
}

export function svgString(svg, background) {
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(standaloneSVG(svg, background));
}

/** The figure as an SVG file (a Blob of type image/svg+xml). */
export function svgBlob(svg, background) {
  return new Blob([svgString(svg, background)], { type: 'image/svg+xml' });
}

/** The figure rendered into a canvas at `scale` × its size, as a PNG Blob. */
export async function pngBlob(svg, scale = 2, background) {
  const text = svgString(svg, background);
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
    const canvas = svg.ownerDocument.createElement('canvas');
    canvas.width = Math.round(w * scale);
    canvas.height = Math.round(h * scale);
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, w, h);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    if (!blob) throw new Error('the browser could not encode the PNG');
    return blob;
  } finally {
    URL.revokeObjectURL(url);
  }
}

// The CSV cells of the figures' data downloads (lab/csv.js: the lab's too).
export { csvCell, csvNumber } from '../../../lab/csv.js';
