// The benchmarks' result files and the tables the docs generate from them (bench/tables.mjs): every
// block is made again in memory from bench/results/ and compared with the doc, so a number copied by
// hand or a result re-run without `node bench/tables.mjs` cannot drift silently; bench/results/ holds
// one current file per benchmark, each shown by a table; and no doc or script names a result file that
// is not there. No benchmark runs here, and no duration is asserted.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BLOCKS, DOCS, RESULTS, ROOT, blockIn, read } from '../../bench/tables.mjs';

const REGENERATE = 'run node bench/tables.mjs (npm run bench runs it after the benchmarks)';

for (const doc of DOCS) {
  test(`every generated table of ${doc} is what bench/results/ gives`, () => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const { name, make } of BLOCKS.filter((b) => b.doc === doc)) {
      const shown = blockIn(text, name);
      assert.notEqual(shown, null, `${doc} lacks the markers <!-- ${name}:START --> / <!-- ${name}:END -->`);
      assert.equal(shown, make(), `${doc}'s ${name} table differs from bench/results/: ${REGENERATE}`);
    }
  });
}

/** README.md and docs/*.md: where generated blocks may be. */
const markdown = () => ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

test('every block marker in the docs belongs to a table bench/tables.mjs generates (none left over)', () => {
  const stray = [];
  for (const doc of markdown()) {
    for (const [, name] of readFileSync(join(ROOT, doc), 'utf8').matchAll(/<!-- ([A-Z0-9-]+):START -->/g)) {
      if (!BLOCKS.some((b) => b.doc === doc && b.name === name)) stray.push(`${doc}: ${name}`);
    }
  }
  assert.deepEqual(stray, [], 'markers no generator fills: remove them, or add the block to BLOCKS in bench/tables.mjs');
});

test('bench/results/ holds one current file per benchmark, and a table shows each', () => {
  const files = readdirSync(join(ROOT, 'bench/results')).sort();
  assert.deepEqual(files, Object.keys(RESULTS).sort(),
    'bench/results/ should hold exactly the files RESULTS in bench/tables.mjs lists: a run of an experiment (an A/B, a repeat) goes '
    + 'into "What we tried" in docs/benchmarks.md as a line, not into bench/results/; a new benchmark adds its file to RESULTS and a table to BLOCKS');
  for (const { make } of BLOCKS) make();
  assert.deepEqual(Object.keys(RESULTS).filter((f) => !read.has(f)), [], 'result files no generated table reads');
});

test('every bench/results/ file named in the docs, the README, bench/ and scripts/ exists', () => {
  const sources = [
    ...markdown(),
    ...readdirSync(join(ROOT, 'bench')).filter((f) => /\.(mjs|cpp|txt)$/.test(f)).map((f) => `bench/${f}`),
    ...readdirSync(join(ROOT, 'scripts')).filter((f) => /\.(mjs|sh)$/.test(f)).map((f) => `scripts/${f}`),
  ];
  const present = new Set(readdirSync(join(ROOT, 'bench/results')));
  const dangling = [];
  for (const file of sources) {
    for (const [path, name] of readFileSync(join(ROOT, file), 'utf8').matchAll(/bench\/results\/([\w.-]+\.[a-z]+)/g)) {
      if (!present.has(name)) dangling.push(`${file} names ${path}`);
    }
  }
  assert.deepEqual(dangling, [], 'references to result files that are not in bench/results/');
});
