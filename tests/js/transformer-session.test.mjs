// The transformer page's worker session (web/pages/transformer/session.js), in node: training sliced any
// way gives the same run, saved steps come back, surgery and gradient × attention are the model's own,
// the comparison trains each function in turn, and the characters task writes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createAttnScope } from '../../dist/attnscope.mjs';
import { TransformerSession, EVAL_EVERY, headLabels, scoreMap } from '../../web/pages/transformer/session.js';
import { buildCorpus } from '../../scripts/build-corpus.mjs';

let scope;
before(async () => { scope = await createAttnScope(); });
after(() => { scope = null; });

test('labels and score maps', () => {
  assert.deepEqual(headLabels({ kind: 'decoder', layers: 2, heads: 2 }), ['0.0', '0.1', '1.0', '1.1']);
  assert.equal(headLabels({ kind: 'encoder-decoder', layers: 1, heads: 3 }).join(' '),
    'encoder.0.0 encoder.0.1 encoder.0.2 decoder.0.0 decoder.0.1 decoder.0.2 cross.0.0 cross.0.1 cross.0.2');
  assert.deepEqual(scoreMap({ kind: 'decoder', layers: 1, heads: 2 }, { '0.1': 'cosine' }, 'dot'), { '0.0': 'dot', '0.1': 'cosine' });
});

test('a run sliced differently is the same run; saved steps, surgery and gradient × attention', () => {
  const a = new TransformerSession(scope), b = new TransformerSession(scope);
  try {
    const info = a.setup({ task: 'induction', seed: 2 });
    b.setup({ task: 'induction', seed: 2 });
    assert.equal(info.evalEvery, EVAL_EVERY);
    assert.ok(info.heads.includes('1.1') && info.params > 0 && info.maxSteps >= 1000);
    a.train({ budgetMs: 1e9, until: 100 });
    while (b.progress().steps < 100) b.train({ budgetMs: 1, until: 100 });
    const pa = a.progress(), pb = b.progress();
    assert.deepEqual(Array.from(pa.losses), Array.from(pb.losses));
    assert.deepEqual(pa.evals.map((e) => e.step), [0, 50, 100]);
    assert.deepEqual(pa.evals.map((e) => e.loss), pb.evals.map((e) => e.loss));
    // The slider's step 50 is the model as it was then: its measure is the one recorded at step 50.
    const v50 = a.view({ step: 50 });
    assert.equal(v50.step, 50);
    assert.deepEqual(v50.measure, pa.evals[1].measure);
    const now = a.view();
    assert.equal(now.step, 100);
    // Rollout and flow only when asked (a view is made every ~250 ms while training): rollout's rows sum
    // to 1, flow's values (maximum flows of unit capacity) lie in [0, 1].
    assert.equal(now.paths, undefined);
    const { rollout, flow } = a.view({ paths: true }).paths[''];
    for (let i = 0; i < now.n; i++) {
      let sum = 0;
      for (let j = 0; j < now.n; j++) sum += rollout[i * now.n + j];
      assert.ok(Math.abs(sum - 1) < 1e-4, `rollout row ${i} sums to ${sum}`);
    }
    assert.equal(flow.length, now.n * now.n);
    assert.ok(flow.every((x) => x >= -1e-6 && x <= 1 + 1e-6));
    assert.ok(now.right >= 0 && now.right <= now.counted && now.counted === now.n - 1 - now.from);
    // Knocking out every head of layer 1 leaves the repeat unpredictable by induction: no more right than with them.
    const cut = a.view({ ablate: ['1.0', '1.1'] });
    assert.ok(cut.surgery && cut.surgery.right <= now.counted);
    // Gradient × attention: the product of the model's own gradients and weights, rows after the position 0.
    const g = a.view({ explain: { position: 5 } }).explained;
    assert.equal(g.position, 5);
    const n = now.n, prod = g.products[''];
    assert.equal(prod.length, info.config.layers * info.config.heads * n * n);
    for (let i = 6; i < n; i++) for (let j = 0; j < n; j++) assert.equal(prod[i * n + j], 0);
    assert.throws(() => a.generate({ prompt: 'x' }), /only the characters task/);
  } finally { a.dispose(); b.dispose(); }
});

test('the comparison trains each function in turn and reports finished series', () => {
  const s = new TransformerSession(scope);
  try {
    const c = s.compareStart({ task: 'reversal', scores: ['scaled-dot', 'cosine'], steps: 100, seed: 1 });
    assert.equal(c.runs, 2);
    let r;
    do r = s.compareAdvance(1e9); while (!r.finished);
    assert.deepEqual(r.series.map((x) => [x.score, x.partial, x.losses.length]), [['scaled-dot', false, 100], ['cosine', false, 100]]);
    assert.deepEqual(r.series[0].evals.map((e) => e.step), [0, 50, 100]);
    assert.throws(() => s.compareStart({ task: 'reversal', scores: [] }), /scores: pick at least one/);
  } finally { s.dispose(); }
});

test('the characters task writes text from its prompt, the same for a seed', () => {
  const [txt] = buildCorpus();
  assert.ok(existsSync(txt));
  const s = new TransformerSession(scope, { text: readFileSync(txt, 'utf8') });
  try {
    s.setup({ task: 'characters', seed: 1 });
    s.train({ budgetMs: 1e9, until: 20 });
    const g1 = s.generate({ prompt: 'Call me', count: 30, temperature: 0.8, topK: 5, seed: 3 });
    const g2 = s.generate({ prompt: 'Call me', count: 30, temperature: 0.8, topK: 5, seed: 3 });
    assert.equal(g1.text, g2.text);
    assert.ok(g1.text.startsWith('Call me') && g1.text.length === 'Call me'.length + 30, g1.text);
    assert.equal(g1.attentions.length, g1.layers * g1.heads * g1.n * g1.n);
  } finally { s.dispose(); }
});
