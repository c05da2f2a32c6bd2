// Small model files of USE-Lite's format (docs/model.md, "The weights file"), written with the
// converter's own serialize(): for the fuzzers' seed and for the tests of hostile or odd files.
// Deterministic values (a linear congruential stream), so a file is the same on every run.
import { serialize } from '../../scripts/build-model.mjs';

/**
 * The tensors of a model: `widths` gives each layer's attention width (a multiple of `heads`), the
 * embedding is `embed` wide, the output `out`, the feed-forward `ffn`; `vocab` ids, `pieces` pieces,
 * at most `maxTokens` tokens. Returns [name, dtype, shape, values][] for serialize().
 */
export function modelTensors({ vocab = 6, embed = 4, out = 6, ffn = 4, heads = 2, maxTokens = 4, pieces = 6, widths = [4, 6] } = {}) {
  let state = 1;
  const next = () => { state = (state * 1103515245 + 12345) >>> 0; return state / 2 ** 32 - 0.5; };
  const values = (n, scale = 0.5) => Float32Array.from({ length: n }, () => next() * 2 * scale);
  const [V, E, O, F, H] = [vocab, embed, out, ffn, heads];
  const t = [['config', 'u32', [8 + widths.length], Uint32Array.from([widths.length, V, E, O, F, H, maxTokens, pieces, ...widths])],
    ['embedding', 'f16', [V, E], values(V * E)],
    ['timing.inv', 'f32', [E / 2], Float32Array.from({ length: E / 2 }, (_, i) => 1e4 ** (-i / Math.max(1, E / 2 - 1)))]];
  let din = E;
  widths.forEach((d, l) => {
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
  });
  t.push(['pool.w', 'f16', [O, O], values(O * O)], ['pool.b', 'f32', [O], values(O)],
    ['ln.eps', 'f32', [1], Float32Array.of(1e-6)], ['l2.eps', 'f32', [1], Float32Array.of(1e-12)]);
  const enc = new TextEncoder();
  const texts = Array.from({ length: pieces }, (_, i) => enc.encode(i === 0 ? '<unk>' : `\u2581p${i}`));
  const offsets = new Uint32Array(pieces + 1);
  texts.forEach((p, i) => { offsets[i + 1] = offsets[i] + p.length; });
  const bytes = new Uint8Array(offsets[pieces]);
  texts.forEach((p, i) => bytes.set(p, offsets[i]));
  t.push(['vocab.offsets', 'u32', [pieces + 1], offsets], ['vocab.bytes', 'u8', [bytes.length], bytes],
    ['vocab.scores', 'f64', [pieces], Float64Array.from({ length: pieces }, (_, i) => -0.1 * i)],
    ['vocab.null', 'u8', [pieces], Uint8Array.from({ length: pieces }, (_, i) => (i === 2 ? 1 : 0))]);
  return t;
}

/** A model file's bytes (see modelTensors for the options). */
export function modelFile(options) {
  return serialize(modelTensors(options));
}
