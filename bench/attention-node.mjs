#!/usr/bin/env node
// softmax(Q Kᵀ/√d) V in node: attnscope (the fused attentionOutput() and the weights path
// attention()) against TensorFlow.js 4.22's wasm backend (XNNPACK, SIMD, one thread) and a plain JS
// loop, in one process, interleaved round by round so that all see the same machine; medians after
// a warm-up of at least 1.5 s per implementation. Outputs are compared (max |diff| against the
// float64 reference on a few rows, and attnscope against TF.js on all of them). Then the small calls:
// attention() at n = 16, d = 64 and the 12-word attend(). Prints JSON; `npm run build` first.
//   node bench/attention-node.mjs [--quick] [--sizes 512x64,2048x128] [--no-plain] > bench/results/attention-node.json
//
// TF.js is given its best case: Q, K, V live in its wasm memory before the clock starts (attnscope
// copies them in on every call), and the product is written matMul(Q, transpose(K)) — as
// matMul(Q, K, false, true) TF.js 4.22 falls back to a scalar loop (~4 GFLOP/s), which would flatter us.
import { cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { tfjsWasm } from './tfjs-wasm.mjs';
import { mulberry32 } from '../web/shared/random.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const { tf, tfInfo } = await tfjsWasm();
console.error(`TF.js ${tfInfo.version}: backend ${tfInfo.backend}, SIMD ${tfInfo.simd}, multithread ${tfInfo.threads}, threads ${tfInfo.threadsCount}`);

const { createAttnScope } = await import(pathToFileURL(join(root, 'dist', 'attnscope.mjs')).href);
const scope = await createAttnScope({ preload: true });
console.error(`attnscope: variants ${JSON.stringify(scope.variants)}`);

// A seeded generator (mulberry32, web/shared/random.js), so every run compares the same inputs.
const random = mulberry32;
const matrix = (n, rnd) => Float32Array.from({ length: n }, () => rnd() * 2 - 1);

// The plain JS implementation a developer would write first: Float32Array in and out, one row at a time.
function plainAttention(Q, K, V, n, d) {
  const O = new Float32Array(n * d), s = new Float32Array(n);
  const scale = 1 / Math.sqrt(d);
  for (let i = 0; i < n; i++) {
    let mx = -Infinity;
    for (let j = 0; j < n; j++) {
      let acc = 0;
      for (let t = 0; t < d; t++) acc += Q[i * d + t] * K[j * d + t];
      s[j] = acc * scale;
      if (s[j] > mx) mx = s[j];
    }
    let sum = 0;
    for (let j = 0; j < n; j++) { s[j] = Math.exp(s[j] - mx); sum += s[j]; }
    for (let j = 0; j < n; j++) {
      const w = s[j] / sum;
      for (let t = 0; t < d; t++) O[i * d + t] += w * V[j * d + t];
    }
  }
  return O;
}

// float64 reference for a few rows.
function referenceRows(Q, K, V, n, d, rows) {
  const out = new Map();
  for (const i of rows) {
    const s = new Float64Array(n);
    let mx = -Infinity;
    for (let j = 0; j < n; j++) {
      let acc = 0;
      for (let t = 0; t < d; t++) acc += Q[i * d + t] * K[j * d + t];
      s[j] = acc / Math.sqrt(d);
      mx = Math.max(mx, s[j]);
    }
    let sum = 0;
    for (let j = 0; j < n; j++) { s[j] = Math.exp(s[j] - mx); sum += s[j]; }
    const o = new Float64Array(d);
    for (let j = 0; j < n; j++) for (let t = 0; t < d; t++) o[t] += (s[j] / sum) * V[j * d + t];
    out.set(i, o);
  }
  return out;
}
const maxDiffRows = (O, ref, d) => {
  let m = 0;
  for (const [i, o] of ref) for (let t = 0; t < d; t++) m = Math.max(m, Math.abs(O[i * d + t] - o[t]));
  return m;
};
const maxDiff = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };

// Timing is the process's CPU time (process.cpuUsage(): this single-threaded work plus V8's few
// background threads), with wall time recorded beside it: on a shared machine with more runnable
// threads than cores, wall time mostly measures the other processes.
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

// One case: every implementation warmed up, then `rounds` rounds, each timing one batch of calls
// per implementation (a batch lasts >= 20 ms), in turn.
function runCase(n, d, impls, { rounds, warmupMs }) {
  for (const im of impls) {
    const t0 = cpuMs();
    let calls = 0;
    while (cpuMs() - t0 < warmupMs || calls < 2) { im.run(); calls++; }
    im.batch = Math.max(1, Math.ceil(20 / ((cpuMs() - t0) / calls)));
    im.times = [];
    im.wall = [];
  }
  for (let r = 0; r < rounds; r++) {
    for (const im of impls) {
      const t0 = cpuMs(), w0 = performance.now();
      for (let b = 0; b < im.batch; b++) im.run();
      im.times.push((cpuMs() - t0) / im.batch);
      im.wall.push((performance.now() - w0) / im.batch);
    }
  }
  const flops = 4 * n * n * d;
  return impls.map((im) => ({
    impl: im.name, n, d, median_ms: +median(im.times).toFixed(4), min_ms: +Math.min(...im.times).toFixed(4),
    gflops: +(flops / median(im.times) / 1e6).toFixed(2), wall_median_ms: +median(im.wall).toFixed(4), rounds, batch: im.batch,
  }));
}

const sizesArg = process.argv.indexOf('--sizes');  // e.g. --sizes 512x64,2048x128
const sizes = sizesArg > 0 ? process.argv[sizesArg + 1].split(',').map((x) => x.split('x').map(Number))
  : quick ? [[512, 64]] : [[512, 64], [1024, 64], [2048, 64], [4096, 64], [512, 128], [2048, 128]];
const withPlain = !process.argv.includes('--no-plain');  // the plain JS loop takes seconds per call at n = 2048
const results = [];
const agreement = [];
const refusals = [];
for (const [n, d] of sizes) {
  const rnd = random(1000 + n + d);
  const Q = matrix(n * d, rnd), K = matrix(n * d, rnd), V = matrix(n * d, rnd);
  const opts = { nq: n, nk: n, d, dv: d };
  const q = tf.tensor2d(Q, [n, d]), k = tf.tensor2d(K, [n, d]), v = tf.tensor2d(V, [n, d]);
  const scale = tf.scalar(1 / Math.sqrt(d));
  const tfOutput = () => tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(q, tf.transpose(k)), scale)), v)).dataSync();
  const tfBoth = () => {
    const [a, o] = tf.tidy(() => { const w = tf.softmax(tf.mul(tf.matMul(q, tf.transpose(k)), scale)); return [w, tf.matMul(w, v)]; });
    const out = [a.dataSync(), o.dataSync()];
    a.dispose(); o.dispose();
    return out;
  };
  const hasFused = typeof scope.attentionOutput === 'function';
  const weightsOpts = hasFused ? { ...opts, returns: ['weights', 'output'] } : opts;
  // The weights path holds the n×n matrix: past the work budget (docs/limits.md)
  // attention() refuses the call up front, and the case records the refusal instead of a time.
  let weightsRefused = null;
  try { scope.attention(Q, K, V, weightsOpts); } catch (e) { if (!(e instanceof RangeError)) throw e; weightsRefused = e.message; }
  const impls = [
    { name: 'tfjs-wasm output', run: tfOutput },
    { name: 'tfjs-wasm weights+output', run: tfBoth },
  ];
  if (!weightsRefused) impls.push({ name: 'attnscope attention() weights+output', run: () => scope.attention(Q, K, V, weightsOpts) });
  else refusals.push({ impl: 'attnscope attention() weights+output', n, d, refused: weightsRefused });
  if (hasFused) impls.unshift({ name: 'attnscope attentionOutput()', run: () => scope.attentionOutput(Q, K, V, opts) });
  if (withPlain && n <= 2048) impls.push({ name: 'plain JS', run: () => plainAttention(Q, K, V, n, d) });
  const big = n * n * d > 512 * 512 * 128;
  const res = runCase(n, d, impls, { rounds: quick ? 3 : big ? 5 : 15, warmupMs: quick ? 200 : big ? 500 : 1500 });
  results.push(...res);
  // Outputs compared: against float64 on 8 rows, and attnscope against TF.js on every entry.
  const rows = [0, 1, 2, n >> 2, n >> 1, n - 3, n - 2, n - 1];
  const ref = referenceRows(Q, K, V, n, d, rows);
  const outTf = tfOutput();
  const outFused = hasFused ? scope.attentionOutput(Q, K, V, opts) : null;
  const outAttn = weightsRefused ? null : scope.attention(Q, K, V, opts).output;
  const agree = { n, d, tfjs_vs_float64: maxDiffRows(outTf, ref, d) };
  if (outAttn) Object.assign(agree, { attention_vs_float64: maxDiffRows(outAttn, ref, d), attention_vs_tfjs: maxDiff(outAttn, outTf) });
  if (outFused) Object.assign(agree, { attentionOutput_vs_float64: maxDiffRows(outFused, ref, d), attentionOutput_vs_tfjs: maxDiff(outFused, outTf) });
  if (withPlain && n <= 2048) agree.plain_vs_float64 = maxDiffRows(plainAttention(Q, K, V, n, d), ref, d);
  agreement.push(agree);
  q.dispose(); k.dispose(); v.dispose(); scale.dispose();
  for (const r of res) console.error(`n=${n} d=${d} ${r.impl.padEnd(38)} ${String(r.median_ms).padStart(9)} ms  ${String(r.gflops).padStart(7)} GFLOP/s`);
  console.error(`  max |diff| ${JSON.stringify(agree)}`);
}

// Small calls: attention() at n = 16, d = 64 (whole call from JS: validation, copies in and out) and
// the 12-word attend() pair, after a 1.5 s warm-up.
// CPU time per call, from batches of 50 calls (process.cpuUsage() is too coarse for one call).
function perCall(fn, iterations) {
  const t0 = cpuMs();
  while (cpuMs() - t0 < (quick ? 200 : 1500)) fn();
  const batches = Math.max(1, Math.floor(iterations / 50)), t = new Float64Array(batches);
  for (let i = 0; i < batches; i++) { const a = cpuMs(); for (let b = 0; b < 50; b++) fn(); t[i] = (cpuMs() - a) / 50; }
  return { median_us: +(median(t) * 1000).toFixed(2), iterations: batches * 50 };
}
const small = [];
{
  const rnd = random(7);
  const n = 16, d = 64, Q = matrix(n * d, rnd), K = matrix(n * d, rnd), V = matrix(n * d, rnd);
  const opts = { nq: n, nk: n, d, dv: d };
  small.push({ call: 'attention() n=16 d=64, all results', ...perCall(() => scope.attention(Q, K, V, opts), 5000) });
  if (typeof scope.attentionOutput === 'function') {
    small.push({ call: "attention() n=16 d=64, returns: ['weights']", ...perCall(() => scope.attention(Q, K, V, { ...opts, returns: ['weights'] }), 5000) });
    small.push({ call: 'attentionOutput() n=16 d=64', ...perCall(() => scope.attentionOutput(Q, K, V, opts), 5000) });
  }
  const q = 'The quick brown fox jumps over the lazy dog near the river', k = 'A small cat slept quietly under the old tree by the road';
  small.push({ call: 'attend() 12-word pair (default options)', ...perCall(() => scope.attend({ query: q, keys: k }), 3000) });
}
for (const s of small) console.error(`${s.call.padEnd(48)} ${s.median_us} µs`);

console.log(JSON.stringify({
  benchmark: 'softmax(Q Kᵀ/√d) V in node: attnscope vs TF.js wasm vs plain JS; small calls',
  date: new Date().toISOString(), clock: 'process CPU time (process.cpuUsage)', loadavg: (await import('node:os')).loadavg(),
  node: process.version, v8: process.versions.v8, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  tfjs: tfInfo, attnscope: { variants: scope.variants },
  flops: '4 n² d per call (Q Kᵀ and A V, 2 flops per multiply-add)',
  results, agreement, refusals, small,
}, null, 2));
