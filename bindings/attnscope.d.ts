// Type declarations for the attnscope npm package (hand-written; checked by `tsc --noEmit` on
// tests/js/types-example.ts). Every matrix is a Float32Array in row-major order; its shape is stated
// in its doc comment as [rows, cols] or [heads, rows, cols]. Doc comments are /** ... */ so that
// editors show them on hover and in completions.

/**
 * A scoring function: the score of query q against key k (d = dimension).
 * - `'dot'`: q·k (Luong 2015, dot)
 * - `'scaled-dot'`: q·k / √d (Vaswani 2017); the default
 * - `'cosine'`: q·k / (‖q‖‖k‖) (Graves 2014); 0 against a zero vector
 * - `'general'`: qᵀ W k (Luong 2015, general); needs `W` or uses a seeded one
 * - `'additive'`: vᵀ tanh(W₁q + W₂k) (Bahdanau 2015); needs `W1`, `W2`, `v` or uses seeded ones
 * - `'location'`: (W_a q)_j, a score per key position, blind to the key's content (Luong 2015, location)
 * - `'neg-euclidean'`: −‖q−k‖
 * - `'neg-sq-euclidean'`: −‖q−k‖² (= 2q·k − ‖q‖² − ‖k‖²)
 * - `'idw'`: −log(ε + ‖q−k‖^p) (McCarter 2023): softmax weights ∝ 1/(ε + ‖q−k‖^p)
 */
export type ScoreName =
  | 'dot'
  | 'scaled-dot'
  | 'cosine'
  | 'general'
  | 'additive'
  | 'location'
  | 'neg-euclidean'
  | 'neg-sq-euclidean'
  | 'idw';

/** Which kernels run: `'auto'` (default) = SIMD where the engine supports wasm SIMD, else scalar. */
export type VariantName = 'auto' | 'simd' | 'scalar';
/** `'none'` (default), or `'causal'`: query i attends only to keys 0…i. */
export type MaskName = 'none' | 'causal';
/** What the tokenizer found: a word, a number, punctuation, another symbol, or one CJK character. */
export type TokenKind = 'word' | 'number' | 'punctuation' | 'symbol' | 'cjk';

/** The vocabulary a scope uses; `size` is 0 until it is loaded (see {@link AttnScope.loadVocabulary}). */
export interface VocabularyInfo {
  /** Number of words: 50,000 for `'default'`, 10,000 for `'small'`; 0 while not loaded yet. */
  size: number;
  /** Vector dimension (100 for GloVe); 0 while not loaded yet. */
  dim: number;
  /** `'glove-50k.bin'`, `'glove-10k.bin'`, `'custom'` (bytes you gave) or the URL you gave. */
  name: string;
}

/** One scoring function as the wasm module describes it (see {@link AttnScope.scoreFunctions}). */
export interface ScoreInfo {
  /** The name to pass as `score`. */
  name: ScoreName;
  /** Plain-text formula, e.g. "q·k / √d". */
  formula: string;
  /** The same formula in LaTeX, for KaTeX. */
  latex: string;
  /** Where the function comes from. */
  source: string;
  /** One-sentence explanation of what the score measures. */
  description: string;
  /** True for 'general', 'additive', 'location': they need matrices (seeded random when not given). */
  needsWeights: boolean;
}

/** One token of a sentence, with where it is in the text and which vector it got. */
export interface Token {
  /** The surface form as typed. */
  text: string;
  /** The form looked up in the vocabulary (lower-cased). */
  lookup: string;
  /** Start of the token in the input string, in JS string indices (UTF-16 code units): `text === input.slice(start, end)`. */
  start: number;
  /** End (exclusive) of the token in the input string, in UTF-16 code units. */
  end: number;
  /** Word, number, punctuation, symbol or CJK character. */
  kind: TokenKind;
  /** True when the word is not in the vocabulary and got the deterministic out-of-vocabulary vector. */
  oov: boolean;
  /**
   * The vocabulary word whose vector was used: usually `lookup`; a documented stand-in for GloVe forms
   * the vocabulary lacks (e.g. "n't" → "not", "a" → "an", "café" → "cafe"); null when `oov`.
   */
  vocabWord: string | null;
}

/** A file of the package that `locateFile` may be asked about. */
export type PackageFile = 'attnscope.wasm' | 'attnscope-scalar.wasm' | 'glove-50k.bin' | 'glove-10k.bin';

/** Options of {@link createAttnScope}; all optional. */
export interface CreateOptions {
  /**
   * Where a package file is served, for hosts where it is not where the bundler put it (default: the
   * URL your bundler gave it, or next to the module when not bundled). Called with the file's name
   * (`'attnscope.wasm'`, `'attnscope-scalar.wasm'`, `'glove-50k.bin'`, `'glove-10k.bin'`) and the folder
   * it would be loaded from by default; returns an absolute URL, or one relative to the page.
   * @example createAttnScope({ locateFile: (file) => `https://static.example.com/attnscope/${file}` })
   */
  locateFile?: (file: PackageFile | (string & {}), defaultFolder: string) => string | URL;
  /** The wasm bytes, if you have them (skips locating and fetching the wasm). Must match `simd`. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * Word vectors, for {@link AttnScope.attend}, `embed`, `nearest` and `tokenize`:
   * - `'default'` (the split build's default): GloVe 6B 100d, 50,000 words, `glove-50k.bin` (5.6 MB)
   * - `'small'` (the single-file build's default, inlined there): 10,000 words, `glove-10k.bin` (1.1 MB)
   * - the bytes of a vocabulary file of your own (`docs/vocab-format.md`): loaded at once
   * - a URL (or URL string, relative to the page, or to the current folder in Node) of such a file
   *
   * A file to download is fetched when you ask: `preload: true`, or `await scope.loadVocabulary()`.
   * Until then those four calls throw an Error that says so; `scores`, `softmax` and `attention`
   * never need it. Default: `'default'` (`'small'` in `attnscope/single`).
   */
  vocabulary?: 'default' | 'small' | ArrayBuffer | Uint8Array | URL | (string & {});
  /**
   * Fetch and load the vocabulary before the promise resolves, so `attend()` works at once.
   * Default `false`: nothing is downloaded until `scope.loadVocabulary()` (an app that brings its own
   * vectors never downloads words).
   */
  preload?: boolean;
  /** Force the SIMD (`true`) or scalar (`false`) build; default: SIMD when `WebAssembly.validate` says it can run. */
  simd?: boolean;
  /** Progress of the vocabulary download, for a loading indicator: loaded and total bytes (total 0 when unknown). */
  onProgress?: (loaded: number, total: number) => void;
}

/**
 * Your own matrices for the scores that have them. Omitted ones are seeded random (Xavier) in
 * `attend()`; `scores()` and `attention()` require the ones their score needs.
 */
export interface ScoreWeights {
  /** `'general'`: W, [dq, dk]. */
  W?: Float32Array;
  /** `'additive'`: W₁, [hidden, dq]. */
  W1?: Float32Array;
  /** `'additive'`: W₂, [hidden, dk]. */
  W2?: Float32Array;
  /** `'additive'`: v, [hidden]. */
  v?: Float32Array;
  /** `'additive'`: the hidden size (default `v.length`). */
  hidden?: number;
  /** `'location'`: W_a, [maxKeys, dq]; needs maxKeys >= the number of keys. */
  Wa?: Float32Array;
  /** `'location'`: rows of `Wa` (default `Wa.length / dq`). */
  maxKeys?: number;
}

/** How to score: the function, its parameters and the kernels. */
export interface ScoreOptions extends ScoreWeights {
  /** The scoring function (default `'scaled-dot'`). */
  score?: ScoreName;
  /** `'idw'` exponent p > 0 (default 2). */
  p?: number;
  /** `'idw'` ε >= 0 (default 1e-3). */
  eps?: number;
  /** Kernels to run (default: the scope's `variant`, `'auto'` unless changed). */
  variant?: VariantName;
}

/** Options of {@link AttnScope.softmax}. */
export interface SoftmaxOptions {
  /** Rows of S (one per query). */
  rows: number;
  /** Columns of S (one per key). */
  cols: number;
  /** τ > 0 (default 1): weights = softmax(S / τ). */
  temperature?: number;
  /** Default `'none'`. */
  mask?: MaskName;
  /** One entry per column; nonzero/true = padding, never attended to. */
  keyPadding?: Uint8Array | boolean[];
  /** Kernels to run (default: the scope's `variant`). */
  variant?: VariantName;
}

/** Per-row summaries of the weights. */
export interface RowStats {
  /** [heads, nq] (or [nq]): −Σ a log a in nats; 0 = one-hot, log(nk) = uniform. */
  entropy: Float32Array;
  /** [heads, nq] (or [nq]): the largest weight in each row. */
  maxWeight: Float32Array;
  /** [heads, nq] (or [nq]): the key that gets it. */
  argmax: Uint32Array;
}

/** What {@link AttnScope.attention} returns: copies, yours to keep. */
export interface AttentionResult {
  /** [nq, nk]: the raw scores. */
  scores: Float32Array;
  /** [nq, nk]: the softmax weights; rows sum to 1 (a fully masked row is all 0). */
  weights: Float32Array;
  /** [nq, dv]: weights · V. */
  output: Float32Array;
  /** [nq] each. */
  stats: RowStats;
  /** The kernel variant that ran. */
  variant: 'simd' | 'scalar';
}

/** Options of {@link AttnScope.scores}: the shapes of Q and K, and how to score. */
export interface ScoresOptions extends ScoreOptions {
  /** Number of queries (rows of Q). */
  nq: number;
  /** Number of keys (rows of K). */
  nk: number;
  /** Query dimension (columns of Q). */
  d: number;
  /** Key dimension (columns of K), default `d`; may differ only for `'general'`, `'additive'`, `'location'`. */
  dk?: number;
}

/** Options of {@link AttnScope.attention}: the shapes, how to score, and the softmax tail. */
export interface AttentionOptions extends ScoresOptions {
  /** Value dimension (columns of V). */
  dv: number;
  /** τ > 0 (default 1): weights = softmax(S / τ). */
  temperature?: number;
  /** Default `'none'`. */
  mask?: MaskName;
  /** One entry per key; nonzero/true = padding, never attended to. */
  keyPadding?: Uint8Array | boolean[];
}

/** Your own projection matrices for {@link AttendOptions.projection}. */
export interface UserProjection {
  /** [d, heads*dHead]: queries. */
  Wq: Float32Array;
  /** [d, heads*dHead]: keys. */
  Wk: Float32Array;
  /** [d, heads*dValue]: values. */
  Wv: Float32Array;
  /** [heads*dValue, dOut]: the output projection (optional; without it the heads' outputs are concatenated). */
  Wo?: Float32Array;
  /** Query/key dimension of each head. */
  dHead: number;
  /** Value dimension of each head. */
  dValue: number;
  /** Columns of `Wo` (required with `Wo`). */
  dOut?: number;
}

/** Options of {@link AttnScope.attend}: two sentences (or one) and how to attend. */
export interface AttendOptions extends ScoreWeights {
  /** The query sentence. */
  query: string;
  /** Optional second sentence: cross-attention (queries from `query`, keys and values from `keys`); omit for self-attention. */
  keys?: string;
  /** The scoring function (default `'scaled-dot'`). */
  score?: ScoreName;
  /** τ > 0 (default 1): weights = softmax(S / τ); small τ sharpens. */
  temperature?: number;
  /** Number of heads (default 1); with `'identity'` the heads split the d dimensions. */
  heads?: number;
  /**
   * `'identity'` (default: raw embeddings, heads split the 100 dimensions), `'random'` (seeded Xavier
   * W_q, W_k, W_v, W_o), or your own matrices.
   */
  projection?: 'identity' | 'random' | UserProjection;
  /** Seed of the random projections and score weights (32-bit unsigned, default 1). */
  seed?: number;
  /** Add sinusoidal positional encodings (Vaswani 2017) to the embeddings. Default false. */
  positional?: boolean;
  /** Default `'none'`. */
  mask?: MaskName;
  /** `'idw'` exponent p > 0 (default 2). */
  p?: number;
  /** `'idw'` ε >= 0 (default 1e-3). */
  eps?: number;
  /** Kernels to run (default: the scope's `variant`, `'auto'` unless changed). */
  variant?: VariantName;
  /** Maximum tokens per sentence (default 512, at most 4096). */
  maxTokens?: number;
  /** EXPERIMENTAL: output (A V W_x) / √d_v; rows are no longer convex combinations of V. Default false. */
  experimentalScaledOutput?: boolean;
}

/** What {@link AttnScope.attend} returns: copies, yours to keep. */
export interface AttendResult {
  /** The query sentence's tokens as typed. */
  queryTokens: string[];
  /** The key sentence's tokens (the query's for self-attention). */
  keyTokens: string[];
  /** The query tokens with spans, kinds and vocabulary words. */
  queryTokenInfo: Token[];
  /** The key tokens with spans, kinds and vocabulary words. */
  keyTokenInfo: Token[];
  /** Number of query tokens. */
  nq: number;
  /** Number of key tokens. */
  nk: number;
  /** Number of heads. */
  heads: number;
  /** Model (embedding) dimension, 100 for GloVe. */
  d: number;
  /** Per head: the query/key dimension of that head. */
  dHead: number[];
  /** Per head: the value dimension of that head. */
  dValue: number[];
  /** Columns of `output`. */
  dOut: number;
  /** [nq, d]: the query embeddings (plus positions when on) fed to the projections. */
  queryEmbeddings: Float32Array;
  /** [nk, d]: the key embeddings (plus positions when on). */
  keyEmbeddings: Float32Array;
  /** Per head h: the queries, [nq, dHead[h]]. */
  q: Float32Array[];
  /** Per head h: the keys, [nk, dHead[h]]. */
  k: Float32Array[];
  /** Per head h: the values, [nk, dValue[h]]. */
  v: Float32Array[];
  /** [heads, nq, nk]: the raw scores. */
  scores: Float32Array;
  /** [heads, nq, nk]: the softmax weights; rows sum to 1. Row i of head h: `weights.subarray((h*nq + i)*nk, (h*nq + i + 1)*nk)`. */
  weights: Float32Array;
  /** [nq, dOut]: the heads' outputs, concatenated (or through W_o). */
  output: Float32Array;
  /** [heads, nq] each. */
  stats: RowStats;
  /** The scoring function used. */
  score: ScoreName;
  /** The temperature used. */
  temperature: number;
  /** The kernel variant that ran. */
  variant: 'simd' | 'scalar';
  /** Wall time of the wasm computation in milliseconds. */
  timeMs: number;
}

/** What {@link AttnScope.embed} returns. */
export interface Embedding {
  /** [d]: the word's vector. */
  vector: Float32Array;
  /** True when the word is not in the vocabulary and got the deterministic out-of-vocabulary vector. */
  oov: boolean;
  /** The vocabulary word whose vector this is (after lower-casing and stand-ins), null when `oov`. */
  vocabWord: string | null;
}

/** Which kernels an instance can run. */
export interface VariantInfo {
  /** The variants this instance accepts (`'simd'` only where the engine has wasm SIMD). */
  available: VariantName[];
  /** True when the SIMD wasm is loaded. */
  simd: boolean;
  /** Which SIMD build, e.g. `'wasm simd128 (xsimd sse4.1)'`, or `'scalar'`. */
  isa: string;
}

/**
 * One wasm instance with its vocabulary. Every call is synchronous and hands back copies.
 * `attend`, `embed`, `nearest` and `tokenize` need the vocabulary: create the scope with
 * `{ preload: true }` or `await scope.loadVocabulary()` once first (bytes you passed as `vocabulary`,
 * and the single-file build's inlined one, need neither). `scores`, `softmax` and `attention` never do.
 */
export interface AttnScope {
  /** Every scoring function with its formula, for generating a UI. */
  readonly scoreFunctions: readonly ScoreInfo[];
  /** Variants this instance can run, and which SIMD build is loaded. */
  readonly variants: VariantInfo;
  /** The vocabulary: word count and dimension (0 until loaded), which file. */
  readonly vocabulary: VocabularyInfo;
  /** The variant used when a call does not say (default `'auto'`). */
  variant: VariantName;

  /**
   * Fetches and loads the vocabulary (once; later calls return at once; a failed download may be
   * retried). Reports progress to `onProgress`. Resolves to {@link AttnScope.vocabulary}.
   */
  loadVocabulary(): Promise<VocabularyInfo>;
  /**
   * Attention between two sentences (or one, with itself): tokenize, embed, project, score, softmax,
   * A·V, in one call. Needs the vocabulary loaded (throws an Error saying so otherwise).
   */
  attend(options: AttendOptions): AttendResult;
  /** Q [nq, d], K [nk, d] (or [nk, dk] for general/additive/location) → S [nq, nk]. Never needs the vocabulary. */
  scores(Q: Float32Array, K: Float32Array, options: ScoresOptions): Float32Array;
  /** S [rows, cols] → weights [rows, cols]: mask, temperature, a stable row softmax. */
  softmax(S: Float32Array, options: SoftmaxOptions): Float32Array;
  /** Q [nq, d], K [nk, dk], V [nk, dv] → scores, weights, output = weights · V. Never needs the vocabulary. */
  attention(Q: Float32Array, K: Float32Array, V: Float32Array, options: AttentionOptions): AttentionResult;
  /** The tokens of a text as attend() sees them, each marked in or out of the vocabulary (needs it loaded). */
  tokenize(text: string, options?: { /** Maximum tokens (default 512). */ maxTokens?: number }): Token[];
  /** The vector of one word, normalised as in attend(): embed('King') is the vector of 'king'. */
  embed(word: string): Embedding;
  /** The k (default 10) vocabulary words closest (cosine) to a word or a vector [d]. */
  nearest(wordOrVector: string | Float32Array, k?: number): { word: string; cosine: number }[];
  /** Bytes of wasm memory in use by the allocator (for leak checks). */
  memoryInUse(): number;
}

/**
 * Loads the wasm (SIMD where the engine has it, else scalar) and resolves to an {@link AttnScope}.
 * The wasm and the vocabulary are found next to this module, or wherever your bundler put them
 * (Vite and webpack 5 copy them with no configuration; with esbuild, copy them next to the bundle), or where `locateFile` says.
 * The 50,000-word vocabulary (5.6 MB) is downloaded only with `preload: true` or by `scope.loadVocabulary()`.
 * @example
 * const scope = await createAttnScope({ preload: true });
 * const r = scope.attend({ query: 'The cat sat on the mat.', keys: 'A kitten rested on the rug.', score: 'cosine' });
 */
export function createAttnScope(options?: CreateOptions): Promise<AttnScope>;
export default createAttnScope;

/** True when this JS engine runs WebAssembly SIMD (then `createAttnScope` loads the SIMD build). */
export function engineHasSimd(): boolean;
