#!/usr/bin/env node
// Two builds of the package in one node process (e.g. dist/ and a copy of the previous dist/), the
// long-sequence calls compared: attentionOutput() at n ∈ {512, 2048} × d ∈ {64, 128} for scaled-dot,
// and at n = 512, d = 64 for every distance score (and idw at temperature 0.5), attention() (weights
// and output) and scores() at n = 512, d = 64. Builds alternate batch by batch (the order flipped
// every batch) after a warm-up of >= 1 s per build and case, so both see the same machine; CPU-time
// medians (process.cpuUsage) and after/before ratios. The two builds' outputs are compared too
// (max |diff|). Prints JSON.
//   node bench/kernel-ab.mjs --before DIR [--after DIR] [--batches N] [--only REGEX]
// With --relaxed, one build's SIMD module (before) against its relaxed-SIMD module (after), which
// node 20 runs only with the flag:
//   node --experimental-wasm-relaxed-simd bench/kernel-ab.mjs --relaxed [--after DIR]
import { cpus, loadavg } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const BATCHES = Number(arg('--batches', 9));
const only = arg('--only', null);
const relaxed = process.argv.includes('--relaxed');
const dirs = { before: relaxed ? arg('--after', join(root, 'dist')) : arg('--before', null), after: arg('--after', join(root, 'dist')) };
if (!dirs.before) throw new Error('--before DIR: the build to compare against (a copy of an earlier dist/), or --relaxed');
// What each side loads: a build's default module, or (--relaxed) its SIMD and relaxed-SIMD modules.
const loadOptions = { before: relaxed ? { simd: true } : {}, after: relaxed ? { simd: 'relaxed' } : {} };

let seed = 12345;
const rand = (n) => Float32Array.from({ length: n }, () => { seed = (seed * 16807) % 2147483647; return (seed / 2147483647) * 2 - 1; });
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
const maxDiff = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };

const cases = [];
for (const [n, d] of [[512, 64], [2048, 64], [512, 128], [2048, 128]]) {
  cases.push({ name: `attentionOutput scaled-dot n=${n} d=${d}`, n, d, run: (s, x) => s.attentionOutput(x.Q, x.K, x.V, x.opts) });
}
for (const score of ['idw', 'neg-manhattan', 'neg-euclidean']) {
  cases.push({ name: `attentionOutput ${score} n=512 d=64`, n: 512, d: 64, run: (s, x) => s.attentionOutput(x.Q, x.K, x.V, { ...x.opts, score }) });
}
// idw's fused path at a temperature other than 1.
cases.push({ name: 'attentionOutput idw tau=0.5 n=512 d=64', n: 512, d: 64, run: (s, x) => s.attentionOutput(x.Q, x.K, x.V, { ...x.opts, score: 'idw', temperature: 0.5 }) });
cases.push({ name: 'attention weights+output n=512 d=64', n: 512, d: 64, run: (s, x) => s.attention(x.Q, x.K, x.V, x.opts).output });
for (const score of ['scaled-dot', 'idw', 'neg-manhattan', 'neg-euclidean']) {
  cases.push({ name: `scores ${score} n=512 d=64`, n: 512, d: 64, run: (s, x) => s.scores(x.Q, x.K, { nq: x.n, nk: x.n, d: x.d, score }) });
}

const builds = [];
for (const [name, dir] of Object.entries(dirs)) {
  const { createAttnScope } = await import(pathToFileURL(join(resolve(dir), 'attnscope.mjs')).href);
  const scope = await createAttnScope({ preload: true, ...loadOptions[name] });
  builds.push({ name, dir: resolve(dir), scope, build: scope.variants.build });
}

const results = [];
const inputs = new Map();
for (const c of cases) {
  if (only && !new RegExp(only).test(c.name)) continue;
  const key = `${c.n}x${c.d}`;
  if (!inputs.has(key)) {
    const { n, d } = c;
    inputs.set(key, { n, d, Q: rand(n * d), K: rand(n * d), V: rand(n * d), opts: { nq: n, nk: n, d, dv: d } });
  }
  const x = inputs.get(key);
  for (const b of builds) { const t0 = cpuMs(); let k = 0; while (cpuMs() - t0 < 1000 || k < 3) { c.run(b.scope, x); k++; } b.per = (cpuMs() - t0) / k; }
  const calls = Math.max(1, Math.ceil(40 / builds[0].per));
  const times = Object.fromEntries(builds.map((b) => [b.name, []]));
  for (let batch = 0; batch < BATCHES; batch++) {
    for (const b of batch % 2 ? [...builds].reverse() : builds) {
      const t0 = cpuMs();
      for (let i = 0; i < calls; i++) c.run(b.scope, x);
      times[b.name].push((cpuMs() - t0) / calls);
    }
  }
  const out = builds.map((b) => c.run(b.scope, x));
  const row = { case: c.name, calls_per_batch: calls };
  for (const b of builds) row[`${b.name}_ms`] = Math.round(median(times[b.name]) * 1000) / 1000;
  row.after_over_before = Math.round((row.after_ms / row.before_ms) * 1000) / 1000;
  row.max_abs_diff = maxDiff(out[0], out[1]);
  console.error(`${c.name.padEnd(42)} before ${String(row.before_ms).padStart(8)} ms  after ${String(row.after_ms).padStart(8)} ms  ×${row.after_over_before}  diff ${row.max_abs_diff.toExponential(1)}`);
  results.push(row);
}
console.log(JSON.stringify({
  benchmark: 'two builds, one process, interleaved batches: CPU-time medians and after/before ratios',
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  loadavg: loadavg(), batches: BATCHES, builds: Object.fromEntries(builds.map((b) => [b.name, { dir: b.dir, wasm: b.build }])), results,
}, null, 2));
