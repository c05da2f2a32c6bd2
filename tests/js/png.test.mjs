// The figures' PNG encoder (web/shared/compute/png.js): what it writes is a PNG any reader opens, holding
// exactly the pixels it was given (checked with node's own zlib, not with the encoder's code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { pngBytes, pngDataURL, pngIndexedBytes, pngIndexedDataURL, crc32 } from '../../web/shared/compute/png.js';
import { panelImage } from '../../web/shared/compute/images.js';

/** Chunks of a PNG file: [{ type, data }], checking each CRC against node's zlib when it has one. */
function chunks(file) {
  assert.deepEqual([...file.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  const dv = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const out = [];
  for (let p = 8; p < file.length;) {
    const len = dv.getUint32(p);
    const type = String.fromCharCode(...file.subarray(p + 4, p + 8));
    const crc = dv.getUint32(p + 8 + len);
    const body = file.subarray(p + 4, p + 8 + len);
    if (typeof zlib.crc32 === 'function') assert.equal(crc, zlib.crc32(body), `${type} CRC`);
    assert.equal(crc, crc32(body), `${type} CRC`);
    out.push({ type, data: file.subarray(p + 8, p + 8 + len) });
    p += 12 + len;
  }
  return out;
}

/** The RGBA pixels of a PNG written by pngBytes (8-bit RGBA, filter 0 on every row). */
function decode(file) {
  const cs = chunks(file);
  assert.deepEqual(cs.map((c) => c.type), ['IHDR', 'IDAT', 'IEND']);
  const h = new DataView(cs[0].data.buffer, cs[0].data.byteOffset, 13);
  const width = h.getUint32(0), height = h.getUint32(4);
  assert.deepEqual([...cs[0].data.subarray(8)], [8, 6, 0, 0, 0], 'bit depth 8, RGBA, no interlace');
  const raw = inflateSync(cs[1].data);   // node checks the zlib header and the Adler-32
  assert.equal(raw.length, (width * 4 + 1) * height);
  const px = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    assert.equal(raw[y * (width * 4 + 1)], 0, 'filter "none"');
    px.set(raw.subarray(y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1)), y * width * 4);
  }
  return { width, height, px };
}

function randomPixels(n, seed) {
  const a = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) { s = (s * 1103515245 + 12345) >>> 0; a[i] = s >>> 24; }
  return a;
}

test('pngBytes: the pixels come back exactly, small and large (several stored blocks)', () => {
  for (const [w, h] of [[1, 1], [3, 2], [64, 64], [10, 64], [300, 200]]) {
    const rgba = randomPixels(w * h * 4, w * 31 + h);
    const d = decode(pngBytes(w, h, rgba));
    assert.deepEqual([d.width, d.height], [w, h]);
    assert.deepEqual(d.px, rgba, `${w} × ${h}`);
  }
});

test('pngDataURL: a base64 data URL of the same file', () => {
  const rgba = randomPixels(5 * 7 * 4, 9);
  const url = pngDataURL(5, 7, rgba);
  assert.match(url, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
  assert.deepEqual(new Uint8Array(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')), pngBytes(5, 7, rgba));
});

test('pngBytes refuses pixels that do not match the size, naming both', () => {
  assert.throws(() => pngBytes(2, 2, new Uint8Array(15)), (e) => e instanceof RangeError && /2 × 2 × 4 = 16 bytes of RGBA, got 15/.test(e.message));
  assert.throws(() => pngBytes(0, 2, new Uint8Array(0)), RangeError);
});

/** A palette PNG written by pngIndexedBytes: { width, height, index, palette: [[r, g, b, a]] }. */
function decodeIndexed(file) {
  const cs = chunks(file);
  assert.deepEqual(cs.map((c) => c.type), ['IHDR', 'PLTE', 'tRNS', 'IDAT', 'IEND']);
  const h = new DataView(cs[0].data.buffer, cs[0].data.byteOffset, 13);
  const width = h.getUint32(0), height = h.getUint32(4);
  assert.deepEqual([...cs[0].data.subarray(8)], [8, 3, 0, 0, 0], 'bit depth 8, palette, no interlace');
  const n = cs[1].data.length / 3;
  assert.equal(cs[2].data.length, n, 'one alpha per palette entry');
  const palette = Array.from({ length: n }, (_, k) => [...cs[1].data.subarray(3 * k, 3 * k + 3), cs[2].data[k]]);
  const raw = inflateSync(cs[3].data);
  assert.equal(raw.length, (width + 1) * height);
  const index = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    assert.equal(raw[y * (width + 1)], 0, 'filter "none"');
    index.set(raw.subarray(y * (width + 1) + 1, (y + 1) * (width + 1)), y * width);
  }
  return { width, height, index, palette };
}

test('pngIndexedBytes: the indices and the palette (with its alphas) come back exactly', () => {
  const palette = Array.from({ length: 256 }, (_, k) => (k === 255 ? [1, 2, 3, 0] : [k, 255 - k, (k * 7) & 255]));
  for (const [w, h] of [[1, 1], [3, 2], [224, 224], [300, 250]]) {
    const index = randomPixels(w * h, w * 17 + h);
    const d = decodeIndexed(pngIndexedBytes(w, h, index, palette));
    assert.deepEqual([d.width, d.height], [w, h]);
    assert.deepEqual(d.index, index, `${w} × ${h}`);
    assert.deepEqual(d.palette, palette.map((c) => (c.length > 3 ? c : [...c, 255])));
  }
  const url = pngIndexedDataURL(2, 1, new Uint8Array([0, 1]), [[0, 0, 0], [9, 9, 9, 0]]);
  assert.deepEqual(new Uint8Array(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')),
    pngIndexedBytes(2, 1, new Uint8Array([0, 1]), [[0, 0, 0], [9, 9, 9, 0]]));
});

test('pngIndexedBytes refuses indices that do not match the size, and palettes of 0 or over 256 colours', () => {
  assert.throws(() => pngIndexedBytes(2, 2, new Uint8Array(3), [[0, 0, 0]]), (e) => e instanceof RangeError && /2 × 2 = 4 palette indices, got 3/.test(e.message));
  assert.throws(() => pngIndexedBytes(1, 1, new Uint8Array(1), []), (e) => e instanceof RangeError && /1 to 256 colours, got 0/.test(e.message));
  assert.throws(() => pngIndexedBytes(1, 1, new Uint8Array(1), Array(257).fill([0, 0, 0])), RangeError);
});

test('panelImage (the heads and comparison pictures): masked cells transparent, the largest weight brightest', () => {
  // 3 × 3, causal mask: the cells above the diagonal are masked; the picture must not depend on the
  // theme's masked colour (the frame under it shows that colour), so they are fully transparent.
  const w = new Float32Array([1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5]);
  const url = panelImage(w, 0, 3, 3, (i, j) => j > i, 224);
  const d = decodeIndexed(new Uint8Array(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')));
  assert.deepEqual([d.width, d.height], [3, 3]);
  const alpha = [...d.index].map((k) => d.palette[k][3]);
  assert.deepEqual(alpha, [255, 0, 0, 255, 255, 0, 255, 255, 255]);
  const at = (i, j) => d.palette[d.index[i * 3 + j]];
  // Viridis: the largest weight (1) is the yellow end, 0 the dark purple end.
  assert.ok(at(0, 0)[0] > 200 && at(0, 0)[1] > 200, `weight 1 is yellow: ${at(0, 0)}`);
  assert.ok(at(1, 0)[0] < at(0, 0)[0], 'a smaller weight is darker');
  // Max-pooled: a 400 × 400 matrix becomes 224 × 224 pixels, and one strong weight survives.
  const big = new Float32Array(400 * 400).fill(0.001);
  big[123 * 400 + 321] = 1;
  const b = decodeIndexed(new Uint8Array(Buffer.from(panelImage(big, 0, 400, 400, () => false, 224).split(',')[1], 'base64')));
  assert.deepEqual([b.width, b.height], [224, 224]);
  const top = b.palette.length - 2;   // the brightest colour (the last entry is the transparent one)
  assert.equal([...b.index].filter((k) => k === top).length, 1, 'exactly one pixel holds the strong weight');
});
