// Memory stability: 10,000 calls of every kind (including ones that fail in JS validation and ones
// that fail inside the wasm core) leave the allocator's bytes in use where they started and the wasm
// heap at its size. A leak of even one allocation per call would show as ~10,000 × its size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadScope, rng } from './helpers.mjs';
import { SCORE_NAMES } from './reference.mjs';

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
  let failures = 0;
  const expectThrow = (fn) => { try { fn(); } catch { failures++; return; } assert.fail('expected an error'); };

  const calls = [
    (i) => scope.scores(Q, K, { nq, nk, d, score: SCORE_NAMES[i % 9], ...(w[SCORE_NAMES[i % 9]] ?? {}), variant: i % 2 ? 'scalar' : 'auto' }),
    (i) => scope.softmax(S, { rows: nq, cols: nk, temperature: 0.5, mask: i % 2 ? 'causal' : 'none', keyPadding: i % 3 ? undefined : [1, 0, 0, 0, 0, 0, 0, 0, 1] }),
    (i) => scope.attention(Q, K, V, { nq, nk, d, dv, score: SCORE_NAMES[i % 9], ...(w[SCORE_NAMES[i % 9]] ?? {}) }),
    (i) => scope.attend({ query: sentences[i % 4], heads: 1 + (i % 4), projection: i % 2 ? 'random' : 'identity', seed: i }),
    (i) => scope.attend({ query: sentences[i % 4], keys: sentences[(i + 1) % 4], score: SCORE_NAMES[i % 9], positional: true, mask: 'causal' }),
    () => expectThrow(() => scope.scores(bad, K, { nq, nk, d })),                                   // fails in JS validation
    () => expectThrow(() => scope.attend({ query: sentences[0], maxTokens: 4 })),                   // fails in the wasm tokenizer
    () => expectThrow(() => scope.attend({ query: sentences[0], score: 'location', Wa: new Float32Array(300) })),  // fails in the wasm core
    (i) => { scope.tokenize(sentences[i % 4]); scope.embed(i % 2 ? 'king' : 'qzxv'); },
    () => scope.nearest('queen', 5),
  ];

  // Warm-up: lazily built tables and the allocator's first chunks are not leaks.
  for (let i = 0; i < 3 * calls.length; i++) calls[i % calls.length](i);
  const inUse = scope.memoryInUse(), heap = heapBytes();
  failures = 0;

  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) calls[i % calls.length](i);
  const seconds = (performance.now() - t0) / 1000;

  assert.equal(failures, 3 * CALLS / calls.length, 'the failing calls failed');
  assert.equal(scope.memoryInUse(), inUse, 'bytes in use by the wasm allocator');
  assert.equal(heapBytes(), heap, 'wasm heap size');
  // Still computing correctly after all that.
  const a = scope.attend({ query: sentences[0] });
  for (let i = 0; i < a.nq; i++) {
    let s = 0; for (let j = 0; j < a.nk; j++) s += a.weights[i * a.nk + j];
    assert.ok(Math.abs(s - 1) < 1e-5);
  }
  console.log(`# memory: ${CALLS} calls in ${seconds.toFixed(2)} s; ${inUse} bytes in use, heap ${heap} bytes`);
});
