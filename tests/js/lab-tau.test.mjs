// The lab's learnt temperature (lab/session.js setup({ learnTau })): cosine, whose scores lie in [−1, 1],
// cannot get sharp at the lab's τ = 1 (held-out loss stays above 1); learning τ brings it down, and the
// heatmaps drawn for a saved step (lab/head-model.js) use the τ of that step, as the trainer does.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, loadScope } from './helpers.mjs';

const { LabSession } = await import(join(ROOT, 'lab/session.js'));
const { headWeights } = await import(join(ROOT, 'lab/head-model.js'));

test('cosine with a learnt τ gets sharp where τ = 1 cannot; the heatmaps use the learnt τ', async () => {
  const scope = await loadScope();
  const corpus = JSON.parse(readFileSync(join(ROOT, 'lab/corpus.json'), 'utf8'));
  const s = new LabSession(scope, corpus);
  const run = (learnTau) => {
    const r = s.setup({ rule: 'previous', score: 'cosine', learningRate: 0.01, seed: 1, learnTau });
    assert.equal(r.learnTau, learnTau);
    let st;
    do st = s.train({ count: 25 }); while (st.steps < 300);
    return st;
  };
  const fixed = run(false);
  assert.equal(fixed.tau, 1);
  const fixedLoss = fixed.evals.at(-1).loss;
  const learnt = run(true);
  const e = learnt.evals.at(-1);
  assert.ok(fixedLoss > 1, `at τ = 1 cosine's held-out loss stays high: ${fixedLoss}`);
  assert.ok(e.loss < 0.5 * fixedLoss, `learning τ: ${e.loss} against ${fixedLoss}`);
  assert.ok(learnt.tau < 0.3, `learnt τ ${learnt.tau}`);
  assert.ok(e.accuracy > 0.9, `accuracy ${e.accuracy}`);
  // The newest saved step's heatmap is the trainer's own attention (its learnt τ included).
  const sentence = s.sentence({ held: 0 });
  const mine = headWeights(scope, s.trainer.weights(), s.trainer.options, sentence.vectors);
  const n = sentence.tokens.length;
  const theirs = s.trainer.attentionWeights(sentence.vectors);
  let worst = 0;
  for (let k = 0; k < n * n; k++) worst = Math.max(worst, Math.abs(mine[k] - theirs[k]));
  assert.ok(worst < 1e-5, `heatmap against the trainer: ${worst}`);
  // Step 0: τ = 1 (log τ = 0).
  assert.equal(headWeights(scope, s.snapshots[0].weights, s.trainer.options, sentence.vectors).length, n * n);
  assert.deepEqual(Array.from(s.snapshots[0].weights.logTau), [0]);
});
