// Deliberate misuses of the attnscope contract: `tsc --noEmit` must reject EXACTLY the lines marked
// `// expect-error` (tests/js/types.test.mjs compares the reported lines with the marks), so the
// declarations are strict where they should be, and nothing else in this file is an error.
import { createAttnScope } from 'attnscope';
import { createAttnScope as createSingle } from 'attnscope/single';
import type AttnScopeElement from 'attnscope/element';

async function misuse(): Promise<void> {
  const scope = await createAttnScope();
  const Q = new Float32Array(8), K = new Float32Array(8);
  scope.scores(Q, K, { nq: 2, nk: 2, d: 4 });  // fine
  scope.scores([1, 2, 3, 4], K, { nq: 1, nk: 2, d: 4 });  // expect-error: arrays must be Float32Array
  scope.scores(Q, K, { nq: 2, nk: 2, d: 4, score: 'dott' });  // expect-error: unknown scoring function
  scope.scores(Q, K, { nk: 2, d: 4 });  // expect-error: nq is required
  scope.softmax(Q, { rows: 2, cols: 4, mask: 'upper' });  // expect-error: unknown mask
  scope.softmax(Q, { rows: 2, cols: 4, keyPadding: 'none' });  // expect-error: keyPadding is a Uint8Array or boolean[]
  scope.attention(Q, K, Q, { nq: 2, nk: 2, d: 4 });  // expect-error: dv is required
  scope.attention(Q, K, Q, { nq: 2, nk: 2, d: 4, dv: 4, returns: ['weight'] });  // expect-error: unknown result name
  const o: Float32Array = scope.attention(Q, K, Q, { nq: 2, nk: 2, d: 4, dv: 4, returns: ['weights'] }).output;  // expect-error: output was not asked for
  scope.attentionOutput(Q, K, Q, { nq: 2, nk: 2, d: 4 });  // expect-error: dv is required
  scope.attentionBackward(Q, K, Q, Q, { nq: 2, nk: 2, d: 4, dv: 4, returns: ['output'] });  // expect-error: backward takes no returns
  scope.createTrainer({ dIn: 4 });  // expect-error: data is required
  scope.createTrainer({ data: { vectors: Q, lengths: [2], targets: [-1, 0] }, dIn: 4, positions: 'learned' });  // expect-error: unknown positions
  scope.createTrainer({ data: { vectors: Q, lengths: [2], targets: [-1, 0], keyVectors: [1, 2] }, dIn: 4 });  // expect-error: keyVectors is a Float32Array
  scope.createTrainer({ data: { vectors: Q, lengths: [2], targets: [-1, 0] }, dIn: 4, output: 'symmetric' });  // expect-error: unknown output
  scope.attend({ keys: 'no query' });  // expect-error: query is required
  scope.attend({ query: 'x', projection: 'user' });  // expect-error: 'user' is not a projection name
  scope.attend({ query: 'x', temprature: 2 });  // expect-error: unknown option
  scope.attend({ query: 'x', variant: 'gpu' });  // expect-error: unknown variant
  scope.attend({ query: 'x', projection: { Wq: Q, Wk: K, Wv: Q, dHead: 2 } });  // expect-error: dValue is required
  const w: Float64Array = scope.attend({ query: 'x' }).weights;  // expect-error: weights are a Float32Array
  const t: string = scope.tokenize('x')[0].start;  // expect-error: start is a number
  await createAttnScope({ preload: 'yes' });  // expect-error: preload is a boolean
  await createAttnScope({ locateFile: (file: string) => 42 });  // expect-error: locateFile returns a URL or a string
  await createSingle({ simd: false });  // expect-error: the single file holds only the SIMD wasm
  const size: string = (await scope.loadVocabulary()).size;  // expect-error: size is a number
  scope.variant = 'fast';  // expect-error: unknown variant
  const vw: string = scope.tokenize('x')[0].vocabWord;  // expect-error: vocabWord may be null
  scope.loadAttentions(new Uint8Array(8), { format: 'pt' });  // expect-error: unknown format
  scope.loadAttentions({ tokens: ['a'] });  // expect-error: attentions is required
  scope.rollout(Q, { layers: 1, heads: 1, n: 2, head: 'min' });  // expect-error: head is 'mean', 'max' or an index
  scope.rollout(Q, { layers: 1, n: 2 });  // expect-error: heads is required
  void [w, t, vw, o];
}
void misuse;

// The element's attribute-mirroring properties keep their types (they come from AttnScopeAttributes).
function misuseElement(el: AttnScopeElement): void {
  el.score = 'cosine';  // fine
  el.score = 'dott';  // expect-error: unknown scoring function
  el.temperature = '1';  // expect-error: temperature is a number
  el.theme = 'sepia';  // expect-error: unknown theme
  el.positional = 'yes';  // expect-error: positional is a boolean
}
void misuseElement;

// The trained model's options keep their types.
async function misuseModel(): Promise<void> {
  const scope = await createAttnScope();
  const model = await scope.loadModel({ model: 'default' });
  model.encode('fine', { score: { '1.2': 'cosine' }, ablate: ['0.1'] });  // fine
  model.encode(42);  // expect-error: text is a string
  model.encode('x', { score: 'cosin' });  // expect-error: unknown scoring function
  model.encode('x', { ablate: ['first'] });  // expect-error: a head is 'L.H'
  model.encode('x', { score: { '1.2': 'dott' } });  // expect-error: unknown scoring function for a head
  await scope.loadModel({ model: 42 });  // expect-error: bytes, a URL or 'default'
}
void misuseModel;
