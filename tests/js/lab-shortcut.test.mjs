// The lab's position-only baseline and shortcut detection (lab/rules.js): on hand-made sentences and
// heads, then on the corpus's pronoun rule, whose head (trained as the page trains it) picks one word
// per sentence whichever word asks — the shortcut issue #34 saw — while the paraphrase head does not.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, loadScope } from './helpers.mjs';

const { positionBaseline, positionalShortcut, shortcutReading } = await import(join(ROOT, 'lab/rules.js'));
const { LabSession, MAX_STEPS } = await import(join(ROOT, 'lab/session.js'));

/** A head's weights for a sentence of n words: every row one-hot on key(i). */
const oneHot = (n, key) => Float32Array.from({ length: n * n }, (_, x) => (x % n === key(Math.floor(x / n)) ? 1 : 0));

test('positionBaseline: the best absolute or relative position on the training targets, scored on the held-out ones', () => {
  // Targets on word 2 in three training sentences of four, and in one held-out sentence of two.
  const s = (n, p, t) => ({ targets: Array.from({ length: n }, (_, i) => (i === p ? t : -1)) });
  const train = [s(6, 4, 1), s(7, 5, 1), s(5, 3, 1), s(6, 5, 3)];
  const held = [s(6, 4, 1), s(6, 5, 2)];
  const b = positionBaseline(train, held);
  assert.deepEqual({ kind: b.kind, k: b.k, label: b.label, train: b.train, correct: b.correct, total: b.total }, { kind: 'absolute', k: 1, label: 'word 2', train: 0.75, correct: 1, total: 2 });
  // The previous-word rule is a position: one word back gets every target.
  const prev = (n) => ({ targets: Array.from({ length: n }, (_, i) => i - 1) });
  const p = positionBaseline([prev(5), prev(8)], [prev(6)]);
  assert.deepEqual([p.kind, p.k, p.label, p.train, p.accuracy], ['relative', -1, '1 word back', 1, 1]);
  // Cross-attention: absolute positions only; nothing to score → null.
  assert.equal(positionBaseline([s(4, 0, 2)], [], { cross: true }).kind, 'absolute');
  assert.equal(positionBaseline([{ targets: [-1, -1] }], []), null);
});

test('positionalShortcut: a position from every word, one word whichever asks, or the rule', () => {
  const base = { kind: 'absolute', k: 1, train: 0.6 };
  const sentences = [{ targets: [-1, -1, -1, -1, 1, -1] }, { targets: [-1, -1, -1, -1, -1, 3, -1] }];
  // Every row on word 2: positional (and query-blind where the target is word 2).
  const positional = positionalShortcut(sentences, [oneHot(6, () => 1), oneHot(7, () => 1)], base);
  assert.equal(positional.positional, true);
  assert.equal(positional.freeShare, 1);
  // Every row on the target's word, wherever it is: query-blind, not positional.
  const blind = positionalShortcut(sentences, [oneHot(6, () => 1), oneHot(7, () => 3)], base);
  assert.deepEqual([blind.positional, blind.queryBlind, blind.sameShare], [false, true, 1]);
  // The target row on its referent, the others on themselves: neither.
  const rule = positionalShortcut(sentences, [oneHot(6, (i) => (i === 4 ? 1 : i)), oneHot(7, (i) => (i === 5 ? 3 : i))], base);
  assert.deepEqual([rule.positional, rule.queryBlind], [false, false]);
  // A rule that is a position is never called a shortcut.
  assert.equal(positionalShortcut(sentences, [oneHot(6, () => 1), oneHot(7, () => 1)], { ...base, train: 1 }).positional, false);
});

test('shortcutReading: names the shortcut and both counts; empty for a positional rule', () => {
  const b = { kind: 'absolute', k: 1, label: 'word 2', train: 0.54, correct: 4, total: 8, accuracy: 0.5 };
  const text = shortcutReading('pronoun', b, { step: 500, positional: false, queryBlind: true, sameShare: 0.967, freeShare: 0.47 }, 0.5);
  assert.equal(text, 'A shortcut: in the held-out sentences, 97% of the words that have no target put their largest weight on the same word as the pronoun does — the head picks one word per sentence whichever word asks, so what it gets right is not the rule. Position alone — always word 2 — gets 4 of 8 held-out targets right (50%); this head, at step 500, 4 of 8.');
  assert.match(shortcutReading('pronoun', b, { step: 25, positional: true, queryBlind: true, freeShare: 0.95, sameShare: 1 }, 0.25), /^A shortcut: from 95% of the held-out words that have no target, the head's largest weight is on word 2 too — it has learnt a position, not the rule\. .* this head, at step 25, 2 of 8\.$/);
  assert.match(shortcutReading('paraphrase', b, { step: 300, positional: false, queryBlind: false }, 1), /^Position alone — always word 2 — gets 4 of 8 held-out targets right \(50%\); this head, at step 300, 8 of 8\.$/);
  assert.equal(shortcutReading('previous', { ...b, train: 1 }, null, 0.9), '');
});

test('the corpus: the pronoun decides the referent, so the trained head beats position alone without a shortcut', async () => {
  const scope = await loadScope();
  const corpus = JSON.parse(readFileSync(join(ROOT, 'lab/corpus.json'), 'utf8'));
  const run = (session, rule, score = 'scaled-dot') => {
    session.setup({ rule, score, learningRate: 0.01, seed: 1 });
    let st;
    do st = session.train({ count: 25 }); while (st.steps < MAX_STEPS);
    return st;
  };
  const session = new LabSession(scope, corpus);
  const pronoun = run(session, 'pronoun');
  const b = pronoun.baseline;
  assert.ok(b.train > 0.4 && b.train < 0.6, `position alone gets ${b.train} of the training pronouns`);
  assert.ok(b.accuracy <= 0.5, `and ${b.correct} of ${b.total} held out`);
  const e = pronoun.evals[pronoun.evals.length - 1];
  assert.ok(e.accuracy >= 0.85 && e.accuracy > b.accuracy + 0.3, `the head: ${e.accuracy}`);
  assert.equal(pronoun.shortcut.step, MAX_STEPS);
  assert.deepEqual([pronoun.shortcut.positional, pronoun.shortcut.queryBlind], [false, false], JSON.stringify(pronoun.shortcut));
  const paraphrase = run(session, 'paraphrase');
  assert.deepEqual([paraphrase.shortcut.positional, paraphrase.shortcut.queryBlind], [false, false], JSON.stringify(paraphrase.shortcut));
  assert.equal(run(session, 'previous').shortcut, null, 'the previous-word rule is a position');

  // The flaw the set was rebuilt against: one sentence of each pair beside its twin with the two nouns
  // swapped keeps its referent noun, so one favourite noun per sentence answers both; the cosine head
  // learns that, and is named.
  const flawed = { ...corpus, pronouns: corpus.pronouns.filter((_, i) => i % 2 === 0).flatMap((item) => {
    const [, a, c] = item.text.match(/^The (\w+) \w+(?: \w+)? the (\w+)/);
    return [item, { ...item, text: item.text.replace(`the ${c}`, '\u0000').replace(`The ${a}`, `The ${c}`).replace('\u0000', `the ${a}`) }];
  }) };
  const cosine = run(new LabSession(scope, flawed), 'pronoun', 'cosine');
  assert.equal(cosine.shortcut.queryBlind, true, JSON.stringify(cosine.shortcut));
});
