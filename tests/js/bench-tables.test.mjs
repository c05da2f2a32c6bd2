// The benchmark tables docs/benchmarks.md generates from one current result file each
// (bench/tables.mjs): a block that differs from what its result file gives fails here, so a number
// copied by hand or a result re-run without `node bench/tables.mjs` cannot drift silently.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BLOCKS, DOC, ROOT, blockIn } from '../../bench/tables.mjs';

test('every generated block of docs/benchmarks.md is what its result file gives', () => {
  const text = readFileSync(join(ROOT, DOC), 'utf8');
  for (const [name, make] of Object.entries(BLOCKS)) {
    const shown = blockIn(text, name);
    assert.notEqual(shown, null, `${DOC} lacks the markers <!-- ${name}:START --> / <!-- ${name}:END -->`);
    assert.equal(shown, make(), `${DOC}'s ${name} block differs from bench/results: run node bench/tables.mjs`);
  }
});
