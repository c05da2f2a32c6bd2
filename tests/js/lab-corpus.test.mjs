// The lab's corpus (lab/corpus.json) and its rules (lab/rules.js): the licence is stated,
// every labelled pronoun item resolves with the project's tokenizer, the rules' targets are what they
// say, and the previous-word task built from the corpus is learnable by the trainer.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, loadScope } from './helpers.mjs';

const { RULE_IDS, buildTask, chanceAccuracy, targetsFor, wordTokens, isCross } = await import(join(ROOT, 'lab/rules.js'));
const corpus = JSON.parse(readFileSync(join(ROOT, 'lab/corpus.json'), 'utf8'));
const scope = await loadScope();

test('the corpus: licence, size, no duplicates, every pronoun item resolvable', () => {
  assert.equal(corpus.licence, 'CC0-1.0');
  assert.match(readFileSync(join(ROOT, 'lab/README.md'), 'utf8'), /CC0 1\.0/);
  assert.ok(corpus.sentences.length >= 250, `${corpus.sentences.length} sentences`);
  assert.equal(new Set(corpus.sentences).size, corpus.sentences.length, 'no duplicate sentences');
  assert.ok(corpus.pronouns.length >= 40);
  for (const item of corpus.pronouns) {
    const words = wordTokens(scope.tokenize(item.text));
    const t = targetsFor('pronoun', words, item);
    assert.ok(t, `${item.text}: pronoun '${item.pronoun}' after referent '${item.referent}'`);
    assert.equal(t.filter((x) => x >= 0).length, 1, 'one target row');
    const p = t.findIndex((x) => x >= 0);
    assert.equal(words[p].lookup, item.pronoun);
    assert.equal(words[t[p]].lookup, item.referent);
  }
});

test('the rules: previous, next, first and pronoun targets', () => {
  const words = wordTokens(scope.tokenize("The animal didn't cross the street because it was too tired."));
  assert.deepEqual(words.map((w) => w.text), ['The', 'animal', 'did', "n't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired']);
  assert.deepEqual(targetsFor('previous', words), [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.deepEqual(targetsFor('next', words), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1]);
  assert.deepEqual(targetsFor('first', words), new Array(12).fill(0));
  assert.deepEqual(targetsFor('pronoun', words, { pronoun: 'it', referent: 'animal' }), [-1, -1, -1, -1, -1, -1, -1, -1, 1, -1, -1, -1]);
  assert.equal(targetsFor('pronoun', words, { pronoun: 'she', referent: 'animal' }), null);
  assert.throws(() => targetsFor('last', words), TypeError);
  assert.deepEqual(RULE_IDS, ['previous', 'next', 'first', 'pronoun', 'paraphrase']);
  assert.equal(isCross('paraphrase'), true);
  assert.equal(isCross('previous'), false);
});

test('the paraphrase rule: each word → the same word in the paraphrase; words twice in either sentence have none', () => {
  const w = (t) => wordTokens(scope.tokenize(t));
  const s = w('The cat sat on the mat.'), p = w('On the mat sat the cat.');
  // the (twice: none), cat → 5, sat → 3, on → 0, the, mat → 2
  assert.deepEqual(targetsFor('paraphrase', s, null, p), [-1, 5, 3, 0, -1, 2]);
  // A word missing from the paraphrase has none; a pair with no shared word is unusable.
  assert.deepEqual(targetsFor('paraphrase', w('She quickly finished her homework.'), null, w('She did her homework fast.')), [0, -1, -1, 2, 3]);
  assert.equal(targetsFor('paraphrase', w('Rain fell.'), null, w('It poured.')), null);
});

test('the paraphrase pairs: written for the project (CC0, documented), at least 60, every pair usable', () => {
  assert.match(corpus.about, /paraphrase/);
  assert.match(readFileSync(join(ROOT, 'lab/README.md'), 'utf8'), /`paraphrases`/);
  assert.ok(corpus.paraphrases.length >= 60, `${corpus.paraphrases.length} pairs`);
  assert.equal(new Set(corpus.paraphrases.map((x) => x.text)).size, corpus.paraphrases.length, 'no duplicate sentences');
  for (const item of corpus.paraphrases) {
    assert.notEqual(item.text, item.paraphrase);
    const t = targetsFor('paraphrase', wordTokens(scope.tokenize(item.text)), item, wordTokens(scope.tokenize(item.paraphrase)));
    assert.ok(t && t.filter((x) => x >= 0).length >= 2, `${item.text} / ${item.paraphrase}: at least two words with a target`);
  }
  const embed = (w) => scope.embed(w.lookup).vector;
  const task = buildTask(corpus, 'paraphrase', { tokenize: (x) => scope.tokenize(x), embed, dIn: 100 });
  const d = task.heldOut.data;
  assert.equal(d.keyLengths.length, d.lengths.length);
  assert.equal(d.keyVectors.length, 100 * d.keyLengths.reduce((a, b) => a + b, 0));
  assert.equal(task.heldOut.sentences.length, corpus.paraphrases.filter((_, i) => i % 5 === 4).length);
  assert.ok(task.heldOut.sentences[0].keyWords.length > 0 && task.heldOut.sentences[0].paraphrase);
  // chance: 1 / (the paraphrase's length) per target row
  let sum = 0, count = 0, at = 0;
  d.lengths.forEach((n, s) => { for (let i = 0; i < n; i++) if (d.targets[at + i] >= 0) { sum += 1 / d.keyLengths[s]; count++; } at += n; });
  assert.ok(Math.abs(chanceAccuracy(d) - sum / count) < 1e-12);
});

/** The corpus task of `rule` (the page's head, seed 1): about chance before training, above 80% held out after 300 steps. */
function assertCorpusTaskLearns(rule, checkTask = () => {}) {
  const embed = (w) => scope.embed(w.lookup).vector;
  const task = buildTask(corpus, rule, { tokenize: (x) => scope.tokenize(x), embed, dIn: 100 });
  checkTask(task);
  const chance = chanceAccuracy(task.heldOut.data);
  const t = scope.createTrainer({ data: task.train.data, dIn: 100, dHead: 16, positions: 'concat', dPos: 16, maxLen: 24, seed: 1 });
  try {
    const before = t.evaluate(task.heldOut.data).accuracy;
    t.step(300);
    const after = t.evaluate(task.heldOut.data).accuracy;
    assert.ok(before < 2 * chance, `before training: ${before} (chance ${chance})`);
    assert.ok(after > 0.8, `after 300 steps: ${after} (chance ${chance})`);
  } finally { t.dispose(); }
}

test('paraphrase task from the corpus (cross-attention): held-out accuracy rises from about chance to above 80% in 300 steps', () => {
  assertCorpusTaskLearns('paraphrase');
});

test('previous-word task from the corpus: held-out accuracy rises from about chance to above 80% in 300 steps', () => {
  assertCorpusTaskLearns('previous', (task) => assert.ok(task.train.data.lengths.length > 150 && task.heldOut.data.lengths.length > 40));
});

test("the page's plain-JS head (lab/head-model.js) gives the trainer's own weights, for every positions mode and a weighted score", async () => {
  const { headWeights } = await import(join(ROOT, 'lab/head-model.js'));
  const embed = (w) => scope.embed(w.lookup).vector;
  const task = buildTask(corpus, 'next', { tokenize: (x) => scope.tokenize(x), embed, dIn: 100 });
  for (const [positions, score] of [['concat', 'scaled-dot'], ['add', 'general'], ['none', 'additive'], ['concat', 'location']]) {
    const t = scope.createTrainer({ data: task.train.data, dIn: 100, dHead: 8, positions, dPos: 8, maxLen: 24, score, hidden: 6, batch: 8, seed: 4 });
    try {
      t.step(20);
      const n = task.heldOut.data.lengths[0];
      const x = task.heldOut.data.vectors.subarray(0, n * 100);
      const want = t.attentionWeights(x), got = headWeights(scope, t.weights(), t.options, x);
      for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-4, `${positions} ${score} [${i}]: ${got[i]} vs ${want[i]}`);
    } finally { t.dispose(); }
  }
});

test("the page's plain-JS head gives the trainer's own cross-attention weights (sentence rows x paraphrase columns)", async () => {
  const { headWeights } = await import(join(ROOT, 'lab/head-model.js'));
  const embed = (w) => scope.embed(w.lookup).vector;
  const task = buildTask(corpus, 'paraphrase', { tokenize: (x) => scope.tokenize(x), embed, dIn: 100 });
  for (const [positions, score] of [['concat', 'scaled-dot'], ['add', 'general'], ['concat', 'location']]) {
    const t = scope.createTrainer({ data: task.train.data, dIn: 100, dHead: 8, positions, dPos: 8, maxLen: 24, score, batch: 8, seed: 4 });
    try {
      t.step(20);
      const d = task.heldOut.data, n = d.lengths[0], m = d.keyLengths[0];
      const x = d.vectors.subarray(0, n * 100), k = d.keyVectors.subarray(0, m * 100);
      const want = t.attentionWeights(x, k), got = headWeights(scope, t.weights(), t.options, x, k);
      assert.equal(got.length, n * m);
      for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-4, `${positions} ${score} [${i}]: ${got[i]} vs ${want[i]}`);
    } finally { t.dispose(); }
  }
});
