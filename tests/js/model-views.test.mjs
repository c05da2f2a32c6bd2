// The trained model's views as the demo's worker and the element compute them (web/shared/compute/use-lite.js):
// the surgery's effect on every head and on the embedding, the second sentence's similarity, rollout,
// and explanations whose numbers are the computed ones. Expected values from model.encode() itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadScope } from './helpers.mjs';
import { modelViews, explain, rowTV, cosine, surgeryOptions } from '../../web/shared/compute/use-lite.js';
import { parseHead } from '../../web/shared/head-label.js';

const TEXT = 'The animal didn\'t cross the street because it was too tired.';
const fmt = (x) => x.toPrecision(3);
let scope, model;
before(async () => {
  scope = await loadScope();
  model = await scope.loadModel();
});
after(() => { if (model) model.dispose(); });

test('no surgery: the views are the trained model\'s, nothing moved', () => {
  const v = modelViews(scope, model, { text: TEXT, head: '0.0', swap: 'scaled-dot', knock: [] });
  const r = model.encode(TEXT);
  assert.equal(v.n, r.n);
  assert.deepEqual(v.tokens, r.tokens);
  assert.deepEqual(Array.from(v.original), Array.from(r.attentions));
  assert.equal(v.surgery, v.original);
  assert.equal(v.changed, false);
  assert.equal(v.embedding.distance, 0);
  assert.ok(v.tv.every((x) => x === 0));
  assert.deepEqual(Array.from(v.rollout.original), Array.from(scope.rollout(r.attentions, { layers: 2, heads: 4, n: r.n, residual: 0.5 })));
  assert.deepEqual(Array.from(v.flow.original), Array.from(scope.attentionFlow(r.attentions, { layers: 2, heads: 4, n: r.n, residual: 0.5 })));
  assert.equal(v.flow.surgery, null);
  assert.match(explain(v, fmt)[0], /^The model as trained/);
});

test('a swap changes that head and the next layer, not the heads beside it; the explanation quotes the numbers', () => {
  const v = modelViews(scope, model, { text: TEXT, head: '0.1', swap: 'cosine', knock: [] });
  const cut = model.encode(TEXT, { score: { '0.1': 'cosine' } });
  assert.deepEqual(Array.from(v.surgery), Array.from(cut.attentions));
  const tv = rowTV(v.original, cut.attentions, 2, 4, v.n);
  assert.deepEqual(Array.from(v.tv), Array.from(tv));
  assert.ok(tv[1] > 0.01, `the swapped head moved: ${tv[1]}`);
  for (const k of [0, 2, 3]) assert.equal(tv[k], 0, `layer 1's other heads are untouched (${k})`);
  for (const k of [4, 5, 6, 7]) assert.ok(tv[k] > 0, `layer 2's heads see other inputs (${k})`);
  assert.deepEqual(Array.from(v.flow.surgery), Array.from(scope.attentionFlow(cut.attentions, { layers: 2, heads: 4, n: v.n, residual: 0.5 })));
  const d = 1 - cosine(model.encode(TEXT).embedding, cut.embedding);
  assert.ok(Math.abs(v.embedding.distance - d) < 1e-12);
  const s = explain(v, fmt);
  assert.equal(s[0], `Scoring layer 1, head 2 by cosine moves each of that head's rows by a total variation of ${fmt(tv[1])} on average; the sentence embedding moves by ${fmt(d)} (1 − cosine).`);
  let best = 4;
  for (let k = 5; k < 8; k++) if (tv[k] > tv[best]) best = k;
  assert.equal(s[1], `Downstream, layer 2, head ${best - 3} changes most: its rows move by ${fmt(tv[best])} on average.`);
  // And why cosine flattens it (#34 item 1): its bounded range at τ = 1.
  assert.match(s.at(-1), /^Why cosine flattens the head: its scores lie in \[−1, 1\], .* e\^2 ≈ 7\.39 times another in its row/);
});

test('knocking out a last-layer head changes no attention but moves the embedding; the second sentence', () => {
  const second = 'A tired dog stayed on the pavement.';
  const v = modelViews(scope, model, { text: TEXT, text2: second, head: '0.0', swap: 'scaled-dot', knock: ['1.3'] });
  assert.ok(v.tv.every((x) => x === 0));
  assert.ok(v.embedding.distance > 0);
  assert.ok(Math.abs(v.second.before - model.similarity(TEXT, second)) < 1e-6);
  assert.ok(Math.abs(v.second.after - model.similarity(TEXT, second, { ablate: ['1.3'] })) < 1e-6);
  const s = explain(v, fmt);
  assert.match(s[0], /^Knocking out layer 2, head 4 moves the sentence embedding by /);
  assert.match(s[1], /No other head's attention changes/);
  assert.match(s[2], new RegExp(`goes from ${fmt(v.second.before)} to ${fmt(v.second.after)}`));
});

test('a head re-scored and knocked out: the change is the knock-out\'s, and the text says so (#34 item 5)', () => {
  const v = modelViews(scope, model, { text: TEXT, head: '0.1', swap: 'cosine', knock: ['0.1'] });
  // The numbers: the embedding moves exactly as with the knock-out alone.
  const alone = model.encode(TEXT, { ablate: ['0.1'] });
  const d = 1 - cosine(model.encode(TEXT).embedding, alone.embedding);
  assert.ok(Math.abs(v.embedding.distance - d) < 1e-9, `${v.embedding.distance} vs the knock-out alone ${d}`);
  const s = explain(v, fmt);
  assert.doesNotMatch(s.join(' '), /Scoring layer 1, head 2 by cosine moves/, 'the re-scoring is not credited');
  assert.equal(s[0], `Layer 1, head 2 is knocked out, so what it passes on is dropped whatever scores it: re-scoring it by cosine changes its own rows `
    + `(a total variation of ${fmt(v.tv[1])} on average, drawn above) and nothing after it. Knocking out layer 1, head 2 moves the sentence `
    + `embedding by ${fmt(d)} (1 − cosine): all of that move is the knock-out's.`);
  // The terms are explained where they are read.
  const terms = s.find((x) => x.startsWith('The surgery: '));
  assert.ok(terms, 'the terms are explained');
  assert.match(terms, /Total variation \(TV\) of a row: half the sum/);
  assert.match(terms, /1 − cosine of the embeddings: 0 when/);
  // Re-scored only: the re-scoring is credited, the terms said too.
  const w = explain(modelViews(scope, model, { text: TEXT, head: '0.1', swap: 'cosine', knock: ['1.0'] }), fmt);
  assert.match(w[0], /^Scoring layer 1, head 2 by cosine moves .*; with layer 2, head 1 knocked out as well, the sentence embedding moves by/);
});

test('over 128 tokens: cut and said; labels and options', () => {
  const v = modelViews(scope, model, { text: Array.from({ length: 200 }, (_, i) => `w${i}`).join(' '), head: '9.9', knock: ['7.7', '1.0'] });
  assert.equal(v.truncated, true);
  assert.equal(v.n, 128);
  assert.equal(v.head, '0.0', 'a head out of range falls back to the first');
  assert.deepEqual(v.knock, ['1.0']);
  assert.deepEqual(parseHead('1.3', 2, 4), [1, 3]);
  assert.equal(parseHead('2.0', 2, 4), null);
  assert.deepEqual(surgeryOptions({ head: '0.1', swap: 'scaled-dot', knock: [] }), {});
  assert.deepEqual(surgeryOptions({ head: '0.1', swap: 'idw', knock: ['1.1'] }), { score: { '0.1': 'idw' }, ablate: ['1.1'] });
  assert.deepEqual(surgeryOptions({ head: '1.2', swap: 'cosine', knock: [], tau: 0.1 }), { score: { '1.2': 'cosine' }, temperature: { '1.2': 0.1 } });
  assert.deepEqual(surgeryOptions({ head: '1.2', swap: 'scaled-dot', knock: [], tau: 1 }), {});
});

test('a temperature for the re-scored head: the numbers are encode()\'s, and the text says what τ allows (#34 item 1)', () => {
  const v = modelViews(scope, model, { text: TEXT, head: '0.1', swap: 'cosine', tau: 0.1, knock: [] });
  const cut = model.encode(TEXT, { score: { '0.1': 'cosine' }, temperature: { '0.1': 0.1 } });
  assert.deepEqual(Array.from(v.surgery), Array.from(cut.attentions));
  assert.equal(v.tau, 0.1);
  // Sharper: the mean of each row's largest weight of head 0.1, at τ = 0.1 against the flat τ = 1.
  const flat = modelViews(scope, model, { text: TEXT, head: '0.1', swap: 'cosine', knock: [] });
  const peak = (x) => {
    const n = x.n, w = x.surgery.subarray(n * n, 2 * n * n);
    let s = 0;
    for (let i = 0; i < n; i++) s += Math.max(...w.subarray(i * n, (i + 1) * n));
    return s / n;
  };
  assert.ok(peak(v) > 2 * peak(flat), `row maxima ${peak(v)} at τ = 0.1 against ${peak(flat)} at τ = 1`);
  // And closer to the trained head than the flattened one is (it was flat because of τ, not of cosine's ranking).
  assert.ok(v.tv[1] < flat.tv[1], `TV from the trained head: ${v.tv[1]} at τ = 0.1, ${flat.tv[1]} at τ = 1`);
  const s = explain(v, fmt);
  assert.match(s[0], /^Scoring layer 1, head 2 by cosine at τ = 0\.1 moves each of that head's rows by a total variation of /);
  assert.equal(s.at(-1), 'Cosine\'s scores lie in [−1, 1]; divided by τ = 0.1, they let one weight be up to e^20 ≈ 4.85 × 10^8 times another in its row (at the model\'s τ = 1: e^2 ≈ 7.39).');
  // τ alone (the model's own scaled-dot, sharpened): a change, credited to the temperature.
  const t = explain(modelViews(scope, model, { text: TEXT, head: '1.3', swap: 'scaled-dot', tau: 0.5, knock: [] }), fmt);
  assert.match(t[0], /^Scoring layer 2, head 4 by scaled-dot at τ = 0\.5 moves/);
  // A τ that is not a number > 0 is the model's own.
  assert.equal(modelViews(scope, model, { text: TEXT, head: '0.1', swap: 'cosine', tau: -1, knock: [] }).tau, 1);
});
