// Memory stability: 10,000 calls of every kind (including ones that fail in JS validation and ones
// that fail inside the wasm core) leave the allocator's bytes in use where they started and the wasm
// heap at its size. A leak of even one allocation per call would show as ~10,000 × its size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertClose, loadScope, rng } from './helpers.mjs';
import { SCORE_NAMES, refMatmul, refScores, refSoftmax } from './reference.mjs';
import { npy, npyStrings, safetensors, tinyTransformer, zip } from './attention-files.mjs';

const CALLS = 10_000;

test(`${CALLS} mixed calls: memoryInUse() returns to its start and the heap does not grow`, async () => {
  const scope = await loadScope();
  // The wasm memory's size; not part of the public API, read through the module only in this test.
  const heapBytes = () => scope._m.HEAPU8.buffer.byteLength;
  const r = rng(123);
  const sentences = ["The animal didn't cross the street because it was too tired.", 'The cat sat on the mat.',
    'A kitten rested on the rug near the warm fire.', 'Paris is the capital of France.'];
  const nq = 7, nk = 9, d = 16, dv = 5;
  const Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv), S = r.floats(nq * nk);
  const w = {
    general: { W: r.floats(d * d) },
    additive: { W1: r.floats(8 * d), W2: r.floats(8 * d), v: r.floats(8) },
    location: { Wa: r.floats(nk * d) },
  };
  const bad = Q.slice(); bad[3] = NaN;
  const dOut = r.floats(nq * dv);
  const trainData = { vectors: r.floats(7 * d), lengths: [3, 4], targets: [-1, 0, 1, -1, 0, 1, 2] };
  let failures = 0;
  const expectThrow = (fn) => { try { fn(); } catch { failures++; return; } assert.fail('expected an error'); };

  const calls = [
    (i) => scope.scores(Q, K, { nq, nk, d, score: SCORE_NAMES[i % SCORE_NAMES.length], ...(w[SCORE_NAMES[i % SCORE_NAMES.length]] ?? {}), variant: i % 2 ? 'scalar' : 'auto' }),
    (i) => scope.softmax(S, { rows: nq, cols: nk, temperature: 0.5, mask: i % 2 ? 'causal' : 'none', keyPadding: i % 3 ? undefined : [1, 0, 0, 0, 0, 0, 0, 0, 1] }),
    (i) => scope.attention(Q, K, V, { nq, nk, d, dv, score: SCORE_NAMES[i % SCORE_NAMES.length], ...(w[SCORE_NAMES[i % SCORE_NAMES.length]] ?? {}) }),
    (i) => scope.attend({ query: sentences[i % 4], heads: 1 + (i % 4), projection: i % 2 ? 'random' : 'identity', seed: i }),
    (i) => scope.attend({ query: sentences[i % 4], keys: sentences[(i + 1) % 4], score: SCORE_NAMES[i % SCORE_NAMES.length], positional: true, mask: 'causal' }),
    () => expectThrow(() => scope.scores(bad, K, { nq, nk, d })),                                   // fails in JS validation
    () => expectThrow(() => scope.attend({ query: sentences[0], maxTokens: 4 })),                   // fails in the wasm tokenizer
    () => expectThrow(() => scope.attend({ query: sentences[0], score: 'location', Wa: new Float32Array(300) })),  // fails in the wasm core
    (i) => { scope.tokenize(sentences[i % 4]); scope.embed(i % 2 ? 'king' : 'qzxv'); },
    // nearest() scans the whole 50,000-word vocabulary (~15 ms): on every tenth of its turns only, or
    // it alone took 13 of the test's 18 s. 77 calls still show a leak: the bytes in use must match exactly.
    (i) => { if (Math.floor(i / calls.length) % 10 === 0) scope.nearest('queen', 5); else scope.embed('queen'); },
    (i) => scope.attentionBackward(Q, K, V, dOut, { nq, nk, d, dv, score: SCORE_NAMES[i % SCORE_NAMES.length], ...(w[SCORE_NAMES[i % SCORE_NAMES.length]] ?? {}), mask: i % 2 ? 'causal' : 'none' }),
    () => expectThrow(() => scope.attentionBackward(Q, K, V, bad.subarray(0, nq * dv), { nq, nk, d, dv })),  // fails in JS validation
    (i) => {  // a trainer's whole life, with one call that fails in the wasm core (a target outside its sentence)
      const t = scope.createTrainer({ data: trainData, dIn: d, dHead: 4, positions: 'concat', dPos: 4, maxLen: 8, batch: 2, seed: i,
        score: SCORE_NAMES[i % SCORE_NAMES.length] });
      t.step(2);
      t.evaluate(trainData);
      t.attentionWeights(Q.subarray(0, 3 * d));
      t.gradients([0, 1]);
      t.weights();
      expectThrow(() => t.evaluate({ ...trainData, targets: [-1, 5, 1, -1, 0, 1, 2] }));
      t.dispose();
    },
  ];
  const failing = new Set([5, 6, 7, 11, 12]);  // indices of the calls that fail (once each)

  // Warm-up: lazily built tables and the allocator's first chunks are not leaks.
  for (let i = 0; i < 3 * calls.length; i++) calls[i % calls.length](i);
  const inUse = scope.memoryInUse(), heap = heapBytes();
  failures = 0;

  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) calls[i % calls.length](i);
  const seconds = (performance.now() - t0) / 1000;

  let expectedFailures = 0;
  for (let i = 0; i < CALLS; i++) expectedFailures += failing.has(i % calls.length);
  assert.equal(failures, expectedFailures, 'the failing calls failed');
  assert.equal(scope.memoryInUse(), inUse, 'bytes in use by the wasm allocator');
  assert.equal(heapBytes(), heap, 'wasm heap size');
  // Still computing correctly after all that.
  const a = scope.attend({ query: sentences[0] });
  for (let i = 0; i < a.nq; i++) {
    let s = 0; for (let j = 0; j < a.nk; j++) s += a.weights[i * a.nk + j];
    assert.ok(Math.abs(s - 1) < 1e-5);
  }
  console.log(`memory: ${CALLS} calls in ${seconds.toFixed(2)} s; ${inUse} bytes in use, heap ${heap} bytes`);
});

test('a call that grows the wasm heap still returns correct copies (views refreshed after growth)', async () => {
  const scope = await loadScope();
  const heapBefore = scope._m.HEAPU8.buffer.byteLength, inUse = scope.memoryInUse();
  // S and A of 2048 × 2048 floats are 16 MiB each: more than the free part of the initial heap.
  const nq = 2048, nk = 2048, d = 8, dv = 3;
  const r = rng(77);
  const Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv);
  const res = scope.attention(Q, K, V, { nq, nk, d, dv, score: 'neg-sq-euclidean', temperature: 0.5 });
  assert.ok(scope._m.HEAPU8.buffer.byteLength > heapBefore, 'the heap grew');
  assert.equal(scope.memoryInUse(), inUse, 'and everything was freed');
  for (const i of [0, 1, 1023, 2047]) {
    const row = Q.subarray(i * d, (i + 1) * d);
    const S = refScores('neg-sq-euclidean', row, K, { nq: 1, nk, d });
    assertClose(res.scores.subarray(i * nk, (i + 1) * nk), S.S, S.tol, `scores row ${i}`);
    const A = refSoftmax(res.scores.subarray(i * nk, (i + 1) * nk), 1, nk, { temperature: 0.5 });
    assertClose(res.weights.subarray(i * nk, (i + 1) * nk), A.A, A.tol, `weights row ${i}`);
    const O = refMatmul(res.weights.subarray(i * nk, (i + 1) * nk), V, 1, nk, dv);
    assertClose(res.output.subarray(i * dv, (i + 1) * dv), O.O, O.tol, `output row ${i}`);
  }
  // The results are copies: a later call does not change them.
  const keep = res.weights.slice(0, 16);
  scope.attention(Q, K, V, { nq, nk, d, dv, score: 'dot' });
  assert.deepEqual(res.weights.slice(0, 16), keep);
});

test(`${CALLS} calls of loadAttentions / rollout / attentionFlow / headSummaries, valid and failing: memory flat`, async () => {
  const scope = await loadScope();
  const heapBytes = () => scope._m.HEAPU8.buffer.byteLength;
  const L = 3, H = 2, N = 6;
  const TOKENS = ['[CLS]', 'a', 'cat', 'sat', 'down', '[SEP]'];
  const A = tinyTransformer(L, H, N, 5);
  const shape = [L, H, N, N];
  const files = {
    npy: npy(A, shape),
    npz: zip({ 'attentions.npy': npy(A, shape), 'tokens.npy': npyStrings(TOKENS) }),
    packed: zip({ 'attentions.npy': npy(A, shape), 'tokens.npy': npyStrings(TOKENS) }, { deflate: true }),
    safetensors: safetensors(A, shape, { metadata: { tokens: JSON.stringify(TOKENS) } }),
  };
  const json = JSON.stringify({ tokens: TOKENS, attentions: [[Array.from({ length: N }, (_, i) => Array.from(A.subarray(i * N, (i + 1) * N)))]] });
  const truncated = files.packed.subarray(0, files.packed.length - 30);
  const damaged = files.packed.slice(); damaged[80] ^= 0x41;
  const scores = A.map((x) => 3 * x - 0.2);   // rows that do not sum to 1: a warning, and the softmax option
  const withNaN = A.slice(); withNaN[17] = NaN;
  const negative = A.map((x) => -x);
  let failures = 0;
  const expectThrow = (fn) => { try { fn(); } catch { failures++; return; } assert.fail('expected an error'); };
  const calls = [
    () => scope.loadAttentions(files.npy, { tokens: TOKENS }),
    () => scope.loadAttentions(files.npz),
    () => scope.loadAttentions(files.packed),
    () => scope.loadAttentions(files.safetensors),
    () => scope.loadAttentions(json),
    () => scope.loadAttentions(npy(scores, shape), { tokens: TOKENS.join('\n'), softmax: true }),
    () => scope.rollout(A, { layers: L, heads: H, n: N }),
    (i) => scope.rollout(A, { layers: L, heads: H, n: N, residual: (i % 10) / 10, head: i % 3 === 0 ? 'max' : i % H }),
    () => scope.headSummaries(A, { layers: L, heads: H, nq: N, nk: N }),
    (i) => scope.attentionFlow(A, { layers: L, heads: H, n: N, residual: (i % 10) / 10, head: i % 3 === 0 ? 'max' : 'mean' }),  // Dinic
    () => scope.attentionFlow(A.subarray(0, 2 * H * N * N), { layers: 2, heads: H, n: N }),                                        // closed form
    () => expectThrow(() => scope.loadAttentions(truncated)),                                  // zip structure, in C++
    () => expectThrow(() => scope.loadAttentions(damaged)),                                    // inflate or CRC, in C++
    () => expectThrow(() => scope.loadAttentions(npy(withNaN, shape), { tokens: TOKENS })),    // validation, in C++
    () => expectThrow(() => scope.loadAttentions(files.npy, { tokens: ['x'] })),               // token count, in C++
    () => expectThrow(() => scope.loadAttentions('{"attentions": [[1, 2], [3]]}')),           // ragged, in JS
    () => expectThrow(() => scope.rollout(withNaN, { layers: L, heads: H, n: N })),            // in JS
    () => expectThrow(() => scope.rollout(A, { layers: L, heads: H, n: N, head: H })),         // in JS
    () => expectThrow(() => scope.headSummaries(A, { layers: L, heads: H, nq: N, nk: N + 1 })), // in JS
    () => expectThrow(() => scope.attentionFlow(negative, { layers: L, heads: H, n: N, residual: 0 })), // in C++, after its allocations
    () => expectThrow(() => scope.attentionFlow(new Float32Array(3 * 54 * 54), { layers: 3, heads: 1, n: 54 })), // the work limit
  ];
  for (let i = 0; i < 3 * calls.length; i++) calls[i % calls.length](i);
  const inUse = scope.memoryInUse(), heap = heapBytes();
  failures = 0;
  for (let i = 0; i < CALLS; i++) calls[i % calls.length](i);
  const failing = 10;
  const expected = failing * Math.floor(CALLS / calls.length) + Math.max(0, (CALLS % calls.length) - (calls.length - failing));
  assert.equal(failures, expected, 'the failing calls failed');
  assert.equal(scope.memoryInUse(), inUse, 'bytes in use by the wasm allocator');
  assert.equal(heapBytes(), heap, 'wasm heap size');
  // Still correct afterwards.
  const back = scope.loadAttentions(files.packed);
  assert.deepEqual(back.attentions, A);
  const R = scope.rollout(A, { layers: L, heads: H, n: N });
  for (let i = 0; i < N; i++) {
    let s = 0; for (let j = 0; j < N; j++) s += R[i * N + j];
    assert.ok(Math.abs(s - 1) < 1e-5, `rollout row ${i} sums to 1`);
  }
});
