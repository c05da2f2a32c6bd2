// The lab's tasks: which key each word of a sentence should attend to, from a rule. Pure functions of
// the tokenizer's tokens (scope.tokenize): shared by the page (web/lab.js), the benchmark
// (bench/lab.mjs) and the tests. Only word and number tokens take part (punctuation is dropped).

/** The rules, with what the page says about them. */
export const RULES = [
  { id: 'previous', label: 'each word → the previous word', positions: true },
  { id: 'next', label: 'each word → the next word', positions: true },
  { id: 'first', label: 'each word → the first word', positions: true },
  { id: 'pronoun', label: 'pronoun → the noun it refers to', positions: true },
];
export const RULE_IDS = RULES.map((r) => r.id);

/** The tokens that take part: words and numbers. */
export function wordTokens(tokens) {
  return tokens.filter((t) => t.kind === 'word' || t.kind === 'number');
}

/**
 * Targets (one per token: the index of the key to attend to, or -1 for none) of `rule` on `words`
 * (tokens with a `lookup`). For 'pronoun', `item` = { pronoun, referent } (lookup forms): the referent
 * is its first occurrence, the pronoun its first occurrence after the referent; null if either is
 * missing (the sentence is then unusable).
 */
export function targetsFor(rule, words, item) {
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

/** Held-out items: every fifth (index % 5 == 4), as documented in web/lab/README.md. */
export const isHeldOut = (index) => index % 5 === 4;

/**
 * The trainer's data for `rule` from the corpus: { train, heldOut }, each { data: { vectors, lengths,
 * targets } (a TrainerData), sentences: [{ text, words, targets }] }. embed(word token) → Float32Array [dIn]; tokenize(text) → tokens.
 * Sentences longer than maxLen words are skipped.
 */
export function buildTask(corpus, rule, { tokenize, embed, dIn, maxLen = 24 }) {
  const items = rule === 'pronoun' ? corpus.pronouns : corpus.sentences.map((text) => ({ text }));
  const sets = { train: [], heldOut: [] };
  items.forEach((item, index) => {
    const words = wordTokens(tokenize(item.text));
    if (words.length === 0 || words.length > maxLen) return;
    const targets = targetsFor(rule, words, item);
    if (!targets) return;
    sets[isHeldOut(index) ? 'heldOut' : 'train'].push({ text: item.text, words, targets });
  });
  const pack = (list) => {
    const tokens = list.reduce((s, x) => s + x.words.length, 0);
    const vectors = new Float32Array(tokens * dIn);
    const targets = new Int32Array(tokens);
    const lengths = new Uint32Array(list.length);
    let at = 0;
    list.forEach((x, s) => {
      lengths[s] = x.words.length;
      x.words.forEach((w, i) => { vectors.set(embed(w), (at + i) * dIn); targets[at + i] = x.targets[i]; });
      at += x.words.length;
    });
    return { data: { vectors, lengths, targets }, sentences: list.map((x) => ({ text: x.text, words: x.words.map((w) => w.text), targets: x.targets })) };
  };
  return { train: pack(sets.train), heldOut: pack(sets.heldOut) };
}

/** Chance accuracy of a task: the mean over target rows of 1 / (number of keys the query sees). */
export function chanceAccuracy(data) {
  let sum = 0, count = 0, at = 0;
  for (const n of data.lengths) {
    for (let i = 0; i < n; i++) if (data.targets[at + i] >= 0) { sum += 1 / n; count++; }
    at += n;
  }
  return count ? sum / count : 0;
}
