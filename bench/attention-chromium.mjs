#!/usr/bin/env node
// softmax(Q Kᵀ/√d) V in headless Chromium, where the users are: attnscope's fused attentionOutput() on
// the module the page loads by default (relaxed SIMD in Chromium) and on its plain SIMD module, against
// TensorFlow.js 4.22's wasm backend (XNNPACK, SIMD, one thread: the page is not cross-origin isolated,
// as a user's page is not) in the same page, written as bench/attention-node.mjs writes it:
// matMul(softmax(matMul(Q, transpose(K)) · 1/√d), V). Each implementation is warmed up for ≥ 1 s (V8
// runs new wasm in a slower tier first), then they alternate batch by batch (the order flipped every
// batch); a batch lasts ≥ 20 ms (the page's timer is coarsened to 100 µs). Medians of the per-call
// times; ratios TF.js / attnscope. The outputs are compared (max |diff|) so nothing is measured that
// computes something else.
// With --baseline DIR (another build's dist/, say main's before a kernel change), that build's default
// module runs as a fourth case in the same page: the A/B of a kernel change where the users are.
//   node bench/attention-chromium.mjs [--sizes 512x64,2048x64,512x128,2048x128] [--batches 9] [--out FILE] [--baseline DIR]
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, scopesPage, tfjsRatios, writeScopesResult } from './browser.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sizes = (option('sizes') ?? '512x64,2048x64,512x128,2048x128').split(',').map((s) => s.split('x').map(Number));
const batches = Number(option('batches') ?? 9);
const out = option('out') ?? join(root, 'bench/results/attention-chromium.json');
const baseline = option('baseline');
const load = loadavg();

const { page, close, info } = await scopesPage({ site: join(root, 'build/bench-chromium'), baseline });
try {
  const results = [];
  for (const [n, d] of sizes) {
    const row = await page.evaluate(async ({ n, d, batches }) => {
      const { tf, scopes } = bench;
      let seed = 12345;
      const rand = (k) => Float32Array.from({ length: k }, () => { seed = (seed * 16807) % 2147483647; return (seed / 2147483647) * 2 - 1; });
      const Q = rand(n * d), K = rand(n * d), V = rand(n * d);
      const opts = { nq: n, nk: n, d, dv: d, score: 'scaled-dot' };
      const q = tf.tensor2d(Q, [n, d]), k = tf.tensor2d(K, [n, d]), v = tf.tensor2d(V, [n, d]), scale = tf.scalar(1 / Math.sqrt(d));
      const impls = [
        { name: `attnscope ${scopes.default.variants.build}`, run: () => scopes.default.attentionOutput(Q, K, V, opts) },
        { name: 'attnscope simd', run: () => scopes.simd.attentionOutput(Q, K, V, opts) },
        { name: 'tfjs-wasm', run: () => tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(q, tf.transpose(k)), scale)), v)).dataSync() },
      ];
      if (scopes.before) impls.push({ name: `baseline ${scopes.before.variants.build}`, run: () => scopes.before.attentionOutput(Q, K, V, opts) });
      const outputs = impls.map((im) => im.run());
      let diff = 0;
      for (const o of [outputs[0], outputs[1], outputs[3]].filter(Boolean))
        for (let i = 0; i < o.length; i++) diff = Math.max(diff, Math.abs(o[i] - outputs[2][i]));
      const ms = await timeCases(impls, batches);
      q.dispose(); k.dispose(); v.dispose(); scale.dispose();
      return { n, d, ms, max_abs_diff_vs_tfjs: diff };
    }, { n, d, batches });
    const { fast, plain, before } = tfjsRatios(row);
    if (before !== undefined) row.baseline_over_attnscope = Math.round((before / fast) * 1000) / 1000;
    row.relaxed_speedup = Math.round((plain / fast) * 100) / 100;
    console.error(`n=${n} d=${d}: ${Object.entries(row.ms).map(([k, v]) => `${k} ${v} ms`).join(', ')}; TF.js/attnscope ${row.tfjs_over_attnscope}× (plain SIMD ${row.tfjs_over_attnscope_simd}×${before !== undefined ? `, baseline ${row.tfjs_over_baseline}×` : ''}), diff ${row.max_abs_diff_vs_tfjs.toExponential(1)}`);
    results.push(row);
  }
  writeScopesResult(out, { benchmark: 'softmax(Q Kᵀ/√d) V in headless Chromium, one page: attnscope attentionOutput (default and plain SIMD module) vs TF.js wasm, interleaved batches, medians',
    load, baseline, batches, info, results });
} finally {
  await close();
}
