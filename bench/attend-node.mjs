#!/usr/bin/env node
// Median wall time of one scope.attend() call in Node for a pair of 12-word sentences (cross-attention),
// measured on the built package in dist/. Prints JSON; `npm run build` first.
//   node bench/attend-node.mjs [--iterations N] > bench/results/attend-node.json
// Each call is timed on its own (performance.now() around attend(), so the time includes the JS layer:
// validation, copying the results out of the wasm heap); after a warm-up, the median and the 10th/90th
// percentiles are reported, with attend()'s own timeMs (the wasm part) for comparison.
import { cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = process.argv.indexOf('--iterations');
const ITERATIONS = arg > 0 ? Number(process.argv[arg + 1]) : 2000;
const WARMUP = 200;

const { createAttnScope } = await import(pathToFileURL(join(root, 'dist', 'attnscope.mjs')).href);
const QUERY = 'The quick brown fox jumps over the lazy dog near the river';
const KEYS = 'A small cat slept quietly under the old tree by the road';

const quantile = (sorted, q) => {
  const pos = (sorted.length - 1) * q, lo = Math.floor(pos), hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
};

function measure(scope, name, options) {
  const o = { query: QUERY, keys: KEYS, ...options };
  for (let i = 0; i < WARMUP; i++) scope.attend(o);
  const wall = new Float64Array(ITERATIONS), inner = new Float64Array(ITERATIONS);
  let r;
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = performance.now();
    r = scope.attend(o);
    wall[i] = performance.now() - t0;
    inner[i] = r.timeMs;
  }
  wall.sort(); inner.sort();
  const round = (x) => Math.round(x * 10000) / 10000;
  return {
    name, options, nq: r.nq, nk: r.nk, heads: r.heads, variant: r.variant, iterations: ITERATIONS,
    median_ms: round(quantile(wall, 0.5)), p10_ms: round(quantile(wall, 0.1)), p90_ms: round(quantile(wall, 0.9)),
    timeMs_median: round(quantile(inner, 0.5)),
  };
}

const scope = await createAttnScope({ preload: true });
const tokens = [scope.tokenize(QUERY).length, scope.tokenize(KEYS).length];
const results = [
  measure(scope, 'default (scaled-dot, 1 head, identity)', {}),
  measure(scope, 'default, scalar kernels', { variant: 'scalar' }),
  measure(scope, 'cosine, 4 heads, random projections, positions', { score: 'cosine', heads: 4, projection: 'random', positional: true }),
  measure(scope, 'additive, 1 head (seeded W1, W2, v)', { score: 'additive' }),
];
console.log(JSON.stringify({
  benchmark: 'attend() wall time per call in Node, 12-word sentence pair',
  date: new Date().toISOString(),
  node: process.version, v8: process.versions.v8, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  build: 'dist/attnscope.mjs + attnscope.wasm (' + scope.variants.isa + ')',
  vocabulary: scope.vocabulary,
  query: QUERY, keys: KEYS, tokens,
  results,
}, null, 2));
