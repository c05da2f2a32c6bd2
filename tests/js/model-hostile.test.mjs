// Model files that are valid to the byte but hostile in what they declare (reliability round 4): a
// declared shape may make a call's buffers larger than wasm32 can address or the heap can hold; the
// call must be refused with an error naming the argument, and the instance must keep working.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DIST, loadScope } from './helpers.mjs';

const DIST_URL = pathToFileURL(DIST).href;
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

test('non-finite weights, a timing signal past float\'s range and inconsistent vocabularies are refused at load, naming the field', async () => {
  const { serialize } = await import('../../scripts/build-model.mjs');
  const { modelTensors } = await import('./model-files.mjs');
  const load = (edit) => {
    const t = modelTensors({ vocab: 8, pieces: 8 });
    edit(new Map(t.map((x) => [x[0], x])));
    return scope.loadModel({ model: serialize(t) });
  };
  await assert.rejects(load((m) => { m.get('l0.qkv.w')[3][5] = NaN; }), { name: 'RangeError', message: /^options\.model: model file: tensor 'l0\.qkv\.w' holds NaN at element 5/ });
  await assert.rejects(load((m) => { m.get('l1.ln2.b')[3][0] = Infinity; }), /tensor 'l1\.ln2\.b' holds an infinity at element 0/);
  await assert.rejects(load((m) => { m.get('timing.inv')[3][1] = 3e38; }), /'timing\.inv' element 1 is .*\(0, 1\]/);
  // More pieces than embedding rows (ids the tokenizer gives would index no row); fewer than the 6 control pieces.
  await assert.rejects(scope.loadModel({ model: modelFile({ vocab: 8, pieces: 9 }) }), /the vocabulary has 9 pieces and the embedding 8 rows; expected 6 \(the control pieces\) to 8 pieces/);
  await assert.rejects(scope.loadModel({ model: modelFile({ vocab: 8, pieces: 5 }) }), /the vocabulary has 5 pieces/);
  checkAlive();
});

test('finite weights that overflow on the way: an error, never non-finite attentions or a similarity of 0', async () => {
  const { serialize } = await import('../../scripts/build-model.mjs');
  const { modelTensors } = await import('./model-files.mjs');
  const t = modelTensors({ vocab: 8, pieces: 8 });
  t.find((x) => x[0] === 'l0.qkv.b')[3].fill(3e38);
  const model = await scope.loadModel({ model: serialize(t) });
  try {
    assert.throws(() => model.encodeIds([1, 2, 3]), { name: 'RangeError', message: /^model: its weights overflow float32 on these ids/ });
    assert.throws(() => model.similarity([1, 2], [3, 4]), /overflow float32/);
  } finally {
    model.dispose();
  }
  checkAlive();
});

test('options.score as a Map, an inherited key, { __proto__: name } or {}: refused, not silently ignored; long labels never echoed whole', async () => {
  const model = await scope.loadModel({ model: modelFile({ vocab: 8, pieces: 8 }) });
  try {
    const ids = [1, 2, 3];
    assert.throws(() => model.encodeIds(ids, { score: new Map([['0.0', 'cosine']]) }), { name: 'TypeError', message: /options\.score: expected a plain object .*got a Map; pass Object\.fromEntries/ });
    assert.throws(() => model.encodeIds(ids, { score: Object.create({ '0.0': 'cosine' }) }), { name: 'TypeError', message: /options\.score\.0\.0: inherited through the prototype chain/ });
    assert.throws(() => model.encodeIds(ids, { score: { __proto__: 'cosine' } }), { name: 'TypeError', message: /options\.score: an empty object changes nothing/ });
    assert.throws(() => model.encodeIds(ids, { score: {} }), TypeError);
    class Scores { constructor() { this['0.0'] = 'cosine'; } }
    assert.throws(() => model.encodeIds(ids, { score: new Scores() }), /options\.score: expected a plain object/);
    // A null-prototype object is a plain map: accepted.
    const plain = Object.assign(Object.create(null), { '0.0': 'cosine' });
    assert.notDeepEqual(model.encodeIds(ids, { score: plain }).attentions, model.encodeIds(ids).attentions);
    const long = 'x'.repeat(1_000_000);
    for (const call of [() => model.encodeIds(ids, { score: { [long]: 'cosine' } }), () => model.encodeIds(ids, { ablate: [long] }),
      () => model.encodeIds(ids, { score: { '0.0': long } })]) {
      assert.throws(call, (e) => e instanceof RangeError && e.message.length < 400 && /1000000 characters|…/.test(e.message));
    }
  } finally {
    model.dispose();
  }
});

test('model.encode of more than 1 MiB of text is refused before any work; runs of combining marks are normalised 30 at a time', async () => {
  const model = await scope.loadModel({ model: modelFile({ vocab: 8, pieces: 8, maxTokens: 16 }) });
  try {
    const t0 = performance.now();
    assert.throws(() => model.encode('word '.repeat(2_000_000)), { name: 'RangeError', message: /^text: 10000000 characters is more than the limit of 1048576 bytes \(1 MiB\) of UTF-8; the model reads its first 16 tokens/ });
    assert.throws(() => model.encode('é'.repeat(600_000)), { name: 'RangeError', message: /^text: 1200000 bytes is more than the limit/ });
    // Limits are checked, not timed: the refusal does no work proportional to the text.
    const refused = performance.now() - t0;
    // One base and 100,000 marks of two combining classes: NFKC reorders them, and V8's normalize is
    // quadratic in a run's length (3.6 s; the tokenizer took 6 s). The tokenizer normalises runs of at
    // most 30 marks (Unicode's stream-safe format), so the marks are sorted within each run of 30.
    const text = 'a' + '\u0301\u0316'.repeat(50_000);
    const r = model.encode(text);
    assert.equal(r.n, 1);  // the tiny vocabulary has none of these: one unknown piece
    assert.deepEqual(Array.from(r.spans), [0, text.length], 'the piece covers the text');
    const { createSentencePiece } = await import(`${DIST_URL}/sentencepiece.mjs`);
    const sp = createSentencePiece(model.vocabulary);
    const short = 'a' + '\u0301\u0316'.repeat(20);  // 40 marks: runs of 30 and 10
    const stream = 'a' + '\u0301\u0316'.repeat(15) + '\u034f' + '\u0301\u0316'.repeat(5);
    assert.equal(sp.encode(short).normalized, `\u2581${stream.normalize('NFKC').replace('\u034f', '')}`);
    assert.ok(refused >= 0);
  } finally {
    model.dispose();
  }
});

test('encode of a valid model past the budget: 16 x 4 heads x 2,048 ids and 2 x 4 heads x 4,096 ids are refused (they aborted, or took a 1.5 GB heap)', async () => {
  for (const [layers, n] of [[16, 2048], [2, 4096]]) {
    const model = await scope.loadModel({ model: modelFile({ vocab: 8, embed: 8, out: 8, ffn: 8, heads: 4, maxTokens: n, pieces: 8, widths: Array(layers).fill(8) }) });
    try {
      const before = scope.memoryInUse();
      assert.throws(() => model.encodeIds(new Int32Array(n)), { name: 'RangeError', message: new RegExp(`^ids: memory: encoding ${n} tokens with ${layers} layers of 4 heads`) });
      assert.equal(scope.memoryInUse(), before);
      assert.equal(model.encodeIds(new Int32Array(64)).n, 64);
    } finally {
      model.dispose();
    }
  }
  checkAlive();
});

test('loading models until the heap is full: a RangeError, not an abort; every one disposed gives the memory back', async () => {
  // 16 MiB of weights each (65,536 x 64 f16 embedding): the heap (at most 2 GiB) is full after ~120.
  const bytes = modelFile({ vocab: 65536, embed: 64, out: 8, ffn: 8, heads: 2, maxTokens: 8, pieces: 8, widths: [8] });
  const start = scope.memoryInUse();
  const models = [];
  let refusal = null;
  try {
    for (let i = 0; i < 400 && !refusal; i++) {
      try {
        models.push(await scope.loadModel({ model: bytes }));
      } catch (e) {
        refusal = e;
      }
    }
    assert.ok(refusal, `${models.length} models loaded and none refused`);
    assert.ok(refusal instanceof RangeError, `${refusal}`);
    assert.match(refusal.message, /memory|heap/);
    assert.ok(models.length > 20, `only ${models.length} models before the refusal`);
    // The instance still works, and so do the models loaded.
    checkAlive();
    assert.equal(models[0].encodeIds([1, 2, 3]).n, 3);
  } finally {
    for (const m of models) m.dispose();
  }
  assert.ok(scope.memoryInUse() - start < 2 ** 20, `${scope.memoryInUse() - start} bytes still in use`);
  const again = await scope.loadModel({ model: bytes });
  again.dispose();
  checkAlive();
});
