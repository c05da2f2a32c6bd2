// scripts/build-model.mjs: the converter refuses a package whose graph differs from what the C++
// forward pass implements (and says what differs), writes the same bytes on every run, stays within
// the download budget, and rounds to fp16 correctly.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { DIST } from './helpers.mjs';
import { convert, fromHalf, readPackage, serialize, toHalf } from '../../scripts/build-model.mjs';

let pkg;
before(() => { pkg = readPackage(); });

/** A copy of the package with fn applied to a deep copy of model.json and a shallow copy of the weights. */
function changed(fn) {
  const copy = { ...pkg, model: structuredClone(pkg.model), weights: new Map(pkg.weights), vocab: pkg.vocab.slice() };
  fn(copy);
  return copy;
}
const node = (p, suffix) => p.model.modelTopology.node.find((n) => n.name.endsWith(suffix));

test('the shipped file is what the converter writes from the package, and fits the 15 MB budget', () => {
  const bytes = serialize(convert(pkg));
  const shipped = readFileSync(join(DIST, 'use-lite.bin'));
  assert.equal(Buffer.compare(Buffer.from(bytes), shipped), 0, 'dist/use-lite.bin is reproducible from the package');
  assert.ok(bytes.length <= 15e6, `${bytes.length} bytes`);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 8)), 'ATSMODEL');
  const license = readFileSync(join(DIST, 'use-lite.LICENSE'), 'utf8');
  assert.match(license, /Universal Sentence Encoder Lite.*@energetic-ai\/model-embeddings-en@0\.2\.0.*Apache License 2\.0/s);
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.ok(statSync(join(DIST, 'use-lite.bin')).size === bytes.length);
});

test('a graph that differs from the implemented architecture is refused, naming what differs', () => {
  const cases = [
    [(p) => { node(p, 'Layer_0/TransformerLayer/FFN/conv1/Relu').op = 'Relu6'; }, /node .*Layer_0\/TransformerLayer\/FFN\/conv1\/Relu is Relu6, expected Relu/],
    [(p) => { node(p, 'hidden_layers/tanh_layer_0/Tanh').op = 'Sigmoid'; }, /tanh_layer_0\/Tanh is Sigmoid, expected Tanh/],
    [(p) => { node(p, 'TransformerStack/Layer_0/add').input.reverse(); }, /Layer_0\/add has inputs .*, expected/],
    [(p) => { p.model.modelTopology.node = p.model.modelTopology.node.filter((n) => !n.name.endsWith('Layer_1/TransformerLayer/layer_prepostprocess/layer_norm/Rsqrt')); }, /Layer_1\/TransformerLayer\/layer_prepostprocess\/layer_norm\/Rsqrt is missing/],
    [(p) => { const k = [...p.weights.keys()].find((n) => n.endsWith('Layer_1/TransformerLayer/MultiheadAttention/mul/y')); p.weights.set(k, { ...p.weights.get(k), data: Float32Array.of(0.125) }); }, /layer 1: q is scaled by 0\.125, expected 1\/sqrt\(128\)/],
    [(p) => { const k = 'module/Embeddings_en'; p.weights.set(k, { ...p.weights.get(k), shape: [8001, 256] }); }, /weight module\/Embeddings_en is float32 \[8001,256\], expected float32 \[8002,256\]/],
    [(p) => { const k = [...p.weights.keys()].find((n) => n.endsWith('SparseToDense/default_value')); p.weights.set(k, { ...p.weights.get(k), data: Int32Array.of(0) }); }, /SparseToDense\/default_value is \[0\], expected \[-1\]/],
    [(p) => { const k = [...p.weights.keys()].find((n) => n.endsWith('ClipToMaxLength/Less/y')); p.weights.set(k, { ...p.weights.get(k), data: Int32Array.of(256) }); }, /ClipToMaxLength\/Less\/y is \[256\], expected \[128\]/],
    [(p) => { p.vocab.pop(); }, /vocab\.json has 7999 entries, expected 8000/],
  ];
  for (const [fn, message] of cases) {
    assert.throws(() => convert(changed(fn)), (e) => /^build-model: @energetic-ai\/model-embeddings-en is not the model attnscope implements/.test(e.message) && message.test(e.message), String(fn));
  }
});

test('fp16: round to nearest even, subnormals, overflow; weights within half an ulp', () => {
  for (const [x, h] of [[1, 0x3c00], [-2, 0xc000], [65504, 0x7bff], [65520, 0x7c00], [1e6, 0x7c00], [2 ** -24, 0x0001], [2 ** -25, 0x0000],
    [3 * 2 ** -26, 0x0001], [0.1, 0x2e66], [1 + 2 ** -11, 0x3c00], [1 + 3 * 2 ** -11, 0x3c02], [-0, 0x8000], [Infinity, 0x7c00]]) {
    assert.equal(toHalf(x), h, `toHalf(${x})`);
  }
  assert.ok(Number.isNaN(fromHalf(toHalf(NaN))));
  for (let h = 0; h < 0x7c00; h += 7) assert.equal(toHalf(fromHalf(h)), h);
  // Every weight of the embedding table: |fp16 - fp32| <= 2^-11 |x| (normal range) or 2^-25 (subnormal).
  const emb = pkg.weights.get('module/Embeddings_en').data;
  for (let i = 0; i < emb.length; i += 13) {
    const x = emb[i], err = Math.abs(fromHalf(toHalf(x)) - x);
    assert.ok(err <= Math.max(2 ** -11 * Math.abs(x), 2 ** -25), `embedding[${i}] = ${x}: error ${err}`);
  }
});
