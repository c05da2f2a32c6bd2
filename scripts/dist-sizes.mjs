// The package's file sizes, measured on dist/, written into the docs: every size the README and docs/
// quote sits between markers and is rewritten from the build, never typed by hand:
//   <!-- size attnscope.wasm -->419 kB, 160 kB gzipped<!-- /size -->
// A name is a file of dist/, or several joined by '+' (their sum, e.g. the split build's JavaScript).
// gzip is zlib level 9, what a static server or CDN sends with gzip on; kB and MB are 1000 and 10⁶ bytes.
// And the npm tarball: its size and contents, from `npm pack --dry-run --json`, between
//   <!-- tarball -->  …a table…  <!-- /tarball -->
// (tests/js/package.test.mjs compares the block with the tarball it packs).
// Run by scripts/build.sh after dist/ is built; by hand:
//   node scripts/dist-sizes.mjs           rewrite the markers in README.md and docs/*.md
//   node scripts/dist-sizes.mjs --check   exit 1 if any marker differs from dist/ (nothing written)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');

/** { raw, gzip } in bytes of one file of dist/ (null when it is not built). */
export function fileSize(name, dist = DIST) {
  const path = join(dist, name);
  if (!existsSync(path)) return null;
  const bytes = readFileSync(path);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

/** The sizes of a marker's name: one file, or 'a+b+c' summed. */
export function sizeOf(name, dist = DIST) {
  const parts = name.split('+').map((f) => fileSize(f.trim(), dist));
  if (parts.some((p) => p === null)) return null;
  return parts.reduce((a, p) => ({ raw: a.raw + p.raw, gzip: a.gzip + p.gzip }), { raw: 0, gzip: 0 });
}

/** 419,064 → "419 kB"; 2,198,383 → "2.20 MB". */
export function human(bytes) {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(2)} MB`;
  if (bytes >= 1e4) return `${Math.round(bytes / 1e3)} kB`;
  return `${(bytes / 1e3).toFixed(1)} kB`;
}

export const formatSize = (s) => `${human(s.raw)}, ${human(s.gzip)} gzipped`;

const MARKER = /(<!-- size ([\w.+-]+) -->)([\s\S]*?)(<!-- \/size -->)/g;

/** The files whose markers are kept: README.md and docs/*.md. */
export function documents(root = ROOT) {
  const docs = join(root, 'docs');
  return ['README.md', ...readdirSync(docs).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

/** Rewrites every marker of `text` from dist/; returns { text, markers: [{ name, was, now }] }. */
export function rewrite(text, dist = DIST) {
  const markers = [];
  const out = text.replace(MARKER, (all, open, name, was, close) => {
    const s = sizeOf(name, dist);
    if (!s) throw new Error(`dist-sizes: <!-- size ${name} --> names a file dist/ does not have (build first)`);
    const now = formatSize(s);
    markers.push({ name, was, now });
    return `${open}${now}${close}`;
  });
  return { text: out, markers };
}

// ---- the npm tarball ----------------------------------------------------------------------------------

/** What `npm pack` would publish: { size (packed), unpackedSize, files: [{ path, size }] }. */
export function packInfo(root = ROOT) {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24,
    env: { ...process.env, npm_config_update_notifier: 'false' } });
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  return { size: info.size, unpackedSize: info.unpackedSize, files: info.files.map((f) => ({ path: f.path, size: f.size })) };
}

// Which part of the package a file is: data, wasm, the single-file builds, code, types, docs, licences.
const KINDS = [
  ['the trained model (attnscope/model)', (f) => f === 'dist/use-lite.bin'],
  ['the vocabularies (attnscope/vocab-50k, attnscope/vocab-10k)', (f) => /^dist\/glove-\d+k\.bin$/.test(f)],
  ['the three wasm builds', (f) => f.endsWith('.wasm')],
  ['the classic script and the single-file module (wasm and 10,000 words inlined)', (f) => f === 'dist/attnscope-element.js' || f === 'dist/attnscope.single.mjs'],
  ['the JavaScript modules', (f) => /\.(mjs|cjs|js)$/.test(f)],
  ['the type declarations', (f) => /\.d\.c?ts$/.test(f)],
  ['the licences', (f) => /(^|\/)LICENSE$|\.LICENSE$/.test(f)],
  ['the documentation (README, docs/*.md and their images)', (f) => /\.(md|png)$/.test(f)],
  ['package.json', (f) => f === 'package.json'],
];

/** The markdown table of the tarball: its packed and unpacked size, and its files by kind. */
export function tarballTable(info) {
  // Each file in the first kind that takes it.
  const groups = [...KINDS.map(([label]) => ({ label, files: [] })), { label: 'other', files: [] }];
  for (const f of info.files) {
    const k = KINDS.findIndex(([, test]) => test(f.path));
    groups[k === -1 ? KINDS.length : k].files.push(f);
  }
  const names = (files) => (files.length <= 4 ? files.map((f) => `\`${f.path.replace(/^dist\//, '')}\``).join(', ')
    : `${files.length} files`);
  const rows = groups.filter((g) => g.files.length).map((g) => {
    const bytes = g.files.reduce((n, f) => n + f.size, 0);
    const share = 100 * bytes / info.unpackedSize;
    return `| ${g.label} | ${names(g.files)} | ${human(bytes)} | ${share < 0.1 ? '< 0.1' : share.toFixed(1)}% |`;
  });
  return [
    `\`npm install attnscope\` downloads ${human(info.size)} (the tarball) and unpacks ${human(info.unpackedSize)} in ${info.files.length} files:`,
    '',
    '| part | files | unpacked | share |',
    '|---|---|--:|--:|',
    ...rows,
  ].join('\n');
}

const TARBALL = /(<!-- tarball -->\n)([\s\S]*?)(\n<!-- \/tarball -->)/;

/** `text` with its tarball block rewritten from `info`; null when it has none. */
export function rewriteTarball(text, info) {
  if (!TARBALL.test(text)) return null;
  return text.replace(TARBALL, (all, open, was, close) => `${open}${tarballTable(info)}${close}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let stale = 0, count = 0;
  for (const doc of documents()) {
    const path = join(ROOT, doc);
    const text = readFileSync(path, 'utf8');
    const r = rewrite(text);
    count += r.markers.length;
    for (const m of r.markers.filter((x) => x.was !== x.now)) {
      stale++;
      console.log(`${doc}: ${m.name}: "${m.was}" → "${m.now}"`);
    }
    if (!check && r.text !== text) writeFileSync(path, r.text);
  }
  // The tarball holds the docs that describe it: rewritten until the table describes the tarball it is in.
  const withTable = documents().filter((d) => TARBALL.test(readFileSync(join(ROOT, d), 'utf8')));
  for (let round = 0; withTable.length && round < 4; round++) {
    const info = packInfo();
    let changed = 0;
    for (const doc of withTable) {
      const path = join(ROOT, doc);
      const text = readFileSync(path, 'utf8');
      const now = rewriteTarball(text, info);
      if (now === text) continue;
      changed++;
      if (check) { console.log(`${doc}: the tarball's table is out of date`); stale++; } else writeFileSync(path, now);
    }
    if (!changed || check) break;
  }
  console.log(`dist-sizes: ${count} sizes and ${withTable.length} tarball table(s) in the docs, ${stale} ${check ? 'out of date' : 'rewritten'}`);
  if (check && stale) process.exit(1);
}
