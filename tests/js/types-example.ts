// Uses every call and every option of the attnscope contract (dist/attnscope.d.ts) the way an app
// would; `tsc --noEmit` (strict) must accept it. Checked by tests/js/types.test.mjs, and again against
// the installed tarball by tests/js/package.test.mjs. Never run, only type-checked.
import createDefault, {
  createAttnScope,
  engineHasSimd,
  type AttendOptions,
  type AttendResult,
  type AttentionOptions,
  type AttentionResult,
  type AttnScope,
  type CreateOptions,
  type Embedding,
  type MaskName,
  type PackageFile,
  type RowStats,
  type ScoreInfo,
  type ScoreName,
  type ScoreOptions,
  type ScoreWeights,
  type ScoresOptions,
  type SoftmaxOptions,
  type Token,
  type TokenKind,
  type UserProjection,
  type VariantInfo,
  type VariantName,
  type VocabularyInfo,
} from 'attnscope';
import { createAttnScope as createSingle, type SingleCreateOptions, type AttnScope as SingleScope } from 'attnscope/single';

const createOptions: CreateOptions = {
  locateFile: (path: string, scriptDirectory: string): string => new URL(path, scriptDirectory).href,
  wasmBinary: new Uint8Array(8),
  vocabulary: 'small',
  preload: true,
  simd: true,
  onProgress: (loaded: number, total: number): void => { void (loaded / (total || 1)); },
};
const vocabularies: CreateOptions['vocabulary'][] = ['default', 'small', new ArrayBuffer(8), new Uint8Array(8),
  new URL('https://example.invalid/glove.bin'), '/glove-50k.bin'];

async function main(): Promise<void> {
  const scope: AttnScope = await createAttnScope(createOptions);
  const other: AttnScope = await createDefault();
  const single: AttnScope = await createSingle({ vocabulary: vocabularies[1] });
  const plain: AttnScope = await createAttnScope();
  const located: AttnScope = await createAttnScope({ locateFile: (file: PackageFile | string) => new URL(`https://example.invalid/${file}`) });
  const singleOptions: SingleCreateOptions = { vocabulary: 'default', simd: true, preload: true, locateFile: (file) => `/assets/${file}` };
  const single2: SingleScope = await createSingle(singleOptions);
  const loaded: VocabularyInfo = await plain.loadVocabulary();
  const hasSimd: boolean = engineHasSimd();

  // Information.
  const infos: readonly ScoreInfo[] = scope.scoreFunctions;
  const names: ScoreName[] = infos.map((s) => s.name);
  const described: string[] = infos.map((s) => `${s.formula} ${s.latex} ${s.source} ${s.description} ${s.needsWeights}`);
  const available: VariantName[] = scope.variants.available;
  const simd: boolean = scope.variants.simd;
  const isa: string = scope.variants.isa;
  const vocab: { size: number; dim: number; name: string } = scope.vocabulary;
  const variantInfo: VariantInfo = scope.variants;
  scope.variant = 'scalar';
  const current: VariantName = scope.variant;
  const inUse: number = scope.memoryInUse();

  // Bring your own vectors.
  const nq = 2, nk = 3, d = 4, dk = 5, dv = 6, hidden = 7;
  const Q = new Float32Array(nq * d), K = new Float32Array(nk * d), V = new Float32Array(nk * dv);
  const weights: ScoreWeights = {
    W: new Float32Array(d * dk),
    W1: new Float32Array(hidden * d), W2: new Float32Array(hidden * dk), v: new Float32Array(hidden), hidden,
    Wa: new Float32Array(nk * d), maxKeys: nk,
  };
  const scoreOptions: ScoreOptions = { score: 'idw', p: 1.5, eps: 0, variant: 'simd' };
  const scoresOptions: ScoresOptions = { nq, nk, d, ...scoreOptions };
  const S: Float32Array = scope.scores(Q, K, scoresOptions);
  const S2: Float32Array = scope.scores(Q, new Float32Array(nk * dk), { nq, nk, d, dk, score: 'general', ...weights });
  const softmaxOptions: SoftmaxOptions = { rows: nq, cols: nk, temperature: 0.5, mask: 'causal', keyPadding: new Uint8Array(nk), variant: 'auto' };
  const A: Float32Array = scope.softmax(S, softmaxOptions);
  const A2: Float32Array = scope.softmax(S2, { rows: nq, cols: nk, keyPadding: [false, true, false] });
  const mask: MaskName = 'none';
  const att: AttentionResult = scope.attention(Q, K, V, {
    nq, nk, d, dv, score: 'additive', ...weights, temperature: 2, mask, keyPadding: [true, false, false], variant: 'scalar',
  });
  const attentionOptions: AttentionOptions = { nq, nk, d, dk, dv, score: 'location', Wa: weights.Wa };
  const att2: AttentionResult = scope.attention(Q, new Float32Array(nk * dk), V, attentionOptions);
  const stats: RowStats = att.stats;
  const entropy: Float32Array = stats.entropy, maxWeight: Float32Array = stats.maxWeight, argmax: Uint32Array = stats.argmax;
  const ran: 'simd' | 'scalar' = att.variant;
  const arrays: Float32Array[] = [att.scores, att.weights, att.output, att2.output];

  // Sentences.
  const attendOptions: AttendOptions = {
    query: 'The cat sat on the mat.',
    keys: 'A kitten rested on the rug.',
    score: 'cosine',
    temperature: 0.1,
    heads: 2,
    projection: 'random',
    seed: 42,
    positional: true,
    mask: 'causal',
    p: 2,
    eps: 1e-3,
    variant: 'auto',
    maxTokens: 64,
    experimentalScaledOutput: false,
    W: new Float32Array(50 * 50),
    W1: new Float32Array(hidden * 50), W2: new Float32Array(hidden * 50), v: new Float32Array(hidden), hidden,
    Wa: new Float32Array(10 * 50), maxKeys: 10,
  };
  const r: AttendResult = scope.attend(attendOptions);
  const projection: UserProjection = {
    Wq: new Float32Array(100 * 8), Wk: new Float32Array(100 * 8), Wv: new Float32Array(100 * 6),
    Wo: new Float32Array(6 * 3), dHead: 8, dValue: 6, dOut: 3,
  };
  const user: AttendResult = scope.attend({ query: 'Hello there.', projection });
  const identity: AttendResult = scope.attend({ query: 'Hello.', projection: 'identity' });
  const tokens: string[] = [...r.queryTokens, ...r.keyTokens];
  const info: Token[] = [...r.queryTokenInfo, ...r.keyTokenInfo];
  const spans: [number, number, string, string, TokenKind, boolean, string | null][] =
    info.map((t) => [t.start, t.end, t.text, t.lookup, t.kind, t.oov, t.vocabWord]);
  const sizes: number[] = [r.nq, r.nk, r.heads, r.d, r.dOut, r.timeMs, ...r.dHead, ...r.dValue, r.temperature];
  const matrices: Float32Array[] = [r.queryEmbeddings, r.keyEmbeddings, ...r.q, ...r.k, ...r.v, r.scores, r.weights, r.output,
    r.stats.entropy, r.stats.maxWeight, user.output, identity.weights];
  const argmaxes: Uint32Array = r.stats.argmax;
  const which: ScoreName = r.score;
  const variant: 'simd' | 'scalar' = r.variant;

  // Words.
  const tokenized: Token[] = scope.tokenize('Text, with words.', { maxTokens: 10 });
  const tokenized2: Token[] = scope.tokenize('Text');
  const e: Embedding = scope.embed('king');
  const vector: Float32Array = e.vector, oov: boolean = e.oov;
  const near: { word: string; cosine: number }[] = scope.nearest('king', 5);
  const near2: { word: string; cosine: number }[] = scope.nearest(vector);

  void [other, single, plain, located, single2, loaded, hasSimd, variantInfo, names, described, available, simd, isa, vocab, current, inUse, A, A2, entropy, maxWeight, argmax, ran,
    arrays, tokens, spans, sizes, matrices, argmaxes, which, variant, tokenized, tokenized2, oov, near, near2];
}
void main;
