// The demo's first vocabulary (dist/web/glove-first.bin): the 10,000 most frequent words of
// glove-10k.bin and, after them, every word of the demo's example sentences that only glove-50k.bin
// holds, each word's int8 codes and scale copied from glove-50k.bin — so every word has exactly the
// vector the 50,000-word file gives it, and the examples draw right before the 50,000 words arrive.
// The demo draws its first plots from it and loads glove-50k.bin behind them (web/pages/demo/demo-worker.js).
// Format: docs/vocab-format.md (frequency order is kept: the added words rank after the 10,000).
// Used by scripts/build-web.mjs, after the wasm build (the module's own tokenizer finds the words).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';

const HEADER_SIZE = 96;
const CRC_OFFSET = 92;

/** The parts of a vocabulary file: { dim, count, words, scales (DataView), vectors (Uint8Array view) }. */
function read(buf) {
  const h = new DataView(buf.buffer, buf.byteOffset, HEADER_SIZE);
  const dim = h.getUint32(16, true), count = h.getUint32(20, true);
  const wordsOffset = Number(h.getBigUint64(32, true)), scalesOffset = Number(h.getBigUint64(48, true));
  const vectorsOffset = Number(h.getBigUint64(64, true));
  const words = [];
  for (let p = wordsOffset, w = 0; w < count; w++) {
    const n = buf[p];
    words.push(buf.subarray(p + 1, p + 1 + n).toString('utf8'));
    p += 1 + n;
  }
  return { header: buf.subarray(0, HEADER_SIZE), dim, count, words, scales: new DataView(buf.buffer, buf.byteOffset + scalesOffset, 4 * count), vectors: buf.subarray(vectorsOffset, vectorsOffset + count * dim) };
}

/** A vocabulary file of the rows `rows` (indices, in order) of the parsed file `v`, as build-vocab lays it out. */
function write(v, rows) {
  const count = rows.length, dim = v.dim;
  const wordBytes = rows.map((r) => Buffer.from(v.words[r], 'utf8'));
  const wordsSize = wordBytes.reduce((s, b) => s + 1 + b.length, 0);
  const scalesOffset = (HEADER_SIZE + wordsSize + 3) & ~3;
  const vectorsOffset = scalesOffset + 4 * count;
  const fileSize = vectorsOffset + count * dim;
  const buf = Buffer.alloc(fileSize);
  v.header.copy(buf, 0);
  const h = new DataView(buf.buffer, buf.byteOffset, HEADER_SIZE);
  h.setUint32(20, count, true);
  h.setBigUint64(32, BigInt(HEADER_SIZE), true);
  h.setBigUint64(40, BigInt(wordsSize), true);
  h.setBigUint64(48, BigInt(scalesOffset), true);
  h.setBigUint64(56, BigInt(4 * count), true);
  h.setBigUint64(64, BigInt(vectorsOffset), true);
  h.setBigUint64(72, BigInt(count * dim), true);
  h.setBigUint64(80, BigInt(fileSize), true);
  let p = HEADER_SIZE;
  for (const b of wordBytes) { buf[p++] = b.length; b.copy(buf, p); p += b.length; }
  const norms = [];
  rows.forEach((r, i) => {
    const scale = v.scales.getFloat32(4 * r, true);
    buf.writeFloatLE(scale, scalesOffset + 4 * i);
    const row = v.vectors.subarray(r * dim, (r + 1) * dim);
    row.copy(buf, vectorsOffset + i * dim);
    let nn = 0;
    for (let k = 0; k < dim; k++) { const x = Math.fround(((row[k] << 24) >> 24) * scale); nn += x * x; }
    norms.push(Math.sqrt(nn));
  });
  // The median norm of the file's own dequantised vectors (docs/vocab-format.md), as build-vocab computes it.
  norms.sort((a, b) => a - b);
  const mid = norms.length >> 1;
  h.setFloat32(88, Math.fround(norms.length % 2 ? norms[mid] : (norms[mid - 1] + norms[mid]) / 2), true);
  h.setUint32(CRC_OFFSET, crc32(buf.subarray(HEADER_SIZE), crc32(buf.subarray(0, CRC_OFFSET))), true);
  return buf;
}

/**
 * Writes `out` from dist/glove-50k.bin: its first `first` words and the words of `sentences` (the
 * module's tokenizer's lookups) that rank below them. Returns { words, added, bytes }.
 */
export async function buildFirstVocabulary({ dist, out, sentences, first = 10000 }) {
  const big = read(readFileSync(join(dist, 'glove-50k.bin')));
  const { createAttnScope } = await import(pathToFileURL(join(dist, 'attnscope.mjs')).href);
  const scope = await createAttnScope({ preload: true });
  const rank = new Map(big.words.map((w, i) => [w, i]));
  const extra = new Set();
  try {
    for (const s of sentences) {
      for (const t of scope.tokenize(s)) {
        const r = t.oov ? undefined : rank.get(t.lookup);
        if (r !== undefined && r >= first) extra.add(r);
      }
    }
  } finally {
    scope.dispose();
  }
  const rows = [...Array.from({ length: first }, (_, i) => i), ...[...extra].sort((a, b) => a - b)];
  const buf = write(big, rows);
  writeFileSync(out, buf);
  return { words: rows.length, added: [...extra].sort((a, b) => a - b).map((r) => big.words[r]), bytes: buf.length };
}
