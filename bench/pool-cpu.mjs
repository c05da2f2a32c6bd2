#!/usr/bin/env node
// CPU time, not wall time, of one scope and of a pool of 2 (Linux: /proc/self/task/*/stat), for the
// cases of bench/pool.mjs. On a machine whose cores are busy with other work, wall times say little
// about what two idle cores would give; CPU time is far less sensitive to that: it says how much work
// a call is, and how much of it is on the calling thread (the part a split does not divide: the
// pool's join of the shares, its messages). From these, the wall time on two idle cores is estimated
// as calling thread + (all threads − calling thread) / 2 (the workers' shares are equal; the calling
// thread's copies are counted as if none overlapped the workers' computing, which errs on the slow
// side)... precisely: the busier worker's CPU time plus the calling thread's (the workers are the two
// threads that worked most, besides the calling one; V8's own threads, GC and compilers, are left
// out: they run beside), and the speedup as the scope's CPU time over that. An estimate, labelled
// so, not a measurement.
// Clock ticks are 10 ms: each figure is the sum over many calls, divided.
//   node bench/pool-cpu.mjs [--calls N] [--shares N] [--touch X] [--out FILE]
import { cpus, loadavg } from 'node:os';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { n, d, Q, K, V, outputOptions, attendOptions, argValue } from './pool-workload.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CALLS = Number(argValue('--calls', 24));
const OUT = resolve(argValue('--out', join(root, 'bench/results/pool-cpu.json')));
const TICK_MS = 10;   // USER_HZ = 100 on Linux

const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.mjs')).href);
const { createAttnPool } = await import(pathToFileURL(join(root, 'dist/pool.mjs')).href);
const round = (x, k = 2) => Math.round(x * 10 ** k) / 10 ** k;
/** CPU ms (user + system) of this process's calling thread, of all its threads (ended ones included), and of each thread. */
function cpu() {
  const ticks = (stat) => { const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); return Number(f[11]) + Number(f[12]); };
  const main = ticks(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8'));
  const all = ticks(readFileSync('/proc/self/stat', 'utf8'));   // every thread, and the ended ones
  const threads = new Map();
  for (const t of readdirSync('/proc/self/task')) {
    try { threads.set(t, ticks(readFileSync(`/proc/self/task/${t}/stat`, 'utf8')) * TICK_MS); } catch { /* ended */ }
  }
  return { main: main * TICK_MS, all: all * TICK_MS, threads };
}
/** The two threads (but the calling one) that worked most between a and b: the pool's workers, busiest first. */
function busiest(a, b) {
  const d = [...b.threads].filter(([t]) => t !== String(process.pid)).map(([t, ms]) => ms - (a.threads.get(t) ?? 0)).sort((x, y) => y - x);
  return [d[0] ?? 0, d[1] ?? 0];
}


const scope = await createAttnScope({ preload: true });
const pool = await createAttnPool({ workers: 2, preload: true });
const SHARES = argValue('--shares', null);   // attend's shares per worker (default: the pool's)
if (SHARES) pool._attendShares = Number(SHARES);
const TOUCH = argValue('--touch', null);   // attend: the host's touching cost per head (default: the pool's)
if (TOUCH) pool._touchPerHead = Number(TOUCH);
const loadBefore = loadavg();
const cases = [
  ['attentionOutput n = 4,096, d = dv = 64, scaled-dot', () => scope.attentionOutput(Q, K, V, outputOptions), () => pool.attentionOutput(Q, K, V, outputOptions)],
  ['attend, 1,000 words, 8 heads (one call)', () => scope.attend(attendOptions), () => pool.attend(attendOptions)],
];
const rows = [];
for (const [name, one, pooled] of cases) {
  for (let w = 0; w < 4; w++) { one(); await pooled(); }   // warm-up (tiers, heaps)
  const configs = {};
  for (const [label, run] of [['one scope', async () => one()], ['pool of 2', pooled]]) {
    const c0 = cpu(), t0 = performance.now();
    for (let i = 0; i < CALLS; i++) await run();
    const c1 = cpu(), wall = (performance.now() - t0) / CALLS;
    configs[label] = { calling_thread_ms: (c1.main - c0.main) / CALLS, all_threads_ms: (c1.all - c0.all) / CALLS, wall_ms: wall,
      workers_ms: busiest(c0, c1).map((x) => x / CALLS) };
  }
  const s = configs['one scope'], p = configs['pool of 2'];
  // The busier worker, then the calling thread's part as if none of it overlapped the workers.
  const estimate = p.calling_thread_ms + Math.max(...p.workers_ms);
  rows.push({
    case: name, calls: CALLS,
    one_scope: { cpu_ms: round(s.all_threads_ms), calling_thread_ms: round(s.calling_thread_ms), wall_ms: round(s.wall_ms) },
    pool_of_2: { cpu_ms: round(p.all_threads_ms), calling_thread_ms: round(p.calling_thread_ms), worker_ms: p.workers_ms.map((x) => round(x)),
      other_threads_ms: round(p.all_threads_ms - p.calling_thread_ms - p.workers_ms[0] - p.workers_ms[1]), wall_ms: round(p.wall_ms) },
    pool_work_over_scope_work: round(p.all_threads_ms / s.all_threads_ms),
    estimated_two_idle_cores_ms: round(estimate), estimated_speedup: round(s.all_threads_ms / estimate),
  });
  console.error(`${name}: scope ${round(s.all_threads_ms)} ms CPU; pool ${round(p.all_threads_ms)} ms CPU: calling thread ${round(p.calling_thread_ms)} ms, workers ${p.workers_ms.map((x) => round(x)).join(' and ')} ms; estimated ${round(s.all_threads_ms / estimate)}x on two idle cores`);
}
await pool.dispose();
const report = {
  benchmark: 'CPU time of one scope and of a pool of 2 workers (Linux /proc), and the wall time on two idle cores estimated from it',
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  load_average_before: loadBefore.map((x) => round(x)), load_average_after: loadavg().map((x) => round(x)),
  note: 'CPU times include the V8 background threads (compilation, GC) of the process; wall times are the busy machine\'s and say little',
  attend_shares_per_worker: pool._attendShares, attend_touch_per_head: pool._touchPerHead, rows,
};
writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n');
console.log(JSON.stringify(report, null, 2));
