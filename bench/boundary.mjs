#!/usr/bin/env node
// The cost of the C++/JS boundary: attend() on the 12-word sentence pair of bench/attend-node.mjs and
// attention() at nq = nk = 16, d = dv = 64 (all four results, and the weights only), for two builds
// of the package in one node process
// (e.g. dist/ and a copy of an older dist/), measured in alternating batches so that both see the
// same machine load. Each case warms up for >= 1 s per build first. Reported per call: the median
// over batches of the wall time and of the process's CPU time (user + system, process.cpuUsage),
// which is far steadier than the wall time when other jobs share the cores. Prints JSON.
//   node bench/boundary.mjs [--before DIR] [--after DIR] [--batches N] [--calls N]
import { cpus, loadavg } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const dirs = { before: arg('--before', null), after: resolve(arg('--after', join(root, 'dist'))) };
const BATCHES = Number(arg('--batches', 21)), CALLS = Number(arg('--calls', 200));

const QUERY = 'The quick brown fox jumps over the lazy dog near the river';
const KEYS = 'A small cat slept quietly under the old tree by the road';
let seed = 1;
const rand = (n) => Float32Array.from({ length: n }, () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 - 0.5; });
const n = 16, d = 64;
const Q = rand(n * d), K = rand(n * d), V = rand(n * d);
const cases = [
  ['attend(), 12-word pair, default (scaled-dot, 1 head)', (s) => s.attend({ query: QUERY, keys: KEYS })],
  ['attend(), 12-word pair, cosine, 4 heads, random projections', (s) => s.attend({ query: QUERY, keys: KEYS, score: 'cosine', heads: 4, projection: 'random', positional: true })],
  ['attention(), nq = nk = 16, d = dv = 64, scaled-dot', (s) => s.attention(Q, K, V, { nq: n, nk: n, d, dv: d })],
  ["attention(), nq = nk = 16, d = dv = 64, scaled-dot, returns: ['weights']", (s) => s.attention(Q, K, V, { nq: n, nk: n, d, dv: d, returns: ['weights'] })],
  ['scores(), nq = nk = 16, d = 64, scaled-dot', (s) => s.scores(Q, K, { nq: n, nk: n, d })],
];

const builds = [];
for (const [name, dir] of Object.entries(dirs)) {
  if (!dir) continue;
  const { createAttnScope } = await import(pathToFileURL(join(resolve(dir), 'attnscope.mjs')).href);
  // preload: the vocabulary is fetched only when asked for (a build from before that option loaded it anyway).
  const scope = await createAttnScope({ preload: true }).catch((e) => (/options\.preload: unknown option/.test(e.message) ? createAttnScope() : Promise.reject(e)));
  builds.push({ name, dir: resolve(dir), scope });
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const results = [];
for (const [label, fn] of cases) {
  for (const b of builds) {
    const until = performance.now() + 1000;
    while (performance.now() < until) fn(b.scope);
  }
  const wall = Object.fromEntries(builds.map((b) => [b.name, []])), cpu = Object.fromEntries(builds.map((b) => [b.name, []]));
  for (let batch = 0; batch < BATCHES; batch++) {
    for (const b of batch % 2 ? [...builds].reverse() : builds) {
      const t0 = performance.now(), c0 = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) fn(b.scope);
      const c = process.cpuUsage(c0);
      wall[b.name].push((performance.now() - t0) * 1000 / CALLS);
      cpu[b.name].push((c.user + c.system) / CALLS);
    }
  }
  const row = { case: label };
  const r2 = (x) => Math.round(x * 100) / 100;
  for (const b of builds) {
    row[`${b.name}_cpu_median_us`] = r2(median(cpu[b.name]));
    row[`${b.name}_wall_median_us`] = r2(median(wall[b.name]));
  }
  if (builds.length === 2) {
    row.cpu_after_over_before = Math.round((row.after_cpu_median_us / row.before_cpu_median_us) * 1000) / 1000;
    row.wall_after_over_before = Math.round((row.after_wall_median_us / row.before_wall_median_us) * 1000) / 1000;
  }
  results.push(row);
}
console.log(JSON.stringify({
  benchmark: 'C++/JS boundary: per-call wall time in node, medians of batches (alternating builds)',
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  loadavg: loadavg(), batches: BATCHES, calls_per_batch: CALLS, warmup_s: 1,
  builds: Object.fromEntries(builds.map((b) => [b.name, b.dir])), results,
}, null, 2));
