// attnscope/sentencepiece: the unigram SentencePiece tokenizer of Universal Sentence Encoder Lite, in plain
// JS (no DOM, no imports: node, browsers and workers alike).
//
// It gives the ids of the reference tokenizer, npm @tensorflow-models/universal-sentence-encoder 1.3.3
// (`new Tokenizer(vocab).encode(text)`), exactly — including the places where that tokenizer is not
// textbook SentencePiece — and adds what the reference does not give: the text of each piece and where
// it came from in the typed text. The rules (tests/js/sentencepiece.test.mjs compares the two):
//
//   1. text → NFKC; if that is not empty, "▁" (U+2581) is put in front and every U+0020 space becomes
//      "▁" (runs are kept: two spaces are two "▁"). Tabs, newlines and other spaces that NFKC does not
//      map to U+0020 stay as they are. Positions below are UTF-16 code units of this processed string.
//   2. a lattice: at every position, every vocabulary piece (ids from `reserved` = 6 up; the first six
//      are <unk>-like and control symbols and never match) that the text continues with. Where no piece
//      starts at all, one unknown code unit: id 0, score 0. A piece whose score is null counts 0.
//      A piece that appears twice in the vocabulary matches with its last id and score.
//   3. Viterbi forward, in the reference's order: positions left to right; a candidate (start, end,
//      piece) scores best[start] + score, and replaces best[end] when best[end] is still exactly 0
//      (0 also means "nothing yet") or when it is >= best[end] (ties go to the later start). best of a
//      position no piece ends at stays 0. Scores are added in float64, as JS adds them.
//   4. back from the end, each position's best piece, stepping back by that piece's length; a run of
//      unknowns (id 0) becomes one id 0.
//
// Cost: O(N · L) for N code units and L the longest piece (16 in USE-Lite's vocabulary), through a trie
// over code units; memory O(N). A vocabulary of V pieces builds its trie in O(total length of pieces).
//
// Spans: spans[2k], spans[2k + 1] are the UTF-16 offsets [start, end) in the *typed* text of piece k.
// When NFKC leaves the text as it is, they are the piece's own code units (less the leading "▁").
// Otherwise (NFKC can change lengths: ﬁ → fi, ㍿ → 株式会社, e + ◌́ → é, ｶﾞ → ガ) the typed text is cut into
// segments, a character with the combining marks (and Hangul vowel and final jamo, and half-width voiced
// marks) that follow it, whose NFKC forms, put end to end, are exactly the NFKC form of the whole text
// (checked on every call; where two segments normalise differently together than apart they are merged,
// and if that still does not add up the whole text is one segment). A piece's span is the smallest run of
// whole segments that produced its characters: two pieces cut from one segment (f | i of "ﬁ") share a
// span; the leading "▁" alone has the empty span [0, 0); a "▁" made from a typed space spans that space.

const SEPARATOR = '\u2581';
/** The number of leading ids the reference keeps out of matching (unknown, <s>, </s>, three extra ids). */
export const RESERVED_PIECES = 6;

function describe(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return `an array of length ${x.length}`;
  if (ArrayBuffer.isView(x)) return `a ${x.constructor.name} of length ${x.length}`;
  if (typeof x === 'string') return `a string of length ${x.length}`;
  return typeof x === 'object' ? 'an object' : `${typeof x} ${String(x)}`;
}

/** The vocabulary as { pieces: string[], scores: Float64Array } (null scores as 0), validated. */
function readVocabulary(vocab) {
  let pieces, scores;
  if (Array.isArray(vocab)) {
    pieces = new Array(vocab.length);
    scores = new Float64Array(vocab.length);
    for (let i = 0; i < vocab.length; i++) {
      const entry = vocab[i];
      if (!Array.isArray(entry) || entry.length < 2)
        throw new TypeError(`vocab[${i}]: expected a [piece, score] pair, got ${describe(entry)}`);
      pieces[i] = entry[0];
      scores[i] = checkScore(`vocab[${i}][1]`, entry[1]);
    }
  } else if (vocab !== null && typeof vocab === 'object' && 'pieces' in vocab && 'scores' in vocab) {
    if (!Array.isArray(vocab.pieces)) throw new TypeError(`vocab.pieces: expected an array of strings, got ${describe(vocab.pieces)}`);
    const s = vocab.scores;
    if (!Array.isArray(s) && !(s instanceof Float64Array) && !(s instanceof Float32Array))
      throw new TypeError(`vocab.scores: expected an array of numbers (null counts 0), a Float64Array or a Float32Array, got ${describe(s)}`);
    if (s.length !== vocab.pieces.length)
      throw new RangeError(`vocab.scores: expected one score per piece (${vocab.pieces.length}), got ${s.length}`);
    pieces = vocab.pieces.slice();
    scores = new Float64Array(s.length);
    for (let i = 0; i < s.length; i++) scores[i] = checkScore(`vocab.scores[${i}]`, s[i]);
  } else {
    throw new TypeError(`vocab: expected an array of [piece, score] pairs or { pieces, scores }, got ${describe(vocab)}`);
  }
  if (pieces.length === 0) throw new RangeError('vocab: expected at least one piece (id 0 is the unknown piece)');
  for (let i = 0; i < pieces.length; i++)
    if (typeof pieces[i] !== 'string') throw new TypeError(`vocab: piece ${i} is ${describe(pieces[i])}; expected a string`);
  return { pieces, scores };
}

function checkScore(name, x) {
  if (x === null) return 0;  // the reference adds null, which JS counts as 0
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new TypeError(`${name}: expected a finite number or null, got ${describe(x)}`);
  return x;
}

/**
 * A trie over UTF-16 code units. Edges live in one open-addressing hash table keyed by (node, code unit)
 * (typed arrays: no boxed keys); per node, the id of the piece that ends there (−1: none).
 */
function buildTrie(pieces, reserved) {
  let edgesMax = 0;
  for (let id = reserved; id < pieces.length; id++) edgesMax += pieces[id].length;
  let size = 16;
  while (size < 2 * edgesMax + 16) size *= 2;
  const mask = size - 1;
  const from = new Int32Array(size).fill(-1), unit = new Uint16Array(size), to = new Int32Array(size);
  const ids = [-1];
  let longest = 0;
  const slot = (node, cu) => {
    let h = (Math.imul(node, 0x9e3779b1) ^ Math.imul(cu, 0x85ebca6b)) & mask;
    while (from[h] !== -1 && !(from[h] === node && unit[h] === cu)) h = (h + 1) & mask;
    return h;
  };
  for (let id = reserved; id < pieces.length; id++) {
    const p = pieces[id];
    if (p.length === 0) continue;
    let node = 0;
    for (let k = 0; k < p.length; k++) {
      const cu = p.charCodeAt(k), h = slot(node, cu);
      if (from[h] === -1) {
        from[h] = node;
        unit[h] = cu;
        to[h] = ids.length;
        ids.push(-1);
      }
      node = to[h];
    }
    ids[node] = id;  // a repeated piece keeps its last id (and so its last score)
    if (p.length > longest) longest = p.length;
  }
  /** The child of node along code unit cu, or −1. */
  const child = (node, cu) => {
    const h = slot(node, cu);
    return from[h] === -1 ? -1 : to[h];
  };
  return { child, ids: Int32Array.from(ids), longest };
}

/** The longest run of joining characters normalised together (UAX #15's stream-safe limit). */
const STREAM_SAFE_RUN = 30;
/** True for a code point that NFKC may join to the character before it (it starts no segment). */
const MARK = /^\p{M}$/u;
function joinsPrevious(cp) {
  if (cp < 0x300) return false;
  if (cp >= 0x1160 && cp <= 0x11ff) return true;  // Hangul vowel and final jamo
  if (cp >= 0xd7b0 && cp <= 0xd7ff) return true;  // Hangul jamo extended-B
  if (cp === 0xff9e || cp === 0xff9f) return true;  // half-width voiced marks: NFKC gives U+3099/U+309A
  return MARK.test(String.fromCodePoint(cp));
}

/**
 * The typed text cut into segments whose NFKC forms concatenate to the NFKC form of the whole:
 * { normalized, segOf: Int32Array (normalized offset → segment), starts, ends (typed offsets per segment) }.
 */
function alignNfkc(text) {
  let bounds = [0];  // typed offsets where segments start
  let run = 0, capped = false;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i);
    const joins = i > 0 && joinsPrevious(cp);
    // Unicode's stream-safe text format (UAX #15, section 13): at most 30 characters that join the one
    // before in a row. Past that a segment ends, as if U+034F (a starter) stood there, so that NFKC
    // reorders marks within runs of 30, never across a run of 100,000 (V8's normalize is quadratic in
    // the run's length: 100,000 marks of two classes took 3.6 s, the tokenizer 6 s).
    if (!joins) {
      run = 0;
      if (i > 0) bounds.push(i);
    } else if (++run > STREAM_SAFE_RUN) {
      capped = true;
      run = 1;
      bounds.push(i);
    }
    i += cp > 0xffff ? 2 : 1;
  }
  if (text.length === 0) bounds = [];
  bounds.push(text.length);
  let forms = formsOf(text, bounds);
  // A text with a capped run is normalised segment by segment (the stream-safe form's NFKC); any
  // other, as a whole.
  const normalized = capped ? forms.join('') : text.normalize('NFKC');
  if (normalized === text) return null;  // NFKC changed nothing: offsets map to themselves
  if (!capped && forms.join('') !== normalized) {
    // Merge each pair of neighbours that normalises differently together than apart, then check again.
    const merged = [bounds[0]];
    let prev = forms[0], prevStart = bounds[0];
    for (let s = 1; s < forms.length; s++) {
      const together = text.slice(prevStart, bounds[s + 1]).normalize('NFKC');
      if (together === prev + forms[s]) {
        merged.push(bounds[s]);
        prevStart = bounds[s];
        prev = forms[s];
      } else {
        prev = together;
      }
    }
    merged.push(text.length);
    bounds = merged;
    forms = formsOf(text, bounds);
    if (forms.join('') !== normalized) {
      bounds = text.length ? [0, text.length] : [0];
      forms = text.length ? [normalized] : [];
    }
  }
  const segOf = new Int32Array(normalized.length);
  const nseg = forms.length;
  const starts = new Uint32Array(nseg), ends = new Uint32Array(nseg);
  let at = 0;
  for (let s = 0; s < nseg; s++) {
    starts[s] = bounds[s];
    ends[s] = bounds[s + 1];
    segOf.fill(s, at, at + forms[s].length);
    at += forms[s].length;
  }
  return { normalized, segOf, starts, ends };
}

function formsOf(text, bounds) {
  const forms = new Array(bounds.length - 1);
  for (let s = 0; s + 1 < bounds.length; s++) {
    const a = bounds[s], b = bounds[s + 1];
    forms[s] = b === a + 1 && text.charCodeAt(a) < 0xa0 ? text[a] : text.slice(a, b).normalize('NFKC');  // ASCII and C1 are their own NFKC
  }
  return forms;
}

/**
 * A tokenizer over a vocabulary: an array of [piece, score] pairs (USE-Lite's vocab.json; a null score
 * counts 0) or { pieces: string[], scores: number[] | Float64Array | Float32Array }. Scores are used as
 * float64: float32-rounded scores can break ties differently from the reference.
 * options.reserved (default 6): the number of leading ids that never match text.
 */
export function createSentencePiece(vocab, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`options: expected an object, got ${describe(options)}`);
  for (const key of Object.keys(options))
    if (key !== 'reserved') throw new TypeError(`options.${key}: unknown option; the only option is 'reserved'`);
  const { pieces, scores } = readVocabulary(vocab);
  const reserved = options.reserved === undefined ? RESERVED_PIECES : options.reserved;
  if (!Number.isInteger(reserved) || reserved < 1 || reserved > pieces.length)
    throw new RangeError(`options.reserved: expected an integer from 1 to ${pieces.length} (id 0 is the unknown piece), got ${describe(reserved)}`);
  const { child, ids: nodeIds, longest } = buildTrie(pieces, reserved);
  const lengths = Int32Array.from(pieces, (p) => p.length);
  const byPiece = new Map();
  for (let id = reserved; id < pieces.length; id++) if (pieces[id].length) byPiece.set(pieces[id], id);

  /** Viterbi over the processed string s: the chosen [id, start, end] triples, text order, unknowns merged. */
  function segment(s) {
    const n = s.length;
    const best = new Float64Array(n + 1);
    const word = new Int32Array(n + 1);  // id of the best piece ending at each position (0 by default)
    for (let i = 0; i < n; i++) {
      const base = best[i];
      let node = 0, found = false;
      const stop = Math.min(n, i + longest);
      for (let k = i; k < stop; k++) {
        node = child(node, s.charCodeAt(k));
        if (node < 0) break;
        const id = nodeIds[node];
        if (id < 0) continue;
        found = true;
        const score = scores[id] + base, end = k + 1;
        if (best[end] === 0 || score >= best[end]) {
          best[end] = score;
          word[end] = id;
        }
      }
      if (!found) {  // one unknown code unit, score 0
        const score = 0 + base, end = i + 1;
        if (best[end] === 0 || score >= best[end]) {
          best[end] = score;
          word[end] = 0;
        }
      }
    }
    const out = [];  // reversed: id, start, end
    for (let at = n; at > 0;) {
      const id = word[at];
      const start = Math.max(0, at - lengths[id]);
      if (id === 0 && out.length && out[out.length - 3] === 0) out[out.length - 2] = start;  // merge unknowns
      else out.push(id, start, at);
      at -= Math.max(1, lengths[id]);
    }
    return out;
  }

  function encode(text) {
    if (typeof text !== 'string') throw new TypeError(`text: expected a string, got ${describe(text)}`);
    const align = alignNfkc(text);
    const normalized = align ? align.normalized : text;
    const processed = normalized.length ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : '';
    const chosen = segment(processed);
    const count = chosen.length / 3;
    const ids = new Int32Array(count);
    const spans = new Uint32Array(2 * count);
    const texts = new Array(count);
    for (let k = 0; k < count; k++) {
      const r = 3 * (count - 1 - k);
      const id = chosen[r], a = chosen[r + 1], b = chosen[r + 2];
      ids[k] = id;
      texts[k] = processed.slice(a, b);
      // processed offset p >= 1 is normalized offset p − 1; offset 0 is the added "▁"
      const na = Math.max(a, 1) - 1, nb = b - 1;
      if (nb <= na) continue;
      if (align) {
        spans[2 * k] = align.starts[align.segOf[na]];
        spans[2 * k + 1] = align.ends[align.segOf[nb - 1]];
      } else {
        spans[2 * k] = na;
        spans[2 * k + 1] = nb;
      }
    }
    return { ids, pieces: texts, spans, normalized: processed };
  }

  return Object.freeze({
    /** The number of pieces (ids 0 to size − 1). */
    size: pieces.length,
    unknownId: 0,
    encode,
    /** The text of a piece by id. */
    piece(id) {
      if (!Number.isInteger(id) || id < 0 || id >= pieces.length) throw new RangeError(`id: expected an integer from 0 to ${pieces.length - 1}, got ${describe(id)}`);
      return pieces[id];
    },
    /** The id a piece's text matches as (its last id if repeated), or −1 when the text is no piece. */
    id(piece) {
      if (typeof piece !== 'string') throw new TypeError(`piece: expected a string, got ${describe(piece)}`);
      const id = byPiece.get(piece);
      return id === undefined ? -1 : id;
    },
  });
}
