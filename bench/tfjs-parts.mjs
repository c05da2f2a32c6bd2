#!/usr/bin/env node
// Where TensorFlow.js 4.22's wasm backend (XNNPACK, SIMD, one thread) spends softmax(Q Kᵀ/√d) V, part
// by part, beside attnscope's fused attentionOutput() on the same inputs: S = matMul(Q, transpose(K)),
// the scale (mul), softmax, matMul(P, V), and the whole chain (as bench/attention-node.mjs times it,
// with the read-back). Every part runs on tensors already in TF.js's memory and its result is
// disposed, no read-back. One process, the parts interleaved round by round, CPU-time medians
// (process.cpuUsage) after >= 1 s of warm-up each; GFLOP/s for the products (2 n² d flops each).
//   node bench/tfjs-parts.mjs [--sizes 512x64,2048x128] [--rounds 9] > bench/results/tfjs-parts.json
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { tfjsWasm } from './tfjs-wasm.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const sizes = arg('--sizes', '512x64,2048x64,512x128,2048x128').split(',').map((s) => s.split('x').map(Number));
const ROUNDS = Number(arg('--rounds', 9));

const { tf, tfInfo } = await tfjsWasm();
const { createAttnScope } = await import(pathToFileURL(join(root, 'dist', 'attnscope.mjs')).href);
const scope = await createAttnScope();

let seed = 12345;
const rand = (n) => Float32Array.from({ length: n }, () => { seed = (seed * 16807) % 2147483647; return (seed / 2147483647) * 2 - 1; });
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };

const results = [];
for (const [n, d] of sizes) {
  const Qa = rand(n * d), Ka = rand(n * d), Va = rand(n * d);
  const q = tf.tensor2d(Qa, [n, d]), k = tf.tensor2d(Ka, [n, d]), v = tf.tensor2d(Va, [n, d]);
  const kt = tf.transpose(k);
  const scale = tf.scalar(1 / Math.sqrt(d));
  const S = tf.matMul(q, kt);
  const Ss = tf.mul(S, scale);
  const P = tf.softmax(Ss);
  const parts = {
    'tfjs transpose(K)': () => tf.transpose(k).dispose(),
    'tfjs matMul(Q, Kt)': () => tf.matMul(q, kt).dispose(),
    'tfjs mul(S, 1/sqrt(d))': () => tf.mul(S, scale).dispose(),
    'tfjs softmax(S)': () => tf.softmax(Ss).dispose(),
    'tfjs matMul(P, V)': () => tf.matMul(P, v).dispose(),
    'tfjs whole chain + dataSync': () => tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(q, tf.transpose(k)), scale)), v)).dataSync(),
    'attnscope attentionOutput()': () => scope.attentionOutput(Qa, Ka, Va, { nq: n, nk: n, d, dv: d }),
  };
  const entries = Object.entries(parts);
  const per = {};
  for (const [name, fn] of entries) { const t0 = cpuMs(); let c = 0; while (cpuMs() - t0 < 1000 || c < 3) { fn(); c++; } per[name] = (cpuMs() - t0) / c; }
  const times = Object.fromEntries(entries.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of round % 2 ? [...entries].reverse() : entries) {
      const calls = Math.max(1, Math.ceil(40 / per[name]));
      const t0 = cpuMs();
      for (let i = 0; i < calls; i++) fn();
      times[name].push((cpuMs() - t0) / calls);
    }
  }
  const row = { n, d };
  for (const [name] of entries) row[name] = Math.round(median(times[name]) * 1000) / 1000;
  const gemmFlops = 2 * n * n * d;
  row.gflops_matMul_QKt = Math.round((gemmFlops / row['tfjs matMul(Q, Kt)']) / 1e4) / 100;
  row.gflops_matMul_PV = Math.round((gemmFlops / row['tfjs matMul(P, V)']) / 1e4) / 100;
  row.gflops_attnscope_whole = Math.round((2 * gemmFlops / row['attnscope attentionOutput()']) / 1e4) / 100;
  row.tfjs_over_attnscope = Math.round((row['tfjs whole chain + dataSync'] / row['attnscope attentionOutput()']) * 1000) / 1000;
  console.error(JSON.stringify(row));
  results.push(row);
  for (const t of [q, k, v, kt, scale, S, Ss, P]) t.dispose();
}
console.log(JSON.stringify({
  benchmark: 'TF.js wasm part by part (matMul, mul, softmax, matMul) beside attnscope attentionOutput(), one process, interleaved, CPU-time medians in ms',
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  loadavg: loadavg(), rounds: ROUNDS, tfjs: tfInfo, results,
}, null, 2));
