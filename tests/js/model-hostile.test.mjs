// Model files that are valid to the byte but hostile in what they declare (reliability round 4): a
// declared shape may make a call's buffers larger than wasm32 can address or the heap can hold; the
// call must be refused with an error naming the argument, and the instance must keep working.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadScope } from './helpers.mjs';
import { modelFile } from './model-files.mjs';

let scope;
before(async () => { scope = await loadScope({ preload: false }); });
after(() => scope?.dispose());

// The working instance: a plain call gives the same numbers as before the hostile call.
function checkAlive(expected) {
  const r = scope.scores(Float32Array.of(1, 2, 3, 4), Float32Array.of(4, 3, 2, 1), { nq: 1, nk: 1, d: 4, score: 'dot' });
  assert.deepEqual(Array.from(r), expected ?? [20]);
}

test('16 layers x 4 heads x head width 1, maxTokens 8192: 8192 ids are refused before any allocation (layers·heads·n² = 2^32)', async () => {
  // 12 kB of valid file; layers · heads · 8192 · 8192 = 2^32 floats wraps to 0 in a 32-bit size_t.
  const bytes = modelFile({ vocab: 8, embed: 4, out: 4, ffn: 4, heads: 4, maxTokens: 8192, pieces: 8, widths: Array(16).fill(4) });
  const model = await scope.loadModel({ model: bytes });
  try {
    assert.equal(model.layers, 16);
    assert.equal(model.maxTokens, 8192);
    assert.throws(() => model.encodeIds(new Int32Array(8192)), (e) => e instanceof RangeError &&
      /^ids: memory: encoding 8192 tokens with 16 layers of 4 heads needs .* floats .*; pass fewer ids/.test(e.message));
    checkAlive();
    // The same model on a few ids runs, and gives what it gave before the refusal.
    const a = model.encodeIds([1, 2, 3, 4, 5, 6, 7, 0]);
    assert.equal(a.attentions.length, 16 * 4 * 8 * 8);
    assert.ok(a.attentions.every(Number.isFinite));
    assert.throws(() => model.encodeIds(new Int32Array(8192)), { name: 'RangeError', message: /^ids: memory:/ });
    assert.deepEqual(model.encodeIds([1, 2, 3, 4, 5, 6, 7, 0]).attentions, a.attentions);
    // Another model still loads on the same instance.
    const small = await scope.loadModel({ model: modelFile() });
    assert.equal(small.encodeIds([1, 2]).n, 2);
    small.dispose();
  } finally {
    model.dispose();
  }
  checkAlive();
});

test('a model whose work per call (not memory) exceeds the budget: refused naming the work', async () => {
  // 1 layer, 1 head of width 8192: n = 4096 ids need 4096² · 8192 multiply-adds for q·k alone (2^37).
  const bytes = modelFile({ vocab: 8, embed: 2, out: 2, ffn: 2, heads: 1, maxTokens: 4096, pieces: 8, widths: [2048] });
  const model = await scope.loadModel({ model: bytes });
  try {
    assert.throws(() => model.encodeIds(new Int32Array(4096)), (e) => e instanceof RangeError && /^ids: work: encoding 4096 tokens .* multiply-adds/.test(e.message));
    assert.equal(model.encodeIds([1, 2, 3]).n, 3);
  } finally {
    model.dispose();
  }
  checkAlive();
});
