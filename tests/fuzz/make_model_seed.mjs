#!/usr/bin/env node
// Writes the seed of fuzz_model (tests/fuzz/corpus/model/tiny): a flag byte (1: the target recomputes
// the CRC after mutating) and a tiny valid model file of USE-Lite's shape, in the format
// scripts/build-model.mjs writes: 6 ids, embedding 4, output 6, FFN 4, 2 heads, at most 4 tokens,
// layer widths 4 and 6, a 6-piece vocabulary (small enough for the fuzzers' 4,096-byte inputs). Deterministic values, so the file is the same each run.
//   node tests/fuzz/make_model_seed.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serialize } from '../../scripts/build-model.mjs';

let state = 1;
const next = () => { state = (state * 1103515245 + 12345) >>> 0; return state / 2 ** 32 - 0.5; };
const values = (n, scale = 0.5) => Float32Array.from({ length: n }, () => next() * 2 * scale);
const [V, E, O, F, H, T, P] = [6, 4, 6, 4, 2, 4, 6];
const t = [['config', 'u32', [10], Uint32Array.from([2, V, E, O, F, H, T, P, 4, 6])],
  ['embedding', 'f16', [V, E], values(V * E)],
  ['timing.inv', 'f32', [E / 2], Float32Array.from({ length: E / 2 }, (_, i) => 1e4 ** (-i / (E / 2 - 1)))]];
let din = E;
for (const [l, d] of [[0, 4], [1, 6]]) {
  const p = `l${l}.`;
  t.push([p + 'ln1.g', 'f32', [din], values(din)], [p + 'ln1.b', 'f32', [din], values(din)],
    [p + 'qkv.w', 'f16', [din, 3 * d], values(din * 3 * d)], [p + 'qkv.b', 'f32', [3 * d], values(3 * d)],
    [p + 'q_scale', 'f32', [1], Float32Array.of(Math.fround(1 / Math.fround(Math.sqrt(d / H))))],
    [p + 'out.w', 'f16', [d, O], values(d * O)], [p + 'out.b', 'f32', [O], values(O)]);
  if (din !== O) t.push([p + 'res.w', 'f16', [din, O], values(din * O)], [p + 'res.b', 'f32', [O], values(O)]);
  t.push([p + 'ln2.g', 'f32', [O], values(O)], [p + 'ln2.b', 'f32', [O], values(O)],
    [p + 'ffn1.w', 'f16', [O, F], values(O * F)], [p + 'ffn1.b', 'f32', [F], values(F)],
    [p + 'ffn2.w', 'f16', [F, O], values(F * O)], [p + 'ffn2.b', 'f32', [O], values(O)]);
  din = O;
}
t.push(['pool.w', 'f16', [O, O], values(O * O)], ['pool.b', 'f32', [O], values(O)],
  ['ln.eps', 'f32', [1], Float32Array.of(1e-6)], ['l2.eps', 'f32', [1], Float32Array.of(1e-12)]);
const pieces = Array.from({ length: P }, (_, i) => new TextEncoder().encode(i === 0 ? '<unk>' : `\u2581p${i}`));
const offsets = new Uint32Array(P + 1);
pieces.forEach((p, i) => { offsets[i + 1] = offsets[i] + p.length; });
const bytes = new Uint8Array(offsets[P]);
pieces.forEach((p, i) => bytes.set(p, offsets[i]));
t.push(['vocab.offsets', 'u32', [P + 1], offsets], ['vocab.bytes', 'u8', [bytes.length], bytes],
  ['vocab.scores', 'f64', [P], Float64Array.from({ length: P }, (_, i) => -0.1 * i)],
  ['vocab.null', 'u8', [P], Uint8Array.from({ length: P }, (_, i) => (i === 2 ? 1 : 0))]);
const file = serialize(t);
const out = join(dirname(fileURLToPath(import.meta.url)), 'corpus/model');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'tiny'), Buffer.concat([Buffer.of(1), Buffer.from(file)]));
console.log(`fuzz seed: corpus/model/tiny, ${file.length + 1} bytes`);
