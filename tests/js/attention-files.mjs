// Shared by the import tests: a small randomly initialised attention stack (a real-shaped tensor from
// a tiny transformer written here, no download), writers of .npy, .npz (stored zip, as numpy.savez)
// and .safetensors, and float64 references of rollout and head summaries. Not a test file itself.
import { deflateRawSync, crc32 } from 'node:zlib';
import { rng } from './helpers.mjs';

/**
 * A tiny self-attention stack: random token vectors X [n, d]; per layer and head random Wq, Wk, Wv
 * [d, dh]; A = softmax(Q·Kᵀ/√dh); X ← X + mean over heads of A·V·Woᵀ (random Wo). → Float32Array
 * [layers, heads, n, n] whose rows sum to 1, with real structure (not uniform noise).
 */
export function tinyTransformer(layers, heads, n, seed = 1, d = 16) {
  const r = rng(seed);
  const dh = Math.max(1, Math.floor(d / heads));
  let X = Array.from({ length: n }, () => Array.from(r.floats(d)));
  const out = new Float32Array(layers * heads * n * n);
  const proj = (M, W, cols) => M.map((row) => Array.from({ length: cols }, (_, c) => row.reduce((s, x, k) => s + x * W[k * cols + c], 0)));
  for (let l = 0; l < layers; l++) {
    const delta = Array.from({ length: n }, () => new Array(d).fill(0));
    for (let h = 0; h < heads; h++) {
      const Wq = r.floats(d * dh, 1), Wk = r.floats(d * dh, 1), Wv = r.floats(d * dh, 1), Wo = r.floats(dh * d, 0.3);
      const Q = proj(X, Wq, dh), K = proj(X, Wk, dh), V = proj(X, Wv, dh);
      for (let i = 0; i < n; i++) {
        const s = K.map((k) => k.reduce((acc, x, c) => acc + x * Q[i][c], 0) / Math.sqrt(dh));
        const m = Math.max(...s);
        const e = s.map((x) => Math.exp(x - m));
        const z = e.reduce((a, b) => a + b, 0);
        const base = ((l * heads + h) * n + i) * n;
        for (let j = 0; j < n; j++) out[base + j] = e[j] / z;
        for (let c = 0; c < dh; c++) {
          const o = V.reduce((acc, v, j) => acc + (e[j] / z) * v[c], 0);
          for (let k = 0; k < d; k++) delta[i][k] += (o * Wo[c * d + k]) / heads;
        }
      }
    }
    X = X.map((row, i) => row.map((x, k) => x + delta[i][k]));
  }
  return out;
}

const enc = new TextEncoder();
function concat(parts) {
  const total = parts.reduce((a, p) => a + p.length, 0);
  const b = new Uint8Array(total);
  let at = 0;
  for (const p of parts) { b.set(p, at); at += p.length; }
  return b;
}

function f16(x) {  // float → IEEE half bits, round to nearest (normal and subnormal range of weights)
  if (x === 0) return 0;
  const e = Math.floor(Math.log2(x));
  if (e < -14) return Math.round(x * 2 ** 24);
  const m = Math.round((x / 2 ** e - 1) * 1024);
  return m === 1024 ? ((e + 16) << 10) : (((e + 15) << 10) | m);
}

/** .npy of a float array: version 1, 2 or 3 header; descr '<f4' | '>f4' | '<f2' | '<f8' | ... */
export function npy(values, shape, { version = 1, descr = '<f4', fortran = false } = {}) {
  const tuple = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let h = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${tuple}, }`;
  const pre = version === 1 ? 10 : 12;
  while ((pre + h.length + 1) % 64) h += ' ';
  h += '\n';
  const head = new Uint8Array(pre);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const dv = new DataView(head.buffer);
  if (version === 1) dv.setUint16(8, h.length, true); else dv.setUint32(8, h.length, true);
  const item = { f4: 4, f2: 2, f8: 8 }[descr.slice(1)] ?? 4;
  const data = new Uint8Array(values.length * item);
  const d = new DataView(data.buffer);
  for (let i = 0; i < values.length; i++) {
    if (descr === '<f4') d.setFloat32(4 * i, values[i], true);
    else if (descr === '>f4') d.setFloat32(4 * i, values[i], false);
    else if (descr === '<f2') d.setUint16(2 * i, f16(values[i]), true);
    else if (descr === '<f8') d.setFloat64(8 * i, values[i], true);
  }
  return concat([head, enc.encode(h), data]);
}

/** numpy.array(tokens) saved: dtype '<U{width}' (UTF-32LE, NUL-padded). */
export function npyStrings(tokens) {
  const cps = tokens.map((t) => Array.from(t, (c) => c.codePointAt(0)));
  const w = Math.max(1, ...cps.map((c) => c.length));
  let h = `{'descr': '<U${w}', 'fortran_order': False, 'shape': (${tokens.length},), }`;
  while ((10 + h.length + 1) % 64) h += ' ';
  h += '\n';
  const head = new Uint8Array(10);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(head.buffer).setUint16(8, h.length, true);
  const data = new Uint8Array(tokens.length * w * 4);
  const d = new DataView(data.buffer);
  cps.forEach((c, t) => c.forEach((cp, k) => d.setUint32((t * w + k) * 4, cp, true)));
  return concat([head, enc.encode(h), data]);
}

/**
 * A zip of stored members (what numpy.savez writes), or with `deflate` of deflated ones (what
 * numpy.savez_compressed writes, by node's zlib). `method` alone only marks the members' method.
 */
export function zip(members, { method = 0, deflate = false } = {}) {
  const locals = [], central = [];
  let offset = 0;
  if (deflate) method = 8;
  for (const [name, raw] of Object.entries(members)) {
    const n = enc.encode(name);
    const data = deflate ? new Uint8Array(deflateRawSync(raw)) : raw;
    const crc = deflate ? crc32(raw) : 0;
    const lh = new Uint8Array(30), l = new DataView(lh.buffer);
    l.setUint32(0, 0x04034b50, true); l.setUint16(4, 20, true); l.setUint16(8, method, true); l.setUint32(14, crc, true);
    l.setUint32(18, data.length, true); l.setUint32(22, raw.length, true); l.setUint16(26, n.length, true);
    const ch = new Uint8Array(46), c = new DataView(ch.buffer);
    c.setUint32(0, 0x02014b50, true); c.setUint16(4, 20, true); c.setUint16(6, 20, true); c.setUint16(10, method, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, data.length, true); c.setUint32(24, raw.length, true); c.setUint16(28, n.length, true); c.setUint32(42, offset, true);
    locals.push(lh, n, data);
    central.push(ch, n);
    offset += 30 + n.length + data.length;
  }
  const cd = concat(central);
  const end = new Uint8Array(22), e = new DataView(end.buffer);
  const count = Object.keys(members).length;
  e.setUint32(0, 0x06054b50, true); e.setUint16(8, count, true); e.setUint16(10, count, true);
  e.setUint32(12, cd.length, true); e.setUint32(16, offset, true);
  return concat([...locals, cd, end]);
}

/** .safetensors with one tensor "attentions" (F32 or F16) and metadata (string values). */
export function safetensors(values, shape, { dtype = 'F32', metadata = {}, name = 'attentions' } = {}) {
  const item = dtype === 'F32' ? 4 : 2;
  const data = new Uint8Array(values.length * item);
  const d = new DataView(data.buffer);
  for (let i = 0; i < values.length; i++) {
    if (dtype === 'F32') d.setFloat32(4 * i, values[i], true); else d.setUint16(2 * i, f16(values[i]), true);
  }
  let h = JSON.stringify({ __metadata__: metadata, [name]: { dtype, shape, data_offsets: [0, data.length] } });
  while (h.length % 8) h += ' ';
  const len = new Uint8Array(8);
  new DataView(len.buffer).setBigUint64(0, BigInt(h.length), true);
  return concat([len, enc.encode(h), data]);
}

/** Float64 rollout, straight from the definition in src/attnscope/rollout.hpp. */
export function refRollout(A, layers, heads, n, residual = 0.5, head = 'mean') {
  let R = null;
  for (let l = 0; l < layers; l++) {
    const bar = new Float64Array(n * n);
    for (let k = 0; k < n * n; k++) {
      const at = (h) => A[(l * heads + h) * n * n + k];
      if (typeof head === 'number') bar[k] = at(head);
      else if (head === 'max') { let m = -Infinity; for (let h = 0; h < heads; h++) m = Math.max(m, at(h)); bar[k] = m; }
      else { let s = 0; for (let h = 0; h < heads; h++) s += at(h); bar[k] = s / heads; }
    }
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) { bar[i * n + j] = (1 - residual) * bar[i * n + j] + (i === j ? residual : 0); s += bar[i * n + j]; }
      for (let j = 0; j < n; j++) bar[i * n + j] /= s;
    }
    if (!R) { R = bar; continue; }
    const next = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) next[i * n + j] += bar[i * n + k] * R[k * n + j];
    R = next;
  }
  return R;
}
