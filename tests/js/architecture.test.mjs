// docs/architecture.md is the map a newcomer reads first: every folder of the repository that holds
// tracked files is named there (as `folder/`, or in backticks), so a folder added without a word in
// the map fails here. A page's folder counts as named by the pattern `web/pages/<room>/` when it is a
// room of scripts/pages.mjs; data the tests and benchmarks write (the fuzzers' corpus, benchmark
// results) is named by its parent folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { ROOT } from './helpers.mjs';
import { PAGES, PAGES_DIR } from '../../scripts/pages.mjs';

const DATA = ['tests/fuzz/corpus', 'bench/results'];

test('docs/architecture.md names every folder of tracked files', () => {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const rooms = new Set(PAGES.map((p) => `${PAGES_DIR}/${p.room}`));
  const folders = new Set();
  for (const f of files) {
    let dir = dirname(f);
    const data = DATA.find((d) => dir === d || dir.startsWith(`${d}/`));
    if (data) dir = dirname(data);
    if (dir !== '.') folders.add(dir);
  }
  assert.ok(folders.size > 10, `only ${folders.size} folders: is this a checkout?`);
  const named = (dir) => doc.includes(`${dir}/`) || doc.includes(`\`${dir}\``) ||
    (rooms.has(dir) && doc.includes(`${PAGES_DIR}/<room>/`));
  const unnamed = [...folders].filter((d) => !named(d)).sort();
  assert.deepEqual(unnamed, [], `docs/architecture.md does not name these folders: ${unnamed.join(', ')}`);
});
