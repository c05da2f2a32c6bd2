// createAttnPool(): the scope's calls split over workers give the scope's numbers bit for bit (every
// scoring function, masks, padding, temperature, returns, variants, shapes across the 64-row blocks,
// attend with several heads); the scope's errors (and a bad element in one worker's share, named by
// its index in the caller's Q); workers 0 or -1; calls after dispose; abort at once with an
// AbortError, after which the pool still answers; and a disposed pool lets node exit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { DIST, ROOT, loadScope, rng, weightsFor } from './helpers.mjs';

const { createAttnPool } = await import(pathToFileURL(join(DIST, 'pool.mjs')).href);
const scope = await loadScope();
const SCORES = scope.scoreFunctions.map((s) => s.name);

/** Bitwise equality of two typed arrays (NaN payloads and the sign of zero included). */
function assertSameBits(got, want, what) {
  assert.equal(got.constructor.name, want.constructor.name, `${what}: type`);
  assert.equal(got.length, want.length, `${what}: length`);
  const a = new Uint32Array(got.buffer, got.byteOffset, got.length), b = new Uint32Array(want.buffer, want.byteOffset, want.length);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) assert.fail(`${what}: element ${i} is ${got[i]} from the pool, ${want[i]} from the scope`);
  }
}
function assertSameResult(got, want, what) {
  for (const [key, value] of Object.entries(want)) {
    if (ArrayBuffer.isView(value)) assertSameBits(got[key], value, `${what}.${key}`);
    else if (Array.isArray(value)) assert.deepEqual(got[key], value, `${what}.${key}`);
    else if (value && typeof value === 'object') assertSameResult(got[key], value, `${what}.${key}`);
    else if (key !== 'timeMs') assert.equal(got[key], value, `${what}.${key}`);
  }
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${what}: keys`);
}


/** A case: Q, K, V and options for score `name` at nq x nk, d, dv. */
function makeCase(name, seed, nq, nk, d, dv, extra = {}) {
  const r = rng(seed);
  const Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv);
  return { Q, K, V, options: { nq, nk, d, dv, score: name, ...weightsFor(name, r, d, d, nk), ...extra } };
}
// scores() takes no dv, temperature, mask, keyPadding or returns.
const withoutDv = ({ dv, temperature, mask, keyPadding, returns, ...o }) => o;

describe('createAttnPool()', () => {
  let pool, pool3;
  before(async () => {
    pool = await createAttnPool({ workers: 2 });
    pool3 = await createAttnPool({ workers: 3 });
  });
  after(async () => {
    await pool.dispose();
    await pool3.dispose();
  });

  test('has the scope\'s registry and its workers', () => {
    assert.equal(pool.workers, 2);
    assert.equal(pool3.workers, 3);
    assert.deepEqual(pool.registry, scope.registry);
    assert.deepEqual(pool.variants, scope.variants);
  });

  // nq 300 = 4 blocks of 64 and one of 44 rows: shares of 128 + 172 rows (2 workers), 64 + 128 + 108 (3).
  for (const name of SCORES) {
    test(`${name}: scores, attention and attentionOutput equal the scope's bit for bit`, async () => {
      const { Q, K, V, options } = makeCase(name, 11, 300, 203, 24, 9, { temperature: 0.7 });
      for (const p of [pool, pool3]) {
        assertSameBits(await p.scores(Q, K, withoutDv(options)), scope.scores(Q, K, withoutDv(options)), `${name} scores`);
        assertSameBits(await p.attentionOutput(Q, K, V, options), scope.attentionOutput(Q, K, V, options), `${name} attentionOutput`);
        assertSameResult(await p.attention(Q, K, V, options), scope.attention(Q, K, V, options), `${name} attention`);
        // Under the causal mask each share counts its rows from its first row's index in Q.
        const causal = { ...options, mask: 'causal' };
        assertSameBits(await p.attentionOutput(Q, K, V, causal), scope.attentionOutput(Q, K, V, causal), `${name} causal attentionOutput`);
        assertSameResult(await p.attention(Q, K, V, causal), scope.attention(Q, K, V, causal), `${name} causal attention`);
      }
    });
  }

  test('masks, key padding, returns and both variants', async () => {
    const padding = Array.from({ length: 150 }, (_, j) => j % 7 === 3);
    for (const name of ['scaled-dot', 'idw', 'neg-manhattan', 'additive']) {
      for (const mask of ['none', 'causal']) {
        for (const variant of scope.variants.available) {
          const { Q, K, V, options } = makeCase(name, 5, 260, 150, 16, 5, { mask, keyPadding: padding, variant });
          assertSameBits(await pool.attentionOutput(Q, K, V, options), scope.attentionOutput(Q, K, V, options), `${name} ${mask} ${variant}`);
          for (const returns of [['weights', 'stats'], ['output'], ['scores']]) {
            const o = { ...options, returns };
            assertSameResult(await pool3.attention(Q, K, V, o), scope.attention(Q, K, V, o), `${name} ${mask} ${variant} ${returns}`);
          }
        }
      }
    }
  });

  test('query rows out of the safe range (distance scores take another path for every row)', async () => {
    for (const name of ['neg-euclidean', 'neg-sq-euclidean', 'idw', 'cosine']) {
      const { Q, K, V, options } = makeCase(name, 9, 200, 70, 8, 4);
      for (let t = 0; t < 8; t++) Q[190 * 8 + t] *= 2 ** 50;  // one row, in the last share
      assertSameBits(await pool.scores(Q, K, withoutDv(options)), scope.scores(Q, K, withoutDv(options)), `${name} scores`);
      assertSameBits(await pool.attentionOutput(Q, K, V, options), scope.attentionOutput(Q, K, V, options), `${name} output`);
    }
  });

  test('views into larger buffers, and shapes smaller than a block', async () => {
    const r = rng(3);
    const big = r.floats(10000);
    const Q = big.subarray(17, 17 + 190 * 12), K = big.subarray(4000, 4000 + 33 * 12), V = big.subarray(9000, 9000 + 33 * 3);
    const options = { nq: 190, nk: 33, d: 12, dv: 3 };
    assertSameBits(await pool.attentionOutput(Q, K, V, options), scope.attentionOutput(Q, K, V, options), 'views');
    assert.equal(big[17], Q[0], 'the caller\'s arrays are untouched (nothing of theirs was transferred)');
    const small = makeCase('dot', 2, 3, 5, 4, 2);
    assertSameBits(await pool.attentionOutput(small.Q, small.K, small.V, small.options),
      scope.attentionOutput(small.Q, small.K, small.V, small.options), 'small');
  });

  test('attend split over heads equals the scope\'s: projections identity, random (W_o), yours with and without W_o', async () => {
    const text = 'the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door';
    const r = rng(77);
    const d = scope.vocabulary.dim, H = 3, dHead = 5, dValue = 4, dOut = 6;
    const user = { dHead, dValue, Wq: r.floats(d * H * dHead, 0.3), Wk: r.floats(d * H * dHead, 0.3), Wv: r.floats(d * H * dValue, 0.3) };
    const cases = [{ heads: 4 }, { heads: 7, score: 'idw', temperature: 0.5 }, { heads: 8, projection: 'random', seed: 7 },
      { heads: 2, score: 'cosine', mask: 'causal', positional: true },
      { heads: 3, keys: 'a dog and a cat', projection: 'random', score: 'additive' },
      { heads: 5, score: 'general', experimentalScaledOutput: true }, { heads: 4, score: 'location', projection: 'random' },
      { heads: H, projection: user }, { heads: H, projection: { ...user, Wo: r.floats(H * dValue * dOut, 0.3), dOut }, score: 'neg-manhattan' },
      { heads: 1 }, { heads: 2, variant: 'scalar', projection: 'random' }];
    for (const o of cases) {
      const options = { query: text, ...o };
      for (const p of [pool, pool3]) {
        const got = await p.attend(options);
        const want = scope.attend(options);
        assertSameResult(got, want, `${p.workers} workers ${JSON.stringify(o).slice(0, 80)}`);
      }
    }
  });

  test('attend: results of calls one after another and at once are independent, and a result held is never changed', async () => {
    const p = await createAttnPool({ workers: 2 });
    try {
      const copyOf = (r) => ({ scores: r.scores.slice(), weights: r.weights.slice(), q: r.q.map((a) => a.slice()), output: r.output.slice() });
      const held = [];
      // The same size several times, then a larger call and a smaller one.
      const texts = ['the cat sat on the mat', 'a dog ran in the park', 'my bird sang at dawn', 'the old man walked slowly along the quiet river bank at night', 'it rained'];
      for (const [i, query] of texts.entries()) {
        const options = { query, heads: 4, seed: i + 1 };
        const got = await p.attend(options);
        assertSameResult(got, scope.attend(options), `call ${i}`);
        held.push([got, copyOf(got), options]);
        // The joined scores and weights went from the host's worker through the other share's: one
        // buffer per call, no two results share it.
        assert.equal(got.scores.buffer, got.weights.buffer, `call ${i}: scores and weights are views of one buffer`);
        assert.ok(!held.slice(0, -1).some(([r]) => r.scores.buffer === got.scores.buffer), `call ${i}: a buffer of its own`);
      }
      // Several calls at once, sharing the kept buffers.
      const many = await Promise.all(texts.map((query, i) => p.attend({ query, heads: 3, score: 'cosine', seed: 10 + i })));
      many.forEach((got, i) => assertSameResult(got, scope.attend({ query: texts[i], heads: 3, score: 'cosine', seed: 10 + i }), `at once ${i}`));
      // Every result handed out earlier is as it was.
      for (const [i, [got, copy]] of held.entries()) {
        assertSameBits(got.scores, copy.scores, `held ${i}.scores`);
        assertSameBits(got.weights, copy.weights, `held ${i}.weights`);
        copy.q.forEach((a, h) => assertSameBits(got.q[h], a, `held ${i}.q[${h}]`));
        assertSameBits(got.output, copy.output, `held ${i}.output`);
      }
    } finally {
      await p.dispose();
    }
  });

  test('attend: a worker that dies under a share ends the call, and the pool keeps working', async () => {
    const p = await createAttnPool({ workers: 2, preload: true });
    try {
      const text = Array.from({ length: 600 }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'warm', 'mat', 'by', 'door'][(i * 7) % 9]).join(' ');
      const until = (ok) => new Promise((resolve) => {
        const end = Date.now() + 60_000;
        const poll = () => (ok() || Date.now() > end ? resolve() : setTimeout(poll, 1));
        poll();
      });
      for (const share of [0, 1]) {
        // Both workers ready (after the first round, one was replaced and is loading).
        await until(() => p._slots.every((s) => s.state === 'idle'));
        const options = { query: text, heads: 8, maxTokens: 1024 };
        const call = p.attend(options);
        // Once both shares run, the worker of one of them ends as a crash would end it (the other
        // share, if it waits for the joined buffer from the first, must not wait for ever).
        let slot;
        await until(() => {
          const running = p._slots.filter((s) => s.task && s.state === 'busy');
          if (running.length === 2) slot = running.find((s) => s.task === s.task.call.tasks[share]);
          return slot || running.length === 0;
        });
        assert.ok(slot, 'both shares ran');
        slot.handle.terminate();
        await assert.rejects(call, /pool: a worker exited/);
        const small = { query: 'the cat sat on the mat', heads: 4 };
        assertSameResult(await p.attend(small), scope.attend(small), `after share ${share}'s worker died`);
      }
    } finally {
      await p.dispose();
    }
  });

  test('attend: errors of a call split over heads are the scope\'s', async () => {
    for (const o of [{ heads: 101 }, { heads: 4, projection: 'nope' }, { heads: 4, score: 'general', W: new Float32Array(3) },
      { heads: 4, temperature: 0 }, { heads: 2, query: '' }]) {
      const options = { query: 'the cat sat on the mat', ...o };
      let expected;
      try { scope.attend(options); } catch (e) { expected = e; }
      assert.ok(expected, JSON.stringify(o));
      await assert.rejects(pool.attend(options), (e) => e.constructor === expected.constructor && e.message === expected.message);
    }
  });

  test('calls side by side', async () => {
    const cases = SCORES.map((name, i) => makeCase(name, 100 + i, 150, 40, 8, 4));
    const got = await Promise.all(cases.map((c) => pool3.attentionOutput(c.Q, c.K, c.V, c.options)));
    got.forEach((g, i) => assertSameBits(g, scope.attentionOutput(cases[i].Q, cases[i].K, cases[i].V, cases[i].options), SCORES[i]));
  });
});

describe('createAttnPool() errors', () => {
  let pool;
  before(async () => { pool = await createAttnPool({ workers: 2 }); });
  after(async () => { await pool.dispose(); });

  test('workers 0, -1, 1.5 and unknown options are refused', async () => {
    await assert.rejects(createAttnPool({ workers: 0 }), { name: 'RangeError', message: /options\.workers: expected an integer from 1 to \d+, got 0/ });
    await assert.rejects(createAttnPool({ workers: -1 }), { name: 'RangeError', message: /options\.workers: .* got -1/ });
    await assert.rejects(createAttnPool({ workers: 1.5 }), { name: 'TypeError', message: /options\.workers: expected an integer/ });
    await assert.rejects(createAttnPool({ worker: 2 }), { name: 'TypeError', message: /options\.worker: unknown option/ });
    await assert.rejects(createAttnPool({ locateFile: 'x' }), { name: 'TypeError', message: /options\.locateFile: expected a function/ });
    await assert.rejects(createAttnPool({ vocabulary: 3 }), { name: 'TypeError', message: /options\.vocabulary: expected/ });
  });

  test('bad arguments fail as the scope\'s do, with the same class and message', async () => {
    const { Q, K, V, options } = makeCase('scaled-dot', 1, 200, 30, 8, 4);
    const cases = [
      [Q, K, V, { ...options, nq: 0 }],
      [Q, K, V, { ...options, score: 'nope' }],
      [Array.from(Q), K, V, options],
      [Q, K.subarray(1), V, options],
      [Q, K, V, { ...options, bogus: 1 }],
      [Q, K, V, { ...options, temperature: -1 }],
      [Q, K, V, { ...options, score: 'general' }],
      [Q, K, V, undefined],
      [Q, K, V, { ...options, nq: 4096, nk: 4096, d: 8, dv: 4 }],
    ];
    for (const args of cases) {
      let expected;
      try { scope.attention(...args); } catch (e) { expected = e; }
      assert.ok(expected, 'the scope refuses it');
      await assert.rejects(pool.attention(...args), (e) => {
        assert.equal(e.constructor, expected.constructor);
        assert.equal(e.message, expected.message);
        return true;
      });
    }
    let expected;
    const huge = { nq: 60000, nk: 60000, d: 1, dv: 1 };
    const [q, k, v] = [new Float32Array(60000), new Float32Array(60000), new Float32Array(60000)];
    try { scope.attention(q, k, v, huge); } catch (e) { expected = e; }
    assert.ok(expected, 'too large for one scope');
    await assert.rejects(pool.attention(q, k, v, huge), { name: expected.name, message: expected.message });
    await assert.rejects(pool.attentionOutput(Q, K, V, { ...options, signal: 'stop' }), { name: 'TypeError', message: /options\.signal: expected an AbortSignal/ });
    await assert.rejects(pool.attend({ query: '' }), { name: 'RangeError', message: /^query: expected text/ });
  });

  test('a non-finite element in one worker\'s share: the scope\'s error, then the pool keeps working', async () => {
    const { Q, K, V, options } = makeCase('cosine', 4, 300, 40, 8, 4);
    const bad = Q.slice();
    bad[290 * 8 + 3] = NaN;  // in the second share (rows 128..299)
    let expected;
    try { scope.attentionOutput(bad, K, V, options); } catch (e) { expected = e; }
    assert.match(expected.message, /^Q: element 2323 is NaN/);
    await assert.rejects(pool.attentionOutput(bad, K, V, options), { name: 'RangeError', message: expected.message });
    // Both shares fail (Q in the second, K in every share): Q is named, as the scope names it.
    const badK = K.slice();
    badK[5] = Infinity;
    try { scope.scores(bad, badK, withoutDv(options)); } catch (e) { expected = e; }
    await assert.rejects(pool.scores(bad, badK, withoutDv(options)), { name: 'RangeError', message: expected.message });
    try { scope.scores(Q, badK, withoutDv(options)); } catch (e) { expected = e; }
    await assert.rejects(pool.scores(Q, badK, withoutDv(options)), { name: 'RangeError', message: expected.message });
    assertSameBits(await pool.attentionOutput(Q, K, V, options), scope.attentionOutput(Q, K, V, options), 'after the errors');
  });

  test("the scope's seam: the safe range is the core's, plans are plain data, and errors cross as records", async () => {
    const { errorRecord, planInfo, planner } = await import(pathToFileURL(join(DIST, 'scope-plan.mjs')).href);
    // The wire (bundled into the pool's files), from the sources, with an error of the sources' scope-checks.
    const { errorTransfer, wireRecord } = await import(pathToFileURL(join(ROOT, 'bindings', 'pool-wire.mjs')).href);
    const { nonFiniteElement } = await import(pathToFileURL(join(ROOT, 'bindings', 'scope-checks.mjs')).href);
    const info = planInfo(scope);
    assert.deepEqual(info.safeRange, { min: 2 ** -40, max: 2 ** 40 }, 'src/attnscope/score.hpp, kSafeRowMin and kSafeRowMax');
    assert.deepEqual(structuredClone(info), info);
    const { Q, K, V, options } = makeCase('neg-euclidean', 9, 200, 70, 8, 4);
    const plan = (q) => planner(info).plan('attentionOutput', [q, K, V, options]);
    assert.deepEqual(structuredClone(plan(Q)), plan(Q));
    for (const [top, splittable] of [[2 ** 40, true], [2 ** 41, false], [2 ** -40, true], [2 ** -41, false], [0, true]]) {
      const q = Q.slice();
      q.fill(0, 8, 16);
      q[9] = top;
      assert.equal(plan(q).splittable, splittable, `a row whose largest |component| is ${top}`);
    }
    // A non-finite element: its record, and the pool's error carries it counted in the caller's Q.
    const bad = Q.slice();
    bad[190 * 8 + 3] = -Infinity;  // in the second share (rows 128..199)
    let expected;
    try { scope.attentionOutput(bad, K, V, options); } catch (e) { expected = e; }
    assert.deepEqual(errorRecord(expected), { name: 'RangeError', message: expected.message, code: 'non-finite', argument: 'Q', index: 1523, value: -Infinity });
    const got = await pool.attentionOutput(bad, K, V, options).then(() => assert.fail('accepted'), (e) => e);
    assert.ok(got instanceof RangeError);
    assert.equal(got.message, expected.message);
    assert.deepEqual(Object.keys(got), [], 'the error a user sees has no properties of the wire');
    const wire = errorTransfer({ canHandle: () => true });
    const [sent] = wire.serialize({ value: nonFiniteElement('Q', 1523, -Infinity) });
    assert.throws(() => wire.deserialize(structuredClone(sent)), (e) => {
      assert.ok(e instanceof RangeError);
      assert.equal(e.message, expected.message);
      assert.deepEqual(wireRecord(e), errorRecord(expected));
      return true;
    });
  });

  test('calls after dispose reject, and dispose twice is fine', async () => {
    const p = await createAttnPool({ workers: 1 });
    const { Q, K, V, options } = makeCase('dot', 1, 10, 10, 4, 4);
    await p.dispose();
    await p.dispose();
    await assert.rejects(p.attentionOutput(Q, K, V, options), { message: /pool: this AttnPool was disposed; create a new one/ });
    await assert.rejects(p.attend({ query: 'a cat' }), { message: /disposed/ });
  });

  test('dispose rejects the calls still running', async () => {
    const p = await createAttnPool({ workers: 1 });
    const { Q, K, V, options } = makeCase('scaled-dot', 8, 2048, 2048, 64, 64);
    const running = assert.rejects(p.attentionOutput(Q, K, V, options), { message: /disposed/ });
    await p.dispose();
    await running;
  });
});

describe('abort', () => {
  test('an aborted call rejects with an AbortError at once; its workers are replaced and the pool still answers', async () => {
    const pool = await createAttnPool({ workers: 2 });
    try {
      const { Q, K, V, options } = makeCase('scaled-dot', 21, 4096, 4096, 64, 64);
      const controller = new AbortController();
      const call = pool.attentionOutput(Q, K, V, { ...options, signal: controller.signal });
      // A second call queued behind it, with its own signal: it is not touched by the first's abort.
      const small = makeCase('cosine', 22, 130, 50, 8, 4);
      const other = pool.attentionOutput(small.Q, small.K, small.V, small.options);
      let settled = false;
      call.then(() => { settled = true; }, () => { settled = true; });
      // The shares are posted to the workers when the call is made: abort while they run.
      controller.abort();
      // Rejected within the microtasks of abort(), before any message from a worker could arrive.
      for (let i = 0; i < 10; i++) await null;
      assert.equal(settled, true, 'rejected in the same turn as abort()');
      await assert.rejects(call, (e) => e.name === 'AbortError' && e instanceof DOMException);
      assertSameBits(await other, scope.attentionOutput(small.Q, small.K, small.V, small.options), 'the other call');
      assertSameBits(await pool.attentionOutput(small.Q, small.K, small.V, small.options),
        scope.attentionOutput(small.Q, small.K, small.V, small.options), 'after the abort');
      // A signal aborted before the call: rejected without any work; attend takes a signal too.
      await assert.rejects(pool.scores(small.Q, small.K, { ...withoutDv(small.options), signal: AbortSignal.abort() }), { name: 'AbortError' });
      const c2 = new AbortController();
      const attend = pool.attend({ query: 'the cat sat on the mat '.repeat(60), heads: 8, signal: c2.signal });
      c2.abort();
      await assert.rejects(attend, { name: 'AbortError' });
      assertSameResult(await pool.attend({ query: 'the cat sat', heads: 2 }), scope.attend({ query: 'the cat sat', heads: 2 }), 'attend after');
      // Aborted while both shares run (the last one computing, or waiting for the host's buffer),
      // with another attend call queued behind it: that one is the scope's.
      const c3 = new AbortController();
      const long = { query: 'the cat sat on the warm mat by the door '.repeat(60), heads: 6, maxTokens: 1024 };
      const chained = pool.attend({ ...long, signal: c3.signal });
      const behind = pool.attend({ query: 'a dog ran in the park', heads: 3 });
      for (let t = 0; t < 2000 && pool._slots.filter((s) => s.state === 'busy').length < 2; t++) await new Promise((r) => setTimeout(r, 1));
      c3.abort();
      await assert.rejects(chained, { name: 'AbortError' });
      assertSameResult(await behind, scope.attend({ query: 'a dog ran in the park', heads: 3 }), 'attend queued behind an aborted one');
    } finally {
      await pool.dispose();
    }
  });
});

describe('node exits', () => {
  test('a process that creates, uses and disposes a pool exits by itself with code 0', async () => {
    const script = `
      import { createAttnPool } from ${JSON.stringify(pathToFileURL(join(DIST, 'pool.mjs')).href)};
      const pool = await createAttnPool({ workers: 2, preload: true });
      const Q = new Float32Array(300 * 8).fill(0.5);
      const out = await pool.attentionOutput(Q, Q, Q, { nq: 300, nk: 300, d: 8, dv: 8 });
      const a = await pool.attend({ query: 'the cat sat on the mat', heads: 2 });
      await pool.dispose();
      console.log('used', out.length, a.heads);
    `;
    const dir = mkdtempSync(join(tmpdir(), 'attnscope-pool-'));
    const file = join(dir, 'use-pool.mjs');
    writeFileSync(file, script);
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (b) => { out += b; });
    child.stderr.on('data', (b) => { err += b; });
    // A generous bound: this is whether node exits at all, not how fast.
    const code = await new Promise((resolve) => {
      const timer = setTimeout(() => { child.kill('SIGKILL'); resolve('still running after 120 s'); }, 120000);
      child.on('exit', (c) => { clearTimeout(timer); resolve(c); });
    });
    rmSync(dir, { recursive: true, force: true });
    assert.equal(code, 0, `exit: ${code}; stderr: ${err}`);
    assert.match(out, /used 2400 2/);
  });
});
