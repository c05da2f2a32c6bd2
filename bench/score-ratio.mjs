#!/usr/bin/env node
// A score's time against scaled-dot's in the same build, the two interleaved batch by batch (the
// order flipped every batch) after >= 1 s of warm-up each, so the ratio is not read off two rows
// measured minutes apart (bench/kernel-ab.mjs measures its cases one after the other, and on a
// loaded machine one row's window can be much busier than another's). attentionOutput() and
// scores() at n = 512, d = 64, for each build given. CPU-time medians and the median of the
// per-batch ratios. Prints JSON.
//   node bench/score-ratio.mjs [--score idw] [--batches N] DIR [DIR ...]   (default DIR: dist/)
import { cpus, loadavg } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const SCORE = opt('--score', 'idw');
const BATCHES = Number(opt('--batches', 15));
const dirs = args.length ? args : [join(root, 'dist')];

let seed = 12345;
const rand = (n) => Float32Array.from({ length: n }, () => { seed = (seed * 16807) % 2147483647; return (seed / 2147483647) * 2 - 1; });
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
const round = (x) => Math.round(x * 1000) / 1000;

const n = 512, d = 64;
const Q = rand(n * d), K = rand(n * d), V = rand(n * d);
const calls = {
  attentionOutput: (s, score) => s.attentionOutput(Q, K, V, { nq: n, nk: n, d, dv: d, score }),
  scores: (s, score) => s.scores(Q, K, { nq: n, nk: n, d, score }),
};

const results = [];
for (const dir of dirs) {
  const { createAttnScope } = await import(pathToFileURL(join(resolve(dir), 'attnscope.mjs')).href);
  const scope = await createAttnScope({ preload: true });
  for (const [what, run] of Object.entries(calls)) {
    const sides = ['scaled-dot', SCORE].map((score) => ({ score, times: [] }));
    for (const side of sides) {
      const t0 = cpuMs();
      let k = 0;
      while (cpuMs() - t0 < 1000 || k < 3) { run(scope, side.score); k++; }
      side.per = (cpuMs() - t0) / k;
    }
    const reps = Math.max(1, Math.ceil(40 / sides[0].per));
    const ratios = [];
    for (let b = 0; b < BATCHES; b++) {
      for (const side of b % 2 ? [...sides].reverse() : sides) {
        const t0 = cpuMs();
        for (let i = 0; i < reps; i++) run(scope, side.score);
        side.times.push((cpuMs() - t0) / reps);
      }
      ratios.push(sides[1].times[b] / sides[0].times[b]);
    }
    const row = { build: resolve(dir), call: what, score: SCORE, calls_per_batch: reps, scaled_dot_ms: round(median(sides[0].times)),
      score_ms: round(median(sides[1].times)), ratio_of_medians: round(median(sides[1].times) / median(sides[0].times)),
      median_batch_ratio: round(median(ratios)) };
    console.error(`${row.build}  ${what.padEnd(16)} scaled-dot ${row.scaled_dot_ms} ms  ${SCORE} ${row.score_ms} ms  ×${row.ratio_of_medians} (per-batch median ×${row.median_batch_ratio})`);
    results.push(row);
  }
  scope.dispose?.();
}
console.log(JSON.stringify({
  benchmark: `${SCORE} against scaled-dot in the same build, interleaved batch by batch: CPU-time medians and ratios`,
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  loadavg: loadavg(), batches: BATCHES, n, d, results,
}, null, 2));
