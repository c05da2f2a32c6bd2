// The TypeScript contract: `tsc --noEmit` (strict) accepts types-example.ts, which uses every call and
// option, against the declarations in dist/; and rejects exactly the marked lines of types-negative.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DIST, ROOT, tsc } from './helpers.mjs';

const HERE = join(ROOT, 'tests', 'js');

test('the declarations are the ones the package ships', () => {
  assert.ok(existsSync(join(DIST, 'attnscope.d.ts')), 'dist/attnscope.d.ts: run npm run build');
  assert.equal(readFileSync(join(DIST, 'attnscope.d.ts'), 'utf8'), readFileSync(join(ROOT, 'bindings', 'attnscope.d.ts'), 'utf8'));
  assert.equal(readFileSync(join(DIST, 'attnscope.single.d.ts'), 'utf8'), readFileSync(join(ROOT, 'bindings', 'attnscope.single.d.ts'), 'utf8'));
});

test('tsc --noEmit accepts the example that uses every call and option', async () => {
  const { code, output } = await tsc(join(HERE, 'tsconfig.json'));
  assert.equal(code, 0, `tsc failed:\n${output}`);
});

test('tsc --noEmit rejects exactly the deliberate errors of types-negative.ts', async () => {
  const file = join(HERE, 'types-negative.ts');
  const marked = readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (/^\s*[^/\s].*\/\/ expect-error/.test(line) ? [i + 1] : []));
  assert.ok(marked.length >= 10);
  const { code, output } = await tsc(join(HERE, 'tsconfig.negative.json'));
  assert.notEqual(code, 0, 'tsc accepted a file full of type errors');
  const reported = [...new Set([...output.matchAll(/types-negative\.ts\((\d+),\d+\): error TS\d+/g)].map((m) => Number(m[1])))];
  assert.deepEqual(reported.sort((a, b) => a - b), marked, `lines with errors vs lines marked expect-error:\n${output}`);
});

test('every exported type, function, option and result field carries a /** */ doc comment (editors show those, not //)', () => {
  for (const file of ['attnscope.d.ts', 'attnscope.single.d.ts']) {
    const lines = readFileSync(join(ROOT, 'bindings', file), 'utf8').split('\n');
    let previous = '', checked = 0;
    const bare = [];
    lines.forEach((line, i) => {
      if (/^\s*(readonly\s+)?[A-Za-z0-9_]+\??\s*[:(]/.test(line) || /^export (type|interface|function)\b/.test(line)) {
        checked++;
        if (!/\*\/\s*$/.test(previous)) bare.push(`${file}:${i + 1}: ${line.trim()}`);
      }
      if (line.trim()) previous = line;
    });
    assert.deepEqual(bare, [], `declarations without a doc comment just above them in ${file}`);
    assert.ok(checked >= (file === 'attnscope.d.ts' ? 100 : 3), `${file}: ${checked} declarations found`);
    assert.doesNotMatch(lines.join('\n'), /^\s*[A-Za-z0-9_]+\??:[^\n]*;\s*\/\/ /m, `${file}: a field documented by a trailing // comment`);
  }
});
