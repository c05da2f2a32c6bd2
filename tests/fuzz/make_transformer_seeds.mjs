#!/usr/bin/env node
// Writes the seeds of fuzz_transformer (tests/fuzz/corpus/transformer/): files saved by model.save() from
// dist/ (npm run build first) — a tiny decoder with its tokens (one of them a newline) and a learned τ,
// and a tiny encoder-decoder with an additive cross-attention head — small enough for the fuzzers'
// 4,096-byte inputs. The parameters are the seed's, so the files are the same each run.
//   node tests/fuzz/make_transformer_seeds.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { createAttnScope } = await import(pathToFileURL(join(here, '../../dist/attnscope.mjs')).href);
const scope = await createAttnScope({ preload: false });
const out = join(here, 'corpus/transformer');
mkdirSync(out, { recursive: true });
const decoder = scope.createModel({ kind: 'decoder', layers: 1, heads: 1, dModel: 2, dFF: 2, vocab: 3, maxTokens: 3, score: 'cosine', temperature: 'learned', seed: 1 });
decoder.setTokens(['a', '\n', 'bc']);
const pair = scope.createModel({ kind: 'encoder-decoder', layers: 1, heads: 1, dModel: 2, dFF: 0, vocab: 3, maxTokens: 3, score: { 'cross.0.0': 'additive' }, seed: 2 });
for (const [name, model] of [['decoder', decoder], ['encoder-decoder', pair]]) {
  const bytes = model.save();
  writeFileSync(join(out, name), bytes);
  console.log(`fuzz seed: corpus/transformer/${name}, ${bytes.length} bytes`);
  model.dispose();
}
