#!/usr/bin/env node
// Wall time of the largest calls the limits accept, and of refusing calls beyond them, in Node on the
// built package (dist/). The numbers behind docs/limits.md. `npm run build` first.
//   node bench/limits.mjs > bench/results/limits.json
// Each case runs 3 times after one warm-up call; the median is reported (ms).
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { createAttnScope } = await import(pathToFileURL(join(root, 'dist', 'attnscope.mjs')).href);
const scope = await createAttnScope({ preload: true });

const fill = (n, seed) => {
  const a = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) { x = (x * 1664525 + 1013904223) >>> 0; a[i] = x / 2 ** 31 - 1; }
  return a;
};
const words = (n) => Array.from({ length: n }, (_, i) => (i % 3 ? 'cat' : 'the')).join(' ');

function time(fn, runs = 3, warmup = true) {
  let error = null;
  if (warmup) try { fn(); } catch (e) { error = e; }
  const t = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    try { fn(); } catch (e) { error = e; }
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { ms: Number(t[runs >> 1].toFixed(3)), refused: error ? `${error.constructor.name}: ${error.message}` : null };
}

const cases = [];
const add = (name, fn, runs, warmup) => {
  const r = time(fn, runs, warmup);
  cases.push({ name, ...r });
  process.stderr.write(`${name}: ${r.ms} ms${r.refused ? ' (refused)' : ''}\n`);
};

const Q = fill(2048 * 1024, 1), K = fill(2048 * 1024, 2);
for (const variant of ['simd', 'scalar']) {
  add(`scores dot 2048x2048, d=1024 (2^32 multiply-adds, the work limit), ${variant}`,
    () => scope.scores(Q, K, { nq: 2048, nk: 2048, d: 1024, score: 'dot', variant }));
  const h = 2000, d = 8, n = 256;
  const W = fill(h * d, 3), v = fill(h, 4), X = fill(n * d, 5);
  add(`scores additive 256x256, hidden 2000 (just under 2^32 with tanh = 32), ${variant}`,
    () => scope.scores(X, X, { nq: n, nk: n, d, score: 'additive', W1: W, W2: W, v, hidden: h, variant }));
  add(`attend 2048 tokens, 1 head, scaled-dot, ${variant}`,
    () => scope.attend({ query: words(2048), maxTokens: 4096, score: 'scaled-dot', variant }), 1);
  add(`attend 4096 tokens, 1 head, scaled-dot (refused: work), ${variant}`,
    () => scope.attend({ query: words(4096), maxTokens: 4096, score: 'scaled-dot', variant }), 1);
}
// The output-only path (attentionOutput) has its own, larger budget (2^40): it never holds the
// n x n matrix, so its memory is O(n d) and its time the documented figure below.
for (const n of [16384, 65536]) {
  const d = 64, X = fill(n * d, 7);
  add(`attentionOutput n=${n}, d=64, scaled-dot (output only, one run)`,
    () => scope.attentionOutput(X, X, X, { nq: n, nk: n, d, dv: d, score: 'scaled-dot' }), 1, n < 65536);
}
add('attend 4096 tokens, 10 heads, random projection (refused: memory)',
  () => scope.attend({ query: words(4096), maxTokens: 4096, heads: 10, projection: 'random' }));
add('attend 512 words, additive, 100 heads, hidden 4096 (refused)',
  () => scope.attend({ query: words(512), score: 'additive', heads: 100, hidden: 4096 }));

console.log(JSON.stringify({
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0].model, cores: cpus().length,
  loadavg: loadavg().map((x) => Number(x.toFixed(1))), cases,
}, null, 2));
