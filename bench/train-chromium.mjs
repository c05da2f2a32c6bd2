#!/usr/bin/env node
// One training step of a decoder in headless Chromium, where the users train (transformer.html): the
// model of bench/train-node.mjs (nanoGPT's GPT: 2 layers x 4 heads, dModel 128, dFF 512, vocabulary 64,
// batch 16 x 64 tokens, scaled-dot heads), attnscope's trainer (step(1): forward, backward, clipping,
// Adam) on the module the page loads by default (relaxed SIMD in Chromium) and on its plain SIMD module,
// against the same model trained by TF.js 4.22 on its wasm backend (XNNPACK, SIMD, one thread: the page is
// not cross-origin isolated, as a user's is not), written op by op in bench/tfjs-gpt.mjs, all in one
// page from the same parameters (their first losses are printed: they agree). Each is warmed up for
// ≥ 1 s (V8 runs new wasm in a slower tier first), then they alternate step by step, the order flipped
// every round; medians of the steps' wall times (the page's timer is coarsened to 100 µs; a step is
// over 50 ms) and the ratios.
//   node bench/train-chromium.mjs [--rounds 11] [--out FILE]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { header, option, tfjsPage } from './browser.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(option('rounds') ?? 11);
const out = option('out') ?? join(root, 'bench/results/train-chromium.json');
const load = loadavg();
const SIZE = { layers: 2, heads: 4, dModel: 128, dFF: 512, vocab: 64, tokens: 64, rows: 16, learningRate: 1e-3 };

const { page, close } = await tfjsPage({
  site: join(root, 'build/bench-train-chromium'),
  union: true,   // TF.js with its gradients
  copies: [[join(root, 'bench/tfjs-gpt.mjs'), 'tfjs-gpt.mjs']],
  setup: `const { createAttnScope } = await import('./attnscope.mjs');
window.bench = { tf, gpt: await import('./tfjs-gpt.mjs'), scopes: { default: await createAttnScope(), simd: await createAttnScope({ simd: true }) } };`,
});
try {
  const row = await page.evaluate(async ({ size, rounds }) => {
    const { tf, gpt, scopes } = bench;
    const { layers, heads, dModel, dFF, vocab, tokens, rows, learningRate } = size;
    const { ids, targets } = gpt.trainingBatch(size);
    const config = { kind: 'decoder', layers, heads, dModel, dFF, vocab, maxTokens: tokens, score: 'scaled-dot', seed: 1 };
    const data = { ids, targets, rows, cols: tokens };
    const trainers = Object.entries(scopes).map(([key, scope]) => {
      const model = scope.createModel(config);
      return { key, scope, model, trainer: scope.createModelTrainer(model, { data, batch: rows, learningRate, weightDecay: 0, clip: 1, seed: 1 }) };
    });
    const first = trainers[0].model;
    const tfModel = gpt.tfjsGpt(tf, { params: first.parameters(), shapes: first.shapes, ids, targets, ...size });
    // Before any step, from the same parameters: the batch's mean loss (each row counts 63 positions).
    let ours = 0;
    for (let r = 0; r < rows; r++) ours += first.lossAndGradients(ids.subarray(r * tokens, (r + 1) * tokens), targets.subarray(r * tokens, (r + 1) * tokens)).loss / rows;
    const theirs = tfModel.loss();
    const impls = [
      ...trainers.map((t) => ({ name: `attnscope ${t.scope.variants.build}`, run: () => t.trainer.step(1) })),
      { name: 'tfjs-wasm', run: () => tfModel.step() },
    ];
    for (const im of impls) {
      const t0 = performance.now();
      let k = 0;
      while (performance.now() - t0 < 1000 || k < 3) { im.run(); k++; }
      im.times = [];
    }
    for (let r = 0; r < rounds; r++) {
      for (const im of r % 2 ? [...impls].reverse() : impls) {
        const t0 = performance.now();
        im.run();
        im.times.push(performance.now() - t0);
      }
    }
    const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
    const info = {
      attnscope: scopes.default.variants.build, plain: scopes.simd.variants.build,
      tfjs: { version: tf.version_core, backend: tf.getBackend(), simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
        threads: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT') },
      crossOriginIsolated: self.crossOriginIsolated,
    };
    for (const t of trainers) { t.trainer.dispose(); t.model.dispose(); }
    tfModel.dispose();
    return { ...info, loss_before_training: { attnscope: ours, tfjs: theirs }, ms: Object.fromEntries(impls.map((im) => [im.name, Math.round(median(im.times) * 100) / 100])) };
  }, { size: SIZE, rounds });
  const [fast, plain, tfjs] = Object.values(row.ms);
  const r2 = (x) => Math.round(x * 100) / 100;
  const json = {
    benchmark: 'one decoder training step (2 layers x 4 heads, d 128, d_ff 512, vocab 64, batch 16 x 64) in headless Chromium, one page: attnscope trainer (default and plain SIMD module) vs TF.js wasm, interleaved, wall-time medians',
    ...header({ load }), loadavg_end: loadavg().map((x) => r2(x)), rounds, ...row,
    tfjs_over_attnscope: r2(tfjs / fast), tfjs_over_attnscope_simd: r2(tfjs / plain), relaxed_speedup: r2(plain / fast),
  };
  console.error(`one step: ${Object.entries(row.ms).map(([k, v]) => `${k} ${v} ms`).join(', ')}; TF.js/attnscope ${json.tfjs_over_attnscope}× (plain SIMD ${json.tfjs_over_attnscope_simd}×); `
    + `loss before training ${row.loss_before_training.attnscope.toFixed(6)} vs ${row.loss_before_training.tfjs.toFixed(6)}`);
  writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
} finally {
  await close();
}
