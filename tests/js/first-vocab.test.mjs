// The demo's first vocabulary (dist/web/glove-first.bin, scripts/build-first-vocab.mjs): a valid file
// the loader accepts, the 10,000 most frequent words and every word of the demo's examples, each with
// exactly the vector glove-50k.bin gives it (so the plots change only for rarer words when the 50,000 arrive).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttnScope } from '../../dist/attnscope.mjs';
import { PRESETS } from '../../web/pages/demo/presets.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

test('glove-first.bin: the 10,000 words and the examples\' words, each with its 50,000-word vector', async () => {
  const big = await createAttnScope({ preload: true });
  const first = await big.newScope({ vocabulary: new Uint8Array(readFileSync(join(root, 'dist/web/glove-first.bin'))), preload: true });
  const small = await big.newScope({ vocabulary: 'small', preload: true });
  try {
    assert.ok(first.vocabulary.size > 10000 && first.vocabulary.size < 10100, `size ${first.vocabulary.size}`);
    for (const p of PRESETS) {
      for (const s of [p.q, p.k]) {
        const oov = first.tokenize(s).filter((t) => t.kind === 'word' && t.oov).map((t) => t.text);
        assert.deepEqual(oov, [], `"${s}": not in the first vocabulary`);
      }
    }
    // The examples need words beyond the 10,000 (else the file would be glove-10k.bin).
    const rarer = PRESETS.flatMap((p) => small.tokenize(`${p.q} ${p.k}`)).filter((t) => t.kind === 'word' && t.oov);
    assert.ok(rarer.length > 0);
    const words = ['the', 'king', 'because', 'street', ...rarer.map((t) => t.lookup)];
    for (const w of words) assert.deepEqual(Array.from(first.embed(w).vector), Array.from(big.embed(w).vector), w);
    // A word of neither the 10,000 nor the examples stays out until the 50,000 arrive.
    assert.equal(first.embed('harpoon').oov, true);
    assert.equal(big.embed('harpoon').oov, false);
  } finally {
    first.dispose();
    small.dispose();
  }
});
