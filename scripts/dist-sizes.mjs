// The package's file sizes, measured on dist/, written into the docs: every size the README and docs/
// quote sits between markers and is rewritten from the build, never typed by hand:
//   <!-- size attnscope.wasm -->419 kB, 160 kB gzipped<!-- /size -->
// A name is a file of dist/, or several joined by '+' (their sum, e.g. the split build's JavaScript).
// gzip is zlib level 9, what a static server or CDN sends with gzip on; kB and MB are 1000 and 10⁶ bytes.
// Run by scripts/build.sh after dist/ is built; by hand:
//   node scripts/dist-sizes.mjs           rewrite the markers in README.md and docs/*.md
//   node scripts/dist-sizes.mjs --check   exit 1 if any marker differs from dist/ (nothing written)
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
  console.log(`dist-sizes: ${count} sizes in the docs, ${stale} ${check ? 'out of date' : 'rewritten'}`);
  if (check && stale) process.exit(1);
}
