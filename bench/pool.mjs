#!/usr/bin/env node
// The pool of workers against one scope, in Node, on the built package (dist/; `npm run build` first):
//   attentionOutput at n = 4,096 (nq = nk, d = dv = 64, scaled-dot), and a 1,000-word attend() with
//   8 heads (one call; and 4 such calls at once, where the pool runs them side by side).
// Configurations: one scope (synchronous), pools of 1 and 2 workers (and more with --workers 1,2,3).
// Each case is warmed up >= 1 s per configuration, then the configurations take turns, call by call
// (interleaved, so a change of load hits all of them alike); medians and ratios to the scope are
// reported. Writes bench/results/pool.json (or --out FILE) and prints it, with the load average
// before and after: on a shared machine the figures are provisional.
// --baseline DIR adds, for each pool size, a pool from another build's dist/ (e.g. a copy of main's),
// interleaved with the rest: an A/B of the pool's code in one process. --cases 0,1 runs only those
// cases (0 attentionOutput, 1 one attend call, 2 four attend calls at once).
//   node bench/pool.mjs [--rounds N] [--workers 1,2] [--baseline DIR] [--cases 0,1,2] [--out FILE]
import { cpus, availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { n, d, Q, K, V, outputOptions, attendOptions, argValue, loadNow, median } from './pool-workload.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(argValue('--rounds', 7));
const WORKERS = argValue('--workers', '1,2').split(',').map(Number);
const OUT = resolve(argValue('--out', join(root, 'bench/results/pool.json')));
const BASELINE = argValue('--baseline', null);
const CASES = argValue('--cases', null);
const WARMUP_MS = 1000;  // V8 runs new wasm in a baseline tier at first (TOOLCHAIN.md)

const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.mjs')).href);
const { createAttnPool } = await import(pathToFileURL(join(root, 'dist/pool.mjs')).href);
const loadBefore = loadNow();

const round = (x, k = 3) => Math.round(x * 10 ** k) / 10 ** k;

const scope = await createAttnScope({ preload: true });
const pools = [];
for (const w of WORKERS) pools.push({ name: `pool of ${w}`, workers: w, pool: await createAttnPool({ workers: w, preload: true }) });
if (BASELINE) {
  // The pool is the package's 'attnscope/pool' entry (pool.mjs beside attnscope.mjs).
  const base = await import(pathToFileURL(join(resolve(BASELINE), 'pool.mjs')).href);
  for (const w of WORKERS) pools.push({ name: `pool of ${w} (baseline)`, workers: w, pool: await base.createAttnPool({ workers: w, preload: true }) });
}

const cases = [
  { name: 'attentionOutput n = 4,096, d = dv = 64, scaled-dot',
    scope: () => scope.attentionOutput(Q, K, V, outputOptions), pool: (p) => p.attentionOutput(Q, K, V, outputOptions) },
  { name: 'attend, 1,000 words, 8 heads (one call)',
    scope: () => scope.attend(attendOptions), pool: (p) => p.attend(attendOptions) },
  { name: 'attend, 1,000 words, 8 heads: 4 calls at once',
    scope: () => { for (let i = 0; i < 4; i++) scope.attend(attendOptions); },
    pool: (p) => Promise.all([0, 1, 2, 3].map(() => p.attend(attendOptions))) },
];

const tokens = scope.attend(attendOptions).nq;
const results = [];
for (const c of CASES ? CASES.split(',').map((i) => cases[Number(i)]) : cases) {
  const configs = [{ name: 'one scope', run: async () => c.scope() }, ...pools.map((p) => ({ name: p.name, workers: p.workers, run: () => c.pool(p.pool) }))];
  for (const cfg of configs) for (const until = performance.now() + WARMUP_MS; performance.now() < until;) await cfg.run();
  const times = configs.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < configs.length; k++) {
      const t0 = performance.now();
      await configs[k].run();
      times[k].push(performance.now() - t0);
    }
  }
  const base = median(times[0]);
  results.push({
    case: c.name, rounds: ROUNDS,
    configs: configs.map((cfg, k) => ({ name: cfg.name, workers: cfg.workers ?? 0, median_ms: round(median(times[k]), 2),
      min_ms: round(Math.min(...times[k]), 2), max_ms: round(Math.max(...times[k]), 2), speedup_vs_scope: round(base / median(times[k]), 2),
      // The scope's time over this configuration's in the same round (they ran one after the other), median over the rounds.
      same_round_speedup: round(median(times[0].map((t, r) => t / times[k][r])), 2) })),
  });
  console.error(`${c.name}: ${configs.map((cfg, k) => `${cfg.name} ${round(median(times[k]), 1)} ms`).join(', ')}`);
}
for (const p of pools) await p.pool.dispose();

const report = {
  benchmark: 'createAttnPool against one scope in Node (medians of interleaved rounds after >= 1 s warm-up per configuration)',
  date: new Date().toISOString(),
  node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, availableParallelism: availableParallelism(),
  load_average_before: loadBefore, load_average_after: loadNow(),
  note: 'the machine was shared with other builds: the load average says how much; treat the figures as provisional',
  isa: scope.variants.isa, attend_tokens: tokens, warmup_ms: WARMUP_MS, baseline: BASELINE,
  results,
};
writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n');
console.log(JSON.stringify(report, null, 2));
// The table for docs/pool.md.
const header = ['case', ...results[0].configs.map((c) => c.name)];
const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
for (const r of results) {
  lines.push(`| ${r.case} | ${r.configs.map((c) => `${c.median_ms} ms${c.workers ? ` (${c.speedup_vs_scope}×; same round ${c.same_round_speedup}×)` : ''}`).join(' | ')} |`);
}
console.error(`\nload average before ${loadBefore.join(', ')}, after ${report.load_average_after.join(', ')}\n${lines.join('\n')}`);
