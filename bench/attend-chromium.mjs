#!/usr/bin/env node
// attend() in headless Chromium, where the users are, against the same multi-head attention written in
// TensorFlow.js 4.22 on its wasm backend (XNNPACK, SIMD, one thread: the page is not cross-origin
// isolated, as a user's is not), in one page. attnscope's attend() runs on the module the page loads by
// default (relaxed SIMD in Chromium) and on its plain SIMD module: it tokenizes the texts, looks the
// words up (GloVe, d = 100), projects them with the given W_q, W_k, W_v into 8 heads of 64, scores
// (scaled-dot), takes the softmax, each row's statistics (entropy, largest weight and where), the
// heads' outputs and their projection by W_o, and copies all of it out (scores and weights included).
// TF.js gets the embeddings attend() looked up, already in its memory (no tokenizing, no lookup), and
// computes the same from them: X W, the heads' Q Kᵀ/√d, softmax, the statistics, A V, the joined
// heads times W_o, read back with dataSync(). Both are checked to agree before timing. Each is warmed
// up for ≥ 1 s (V8 runs new wasm in a slower tier first), then they alternate batch by batch (the order
// flipped every batch); a batch lasts ≥ 20 ms (the page's timer is coarsened to 100 µs). Medians.
//   node bench/attend-chromium.mjs [--words 12,100,1000] [--batches 9] [--out FILE] [--baseline DIR]
// With --baseline DIR (another build's dist/), that build's default module runs as a fourth case.
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, scopesPage, tfjsRatios, writeScopesResult } from './browser.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const words = (option('words') ?? '12,100,1000').split(',').map(Number);
const batches = Number(option('batches') ?? 9);
const out = option('out') ?? join(root, 'bench/results/attend-chromium.json');
const baseline = option('baseline');
const load = loadavg();
const HEADS = 8, D_HEAD = 64, D_OUT = 100;

const { page, close, info } = await scopesPage({ site: join(root, 'build/bench-attend-chromium'), baseline, files: ['glove-50k.bin'], scopeOptions: '{ preload: true }', timeout: 120000 });
try {
  const results = [];
  for (const count of words) {
    const row = await page.evaluate(async ({ count, batches, H, dh, dOut }) => {
      const { tf, scopes } = bench;
      let seed = 12345;
      const uniform = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
      const LEXICON = ('the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her '
        + 'she there been one all we their has would when if so no will more can other into some time only them two may then do first any my now '
        + 'such like our over man me even most made after also did many before must through back years where much your way well down should because '
        + 'each just those people how too little state good very make world still own see men work long get here between both life being under never '
        + 'day same another know while last might us great old year off come since against go came right used take three').split(' ');
      const text = (n) => Array.from({ length: n }, () => LEXICON[Math.floor(uniform() * LEXICON.length)]).join(' ');
      // Twelve words: a pair of sentences (cross-attention); longer: one text attending to itself.
      const query = text(count), keys = count <= 12 ? text(count) : undefined;
      const d = 100, cols = H * dh;
      const matrix = (r, c) => { const s = Math.sqrt(6 / (r + c)); return Float32Array.from({ length: r * c }, () => (uniform() * 2 - 1) * s); };
      const W = { Wq: matrix(d, cols), Wk: matrix(d, cols), Wv: matrix(d, cols), Wo: matrix(cols, dOut) };
      const options = { query, keys, heads: H, projection: { ...W, dHead: dh, dValue: dh, dOut }, maxTokens: Math.max(512, count) };
      const probe = scopes.default.attend(options);
      const { nq, nk } = probe;
      const t = {
        xq: tf.tensor2d(probe.queryEmbeddings, [nq, d]), xk: tf.tensor2d(probe.keyEmbeddings, [nk, d]),
        wq: tf.tensor2d(W.Wq, [d, cols]), wk: tf.tensor2d(W.Wk, [d, cols]), wv: tf.tensor2d(W.Wv, [d, cols]), wo: tf.tensor2d(W.Wo, [cols, dOut]),
        scale: tf.scalar(1 / Math.sqrt(dh)), tiny: tf.scalar(1e-30),
      };
      // [n, H·dh] → [H, n, dh]
      const heads = (x, n) => tf.transpose(tf.reshape(x, [n, H, dh]), [1, 0, 2]);
      // The tensors are read back after tidy(): a typed array returned from inside it is walked element by
      // element in search of tensors, which would cost TF.js more than the attention.
      const tfAttend = () => {
        const y = tf.tidy(() => {
          const q = heads(tf.matMul(t.xq, t.wq), nq), k = heads(tf.matMul(t.xk, t.wk), nk), v = heads(tf.matMul(t.xk, t.wv), nk);
          const scores = tf.mul(tf.matMul(q, tf.transpose(k, [0, 2, 1])), t.scale);
          const weights = tf.softmax(scores);
          const entropy = tf.neg(tf.sum(tf.mul(weights, tf.log(tf.maximum(weights, t.tiny))), -1));
          const joined = tf.reshape(tf.transpose(tf.matMul(weights, v), [1, 0, 2]), [nq, cols]);
          return { scores, weights, output: tf.matMul(joined, t.wo), entropy, maxWeight: tf.max(weights, -1), argmax: tf.argMax(weights, -1) };
        });
        const r = Object.fromEntries(Object.entries(y).map(([key, x]) => [key, x.dataSync()]));
        for (const x of Object.values(y)) x.dispose();
        return { scores: r.scores, weights: r.weights, output: r.output, stats: { entropy: r.entropy, maxWeight: r.maxWeight, argmax: r.argmax } };
      };
      const theirs = tfAttend();
      const diff = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
      const impls = [
        { name: `attnscope ${scopes.default.variants.build}`, run: () => scopes.default.attend(options) },
        { name: 'attnscope simd', run: () => scopes.simd.attend(options) },
        { name: 'tfjs-wasm', run: tfAttend },
      ];
      if (scopes.before) impls.push({ name: `baseline ${scopes.before.variants.build}`, run: () => scopes.before.attend(options) });
      const agreement = { weights: 0, output: 0, maxWeight: 0, entropy: 0 };
      for (const im of impls.filter((im) => im.name !== 'tfjs-wasm')) {
        const r = im.run();
        if (r.nq !== nq || r.nk !== nk) throw new Error(`${im.name}: ${r.nq} x ${r.nk} tokens, expected ${nq} x ${nk}`);
        agreement.weights = Math.max(agreement.weights, diff(r.weights, theirs.weights));
        agreement.output = Math.max(agreement.output, diff(r.output, theirs.output));
        agreement.maxWeight = Math.max(agreement.maxWeight, diff(r.stats.maxWeight, theirs.stats.maxWeight));
        agreement.entropy = Math.max(agreement.entropy, diff(r.stats.entropy, theirs.stats.entropy));
      }
      const ms = await timeCases(impls, batches);
      for (const x of Object.values(t)) x.dispose();
      return { words: count, nq, nk, heads: H, d_head: dh, d_out: dOut, cross: keys !== undefined, ms, max_abs_diff_vs_tfjs: agreement };
    }, { count, batches, H: HEADS, dh: D_HEAD, dOut: D_OUT });
    const { before } = tfjsRatios(row);
    const a = row.max_abs_diff_vs_tfjs;
    // The same numbers or the benchmark compares nothing: float32 rounding only.
    if (!(a.weights < 1e-5 && a.output < 1e-4 && a.maxWeight < 1e-5 && a.entropy < 1e-4)) throw new Error(`attend-chromium: attnscope and TF.js disagree at ${count} words: ${JSON.stringify(a)}`);
    console.error(`${count} words (${row.nq} x ${row.nk} tokens): ${Object.entries(row.ms).map(([k, v]) => `${k} ${v} ms`).join(', ')}; TF.js/attnscope ${row.tfjs_over_attnscope}× `
      + `(plain SIMD ${row.tfjs_over_attnscope_simd}×${before !== undefined ? `, baseline ${row.tfjs_over_baseline}×` : ''}), weights diff ${a.weights.toExponential(1)}`);
    results.push(row);
  }
  writeScopesResult(out, { benchmark: 'attend() (8 heads of 64, W_o, scaled-dot) in headless Chromium, one page: attnscope (default and plain SIMD module) vs the same attention in TF.js wasm from the looked-up embeddings, interleaved batches, medians',
    load, baseline, batches, info, results });
} finally {
  await close();
}
