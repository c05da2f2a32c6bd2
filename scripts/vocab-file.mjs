// The vocabulary file format (docs/vocab-format.md, ATSVOCAB v1) in JS, for the build: one writer, used
// by scripts/build-vocab.mjs (glove-50k.bin, glove-10k.bin) and scripts/build-first-vocab.mjs (the demo's
// first vocabulary), and the reader that script needs. (The tests' parser, tests/js/reference.mjs, is
// their own, written from the format's description.)
import { crc32 } from 'node:zlib';

const MAGIC = 'ATSVOCAB';
const VERSION = 1;
const HEADER_SIZE = 96;
const QUANT_INT8_SYMMETRIC = 1;
const CRC_OFFSET = 92;

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const v = Float64Array.from(values).sort();
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/**
 * The bytes of a vocabulary file: the first `count` of `words` (in frequency order), their int8 codes
 * `quant.q` (count × dim) and float32 scales `quant.scales`, and `quant.medianNorm` (the median L2 norm
 * of the dequantised vectors). Returns { buf, crc }.
 */
export function encodeVocabulary(words, quant, count, dim) {
  const wordBytes = words.slice(0, count).map((w) => Buffer.from(w, 'utf8'));
  const wordsSize = wordBytes.reduce((s, b) => s + 1 + b.length, 0);
  const wordsOffset = HEADER_SIZE;
  const scalesOffset = (wordsOffset + wordsSize + 3) & ~3;
  const scalesSize = 4 * count;
  const vectorsOffset = scalesOffset + scalesSize;
  const vectorsSize = count * dim;
  const fileSize = vectorsOffset + vectorsSize;

  const buf = Buffer.alloc(fileSize);  // zero-filled: the padding before the scales stays zero
  buf.write(MAGIC, 0, 'latin1');
  const h = new DataView(buf.buffer, buf.byteOffset, HEADER_SIZE);
  h.setUint32(8, VERSION, true);
  h.setUint32(12, HEADER_SIZE, true);
  h.setUint32(16, dim, true);
  h.setUint32(20, count, true);
  h.setUint32(24, QUANT_INT8_SYMMETRIC, true);
  h.setUint32(28, 0, true);
  h.setBigUint64(32, BigInt(wordsOffset), true);
  h.setBigUint64(40, BigInt(wordsSize), true);
  h.setBigUint64(48, BigInt(scalesOffset), true);
  h.setBigUint64(56, BigInt(scalesSize), true);
  h.setBigUint64(64, BigInt(vectorsOffset), true);
  h.setBigUint64(72, BigInt(vectorsSize), true);
  h.setBigUint64(80, BigInt(fileSize), true);
  h.setFloat32(88, quant.medianNorm, true);

  let p = wordsOffset;
  for (const b of wordBytes) {
    buf[p++] = b.length;
    b.copy(buf, p);
    p += b.length;
  }
  const scales = new DataView(buf.buffer, buf.byteOffset + scalesOffset, scalesSize);
  for (let w = 0; w < count; w++) scales.setFloat32(4 * w, quant.scales[w], true);
  Buffer.from(quant.q.buffer, quant.q.byteOffset, vectorsSize).copy(buf, vectorsOffset);

  const crc = crc32(buf.subarray(HEADER_SIZE), crc32(buf.subarray(0, CRC_OFFSET)));
  h.setUint32(CRC_OFFSET, crc, true);
  return { buf, crc };
}

/**
 * A vocabulary file's parts: { dim, count, words, scales (Float32Array), q (Int8Array, count × dim, a
 * view of the file's bytes) }. Checks only the magic and the version: the files read here are the build's own.
 */
export function readVocabulary(buf) {
  if (buf.subarray(0, 8).toString('latin1') !== MAGIC) throw new Error('not an ATSVOCAB file');
  const h = new DataView(buf.buffer, buf.byteOffset, HEADER_SIZE);
  if (h.getUint32(8, true) !== VERSION) throw new Error(`ATSVOCAB version ${h.getUint32(8, true)}, expected ${VERSION}`);
  const dim = h.getUint32(16, true), count = h.getUint32(20, true);
  const wordsOffset = Number(h.getBigUint64(32, true)), scalesOffset = Number(h.getBigUint64(48, true));
  const vectorsOffset = Number(h.getBigUint64(64, true));
  const words = [];
  for (let p = wordsOffset, w = 0; w < count; w++) {
    const n = buf[p];
    words.push(buf.subarray(p + 1, p + 1 + n).toString('utf8'));
    p += 1 + n;
  }
  const scales = new Float32Array(count);
  for (let w = 0; w < count; w++) scales[w] = buf.readFloatLE(scalesOffset + 4 * w);
  return { dim, count, words, scales, q: new Int8Array(buf.buffer, buf.byteOffset + vectorsOffset, count * dim) };
}
