#!/usr/bin/env node
// Sizes of the built package files in dist/: raw and gzip (zlib level 9, what a static server or CDN
// would send with gzip on). Prints JSON; `npm run build` first.
//   node bench/dist-sizes.mjs > bench/results/dist-sizes.json
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const files = readdirSync(dist).filter((f) => /\.(mjs|js|cjs|wasm|bin|d\.ts)$/.test(f)).sort();
const sizes = Object.fromEntries(files.map((f) => {
  const bytes = readFileSync(join(dist, f));
  return [f, { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }];
}));
// The JS layer under the entry: scope.mjs and the files it is split into (scope-*.mjs).
const scope = files.filter((f) => /^scope(-[a-z]+)?\.mjs$/.test(f));
const sum = (names) => names.reduce((a, f) => ({ raw: a.raw + (sizes[f]?.raw ?? 0), gzip: a.gzip + (sizes[f]?.gzip ?? 0) }), { raw: 0, gzip: 0 });
console.log(JSON.stringify({
  date: new Date().toISOString(),
  files: sizes,
  builds: {
    'split SIMD: JS (attnscope.mjs + scope*.mjs + attnscope-wasm.mjs)': sum(['attnscope.mjs', ...scope, 'attnscope-wasm.mjs']),
    'split SIMD: wasm (attnscope.wasm)': sum(['attnscope.wasm']),
    'split scalar: JS (the same: one glue for the three wasm builds)': sum(['attnscope.mjs', ...scope, 'attnscope-wasm.mjs']),
    'split scalar: wasm (attnscope-scalar.wasm)': sum(['attnscope-scalar.wasm']),
    'single file (wasm + 10k vocabulary inlined)': sum(['attnscope.single.mjs']),
    'vocabulary 50k (attnscope/vocab-50k, opt-in)': sum(['glove-50k.bin']),
  },
}, null, 2));
