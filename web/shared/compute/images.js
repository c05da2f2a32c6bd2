// The matrix pictures of the figures, as PNG data URLs: pure (no DOM), so the demo's worker can build
// them off the page's thread (the heads' pictures of a long document) and the figures on it.
import { interpolateViridis } from 'd3-scale-chromatic';
import { pngDataURL, pngIndexedDataURL } from './png.js';

const little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** [r, g, b] as one RGBA pixel of a Uint32Array view on ImageData (opaque). */
export function packRGB(rgb) {
  return little ? (0xff000000 | (rgb[2] << 16) | (rgb[1] << 8) | rgb[0]) >>> 0
    : ((rgb[0] << 24) | (rgb[1] << 16) | (rgb[2] << 8) | 0xff) >>> 0;
}

/**
 * A matrix as a PNG data URL of at most `maxSide` pixels a side (default: no limit): each cell a
 * block of `scale` × `scale` pixels when it fits, else each pixel the largest value of the block of
 * cells it covers (so a single strong weight stays visible in a 2,000 × 2,000 matrix drawn in 112 px).
 * Small multiples then cost one <image> element each instead of n_q·n_k rectangles.
 * colour(v, i, j) returns [r, g, b] or null (transparent): used per pixel of the image, so at large n
 * its cost does not grow with the matrix; masked(i, j), when given, is checked per cell.
 */
export function matrixImage(values, rows, cols, colour, offset = 0, scale = 1, maxSide = Infinity) {
  const pixel = (v, i, j) => { const rgb = colour(v, i, j); return rgb ? packRGB(rgb) : 0; };   // 0: transparent
  const { W, H, px } = matrixPixels(values, rows, cols, pixel, offset, scale, maxSide, Uint32Array);
  return pngDataURL(W, H, new Uint8Array(px.buffer));
}

/**
 * As matrixImage, with colours from a palette (at most 256 [r, g, b, a?]): index(v, i, j) returns the
 * palette entry of a pixel. A palette PNG has a quarter of the bytes: quicker to build and to send.
 */
export function matrixIndexedImage(values, rows, cols, index, palette, offset = 0, scale = 1, maxSide = Infinity) {
  const { W, H, px } = matrixPixels(values, rows, cols, index, offset, scale, maxSide, Uint8Array);
  return pngIndexedDataURL(W, H, px, palette);
}

/** The pixels of matrixImage: pixel(v, i, j) is written into an Arr (Uint32Array or Uint8Array). */
function matrixPixels(values, rows, cols, pixel, offset, scale, maxSide, Arr) {
  const down = Math.max(rows, cols) > maxSide;
  if (!down) {
    const W = cols * scale, H = rows * scale;
    const px = new Arr(W * H);
    for (let i = 0; i < rows; i++) {
      const o = offset + i * cols;
      if (scale === 1) {
        for (let j = 0; j < cols; j++) px[i * W + j] = pixel(values[o + j], i, j);
        continue;
      }
      for (let j = 0; j < cols; j++) {
        const p = pixel(values[o + j], i, j);
        for (let y = i * scale; y < (i + 1) * scale; y++) px.fill(p, y * W + j * scale, y * W + (j + 1) * scale);
      }
    }
    return { W, H, px };
  }
  // Max-pooling into W × H pixels.
  const f = maxSide / Math.max(rows, cols);
  const W = Math.max(1, Math.round(cols * f)), H = Math.max(1, Math.round(rows * f));
  const best = new Float32Array(W * H).fill(-Infinity);
  const at = new Int32Array(W * H);   // the cell (i * cols + j) that gave each pixel its value
  const colOf = new Int32Array(cols);
  for (let j = 0; j < cols; j++) colOf[j] = Math.min(W - 1, Math.floor((j * W) / cols));
  for (let i = 0; i < rows; i++) {
    const y = Math.min(H - 1, Math.floor((i * H) / rows)) * W;
    const o = offset + i * cols;
    for (let j = 0; j < cols; j++) {
      const v = values[o + j], q = y + colOf[j];
      if (v > best[q]) { best[q] = v; at[q] = i * cols + j; }
    }
  }
  const px = new Arr(W * H);
  for (let q = 0; q < W * H; q++) {
    const k = at[q], i = Math.floor(k / cols);
    px[q] = pixel(best[q] === -Infinity ? NaN : best[q], i, k - i * cols);
  }
  return { W, H, px };
}

/** Parses "rgb(r, g, b)" or "#rrggbb" (what d3 interpolators return) into [r, g, b]. */
export function toRGB(css) {
  if (css[0] === '#') {
    const n = parseInt(css.slice(1, 7), 16);
    return [n >> 16, (n >> 8) & 255, n & 255];
  }
  const m = css.match(/\d+(\.\d+)?/g);
  return [Number(m[0]), Number(m[1]), Number(m[2])];
}

// The pictures' palette: viridis in 255 steps, and entry 255 transparent (a masked cell).
const LEVELS = 255, CLEAR = 255;
const PALETTE = [...Array.from({ length: LEVELS }, (_, k) => toRGB(interpolateViridis(k / (LEVELS - 1)))), [0, 0, 0, 0]];

/**
 * One panel's picture as a PNG data URL: weights[offset, offset + nq·nk) coloured from 0 to their
 * largest value, one pixel per cell, max-pooled down to maxSide pixels a side for a long document.
 * Masked cells are transparent: the panel's frame, filled with the theme's masked colour, shows
 * through, so the picture does not depend on the theme (a light/dark switch needs no redraw) and can
 * be built off the page's thread (the demo's worker builds the heads' pictures, web/pages/demo/demo-worker.js).
 */
export function panelImage(weights, offset, nq, nk, masked, maxSide, upTo = null) {
  // Coloured from 0 to its own largest value, or to `upTo` (panels compared on one scale).
  let max = upTo ?? 0;
  if (upTo === null) for (let i = 0; i < nq * nk; i++) { const v = weights[offset + i]; if (v > max) max = v; }
  const top = LEVELS - 1, scale = max > 0 ? top / max : top;
  const index = (v, i, j) => (masked(i, j) ? CLEAR : Math.max(0, Math.min(top, Math.round(v * scale))) || 0);
  return matrixIndexedImage(weights, nq, nk, index, PALETTE, offset, 1, maxSide);
}

/** px: a head's panel in the figure 'heads' (web/shared/figures/registry.js); its picture is at most twice that a side. */
export const HEAD_PANEL = 112;

/**
 * Every head's picture (data URLs) for d: { nq, nk, heads, weights } and masked(i, j): what the heads
 * figure takes as d.headImages. The demo's worker calls this, off the page's thread.
 */
export function headImages(d, masked) {
  return Array.from({ length: d.heads }, (_, h) => panelImage(d.weights, h * d.nq * d.nk, d.nq, d.nk, masked, 2 * HEAD_PANEL));
}
