// A PNG file from RGBA pixels, in plain JS: no canvas, no compression. The figures' matrix images
// (small multiples, the heatmap's cells from 57 tokens, the head summary) are rebuilt on every change
// of the input; canvas.toDataURL spent most of its time compressing them (about 1.7 ms for a
// 64 × 64 image, 19 images a change with 10 heads), where storing the bytes as they are costs a
// CRC and a checksum over them. The file is larger (4 bytes a pixel, 16 KB for 64 × 64) and any PNG
// reader opens it: it is a standard zlib stream made of "stored" blocks. No DOM: works in a worker
// and in node.

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const STORED_MAX = 65535;   // bytes of one stored deflate block

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (the PNG/zlib polynomial) of bytes[start, end). */
export function crc32(bytes, start = 0, end = bytes.length) {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Adler-32 (zlib's checksum) of bytes. */
function adler32(bytes) {
  let a = 1, b = 0;
  for (let i = 0; i < bytes.length;) {
    const end = Math.min(bytes.length, i + 5552);   // the most bytes before a and b can overflow 2^32
    for (; i < end; i++) { a += bytes[i]; b += a; }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * The PNG file (Uint8Array) of a width × height image; rgba: width·height·4 bytes, row by row, in the
 * order of ImageData (r, g, b, a).
 */
export function pngBytes(width, height, rgba) {
  if (!(width >= 1 && height >= 1) || rgba.length !== width * height * 4) {
    throw new RangeError(`pngBytes: expected ${width} × ${height} × 4 = ${width * height * 4} bytes of RGBA, got ${rgba.length}`);
  }
  return png(width, height, rgba, 4, null);
}

/**
 * The PNG file (Uint8Array) of a width × height palette image: index, one byte a pixel, row by row,
 * into palette (up to 256 colours, each [r, g, b, a]). A quarter of the bytes of pngBytes for the
 * same picture, so a quarter of the checksums and base64 (the matrix pictures use 256 colours).
 */
export function pngIndexedBytes(width, height, index, palette) {
  if (!(width >= 1 && height >= 1) || index.length !== width * height) {
    throw new RangeError(`pngIndexedBytes: expected ${width} × ${height} = ${width * height} palette indices, got ${index.length}`);
  }
  if (!(palette.length >= 1 && palette.length <= 256)) {
    throw new RangeError(`pngIndexedBytes: a palette holds 1 to 256 colours, got ${palette.length}`);
  }
  return png(width, height, index, 1, palette);
}

function png(width, height, pixels, bpp, palette) {
  // The image data: each row behind a filter byte 0 ("none").
  const row = width * bpp;
  const raw = new Uint8Array((row + 1) * height);
  for (let y = 0; y < height; y++) raw.set(pixels.subarray(y * row, (y + 1) * row), y * (row + 1) + 1);
  const blocks = Math.max(1, Math.ceil(raw.length / STORED_MAX));
  const zlen = 2 + raw.length + 5 * blocks + 4;
  const extra = palette ? (12 + 3 * palette.length) + (12 + palette.length) : 0;   // PLTE and tRNS
  const out = new Uint8Array(8 + (12 + 13) + extra + (12 + zlen) + 12);
  const dv = new DataView(out.buffer);
  out.set(SIGNATURE, 0);
  let p = 8;
  const chunk = (type, len, write) => {
    dv.setUint32(p, len);
    for (let k = 0; k < 4; k++) out[p + 4 + k] = type.charCodeAt(k);
    write(p + 8);
    dv.setUint32(p + 8 + len, crc32(out, p + 4, p + 8 + len));
    p += 12 + len;
  };
  chunk('IHDR', 13, (o) => {
    dv.setUint32(o, width);
    dv.setUint32(o + 4, height);
    // 8 bits, RGBA (6) or palette (3), deflate, no filter method, no interlace
    out.set([8, palette ? 3 : 6, 0, 0, 0], o + 8);
  });
  if (palette) {
    chunk('PLTE', 3 * palette.length, (o) => {
      for (let k = 0; k < palette.length; k++) out.set(palette[k].slice(0, 3), o + 3 * k);
    });
    chunk('tRNS', palette.length, (o) => {
      for (let k = 0; k < palette.length; k++) out[o + k] = palette[k].length > 3 ? palette[k][3] : 255;
    });
  }
  chunk('IDAT', zlen, (o) => {
    out[o] = 0x78;   // zlib: deflate, 32 KB window
    out[o + 1] = 0x01;   // no preset dictionary, fastest; (0x78 << 8 | 0x01) % 31 == 0
    let q = o + 2;
    for (let b = 0; b < blocks; b++) {
      const from = b * STORED_MAX, n = Math.min(STORED_MAX, raw.length - from);
      out[q] = b === blocks - 1 ? 1 : 0;   // BFINAL, BTYPE 00 (stored)
      out[q + 1] = n & 255; out[q + 2] = n >> 8;
      out[q + 3] = ~n & 255; out[q + 4] = (~n >> 8) & 255;
      out.set(raw.subarray(from, from + n), q + 5);
      q += 5 + n;
    }
    dv.setUint32(q, adler32(raw));
  });
  chunk('IEND', 0, () => {});
  return out;
}

/** base64 of bytes (btoa exists in pages, workers and node). */
export function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** A data: URL of the PNG of width × height RGBA pixels. */
export function pngDataURL(width, height, rgba) {
  return `data:image/png;base64,${base64(pngBytes(width, height, rgba))}`;
}

/** A data: URL of the PNG of width × height palette indices into palette ([r, g, b, a?] each). */
export function pngIndexedDataURL(width, height, index, palette) {
  return `data:image/png;base64,${base64(pngIndexedBytes(width, height, index, palette))}`;
}
