// The sizes the README and docs/ quote are the build's: each sits between <!-- size name --> markers
// that scripts/dist-sizes.mjs (run by scripts/build.sh) rewrites from dist/. Here: every marker agrees
// with the files in dist/, the figures a reader looks for are marked (not typed by hand), and the
// formatting is what the script promises.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, documents, formatSize, human, rewrite, sizeOf } from '../../scripts/dist-sizes.mjs';

const texts = Object.fromEntries(documents().map((d) => [d, readFileSync(join(ROOT, d), 'utf8')]));

test('every size marker in README.md and docs/*.md agrees with dist/ (node scripts/dist-sizes.mjs rewrites them)', () => {
  let n = 0;
  for (const [doc, text] of Object.entries(texts)) {
    for (const m of rewrite(text).markers) {
      n++;
      assert.equal(m.was, m.now, `${doc}: the size of ${m.name}`);
    }
  }
  assert.ok(n >= 8, `${n} markers`);
});

test('the wasm, the single file and the element script are quoted through markers', () => {
  const marked = (doc, name) => texts[doc].includes(`<!-- size ${name} -->`);
  assert.ok(marked('README.md', 'attnscope.wasm'), 'README: the wasm');
  assert.ok(marked('docs/api.md', 'attnscope.wasm') && marked('docs/api.md', 'attnscope-scalar.wasm'), 'api: both wasm builds');
  assert.ok(marked('docs/api.md', 'attnscope.single.mjs'), 'api: the single file');
  assert.ok(marked('docs/element.md', 'attnscope-element.js') && marked('docs/element.md', 'attnscope-element.mjs'), 'element: the script and the module');
  // No size typed by hand next to a package file's name outside the markers (e.g. "the wasm is 170 KB").
  for (const [doc, text] of Object.entries(texts)) {
    // (The tarball's table is written from npm pack too, and checked by tests/js/package.test.mjs.)
    const outside = text.replace(/<!-- size [\w.+-]+ -->[\s\S]*?<!-- \/size -->/g, '').replace(/<!-- tarball -->[\s\S]*?<!-- \/tarball -->/g, '');
    const hand = outside.match(/(wasm|single|element|script)[^.\n]{0,40}\b\d+(\.\d+)? ?[kKM]B\b/g) || [];
    assert.deepEqual(hand, [], `${doc}: a size outside the markers`);
  }
});

test('formatting: kB and MB are 1000 and 10^6 bytes; gzip is measured', () => {
  assert.equal(human(419064), '419 kB');
  assert.equal(human(2198383), '2.20 MB');
  assert.equal(human(3172), '3.2 kB');
  const s = sizeOf('attnscope.wasm');
  assert.ok(s.gzip > 0 && s.gzip < s.raw);
  assert.equal(formatSize({ raw: 1119148, gzip: 1001865 }), '1.12 MB, 1.00 MB gzipped');
  const sum = sizeOf('attnscope.mjs+scope.mjs');
  assert.equal(sum.raw, sizeOf('attnscope.mjs').raw + sizeOf('scope.mjs').raw);
});
