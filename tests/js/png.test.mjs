// The figures' PNG encoder (web/figures/png.js): what it writes is a PNG any reader opens, holding
// exactly the pixels it was given (checked with node's own zlib, not with the encoder's code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { pngBytes, pngDataURL, crc32 } from '../../web/figures/png.js';

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
