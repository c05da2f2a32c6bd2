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
  type AttentionGradients,
  type Trainer,
  type TrainerData,
  type TrainerEvaluation,
  type TrainerGradients,
  type TrainerOptions,
  type TrainerOutput,
  type TrainerWeights,
  type AttentionFormat,
  type AttentionJson,
  type AttnScope,
  type HeadLabel,
  type LoadModelOptions,
  type Model,
  type ModelEncodeOptions,
  type ModelEncoding,
  type ModelConfig,
  type TransformerModel,
  type TransformerEncoding,
  type TransformerLossAndGradients,
  type ModelTrainer,
  type ModelTrainerOptions,
  type ModelEvaluation,
  type TokenData,
  type PairData,
  type PairHeadLabel,
  type TransformerEncodeOptions,
  type HeadSummaries,
  type LoadAttentionsOptions,
  type LoadedAttentions,
  type RolloutOptions,
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
import { createAttnPool, type AttnPool, type PoolOptions } from 'attnscope/pool';
import useLite, { type AttnScopeAsset } from 'attnscope/model';
import vocab50k from 'attnscope/vocab-50k';
import 'attnscope/vocab-10k';
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
  // The fused output-only path, and attention() asked for less.
  const out: Float32Array = scope.attentionOutput(Q, K, V, { nq, nk, d, dv, score: 'idw', p: 1.5, mask: 'causal', keyPadding: [false, true, false] });
  const onlyWeights = scope.attention(Q, K, V, { nq, nk, d, dv, returns: ['weights'] });
  const w1: Float32Array = onlyWeights.weights;
  const ran2: 'simd' | 'scalar' = onlyWeights.variant;
  void [out, w1, ran2];

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


  // Your model's attention.
  const json: AttentionJson = { tokens: ['a', 'b'], attentions: [[[[0.5, 0.5], [0.2, 0.8]]]] };
  const loadOptions: LoadAttentionsOptions = { tokens: 'a\nb\n', keyTokens: ['a', 'b'], format: 'npy', softmax: true };
  const imported: LoadedAttentions = scope.loadAttentions(new Uint8Array(128), loadOptions);
  const imported2: LoadedAttentions = scope.loadAttentions(json);
  const imported3: LoadedAttentions = scope.loadAttentions('{"attentions": [[1]]}', { tokens: ['a'] });
  const imported4: LoadedAttentions = scope.loadAttentions(new ArrayBuffer(8));
  const format: AttentionFormat = imported.format;
  const importedSizes: number[] = [imported.layers, imported.heads, imported.nq, imported.nk];
  const importedText: string[] = [...imported.tokens, ...imported.keyTokens, ...imported.warnings];
  const rolloutOptions: RolloutOptions = { layers: imported.layers, heads: imported.heads, n: imported.nq, residual: 0.5, head: 'max' };
  const rolled: Float32Array = scope.rollout(imported.attentions, rolloutOptions);
  const rolled2: Float32Array = scope.rollout(imported2.attentions, { layers: 1, heads: 1, n: 2, head: 0 });
  const flowed: Float32Array = scope.attentionFlow(imported.attentions, rolloutOptions);
  const summary: HeadSummaries = scope.headSummaries(imported3.attentions, { layers: 1, heads: 1, nq: 1, nk: 1 });
  const summaryArrays: Float32Array[] = [summary.entropy, summary.max, summary.meanMax];
  // Gradients and the head trainer.
  const grad: AttentionGradients = scope.attentionBackward(new Float32Array(6), new Float32Array(6), new Float32Array(4), new Float32Array(4),
    { nq: 2, nk: 2, d: 3, dv: 2, score: 'general', W: new Float32Array(9), mask: 'causal', temperature: 0.5 });
  const gradArrays: (Float32Array | undefined)[] = [grad.dQ, grad.dK, grad.dV, grad.dW, grad.dW1, grad.dW2, grad.dv, grad.dWa];
  const data: TrainerData = { vectors: new Float32Array(6), lengths: [2], targets: new Int32Array([-1, 0]) };
  const trainerOptions: TrainerOptions = { data, dIn: 3, dHead: 4, positions: 'concat', dPos: 4, maxLen: 8, score: 'additive', hidden: 4,
    temperature: 1, mask: 'none', learningRate: 0.01, batch: 4, seed: 2, variant: 'auto', p: 2, eps: 1e-3 };
  const trainer: Trainer = scope.createTrainer(trainerOptions);
  const stepsSoFar: number = trainer.step(10) + trainer.step() + trainer.steps + trainer.examples + trainer.layout.dFeat;
  const curve: Float32Array = trainer.losses;
  const trained: TrainerWeights = trainer.weights();
  const trainedArrays: (Float32Array | undefined)[] = [trained.Wq, trained.Wk, trained.W, trained.W1, trained.W2, trained.v, trained.Wa];
  const evaluation: TrainerEvaluation = trainer.evaluate(data);
  const evalNumbers: number[] = [evaluation.loss, evaluation.accuracy, evaluation.hits, evaluation.count];
  const heat: Float32Array = trainer.attentionWeights(new Float32Array(6));
  const tg: TrainerGradients = trainer.gradients([0]);
  const tgArrays: Float32Array[] = [tg.features, tg.Q, tg.K, tg.dQ, tg.dK, tg.grads.Wq];
  const resolvedScore: ScoreName = trainer.options.score;
  trainer.reset(3);
  trainer.reset();
  trainer.dispose();
  // Cross-attention: each sentence with a key sentence (e.g. its paraphrase); the targets index it.
  const pairs: TrainerData = { vectors: new Float32Array(6), lengths: [2], targets: [1, -1], keyVectors: new Float32Array(9), keyLengths: new Uint32Array([3]) };
  const crossTrainer: Trainer = scope.createTrainer({ data: pairs, dIn: 3, dHead: 4, maxLen: 8 });
  const isCross: boolean = crossTrainer.cross;
  const crossHeat: Float32Array = crossTrainer.attentionWeights(new Float32Array(6), new Float32Array(9));
  const ctg: TrainerGradients = crossTrainer.gradients([0]);
  const keyFeatures: Float32Array | null = ctg.keyFeatures;
  const keyRows: number = ctg.keyRows;
  crossTrainer.dispose();
  // Output modes: the value output and the experimental scaled one (copy the target's vector).
  const outputMode: TrainerOutput = 'scaled';
  const outTrainer: Trainer = scope.createTrainer({ data, dIn: 3, dHead: 4, maxLen: 8, output: outputMode });
  const resolvedOutput: TrainerOutput = outTrainer.options.output;
  const outWeights: TrainerWeights = outTrainer.weights();
  const outMatrices: (Float32Array | undefined)[] = [outWeights.Wv, outWeights.Wextra];
  const outEval: TrainerEvaluation = outTrainer.evaluate(data);
  const outAccuracy: number | null = outEval.outputAccuracy;
  const outHits: number | null = outEval.outputHits;
  const otg: TrainerGradients = outTrainer.gradients([0]);
  const outGrads: (Float32Array | null)[] = [otg.V, otg.dV, otg.dO];
  const wvAt: number = outTrainer.layout.Wv + outTrainer.layout.Wx;
  outTrainer.dispose();
  void [resolvedOutput, outMatrices, outAccuracy, outHits, outGrads, wvAt];
  void [gradArrays, stepsSoFar, curve, trainedArrays, evalNumbers, heat, tg.loss, tgArrays, resolvedScore, isCross, crossHeat, keyFeatures, keyRows];
  // A transformer from a config: parameters in nanoGPT's names, encodeIds with surgery, the loss and gradients.
  const modelConfig: ModelConfig = { kind: 'decoder', layers: 2, heads: 4, dModel: 64, dFF: 256, vocab: 64, maxTokens: 64,
    score: { '0.1': 'general', '1.3': 'additive' }, temperature: 'learned', seed: 1 };
  const gpt: TransformerModel = scope.createModel(modelConfig);
  const fixedTau: TransformerModel = scope.createModel({ score: 'cosine', temperature: 0.1 });
  const gptWeights: Record<string, Float32Array> = gpt.parameters();
  gpt.setParameters({ 'transformer.wte.weight': gptWeights['transformer.wte.weight'] });
  const gptRun: TransformerEncoding = gpt.encodeIds([1, 2, 3], { score: { '0.0': 'idw' }, ablate: ['1.1'], variant: 'simd' });
  const gptLoss: TransformerLossAndGradients = gpt.lossAndGradients(Int32Array.of(1, 2, 3), [2, 3, -1]);
  const gptFacts: [number, Float32Array, Float32Array, number, Float32Array | undefined, readonly number[] | undefined, number | 'learned', ModelConfig] =
    [gptRun.n, gptRun.attentions, gptRun.logits, gptLoss.loss, gptLoss.gradients['transformer.wpe.weight'], gpt.shapes['transformer.wte.weight'], fixedTau.temperature, gpt.config];
  void [gptFacts, gpt.scores['0.1'], gpt.layers, gpt.heads, gpt.dModel, gpt.dFF, gpt.vocab, gpt.maxTokens, gpt.kind, gpt.seed];
  const tokenData: TokenData = { ids: Int32Array.of(1, 2, 3, 4), targets: [2, 3, 4, -1], rows: 1, cols: 4 };
  const trainerOptions2: ModelTrainerOptions = { data: tokenData, batch: 8, learningRate: 1e-3, weightDecay: 0.1, clip: 1, seed: 1, variant: 'auto' };
  const gptTrainer: ModelTrainer = scope.createModelTrainer(gpt, trainerOptions2);
  const taken: number = gptTrainer.step(10);
  const gptEval: ModelEvaluation = gptTrainer.evaluate(tokenData);
  void [taken, gptEval.loss, gptEval.accuracy, gptEval.count, gptTrainer.losses, gptTrainer.steps, gptTrainer.lastGradNorm, gptTrainer.model];
  gptTrainer.dispose();
  const pairLabel: PairHeadLabel = 'cross.0.1';
  const seq2seq: TransformerModel = scope.createModel({ kind: 'encoder-decoder', score: { [pairLabel]: 'additive' } });
  const pairOptions: TransformerEncodeOptions = { target: [3, 2, 1], ablate: ['encoder.0.0'], score: { 'decoder.1.0': 'cosine' } };
  const pairRun: TransformerEncoding = seq2seq.encodeIds([1, 2, 3], pairOptions);
  const pairArrays: [Float32Array | undefined, Float32Array | undefined, number | undefined, Int32Array | undefined] = [pairRun.cross, pairRun.encoderAttentions, pairRun.nSource, pairRun.target];
  const pairData: PairData = { source: Int32Array.of(1, 2), target: [2, 1], rows: 1, sourceCols: 2, targetCols: 2 };
  const pairTrainer: ModelTrainer = scope.createModelTrainer(seq2seq, { data: pairData });
  void [pairArrays, pairTrainer.evaluate(pairData), seq2seq.kind];
  pairTrainer.dispose();
  seq2seq.dispose();
  const savedGpt: Uint8Array = gpt.save();
  const loadedGpt: TransformerModel = await scope.loadModel<TransformerModel>({ model: savedGpt });
  loadedGpt.dispose();
  gpt.dispose();
  fixedTau.dispose();
  // The trained model: load, encode with surgery, ids, similarity, dispose.
  const modelOptions: LoadModelOptions = { model: 'default', onProgress: (loaded: number, total: number) => void [loaded, total] };
  const model: Model = await scope.loadModel(modelOptions);
  const fromBytes: Model = await scope.loadModel({ model: new Uint8Array(8) });
  const label: HeadLabel = '1.2';
  const surgery: ModelEncodeOptions = { score: { [label]: 'cosine', '0.0': 'idw' }, ablate: ['0.1'], variant: 'scalar' };
  const enc: ModelEncoding = model.encode('The cat sat.', surgery);
  const everyHead: ModelEncoding = model.encodeIds(Int32Array.of(34, 1163), { score: 'neg-euclidean' });
  const encArrays: [Int32Array, Float32Array, Float32Array, Uint32Array | undefined] = [enc.ids, enc.attentions, enc.embedding, enc.spans];
  const encFacts: [string[], number, boolean, 'scalar' | 'simd'] = [everyHead.tokens, everyHead.n, everyHead.truncated, everyHead.variant];
  const modelFacts: [string, number, number, number, number, readonly number[], number] = [model.name, model.layers, model.heads, model.maxTokens, model.dim, model.headDims, model.vocabularySize];
  const firstPiece: readonly [string, number | null] = model.vocabulary[0];
  const sim: number = model.similarity('How old are you?', [34, 1163], { ablate: ['1.0'] });
  model.dispose();
  fromBytes.dispose();
  void [encArrays, encFacts, modelFacts, firstPiece, sim];
  void [imported4, format, importedSizes, importedText, rolled, rolled2, flowed, summaryArrays];

  // The assets an app opts into: where the bundler put the file and its licence.
  const asset: AttnScopeAsset = useLite;
  const assetFacts: [string, string, string, string] = [asset.file, asset.url.href, asset.license.href, vocab50k.licenseName];
  const fromAsset = await scope.loadModel({ model: useLite.url });
  fromAsset.dispose();
  await createAttnScope({ vocabulary: vocab50k.url, preload: true });
  // @ts-expect-error: an asset's url is read-only
  useLite.url = new URL('https://example.org/use-lite.bin');
  void assetFacts;

  // The pool of workers: the same calls, asynchronous, with a signal.
  const poolOptions: PoolOptions = { workers: 2, preload: true, vocabulary: 'small', locateFile: (file) => `/assets/${file}` };
  const pool: AttnPool = await createAttnPool(poolOptions);
  const controller = new AbortController();
  const poolQ = new Float32Array(8);
  const poolOut: Float32Array = await pool.attentionOutput(poolQ, poolQ, poolQ, { nq: 2, nk: 2, d: 4, dv: 4, signal: controller.signal });
  const poolS: Float32Array = await pool.scores(poolQ, poolQ, { nq: 2, nk: 2, d: 4, score: 'idw', p: 1 });
  const poolW = await pool.attention(poolQ, poolQ, poolQ, { nq: 2, nk: 2, d: 4, dv: 4, returns: ['weights'] });
  const poolWeights: Float32Array = poolW.weights;
  const poolAttend: AttendResult = await pool.attend({ query: 'the cat', heads: 2, signal: controller.signal });
  const poolWorkers: number = pool.workers;
  await pool.dispose();
  void [poolOut, poolS, poolWeights, poolAttend, poolWorkers, pool.registry, pool.variants.available];

  void [other, single, plain, located, single2, loaded, hasSimd, variantInfo, names, described, available, simd, isa, vocab, current, inUse, A, A2, entropy, maxWeight, argmax, ran,
    arrays, tokens, spans, sizes, matrices, argmaxes, which, variant, tokenized, tokenized2, oov, near, near2];
}
void main;
