// The trained model's JS API (scope.loadModel, model.encode / encodeIds / similarity / dispose): shapes,
// surgery (re-scored heads, knocked-out heads) and what it changes, errors that name the argument and
// leave the instance working, other sources of the model file, and memory over 2,000 encodes. Its
// numbers against the original TF.js graph: model-oracle.test.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DIST, loadScope } from './helpers.mjs';

let scope, model;
before(async () => {
  scope = await loadScope({ preload: false });
  model = await scope.loadModel();
});
after(() => {
  model?.dispose();
  scope?.dispose();
});

const head = (r, l, h) => r.attentions.subarray((l * r.heads + h) * r.n * r.n, (l * r.heads + h + 1) * r.n * r.n);
const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

test('loadModel(): the shipped USE-Lite and what encode() returns', () => {
  assert.equal(model.name, 'use-lite');
  assert.equal(model.layers, 2);
  assert.equal(model.heads, 4);
  assert.equal(model.maxTokens, 128);
  assert.equal(model.dim, 512);
  assert.deepEqual(model.headDims, [64, 128]);
  assert.equal(model.vocabulary.length, 8000);
  assert.deepEqual(model.vocabulary[1], ['<s>', 0]);
  assert.equal(model.vocabulary.filter(([, s]) => s === null).length, 7);
  const r = model.encode('The cat sat on the mat.');
  assert.ok(r.ids instanceof Int32Array);
  assert.equal(r.n, r.ids.length);
  assert.equal(r.tokens.length, r.n);
  assert.equal(r.tokens.join(''), '▁The▁cat▁sat▁on▁the▁mat.');
  assert.ok(r.attentions instanceof Float32Array && r.attentions.length === 2 * 4 * r.n * r.n);
  assert.ok(r.embedding instanceof Float32Array && r.embedding.length === 512);
  assert.equal(r.truncated, false);
  for (let row = 0; row < 8 * r.n; row++) {
    const s = r.attentions.subarray(row * r.n, (row + 1) * r.n).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(s - 1) < 1e-5, `row ${row} sums to ${s}`);
  }
  assert.ok(Math.abs(Math.hypot(...r.embedding) - 1) < 1e-5);
  // The same ids through encodeIds: the same numbers.
  const again = model.encodeIds(Array.from(r.ids));
  assert.deepEqual(again.attentions, r.attentions);
  assert.deepEqual(again.embedding, r.embedding);
  // Unknown characters are one id 0 and keep their own text as the token.
  const emoji = model.encode('hi 😀😀 there');
  assert.ok(emoji.ids.includes(0));
  assert.ok(emoji.tokens.includes('😀😀'));
});

test('score: scaled-dot (the model\'s own) changes nothing; another score changes that head and what follows', () => {
  const text = 'Time flies like an arrow; fruit flies like a banana.';
  const base = model.encode(text);
  for (const score of ['scaled-dot', { '0.0': 'scaled-dot', '1.3': 'scaled-dot' }]) {
    const same = model.encode(text, { score, ablate: [] });
    assert.deepEqual(same.attentions, base.attentions);
    assert.deepEqual(same.embedding, base.embedding);
  }
  for (const name of scope.scoreFunctions.map((s) => s.name).filter((n) => n !== 'scaled-dot')) {
    const r = model.encode(text, { score: { '1.2': name } });
    for (let l = 0; l < 2; l++) {
      for (let h = 0; h < 4; h++) {
        if (l === 1 && h === 2) assert.ok(maxDiff(head(r, l, h), head(base, l, h)) > 1e-3, `${name}: head 1.2 moves`);
        else assert.deepEqual(head(r, l, h), head(base, l, h), `${name}: head ${l}.${h} stays`);
      }
    }
    assert.ok(maxDiff(r.embedding, base.embedding) > 1e-6, `${name}: the embedding moves`);
  }
  // One name for every head re-scores layer 0, and so layer 1's inputs too.
  const all = model.encode(text, { score: 'cosine' });
  for (let l = 0; l < 2; l++) for (let h = 0; h < 4; h++) assert.ok(maxDiff(head(all, l, h), head(base, l, h)) > 1e-4);
});

test('temperature: τ = 1 is the model; τ on one head makes its rows softmax(log A / τ) and moves what follows', () => {
  const text = 'The trophy would not fit in the suitcase because it was too big.';
  const base = model.encode(text);
  for (const temperature of [1, { '0.2': 1, '1.1': 1 }]) {
    const same = model.encode(text, { temperature });
    assert.deepEqual(same.attentions, base.attentions);
    assert.deepEqual(same.embedding, base.embedding);
  }
  // Head 0.2 at τ = 0.25: each row a^4 / Σ a^4 of its trained row (layer 0's inputs do not change).
  const sharp = model.encode(text, { temperature: { '0.2': 0.25 } });
  const a = head(base, 0, 2), b = head(sharp, 0, 2), n = base.n;
  let worst = 0;
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < n; j++) z += a[i * n + j] ** 4;
    for (let j = 0; j < n; j++) worst = Math.max(worst, Math.abs(b[i * n + j] - a[i * n + j] ** 4 / z));
  }
  assert.ok(worst < 1e-5, `head 0.2 at τ = 0.25 against a^4 / Σ a^4: ${worst}`);
  for (const h of [0, 1, 3]) assert.deepEqual(head(sharp, 0, h), head(base, 0, h), `head 0.${h} stays`);
  for (let h = 0; h < 4; h++) assert.ok(maxDiff(head(sharp, 1, h), head(base, 1, h)) > 1e-6, `head 1.${h} sees the change`);
  // Cosine re-scoring a head: at τ = 1 no weight is more than e² times another in its row; at τ = 0.1 the head gets sharp.
  const ratio = (r) => {
    const w = head(r, 1, 0);
    let most = 0;
    for (let i = 0; i < r.n; i++) {
      const row = w.subarray(i * r.n, (i + 1) * r.n);
      most = Math.max(most, Math.max(...row) / Math.min(...row));
    }
    return most;
  };
  const flat = model.encode(text, { score: { '1.0': 'cosine' } });
  const cold = model.encode(text, { score: { '1.0': 'cosine' }, temperature: { '1.0': 0.1 } });
  assert.ok(ratio(flat) <= Math.exp(2) * (1 + 1e-4), `cosine at τ = 1: ${ratio(flat)}`);
  assert.ok(ratio(cold) > 100, `cosine at τ = 0.1: ${ratio(cold)}`);
});

test('ablate: a knocked-out head changes the layers after it, not its own layer', () => {
  const text = 'The trophy would not fit in the suitcase because it was too big.';
  const base = model.encode(text);
  const k0 = model.encode(text, { ablate: ['0.1', '0.3'] });
  for (let h = 0; h < 4; h++) assert.deepEqual(head(k0, 0, h), head(base, 0, h));
  for (let h = 0; h < 4; h++) assert.ok(maxDiff(head(k0, 1, h), head(base, 1, h)) > 1e-6);
  const k1 = model.encode(text, { ablate: ['1.0'] });
  assert.deepEqual(k1.attentions, base.attentions);
  assert.ok(maxDiff(k1.embedding, base.embedding) > 1e-6);
  const everything = model.encode(text, { ablate: ['0.0', '0.1', '0.2', '0.3', '1.0', '1.1', '1.2', '1.3'] });
  assert.ok(Math.abs(Math.hypot(...everything.embedding) - 1) < 1e-5);
});

test('similarity: cosine of the embeddings; paraphrases score above unrelated sentences', () => {
  assert.ok(Math.abs(model.similarity('How old are you?', 'How old are you?') - 1) < 1e-6);
  const para = model.similarity('How old are you?', 'What is your age?');
  const other = model.similarity('How old are you?', 'The stock market fell sharply on Monday.');
  assert.ok(para > other + 0.2, `paraphrase ${para} vs unrelated ${other}`);
  const a = model.encode('How old are you?').embedding, b = model.encode('What is your age?').embedding;
  assert.ok(Math.abs(para - a.reduce((s, v, i) => s + v * b[i], 0)) < 1e-6);
  // Options apply to both sentences; ids work too.
  const knocked = model.similarity('How old are you?', 'What is your age?', { ablate: ['1.0', '1.1'] });
  assert.notEqual(knocked, para);
  assert.equal(model.similarity(model.encode('hello').ids, 'hello'), model.similarity('hello', 'hello'));
});

test('over 128 tokens: cut, truncated: true, and the same as the first 128 tokens', () => {
  const long = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
  const r = model.encode(long);
  assert.equal(r.n, 128);
  assert.equal(r.truncated, true);
  assert.equal(r.attentions.length, 8 * 128 * 128);
  const first = model.encodeIds(r.ids);
  assert.equal(first.truncated, false);
  assert.deepEqual(first.embedding, r.embedding);
});

test('bad input: TypeError/RangeError naming the argument and the valid values; the model keeps working', () => {
  const ok = model.encode('still here');
  const cases = [
    [() => model.encode(42), TypeError, /^text: expected a string, got 42/],
    [() => model.encode(null), TypeError, /^text: expected a string/],
    [() => model.encode(''), RangeError, /^text: expected text with at least one token/],
    [() => model.encode('x\ud800y'), RangeError, /^text: lone UTF-16 surrogate/],
    [() => model.encode('hi', { score: 'nope' }), RangeError, /^options\.score: expected one of 'dot', 'scaled-dot'.*got 'nope'/],
    [() => model.encode('hi', { score: 3 }), TypeError, /^options\.score: expected a scoring function's name/],
    [() => model.encode('hi', { score: { '2.0': 'cosine' } }), RangeError, /^options\.score\['2\.0'\]: head '2\.0' is out of range; expected 'L\.H' with layer L from 0 to 1 and head H from 0 to 3/],
    [() => model.encode('hi', { score: { '0.4': 'cosine' } }), RangeError, /head H from 0 to 3/],
    [() => model.encode('hi', { score: { first: 'cosine' } }), RangeError, /^options\.score\['first'\]: expected a head label 'L\.H'/],
    [() => model.encode('hi', { score: { '0.0': 'Cosine' } }), RangeError, /^options\.score\['0\.0'\]: expected one of .*'cosine'/],
    [() => model.encode('hi', { ablate: ['1.4'] }), RangeError, /^options\.ablate\[0\]: head '1\.4' is out of range/],
    [() => model.encode('hi', { ablate: '0.1' }), TypeError, /^options\.ablate: expected an array of head labels/],
    [() => model.encode('hi', { ablate: [1] }), TypeError, /^options\.ablate\[0\]: expected a head label/],
    [() => model.encode('hi', { scores: 'cosine' }), TypeError, /^options\.scores: unknown option; expected one of score, ablate, temperature, variant/],
    [() => model.encode('hi', { temperature: 0 }), RangeError, /^options\.temperature: expected a number > 0/],
    [() => model.encode('hi', { temperature: '0.1' }), TypeError, /^options\.temperature: expected a number > 0 for every head, or an object/],
    [() => model.encode('hi', { temperature: { '0.1': -2 } }), RangeError, /^options\.temperature\['0\.1'\]: expected a number > 0/],
    [() => model.encode('hi', { temperature: { '2.1': 0.5 } }), RangeError, /^options\.temperature\['2\.1'\]: head '2\.1' is out of range/],
    [() => model.encode('hi', { temperature: { '0.1': 1e-40 } }), RangeError, /^options\.temperature\['0\.1'\]: .*too small a temperature/],
    [() => model.encode('hi', { temperature: { '0.1': Infinity } }), TypeError, /^options\.temperature\['0\.1'\]: expected a finite number/],
    [() => model.encode('hi', { variant: 'fast' }), TypeError, /^variant: expected one of 'auto'/],
    [() => model.encodeIds([1, 9000]), RangeError, /^ids\[1\]: expected an integer from 0 to 8001, got 9000/],
    [() => model.encodeIds(Int32Array.of(5, -1)), RangeError, /^ids: id -1 at position 1 is outside the vocabulary \(0 to 8001\)/],
    [() => model.encodeIds([]), RangeError, /^ids: expected at least one token id/],
    [() => model.encodeIds('hello'), TypeError, /^ids: expected an Int32Array or an array of token ids/],
    [() => model.similarity('a', 7), TypeError, /^b: expected a string or token ids/],
  ];
  for (const [fn, type, message] of cases) {
    assert.throws(fn, (e) => e instanceof type && message.test(e.message), String(fn));
  }
  assert.deepEqual(model.encode('still here').embedding, ok.embedding);
});

test('loadModel: bytes and URLs; damaged or foreign files are refused with the reason; dispose', async () => {
  const bytes = readFileSync(join(DIST, 'use-lite.bin'));
  const fromBytes = await scope.loadModel({ model: new Uint8Array(bytes) });
  const fromUrl = await scope.loadModel({ model: new URL(`file://${join(DIST, 'use-lite.bin')}`) });
  const want = model.encode('same weights').embedding;
  assert.deepEqual(fromBytes.encode('same weights').embedding, want);
  assert.deepEqual(fromUrl.encode('same weights').embedding, want);
  fromBytes.dispose();
  fromUrl.dispose();
  assert.throws(() => fromBytes.encode('gone'), /^Error: model: this Model was disposed/);
  fromBytes.dispose();  // twice is harmless
  const damaged = new Uint8Array(bytes);
  damaged[1000] ^= 4;
  await assert.rejects(scope.loadModel({ model: damaged }), (e) => e instanceof RangeError && /^options\.model: model file: CRC-32 mismatch/.test(e.message));
  await assert.rejects(scope.loadModel({ model: damaged.subarray(0, 5000) }), /^RangeError: options\.model: model file: the header says \d+ bytes follow it, the file has 4968 \(truncated or damaged\)/);
  await assert.rejects(scope.loadModel({ model: readFileSync(join(DIST, 'glove-10k.bin')) }), /does not start with "ATSMODEL"/);
  await assert.rejects(scope.loadModel({ model: 42 }), /^TypeError: options\.model: expected 'default', a Uint8Array or ArrayBuffer/);
  await assert.rejects(scope.loadModel({ model: new URL(`file://${join(DIST, 'glove-10k.bin')}`) }), /should be the model file, an attnscope model file \(starting "ATSMODEL"\)/);
  await assert.rejects(scope.loadModel({ weights: 'x' }), /^TypeError: options\.weights: unknown option/);
  assert.deepEqual(model.encode('same weights').embedding, want);
});

// memoryInUse() is exact (the allocator's bytes in use), so one byte kept by any of the 250 calls of each
// kind would show; more calls would find nothing more, only take longer.
test('2,000 encodes (and failing calls among them): memoryInUse() returns to its start and the heap does not grow', () => {
  const heapBytes = () => scope._m.HEAPU8.buffer.byteLength;
  const calls = [
    () => model.encode('hi'),
    (i) => model.encode('ok', { score: { [`${i % 2}.${i % 4}`]: scope.scoreFunctions[i % scope.scoreFunctions.length].name } }),
    (i) => model.encode('no', { ablate: [`${i % 2}.${(i + 1) % 4}`] }),
    () => model.encodeIds([5]),
    () => assert.throws(() => model.encodeIds([5, 9000])),                  // fails in JS
    () => assert.throws(() => model.encodeIds(Int32Array.of(5, 9000))),     // fails in the wasm core
    () => assert.throws(() => model.encode('hi', { score: { '9.9': 'dot' } })),
    () => model.similarity('a', 'b'),
  ];
  for (let i = 0; i < 3 * calls.length; i++) calls[i % calls.length](i);  // warm-up: the allocator's first chunks
  const start = scope.memoryInUse(), heap = heapBytes();
  for (let i = 0; i < 2_000; i++) calls[i % calls.length](i);
  assert.equal(scope.memoryInUse(), start, 'bytes in use after 2,000 calls');
  assert.equal(heapBytes(), heap, 'wasm heap size');
});
