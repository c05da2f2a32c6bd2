// The pool under a hostile or careless caller (reliability round 4): results given back to memory as
// soon as the caller drops them (300 large calls, then a 5,000-call mixed soak, memory measured);
// arguments read when the call is made, not when a worker takes it (a buffer refilled, an options
// object changed, a buffer detached after the call); a worker killed while idle replaced at once.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, test } from 'node:test';
import { DIST, loadScope, rng } from './helpers.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const { createAttnPool } = await import(pathToFileURL(join(DIST, 'pool.mjs')).href);

let pool, scope;
before(async () => {
  pool = await createAttnPool({ workers: 2, vocabulary: 'small' });
  scope = await loadScope({ vocabulary: 'small' });
});
after(async () => { await pool?.dispose(); scope?.dispose(); });

/** External and ArrayBuffer memory of this thread after a full collection, in MiB. */
async function memory() {
  for (let i = 0; i < 3; i++) { gc(); await new Promise((r) => setTimeout(r, 20)); }
  const m = process.memoryUsage();
  return (m.external + m.arrayBuffers) / 2 ** 20;
}

test('300 scores() of 512 x 512 with their results dropped: memory given back (it grew ~1 MiB a call, 305 MiB)', async () => {
  const r = rng(1), n = 512, d = 64;
  const Q = r.floats(n * d), K = r.floats(n * d);
  for (let i = 0; i < 20; i++) await pool.scores(Q, K, { nq: n, nk: n, d, score: 'dot' });
  const start = await memory();
  for (let i = 0; i < 300; i++) await pool.scores(Q, K, { nq: n, nk: n, d, score: 'dot' });
  const grown = (await memory()) - start;
  // 300 results are 300 MiB: anything kept per call shows. What is allowed is the allocator's slack.
  assert.ok(grown < 48, `external + ArrayBuffer memory grew by ${grown.toFixed(1)} MiB over 300 calls`);
});

test('a 5,000-call mixed soak (every method, failing calls among them, calls side by side): memory flat', async () => {
  const r = rng(2), n = 96, d = 16;
  const Q = r.floats(n * d), K = r.floats(n * d), V = r.floats(n * d);
  const bad = Q.slice();
  bad[5] = NaN;
  const round = (i) => {
    const o = { nq: n, nk: n, d, score: ['dot', 'cosine', 'idw', 'neg-manhattan'][i % 4] };
    switch (i % 5) {
      case 0: return pool.scores(Q, K, o);
      case 1: return pool.attention(Q, K, V, { ...o, dv: d });
      case 2: return pool.attentionOutput(Q, K, V, { ...o, dv: d, mask: 'causal' });
      case 3: return pool.scores(bad, K, o).then(() => assert.fail('a NaN in Q was accepted'), (e) => assert.match(e.message, /^Q: element 5 is NaN/));
      default: return pool.attend({ query: 'the cat sat on the mat', heads: 2, score: o.score });
    }
  };
  for (let i = 0; i < 100; i++) await round(i);
  const start = await memory(), rss0 = process.memoryUsage().rss;
  for (let i = 0; i < 5000; i += 4) await Promise.all([round(i), round(i + 1), round(i + 2), round(i + 3)]);
  const grown = (await memory()) - start, rssGrown = (process.memoryUsage().rss - rss0) / 2 ** 20;
  assert.ok(grown < 16, `external + ArrayBuffer memory grew by ${grown.toFixed(1)} MiB over 5,000 calls`);
  assert.ok(rssGrown < 128, `the process grew by ${rssGrown.toFixed(0)} MiB over 5,000 calls`);
});

test('arguments are read when the call is made: a buffer refilled, options changed, a buffer detached after the call', async () => {
  const r = rng(3), n = 256, d = 32;
  const A = r.floats(n * d), B = r.floats(n * d), K = r.floats(n * d), V = r.floats(n * d);
  const o = { nq: n, nk: n, d, dv: d, score: 'scaled-dot' };
  const wantA = scope.attentionOutput(A, K, V, o);
  // Both workers busy with a long call, so that the next calls wait in the queue.
  const big = r.floats(2048 * 64);
  const busy = pool.attentionOutput(big, big, big, { nq: 2048, nk: 2048, d: 64, dv: 64 });
  const buf = A.slice(), keys = K.slice(), options = { ...o };
  const first = pool.attentionOutput(buf, keys, V, options);
  buf.set(B);            // refilled after the call
  keys.fill(0);
  options.score = 'dot';  // changed after the call
  options.temperature = 9;
  const q = A.slice();
  const second = pool.attentionOutput(q, K, V, o);
  structuredClone(q.buffer, { transfer: [q.buffer] });  // detached after the call
  assert.equal(q.length, 0);
  const text = { query: 'the cat sat on the mat', heads: 2, score: 'cosine' };
  const wantText = scope.attend(text);
  const third = pool.attend(text);
  text.query = 'a completely different sentence';
  text.score = 'dot';
  await busy;
  assert.deepEqual(await first, wantA);
  assert.deepEqual(await second, wantA);
  const got = await third;
  assert.deepEqual(got.queryTokens, wantText.queryTokens);
  assert.deepEqual(got.weights, wantText.weights);
  // Options that cannot be copied are refused with the argument named.
  await assert.rejects(pool.attend({ query: 'the cat', heads: 2, onProgress: () => {} }), TypeError);
});

test('a worker killed while idle is replaced at once; the pool keeps its size and answers on every worker', async () => {
  const p = await createAttnPool({ workers: 2, vocabulary: 'small' });
  try {
    const old = p._slots[0];
    await old.handle.terminate();
    // The replacement starts at once (not at the next call).
    const deadline = Date.now() + 60000;
    while (!(p._slots[0] !== old && p._slots[0].state === 'idle')) {
      if (Date.now() > deadline) assert.fail(`the killed worker was not replaced within 60 s (state ${p._slots[0].state})`);
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal(p.workers, 2);
    assert.ok(p._slots.every((s) => s.state === 'idle'));
    const r = rng(4), n = 256, d = 16, Q = r.floats(n * d), K = r.floats(n * d);
    assert.deepEqual(await p.scores(Q, K, { nq: n, nk: n, d }), scope.scores(Q, K, { nq: n, nk: n, d }));
  } finally {
    await p.dispose();
  }
});
