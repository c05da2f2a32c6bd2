// The lab's tasks: which key each word of a sentence should attend to, from a rule. Pure functions of
// the tokenizer's tokens (scope.tokenize): shared by the page (web/pages/lab/lab.js), the benchmark
// (bench/lab.mjs) and the tests. Only word and number tokens take part (punctuation is dropped).

/** The rules, with what the page says about them. */
export const RULES = [
  { id: 'previous', label: 'each word → the previous word', positions: true },
  { id: 'next', label: 'each word → the next word', positions: true },
  { id: 'first', label: 'each word → the first word', positions: true },
  { id: 'pronoun', label: 'pronoun → the noun it refers to', positions: true },
  // Cross-attention: queries from a sentence, keys from its paraphrase.
  { id: 'paraphrase', label: 'a word → the same word in a paraphrase', positions: true, cross: true },
];
export const RULE_IDS = RULES.map((r) => r.id);

/** The tokens that take part: words and numbers. */
export function wordTokens(tokens) {
  return tokens.filter((t) => t.kind === 'word' || t.kind === 'number');
}

/** Whether `rule` is a cross-attention rule (its keys come from a second sentence). */
export const isCross = (rule) => !!RULES.find((r) => r.id === rule)?.cross;

/**
 * The paraphrase rule's targets: for each word of `words`, the index in `keyWords` of the same word
 * (lookup form), or -1 when it occurs more than once in either sentence (which occurrence is meant is
 * then a matter of reading, not of the word) or not at all in the paraphrase.
 */
export function paraphraseTargets(words, keyWords) {
  const count = (list) => {
    const m = new Map();
    for (const w of list) m.set(w.lookup, (m.get(w.lookup) || 0) + 1);
    return m;
  };
  const here = count(words), there = count(keyWords);
  return words.map((w) => (here.get(w.lookup) === 1 && there.get(w.lookup) === 1 ? keyWords.findIndex((k) => k.lookup === w.lookup) : -1));
}

/**
 * Targets (one per token: the index of the key to attend to, or -1 for none) of `rule` on `words`
 * (tokens with a `lookup`). For 'pronoun', `item` = { pronoun, referent } (lookup forms): the referent
 * is its first occurrence, the pronoun its first occurrence after the referent; null if either is
 * missing (the sentence is then unusable). For 'paraphrase', `keyWords` are the paraphrase's words
 * (the targets index them; null when no word has a target).
 */
export function targetsFor(rule, words, item, keyWords) {
  if (rule === 'paraphrase') {
    const t = paraphraseTargets(words, keyWords);
    return t.some((x) => x >= 0) ? t : null;
  }
  const n = words.length;
  const t = new Array(n).fill(-1);
  if (rule === 'previous') for (let i = 1; i < n; i++) t[i] = i - 1;
  else if (rule === 'next') for (let i = 0; i + 1 < n; i++) t[i] = i + 1;
  else if (rule === 'first') for (let i = 0; i < n; i++) t[i] = 0;
  else if (rule === 'pronoun') {
    const r = words.findIndex((w) => w.lookup === item.referent);
    if (r < 0) return null;
    let p = -1;
    for (let i = r + 1; i < n; i++) if (words[i].lookup === item.pronoun) { p = i; break; }
    if (p < 0) return null;
    t[p] = r;
  } else throw new TypeError(`rule: expected one of ${RULE_IDS.join(', ')}, got ${rule}`);
  return t;
}

/** Held-out items: every fifth (index % 5 == 4), as documented in lab/README.md. */
export const isHeldOut = (index) => index % 5 === 4;

/**
 * The trainer's data for `rule` from the corpus: { train, heldOut }, each { data: { vectors, lengths,
 * targets } (a TrainerData), sentences: [{ text, words, targets }] }. embed(word token) → Float32Array [dIn]; tokenize(text) → tokens.
 * Sentences longer than maxLen words are skipped. The paraphrase rule's data also has keyVectors and
 * keyLengths (the paraphrases), and its sentences { paraphrase, keyWords }.
 */
export function buildTask(corpus, rule, { tokenize, embed, dIn, maxLen = 24 }) {
  const items = rule === 'pronoun' ? corpus.pronouns : rule === 'paraphrase' ? corpus.paraphrases : corpus.sentences.map((text) => ({ text }));
  const cross = isCross(rule);
  const sets = { train: [], heldOut: [] };
  items.forEach((item, index) => {
    const words = wordTokens(tokenize(item.text));
    if (words.length === 0 || words.length > maxLen) return;
    const keyWords = cross ? wordTokens(tokenize(item.paraphrase)) : null;
    if (cross && (keyWords.length === 0 || keyWords.length > maxLen)) return;
    const targets = targetsFor(rule, words, item, keyWords);
    if (!targets) return;
    sets[isHeldOut(index) ? 'heldOut' : 'train'].push({ text: item.text, words, targets, paraphrase: item.paraphrase, keyWords });
  });
  const stack = (list, key) => {
    const tokens = list.reduce((s, x) => s + x[key].length, 0);
    const vectors = new Float32Array(tokens * dIn);
    const lengths = new Uint32Array(list.length);
    let at = 0;
    list.forEach((x, s) => {
      lengths[s] = x[key].length;
      x[key].forEach((w, i) => vectors.set(embed(w), (at + i) * dIn));
      at += x[key].length;
    });
    return { vectors, lengths };
  };
  const pack = (list) => {
    const { vectors, lengths } = stack(list, 'words');
    const targets = Int32Array.from(list.flatMap((x) => x.targets));
    const data = { vectors, lengths, targets };
    if (cross) {
      const k = stack(list, 'keyWords');
      data.keyVectors = k.vectors;
      data.keyLengths = k.lengths;
    }
    const sentences = list.map((x) => ({ text: x.text, words: x.words.map((w) => w.text), targets: x.targets,
      ...(cross ? { paraphrase: x.paraphrase, keyWords: x.keyWords.map((w) => w.text) } : {}) }));
    return { data, sentences };
  };
  return { train: pack(sets.train), heldOut: pack(sets.heldOut) };
}

/** Chance accuracy of a task: the mean over target rows of 1 / (number of keys the query sees). */
export function chanceAccuracy(data) {
  let sum = 0, count = 0, at = 0;
  data.lengths.forEach((n, s) => {
    const keys = data.keyLengths ? data.keyLengths[s] : n;
    for (let i = 0; i < n; i++) if (data.targets[at + i] >= 0) { sum += 1 / keys; count++; }
    at += n;
  });
  return count ? sum / count : 0;
}

/**
 * The best a head can do from position alone on `heldOut`, chosen on `train` (both lists of sentences
 * { targets }, as buildTask's): "always the word at index k" (k from 0) or "always d words back / ahead",
 * whichever gets most training targets right (ties: the first found, absolute before relative, nearest
 * first). Returns { kind: 'absolute' | 'relative', k, label, train, correct, total, accuracy } with
 * correct / total counted on the held-out targets. For the paraphrase rule keys are the paraphrase's
 * words, so only absolute positions are tried. Null when no sentence has a target.
 */
export function positionBaseline(train, heldOut, { cross = false } = {}) {
  const candidates = [];
  let maxLen = 0;
  for (const s of [...train, ...heldOut]) maxLen = Math.max(maxLen, s.targets.length);
  for (let k = 0; k < maxLen; k++) candidates.push({ kind: 'absolute', k, key: () => k });
  if (!cross) {
    for (let d = 1; d < maxLen; d++) {
      candidates.push({ kind: 'relative', k: -d, key: (i) => i - d });
      candidates.push({ kind: 'relative', k: d, key: (i) => i + d });
    }
  }
  const score = (list, c) => {
    let correct = 0, total = 0;
    for (const s of list) {
      s.targets.forEach((t, i) => {
        if (t < 0) return;
        total++;
        if (c.key(i) === t) correct++;
      });
    }
    return { correct, total };
  };
  let best = null;
  for (const c of candidates) {
    const r = score(train, c);
    if (!best || r.correct > best.train.correct) best = { c, train: r };
  }
  if (!best || best.train.total === 0) return null;
  const held = score(heldOut, best.c);
  const { kind, k } = best.c;
  const label = kind === 'absolute' ? `word ${k + 1}` : `${Math.abs(k)} word${Math.abs(k) === 1 ? '' : 's'} ${k < 0 ? 'back' : 'ahead'}`;
  return { kind, k, label, train: best.train.total ? best.train.correct / best.train.total : 0,
    correct: held.correct, total: held.total, accuracy: held.total ? held.correct / held.total : 0 };
}

/**
 * Whether a trained head has learnt a position instead of the rule: over the held-out sentences'
 * `weights` (one [n × nk] row-major matrix per sentence, query rows), the share of *all* rows — every
 * word, not only those with a target — whose largest weight is on the key `baseline` picks, and the
 * share of the rows without a target. A head that attends the rule's key does so from the target rows
 * only; one that attends a position does so from every row. `positional` is true when the baseline
 * is not itself the rule (it gets under 99% of the training targets) and at least 90% of the rows
 * without a target agree with it. `sameShare`: the share of the rows without a target whose largest
 * weight is on a key a target row of the same sentence picks; `queryBlind` when it is at least 90%
 * (the head picks one word per sentence whichever word asks: not the rule, whatever it gets right).
 */
export function positionalShortcut(sentences, weights, baseline) {
  if (!baseline) return null;
  let rows = 0, atBase = 0, free = 0, freeAtBase = 0, others = 0, othersSame = 0;
  sentences.forEach((s, si) => {
    const w = weights[si];
    const n = s.targets.length;
    const nk = w.length / n;
    const argmax = (i) => {
      let arg = 0;
      for (let j = 1; j < nk; j++) if (w[i * nk + j] > w[i * nk + arg]) arg = j;
      return arg;
    };
    // The keys the target rows pick: do the other rows pick them too?
    const picked = new Set();
    for (let i = 0; i < n; i++) if (s.targets[i] >= 0) picked.add(argmax(i));
    for (let i = 0; i < n; i++) {
      const arg = argmax(i);
      if (s.targets[i] < 0 && picked.size) {
        others++;
        if (picked.has(arg)) othersSame++;
      }
      const key = baseline.kind === 'absolute' ? baseline.k : i + baseline.k;
      if (key < 0 || key >= nk) continue;
      rows++;
      if (arg === key) atBase++;
      if (s.targets[i] < 0) {
        free++;
        if (arg === key) freeAtBase++;
      }
    }
  });
  const share = rows ? atBase / rows : 0;
  const freeShare = free ? freeAtBase / free : 0;
  const sameShare = others ? othersSame / others : 0;
  const rule = baseline.train < 0.99;
  return { rows, share, freeRows: free, freeShare, positional: rule && free > 0 && freeShare >= 0.9,
    otherRows: others, sameShare, queryBlind: rule && others > 0 && sameShare >= 0.9 };
}

/**
 * The sentence the lab prints under the held-out accuracy (empty for a rule that is a position):
 * what position alone gets right, and, when the head has learnt a shortcut (positionalShortcut), which
 * one, from the numbers measured at the same step. `accuracy`: the head's held-out accuracy then.
 */
export function shortcutReading(rule, baseline, shortcut, accuracy) {
  if (!baseline || baseline.train >= 0.99 || !shortcut) return '';
  const pct = (x) => `${Math.round(100 * x)}%`;
  const asker = rule === 'pronoun' ? 'the pronoun' : 'the word with a target';
  const head = Math.round(accuracy * baseline.total);
  const base = `Position alone — always ${baseline.label} — gets ${baseline.correct} of ${baseline.total} held-out targets right (${pct(baseline.accuracy)}); this head, at step ${shortcut.step}, ${head} of ${baseline.total}.`;
  if (shortcut.positional) {
    return `A shortcut: from ${pct(shortcut.freeShare)} of the held-out words that have no target, the head's largest weight is on ${baseline.label} too — it has learnt a position, not the rule. ${base}`;
  }
  if (shortcut.queryBlind) {
    return `A shortcut: in the held-out sentences, ${pct(shortcut.sameShare)} of the words that have no target put their largest weight on the same word as ${asker} does — the head picks one word per sentence whichever word asks, so what it gets right is not the rule. ${base}`;
  }
  return base;
}
