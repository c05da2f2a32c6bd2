// The tables the docs generate from the benchmarks' result files (bench/tables.mjs): every block is
// made again in memory from bench/results/ and compared with the doc, so a number copied by hand or a
// result re-run without `node bench/tables.mjs` cannot drift silently. No benchmark runs here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BLOCKS, DOCS, ROOT, blockIn } from '../../bench/tables.mjs';

for (const doc of DOCS) {
  test(`every generated table of ${doc} is what bench/results/ gives`, () => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const { name, make } of BLOCKS.filter((b) => b.doc === doc)) {
      const shown = blockIn(text, name);
      assert.notEqual(shown, null, `${doc} lacks the markers <!-- ${name}:START --> / <!-- ${name}:END -->`);
      assert.equal(shown, make(), `${doc}'s ${name} table differs from bench/results/: run node bench/tables.mjs`);
    }
  });
}
