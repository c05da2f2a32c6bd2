#!/usr/bin/env node
// Where a pooled attend()'s time goes (1,000 words, 8 heads, as bench/pool.mjs), in Node, on the built
// package (dist/). Every figure is a median of interleaved rounds after a warm-up, all taken in one run:
//   - one scope: the whole call; the call on heads [0, 1), [0, 2), [0, 4) of the 8 (the pool's shares),
//     from which the fixed cost of a call (tokenize, embed, the tokens' JSON, unpacking) and the cost
//     of one head follow; tokenize alone;
//   - one head's kernels at 1,000 x 1,000 with d = 6 (the identity projection of 50 dimensions over 8
//     heads): scores, softmax, attention with every part returned (scores, weights, output, stats);
//   - the copies: 4 heads of scores and weights (32 MB) copied into newly allocated arrays;
//   - the pool: a share of 4 heads on one worker (the scope's cost plus the message there and back),
//     two shares on two workers without the join, and the whole call: the host's share (which
//     makes the joined buffer, passed on from worker to worker) and one other (the default), two or four others.
// Writes bench/results/pool-attend.json (or --out FILE) and prints a table.
//   node bench/pool-attend.mjs [--rounds N] [--out FILE]
import { cpus } from 'node:os';
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { attendOptions, rand, text, argValue, loadNow, median } from './pool-workload.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(argValue('--rounds', 9));
const OUT = resolve(argValue('--out', join(root, 'bench/results/pool-attend.json')));
const WARMUP_MS = 1000;

const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.mjs')).href);
const { createAttnPool } = await import(pathToFileURL(join(root, 'dist/pool.mjs')).href);
const loadBefore = loadNow();
const round = (x, k = 2) => Math.round(x * 10 ** k) / 10 ** k;
// The workload of bench/pool.mjs: the 1,000-word text and its attend() options (8 heads).
const o = attendOptions;

const scope = await createAttnScope({ preload: true });
const pool = await createAttnPool({ workers: 2, preload: true });
const whole = scope.attend(o);
const n = whole.nq, dh = whole.dHead[0];
const Q = rand(n * dh, 1), K = rand(n * dh, 2), V = rand(n * dh, 3);
const S = scope.scores(Q, K, { nq: n, nk: n, d: dh });
const half = scope._attend(o, 0, 4);

const pooled = (shares) => async () => { pool._attendShares = shares; return pool.attend(o); };
const cases = [
  ['one scope: attend, 8 heads', () => scope.attend(o)],
  ['one scope: heads 0-1 of 8', () => scope._attend(o, 0, 1)],
  ['one scope: heads 0-2 of 8', () => scope._attend(o, 0, 2)],
  ['one scope: heads 0-4 of 8', () => scope._attend(o, 0, 4)],
  ['one scope: tokenize the text', () => scope.tokenize(text, { maxTokens: 1100 })],
  [`one head's kernels: scores ${n} x ${n}, d ${dh}`, () => scope.scores(Q, K, { nq: n, nk: n, d: dh })],
  [`one head's kernels: softmax ${n} x ${n}`, () => scope.softmax(S, { rows: n, cols: n })],
  [`one head's kernels: attention ${n} x ${n}, d ${dh}, every part`, () => scope.attention(Q, K, V, { nq: n, nk: n, d: dh, dv: dh })],
  ['copy 4 heads of scores and weights into new arrays (32 MB)', () => [new Float32Array(half.scores), new Float32Array(half.weights)]],
  ['pool: heads 0-4 on one worker (one share)', () => pool._submit(undefined, [(api) => api.attend(o, 0, 4)], (x) => x)],
  ['pool: heads 0-4 and 4-8 on two workers, not joined', () => pool._submit(undefined, [(api) => api.attend(o, 0, 4), (api) => api.attend(o, 4, 8)], (x) => x)],
  ['pool of 2: attend, the host\'s share and one other (the default)', pooled(1)],
  ['pool of 2: attend, the host\'s share and two others', pooled(2)],
  ['pool of 2: attend, the host\'s share and four others', pooled(4)],
];
for (const [, run] of cases) for (const until = performance.now() + WARMUP_MS; performance.now() < until;) await run();
const times = cases.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < cases.length; k++) {
    const t0 = performance.now();
    await cases[k][1]();
    times[k].push(performance.now() - t0);
  }
}
pool._attendShares = 1;
await pool.dispose();

const rows = cases.map(([name], k) => ({ name, median_ms: round(median(times[k])), min_ms: round(Math.min(...times[k])), max_ms: round(Math.max(...times[k])) }));
const m = Object.fromEntries(rows.map((r) => [r.name, r.median_ms]));
const T1 = m['one scope: heads 0-1 of 8'], T2 = m['one scope: heads 0-2 of 8'], T4 = m['one scope: heads 0-4 of 8'];
const scopeMs = m['one scope: attend, 8 heads'];
const derived = {
  head_ms: round((T4 - T1) / 3),
  fixed_per_call_ms: round(T1 - (T4 - T1) / 3),
  message_round_trip_ms: round(m['pool: heads 0-4 on one worker (one share)'] - T4),
  speedup_host_and_1: round(scopeMs / m['pool of 2: attend, the host\'s share and one other (the default)']),
  speedup_host_and_2: round(scopeMs / m['pool of 2: attend, the host\'s share and two others']),
  speedup_host_and_4: round(scopeMs / m['pool of 2: attend, the host\'s share and four others']),
  check_heads_0_2_minus_0_1_ms: round(T2 - T1),
};
// The same ratios, round by round (the scope's call and the pool's in one round of the interleaving).
const at = (name) => cases.findIndex(([n]) => n === name);
for (const [key, name] of [['same_round_speedup_host_and_1', 'pool of 2: attend, the host\'s share and one other (the default)'],
  ['same_round_speedup_host_and_2', 'pool of 2: attend, the host\'s share and two others'], ['same_round_speedup_host_and_4', 'pool of 2: attend, the host\'s share and four others']]) {
  derived[key] = round(median(times[0].map((t, r) => t / times[at(name)][r])));
}
const report = {
  benchmark: 'where a pooled attend() (1,000 words, 8 heads, 2 workers) spends its time; medians of interleaved rounds after >= 1 s of warm-up per case',
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  load_average_before: loadBefore, load_average_after: loadNow(), rounds: ROUNDS, tokens: n, d_head: dh,
  note: 'measured on a machine shared with other builds (see the load averages): absolute times are inflated and noisy; compare figures of one run',
  rows, derived,
};
writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n');
for (const r of rows) console.log(`${r.name.padEnd(68)} ${String(r.median_ms).padStart(9)} ms  (min ${r.min_ms})`);
console.log(derived);
console.log(`load average before ${loadBefore.join(', ')}, after ${report.load_average_after.join(', ')}`);
