// Type declarations for the attnscope npm package (hand-written; checked by `tsc --noEmit` on
// tests/js/types-example.ts). Every matrix is a Float32Array in row-major order; its shape is stated
// next to it as [rows, cols] or [heads, rows, cols].

/** A scoring function: the score of query q against key k (d = dimension). */
export type ScoreName =
  | 'dot'               // q·k                       (Luong 2015, dot)
  | 'scaled-dot'        // q·k / √d                  (Vaswani 2017)
  | 'cosine'            // q·k / (‖q‖‖k‖)            (Graves 2014)
  | 'general'           // qᵀ W k                    (Luong 2015, general)
  | 'additive'          // vᵀ tanh(W₁q + W₂k)        (Bahdanau 2015)
  | 'location'          // (W_a q)_j, ignores key content (Luong 2015, location)
  | 'neg-euclidean'     // −‖q−k‖
  | 'neg-sq-euclidean'  // −‖q−k‖²
  | 'idw';              // −log(ε + ‖q−k‖^p)         (McCarter 2023, inverse distance weighting)

/** Which kernels run: 'auto' = SIMD where the engine supports wasm SIMD, else scalar. */
export type VariantName = 'auto' | 'simd' | 'scalar';
export type MaskName = 'none' | 'causal';
export type TokenKind = 'word' | 'number' | 'punctuation' | 'symbol' | 'cjk';

export interface ScoreInfo {
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

export interface Token {
  /** The surface form as typed. */
  text: string;
  /** The form looked up in the vocabulary (lower-cased). */
  lookup: string;
  /** Span in the input string, in JS string indices (UTF-16 code units): text === input.slice(start, end). */
  start: number;
  end: number;
  kind: TokenKind;
  /** True when the word is not in the vocabulary and got the deterministic out-of-vocabulary vector. */
  oov: boolean;
  /**
   * The vocabulary word whose vector was used: usually `lookup`; a documented stand-in for GloVe forms
   * the vocabulary lacks (e.g. "n't" → "not", "a" → "an", "café" → "cafe"); null when `oov`.
   */
  vocabWord: string | null;
}

export interface CreateOptions {
  /** Where to find attnscope.wasm / attnscope-scalar.wasm / the vocabulary (default: next to the module). */
  locateFile?: (path: string, scriptDirectory: string) => string;
  /** Bring the wasm bytes yourself (skips locating/fetching it). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * Word vectors: 'default' (GloVe 6B 100d, 50,000 words; loaded on first use), 'small' (10,000 words,
   * inlined in the single-file build), your own vocabulary file's bytes, or a URL to one.
   */
  vocabulary?: 'default' | 'small' | ArrayBuffer | Uint8Array | URL | string;
  /** Force the SIMD (true) or scalar (false) build; default: SIMD when WebAssembly.validate says it can run. */
  simd?: boolean;
  /** Progress of the vocabulary download, for a loading indicator: loaded and total bytes (total 0 when unknown). */
  onProgress?: (loaded: number, total: number) => void;
}

/** User-supplied matrices for the scores that have them. Omitted ones are seeded random (Xavier). */
export interface ScoreWeights {
  /** 'general': [dq, dk]. */
  W?: Float32Array;
  /** 'additive': W1 [hidden, dq], W2 [hidden, dk], v [hidden]. */
  W1?: Float32Array;
  W2?: Float32Array;
  v?: Float32Array;
  hidden?: number;
  /** 'location': [maxKeys, dq]; needs maxKeys >= number of keys. */
  Wa?: Float32Array;
  maxKeys?: number;
}

export interface ScoreOptions extends ScoreWeights {
  score?: ScoreName;        // default 'scaled-dot'
  /** 'idw' exponent p > 0 (default 2) and ε >= 0 (default 1e-3). */
  p?: number;
  eps?: number;
  variant?: VariantName;
}

export interface SoftmaxOptions {
  rows: number;
  cols: number;
  /** τ > 0 (default 1): weights = softmax(S / τ). */
  temperature?: number;
  mask?: MaskName;
  /** One entry per column; nonzero/true = padding, never attended to. */
  keyPadding?: Uint8Array | boolean[];
  variant?: VariantName;
}

export interface RowStats {
  /** [heads, nq] (or [nq]): −Σ a log a in nats; 0 = one-hot, log(nk) = uniform. */
  entropy: Float32Array;
  /** [heads, nq] (or [nq]): the largest weight in each row. */
  maxWeight: Float32Array;
  /** [heads, nq] (or [nq]): the key that gets it. */
  argmax: Uint32Array;
}

export interface AttentionResult {
  scores: Float32Array;   // [nq, nk] raw scores
  weights: Float32Array;  // [nq, nk] rows sum to 1 (a fully masked row is all 0)
  output: Float32Array;   // [nq, dv] = weights · V
  stats: RowStats;        // [nq] each
  /** The kernel variant that ran. */
  variant: 'simd' | 'scalar';
}

export interface AttendOptions extends ScoreWeights {
  /** The query sentence. */
  query: string;
  /** Optional second sentence: cross-attention (queries from `query`, keys and values from `keys`). */
  keys?: string;
  score?: ScoreName;               // default 'scaled-dot'
  temperature?: number;            // τ > 0, default 1
  heads?: number;                  // default 1
  /**
   * 'identity' (default: raw embeddings, heads split the 100 dimensions), 'random' (seeded Xavier
   * W_q, W_k, W_v, W_o), or your own matrices.
   */
  projection?: 'identity' | 'random' | {
    Wq: Float32Array;  // [d, heads*dHead]
    Wk: Float32Array;  // [d, heads*dHead]
    Wv: Float32Array;  // [d, heads*dValue]
    Wo?: Float32Array; // [heads*dValue, dOut]
    dHead: number;
    dValue: number;
    dOut?: number;
  };
  /** Seed of the random projections and score weights (32-bit unsigned, default 1). */
  seed?: number;
  /** Add sinusoidal positional encodings (Vaswani 2017) to the embeddings. Default false. */
  positional?: boolean;
  mask?: MaskName;                 // default 'none'
  p?: number;                      // 'idw' exponent, default 2
  eps?: number;                    // 'idw' ε, default 1e-3
  variant?: VariantName;           // default 'auto'
  /** Maximum tokens per sentence (default 512). */
  maxTokens?: number;
  /** EXPERIMENTAL: output (A V W_x) / √d_v; rows are no longer convex combinations of V. */
  experimentalScaledOutput?: boolean;
}

export interface AttendResult {
  queryTokens: string[];
  keyTokens: string[];
  queryTokenInfo: Token[];
  keyTokenInfo: Token[];
  nq: number;
  nk: number;
  heads: number;
  /** Model (embedding) dimension, 100 for GloVe. */
  d: number;
  /** Per head: the query/key dimension of that head. */
  dHead: number[];
  /** Per head: the value dimension of that head. */
  dValue: number[];
  dOut: number;
  /** [nq, d] and [nk, d]: the embeddings (plus positions when on) fed to the projections. */
  queryEmbeddings: Float32Array;
  keyEmbeddings: Float32Array;
  /** Per head h: [nq, dHead[h]], [nk, dHead[h]], [nk, dValue[h]]. */
  q: Float32Array[];
  k: Float32Array[];
  v: Float32Array[];
  scores: Float32Array;   // [heads, nq, nk] raw scores
  weights: Float32Array;  // [heads, nq, nk] rows sum to 1
  output: Float32Array;   // [nq, dOut]
  stats: RowStats;        // [heads, nq] each
  score: ScoreName;
  temperature: number;
  variant: 'simd' | 'scalar';
  /** Wall time of the wasm computation in milliseconds. */
  timeMs: number;
}

export interface Embedding {
  vector: Float32Array;  // [d]
  oov: boolean;
  /** The vocabulary word whose vector this is (after lower-casing and stand-ins), null when `oov`. */
  vocabWord: string | null;
}

export interface AttnScope {
  /** Every scoring function with its formula, for generating a UI. */
  readonly scoreFunctions: readonly ScoreInfo[];
  /** Variants this instance can run, and which SIMD build is loaded. */
  readonly variants: { available: VariantName[]; simd: boolean; isa: string };
  /** The vocabulary: word count, dimension, which file. */
  readonly vocabulary: { size: number; dim: number; name: string };
  /** The variant used when a call does not say (default 'auto'). */
  variant: VariantName;

  attend(options: AttendOptions): AttendResult;
  /** Q [nq, d], K [nk, d] (or [nk, dk] for general/additive/location) → S [nq, nk]. */
  scores(Q: Float32Array, K: Float32Array, options: ScoreOptions & { nq: number; nk: number; d: number; dk?: number }): Float32Array;
  /** S [rows, cols] → weights [rows, cols]. */
  softmax(S: Float32Array, options: SoftmaxOptions): Float32Array;
  /** Q [nq, d], K [nk, dk], V [nk, dv]. */
  attention(Q: Float32Array, K: Float32Array, V: Float32Array,
            options: ScoreOptions & { nq: number; nk: number; d: number; dk?: number; dv: number;
                                      temperature?: number; mask?: MaskName; keyPadding?: Uint8Array | boolean[] }): AttentionResult;
  tokenize(text: string, options?: { maxTokens?: number }): Token[];
  /** The vector of one word, normalised as in attend(): embed('King') is the vector of 'king'. */
  embed(word: string): Embedding;
  /** The k vocabulary words closest (cosine) to a word or a vector [d]. */
  nearest(wordOrVector: string | Float32Array, k?: number): { word: string; cosine: number }[];
  /** Bytes of wasm memory in use by the allocator (for leak checks). */
  memoryInUse(): number;
}

export function createAttnScope(options?: CreateOptions): Promise<AttnScope>;
export default createAttnScope;
