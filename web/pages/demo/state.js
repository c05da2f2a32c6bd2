// The page's whole state, its defaults, and its round trip through the URL hash.
// Every field read from a URL is validated; anything not understood falls back to its default and is
// reported, so a mangled link still opens a working page and says what it ignored.

// The names come from the module's registry (src/attnscope/registry.hpp), which the build hands to the
// page as 'virtual:registry' (scripts/build-web.mjs): no list of names is kept here.
import registry from 'virtual:registry';
import { headFromURL, headLabel, parseHead } from '../../shared/head-label.js';
import { HEAD_TEMPERATURES, naturalT } from '../../shared/temperature.js';
import { PRESETS } from './presets.js';

export { PRESETS };

const names = (list) => list.map((x) => x.name);
export const SCORE_NAMES = names(registry.scores);
export const HEAD_CHOICES = [1, 2, 4, 5, 10];
export const PROJECTIONS = names(registry.projections).filter((p) => p !== 'user');  // 'user' needs matrices
export const MASKS = names(registry.masks);
export const VARIANTS = names(registry.variants);
export const VALUE_KINDS = ['weights', 'scores'];
export const T_MIN = 0.01;
export const T_MAX = 10;
// Characters per text kept in the state (and the URL): room for MAX_TOKENS tokens of ordinary prose
// (2,000 English tokens are about 11,000 characters; the API itself takes up to 1 MiB per string).
export const MAX_TEXT = 24000;
export const MAX_PROBLEMS = 4;    // problems of a link listed in the notice (the last says how many more)
// Tokens per text the page computes (the API's maxTokens goes to 4096); longer text is cut, with a
// notice. From LARGE_FROM (web/shared/scale.js) tokens on, the page draws a long document's views.
export const MAX_TOKENS = 2000;
export const MAX_INDEX = 9999;     // largest token index a link may name (cell, row, rows, cols)
export const MAX_LIST_TEXT = 10000; // characters of a "rows"/"cols" list read from a link
// What computes the attention: the scoring-function explorer, or the trained model (web/shared/compute/use-lite.js).
export const ENGINES = ['scores', 'model'];
// The shipped model's shape (USE-Lite: 2 layers × 4 heads), for reading a link before the model is loaded.
export const MODEL_LAYERS = 2;
export const MODEL_HEADS = 4;

/** A head of a link ('L.H', 1-based) as the state's label (0-based), or null when it is not one of the model's. */
const headOfLink = (text) => headFromURL(text, MODEL_LAYERS, MODEL_HEADS);
/** A head of a link as the API writes it (0-based, 'L.H' exactly), or null. */
const headOfAPI = (text) => {
  const at = parseHead(text, MODEL_LAYERS, MODEL_HEADS);
  return at && headLabel(...at) === text ? text : null;
};

export function defaultState() {
  return {
    q: PRESETS[2].q,
    k: PRESETS[2].k,
    score: 'cosine',
    t: naturalT('cosine'), // τ: follows the scoring function (web/shared/temperature.js) until the visitor moves it
    tset: false,      // whether the visitor chose τ (then it is kept across scoring functions, and written in the URL)
    heads: 1,
    proj: 'identity',
    seed: 1,
    pos: false,
    mask: 'none',
    variant: 'auto',
    head: 0,          // the head the heatmap and the line view's focus show
    values: 'weights',// what the heatmap colours: the weights or the raw scores
    p: 2,             // idw exponent (teaching panel 3)
    cell: [1, 1],     // [i, j] opened in "Why this weight?" (first visit: cat → kitten), or null
    row: null,        // the query word of teaching panels 2 and 3 (null: the open cell's row or the first word)
    exp: false,       // teaching panel 4 also shows the experimental scaled output
    rows: [],         // selected query token indices (sorted, unique): their summed and mean attention
    cols: [],         // selected key token indices (sorted, unique): who attends to these words
    engine: 'scores', // what computes the attention: 'scores' (the explorer) or 'model' (the trained model)
    mhead: '0.0',     // the trained model's head shown large ('L.H', 0-based as the API and in the URL; 1-based on screen)
    mswap: 'scaled-dot', // the scoring function that head is scored with (scaled-dot: the model's own)
    mtau: 1,          // that head's temperature τ (1: the model's own; a bounded score needs less to get sharp)
    mknock: [],       // the trained model's knocked-out heads ('L.H' labels, sorted)
  };
}

const short = { q: 'q', k: 'k', score: 'score', t: 't', heads: 'heads', proj: 'proj', seed: 'seed',
  pos: 'pos', mask: 'mask', variant: 'variant', head: 'head', values: 'values', p: 'p', cell: 'cell',
  row: 'row', exp: 'exp', rows: 'rows', cols: 'cols', engine: 'engine',
  // The trained model's surgery under the names of <attn-scope>'s attributes (head is taken by the
  // explorer's head number, so the link's is model-head), with heads labelled as the API and the
  // element label them: 'L.H' counted from 0.
  mhead: 'model-head', mswap: 'head-score', mtau: 'head-temperature', mknock: 'knock-out' };
// Links made before issue 34 wrote the model's surgery as mhead, mswap and mknock, heads counted from
// 1: still read, never written.
const LEGACY = ['mhead', 'mswap', 'mknock'];

/**
 * A sorted list of indices as a short string, runs of three or more compressed: [3, 5, 6, 7, 8, 9] →
 * "3,5-9". The inverse of parseIndexList.
 */
export function formatIndexList(list) {
  const parts = [];
  for (let a = 0; a < list.length;) {
    let b = a;
    while (b + 1 < list.length && list[b + 1] === list[b] + 1) b++;
    if (b - a >= 2) parts.push(`${list[a]}-${list[b]}`);
    else for (let t = a; t <= b; t++) parts.push(String(list[t]));
    a = b + 1;
  }
  return parts.join(',');
}

/**
 * Reads "3,5-9" (any order, overlaps allowed) into a sorted list of unique indices from 0 to
 * MAX_INDEX, or returns a string saying why it cannot (too long, not numbers, a backwards range).
 * Bounded: at most MAX_LIST_TEXT characters, so at most MAX_INDEX + 1 indices.
 */
export function parseIndexList(text) {
  if (text === '') return [];
  if (text.length > MAX_LIST_TEXT) return `is longer than ${MAX_LIST_TEXT} characters`;
  if (!/^\d{1,4}(-\d{1,4})?(,\d{1,4}(-\d{1,4})?)*$/.test(text)) return 'is not a list of token numbers like “3,5-9”';
  const set = new Set();
  for (const part of text.split(',')) {
    const [a, b = a] = part.split('-').map(Number);
    if (b < a) return `has a backwards range “${part}”`;
    for (let t = a; t <= b; t++) set.add(t);
  }
  return [...set].sort((x, y) => x - y);
}

/** A list of indices made sorted, unique, whole and within 0..MAX_INDEX (what the state may hold). */
export function normaliseIndexList(list) {
  const set = new Set();
  for (const v of list || []) if (Number.isInteger(v) && v >= 0 && v <= MAX_INDEX) set.add(v);
  return [...set].sort((x, y) => x - y);
}

/** Rounds a temperature to 3 significant digits, so slider positions give short, stable URLs. */
export function roundT(t) {
  return Number(t.toPrecision(3));
}

/** The state as a hash string ("#q=…&score=…"); only fields that differ from the defaults are written. */
export function toHash(state) {
  const d = defaultState();
  const p = new URLSearchParams();
  for (const key of Object.keys(short)) {
    const v = state[key];
    if (key === 'cell') {
      if (v) p.set('cell', `${v[0]},${v[1]}`);
      continue;
    }
    if (key === 'row') {
      if (v !== null) p.set('row', String(v));
      continue;
    }
    if (key === 'rows' || key === 'cols') {
      if (v && v.length) p.set(key, formatIndexList(v));
      continue;
    }
    if (key === 'mhead') {
      if (v !== d.mhead) p.set(short[key], v);
      continue;
    }
    if (key === 'mknock') {
      if (v && v.length) p.set(short[key], v.join(','));
      continue;
    }
    // τ is written when the visitor chose it; a link without t has the scoring function's own τ.
    if (key === 't') {
      if (state.tset) p.set('t', String(v));
      continue;
    }
    // q and k are always written: a link should carry its sentences even when they are the defaults.
    if (key !== 'q' && key !== 'k' && v === d[key]) continue;
    if (key === 'k' && v === '' && state.q !== d.q) continue;
    if (typeof v === 'boolean') p.set(short[key], v ? '1' : '0');
    else p.set(short[key], String(v));
  }
  return '#' + p.toString();
}

function parseNumber(s) {
  if (typeof s !== 'string' || !/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(s)) return NaN;
  return Number(s);
}

/**
 * Reads a state from a hash (or query) string. Returns { state, problems } where problems lists
 * "field: why" for every field that was present but not valid (it then keeps its default).
 */
export function fromHash(hash) {
  const state = defaultState();
  const problems = [];
  const text = String(hash || '').replace(/^[#?]/, '');
  if (!text) return { state, problems, empty: true };
  let p;
  try {
    p = new URLSearchParams(text);
  } catch {
    return { state, problems: ['the link could not be read'], empty: false };
  }
  // A link says which cell is open; one that does not has none open.
  state.cell = null;
  // A link is anyone's text: what is echoed of it is cut short (20 characters of a key, 40 of a
  // value) and at most MAX_PROBLEMS problems are listed, so a link cannot make the page display a
  // sentence of its author's choosing, nor a notice of unbounded length.
  const cut = (text, n) => (text.length > n ? `${text.slice(0, n)}…` : text);
  const bad = (field, value, why) => problems.push(`${cut(String(field), 20)} “${cut(String(value), 40)}” ${why}`);
  const known = new Set([...Object.values(short), ...LEGACY]);
  for (const key of p.keys()) {
    if (!known.has(key)) bad(key, p.get(key), 'is not a setting of this page');
  }
  if (p.has('q')) {
    const q = p.get('q');
    if (q.length > MAX_TEXT) { state.q = q.slice(0, MAX_TEXT); bad('q', q.slice(0, 20) + '…', `was longer than ${MAX_TEXT} characters and was cut`); }
    else state.q = q;
    // A link with only a query means self-attention.
    state.k = '';
  }
  if (p.has('k')) {
    const k = p.get('k');
    state.k = k.slice(0, MAX_TEXT);
    if (k.length > MAX_TEXT) bad('k', k.slice(0, 20) + '…', `was longer than ${MAX_TEXT} characters and was cut`);
  }
  const choice = (field, list, into = field) => {
    if (!p.has(field)) return;
    const v = p.get(field);
    if (list.includes(v)) state[into] = v;
    else bad(field, v, `is not one of ${list.join(', ')}`);
  };
  choice('score', SCORE_NAMES);
  choice('engine', ENGINES);
  // The model's surgery: the old names (1-based heads) first, so that the new ones (0-based) win.
  choice('mswap', SCORE_NAMES);
  const headRange = (base) => `layers ${base}–${MODEL_LAYERS - 1 + base}, heads ${base}–${MODEL_HEADS - 1 + base}`;
  const headAt = (field, read, base) => {
    if (!p.has(field)) return;
    const h = read(p.get(field));
    if (h) state.mhead = h;
    else bad(field, p.get(field), `is not a head “layer.head” of the model (${headRange(base)})`);
  };
  const knockOf = (field, read, base) => {
    if (!p.has(field)) return;
    if (p.get(field) === '') { state.mknock = []; return; }
    const list = p.get(field).split(',').slice(0, MODEL_LAYERS * MODEL_HEADS + 1);
    const heads = list.map(read);
    if (list.length <= MODEL_LAYERS * MODEL_HEADS && heads.every(Boolean)) state.mknock = [...new Set(heads)].sort();
    else bad(field, p.get(field), `is not a list of heads “layer.head” of the model (${headRange(base)})`);
  };
  headAt('mhead', headOfLink, 1);
  knockOf('mknock', headOfLink, 1);
  choice('head-score', SCORE_NAMES, 'mswap');
  if (p.has('head-temperature')) {
    const t = parseNumber(p.get('head-temperature'));
    if (HEAD_TEMPERATURES.includes(t)) state.mtau = t;
    else bad('head-temperature', p.get('head-temperature'), `is not one of ${HEAD_TEMPERATURES.join(', ')}`);
  }
  headAt('model-head', headOfAPI, 0);
  knockOf('knock-out', headOfAPI, 0);
  choice('proj', PROJECTIONS);
  choice('mask', MASKS);
  choice('variant', VARIANTS);
  choice('values', VALUE_KINDS);
  if (p.has('t')) {
    const t = parseNumber(p.get('t'));
    if (Number.isFinite(t) && t >= T_MIN && t <= T_MAX) { state.t = roundT(t); state.tset = true; }
    else bad('t', p.get('t'), `is not a temperature between ${T_MIN} and ${T_MAX}`);
  }
  if (!state.tset) state.t = naturalT(state.score);
  if (p.has('heads')) {
    const h = parseNumber(p.get('heads'));
    if (HEAD_CHOICES.includes(h)) state.heads = h;
    else bad('heads', p.get('heads'), `is not one of ${HEAD_CHOICES.join(', ')}`);
  }
  if (p.has('seed')) {
    const s = parseNumber(p.get('seed'));
    if (Number.isInteger(s) && s >= 0 && s <= 0xffffffff) state.seed = s;
    else bad('seed', p.get('seed'), 'is not a whole number from 0 to 4294967295');
  }
  for (const flag of ['pos', 'exp']) {
    if (!p.has(flag)) continue;
    const v = p.get(flag);
    if (v === '1' || v === 'true') state[flag] = true;
    else if (v === '0' || v === 'false') state[flag] = false;
    else bad(flag, v, 'is not 0 or 1');
  }
  if (p.has('row')) {
    const m = /^\d{1,4}$/.exec(p.get('row'));
    if (m) state.row = Number(m[0]);   // checked against the token count later
    else bad('row', p.get('row'), 'is not a row number');
  }
  if (p.has('p')) {
    const v = parseNumber(p.get('p'));
    if (Number.isFinite(v) && v >= 0.5 && v <= 8) state.p = v;
    else bad('p', p.get('p'), 'is not an exponent between 0.5 and 8');
  }
  if (p.has('head')) {
    const h = parseNumber(p.get('head'));
    if (Number.isInteger(h) && h >= 0 && h < state.heads) state.head = h;
    else bad('head', p.get('head'), `is not a head number below ${state.heads}`);
  }
  if (p.has('cell')) {
    const m = /^(\d{1,4}),(\d{1,4})$/.exec(p.get('cell'));
    if (m) state.cell = [Number(m[1]), Number(m[2])];   // checked against the token counts later
    else bad('cell', p.get('cell'), 'is not “row,column”');
  }
  for (const field of ['rows', 'cols']) {
    if (!p.has(field)) continue;
    const list = parseIndexList(p.get(field));
    if (typeof list === 'string') bad(field, p.get(field), list);
    else state[field] = list;   // checked against the token counts later
  }
  if (problems.length > MAX_PROBLEMS) {
    const more = problems.length - (MAX_PROBLEMS - 1);
    problems.splice(MAX_PROBLEMS - 1, problems.length, `and ${more} more`);
  }
  return { state, problems, empty: false };
}
