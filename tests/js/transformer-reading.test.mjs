// The transformer page's sentences (web/pages/transformer/reading.js) say what the numbers say: the step an
// induction head formed and the loss around it, the reversal's accuracy and alignment, and a comparison's
// verdict naming loss and accuracy, with cosine's bound when it stays flat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTraining, readComparison, bestHead, stepsToTarget } from '../../web/pages/transformer/reading.js';

const target = { metric: 'prefix-matching', value: 0.5, text: 'a head with prefix-matching ≥ 0.50' };
const info = { task: 'induction', target, evalEvery: 50, scores: { '0.0': 'scaled-dot', '0.1': 'scaled-dot', '1.0': 'cosine', '1.1': 'scaled-dot' } };
const ev = (step, loss, accuracy, heads) => {
  const metric = Math.max(heads['1.0'], heads['1.1']);
  return { step, loss, accuracy, measure: { metric, best: heads['1.0'] >= heads['1.1'] ? '1.0' : '1.1', heads, reached: metric >= 0.5 } };
};

test('induction: the head, the step it crossed the target, and the loss around it, from the evaluations', () => {
  const evals = [
    ev(0, 3.4, 0.03, { '0.0': 0.1, '0.1': 0.1, '1.0': 0.1, '1.1': 0.1 }),
    ev(50, 3.0, 0.10, { '0.0': 0.1, '0.1': 0.1, '1.0': 0.2, '1.1': 0.1 }),
    ev(100, 2.9, 0.12, { '0.0': 0.1, '0.1': 0.1, '1.0': 0.3, '1.1': 0.1 }),
    ev(150, 2.0, 0.40, { '0.0': 0.1, '0.1': 0.1, '1.0': 0.45, '1.1': 0.55 }),
    ev(200, 1.0, 0.70, { '0.0': 0.1, '0.1': 0.1, '1.0': 0.5, '1.1': 0.8 }),
    ev(250, 0.5, 0.85, { '0.0': 0.1, '0.1': 0.1, '1.0': 0.5, '1.1': 0.9 }),
  ];
  const r = readTraining(info, evals);
  assert.equal(r.reached, 150);
  assert.match(r.text, /Head 1\.1 \(scaled-dot\) became an induction head at step 150: its prefix-matching score reached 0\.55/);
  // two evaluations either side: step 50 (< 150 − 100) and step 250 (≥ 150 + 100)
  assert.match(r.text, /held-out loss went from 3\.00 at step 50 to 0\.50 at step 250, and held-out accuracy from 10% to 85%/);
  assert.match(r.text, /at step 250, the best head is 1\.1 with 0\.90/);
  const early = readTraining(info, evals.slice(0, 3));
  assert.equal(early.reached, null);
  assert.match(early.text, /No head of layer 1 has reached a prefix-matching score of 0\.50 yet: the best at step 100 is 1\.0 with 0\.30/);
  assert.deepEqual(bestHead(evals[5]), { head: '1.1', value: 0.9 });
});

test('reversal and characters', () => {
  const rev = { task: 'reversal', target: { metric: 'accuracy', value: 0.95, text: 'held-out accuracy ≥ 95%' }, evalEvery: 50,
    scores: { 'cross.0.0': 'additive', 'cross.0.1': 'general' } };
  const e = (step, accuracy, heads) => ({ step, loss: 1 - accuracy, accuracy, measure: { metric: accuracy, heads, reached: accuracy >= 0.95 } });
  const r = readTraining(rev, [e(0, 0.1, { 'cross.0.0': 0.1, 'cross.0.1': 0.1 }), e(50, 0.96, { 'cross.0.0': 0.9, 'cross.0.1': 0.8 }), e(100, 0.99, { 'cross.0.0': 0.93, 'cross.0.1': 0.85 })]);
  assert.equal(r.reached, 50);
  assert.match(r.text, /reached 96% at step 50 \(the target is 95%\); at step 100 it is 99%/);
  assert.match(r.text, /cross\.0\.0 \(additive\) 93%, cross\.0\.1 \(general\) 85%/);
  const ch = readTraining({ task: 'characters', target: { metric: 'bitsPerChar', value: 2.5, text: '' }, evalEvery: 50, scores: {} },
    [{ step: 100, loss: Math.LN2 * 2, accuracy: 0.4, measure: { metric: 2, heads: null, reached: true } }]);
  assert.match(ch.text, /1\.39 nats per character \(2\.00 bits\) at step 100/);
  assert.match(ch.text, /or less at step 100/);
});

test('comparison: names loss and accuracy, says when they disagree, and explains a flat cosine', () => {
  const s = (score, loss, accuracy, metrics) => ({ score, partial: false, losses: new Float32Array(3),
    evals: metrics.map((m, i) => ({ step: 50 * (i + 1), loss, accuracy, metric: m, reached: m >= 0.5 })) });
  const series = [
    s('scaled-dot', 0.2, 0.90, [0.2, 0.6, 0.9]),
    s('dot', 0.3, 0.95, [0.55, 0.7, 0.9]),
    s('cosine', 2.5, 0.30, [0.1, 0.1, 0.2]),
    { score: 'additive', partial: true, losses: new Float32Array(1), evals: [] },
  ];
  assert.equal(stepsToTarget(series[0]), 100);
  const r = readComparison(series, target, { learned: false, temperature: 1 });
  assert.equal(r.rows.length, 3, 'the partial run is not in the table');
  assert.match(r.text, /Lowest held-out loss: scaled-dot, 0\.20 \(accuracy 90%\); highest: cosine, 2\.50 \(accuracy 30%\)/);
  assert.match(r.text, /dot met the target \(a head with prefix-matching ≥ 0\.50\) first, at step 50; then scaled-dot at 100\. Not met within the steps: cosine\./);
  assert.match(r.text, /By accuracy dot ends ahead \(95% against 90%\), by loss scaled-dot/);
  assert.match(r.text, /e\^\(2\/τ\) = 7\.39 times another/);
  const learned = readComparison(series, target, { learned: true });
  assert.doesNotMatch(learned.text, /e\^\(2\/τ\)/, 'no bound when τ is learnt');
});
