#!/usr/bin/env node
// Wall time of scope.attentionFlow() (and rollout() beside it) in Node on the built package (dist/, the
// SIMD wasm), for the model's shape (2 layers x 4 heads x 128 tokens) and the largest stacks the work
// limit accepts. The numbers behind docs/flow.md. `npm run build` first.
//   node bench/flow.mjs > bench/results/flow.json
// Each case is warmed up for at least a second (V8 runs new wasm in a baseline tier at first), then
// timed `runs` times; the median and the spread are reported (ms). The machine's load is recorded:
// on a shared machine the numbers are noisy.
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { createAttnScope } = await import(pathToFileURL(join(root, 'dist', 'attnscope.mjs')).href);
const scope = await createAttnScope({ preload: false });

/** Softmax rows of random logits (scale 3: some peaked rows, some flat ones), [layers, heads, n, n]. */
function stack(layers, heads, n, seed) {
  let x = seed >>> 0;
  const u = () => ((x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const a = new Float32Array(layers * heads * n * n);
  for (let r = 0; r < layers * heads * n; r++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += (a[r * n + j] = Math.exp(3 * (2 * u() - 1)));
    for (let j = 0; j < n; j++) a[r * n + j] /= s;
  }
  return a;
}

function time(fn, runs) {
  const t0 = performance.now();
  let warm = 0;
  while (performance.now() - t0 < 1000 || warm < 2) { fn(); warm++; }
  const t = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    fn();
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  return { median_ms: Number(t[runs >> 1].toFixed(3)), min_ms: Number(t[0].toFixed(3)), max_ms: Number(t[runs - 1].toFixed(3)), runs };
}

const cases = [[2, 4, 128, 15], [2, 4, 64, 15], [1, 4, 128, 15], [2, 1, 812, 3], [3, 4, 32, 5], [3, 4, 53, 3], [4, 4, 45, 3], [12, 4, 30, 3]];
const results = [];
for (const [layers, heads, n, runs] of cases) {
  const att = stack(layers, heads, n, layers * 1000 + n);
  const options = { layers, heads, n };
  const flow = time(() => scope.attentionFlow(att, options), runs);
  const rollout = time(() => scope.rollout(att, options), runs);
  results.push({ layers, heads, n, flow, rollout });
  process.stderr.write(`flow ${layers}x${heads}x${n}: ${flow.median_ms} ms median (rollout ${rollout.median_ms} ms)\n`);
}
console.log(JSON.stringify({
  what: 'scope.attentionFlow() and scope.rollout(), dist/ SIMD wasm in Node, after >= 1 s of warm-up per case',
  node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, loadavg: loadavg().map((x) => Number(x.toFixed(2))),
  results,
}, null, 2));
