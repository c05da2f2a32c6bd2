#!/usr/bin/env node
// One training step of a decoder (nanoGPT's GPT: 2 layers x 4 heads, dModel 128, dFF 512, vocabulary 64,
// batch 16 x 64 tokens, scaled-dot heads) in one node process: attnscope's trainer (createModelTrainer,
// step(1): forward, backward, gradient clipping, Adam) against the same model trained by TF.js 4.22 on
// its wasm backend (XNNPACK, SIMD, one thread), written op by op from the same definition
// (bench/tfjs-gpt.mjs; weight decay 0 on both sides: TF.js has no AdamW). Both start from the same parameters, so
// their first losses agree; each is warmed up for ≥ 1 s, then the two alternate step by step (the order
// flipped each round); CPU-time medians and the ratio. Then attnscope's wasm memory over --steps steps.
//   node bench/train-node.mjs [--rounds 15] [--steps 1000] [--dist DIR] > bench/results/train-node.json
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tfjsGpt, trainingBatch } from './tfjs-gpt.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const ROUNDS = Number(arg('--rounds', 15));
const STEPS = Number(arg('--steps', 1000));
const dist = resolve(arg('--dist', join(root, 'dist')));
const load = loadavg();

const L = 2, H = 4, D = 128, F = 512, V = 64, T = 64, B = 16, LR = 1e-3;
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };

// ---- the data: 16 rows of 64 tokens (one batch, so both sides train on exactly the same rows) -------
const { ids, targets } = trainingBatch({ rows: B, tokens: T, vocab: V });

// ---- attnscope ---------------------------------------------------------------------------------------
const { createAttnScope } = await import(pathToFileURL(join(dist, 'attnscope.mjs')).href);
const scope = await createAttnScope();
const model = scope.createModel({ kind: 'decoder', layers: L, heads: H, dModel: D, dFF: F, vocab: V, maxTokens: T, score: 'scaled-dot', seed: 1 });
// batch = rows: with one batch of rows, every step draws 16 of them (with replacement): the same work as TF.js's.
const trainer = scope.createModelTrainer(model, { data: { ids, targets, rows: B, cols: T }, batch: B, learningRate: LR, weightDecay: 0, clip: 1, seed: 1 });
const params = model.parameters();

// ---- TF.js, the same model from the same parameters ------------------------------------------------
const tf = require('@tensorflow/tfjs');
const tfwasm = require('@tensorflow/tfjs-backend-wasm');
tfwasm.setWasmPaths(join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/');
tfwasm.setThreadsCount(1);
await tf.setBackend('wasm');
await tf.ready();
const gpt = tfjsGpt(tf, { params, shapes: model.shapes, ids, targets, layers: L, heads: H, dModel: D, vocab: V, tokens: T, rows: B, learningRate: LR });

// Before any step, from the same parameters: the same loss over the 16 rows (each row counts 63
// positions, so the batch's mean is the mean of the rows' means), a check that the two models agree.
const firstTf = gpt.loss();
let firstOurs = 0;
for (let r = 0; r < B; r++) firstOurs += model.lossAndGradients(ids.subarray(r * T, (r + 1) * T), targets.subarray(r * T, (r + 1) * T)).loss / B;
console.error(`loss before training: attnscope ${firstOurs}, TF.js ${firstTf}`);

const impls = [
  { name: 'attnscope step', run: () => trainer.step(1) },
  { name: 'tfjs-wasm step', run: () => gpt.step() },
];
for (const im of impls) { const t0 = cpuMs(); let k = 0; while (cpuMs() - t0 < 1000 || k < 3) { im.run(); k++; } im.times = []; }
for (let r = 0; r < ROUNDS; r++) {
  for (const im of r % 2 ? [...impls].reverse() : impls) {
    const t0 = cpuMs();
    im.run();
    im.times.push(cpuMs() - t0);
  }
}
const ms = Object.fromEntries(impls.map((im) => [im.name, Math.round(median(im.times) * 100) / 100]));
console.error(`one step, batch ${B} x ${T}: attnscope ${ms['attnscope step']} ms, TF.js ${ms['tfjs-wasm step']} ms: ${(ms['tfjs-wasm step'] / ms['attnscope step']).toFixed(2)}x`);

// attnscope's wasm memory over many steps: flat.
const memory = [];
const before = scope.memoryInUse();
const every = Math.max(1, Math.round(STEPS / 10));
for (let done = 1; done <= STEPS; done++) {
  trainer.step(1);  // (a step of this model is about a third of the per-call work budget)
  if (done % every === 0) memory.push({ steps: done, bytes_in_use: scope.memoryInUse() });
}
console.error(`memory in use: ${before} bytes before, ${memory.map((m) => m.bytes_in_use).join(', ')} after each ${every} of ${STEPS} steps`);

console.log(JSON.stringify({
  benchmark: 'one decoder training step (2 layers x 4 heads, d 128, d_ff 512, vocab 64, batch 16 x 64): attnscope vs TF.js wasm in one process, interleaved, CPU-time medians; attnscope memory over many steps',
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
  loadavg: load, loadavg_end: loadavg(), attnscope: scope.variants.build,
  tfjs: { version: tf.version.tfjs, backend: tf.getBackend(), simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'), threads: tfwasm.getThreadsCount() },
  loss_before_training: { attnscope: firstOurs, tfjs: firstTf },
  rounds: ROUNDS, median_ms: ms, tfjs_over_attnscope: Math.round((ms['tfjs-wasm step'] / ms['attnscope step']) * 100) / 100,
  memory: { before, after: memory },
}, null, 2));
