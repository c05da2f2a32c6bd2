// The demo's first vocabulary (dist/web/glove-first.bin): the 10,000 most frequent words of
// glove-10k.bin and, after them, every word of the demo's example sentences that only glove-50k.bin
// holds, each word's int8 codes and scale copied from glove-50k.bin — so every word has exactly the
// vector the 50,000-word file gives it, and the examples draw right before the 50,000 words arrive.
// The demo draws its first plots from it and loads glove-50k.bin behind them (web/pages/demo/demo-worker.js).
// Format: docs/vocab-format.md (frequency order is kept: the added words rank after the 10,000), written
// by scripts/vocab-file.mjs as build-vocab writes the others. Used by scripts/build-web.mjs, after the
// wasm build (the module's own tokenizer finds the words).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encodeVocabulary, median, readVocabulary } from './vocab-file.mjs';

/**
 * Writes `out` from dist/glove-50k.bin: its first `first` words and the words of `sentences` (the
 * module's tokenizer's lookups) that rank below them. Returns { words, added, bytes }.
 */
export async function buildFirstVocabulary({ dist, out, sentences, first = 10000 }) {
  const big = readVocabulary(readFileSync(join(dist, 'glove-50k.bin')));
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
  const added = [...extra].sort((a, b) => a - b);
  const rows = [...Array.from({ length: first }, (_, i) => i), ...added];
  const dim = big.dim;
  const scales = Float32Array.from(rows, (r) => big.scales[r]);
  const q = new Int8Array(rows.length * dim);
  // The median norm of the file's own dequantised vectors, float32(q·scale), as build-vocab computes it.
  const norms = rows.map((r, i) => {
    q.set(big.q.subarray(r * dim, (r + 1) * dim), i * dim);
    let nn = 0;
    for (let k = 0; k < dim; k++) { const x = Math.fround(q[i * dim + k] * scales[i]); nn += x * x; }
    return Math.sqrt(nn);
  });
  const { buf } = encodeVocabulary(rows.map((r) => big.words[r]), { scales, q, medianNorm: Math.fround(median(norms)) }, rows.length, dim);
  writeFileSync(out, buf);
  return { words: rows.length, added: added.map((r) => big.words[r]), bytes: buf.length };
}
