// The transformer page's tasks (web/pages/transformer/tasks.js): each task's data are the same for a seed and
// have the shapes and ranges the trainer takes; prefix matching on hand-built attentions (a positional head
// must not pass for an induction head); sampling and generation; and one short real run in which the
// induction task's loss falls. How fast each task reaches its target is measured by bench/transformer-tasks.mjs.
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, loadScope } from './helpers.mjs';
import { TASK_NAMES, makeTask, prefixMatchingScores, sampleNext, generate, rng } from '../../web/pages/transformer/tasks.js';

const scope = await loadScope({ preload: false });
// The built corpus when there is one (scripts/build-corpus.mjs), else a text made here: the task takes any text.
const corpus = join(ROOT, 'build/corpus/moby-dick.txt');
const words = ['the', 'whale', 'sea', 'ship', 'call', 'me', 'ishmael', 'and', 'of', 'a', 'boat', 'captain'];
const madeText = () => { const r = rng(3); return Array.from({ length: 6000 }, (_, i) => words[Math.floor(r() * words.length)] + (i % 13 === 12 ? '.\n' : ' ')).join(''); };
const text = existsSync(corpus) ? readFileSync(corpus, 'utf8') : madeText();
const task = (name, seed = 1) => makeTask(name, { seed, text });

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

test('rng: a seeded 32-bit generator in [0, 1), the same for a seed, not cycling early', () => {
  const a = rng(7), b = rng(7), c = rng(8);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.ok(same(xs, Array.from({ length: 1000 }, () => b())));
  assert.ok(!same(xs, Array.from({ length: 1000 }, () => c())));
  const r = rng(2 ** 32 - 1);
  const seen = new Set();
  let sum = 0;
  for (let i = 0; i < 100000; i++) { const x = r(); assert.ok(x >= 0 && x < 1); seen.add(x); sum += x; }
  assert.ok(seen.size > 99990, `only ${seen.size} distinct values in 100,000 draws`);
  assert.ok(Math.abs(sum / 100000 - 0.5) < 0.01);
  assert.throws(() => rng(-1), { name: 'RangeError', message: /^seed: expected an integer from 0 to 4294967295/ });
  assert.throws(() => rng(1.5), { name: 'TypeError', message: /^seed:/ });
});

test('makeTask: every task is the same for a seed and differs for another; a bad name or seed is refused', () => {
  for (const name of TASK_NAMES) {
    const a = task(name, 3), b = task(name, 3), c = task(name, 4);
    const arrays = (t) => (t.kind === 'decoder' ? [t.train.ids, t.train.targets, t.held.ids] : [t.train.source, t.train.target, t.held.source]);
    arrays(a).forEach((x, i) => assert.ok(same(x, arrays(b)[i]), `${name}: array ${i} differs for the same seed`));
    assert.ok(!same(arrays(a)[0], arrays(c)[0]), `${name}: seeds 3 and 4 gave the same training data`);
  }
  assert.throws(() => makeTask('copying'), { name: 'RangeError', message: /^name: expected one of 'induction', 'reversal', 'characters'/ });
  assert.throws(() => makeTask('induction', { seed: -2 }), { name: 'RangeError', message: /^seed:/ });
  assert.throws(() => makeTask('induction', { settings: { period: 3 } }), { name: 'RangeError', message: /^settings\.period: not a setting; expected one of vocab, cols/ });
  assert.throws(() => makeTask('induction', { settings: { maxSpan: 30 } }), { name: 'RangeError', message: /^settings: expected minSpan <= maxSpan <= cols \/ 2/ });
  assert.equal(makeTask('induction', { settings: { cols: 32, maxSpan: 12 } }).train.cols, 32);
  assert.throws(() => makeTask('characters'), { name: 'TypeError', message: /^text: expected the corpus as a string/ });
  assert.throws(() => makeTask('characters', { text: 'too short' }), { name: 'RangeError', message: /^text: expected at least/ });
});

/** Checks a decoder's data: shapes, ids in the vocabulary, targets −1 or in it. */
function checkDecoderData(name, d, config) {
  assert.equal(d.ids.length, d.rows * d.cols, `${name}.ids`);
  assert.equal(d.targets.length, d.rows * d.cols, `${name}.targets`);
  assert.ok(d.ids instanceof Int32Array && d.targets instanceof Int32Array);
  assert.ok(d.cols <= config.maxTokens);
  for (const x of d.ids) assert.ok(x >= 0 && x < config.vocab);
  let counted = 0;
  for (const x of d.targets) { assert.ok(x === -1 || (x >= 0 && x < config.vocab)); counted += x >= 0; }
  assert.ok(counted > 0, `${name}: no target counted`);
}

test('every task: its config builds a model with its scores, its data fit the trainer, and a slice of its default steps is within the call budget', () => {
  for (const name of TASK_NAMES) {
    const t = task(name);
    assert.equal(t.name, name);
    assert.equal(typeof t.title, 'string');
    assert.equal(t.config.kind, t.kind);
    assert.deepEqual(Object.keys(t.config).sort(), ['dFF', 'dModel', 'heads', 'kind', 'layers', 'maxTokens', 'vocab']);
    for (const k of ['batch', 'learningRate', 'weightDecay', 'stepsPerSlice']) assert.equal(typeof t.training[k], 'number', `${name}: training.${k}`);
    assert.ok(t.target.value > 0 && typeof t.target.metric === 'string' && t.target.text.length > 20);
    for (let id = 0; id < t.config.vocab; id++) assert.ok(typeof t.token(id) === 'string' && t.token(id).length >= 1);
    if (t.kind === 'decoder') {
      checkDecoderData(`${name} train`, t.train, t.config);
      checkDecoderData(`${name} held`, t.held, t.config);
      for (const x of t.probe.ids) assert.ok(x >= 0 && x < t.config.vocab);
    }
    const model = scope.createModel({ ...t.config, score: t.defaultScores, temperature: 1, seed: 1 });
    const trainer = scope.createModelTrainer(model, { data: t.train, batch: t.training.batch, learningRate: t.training.learningRate, weightDecay: t.training.weightDecay, seed: 1 });
    try {
      if (typeof t.defaultScores === 'object') for (const [label, s] of Object.entries(t.defaultScores)) assert.equal(model.scores[label], s);
      assert.equal(trainer.step(t.training.stepsPerSlice), t.training.stepsPerSlice);
      const e = trainer.evaluate(t.held);
      assert.ok(Number.isFinite(e.loss) && e.count > 0);
      const m = t.measure(model, { trainer });
      assert.equal(typeof m.reached, 'boolean');
      if (name === 'reversal') {
        assert.equal(m.rows, t.held.rows);
        assert.equal(m.accuracy, e.accuracy);   // every held-out word, not the first few
        assert.ok(t.measure(model).rows < t.held.rows);
      }
      assert.equal(m.reached, false, `${name}: an untrained model reached the target`);
    } finally {
      trainer.dispose();
      model.dispose();
    }
  }
});

test('induction data: one repeated span per row at a varying place and period, its copy all targets; the other targets follow the skip-bigram or the bigram rule', () => {
  const t = task('induction');
  const { ids, targets, cols } = t.train;
  const starts = new Set(), periods = new Set();
  let ruleTargets = 0, skipTargets = 0, bigramTargets = 0, missing = 0;
  const byRule = (o, i) => i >= 1 && (targets[o + i] === t.rule[ids[o + i - 1]] || targets[o + i] === t.next[ids[o + i]]);
  const copyAt = (o, i, p) => i >= p && ids[o + i] === ids[o + i - p] && targets[o + i] === ids[o + i - p + 1];
  for (let r = 0; r < 2000; r++) {
    const o = r * cols;
    // Every target is the next token, and follows the rule or copies the token after an earlier occurrence.
    for (let i = 0; i < cols; i++) {
      if (targets[o + i] < 0) continue;
      assert.equal(targets[o + i], ids[o + i + 1]);
      const rule = byRule(o, i);
      skipTargets += i >= 1 && targets[o + i] === t.rule[ids[o + i - 1]];
      bigramTargets += targets[o + i] === t.next[ids[o + i]];
      let copy = false;
      for (let p = 4; p <= 20 && !copy; p++) copy = copyAt(o, i, p);
      assert.ok(rule || copy, `row ${r}: target ${i} is neither the rule's nor a copy's`);
      ruleTargets += rule;
    }
    // The copy: a run of at least 3 targets copying at one period that the rule does not explain.
    let found = null;
    for (let p = 4; p <= 20 && !found; p++) {
      for (let i = p, run = 0, unexplained = 0; i < cols; i++) {
        if (copyAt(o, i, p)) { run++; unexplained += !byRule(o, i); } else { run = 0; unexplained = 0; }
        if (run >= 3 && unexplained >= 2) { found = { start: i - run + 1, period: p }; break; }
      }
    }
    if (found) { starts.add(found.start); periods.add(found.period); } else missing++;
  }
  assert.ok(starts.size >= 20 && periods.size >= 10, `the copies start at ${starts.size} places with ${periods.size} periods: position would predict them`);
  // (a short copy of a span in which the rule fired can be all but explained by the rule: allowed, rarely)
  assert.ok(missing < 100, `${missing} rows of 2000 without a copied span the rule does not explain`);
  assert.ok(ruleTargets > 2000 * 10, `only ${ruleTargets} targets follow a rule`);
  // Both rules fire about as often (30% of the filler each by default).
  assert.ok(skipTargets > 2000 * 6 && bigramTargets > 2000 * 6, `${skipTargets} targets follow the skip-bigram, ${bigramTargets} the bigram`);
  assert.ok(Math.abs(skipTargets - bigramTargets) < 0.2 * (skipTargets + bigramTargets), `${skipTargets} skip-bigram targets against ${bigramTargets} bigram ones`);
  const { plain, reversed } = t.probes;
  const n = plain.ids.length, T = plain.from;
  assert.equal(n, 2 * T);
  assert.ok(same(plain.ids.slice(0, T), plain.ids.slice(T)));
  assert.equal(new Set(plain.ids.slice(0, T)).size, T, 'the probe\'s tokens repeat within a half');
  assert.ok(same(reversed.ids.slice(0, T), reversed.ids.slice(T).reverse()));
  assert.equal(new Set(reversed.ids.slice(0, T)).size, T);
});

/** Attentions [layers, heads, n, n] in which each head's query row i puts weight 1 on key pick(layer, head, i) (clamped to 0 … i). */
function handBuilt(layers, heads, n, pick) {
  const a = new Float32Array(layers * heads * n * n);
  for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) for (let i = 0; i < n; i++) {
    const j = Math.max(0, Math.min(i, pick(l, h, i)));
    a[((l * heads + h) * n + i) * n + j] = 1;
  }
  return a;
}
/** The key an induction head attends: the one after the earlier occurrence of ids[i] (or the first key). */
const inductionKey = (ids, i) => { for (let j = i - 1; j >= 0; j--) if (ids[j] === ids[i]) return j + 1; return 0; };

test('prefixMatchingScores: an induction head scores 1; a head a fixed distance back scores 1 on the repeat in order but ~0 on the reversed one, so measure() does not count it', () => {
  const t = task('induction');
  const { plain, reversed } = t.probes;
  const n = plain.ids.length, T = plain.from;
  // layer 0: head 0 attends i - T + 1 (positional), head 1 the previous token; layer 1: head 0 induction, head 1 uniform.
  const build = (ids) => {
    const a = handBuilt(2, 2, n, (l, h, i) => (l === 0 ? (h === 0 ? i - T + 1 : i - 1) : inductionKey(ids, i)));
    const uniform = (1 * 2 + 1) * n * n;   // layer 1, head 1
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[uniform + i * n + j] = j <= i ? 1 / (i + 1) : 0;
    return a;
  };
  const p = prefixMatchingScores(build(plain.ids), plain.ids, 2, 2, n, T);
  const s = prefixMatchingScores(build(reversed.ids), reversed.ids, 2, 2, n, T);
  assert.equal(p[0], 1);          // the positional head looks like an induction head on the repeat in order …
  assert.ok(s[0] <= 1 / T, `positional head on the reversed repeat: ${s[0]}`);   // … and not on the reversed one
  assert.equal(p[1], 0);          // previous-token head
  assert.equal(p[2], 1);
  assert.equal(s[2], 1);          // the induction head, on both
  const meanUniform = Array.from({ length: T }, (_, k) => 1 / (T + k + 1)).reduce((x, y) => x + y) / T;
  assert.ok(Math.abs(p[3] - meanUniform) < 1e-6, `uniform head ${p[3]} vs ${meanUniform}`);
  // Every fixed distance back, on the reversed probe: never more than one query in T lands on a match.
  for (let d = 1; d < n; d++) {
    const [score] = prefixMatchingScores(handBuilt(1, 1, n, (l, h, i) => i - d + 1), reversed.ids, 1, 1, n, T);
    assert.ok(score <= 1 / T + 1e-9, `distance ${d}: ${score}`);
  }
  // measure() with a stand-in model whose heads are those above: the positional head gets its lower score, layer 1's induction head is best.
  const fake = (layer1) => ({ encodeIds: (ids) => ({ n: ids.length, attentions: handBuilt(2, 2, ids.length, (l, h, i) => (l === 0 ? i - T + 1 : layer1(ids, i))) }) });
  const good = t.measure(fake(inductionKey));
  assert.deepEqual(good.best, { head: '1.0', score: 1 });
  assert.ok(good.prefixMatching['0.0'] <= 1 / T && good.plain['0.0'] === 1);
  assert.equal(good.reached, true);
  const positional = t.measure(fake((ids, i) => i - T + 1));   // layer 1 too only counts back: not an induction head
  assert.ok(positional.best.score <= 1 / T && positional.reached === false, JSON.stringify(positional.best));
  // Bad input names the argument.
  assert.throws(() => prefixMatchingScores(new Float32Array(5), plain.ids, 2, 2, n, T), { name: 'RangeError', message: /^attentions: expected layers x heads x n x n = / });
  assert.throws(() => prefixMatchingScores(build(plain.ids), plain.ids, 2, 2, n, n), { name: 'RangeError', message: /^from:/ });
  assert.throws(() => prefixMatchingScores('x', plain.ids, 2, 2, n, T), { name: 'TypeError', message: /^attentions:/ });
});

test('reversal data: the target is the source word backwards then the end; held-out words are never trained on', () => {
  const t = task('reversal');
  const { source, target, rows, sourceCols, targetCols } = t.train;
  assert.equal(source.length, rows * sourceCols);
  assert.equal(target.length, rows * targetCols);
  const END = 1;
  const wordsOf = (d) => {
    const out = [];
    for (let r = 0; r < d.rows; r++) {
      const s = Array.from(d.source.slice(r * sourceCols, (r + 1) * sourceCols));
      const g = Array.from(d.target.slice(r * targetCols, (r + 1) * targetCols));
      const m = s.indexOf(END);
      assert.ok(m >= 3 && m <= 8, `row ${r}: length ${m}`);
      assert.deepEqual(g.slice(0, m), s.slice(0, m).reverse());
      assert.equal(g[m], END);
      assert.ok(g.slice(m + 1).every((x) => x === -1) && s.slice(m + 1).every((x) => x === 0));
      assert.ok(s.slice(0, m).every((x) => x >= 2 && x < t.config.vocab));
      out.push(s.slice(0, m).join(','));
    }
    return out;
  };
  const trained = new Set(wordsOf(t.train));
  for (const w of wordsOf(t.held)) assert.ok(!trained.has(w), `held-out word ${w} is in the training data`);
  assert.deepEqual(Object.values(t.defaultScores).sort(), ['additive', 'general', 'scaled-dot']);
  assert.ok(Object.keys(t.defaultScores).every((k) => k.startsWith('cross.')));
  assert.equal(t.config.dModel % t.config.heads, 0);
  assert.equal(t.probe.source.indexOf(END), 7);
  assert.equal(t.token(2), 'a');
});

test('characters data: at most 80 symbols, windows of the text with their next characters, held out from the end', () => {
  const t = task('characters');
  assert.ok(t.config.vocab <= 80 && t.chars.length === t.config.vocab);
  const { ids, targets, rows, cols } = t.train;
  for (let r = 0; r < rows; r += 997) {
    const w = t.text(ids.subarray(r * cols, (r + 1) * cols));
    assert.ok(text.includes(w), `row ${r} is not a window of the text`);
    for (let i = 0; i + 1 < cols; i++) assert.equal(targets[r * cols + i], ids[r * cols + i + 1]);
  }
  const heldText = t.text(t.held.ids.subarray(0, cols));
  assert.ok(text.lastIndexOf(heldText) >= Math.floor(text.length * 0.9) - 2 * cols, 'the held-out rows are not from the end');
  assert.equal(t.text(t.encode('the whale')), 'the whale');
  assert.equal(t.token(t.encode(' ')[0]), '␣');
  assert.equal(t.token(t.encode('\n')[0]), '↵');
  // More than 80 distinct characters: the rarest share one id, U+FFFD.
  const wide = Array.from({ length: 100 }, (_, i) => String.fromCharCode(0x100 + i)).join('').repeat(20) + 'a'.repeat(5000);
  const w = makeTask('characters', { text: wide });
  assert.equal(w.config.vocab, 80);
  assert.ok(w.chars.includes('\uFFFD'));
});

test('sampleNext: temperature 0 and topK 1 take the largest; topK keeps the k largest; draws follow softmax(logits / temperature)', () => {
  const logits = [0.5, 2, -1, 1.9, 0];
  assert.equal(sampleNext(logits, { temperature: 0 }), 1);
  assert.equal(sampleNext(logits, { topK: 1, random: () => 0.99 }), 1);
  const r = rng(5);
  const counts = [0, 0, 0, 0, 0];
  const draws = 20000;
  for (let k = 0; k < draws; k++) counts[sampleNext(logits, { topK: 2, temperature: 1, random: r })]++;
  assert.equal(counts[0] + counts[2] + counts[4], 0);
  const expected = Math.exp(2) / (Math.exp(2) + Math.exp(1.9));
  assert.ok(Math.abs(counts[1] / draws - expected) < 0.015, `${counts[1] / draws} vs ${expected}`);
  // A high temperature flattens the distribution; a low one sharpens it.
  const share = (temperature) => { const c = [0, 0, 0, 0, 0]; const q = rng(9); for (let k = 0; k < 5000; k++) c[sampleNext(logits, { temperature, random: q })]++; return c[2] / 5000; };
  assert.ok(share(100) > 0.15 && share(0.2) < 0.001);
  assert.throws(() => sampleNext(logits, { temperature: -1 }), { name: 'RangeError', message: /^temperature:/ });
  assert.throws(() => sampleNext(logits, { topK: 9 }), { name: 'RangeError', message: /^topK:/ });
  assert.throws(() => sampleNext([], {}), { name: 'TypeError', message: /^logits:/ });
  assert.throws(() => sampleNext(logits, { random: 3 }), { name: 'TypeError', message: /^random:/ });
});

test('generate: the same tokens for a seed, greedy when temperature is 0, and only for decoders', () => {
  const t = task('characters');
  const model = scope.createModel({ ...t.config, layers: 1, dModel: 16, heads: 2, dFF: 32, maxTokens: 16, score: 'scaled-dot', temperature: 1, seed: 2 });
  const enc = scope.createModel({ kind: 'encoder-decoder', layers: 1, heads: 1, dModel: 8, dFF: 0, vocab: 5, maxTokens: 4, seed: 1 });
  try {
    const prompt = t.encode('Call me ');
    const a = generate(model, prompt, { count: 24, temperature: 1, seed: 4 });
    assert.equal(a.length, 24);
    assert.ok(same(a, generate(model, prompt, { count: 24, temperature: 1, seed: 4 })));
    assert.ok(!same(a, generate(model, prompt, { count: 24, temperature: 1, seed: 5 })));
    const g = generate(model, prompt, { count: 20, temperature: 0 });   // prompt + 20 > maxTokens: the window slides
    const ids = Array.from(prompt);
    for (let k = 0; k < 20; k++) {
      const { logits, n, vocab } = model.encodeIds(ids.slice(-16));
      const row = Array.from(logits.subarray((n - 1) * vocab, n * vocab));
      assert.equal(g[k], row.indexOf(Math.max(...row)), `greedy token ${k}`);
      ids.push(g[k]);
    }
    assert.throws(() => generate(enc, [1], { count: 2 }), { name: 'RangeError', message: /^model: generate\(\) writes with a decoder/ });
    assert.throws(() => generate(model, [], { count: 2 }), { name: 'RangeError', message: /^promptIds:/ });
  } finally {
    model.dispose();
    enc.dispose();
  }
});

test('induction: with the task\'s defaults an induction head forms (seed 1, by step 800), over a previous-token head, and the held-out loss falls', () => {
  const t = task('induction', 1);
  const model = scope.createModel({ ...t.config, score: t.defaultScores, temperature: 1, seed: 1 });
  const { batch, learningRate, weightDecay, stepsPerSlice } = t.training;
  const trainer = scope.createModelTrainer(model, { data: t.train, batch, learningRate, weightDecay, seed: 1 });
  try {
    const before = trainer.evaluate(t.held).loss;
    assert.ok(Math.abs(before - Math.log(t.config.vocab)) < 0.2, `untrained loss ${before}`);
    const early = t.measure(model);
    assert.ok(!early.reached && early.best.score < 0.2, `untrained: ${JSON.stringify(early.best)}`);
    let m = early;
    while (!m.reached && trainer.steps < 800) {
      for (let k = 0; k < 100; k += stepsPerSlice) trainer.step(stepsPerSlice);
      m = t.measure(model);
    }
    assert.ok(m.reached, `no induction head by step ${trainer.steps}: ${JSON.stringify(m.prefixMatching)}`);
    assert.match(m.best.head, /^1\./);
    assert.ok(m.best.score >= 0.5 && m.plain[m.best.head] >= 0.5 && m.reversed[m.best.head] >= 0.5);
    // Layer 0 holds the previous-token head the induction head reads: on the plain probe, one of its heads
    // puts most of every row's weight one token back.
    const { ids } = t.probes.plain;
    const r = model.encodeIds(ids);
    const back = [0, 1].map((h) => {
      let s = 0;
      for (let i = 1; i < r.n; i++) s += r.attentions[(h * r.n + i) * r.n + i - 1];
      return s / (r.n - 1);
    });
    assert.ok(Math.max(...back) > 0.8, `layer 0's weight one token back: ${back}`);
    const after = trainer.evaluate(t.held).loss;
    assert.ok(after < before - 1, `held-out loss ${before} -> ${after} after ${trainer.steps} steps`);
  } finally {
    trainer.dispose();
    model.dispose();
  }
});
