// Types of bindings/sentencepiece.mjs: USE-Lite's unigram SentencePiece tokenizer in plain JS, giving the
// ids of npm @tensorflow-models/universal-sentence-encoder 1.3.3 exactly (rules in the module's header).

/** The number of leading ids that never match text (unknown, <s>, </s>, three extra ids). */
export declare const RESERVED_PIECES: 6;

/** USE-Lite's vocab.json: [piece, score] pairs, id = index; a null score counts 0. */
export type SentencePieceVocabulary =
  | ReadonlyArray<readonly [string, number | null]>
  | {
      pieces: readonly string[];
      /** One per piece. Used as float64: float32-rounded scores may break ties differently from the reference. */
      scores: ReadonlyArray<number | null> | Float64Array | Float32Array;
    };

export interface SentencePieceEncoding {
  /** Vocabulary ids; 0 is an unknown run (consecutive unknown characters merge into one id 0). */
  ids: Int32Array;
  /** The text of each piece in the processed string: the vocabulary piece, or the unknown characters themselves. */
  pieces: string[];
  /** [ids.length, 2] row-major: [start, end) UTF-16 offsets in the typed text each piece came from (see the module's header). */
  spans: Uint32Array;
  /** The string the lattice ran on: "▁" + NFKC(text) with every U+0020 as "▁" ('' for ''). pieces.join('') === normalized. */
  normalized: string;
}

export interface SentencePiece {
  /** The number of pieces (ids 0 to size − 1). */
  readonly size: number;
  readonly unknownId: 0;
  /** Tokenises a text. Throws a TypeError for a non-string. */
  encode(text: string): SentencePieceEncoding;
  /** The text of a piece by id; RangeError outside 0 to size − 1. */
  piece(id: number): string;
  /** The id a piece's text matches as (its last id if repeated), or −1. */
  id(piece: string): number;
}

/** options.reserved: the number of leading ids that never match (default 6). */
export declare function createSentencePiece(vocab: SentencePieceVocabulary, options?: { reserved?: number }): SentencePiece;
