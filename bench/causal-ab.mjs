#!/usr/bin/env node
// Two builds of the package in one node process: attentionOutput() under the causal mask (mask:
// 'causal'), scaled-dot at n 512/2048 × d 64 and n 512 × d 128, batches interleaved after >= 1 s of
// warm-up per build, CPU-time medians of 9 batches, max |diff| between the builds. Prints JSON.
//   node bench/causal-ab.mjs BEFORE_DIST AFTER_DIST   (an A/B: what a run establishes goes under "What we tried" in docs/benchmarks.md)
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const [before, after] = process.argv.slice(2);
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
let seed = 777;
const rand = (n) => Float32Array.from({ length: n }, () => { seed = (seed * 16807) % 2147483647; return (seed / 2147483647) * 2 - 1; });
const builds = [];
for (const [name, dir] of [['before', before], ['after', after]]) {
  const { createAttnScope } = await import(pathToFileURL(join(resolve(dir), 'attnscope.mjs')).href);
  builds.push({ name, scope: await createAttnScope() });
}
const rows = [];
for (const [n, d] of [[512, 64], [2048, 64], [512, 128]]) {
  const Q = rand(n * d), K = rand(n * d), V = rand(n * d), opts = { nq: n, nk: n, d, dv: d, mask: 'causal' };
  for (const b of builds) { const t0 = cpuMs(); let k = 0; while (cpuMs() - t0 < 1000 || k < 3) { b.scope.attentionOutput(Q, K, V, opts); k++; } b.per = (cpuMs() - t0) / k; }
  const calls = Math.max(1, Math.ceil(40 / builds[0].per));
  const t = { before: [], after: [] };
  for (let batch = 0; batch < 9; batch++) for (const b of batch % 2 ? [...builds].reverse() : builds) { const t0 = cpuMs(); for (let i = 0; i < calls; i++) b.scope.attentionOutput(Q, K, V, opts); t[b.name].push((cpuMs() - t0) / calls); }
  const [o0, o1] = builds.map((b) => b.scope.attentionOutput(Q, K, V, opts));
  let diff = 0; for (let i = 0; i < o0.length; i++) diff = Math.max(diff, Math.abs(o0[i] - o1[i]));
  const row = { case: `attentionOutput scaled-dot causal n=${n} d=${d}`, before_ms: median(t.before), after_ms: median(t.after) };
  row.after_over_before = Math.round(row.after_ms / row.before_ms * 1000) / 1000; row.max_abs_diff = diff;
  console.error(JSON.stringify(row)); rows.push(row);
}
console.log(JSON.stringify({ benchmark: 'causal attentionOutput, two builds interleaved, CPU-time medians of 9 batches', date: new Date().toISOString(), builds: { before, after }, results: rows }, null, 2));
