// scope.createModel(): the contract's shapes and names, the errors (a TypeError / RangeError naming the
// argument and the fix; the model and the scope keep working after each), re-scoring and knocking out
// heads, determinism for a seed, and that nothing leaks (many calls, then dispose). The numbers
// themselves are checked against PyTorch in transformer-torch.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertThrowsNaming, loadScope } from './helpers.mjs';

const scope = await loadScope({ preload: false });

// The error's type, and its message starting with (or containing) this text.
const escape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const throwsNaming = (fn, type, text) => assertThrowsNaming(fn, type, new RegExp(escape(text)), text);

test('createModel: the contract example has nanoGPT\'s names and PyTorch\'s shapes', () => {
  const model = scope.createModel({ kind: 'decoder', layers: 2, heads: 4, dModel: 64, dFF: 256, vocab: 64, maxTokens: 64, score: 'scaled-dot', temperature: 1, seed: 1 });
  try {
    const p = model.parameters();
    assert.deepEqual(Object.keys(p).slice(0, 8), [
      'transformer.wte.weight', 'transformer.wpe.weight', 'transformer.h.0.ln_1.weight', 'transformer.h.0.ln_1.bias',
      'transformer.h.0.attn.c_attn.weight', 'transformer.h.0.attn.c_attn.bias', 'transformer.h.0.attn.c_proj.weight', 'transformer.h.0.attn.c_proj.bias',
    ]);
    assert.equal(Object.keys(p).length, 2 + 2 * 12 + 2);
    assert.deepEqual(model.shapes['transformer.h.1.attn.c_attn.weight'], [192, 64]);
    assert.deepEqual(model.shapes['transformer.h.1.mlp.c_fc.weight'], [256, 64]);
    assert.deepEqual(model.shapes['transformer.h.1.mlp.c_proj.weight'], [64, 256]);
    assert.equal(p['transformer.wte.weight'].length, 64 * 64);
    // copies: changing one changes nothing in the model
    p['transformer.wte.weight'].fill(7);
    assert.notEqual(model.parameters()['transformer.wte.weight'][0], 7);
    const r = model.encodeIds([1, 2, 3]);
    assert.equal(r.n, 3);
    assert.equal(r.attentions.length, 2 * 4 * 3 * 3);
    assert.equal(r.logits.length, 3 * 64);
    // causal rows that sum to 1
    for (let h = 0; h < 8; h++) {
      for (let i = 0; i < 3; i++) {
        let s = 0;
        for (let j = 0; j < 3; j++) { const a = r.attentions[(h * 3 + i) * 3 + j]; s += a; if (j > i) assert.equal(a, 0); }
        assert.ok(Math.abs(s - 1) < 1e-6);
      }
    }
    const g = model.lossAndGradients([1, 2, 3], [2, 3, -1]);
    assert.equal(g.count, 2);
    assert.ok(Math.abs(g.loss - Math.log(64)) < 0.1, `an untrained model's loss is about log(vocab): ${g.loss}`);
    assert.deepEqual(Object.keys(g.gradients), Object.keys(p));
  } finally {
    model.dispose();
  }
});

test('createModel: per-head scores, a learned temperature and attention-only models name their extra tensors', () => {
  const model = scope.createModel({ layers: 2, heads: 2, dModel: 8, dFF: 0, vocab: 10, maxTokens: 6, score: { '0.0': 'general', '0.1': 'additive', '1.1': 'location' }, temperature: 'learned' });
  try {
    assert.deepEqual(model.scores, { '0.0': 'general', '0.1': 'additive', '1.0': 'scaled-dot', '1.1': 'location' });
    assert.deepEqual(model.shapes['transformer.h.0.attn.score.0.W'], [4, 4]);
    assert.deepEqual(model.shapes['transformer.h.0.attn.score.1.W1'], [4, 4]);
    assert.deepEqual(model.shapes['transformer.h.0.attn.score.1.v'], [4]);
    assert.deepEqual(model.shapes['transformer.h.1.attn.score.1.Wa'], [6, 4]);
    assert.deepEqual(model.shapes['transformer.h.0.attn.log_tau'], [2]);
    assert.equal(model.shapes['transformer.h.1.attn.score.0.W'], undefined);
    assert.equal(model.shapes['transformer.h.0.ln_2.weight'], undefined);
    assert.equal(model.shapes['transformer.h.0.mlp.c_fc.weight'], undefined);
    assert.deepEqual(Array.from(model.parameters()['transformer.h.1.attn.log_tau']), [0, 0]);
  } finally {
    model.dispose();
  }
});

test('createModel: the same seed gives the same parameters and results; another seed others', () => {
  const config = { layers: 1, heads: 2, dModel: 8, dFF: 16, vocab: 12, maxTokens: 8, score: 'general', seed: 9 };
  const a = scope.createModel(config), b = scope.createModel(config), c = scope.createModel({ ...config, seed: 10 });
  try {
    assert.deepEqual(a.parameters(), b.parameters());
    assert.notDeepEqual(a.parameters(), c.parameters());
    assert.deepEqual(a.lossAndGradients([1, 2, 3, 4], [2, 3, 4, 5]), b.lossAndGradients([1, 2, 3, 4], [2, 3, 4, 5]));
  } finally {
    a.dispose(); b.dispose(); c.dispose();
  }
});

test('encodeIds: heads re-scored and knocked out; setParameters round-trips', () => {
  const model = scope.createModel({ layers: 2, heads: 2, dModel: 8, dFF: 16, vocab: 12, maxTokens: 8, seed: 2 });
  try {
    const p = model.parameters();
    for (const v of Object.values(p)) for (let i = 0; i < v.length; i++) v[i] += 0.3 * Math.sin(i + v.length);
    model.setParameters(p);
    assert.deepEqual(model.parameters(), p);
    const base = model.encodeIds([1, 5, 7, 2]);
    const knocked = model.encodeIds([1, 5, 7, 2], { ablate: ['0.1', '1.0'] });
    assert.notDeepEqual(knocked.logits, base.logits);
    // knocking out a layer-1 head leaves layer 0's attention as it was
    assert.deepEqual(knocked.attentions.subarray(0, 2 * 16), base.attentions.subarray(0, 2 * 16));
    const rescored = model.encodeIds([1, 5, 7, 2], { score: { '1.1': 'cosine' } });
    assert.deepEqual(rescored.attentions.subarray(0, 3 * 16), base.attentions.subarray(0, 3 * 16));
    assert.notDeepEqual(rescored.attentions.subarray(3 * 16), base.attentions.subarray(3 * 16));
    const same = model.encodeIds([1, 5, 7, 2], { score: 'scaled-dot', variant: 'scalar' });
    for (let i = 0; i < base.logits.length; i++) assert.ok(Math.abs(same.logits[i] - base.logits[i]) < 1e-4);
  } finally {
    model.dispose();
  }
});

test('config positions, norm and activation: the parameters they imply, model.config, a file round trip; defaults unchanged', async () => {
  const plain = scope.createModel({ layers: 1, heads: 2, dModel: 8, dFF: 16, vocab: 12, maxTokens: 8, seed: 6 });
  const model = scope.createModel({ layers: 1, heads: 2, dModel: 8, dFF: 16, vocab: 12, maxTokens: 8, seed: 6, positions: 'sinusoidal', norm: 'post', activation: 'relu' });
  try {
    assert.deepEqual([plain.positions, plain.norm, plain.activation], ['learned', 'pre', 'gelu']);
    assert.equal(model.config.positions, 'sinusoidal');
    assert.equal(model.config.norm, 'post');
    assert.equal(model.config.activation, 'relu');
    const names = Object.keys(model.shapes);
    assert.deepEqual(Object.keys(plain.shapes).filter((n) => !names.includes(n)), ['transformer.wpe.weight', 'transformer.ln_f.weight', 'transformer.ln_f.bias']);
    const header = (bytes) => JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true)))));
    assert.ok(!/positions|norm|activation/.test(header(plain.save()).__metadata__['attnscope.config']), 'a default model\'s file is as before');
    const back = await scope.loadModel({ model: model.save() });
    try {
      assert.deepEqual(back.config, model.config);
      assert.deepEqual(back.encodeIds([1, 2, 3]).logits, model.encodeIds([1, 2, 3]).logits);
    } finally {
      back.dispose();
    }
  } finally {
    plain.dispose();
    model.dispose();
  }
});

test('attentionGradients: the encoding, the prediction (default: the last position\'s argmax), gradients of its shape; errors', () => {
  const model = scope.createModel({ layers: 2, heads: 2, dModel: 8, dFF: 16, vocab: 12, maxTokens: 8, seed: 4 });
  try {
    const p = model.parameters();
    for (const v of Object.values(p)) for (let i = 0; i < v.length; i++) v[i] += 0.3 * Math.sin(i + v.length);
    model.setParameters(p);
    const ids = [1, 5, 7, 2], n = 4;
    const enc = model.encodeIds(ids), r = model.attentionGradients(ids);
    assert.deepEqual(r.attentions, enc.attentions);
    assert.deepEqual(r.logits, enc.logits);
    assert.equal(r.position, n - 1);
    const last = Array.from(enc.logits.subarray((n - 1) * 12));
    assert.equal(r.token, last.indexOf(Math.max(...last)));
    assert.equal(r.logit, enc.logits[(n - 1) * 12 + r.token]);
    assert.equal(r.gradients.length, 2 * 2 * n * n);
    assert.ok(r.gradients.some((g) => g !== 0));
    const at1 = model.attentionGradients(ids, { position: 1, token: 3, ablate: ['1.0'] });
    assert.equal(at1.token, 3);
    for (let lh = 0; lh < 4; lh++) {
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const g = at1.gradients[(lh * n + i) * n + j];
          if (i > 1 || lh === 2) assert.equal(g, 0, `[${lh}, ${i}, ${j}]: rows after the position and a knocked-out head do not reach the logit`);
        }
      }
    }
    assert.notDeepEqual(model.attentionGradients(ids, { score: { '0.1': 'cosine' } }).gradients, r.gradients);
    throwsNaming(() => model.attentionGradients(ids, { position: 4 }), RangeError, 'options.position: expected an integer from 0 to 3');
    throwsNaming(() => model.attentionGradients(ids, { token: 12 }), RangeError, 'options.token: expected an integer from 0 to 11');
    throwsNaming(() => model.attentionGradients(ids, { token: '3' }), TypeError, 'options.token: expected an integer');
    throwsNaming(() => model.attentionGradients(ids, { target: [1] }), TypeError, 'options.target: unknown option');
    throwsNaming(() => model.attentionGradients([1, 12]), RangeError, 'ids[1]: expected an integer from 0 to 11');
    const big = scope.createModel({ layers: 64, heads: 64, dModel: 64, dFF: 0, vocab: 4, maxTokens: 4096 });
    try {
      throwsNaming(() => big.attentionGradients(new Int32Array(4096)), RangeError, 'ids: memory: encoding 4096 tokens');
    } finally {
      big.dispose();
    }
    assert.deepEqual(model.attentionGradients(ids).gradients, r.gradients, 'the model keeps working, deterministically');
  } finally {
    model.dispose();
  }
  const pair = scope.createModel({ kind: 'encoder-decoder', layers: 1, heads: 2, dModel: 8, dFF: 0, vocab: 6, maxTokens: 6, seed: 5 });
  try {
    const r = pair.attentionGradients([1, 2, 3, 4, 5], { target: [5, 4, 3], position: 1 });
    assert.equal(r.n, 3);
    assert.equal(r.nSource, 5);
    assert.equal(r.gradients.length, 2 * 3 * 3);
    assert.equal(r.encoderGradients.length, 2 * 5 * 5);
    assert.equal(r.crossGradients.length, 2 * 3 * 5);
    assert.deepEqual(r.cross, pair.encodeIds([1, 2, 3, 4, 5], { target: [5, 4, 3] }).cross);
    assert.ok(r.crossGradients.subarray(5, 10).some((g) => g !== 0) && r.crossGradients.subarray(10, 15).every((g) => g === 0));
    throwsNaming(() => pair.attentionGradients([1, 2]), TypeError, 'options.target: an encoder-decoder needs the target ids');
    throwsNaming(() => pair.attentionGradients([1, 2], { target: [1, 2], position: 2 }), RangeError, 'options.position: expected an integer from 0 to 1');
  } finally {
    pair.dispose();
  }
  assert.throws(() => pair.attentionGradients([1], { target: [1] }), /model: this model was disposed/);
});

test('bad input throws a TypeError / RangeError naming the argument and the fix; the model keeps working', () => {
  throwsNaming(() => scope.createModel({ layers: 0 }), RangeError, 'config.layers');
  throwsNaming(() => scope.createModel({ dModel: 10, heads: 4 }), RangeError, 'config.dModel: expected a multiple of heads');
  throwsNaming(() => scope.createModel({ score: 'cosin' }), RangeError, "config.score: expected one of 'dot'");
  throwsNaming(() => scope.createModel({ score: { '2.0': 'dot' } }), RangeError, "config.score['2.0']: head '2.0' is out of range");
  throwsNaming(() => scope.createModel({ score: { x: 'dot' } }), RangeError, "config.score['x']: expected a head label");
  throwsNaming(() => scope.createModel({ temperature: 0 }), RangeError, 'config.temperature');
  throwsNaming(() => scope.createModel({ temperature: 'learnt' }), TypeError, 'config.temperature');
  throwsNaming(() => scope.createModel({ kind: 'encoder' }), TypeError, 'config.kind');
  throwsNaming(() => scope.createModel({ dropout: 0.1 }), TypeError, 'config.dropout: unknown option');
  throwsNaming(() => scope.createModel({ positions: 'rotary' }), RangeError, "config.positions: expected 'learned' or 'sinusoidal' (default 'learned'), got 'rotary'");
  throwsNaming(() => scope.createModel({ norm: 'Post' }), RangeError, "config.norm: expected 'pre' or 'post'");
  throwsNaming(() => scope.createModel({ activation: 1 }), TypeError, "config.activation: expected 'gelu' or 'relu' or 'tanh'");
  throwsNaming(() => scope.createModel({ vocab: 1 << 20, dModel: 4096, dFF: 16, heads: 4 }), RangeError, 'config: 4');
  const model = scope.createModel({ layers: 1, heads: 2, dModel: 4, dFF: 8, vocab: 5, maxTokens: 4 });
  try {
    throwsNaming(() => model.encodeIds([1, 5]), RangeError, 'ids[1]: expected an integer from 0 to 4');
    throwsNaming(() => model.encodeIds([1, 2, 3, 4, 0]), RangeError, "ids: 5 ids are more than the model's maxTokens");
    throwsNaming(() => model.encodeIds([]), RangeError, 'ids: expected at least one');
    throwsNaming(() => model.encodeIds('1 2'), TypeError, 'ids: expected an Int32Array');
    throwsNaming(() => model.encodeIds([1], { ablate: ['1.0'] }), RangeError, "options.ablate[0]: head '1.0' is out of range");
    throwsNaming(() => model.encodeIds([1], { heads: 1 }), TypeError, 'options.heads: unknown option');
    throwsNaming(() => model.lossAndGradients([1, 2], [1]), RangeError, 'targets: expected one target per id');
    throwsNaming(() => model.lossAndGradients([1, 2], [1, 5]), RangeError, 'targets[1]: expected an integer');
    throwsNaming(() => model.setParameters({ 'transformer.wte.weight': new Float32Array(3) }), RangeError, "parameters['transformer.wte.weight']: expected 20 numbers [5, 4]");
    throwsNaming(() => model.setParameters({ 'transformer.wte.weight': new Array(20).fill(0) }), TypeError, "parameters['transformer.wte.weight']: expected a Float32Array");
    throwsNaming(() => model.setParameters({ 'lm_head.weight': new Float32Array(20) }), RangeError, "parameters['lm_head.weight']: not a parameter");
    const nan = new Float32Array(20);
    nan[3] = NaN;
    const before = model.parameters();
    throwsNaming(() => model.setParameters({ 'transformer.wpe.weight': new Float32Array(16).fill(1), 'transformer.wte.weight': nan }), RangeError, 'element 3 is NaN');
    assert.deepEqual(model.parameters(), before, 'a refused setParameters changes nothing');
    const r = model.lossAndGradients([1, 2, 3], [2, 3, 4]);
    assert.ok(Number.isFinite(r.loss));
  } finally {
    model.dispose();
  }
  assert.throws(() => model.encodeIds([1]), /model: this model was disposed/);
  model.dispose();  // twice is fine
  assert.ok(Number.isFinite(scope.softmax(new Float32Array([1, 2]), { rows: 1, cols: 2 })[0]), 'the scope keeps working');
});

test('no wasm memory leaks over many calls; dispose frees the model', () => {
  const config = { layers: 2, heads: 2, dModel: 16, dFF: 32, vocab: 20, maxTokens: 16, score: { '0.0': 'additive', '1.1': 'location' }, temperature: 'learned' };
  const warm = scope.createModel(config);
  warm.lossAndGradients([1, 2, 3], [2, 3, 4]);
  warm.dispose();
  const before = scope.memoryInUse();
  for (let k = 0; k < 20; k++) {
    const model = scope.createModel(config);
    for (let i = 0; i < 10; i++) {
      model.encodeIds([1, 2, 3, 4, 5, 6]);
      model.lossAndGradients([1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, -1]);
      model.attentionGradients([1, 2, 3, 4], { position: 2, ablate: ['1.0'] });
      model.setParameters(model.parameters());
      try { model.encodeIds([1, 99]); } catch { /* refused */ }
    }
    model.dispose();
  }
  assert.equal(scope.memoryInUse(), before);
});

// Sequences that repeat their first half; targets are the next ids (-1 at the end): an induction task.
function repeated(rows, cols, vocab, seed) {
  let a = seed;
  const next = () => { a = (a * 1103515245 + 12345) % 2147483648; return a / 2147483648; };
  const ids = new Int32Array(rows * cols), targets = new Int32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < cols; i++) ids[r * cols + i] = i < cols / 2 ? Math.floor(next() * vocab) : ids[r * cols + i - cols / 2];
    for (let i = 0; i < cols; i++) targets[r * cols + i] = i + 1 < cols ? ids[r * cols + i + 1] : -1;
  }
  return { ids, targets, rows, cols };
}

test('createModelTrainer: the loss falls on an induction task; the same seed gives the same losses; evaluate', () => {
  const config = { layers: 2, heads: 2, dModel: 16, dFF: 0, vocab: 8, maxTokens: 12, seed: 2 };
  const data = repeated(64, 12, 8, 7);
  const a = scope.createModel(config), b = scope.createModel(config);
  const ta = scope.createModelTrainer(a, { data, batch: 8, learningRate: 0.01, seed: 3 });
  const tb = scope.createModelTrainer(b, { data, batch: 8, learningRate: 0.01, seed: 3 });
  try {
    const before = ta.evaluate(data);
    assert.ok(Math.abs(before.loss - Math.log(8)) < 0.1);
    assert.equal(ta.step(100), 100);
    tb.step(60);
    tb.step(40);
    assert.deepEqual(ta.losses, tb.losses, 'the same seed, the same losses, however the steps are sliced');
    assert.deepEqual(a.parameters(), b.parameters());
    const after = ta.evaluate(data);
    assert.ok(after.loss < 0.8 * before.loss, `loss ${before.loss} -> ${after.loss}`);
    assert.ok(after.accuracy > before.accuracy);
    assert.equal(after.count, 64 * 11);
    assert.ok(Number.isFinite(ta.lastGradNorm) && ta.lastGradNorm > 0);
  } finally {
    ta.dispose(); tb.dispose(); a.dispose(); b.dispose();
  }
});

test('createModelTrainer: bad options name the argument; a disposed model stops its trainer', () => {
  const model = scope.createModel({ layers: 1, heads: 1, dModel: 4, dFF: 0, vocab: 5, maxTokens: 6 });
  const data = repeated(4, 6, 5, 1);
  try {
    throwsNaming(() => scope.createModelTrainer({}, { data }), TypeError, 'model: expected a model made by');
    throwsNaming(() => scope.createModelTrainer(model, {}), TypeError, 'options.data: expected { ids, targets, rows, cols }');
    throwsNaming(() => scope.createModelTrainer(model, { data: { ...data, rows: 5 } }), RangeError, 'options.data.ids: expected rows x cols = 30');
    throwsNaming(() => scope.createModelTrainer(model, { data: { ...data, cols: 7, rows: 3 } }), RangeError, 'options.data.cols: expected an integer from 1 to 6');
    throwsNaming(() => scope.createModelTrainer(model, { data, learningRate: 0 }), RangeError, 'options.learningRate');
    throwsNaming(() => scope.createModelTrainer(model, { data, batch: 0 }), RangeError, 'options.batch');
    throwsNaming(() => scope.createModelTrainer(model, { data, clip: -1 }), RangeError, 'options.clip');
    throwsNaming(() => scope.createModelTrainer(model, { data, momentum: 0.9 }), TypeError, 'options.momentum: unknown option');
    const t = scope.createModelTrainer(model, { data, batch: 2 });
    throwsNaming(() => t.step(0), RangeError, 'count: expected an integer from 1');
    throwsNaming(() => t.evaluate({ ...data, ids: new Int32Array(24).fill(9) }), RangeError, 'data.ids[0]: expected an integer from 0 to 4');
    t.step(2);
    assert.equal(t.losses.length, 2);
    model.dispose();
    assert.throws(() => t.step(1), /model: the trainer's model was disposed/);
    t.dispose();
    assert.throws(() => t.losses, /trainer: this trainer was disposed/);
  } finally {
    model.dispose();
  }
});

test('model.save() is safetensors; scope.loadModel({ model: bytes }) gives the same model back', async () => {
  const model = scope.createModel({ layers: 2, heads: 2, dModel: 8, dFF: 0, vocab: 12, maxTokens: 8, score: { '0.1': 'additive', '1.0': 'location' }, temperature: 'learned', seed: 4 });
  try {
    const p = model.parameters();
    for (const v of Object.values(p)) for (let i = 0; i < v.length; i++) v[i] += 0.1 * Math.cos(3 * i + v.length);
    model.setParameters(p);
    const bytes = model.save();
    assert.ok(bytes instanceof Uint8Array);
    const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    assert.equal(header.__metadata__['attnscope.architecture'], 'decoder');
    assert.deepEqual(JSON.parse(header.__metadata__['attnscope.config']).score, ['scaled-dot', 'additive', 'location', 'scaled-dot']);
    assert.deepEqual(header['transformer.h.1.attn.score.0.Wa'], { dtype: 'F32', shape: [8, 4], data_offsets: header['transformer.h.1.attn.score.0.Wa'].data_offsets });
    const back = await scope.loadModel({ model: bytes });
    try {
      assert.deepEqual(back.config, model.config);
      assert.deepEqual(back.parameters(), model.parameters());
      assert.deepEqual(back.encodeIds([1, 2, 3]).logits, model.encodeIds([1, 2, 3]).logits);
      assert.deepEqual(back.save(), bytes);
      const fromBuffer = await scope.loadModel({ model: bytes.slice().buffer });
      assert.equal(fromBuffer.layers, 2);
      fromBuffer.dispose();
    } finally {
      back.dispose();
    }
    const cut = bytes.subarray(0, bytes.length - 8);
    await assert.rejects(scope.loadModel({ model: cut }), (e) => e instanceof RangeError && /options\.model: model: file truncated: 'transformer\.ln_f\.bias'/.test(e.message));
    const other = bytes.slice();
    const at = 8 + new TextDecoder().decode(bytes.subarray(8, 8 + n)).indexOf('attnscope.architecture') + '"attnscope.architecture":"'.length - 1;
    other.set(new TextEncoder().encode('encoder'), at);
    await assert.rejects(scope.loadModel({ model: other }), /options\.model: model: architecture 'encoder'/);
    assert.ok(Number.isFinite(model.lossAndGradients([1, 2], [2, 3]).loss), 'the scope keeps working');
  } finally {
    model.dispose();
  }
});

test('model.setTokens(): the text of each id, saved in the file and read back with it; bad lists refused', async () => {
  const model = scope.createModel({ layers: 1, heads: 1, dModel: 4, dFF: 0, vocab: 4, maxTokens: 8, seed: 2 });
  try {
    assert.equal(model.tokens, null);
    const tokens = ['a', '\n', '"é"', ' '];
    model.setTokens(tokens);
    assert.deepEqual([...model.tokens], tokens);
    assert.ok(Object.isFrozen(model.tokens));
    tokens[0] = 'z';
    assert.equal(model.tokens[0], 'a', 'a copy');
    const bytes = model.save();
    const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    assert.deepEqual(JSON.parse(header.__metadata__['attnscope.tokens']), ['a', '\n', '"é"', ' ']);
    const back = await scope.loadModel({ model: bytes });
    try {
      assert.deepEqual([...back.tokens], ['a', '\n', '"é"', ' ']);
      assert.deepEqual(back.save(), bytes);
    } finally {
      back.dispose();
    }
    throwsNaming(() => model.setTokens('abcd'), TypeError, 'tokens: expected an array of 4 strings');
    throwsNaming(() => model.setTokens(['a', 'b', 3, 'd']), TypeError, 'tokens[2]: expected a string');
    throwsNaming(() => model.setTokens(['a', 'b']), RangeError, 'tokens: 2 of them for a vocabulary of 4');
    throwsNaming(() => model.setTokens(['a', '', 'c', 'd']), RangeError, 'tokens[1]: empty');
    assert.deepEqual([...model.tokens], ['a', '\n', '"é"', ' '], 'a refused call changes nothing');
    model.setTokens(null);
    assert.equal(model.tokens, null);
    const plain = model.save();
    const m = Number(new DataView(plain.buffer, plain.byteOffset).getBigUint64(0, true));
    assert.ok(!('attnscope.tokens' in JSON.parse(new TextDecoder().decode(plain.subarray(8, 8 + m))).__metadata__));
  } finally {
    model.dispose();
  }
});

test("kind 'encoder-decoder': labels, the contract's shapes, training on a reversal, a file round trip, errors", async () => {
  const model = scope.createModel({ kind: 'encoder-decoder', layers: 1, heads: 2, dModel: 16, dFF: 32, vocab: 8, maxTokens: 6, score: { 'cross.0.1': 'additive', 'encoder.0.0': 'cosine' }, seed: 3 });
  try {
    assert.deepEqual(Object.keys(model.scores), ['encoder.0.0', 'encoder.0.1', 'decoder.0.0', 'decoder.0.1', 'cross.0.0', 'cross.0.1']);
    assert.equal(model.scores['cross.0.1'], 'additive');
    assert.deepEqual(model.shapes['decoder.h.0.cross.c_kv.weight'], [32, 16]);
    assert.deepEqual(model.shapes['decoder.h.0.cross.score.1.W1'], [8, 8]);
    const r = model.encodeIds([1, 2, 3, 4, 5], { target: [5, 4, 3] });
    assert.equal(r.n, 3);
    assert.equal(r.nSource, 5);
    assert.equal(r.encoderAttentions.length, 1 * 2 * 5 * 5);
    assert.equal(r.attentions.length, 1 * 2 * 3 * 3);
    assert.equal(r.cross.length, 1 * 2 * 3 * 5);
    assert.equal(r.logits.length, 3 * 8);
    const knocked = model.encodeIds([1, 2, 3, 4, 5], { target: [5, 4, 3], ablate: ['cross.0.0', 'cross.0.1'] });
    assert.deepEqual(knocked.cross, r.cross, 'knocking a head out leaves its weights');
    assert.notDeepEqual(knocked.logits, r.logits);
    throwsNaming(() => model.encodeIds([1, 2]), TypeError, 'options.target: an encoder-decoder needs the target ids');
    throwsNaming(() => model.encodeIds([1, 2], { target: [1], ablate: ['0.1'] }), RangeError, "options.ablate[0]: expected a head label 'encoder.L.H', 'decoder.L.H' or 'cross.L.H'");
    throwsNaming(() => model.encodeIds([1, 2], { target: [1], score: { 'cross.1.0': 'dot' } }), RangeError, "head '1.0' is out of range");
    // a reversal, learnt by the trainer on { source, target, rows, sourceCols, targetCols }
    const rows = 96, source = new Int32Array(rows * 5), target = new Int32Array(rows * 5);
    let a = 11;
    for (let i = 0; i < rows * 5; i++) { a = (a * 1103515245 + 12345) % 2147483648; source[i] = 1 + Math.floor((a / 2147483648) * 7); }
    for (let r0 = 0; r0 < rows; r0++) for (let i = 0; i < 5; i++) target[r0 * 5 + i] = source[r0 * 5 + 4 - i];
    const data = { source, target, rows, sourceCols: 5, targetCols: 5 };
    const t = scope.createModelTrainer(model, { data, batch: 16, learningRate: 0.01, seed: 2 });
    const before = t.evaluate(data);
    t.step(200);
    const after = t.evaluate(data);
    assert.ok(after.loss < 0.5 * before.loss && after.accuracy > 0.8, `loss ${before.loss} -> ${after.loss}, accuracy ${after.accuracy}`);
    throwsNaming(() => t.evaluate({ ...data, targetCols: 4 }), RangeError, 'data.target: expected rows x targetCols = 384');
    throwsNaming(() => scope.createModelTrainer(model, { data: { ids: source, targets: target, rows, cols: 5 } }), TypeError, 'options.data.ids: unknown option');
    t.dispose();
    const back = await scope.loadModel({ model: model.save() });
    try {
      assert.equal(back.kind, 'encoder-decoder');
      assert.deepEqual(back.scores, model.scores);
      assert.deepEqual(back.encodeIds([3, 1, 2], { target: [2, 1, 3] }), model.encodeIds([3, 1, 2], { target: [2, 1, 3] }));
    } finally {
      back.dispose();
    }
    const g = model.lossAndGradients([1, 2, 3], [3, 2, -1]);
    assert.equal(g.count, 2);
    assert.deepEqual(Object.keys(g.gradients), Object.keys(model.shapes));
  } finally {
    model.dispose();
  }
});

test('score and parameter maps that would be ignored are refused', () => {
  throwsNaming(() => scope.createModel({ score: new Map([['0.0', 'dot']]) }), TypeError, 'config.score: expected a plain object');
  throwsNaming(() => scope.createModel({ score: {} }), TypeError, 'config.score: an empty object changes nothing');
  const model = scope.createModel({ layers: 1, heads: 1, dModel: 4, dFF: 0, vocab: 5, maxTokens: 4 });
  try {
    throwsNaming(() => model.setParameters({}), TypeError, 'parameters: an empty object changes nothing');
    throwsNaming(() => model.setParameters(new Map()), TypeError, 'parameters: expected a plain object');
    throwsNaming(() => model.encodeIds([1], { score: Object.create({ '0.0': 'dot' }) }), TypeError, "options.score.0.0: inherited through the prototype chain");
  } finally {
    model.dispose();
  }
});
