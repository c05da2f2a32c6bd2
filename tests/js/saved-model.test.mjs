// A saved transformer's views (web/shared/compute/saved-model.js, what <attn-scope model="transformer">
// draws): text read into ids with the file's tokens, every head's attention and the surgery's equal to
// model.encodeIds' own, the prediction of the next token computed from the logits, rollout and flow of
// the stack, and the sentences explain() prints checked against those numbers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadScope } from './helpers.mjs';
import { readText, decoderViews, shownToken } from '../../web/shared/compute/saved-model.js';
import { explain, rescored, ownScore, rowTV } from '../../web/shared/compute/use-lite.js';

const scope = await loadScope({ preload: false });
const fmt = (x) => x.toFixed(3);

test('readText: the longest token at each place; whitespace no token covers separates; ids without tokens; the cut', () => {
  const tokens = ['a', 'b', 'ab', ' ', 'abc', 'c'];
  const r = readText('abcab a', { tokens, vocab: 6, maxTokens: 10 });
  assert.deepEqual([...r.ids], [4, 2, 3, 0]);
  assert.deepEqual(r.tokens, ['abc', 'ab', '␣', 'a']);
  assert.equal(r.truncated, false);
  const noSpace = readText(' a  b\nc ', { tokens: ['a', 'b', 'c'], vocab: 3, maxTokens: 10 });
  assert.deepEqual([...noSpace.ids], [0, 1, 2], 'whitespace that is not a token separates');
  const cut = readText('abcabc', { tokens: ['a', 'b', 'c'], vocab: 3, maxTokens: 4 });
  assert.deepEqual([...cut.ids], [0, 1, 2, 0]);
  assert.equal(cut.truncated, true);
  const bad = readText('abxéy', { tokens: ['a', 'b'], vocab: 2, maxTokens: 10 });
  assert.equal(bad.ids, undefined);
  assert.match(bad.expected, /^text made of the model's tokens \(“a” “b”\)$/);
  assert.equal(bad.error, '“x”, “é”, “y” are not among them');
  const emoji = readText('a😀', { tokens: ['a'], vocab: 1, maxTokens: 10 });
  assert.equal(emoji.error, '“😀” is not among them', 'a character outside the BMP is one character');
  const ids = readText(' 3, 1 2 ', { tokens: null, vocab: 4, maxTokens: 10 });
  assert.deepEqual([...ids.ids], [3, 1, 2]);
  assert.deepEqual(ids.tokens, ['3', '1', '2']);
  assert.equal(readText('3 4', { tokens: null, vocab: 4, maxTokens: 10 }).error, '“4” is not one');
  assert.equal(readText('3 x', { tokens: null, vocab: 4, maxTokens: 10 }).error, '“x” is not one');
  assert.equal(shownToken(' \n\t'), '␣↵⇥');
});

test('decoderViews: the attentions, the surgery and the prediction are the model\'s own numbers; explain says them', () => {
  const model = scope.createModel({ kind: 'decoder', layers: 2, heads: 2, dModel: 16, dFF: 32, vocab: 6, maxTokens: 12,
    score: { '0.0': 'scaled-dot', '0.1': 'additive', '1.0': 'cosine', '1.1': 'general' }, temperature: 'learned', seed: 3 });
  try {
    // Parameters moved off their initial values, so that heads differ and predictions are not uniform.
    const p = model.parameters();
    for (const [name, v] of Object.entries(p)) for (let i = 0; i < v.length; i++) v[i] += (name.endsWith('log_tau') ? 0.3 : 0.4) * Math.sin(7 * i + v.length);
    model.setParameters(p);
    model.setTokens(['a', 'b', 'c', 'd', ' ', '.']);
    const text = 'abc dab.';
    const ids = [0, 1, 2, 4, 3, 0, 1, 5];

    const plain = decoderViews(scope, model, { name: 'm.safetensors', text, head: '1.0', swap: '', knock: [] });
    const enc = model.encodeIds(ids);
    assert.equal(plain.kind, 'decoder');
    assert.equal(plain.name, 'm.safetensors');
    assert.deepEqual([...plain.ids], ids);
    assert.deepEqual(plain.tokens, ['a', 'b', 'c', '␣', 'd', 'a', 'b', '.']);
    assert.deepEqual(plain.original, enc.attentions);
    assert.equal(plain.changed, false);
    assert.deepEqual(plain.own, ['scaled-dot', 'additive', 'cosine', 'general']);
    const tau = p['transformer.h.0.attn.log_tau'];
    assert.ok(Math.abs(plain.ownTau[1] - Math.exp(tau[1])) < 1e-6);
    // The prediction: the softmax of the last row of logits, in float64.
    const row = Array.from(enc.logits.subarray(7 * 6, 8 * 6));
    const max = Math.max(...row), e = row.map((x) => Math.exp(x - max)), sum = e.reduce((s, x) => s + x, 0);
    const best = row.indexOf(max);
    assert.equal(plain.prediction.before.id, best);
    assert.equal(plain.prediction.before.token, shownToken(['a', 'b', 'c', 'd', ' ', '.'][best]));
    assert.ok(Math.abs(plain.prediction.before.p - e[best] / sum) < 1e-12);
    assert.equal(plain.prediction.tv, 0);
    assert.deepEqual(plain.rollout.original, scope.rollout(enc.attentions, { layers: 2, heads: 2, n: 8, residual: 0.5 }));
    const said = explain(plain, fmt);
    assert.match(said[0], /^The model as trained: its heads score by scaled-dot \(layer 1, head 1\), additive \(layer 1, head 2\), cosine \(layer 2, head 1\), general \(layer 2, head 2\)\. Choose another scoring function for layer 2, head 1 or knock heads out/);
    assert.equal(said[1], `After «.», the last token, the model predicts «${plain.prediction.before.token}» (probability ${fmt(plain.prediction.before.p)}) next.`);

    // Choosing the head's own function changes nothing.
    const own = decoderViews(scope, model, { text, head: '0.1', swap: 'additive', knock: [] });
    assert.equal(own.changed, false);
    assert.equal(rescored(own), false);
    assert.equal(ownScore(own, '0.1'), 'additive');

    // Head 0.0 re-scored by cosine, head 1.1 knocked out: model.encodeIds with the same surgery.
    const cut = decoderViews(scope, model, { text, head: '0.0', swap: 'cosine', knock: ['1.1'] });
    const encCut = model.encodeIds(ids, { score: { '0.0': 'cosine' }, ablate: ['1.1'] });
    assert.equal(cut.changed, true);
    assert.deepEqual(cut.surgery, encCut.attentions);
    assert.deepEqual(cut.original, enc.attentions);
    assert.deepEqual(cut.tv, rowTV(enc.attentions, encCut.attentions, 2, 2, 8));
    const rowCut = Array.from(encCut.logits.subarray(7 * 6, 8 * 6));
    const mc = Math.max(...rowCut), ec = rowCut.map((x) => Math.exp(x - mc)), sc = ec.reduce((s, x) => s + x, 0);
    let tv = 0;
    for (let v = 0; v < 6; v++) tv += Math.abs(e[v] / sum - ec[v] / sc);
    assert.ok(Math.abs(cut.prediction.tv - tv / 2) < 1e-12);
    assert.equal(cut.prediction.after.id, rowCut.indexOf(mc));
    assert.ok(cut.prediction.tv > 0);
    const words = explain(cut, fmt);
    assert.equal(words[0], `Scoring layer 1, head 1 by cosine moves each of that head's rows by a total variation of ${fmt(cut.tv[0])} on average; with layer 2, head 2 knocked out as well, the prediction of the next token moves by ${fmt(cut.prediction.tv)} (total variation).`);
    const next = words.find((w) => w.startsWith('After «.»'));
    const sameToken = cut.prediction.after.id === cut.prediction.before.id;
    assert.ok(next.includes(sameToken ? `still «${cut.prediction.after.token}»` : `«${cut.prediction.after.token}» (probability ${fmt(cut.prediction.after.p)}) instead`), next);
    // Cosine's bound at this head's own (learnt) τ.
    const bound = words.find((w) => w.startsWith('Cosine\'s scores lie in [−1, 1]'));
    const t0 = Math.exp(tau[0]);
    assert.equal(bound, `Cosine's scores lie in [−1, 1]; divided by this head's learnt τ = ${Number(t0.toPrecision(3))}, they let one weight be up to e^${Number((2 / t0).toPrecision(3))} ≈ ${Math.exp(2 / t0).toFixed(2)} times another in its row.`);

    // Text the model cannot read is refused, naming what is not a token.
    assert.throws(() => decoderViews(scope, model, { text: 'abz', head: '0.0' }), (err) => err instanceof RangeError && /^text: expected text made of the model's tokens \(“a” “b” “c” “d” “␣” “\.”\); “z” is not among them$/.test(err.message));
    assert.throws(() => decoderViews(scope, model, { text: '', head: '0.0' }), /^RangeError: text: expected at least one of the model's tokens/);
    // A model with no tokens reads ids.
    model.setTokens(null);
    const byIds = decoderViews(scope, model, { text: ids.join(' '), head: '0.0' });
    assert.deepEqual(byIds.original, enc.attentions);
    assert.equal(byIds.prediction.before.token, String(best));
  } finally {
    model.dispose();
  }
});

test('decoderViews: an encoder-decoder is refused with where it is shown', () => {
  const model = scope.createModel({ kind: 'encoder-decoder', layers: 1, heads: 1, dModel: 4, dFF: 0, vocab: 4, maxTokens: 4 });
  try {
    assert.throws(() => decoderViews(scope, model, { text: '1 2', head: '0.0' }), /model: an encoder-decoder is not shown here yet \(only decoders are\); transformer\.html shows it/);
  } finally {
    model.dispose();
  }
});
