#!/usr/bin/env node
// Writes the seed of fuzz_model (tests/fuzz/corpus/model/tiny): a flag byte (1: the target recomputes
// the CRC after mutating) and a tiny valid model file of USE-Lite's shape (tests/js/model-files.mjs'
// defaults): 6 ids, embedding 4, output 6, FFN 4, 2 heads, at most 4 tokens, layer widths 4 and 6, a
// 6-piece vocabulary (small enough for the fuzzers' 4,096-byte inputs). Deterministic values, so the
// file is the same each run.
//   node tests/fuzz/make_model_seed.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { modelFile } from '../js/model-files.mjs';

const file = modelFile();
const out = join(dirname(fileURLToPath(import.meta.url)), 'corpus/model');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'tiny'), Buffer.concat([Buffer.of(1), Buffer.from(file)]));
console.log(`fuzz seed: corpus/model/tiny, ${file.length + 1} bytes`);
