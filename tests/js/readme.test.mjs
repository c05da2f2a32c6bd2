// The README's JavaScript example runs against the built package and prints exactly what the README
// says it prints, so the first thing a new user copies stays true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test('README example prints the output shown under it', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it from JavaScript'));
  const code = section.match(/```js\n([\s\S]*?)```/)[1];
  const expected = section.match(/prints[^\n]*\n\n```\n([\s\S]*?)```/)[1];
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-readme-'));
  try {
    const file = join(dir, 'example.mjs');
    const entry = pathToFileURL(join(root, 'dist', 'attnscope.mjs')).href;
    assert.match(code, /from 'attnscope'/);
    const vocab = pathToFileURL(join(root, 'dist', 'vocab-50k.mjs')).href;
    writeFileSync(file, code.replace("from 'attnscope'", `from '${entry}'`).replace("import 'attnscope/vocab-50k'", `import '${vocab}'`));
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
    assert.equal(out, expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
