// Your model's attention through the JS API: loadAttentions() on hand-built files of every format
// (.npy v1/v2/v3 float32/float16, .npz, .safetensors, JSON object/text/bytes), corrupt and truncated
// ones, validation messages, the size limit; rollout() and headSummaries() against float64 references.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { assertClose, assertThrowsNaming, loadScope } from './helpers.mjs';
import { npy, npyStrings, refRollout, safetensors, tinyTransformer, zip } from './attention-files.mjs';

let scope;
before(async () => { scope = await loadScope({ vocabulary: 'small' }); });

const L = 2, H = 3, N = 5;
const TOKENS = ['[CLS]', 'the', 'cat', 'sat', '[SEP]'];
const A = tinyTransformer(L, H, N, 7);

function rowsSumToOne(a, nk, tol, label) {
  for (let r = 0; r < a.length / nk; r++) {
    let s = 0;
    for (let j = 0; j < nk; j++) s += a[r * nk + j];
    assert.ok(Math.abs(s - 1) <= tol, `${label}: row ${r} sums to ${s}`);
  }
}

test('the tiny transformer gives real-shaped attention: rows sum to 1, heads differ', () => {
  rowsSumToOne(A, N, 1e-5, 'tinyTransformer');
  assert.notDeepEqual(A.subarray(0, N * N), A.subarray(N * N, 2 * N * N));
});

test('.npy float32 (v1, v2, v3, big-endian) loads exactly, tokens from an array, a .txt or a .json text', () => {
  for (const version of [1, 2, 3]) {
    for (const descr of ['<f4', '>f4']) {
      const r = scope.loadAttentions(npy(A, [L, H, N, N], { version, descr }), { tokens: TOKENS });
      assert.equal(r.format, 'npy');
      assert.deepEqual([r.layers, r.heads, r.nq, r.nk], [L, H, N, N]);
      assert.deepEqual(r.tokens, TOKENS);
      assert.deepEqual(r.keyTokens, TOKENS);
      assert.deepEqual(r.warnings, []);
      assert.ok(r.attentions instanceof Float32Array);
      assert.deepEqual(r.attentions, A);
    }
  }
  const bytes = npy(A, [L, H, N, N]);
  assert.deepEqual(scope.loadAttentions(bytes, { tokens: TOKENS.join('\n') + '\n' }).tokens, TOKENS);
  assert.deepEqual(scope.loadAttentions(bytes.buffer, { tokens: JSON.stringify(TOKENS) }).tokens, TOKENS);
  // the shape rules: [heads, n, n] and [n, n]
  const one = scope.loadAttentions(npy(A.subarray(0, H * N * N), [H, N, N]), { tokens: TOKENS });
  assert.deepEqual([one.layers, one.heads], [1, H]);
  const single = scope.loadAttentions(npy(A.subarray(0, N * N), [N, N]), { tokens: TOKENS });
  assert.deepEqual([single.layers, single.heads], [1, 1]);
});

test('.npy float16 is widened within half precision', () => {
  const r = scope.loadAttentions(npy(A, [L, H, N, N], { descr: '<f2', version: 2 }), { tokens: TOKENS });
  assertClose(r.attentions, A, Array.from(A, (x) => x * 2 ** -11 + 2 ** -25), 'float16');
});

test('.npz (numpy.savez and savez_compressed) with attentions and tokens members; other zip methods refused', () => {
  const file = zip({ 'attentions.npy': npy(A, [L, H, N, N]), 'tokens.npy': npyStrings(TOKENS) });
  const r = scope.loadAttentions(file);
  assert.equal(r.format, 'npz');
  assert.deepEqual(r.tokens, TOKENS);
  assert.deepEqual(r.attentions, A);
  // tokens given to the call win over the file's
  assert.deepEqual(scope.loadAttentions(file, { tokens: ['a', 'b', 'c', 'd', 'e'] }).tokens, ['a', 'b', 'c', 'd', 'e']);
  // Deflated members (numpy.savez_compressed) load the same.
  const packed = scope.loadAttentions(zip({ 'attentions.npy': npy(A, [L, H, N, N]), 'tokens.npy': npyStrings(TOKENS) }, { deflate: true }));
  assert.deepEqual(packed.tokens, TOKENS);
  assert.deepEqual(packed.attentions, A);
  // Marked deflated but not a DEFLATE stream; a method other than stored or deflate.
  assertThrowsNaming(() => scope.loadAttentions(zip({ 'attentions.npy': npy(A, [L, H, N, N]) }, { method: 8 })), RangeError,
    [/attentions\.npy/, /deflate/], 'not deflate data');
  assertThrowsNaming(() => scope.loadAttentions(zip({ 'attentions.npy': npy(A, [L, H, N, N]) }, { method: 12 })), RangeError,
    [/compression method 12/, /savez_compressed/], 'bzip2 npz');
});

test('.safetensors: F32 and F16 "attentions" with tokens in __metadata__', () => {
  const metadata = { tokens: JSON.stringify(TOKENS) };
  const r = scope.loadAttentions(safetensors(A, [L, H, N, N], { metadata }));
  assert.equal(r.format, 'safetensors');
  assert.deepEqual(r.tokens, TOKENS);
  assert.deepEqual(r.attentions, A);
  const h = scope.loadAttentions(safetensors(A, [L, H, N, N], { metadata, dtype: 'F16' }));
  assertClose(h.attentions, A, Array.from(A, (x) => x * 2 ** -11 + 2 ** -25), 'F16');
  assertThrowsNaming(() => scope.loadAttentions(safetensors(A, [L, H, N, N], { name: 'attn' }), { tokens: TOKENS }), RangeError,
    [/no tensor named 'attentions'/, /'attn'/], 'tensor name');
});

test('JSON: an object, its text and its bytes; cross-attention with keyTokens', () => {
  const nested = [];
  for (let l = 0; l < L; l++) {
    nested.push([]);
    for (let h = 0; h < H; h++) {
      const m = [];
      for (let i = 0; i < N; i++) m.push(Array.from(A.subarray(((l * H + h) * N + i) * N, ((l * H + h) * N + i + 1) * N)));
      nested[l].push(m);
    }
  }
  const obj = { tokens: TOKENS, attentions: nested };
  for (const input of [obj, JSON.stringify(obj), new TextEncoder().encode(JSON.stringify(obj))]) {
    const r = scope.loadAttentions(input);
    assert.equal(r.format, 'json');
    assert.deepEqual([r.layers, r.heads, r.nq, r.nk], [L, H, N, N]);
    assert.deepEqual(r.attentions, A);
  }
  const cross = scope.loadAttentions({ tokens: ['a', 'b'], keyTokens: ['x', 'y', 'z'], attentions: [[0.2, 0.3, 0.5], [1, 0, 0]] });
  assert.deepEqual([cross.layers, cross.heads, cross.nq, cross.nk], [1, 1, 2, 3]);
  assert.deepEqual(cross.keyTokens, ['x', 'y', 'z']);
  assertThrowsNaming(() => scope.loadAttentions({ tokens: ['a', 'b'], attentions: [[0.5, 0.5], [1]] }), RangeError,
    [/input\.attentions\[1\]/, /ragged/], 'ragged');
  assertThrowsNaming(() => scope.loadAttentions({ tokens: ['a', 'b'], attentions: [[0.5, '0.5'], [1, 0]] }), TypeError,
    [/input\.attentions\[0\]\[1\]/, /number/], 'string element');
  assertThrowsNaming(() => scope.loadAttentions('{"attentions": [[1]'), RangeError, [/invalid JSON/], 'bad JSON');
});

test('validation names the problem and the fix; the instance keeps working after each', () => {
  const bytes = npy(A, [L, H, N, N]);
  assertThrowsNaming(() => scope.loadAttentions(bytes, { tokens: TOKENS.slice(1) }), RangeError, [/tokens: 4 given/, /5 query rows/], 'token count');
  assertThrowsNaming(() => scope.loadAttentions(npy(A.subarray(0, 2 * N * 3), [2, N, 3]), { tokens: TOKENS }), RangeError,
    [/keyTokens/, /3 keys but 5 queries/], 'nq != nk');
  assertThrowsNaming(() => scope.loadAttentions(npy(A, [L, H, N, N], { fortran: true }), { tokens: TOKENS }), RangeError,
    [/Fortran order/, /ascontiguousarray/], 'Fortran');
  assertThrowsNaming(() => scope.loadAttentions(npy(A, [L, H, N, N], { descr: '<f8' }), { tokens: TOKENS }), RangeError,
    [/'<f8'/, /float32/], 'float64');
  assertThrowsNaming(() => scope.loadAttentions(npy(A, [1, L, H, N, N]), { tokens: TOKENS }), RangeError, [/wrong rank/, /batch/], 'rank 5');
  const nan = A.slice(); nan[(1 * H + 2) * N * N + 3 * N + 4] = NaN;
  assertThrowsNaming(() => scope.loadAttentions(npy(nan, [L, H, N, N]), { tokens: TOKENS }), RangeError,
    [/NaN at layer 1, head 2, row 3 \('sat'\), column 4/], 'NaN');
  const inf = A.slice(); inf[0] = Infinity;
  assertThrowsNaming(() => scope.loadAttentions(npy(inf, [L, H, N, N]), { tokens: TOKENS }), RangeError, [/infinity at layer 0, head 0, row 0/], 'Inf');
  assertThrowsNaming(() => scope.loadAttentions(new Uint8Array([1, 2, 3])), RangeError, [/not a recognised attention file/, /options\.format/], 'unknown bytes');
  assertThrowsNaming(() => scope.loadAttentions(new Float32Array(4)), TypeError, [/^input: /, /Uint8Array/], 'Float32Array');
  assertThrowsNaming(() => scope.loadAttentions(bytes, { format: 'pt' }), TypeError, [/options\.format/], 'format');
  assertThrowsNaming(() => scope.loadAttentions(bytes, { tokns: TOKENS }), TypeError, [/options\.tokns: unknown option/], 'typo');
  assertThrowsNaming(() => scope.loadAttentions(bytes, { tokens: [1, 2, 3, 4, 5] }), TypeError, [/options\.tokens\[0\]/], 'token type');
  assert.deepEqual(scope.loadAttentions(bytes, { tokens: TOKENS }).attentions, A);
});

test('rows that do not sum to 1: a warning naming the worst row, and the softmax option', () => {
  const scores = Float32Array.from(A, (x) => Math.log(x) + 2);  // pre-softmax logits of the same weights
  const r = scope.loadAttentions(npy(scores, [L, H, N, N]), { tokens: TOKENS });
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /rows do not sum to 1; the worst is layer \d, head \d, row \d \('[^']+'\)/);
  assert.match(r.warnings[0], /softmax/);
  assert.deepEqual(r.attentions, scores);
  const s = scope.loadAttentions(npy(scores, [L, H, N, N]), { tokens: TOKENS, softmax: true });
  assert.deepEqual(s.warnings, []);
  assertClose(s.attentions, A, Array.from(A, (x) => 1e-6 + 1e-5 * x), 'softmax of log-weights');
  const none = scope.loadAttentions(npy(A, [L, H, N, N]));
  assert.deepEqual(none.tokens, ['0', '1', '2', '3', '4']);
  assert.match(none.warnings[0], /tokens: none given/);
});

test('every truncation of every valid file is refused cleanly; damaged bytes never crash; no memory leaks', () => {
  const files = [
    ['npy', npy(A, [L, H, N, N])],
    ['npy f16', npy(A, [L, H, N, N], { descr: '<f2', version: 3 })],
    ['npz', zip({ 'attentions.npy': npy(A, [L, H, N, N]), 'tokens.npy': npyStrings(TOKENS) })],
    ['safetensors', safetensors(A, [L, H, N, N], { metadata: { tokens: JSON.stringify(TOKENS) } })],
  ];
  const before = scope.memoryInUse();
  for (const [label, file] of files) {
    const format = label.split(' ')[0];
    for (let n = 0; n < file.length; n++) {
      assert.throws(() => scope.loadAttentions(file.subarray(0, n), { tokens: TOKENS, format }),
        (e) => e instanceof RangeError && e.message.length > 10, `${label} cut to ${n} bytes`);
    }
    let x = 12345;
    for (let trial = 0; trial < 300; trial++) {
      const damaged = file.slice();
      for (let k = 0; k < 3; k++) { x = (x * 1103515245 + 12345) >>> 0; damaged[x % damaged.length] = x >>> 24; }
      try { scope.loadAttentions(damaged, { tokens: TOKENS, format }); } catch (e) { assert.ok(e instanceof RangeError || e instanceof TypeError, e.message); }
    }
    assert.deepEqual(scope.loadAttentions(file, { tokens: TOKENS, format }).attentions.length, A.length);
  }
  assert.equal(scope.memoryInUse(), before, 'memoryInUse after thousands of failed loads');
});

test('the documented limit: 12 layers x 12 heads x 512 tokens loads; more is refused', () => {
  const n = 512, layers = 12, heads = 12;
  const values = new Float32Array(layers * heads * n * n).fill(1 / n);
  const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
  const r = scope.loadAttentions(npy(values, [layers, heads, n, n]), { tokens });
  assert.deepEqual([r.layers, r.heads, r.nq, r.nk], [layers, heads, n, n]);
  assert.equal(r.attentions.length, values.length);
  assert.deepEqual(r.warnings, []);
  const head = new Uint8Array(npy(new Float32Array(0), [64, 64, 1024, 1024]));
  assertThrowsNaming(() => scope.loadAttentions(head), RangeError, [/over the limit of 67108864/], 'over the limit');
});

test('rollout matches a float64 reference (1 layer, 1 head, odd n, mean/max/one head); rows sum to 1', () => {
  const cases = [[1, 1, 1], [1, 1, 5], [1, 3, 7], [3, 1, 9], [4, 3, 11], [6, 4, 33]];
  for (const [layers, heads, n] of cases) {
    const att = tinyTransformer(layers, heads, n, layers * 100 + heads * 10 + n);
    for (const residual of [0, 0.5, 0.8]) {
      for (const head of ['mean', 'max', 0, heads - 1]) {
        const got = scope.rollout(att, { layers, heads, n, residual, head });
        const ref = refRollout(att, layers, heads, n, residual, head);
        const label = `rollout L=${layers} H=${heads} n=${n} residual=${residual} head=${head}`;
        const tol = layers * (n + 4) * 2 ** -23;
        assertClose(got, ref, tol, label);
        rowsSumToOne(got, n, tol, label);
      }
    }
  }
  // default residual 0.5 and head 'mean'
  assertClose(scope.rollout(A, { layers: L, heads: H, n: N }), refRollout(A, L, H, N), 2 * (N + 4) * 2 ** -23, 'defaults');
});

test('rollout refuses bad arguments naming them', () => {
  assertThrowsNaming(() => scope.rollout(A, { layers: L, heads: H, n: N, head: H }), RangeError, [/options\.head/, new RegExp(`0 to ${H - 1}`)], 'head index');
  assertThrowsNaming(() => scope.rollout(A, { layers: L, heads: H, n: N, head: 'min' }), TypeError, [/options\.head/, /'mean', 'max'/], 'head name');
  assertThrowsNaming(() => scope.rollout(A, { layers: L, heads: H, n: N, residual: 2 }), RangeError, [/options\.residual/, /0 to 1/], 'residual');
  assertThrowsNaming(() => scope.rollout(A, { layers: L, heads: H, n: 4 }), RangeError, [/attentions: expected 96 numbers/], 'length');
  assertThrowsNaming(() => scope.rollout(Array.from(A), { layers: L, heads: H, n: N }), TypeError, [/attentions/, /Float32Array/], 'array');
  assertThrowsNaming(() => scope.rollout(A, { layers: L, heads: H }), TypeError, [/options\.n/], 'n missing');
  assertThrowsNaming(() => scope.rollout(new Float32Array(9).fill(-1), { layers: 1, heads: 1, n: 3, residual: 0 }), RangeError, [/non-negative/], 'negative');
});

test('headSummaries: entropy, max and mean row maximum per layer and head', () => {
  const s = scope.headSummaries(A, { layers: L, heads: H, nq: N, nk: N });
  for (let lh = 0; lh < L * H; lh++) {
    let e = 0, mm = 0, mx = 0;
    for (let i = 0; i < N; i++) {
      let rmax = 0;
      for (let j = 0; j < N; j++) {
        const a = A[(lh * N + i) * N + j];
        if (a > 0) e -= a * Math.log(a);
        rmax = Math.max(rmax, a);
      }
      mm += rmax; mx = Math.max(mx, rmax);
    }
    assert.ok(Math.abs(s.entropy[lh] - e / N) < 1e-5, `entropy ${lh}`);
    assert.ok(Math.abs(s.meanMax[lh] - mm / N) < 1e-6, `meanMax ${lh}`);
    assert.equal(s.max[lh], Math.fround(mx));
  }
});

// A file's declared sizes are 64-bit numbers; the wasm build is 32-bit. Before the readers computed
// sizes in checked 64-bit arithmetic, the first file below read gigabytes past its data (RuntimeError:
// memory access out of bounds, ~49 KB left allocated per attempt) and the second loaded as 2 x 2.
test('declared sizes that wrap 32 bits are refused with the declared numbers; nothing leaks; the scope keeps working', () => {
  const enc = new TextEncoder();
  const rawNpy = (dict, data) => {
    let h = dict;
    while ((10 + h.length + 1) % 64) h += ' ';
    h += '\n';
    const head = new Uint8Array(10);
    head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
    new DataView(head.buffer).setUint16(8, h.length, true);
    const hb = enc.encode(h), out = new Uint8Array(10 + hb.length + data.length);
    out.set(head); out.set(hb, 10); out.set(data, 10 + hb.length);
    return out;
  };
  const att = npy(A.subarray(0, N * N), [N, N]);
  const before = scope.memoryInUse();
  for (let i = 0; i < 20; i++) {
    const tokens = rawNpy("{'descr': '<U262145', 'fortran_order': False, 'shape': (4096,), }", new Uint8Array(16384));
    assert.throws(() => scope.loadAttentions(zip({ 'attentions.npy': att, 'tokens.npy': tokens })),
      /tokens: 4096 tokens of 262145 characters need 4294983680 bytes of data, the file has 16384/);
    const wrapped = rawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967298, 4294967298), }", new Uint8Array(16));
    assert.throws(() => scope.loadAttentions(wrapped, { tokens: ['a', 'b'] }), /shape \[4294967298, 4294967298\] is over the limit/);
    const big = rawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", new Uint8Array(16));
    assert.throws(() => scope.loadAttentions(big), /\[99999999999, 99999999999\] is over the limit/);
  }
  assert.equal(scope.memoryInUse(), before, 'memoryInUse after refused files');
  assert.equal(scope.loadAttentions(att, { tokens: TOKENS }).layers, 1);
});

// rollout of [4, 1, 4096, 4096] ran 115 s, and the model page blocked its main thread 57 s on a
// [16, 1, 2048, 2048] file: rollout has the call budget, checked before the stack is copied.
test('rollout: a stack too slow to roll out is a RangeError naming the work limit, at once', () => {
  const A2 = new Float32Array(2 * 2048 * 2048).fill(1 / 2048);
  assert.throws(() => scope.rollout(A2, { layers: 2, heads: 1, n: 2048 }),
    (e) => e instanceof RangeError && /work: rollout of 2 layers x 2048 tokens/.test(e.message) && /fewer layers or tokens/.test(e.message));
  const small = scope.rollout(A.subarray(0, 2 * H * N * N), { layers: 2, heads: H, n: N });
  assert.equal(small.length, N * N);
});

// Echoes are cut: a 1 MB option key or token does not come back whole in an error or a warning;
// JSON's 1e39 is named as outside float32, not as "an infinity"; a SharedArrayBuffer is file bytes;
// an option inherited through a prototype is refused rather than used behind the own-key check.
test('errors and warnings quote at most a short part of what they were handed', () => {
  const longKey = 'k'.repeat(1 << 20);
  assert.throws(() => scope.loadAttentions(npy(A.subarray(0, N * N), [N, N]), { [longKey]: 1 }),
    (e) => e instanceof TypeError && e.message.length < 400 && /1048576 characters/.test(e.message));
  const longToken = 't'.repeat(1 << 20);
  const rows = new Float32Array(N * N).fill(0.5);   // rows sum to 2.5: a warning naming the worst row's token
  const r = scope.loadAttentions(npy(rows, [N, N]), { tokens: [longToken, ...TOKENS.slice(1)] });
  assert.ok(r.warnings.length > 0);
  for (const w of r.warnings) assert.ok(w.length < 600, `warning of ${w.length} characters`);
  assert.throws(() => scope.loadAttentions({ tokens: ['a', 'b'], attentions: [[1e39, 0], [0, 1]] }),
    (e) => e instanceof RangeError && /outside the float32 range/.test(e.message) && /\[0\]\[0\]/.test(e.message));
  const shared = new SharedArrayBuffer(64);
  assert.throws(() => scope.loadAttentions(shared), (e) => e instanceof RangeError && /not a recognised attention file/.test(e.message));
  const inherited = Object.create({ tokens: TOKENS });
  assert.throws(() => scope.loadAttentions(npy(A.subarray(0, N * N), [N, N]), inherited),
    (e) => e instanceof TypeError && /options\.tokens: inherited/.test(e.message));
  assert.equal(scope.loadAttentions(npy(A.subarray(0, N * N), [N, N]), { tokens: TOKENS }).nq, N);
});
