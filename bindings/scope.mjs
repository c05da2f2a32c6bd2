// attnscope: the public JS API over the wasm module, shared by the split and single-file builds (see attnscope.d.ts for every shape).
// This layer validates arguments (errors name the argument and the fix), copies typed arrays into
// wasm memory and frees them in `finally`, and hands back copies, never views of the wasm heap.
//
// Names (scoring functions, variants, masks, projections, token kinds) come from the registry the
// wasm module carries (src/attnscope/registry.hpp), read once per instance: nothing here lists them.
// They cross the boundary as the module's Embind enums of the same lists, looked up by name.
// One wasm instance can hold many scopes: each AttnScope owns a ScopeState (its vocabulary) in the
// instance; scope.newScope() makes another on the same instance.

import { createSentencePiece } from './sentencepiece.mjs';

const MAX_TOKENS_LIMIT = 4096;
// The core's per-call memory limit (src/attnscope/limits.hpp, limits::kMaxFloats = 2^27 floats).
const MAX_CALL_BYTES = 4 * 2 ** 27;
const NO_NAMES = Object.freeze([]);
const QK = Object.freeze(['Q', 'K']), QKV = Object.freeze(['Q', 'K', 'V']), QKV_DO = Object.freeze(['Q', 'K', 'V', 'gradOutput']);
/** One array of a call, in bytes: within the per-array limit (so no size can wrap a 32-bit malloc). */
function checkBlock(bytes) {
  if (!(Number.isSafeInteger(bytes) && bytes >= 0 && bytes <= MAX_CALL_BYTES))
    throw new RangeError(`memory: ${bytes} bytes in one array is more than the limit of ${MAX_CALL_BYTES} (512 MiB per call, so it fits in the wasm heap); use smaller inputs`);
}

// A tiny module that uses one SIMD instruction: WebAssembly.validate() says whether the engine has SIMD.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0,
  65, 0, 253, 15, 253, 98, 11]);
export function engineHasSimd() {
  try { return WebAssembly.validate(SIMD_PROBE); } catch { return false; }
}

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node) &&
  typeof window === 'undefined';

// ---- loading assets: fetch (or read from disk in Node), then check what came back ------------------

// Node's file system, for file: URLs (Node's fetch cannot read them). The specifier is a variable and
// the import carries webpackIgnore/@vite-ignore, so no bundler follows it or warns about it ("Critical
// dependency"); browsers and workers never take this path.
async function nodeModule(name) {
  const specifier = 'node:' + name;
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
}

/**
 * The bytes at `url`, checked by `expect` (what the file should start with) before anyone uses them.
 * `what` names the asset for messages; `onProgress(loaded, total)` follows a download.
 */
async function readUrl(url, { what, expect, onProgress, fix = fixHint(what) } = {}) {
  let bytes, received;
  if (url.protocol === 'file:' && isNode) {
    const fs = await nodeModule('fs/promises');
    try {
      bytes = new Uint8Array(await fs.readFile(url));
    } catch (e) {
      throw new Error(`attnscope: could not read ${what} from ${url.href} (${e.code || e.message}); ${fix}`);
    }
    if (onProgress) onProgress(bytes.length, bytes.length);
    received = `a file of ${bytes.length} bytes`;
  } else {
    let response;
    try {
      response = await fetch(url);
    } catch (e) {
      throw new Error(`attnscope: could not fetch ${what} from ${url.href} (${e && e.message || e}); ${fix}`);
    }
    if (!response.ok) {
      throw new Error(`attnscope: could not load ${what} from ${url.href}: the server answered ${response.status} ${response.statusText || ''}`.trimEnd() +
        `; ${fix}`);
    }
    bytes = await readBody(response, onProgress);
    received = describeResponse(response, bytes);
  }
  if (expect && !startsWith(bytes, expect.bytes)) {
    throw new Error(`attnscope: ${url.href} should be ${what}, ${expect.kind}, but it is ${received}; ${fix}`);
  }
  return bytes;
}

async function readBody(response, onProgress) {
  const total = Number(response.headers.get('content-length')) || 0;
  if (!onProgress || !response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress(loaded, total);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const c of chunks) { bytes.set(c, offset); offset += c.length; }
  return bytes;
}

function startsWith(bytes, prefix) {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

// "an HTML page (text/html, status 200)": what a misconfigured server or a dev server's fallback sends.
function describeResponse(response, bytes) {
  const type = (response.headers.get('content-type') || '').split(';')[0].trim();
  const head = new TextDecoder().decode(bytes.subarray(0, 256)).trimStart().toLowerCase();
  const how = `${type || 'no content-type'}, status ${response.status}`;
  if (bytes.length === 0) return `empty (${how})`;
  if (head.startsWith('<!doctype html') || head.startsWith('<html') || type === 'text/html') return `an HTML page (${how}, ${bytes.length} bytes)`;
  if (head.startsWith('{') || head.startsWith('[') || type === 'application/json') return `JSON (${how}, ${bytes.length} bytes)`;
  const hex = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return `${bytes.length} bytes starting ${hex} (${how})`;
}

// What to do about a file that is not where the package looked for it.
function fixHint(file) {
  return `${file} is not at that URL: put the package's dist/${file} there, or say where it is with ` +
    `createAttnScope({ locateFile: (file) => \`https://your.host/path/\${file}\` })`;
}

const WASM_MAGIC = { bytes: [0x00, 0x61, 0x73, 0x6d], kind: 'a WebAssembly module (starting 00 61 73 6d)' };
const VOCAB_MAGIC = { bytes: Array.from('ATSVOCAB', (c) => c.charCodeAt(0)), kind: 'an attnscope vocabulary (starting "ATSVOCAB")' };

// A URL given as a string: absolute, or relative to the page (browsers, workers) or to the current
// directory (Node).
async function toUrl(value, name) {
  if (value instanceof URL) return value;
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name}: expected a URL or a URL string, got ${describe(value)}`);
  try { return new URL(value); } catch { /* relative */ }
  if (typeof location !== 'undefined' && location.href) return new URL(value, location.href);
  if (isNode) return (await nodeModule('url')).pathToFileURL((await nodeModule('path')).resolve(value));
  throw new TypeError(`${name}: '${value}' is relative and this environment has no page location; give an absolute URL`);
}

// ---- validation helpers: every message names the argument and what was expected ----------------

function checkInt(name, value, min, max) {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new TypeError(`${name}: expected an integer, got ${describe(value)}`);
  if (value < min || value > max) throw new RangeError(`${name}: expected an integer from ${min} to ${max}, got ${value}`);
  return value;
}
function checkNumber(name, value, { min = -Infinity, exclusiveMin = false, max = Infinity, hint = '' } = {}) {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`${name}: expected a finite number, got ${describe(value)}`);
  if ((exclusiveMin ? !(value > min) : !(value >= min)) || value > max) {
    const range = `${exclusiveMin ? '>' : '>='} ${min}${max < Infinity ? ` and <= ${max}` : ''}`;
    throw new RangeError(`${name}: expected a number ${range}${hint}, got ${value}`);
  }
  return value;
}
function checkEnum(name, value, allowed) {
  if (!allowed.includes(value)) throw new TypeError(`${name}: expected one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describe(value)}`);
  return allowed.indexOf(value);
}
// Typed arrays are measured by the engine's own getters (%TypedArray%.prototype's length and
// Symbol.toStringTag), never through the object's own properties: an array whose `length` or
// `byteLength` lies, a Proxy, or an object whose prototype was swapped cannot make this layer
// allocate less than the engine will copy into the heap.
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const taLength = Object.getOwnPropertyDescriptor(TypedArrayProto, 'length').get;
const taKind = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;  // undefined if not one
const typedKind = (v) => taKind.call(v);
const typedLength = (v) => taLength.call(v);
// How to turn what was given into the one flat, row-major Float32Array the calls take.
function float32Fix(name, value) {
  if (Array.isArray(value) && value.length > 0) {
    const row = value[0];
    if (Array.isArray(row)) {
      // Rows of numbers (a matrix as nested arrays): flatten them, row after row.
      const deeper = row.length > 0 && Array.isArray(row[0]);
      return `it is an array of arrays (rows); flatten it, row after row: new Float32Array(${name}.flat(${deeper ? 'Infinity' : ''}))`;
    }
    if (row !== null && typeof row === 'object' && ArrayBuffer.isView(row)) {
      // Rows that are typed arrays: .flat() leaves them as they are.
      return `it is an array of typed-array rows; copy them into one, row after row: ` +
        `Float32Array.from(${name}.flatMap((row) => Array.from(row)))`;
    }
  }
  return `wrap it: new Float32Array(${name})`;
}
function checkFloat32(name, value, shape) {
  if (typedKind(value) !== 'Float32Array') {
    if (Array.isArray(value) || ArrayBuffer.isView(value)) throw new TypeError(`${name}: expected a Float32Array ${shape}; ${float32Fix(name, value)}`);
    throw new TypeError(`${name}: expected a Float32Array ${shape}, got ${describe(value)}`);
  }
  return typedLength(value);
}
/**
 * As checkMatrix, but the finiteness of the elements is left to _withArrays (its `finite` list),
 * which checks them in wasm after copying them in: for the large inputs of the hot calls.
 */
function checkShape(name, value, length, shape) {
  const n = checkFloat32(name, value, shape);
  if (n !== length) throw new RangeError(`${name}: expected ${length} numbers ${shape}, got ${n}`);
  return value;
}
function nonFinite(name, value, i) {
  return new RangeError(`${name}: element ${i} is ${value[i]}; every element must be a finite number`);
}
function checkMatrix(name, value, length, shape) {
  const n = checkFloat32(name, value, shape);
  if (n !== length) throw new RangeError(`${name}: expected ${length} numbers ${shape}, got ${n}`);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(value[i])) throw new RangeError(`${name}: element ${i} is ${value[i]}; every element must be a finite number`);
  }
  return value;
}
function checkText(name, value) {
  if (typeof value !== 'string') throw new TypeError(`${name}: expected a string, got ${describe(value)}`);
  if (value.trim() === '') throw new RangeError(`${name}: expected text with at least one word, got an empty string`);
  return checkWellFormed(name, value);
}
// Emscripten's UTF-8 encoder pairs a lone surrogate with whatever code unit follows it, so the core
// would see (and return) characters that are not in the text: refuse such strings instead.
function checkWellFormed(name, value) {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = value.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) { i++; continue; }
    throw new RangeError(`${name}: lone UTF-16 surrogate at index ${i}, not valid Unicode; fix the text (e.g. ${name}.toWellFormed())`);
  }
  return value;
}
function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (typedKind(v)) return `a ${typedKind(v)} of length ${typedLength(v)}`;
  if (ArrayBuffer.isView(v)) return 'a DataView';
  if (typeof v === 'string') return `'${v.length > 40 ? v.slice(0, 40) + '…' : v}'`;
  return typeof v === 'object' ? 'an object' : String(v);
}
// The core fails only on the values it is handed (too many tokens, a matrix too small for the keys,
// invalid text), after this layer has checked the types: always a RangeError. Its messages name the
// argument first ("K: expected ..."); the C++ spellings of options are given their JS names.
const CPP_NAMES = [[/\bmax_tokens\b/g, 'maxTokens'], [/\bmax_keys\b/g, 'maxKeys'], [/\bd_q\b/g, 'd'], [/\bd_k\b/g, 'dk'],
  [/\bd_head\b/g, 'dHead'], [/\bd_value\b/g, 'dValue'], [/\bd_out\b/g, 'dOut']];
function coreError(message) {
  let m = message;
  for (const [cpp, js] of CPP_NAMES) m = m.replace(cpp, js);
  return new RangeError(m);
}
/** At most `max` characters of a text a caller handed in, for an error message (a 1 MB key stays out). */
function clip(text, max = 40) {
  const t = String(text);
  return t.length > max ? `${t.slice(0, max)}… (${t.length} characters)` : t;
}
function checkKnownKeys(name, options, allowed) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${name}: expected an options object, got ${describe(options)}`);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw new TypeError(`${name}.${clip(key)}: unknown option; expected one of ${allowed.join(', ')}`);
  }
  // Options are read as plain properties, so one inherited through a prototype (Object.create(o))
  // would be used while the check above sees only own keys: refuse it rather than half-accept it.
  for (const key in options) {
    if (!Object.prototype.hasOwnProperty.call(options, key))
      throw new TypeError(`${name}.${clip(key)}: inherited through the prototype chain, not an own property; pass a plain object (e.g. { ...${name} })`);
  }
}

// ---- the registry: every list of names, from the wasm module ------------------------------------

const registries = new WeakMap();
/** The module's registry (parsed once per instance), frozen all the way down. */
function registryOf(module) {
  let r = registries.get(module);
  if (!r) {
    r = deepFreeze(JSON.parse(module._registryJson()));
    registries.set(module, r);
  }
  return r;
}
function deepFreeze(x) {
  if (x && typeof x === 'object') { for (const v of Object.values(x)) deepFreeze(v); Object.freeze(x); }
  return x;
}
const names = (list) => list.map((x) => (typeof x === 'string' ? x : x.name));
/**
 * The Embind enums generated from the same lists (module.Score, .Mask, .Projection, .Variant),
 * keyed by the registry's names: what crosses the boundary is one of these (an int on the wire).
 */
/** The registry's names as arrays, and each score's entry by name: built once per instance. */
function listsOf(registry) {
  return {
    scores: names(registry.scores), masks: names(registry.masks),
    namedProjections: names(registry.projections).filter((n) => n !== 'user'),  // 'user' is the object form
    scoreInfo: new Map(registry.scores.map((s) => [s.name, s])),
  };
}
function enumsOf(module, registry) {
  const pick = (Enum, list) => Object.freeze(Object.fromEntries(names(list).map((n) => {
    if (!Enum[n]) throw new Error(`attnscope: the module has no enum value for '${n}' (a build mismatch)`);
    return [n, Enum[n]];
  })));
  const score = pick(module.Score, registry.scores), mask = pick(module.Mask, registry.masks);
  const variant = pick(module.Variant, registry.variants);
  // The same values as integers, for the plain exports of the hot calls (embind.cpp, "plain exports").
  const ints = (e) => Object.freeze(Object.fromEntries(Object.entries(e).map(([n, v]) => [n, v.value])));
  return {
    score, mask, projection: pick(module.Projection, registry.projections), variant,
    ints: Object.freeze({ score: ints(score), mask: ints(mask), variant: ints(variant) }),
  };
}
// The message a plain export returned: 0 = none, else the address of a NUL-terminated UTF-8 string
// that the core malloc'ed for us (freed here; a static fallback message lies outside the heap's
// allocations and is not freed: embind.cpp, message_or_null).
const utf8 = new TextDecoder();
const STATIC_MESSAGE = 'memory: the heap could not grow for an error message';
function exportMessage(module, ptr) {
  if (!ptr) return null;
  const heap = module.HEAPU8, start = ptr >>> 0;
  let end = start;
  while (heap[end] !== 0) end++;
  const message = utf8.decode(heap.subarray(start, end));
  if (message !== STATIC_MESSAGE) module._free(start);
  return message;
}

// ---- one validation function per option kind, shared by scores(), attention() and attend() ------
// `name` is the option's name as the caller wrote it ('options.score' for scores(), 'score' for attend()).

const SCORE_KEYS = ['score', 'p', 'eps', 'variant', 'W', 'W1', 'W2', 'v', 'hidden', 'Wa', 'maxKeys'];
// `lists`: the registry's names, listed once per instance (listsOf below).
function scoreOption(name, value, lists) {
  const score = value === undefined ? 'scaled-dot' : value;
  checkEnum(name, score, lists.scores);
  return score;
}
function temperatureOption(name, value) {
  return value === undefined ? 1 : checkNumber(name, value, { min: 0, exclusiveMin: true });
}
function maskOption(name, value, lists) {
  const mask = value === undefined ? 'none' : value;
  checkEnum(name, mask, lists.masks);
  return mask;
}
// attention()'s `returns`: which results to compute and copy out (default: all four).
const RESULT_PARTS = ['scores', 'weights', 'output', 'stats'];
const ALL_RESULT_PARTS = new Set(RESULT_PARTS);  // the default, shared (only read: has, size)
function returnsOption(name, value) {
  if (value === undefined) return ALL_RESULT_PARTS;
  if (!Array.isArray(value)) throw new TypeError(`${name}: expected an array of ${RESULT_PARTS.map((p) => `'${p}'`).join(', ')}, got ${describe(value)}`);
  if (value.length === 0) throw new RangeError(`${name}: ask for at least one of ${RESULT_PARTS.map((p) => `'${p}'`).join(', ')}`);
  for (const v of value) checkEnum(name, v, RESULT_PARTS);
  return new Set(value);
}
function paddingOption(name, value, n) {
  if (value === undefined) return null;
  const typed = typedKind(value) === 'Uint8Array';
  if (!typed && !Array.isArray(value)) throw new TypeError(`${name}: expected a Uint8Array or boolean[] with one entry per key`);
  const length = typed ? typedLength(value) : value.length;   // an array's length cannot lie
  if (length !== n) throw new RangeError(`${name}: expected ${n} entries (one per key), got ${length}`);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = value[i] ? 1 : 0;
  return out;
}
/** idw's p > 0 and eps >= 0 (read for every score: they are ScoreParams fields). */
function idwOptions(prefix, o) {
  return {
    p: o.p === undefined ? 2 : checkNumber(`${prefix}p`, o.p, { min: 0, exclusiveMin: true }),
    eps: o.eps === undefined ? 1e-3 : checkNumber(`${prefix}eps`, o.eps, { min: 0 }),
  };
}
/**
 * The score's matrices (ScoreParams' W; W1, W2, v, hidden; Wa, maxKeys), checked against their shapes.
 * dims: { dq, dk, nk } for scores()/attention(), where the matrices the registry lists for the score
 * are required; or { head: dh } for attend(), where any given matrix is checked against the head
 * dimension and missing ones are seeded in C++.
 * Returns { arrays: {W, W1, W2, v, Wa}, hidden, maxKeys }.
 */
function scoreWeights(prefix, o, score, info, dims) {
  const arrays = { W: null, W1: null, W2: null, v: null, Wa: null };
  let hidden = 0, maxKeys = 0;
  const seeded = dims.head !== undefined;
  const needs = (m) => (seeded ? o[m] !== undefined : info.matrices.includes(m));
  const dq = seeded ? dims.head : dims.dq, dk = seeded ? dims.head : dims.dk;
  const shape = seeded ? ' (head dimension)' : '';
  if (needs('W')) {
    if (!o.W) throw new TypeError(`${prefix}W: score '${score}' needs W, a Float32Array [${dq}, ${dk}]`);
    arrays.W = checkMatrix(`${prefix}W`, o.W, dq * dk, `[${dq}, ${dk}]${shape}`);
  }
  if (needs('W1') || needs('W2') || needs('v')) {
    if (!o.W1 || !o.W2 || !o.v) {
      throw new TypeError(seeded ? `${prefix}W1, W2, v: give all three additive weights, or none for seeded ones`
        : `${prefix}W1, W2, v: score '${score}' needs W1 [hidden, ${dq}], W2 [hidden, ${dk}] and v [hidden]`);
    }
    hidden = o.hidden === undefined ? o.v.length : checkInt(`${prefix}hidden`, o.hidden, 1, seeded ? 1 << 12 : 1 << 16);
    arrays.v = checkMatrix(`${prefix}v`, o.v, hidden, `[${hidden}]`);
    arrays.W1 = checkMatrix(`${prefix}W1`, o.W1, hidden * dq, `[${hidden}, ${dq}]`);
    arrays.W2 = checkMatrix(`${prefix}W2`, o.W2, hidden * dk, `[${hidden}, ${dk}]`);
  }
  if (needs('Wa')) {
    if (!o.Wa) throw new TypeError(`${prefix}Wa: score '${score}' needs Wa, a Float32Array [maxKeys >= ${dims.nk}, ${dq}]`);
    maxKeys = o.maxKeys === undefined ? Math.floor(o.Wa.length / Math.max(1, dq)) : checkInt(`${prefix}maxKeys`, o.maxKeys, 1, seeded ? 1 << 16 : 1 << 20);
    if (!seeded && maxKeys < dims.nk) throw new RangeError(`${prefix}Wa: has rows for ${maxKeys} key positions but there are ${dims.nk} keys; give at least ${dims.nk} rows of ${dq}`);
    arrays.Wa = checkMatrix(`${prefix}Wa`, o.Wa, maxKeys * dq, `[${maxKeys}, ${dq}]${shape}`);
  }
  return { arrays, hidden, maxKeys };
}
/** The ScoreParams value object Embind hands to C++ (addresses of the matrices copied into wasm memory). */
function scoreParams(idw, weights, ptrs) {
  return { p: idw.p, eps: idw.eps, W: ptrs.W || 0, W1: ptrs.W1 || 0, W2: ptrs.W2 || 0, v: ptrs.v || 0,
    hidden: weights.hidden, Wa: ptrs.Wa || 0, maxKeys: weights.maxKeys };
}

const NO_SCOPE = 'scope: this AttnScope was disposed; create a new one (createAttnScope or scope.newScope)';

class Scope {
  /**
   * instance: what the scopes of one wasm instance share: { module, registry, locate, smallVocabulary }.
   * state: this scope's ScopeState (its vocabulary), owned by this object.
   */
  constructor(instance, state, vocabName) {
    const module = instance.module;
    this._instance = instance;
    this._m = module;
    this._state = state;
    this.registry = instance.registry;
    this._enum = instance.enums;
    this._lists = instance.lists;
    this.scoreFunctions = this.registry.scores;
    const simd = module._simdIsa() !== 'none';
    const compiled = this.registry.variants.filter((v) => v.compiled && v.name !== 'auto').map((v) => v.name);
    // 'auto' first, then the fastest variant first (the manifest lists the scalar reference first).
    this.variants = Object.freeze({ available: ['auto', ...compiled.reverse()], simd, isa: simd ? `wasm simd128 (xsimd ${module._simdIsa()})` : 'scalar' });
    this._variant = 'auto';
    this._vocabName = vocabName;
  }

  get variant() { return this._variant; }
  set variant(v) { checkEnum('variant', v, this.variants.available); this._variant = v; }

  get vocabulary() {
    const s = this._live();
    return { size: s.vocabularySize(), dim: s.vocabularyDim(), name: this._vocabName };
  }

  memoryInUse() { return this._m._memoryInUse(); }

  /** Another scope on this scope's wasm instance, with its own vocabulary (default: the same kind). */
  async newScope(options = {}) {
    checkKnownKeys('options', options, ['vocabulary', 'preload', 'onProgress']);
    this._live();
    return scopeOn(this._instance, options.vocabulary, { preload: options.preload, onProgress: options.onProgress });
  }

  /** Frees this scope's vocabulary; the wasm instance stays for the other scopes on it. */
  dispose() {
    if (this._state) { this._state.delete(); this._state = null; }
  }

  _live() {
    if (!this._state) throw new Error(NO_SCOPE);
    return this._state;
  }

  // ---- memory helpers ----
  // One block of the wasm heap. _malloc takes a 32-bit size: a larger count would wrap (2^32 bytes
  // became 0), so sizes are checked here as JS numbers first, against the core's per-call limit.
  _alloc(bytes) {
    if (!(Number.isSafeInteger(bytes) && bytes >= 0 && bytes <= 4 * MAX_CALL_BYTES))
      throw new RangeError(`memory: ${bytes} bytes in one call is more than the limit of ${4 * MAX_CALL_BYTES} (the wasm heap is at most 2 GiB); use smaller inputs`);
    const ptr = this._m._malloc(Math.max(4, bytes));
    if (!ptr) throw new RangeError(`memory: the wasm heap could not grow by ${bytes} bytes (the engine refused memory); use smaller inputs`);
    return ptr;
  }
  // The core's memory and work budget for scores() (dv = 0) or attention(), before any allocation.
  _checkCost(score, nq, nk, d, dk, dv, hidden, outputOnly = false) {
    const err = exportMessage(this._m, this._m._attnscope_call_cost(this._enum.ints.score[score], nq, nk, d, dk, dv, hidden, outputOnly ? 1 : 0));
    if (err) throw coreError(err);
  }
  _withArrays(arrays, outputs, fn, finite = NO_NAMES) {
    // arrays: {name: Float32Array|Uint8Array|null}, outputs: {name: floatCount}; fn(ptrs) → copies;
    // finite: names of Float32Array inputs whose elements are checked here (in wasm) to be finite.
    // Every input and output of the call shares one block of the heap (each part 16-byte aligned):
    // one malloc and one free per call instead of one per array, which small calls feel.
    const ptrs = {};
    const parts = [];
    let total = 0;
    for (const [name, a] of Object.entries(arrays)) {
      if (!a) { ptrs[name] = 0; continue; }
      const kind = typedKind(a);   // the engine's view of the array (checked by the callers)
      if (kind !== 'Float32Array' && kind !== 'Uint8Array') throw new TypeError(`${name}: expected a Float32Array or Uint8Array`);
      const bytes = typedLength(a) * (kind === 'Float32Array' ? 4 : 1);
      checkBlock(bytes);
      parts.push(name, a, kind === 'Float32Array', total);
      total += (bytes + 15) & ~15;
    }
    for (const [name, n] of Object.entries(outputs)) {
      checkBlock(n * 4);
      parts.push(name, null, true, total);
      total += (n * 4 + 15) & ~15;
    }
    const base = this._alloc(total);
    try {
      const heap32 = this._m.HEAPF32, heap8 = this._m.HEAPU8;
      for (let i = 0; i < parts.length; i += 4) {
        const p = base + parts[i + 3], a = parts[i + 1];
        ptrs[parts[i]] = p;
        if (a) { if (parts[i + 2]) heap32.set(a, p >> 2); else heap8.set(a, p); }
      }
      if (finite.length) this._checkFinite(arrays, ptrs, finite);
      return fn(ptrs);
    } finally {
      this._m._free(base);
    }
  }
  // The Float32Array inputs named in `finite` (the first arrays of the block, in order) are checked in
  // one wasm call over their whole span: the alignment gaps between them are zeroed first, and an
  // element found non-finite is mapped back to its array and index for the message.
  _checkFinite(arrays, ptrs, finite) {
    const heap32 = this._m.HEAPF32;
    const first = ptrs[finite[0]] >> 2;
    let end = first;
    for (const name of finite) {
      const at = ptrs[name] >> 2;
      if (at !== end) heap32.fill(0, end, at);
      end = at + typedLength(arrays[name]);
    }
    const bad = this._m._attnscope_first_non_finite(first << 2, end - first);
    if (bad < 0) return;
    for (const name of finite) {
      const i = first + bad - (ptrs[name] >> 2);
      if (i >= 0 && i < typedLength(arrays[name])) throw nonFinite(name, arrays[name], i);
    }
    throw new Error(`attnscope: a non-finite value at ${bad} lies in no input (an internal error)`);
  }
  _read(ptr, n) { return this._m.HEAPF32.slice(ptr >> 2, (ptr >> 2) + n); }
  _variantOption(v) {
    const name = v === undefined ? this._variant : v;
    checkEnum('variant', name, this.variants.available);
    return name;
  }

  // ---- bring your own vectors ----
  // Shapes shared by scores() and attention(): nq, nk, d, dk (default d), then Q [nq, d] and K [nk, dk].
  _queryKeyShapes(Q, K, options) {
    const nq = checkInt('options.nq', options.nq, 1, 1 << 16);
    const nk = checkInt('options.nk', options.nk, 1, 1 << 16);
    const d = checkInt('options.d', options.d, 1, 1 << 16);
    const dk = options.dk === undefined ? d : checkInt('options.dk', options.dk, 1, 1 << 16);
    checkShape('Q', Q, nq * d, `[nq=${nq}, d=${d}]`);      // finite: checked by _withArrays
    checkShape('K', K, nk * dk, `[nk=${nk}, dk=${dk}]`);
    return { nq, nk, d, dk };
  }
  // The variant and the score with its parameters; keys narrower or wider than queries only where a
  // score's matrices map between them (the registry's needsWeights).
  _scoreAndVariant(options, d, dk, nk) {
    const variant = this._variantOption(options.variant);
    const score = scoreOption('options.score', options.score, this._lists);
    const idw = idwOptions('options.', options);
    const info = this._lists.scoreInfo.get(score);
    const weights = scoreWeights('options.', options, score, info, { dq: d, dk, nk });
    if (dk !== d && !info.needsWeights)
      throw new RangeError(`options.dk: score '${score}' needs keys as wide as queries (d=${d}), got dk=${dk}`);
    return { variant, score, idw, weights };
  }

  scores(Q, K, options) {
    checkKnownKeys('options', options, ['nq', 'nk', 'd', 'dk', ...SCORE_KEYS]);
    const { nq, nk, d, dk } = this._queryKeyShapes(Q, K, options);
    const { variant, score, idw, weights } = this._scoreAndVariant(options, d, dk, nk);
    this._checkCost(score, nq, nk, d, dk, 0, weights.hidden || 0);
    return this._withArrays({ Q, K, ...weights.arrays }, { S: nq * nk }, (ptrs) => {
      const e = this._enum.ints;
      const err = exportMessage(this._m, this._m._attnscope_scores(ptrs.Q, ptrs.K, nq, nk, d, dk, e.score[score], e.variant[variant],
        idw.p, idw.eps, ptrs.W || 0, ptrs.W1 || 0, ptrs.W2 || 0, ptrs.v || 0, weights.hidden, ptrs.Wa || 0, weights.maxKeys, ptrs.S));
      if (err) throw coreError(err);
      return this._read(ptrs.S, nq * nk);
    }, QK);
  }

  softmax(S, options) {
    checkKnownKeys('options', options, ['rows', 'cols', 'temperature', 'mask', 'keyPadding', 'variant']);
    const rows = checkInt('options.rows', options.rows, 1, 1 << 20);
    const cols = checkInt('options.cols', options.cols, 1, 1 << 20);
    const n = checkFloat32('S', S, '[rows, cols]');
    if (n !== rows * cols) throw new RangeError(`S: expected ${rows * cols} numbers [rows=${rows}, cols=${cols}], got ${n}`);
    if (2 * n > MAX_CALL_BYTES / 4) throw new RangeError(`memory: softmax of ${rows} x ${cols} needs ${2 * n} floats, more than the limit of ${MAX_CALL_BYTES / 4} (512 MiB per call); use fewer rows per call`);
    for (let i = 0; i < n; i++) if (Number.isNaN(S[i])) throw new RangeError(`S: element ${i} is NaN; scores may be ±Infinity (masked) but not NaN`);
    const temperature = temperatureOption('options.temperature', options.temperature);
    const mask = maskOption('options.mask', options.mask, this._lists);
    const padding = paddingOption('options.keyPadding', options.keyPadding, cols);
    const variant = this._variantOption(options.variant);
    return this._withArrays({ S, padding }, { A: rows * cols }, (ptrs) => {
      const e = this._enum;
      const err = this._m._softmax(ptrs.S, rows, cols, temperature, e.mask[mask], ptrs.padding, e.variant[variant], ptrs.A);
      if (err) throw coreError(err);
      return this._read(ptrs.A, rows * cols);
    });
  }

  // Shapes and options shared by attention() and attentionOutput(): validated once, the same way.
  _attentionInputs(Q, K, V, options, extraKeys) {
    checkKnownKeys('options', options, ['nq', 'nk', 'd', 'dk', 'dv', 'temperature', 'mask', 'keyPadding', ...SCORE_KEYS, ...extraKeys]);
    const { nq, nk, d, dk } = this._queryKeyShapes(Q, K, options);
    const dv = checkInt('options.dv', options.dv, 1, 1 << 16);
    checkShape('V', V, nk * dv, `[nk=${nk}, dv=${dv}]`);   // finite: checked by _withArrays
    const temperature = temperatureOption('options.temperature', options.temperature);
    const mask = maskOption('options.mask', options.mask, this._lists);
    const padding = paddingOption('options.keyPadding', options.keyPadding, nk);
    return { nq, nk, d, dk, dv, temperature, mask, padding, ...this._scoreAndVariant(options, d, dk, nk) };
  }

  attention(Q, K, V, options) { return this._attention(Q, K, V, options, 0); }
  attentionOutput(Q, K, V, options) { return this._attentionOutput(Q, K, V, options, 0); }

  // queryOffset (the pool's, never an option): the index of Q's first row in a longer query, which
  // only the causal mask reads (key j is hidden from row i when j > queryOffset + i): rows [r0, r1)
  // with queryOffset r0 give exactly those rows of the whole call.
  _attention(Q, K, V, options, queryOffset) {
    checkInt('queryOffset', queryOffset, 0, 1 << 16);
    const a = this._attentionInputs(Q, K, V, options, ['returns']);
    const { nq, nk, dv } = a;
    const want = returnsOption('options.returns', options.returns);
    const outputOnly = want.size === 1 && want.has('output');
    this._checkCost(a.score, nq, nk, a.d, a.dk, dv, a.weights.hidden || 0, outputOnly);
    // Only what is asked for gets a buffer; the core skips the work of the rest (no buffer = 0).
    const outputs = {};
    if (want.has('scores')) outputs.S = nq * nk;
    if (want.has('weights')) outputs.A = nq * nk;
    if (want.has('output')) outputs.O = nq * dv;
    if (want.has('stats')) outputs.stats = 3 * nq;
    return this._withArrays({ Q, K, V, padding: a.padding, ...a.weights.arrays }, outputs, (ptrs) => {
      const e = this._enum.ints, w = a.weights;
      const err = exportMessage(this._m, this._m._attnscope_attention(ptrs.Q, ptrs.K, ptrs.V, nq, nk, a.d, a.dk, dv, e.score[a.score],
        e.variant[a.variant], a.idw.p, a.idw.eps, ptrs.W || 0, ptrs.W1 || 0, ptrs.W2 || 0, ptrs.v || 0, w.hidden, ptrs.Wa || 0,
        w.maxKeys, a.temperature, e.mask[a.mask], ptrs.padding || 0, ptrs.S || 0, ptrs.A || 0, ptrs.O || 0, ptrs.stats || 0,
        queryOffset));
      if (err) throw coreError(err);
      // The parts asked for lie in order in one block of the heap: one copy of it comes out, and the
      // result's arrays are views of that copy (as attend()'s are), which small calls feel.
      const parts = [['scores', ptrs.S, nq * nk], ['weights', ptrs.A, nq * nk], ['output', ptrs.O, nq * dv], ['stats', ptrs.stats, 3 * nq]]
        .filter((x) => x[1]);
      const first = parts[0][1], lastPart = parts[parts.length - 1];
      const block = this._read(first, ((lastPart[1] - first) >> 2) + lastPart[2]);
      const result = {};
      for (const [name, p, n] of parts) {
        const v = block.subarray((p - first) >> 2, ((p - first) >> 2) + n);
        result[name] = name !== 'stats' ? v
          : { entropy: v.subarray(0, nq), maxWeight: v.subarray(nq, 2 * nq), argmax: Uint32Array.from(v.subarray(2 * nq)) };
      }
      result.variant = this._instance.resolvedVariants[a.variant];
      return result;
    }, QKV);
  }

  _attentionOutput(Q, K, V, options, queryOffset) {
    checkInt('queryOffset', queryOffset, 0, 1 << 16);
    const a = this._attentionInputs(Q, K, V, options, []);
    const { nq, nk, dv } = a;
    this._checkCost(a.score, nq, nk, a.d, a.dk, dv, a.weights.hidden || 0, true);
    return this._withArrays({ Q, K, V, padding: a.padding, ...a.weights.arrays }, { O: nq * dv }, (ptrs) => {
      const e = this._enum.ints, w = a.weights;
      const err = exportMessage(this._m, this._m._attnscope_attention_output(ptrs.Q, ptrs.K, ptrs.V, nq, nk, a.d, a.dk, dv,
        e.score[a.score], e.variant[a.variant], a.idw.p, a.idw.eps, ptrs.W || 0, ptrs.W1 || 0, ptrs.W2 || 0, ptrs.v || 0,
        w.hidden, ptrs.Wa || 0, w.maxKeys, a.temperature, e.mask[a.mask], ptrs.padding || 0, ptrs.O, queryOffset));
      if (err) throw coreError(err);
      return this._read(ptrs.O, nq * dv);
    }, QKV);
  }

  /**
   * Gradients of L through O = attention(Q, K, V, options).output, given gradOutput = dL/dO [nq, dv]:
   * { dQ, dK, dV } and the score's own parameter gradients (dW; dW1, dW2, dv; dWa). Same options,
   * checks and limits as attention(); the forward is recomputed inside (nothing is kept between calls).
   */
  attentionBackward(Q, K, V, gradOutput, options) {
    const a = this._attentionInputs(Q, K, V, options, []);
    const { nq, nk, d, dk, dv } = a;
    checkShape('gradOutput', gradOutput, nq * dv, `[nq=${nq}, dv=${dv}] (dL/dO, shaped like the output)`);  // finite: checked by _withArrays
    const hidden = a.weights.hidden || 0;
    const err0 = this._m._backwardCost(a.score, nq, nk, d, dk, dv, hidden);
    if (err0) throw coreError(err0);
    const outputs = { dQ: nq * d, dK: nk * dk, dV: nk * dv };
    if (a.score === 'general') outputs.dW = d * dk;
    if (a.score === 'additive') { outputs.dW1 = hidden * d; outputs.dW2 = hidden * dk; outputs.dv = hidden; }
    if (a.score === 'location') outputs.dWa = a.weights.maxKeys * d;
    return this._withArrays({ Q, K, V, gradOutput, padding: a.padding, ...a.weights.arrays }, outputs, (ptrs) => {
      const e = this._enum;
      const err = this._m._attentionBackward(ptrs.Q, ptrs.K, ptrs.V, nq, nk, d, dk, dv, e.score[a.score], e.variant[a.variant],
        scoreParams(a.idw, a.weights, ptrs), a.temperature, e.mask[a.mask], ptrs.padding || 0, ptrs.gradOutput,
        ptrs.dQ, ptrs.dK, ptrs.dV, ptrs.dW || 0, ptrs.dW1 || 0, ptrs.dW2 || 0, ptrs.dv || 0, ptrs.dWa || 0);
      if (err) throw coreError(err);
      const result = {};
      for (const [name, n] of Object.entries(outputs)) result[name] = this._read(ptrs[name], n);
      result.variant = this._instance.resolvedVariants[a.variant];
      return result;
    }, QKV_DO);
  }

  /** A trainer of one attention head (see Trainer below and attnscope.d.ts). */
  createTrainer(options) {
    return new Trainer(this, options);
  }

  // ---- text ----
  tokenize(text, options = {}) {
    if (typeof text !== 'string') throw new TypeError(`text: expected a string, got ${describe(text)}`);
    checkWellFormed('text', text);
    checkKnownKeys('options', options, ['maxTokens']);
    const maxTokens = options.maxTokens === undefined ? 512 : checkInt('options.maxTokens', options.maxTokens, 1, MAX_TOKENS_LIMIT * 16);
    this._requireVocabulary('tokenize');  // each token says whether the vocabulary has it
    const r = JSON.parse(this._live().tokenizeJson(text, maxTokens));
    if (r.error) throw coreError(r.error);
    return r.tokens;
  }

  // Calls that need the word vectors (attend, embed, nearest, tokenize) stay synchronous: a vocabulary
  // still to be downloaded makes them throw, naming the fix (see scopeOn below).
  _requireVocabulary(caller) {
    if (this._live().vocabularySize() === 0) this._vocabLoader.requireNow(caller);
  }

  loadVocabulary(...args) {
    // The file is chosen when the scope is made; an argument here would be silently ignored.
    if (args.length > 0 && args[0] !== undefined) {
      return Promise.reject(new TypeError('loadVocabulary() takes no argument: pass the vocabulary when you make the scope, ' +
        'createAttnScope({ vocabulary }) or scope.newScope({ vocabulary })'));
    }
    return this._vocabLoader.load();
  }

  /**
   * Loads a trained model (default: the shipped USE-Lite file, use-lite.bin, found next to the module
   * like the vocabulary). options.model: 'default', the file's bytes (Uint8Array | ArrayBuffer), or
   * its URL; options.onProgress(loaded, total) follows the download. Resolves to a Model that lives on
   * this scope's wasm instance until model.dispose().
   */
  async loadModel(options = {}) {
    checkKnownKeys('options', options, ['model', 'onProgress']);
    this._live();
    const { onProgress } = options;
    if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError(`options.onProgress: expected a function, got ${describe(onProgress)}`);
    const source = options.model === undefined ? 'default' : options.model;
    let bytes, label;
    if (source === 'default') {
      if (!this._instance.canLocate(MODEL_FILE)) {
        throw new TypeError(`options.model: this build does not ship ${MODEL_FILE} (the single-file build carries no model); ` +
          `pass its URL or bytes as options.model, or use locateFile, or import 'attnscope' (the split build)`);
      }
      const url = await this._instance.locate(MODEL_FILE);
      bytes = await readUrl(url, { what: MODEL_FILE, expect: MODEL_MAGIC, onProgress });
      label = `attnscope: ${url.href}`;
    } else if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
      bytes = new Uint8Array(source);
      label = 'options.model';
    } else if ((typeof source === 'string' && source !== '') || source instanceof URL) {
      const url = await toUrl(source, 'options.model');
      bytes = await readUrl(url, { what: 'the model file', expect: MODEL_MAGIC, onProgress, fix: 'check the URL given as options.model' });
      label = `attnscope: ${url.href}`;
    } else {
      throw new TypeError(`options.model: expected 'default', a Uint8Array or ArrayBuffer of a model file, or its URL, got ${describe(source)}`);
    }
    const m = this._m;
    const state = new m.ModelState();
    try {
      const ptr = m._malloc(bytes.length);
      if (!ptr) throw new RangeError(`${label}: out of wasm memory for ${bytes.length} bytes`);
      try {
        m.HEAPU8.set(bytes, ptr);
        const err = state.load(ptr, bytes.length);
        if (err) throw (label === 'options.model' ? new RangeError(`options.model: ${err}`) : new Error(`${label}: ${err}`));
      } finally {
        m._free(ptr);
      }
    } catch (e) {
      state.delete();
      throw e;
    }
    return new Model(this, state);
  }

  embed(word) {
    if (typeof word !== 'string' || word === '') throw new TypeError(`word: expected a non-empty string, got ${describe(word)}`);
    checkWellFormed('word', word);
    this._requireVocabulary('embed');
    const state = this._state;
    const dim = state.vocabularyDim();
    return this._withArrays({}, { out: dim }, (ptrs) => {
      const entry = state.embed(word, ptrs.out);
      return { vector: this._read(ptrs.out, dim), oov: entry < 0, vocabWord: entry < 0 ? null : state.vocabularyWord(entry) };
    });
  }

  nearest(wordOrVector, k = 10) {
    this._requireVocabulary('nearest');
    checkInt('k', k, 1, 1000);
    const dim = this._state.vocabularyDim();
    const vector = typeof wordOrVector === 'string' ? this.embed(wordOrVector).vector
      : checkMatrix('wordOrVector', wordOrVector, dim, `[${dim}]`);
    return this._withArrays({ vector }, {}, (ptrs) => JSON.parse(this._state.nearestJson(ptrs.vector, k)));
  }

  // ---- the sentence pipeline ----
  attend(options) { return this._attend(options, 0, 0); }

  // attend()'s options checked and converted, for _attend and _attendOutput.
  _attendInputs(options) {
    checkKnownKeys('options', options, ['query', 'keys', 'score', 'temperature', 'heads', 'projection', 'seed', 'positional',
      'mask', 'p', 'eps', 'variant', 'maxTokens', 'experimentalScaledOutput', 'W', 'W1', 'W2', 'v', 'hidden', 'Wa', 'maxKeys']);
    const query = checkText('query', options.query);
    const cross = options.keys !== undefined && options.keys !== null;
    const keys = cross ? checkText('keys', options.keys) : '';
    this._requireVocabulary('attend');
    const state = this._state;
    const d = state.vocabularyDim();
    const temperature = temperatureOption('temperature', options.temperature);
    const heads = options.heads === undefined ? 1 : checkInt('heads', options.heads, 1, d);
    const seed = options.seed === undefined ? 1 : checkInt('seed', options.seed, 0, 0xffffffff);
    const maxTokens = options.maxTokens === undefined ? 512 : checkInt('maxTokens', options.maxTokens, 1, MAX_TOKENS_LIMIT);
    const mask = maskOption('mask', options.mask, this._lists);
    const variant = this._variantOption(options.variant);
    const positional = !!options.positional;
    const experimentalScaledOutput = !!options.experimentalScaledOutput;

    // Projections: a name from the registry (except 'user', which is the object form), or matrices.
    let projection = 'identity';
    const proj = { Wq: null, Wk: null, Wv: null, Wo: null };
    let dHead = 0, dValue = 0, dOut = 0;
    const named = this._lists.namedProjections;
    if (options.projection === undefined || typeof options.projection === 'string') {
      if (options.projection !== undefined) { checkEnum('projection', options.projection, named); projection = options.projection; }
    } else if (options.projection && typeof options.projection === 'object') {
      projection = 'user';
      const u = options.projection;
      dHead = checkInt('projection.dHead', u.dHead, 1, 1 << 12);
      dValue = checkInt('projection.dValue', u.dValue, 1, 1 << 12);
      proj.Wq = checkMatrix('projection.Wq', u.Wq, d * heads * dHead, `[${d}, heads*dHead=${heads * dHead}]`);
      proj.Wk = checkMatrix('projection.Wk', u.Wk, d * heads * dHead, `[${d}, heads*dHead=${heads * dHead}]`);
      proj.Wv = checkMatrix('projection.Wv', u.Wv, d * heads * dValue, `[${d}, heads*dValue=${heads * dValue}]`);
      if (u.Wo !== undefined) {
        dOut = checkInt('projection.dOut', u.dOut, 1, 1 << 12);
        proj.Wo = checkMatrix('projection.Wo', u.Wo, heads * dValue * dOut, `[heads*dValue=${heads * dValue}, dOut=${dOut}]`);
      }
    } else {
      throw new TypeError(`projection: expected ${named.map((n) => `'${n}'`).join(', ')} or an object {Wq, Wk, Wv, dHead, dValue}, got ${describe(options.projection)}`);
    }

    // Score weights given by the caller apply to every head; their size follows the head dimension.
    const score = scoreOption('score', options.score, this._lists);
    const idw = idwOptions('', options);
    let weights = { arrays: {}, hidden: 0, maxKeys: 0 };
    if (['W', 'W1', 'W2', 'v', 'Wa'].some((k) => options[k] !== undefined)) {
      const dh = projection === 'user' ? dHead : projection === 'random' ? Math.max(1, Math.floor(d / heads)) : (d % heads === 0 ? d / heads : 0);
      if (!dh) throw new RangeError(`heads: with your own score weights and the identity projection, heads must divide ${d}`);
      weights = scoreWeights('', options, score, null, { head: dh });
    }

    const e = this._enum;
    const core = (ptrs, headBegin, headEnd) => ({
      score: e.score[score], params: scoreParams(idw, weights, ptrs), temperature, heads, projection: e.projection[projection],
      seed, positional, mask: e.mask[mask], variant: e.variant[variant],
      maxTokens, experimentalScaledOutput, Wq: ptrs.Wq, Wk: ptrs.Wk, Wv: ptrs.Wv, Wo: ptrs.Wo, dHead, dValue, dOut, headBegin, headEnd,
    });
    return { state, query, keys, cross, d, heads, score, temperature, variant, arrays: { ...proj, ...weights.arrays }, core };
  }

  // The pool's (never options): heads [headBegin, headEnd) only (headEnd 0 = every head). The result
  // then holds those heads, and its output is their outputs side by side (dOut their width):
  // _attendOutput turns the joined heads into attend()'s output.
  _attend(options, headBegin, headEnd) {
    const a = this._attendInputs(options);
    checkInt('headBegin', headBegin, 0, a.heads);
    checkInt('headEnd', headEnd, 0, a.heads);
    const t0 = now();
    return this._withArrays(a.arrays, {}, (ptrs) => {
      const res = a.state.attend(a.query, a.keys, a.cross, a.core(ptrs, headBegin, headEnd));
      if (res.error) throw coreError(res.error);
      const timeMs = now() - t0;
      return unpackAttend(res, a.d, a.score, a.temperature, this._instance.resolvedVariants[a.variant], timeMs);
    });
  }

  /** attend()'s output from every head's output side by side (concat [nq, cols]): { output, dOut }. */
  _attendOutput(options, concat, nq, cols) {
    const a = this._attendInputs(options);
    checkShape('concat', concat, nq * cols, `[nq=${nq}, cols=${cols}]`);
    return this._withArrays({ ...a.arrays, concat }, {}, (ptrs) => {
      const res = a.state.attendOutput(ptrs.concat, nq, cols, a.core(ptrs, 0, 0));
      if (res.error) throw coreError(res.error);
      return { output: res.data, dOut: res.dOut };
    });
  }

  // ---- your model's attention (stateless: nothing stays in the instance) ----

  /**
   * Loads attention exported from a model: .npy / .npz / .safetensors bytes, JSON text or bytes, or an
   * object { tokens, keyTokens?, attentions: nested arrays }. Parsed and validated in C++ (the JSON
   * route is parsed here and validated there by the same rules). See attnscope.d.ts.
   */
  loadAttentions(input, options = {}) {
    checkKnownKeys('options', options, ['tokens', 'keyTokens', 'format', 'softmax']);
    if (options.format !== undefined) checkEnum('options.format', options.format, IMPORT_FORMATS);
    let tokens = options.tokens === undefined ? null : tokenList('options.tokens', options.tokens);
    let keyTokens = options.keyTokens === undefined ? null : tokenList('options.keyTokens', options.keyTokens);
    const softmax = !!options.softmax;
    let bytes = null;
    if (input instanceof ArrayBuffer) bytes = new Uint8Array(input);
    else if (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer) bytes = new Uint8Array(input);
    else if (input instanceof Uint8Array) bytes = input;
    else if (ArrayBuffer.isView(input)) throw new TypeError(`input: expected the file's bytes as a Uint8Array or ArrayBuffer, got ${describe(input)}; pass new Uint8Array(x.buffer, x.byteOffset, x.byteLength)`);
    let format = options.format;
    if (bytes && !format) format = sniffFormat(bytes);
    let object = null;
    if (typeof input === 'string') object = parseJsonInput(input);
    else if (bytes && format === 'json') object = parseJsonInput(new TextDecoder('utf-8', { fatal: false }).decode(bytes));
    else if (!bytes) {
      if (input === null || typeof input !== 'object' || Array.isArray(input))
        throw new TypeError(`input: expected file bytes (Uint8Array), JSON text or { tokens, attentions }, got ${describe(input)}`);
      object = input;
    }
    let floats, shape = '';
    if (object) {
      checkKnownKeys('input', object, ['tokens', 'keyTokens', 'attentions']);
      if (!tokens && object.tokens !== undefined) tokens = tokenList('input.tokens', object.tokens);
      if (!keyTokens && object.keyTokens !== undefined) keyTokens = tokenList('input.keyTokens', object.keyTokens);
      const flat = flattenNested('input.attentions', object.attentions);
      floats = new Uint8Array(flat.values.buffer);
      shape = flat.shape.join(',');
      format = 'json';
    } else if (!bytes) {
      throw new TypeError('input: expected file bytes, JSON text or an object');
    }
    const m = this._m;
    const data = floats || bytes;
    return this._withArrays({ data }, {}, (ptrs) => {
      const res = m._loadAttentions(format === 'json' ? 'f32' : format, ptrs.data, data.length, shape,
        tokens ? JSON.stringify(tokens) : '', keyTokens ? JSON.stringify(keyTokens) : '', softmax);
      if (res.error) throw coreError(res.error);
      const meta = JSON.parse(res.meta);
      return { format, layers: meta.layers, heads: meta.heads, nq: meta.nq, nk: meta.nk, tokens: meta.tokens,
        keyTokens: meta.keyTokens, attentions: res.data, warnings: meta.warnings };
    });
  }

  /**
   * Attention rollout (Abnar & Zuidema 2020) of self-attention [layers, heads, n, n] → Float32Array [n, n].
   * residual (default 0.5) is the weight of the identity: Ā = residual·I + (1 − residual)·A, rows renormalised.
   */
  rollout(attentions, options) {
    const { layers, heads, n, residual, mode, index } = stackOptions(attentions, options, (l, h, t) => this._m._rolloutCost(l, h, t));
    return this._withArrays({ attentions }, { out: n * n }, (ptrs) => {
      const err = this._m._rollout(ptrs.attentions, layers, heads, n, residual, mode, index, ptrs.out);
      if (err) throw coreError(err);
      return this._read(ptrs.out, n * n);
    });
  }

  /**
   * Attention flow (Abnar & Zuidema 2020) of self-attention [layers, heads, n, n] → Float32Array [n, n]:
   * flow[i, j] is the max-flow from (layers, i) to (0, j) through edges of capacity Ā (rollout's matrices,
   * same options). Exact (closed forms for 1 and 2 layers, Dinic beyond); refused over a work limit
   * (kMaxFlowWork in src/attnscope/flow.hpp: 2 layers up to 812 tokens, 3 up to 53, 12 up to 30) and the
   * call budget of every method. See docs/flow.md.
   */
  attentionFlow(attentions, options) {
    const { layers, heads, n, residual, mode, index } = stackOptions(attentions, options, (l, h, t) => this._m._attentionFlowCost(l, h, t));
    return this._withArrays({ attentions }, { out: n * n }, (ptrs) => {
      const err = this._m._attentionFlow(ptrs.attentions, layers, heads, n, residual, mode, index, ptrs.out);
      if (err) throw coreError(err);
      return this._read(ptrs.out, n * n);
    });
  }

  /** Per layer and head: mean row entropy (nats), largest weight, mean row maximum; each Float32Array [layers, heads]. */
  headSummaries(attentions, options) {
    checkKnownKeys('options', options, ['layers', 'heads', 'nq', 'nk']);
    const layers = checkInt('options.layers', options.layers, 1, 1024);
    const heads = checkInt('options.heads', options.heads, 1, 1024);
    const nq = checkInt('options.nq', options.nq, 1, 4096);
    const nk = checkInt('options.nk', options.nk, 1, 4096);
    if (layers * heads * nq * nk > MAX_ATTENTION_VALUES) throw new RangeError(`attentions: over the limit of ${MAX_ATTENTION_VALUES} numbers`);
    checkMatrix('attentions', attentions, layers * heads * nq * nk, `[layers=${layers}, heads=${heads}, nq=${nq}, nk=${nk}]`);
    const lh = layers * heads;
    return this._withArrays({ attentions }, { out: 3 * lh }, (ptrs) => {
      const err = this._m._headSummaries(ptrs.attentions, layers, heads, nq, nk, ptrs.out);
      if (err) throw coreError(err);
      const o = this._read(ptrs.out, 3 * lh);
      return { entropy: o.slice(0, lh), max: o.slice(lh, 2 * lh), meanMax: o.slice(2 * lh) };
    });
  }
}

// ---- the head trainer (src/attnscope/trainer.hpp) ---------------------------------------------

const TRAINER_KEYS = ['data', 'dIn', 'dHead', 'positions', 'dPos', 'maxLen', 'score', 'p', 'eps', 'hidden', 'temperature',
  'mask', 'learningRate', 'batch', 'seed', 'variant', 'output'];
const TRAINER_POSITIONS = ['none', 'add', 'concat'];
const TRAINER_OUTPUTS = ['none', 'value', 'scaled'];
const NO_TRAINER = 'trainer: this Trainer was disposed; create a new one with scope.createTrainer()';

/** lengths as a Uint32Array: a Uint32Array or an array of integers from 1 to maxLen. */
function lengthsOption(name, value, maxLen) {
  const typed = typedKind(value) === 'Uint32Array';
  if (!typed && !Array.isArray(value)) throw new TypeError(`${name}: expected a Uint32Array or number[] of sentence lengths, got ${describe(value)}`);
  const n = typed ? typedLength(value) : value.length;
  if (n === 0) throw new RangeError(`${name}: expected at least one sentence`);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = checkInt(`${name}[${i}]`, value[i], 1, maxLen);
  return out;
}
/** targets as an Int32Array: one per token, -1 (none) or the index of a key in its sentence. */
function targetsOption(name, value, tokens) {
  const typed = typedKind(value) === 'Int32Array';
  if (!typed && !Array.isArray(value)) throw new TypeError(`${name}: expected an Int32Array or number[] (one target per token, -1 = none), got ${describe(value)}`);
  const n = typed ? typedLength(value) : value.length;
  if (n !== tokens) throw new RangeError(`${name}: expected ${tokens} entries (one per token, the sum of lengths), got ${n}`);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = checkInt(`${name}[${i}]`, value[i], -1, 1 << 20);
  return out;
}

// An integer array's bytes, as _withArrays copies them (malloc's blocks are 8-byte aligned).
const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

const MODEL_FILE = 'use-lite.bin';
const MODEL_MAGIC = { bytes: Array.from('ATSMODEL', (c) => c.charCodeAt(0)), kind: 'an attnscope model file (starting "ATSMODEL")' };
const NO_MODEL = 'model: this Model was disposed; load another with scope.loadModel()';

/**
 * A trained transformer (USE-Lite) run by the scope's kernels. encode() gives every layer's and head's
 * attention and the sentence embedding; options re-score heads with any scoring function of the
 * registry and knock heads out (see attnscope.d.ts).
 */
class Model {
  constructor(scope, state) {
    this._scope = scope;
    this._state = state;
    this.name = 'use-lite';
    this.layers = state.layers();
    this.heads = state.heads();
    this.maxTokens = state.maxTokens();
    this.dim = state.outputDim();
    this.headDims = Object.freeze(Array.from({ length: this.layers }, (_, l) => state.headDim(l)));
    this.vocabularySize = state.vocabularyRows();
    this._pieces = null;
  }

  /** The SentencePiece vocabulary the ids index: [piece, log-probability | null][] (frozen). */
  get vocabulary() {
    this._pieces ??= deepFreeze(JSON.parse(this._live().piecesJson()));
    return this._pieces;
  }

  _live() {
    if (!this._state) throw new Error(NO_MODEL);
    this._scope._live();
    return this._state;
  }

  /** 'L.H' labels of every head, layer-major. */
  _labels() {
    const out = [];
    for (let l = 0; l < this.layers; l++) for (let h = 0; h < this.heads; h++) out.push(`${l}.${h}`);
    return out;
  }
  _headIndex(name, label) {
    const m = typeof label === 'string' ? /^(\d+)\.(\d+)$/.exec(label) : null;
    const valid = `'L.H' with layer L from 0 to ${this.layers - 1} and head H from 0 to ${this.heads - 1} (e.g. '1.2')`;
    if (!m) throw new (typeof label === 'string' ? RangeError : TypeError)(`${name}: expected a head label ${valid}, got ${describe(label)}`);
    const l = Number(m[1]), h = Number(m[2]);
    if (l >= this.layers || h >= this.heads) throw new RangeError(`${name}: head '${label}' is out of range; expected ${valid}`);
    return l * this.heads + h;
  }
  /** The options of encode(): { scores: '' | names joined by ',', ablate: '' | '0'/'1' per head, variant }. */
  _surgery(options) {
    checkKnownKeys('options', options, ['score', 'ablate', 'variant']);
    const scope = this._scope, names = scope._lists.scores, count = this.layers * this.heads;
    const checkName = (name, value) => {
      if (typeof value !== 'string' || !names.includes(value)) {
        const E = typeof value === 'string' ? RangeError : TypeError;
        throw new E(`${name}: expected one of ${names.map((n) => `'${n}'`).join(', ')}, got ${describe(value)}`);
      }
      return value;
    };
    let scores = '';
    const s = options.score;
    if (typeof s === 'string') {
      scores = Array(count).fill(checkName('options.score', s)).join(',');
    } else if (s !== undefined) {
      if (s === null || typeof s !== 'object' || Array.isArray(s)) {
        throw new TypeError(`options.score: expected a scoring function's name or an object { 'L.H': name }, got ${describe(s)}`);
      }
      const per = Array(count).fill('scaled-dot');
      for (const [label, value] of Object.entries(s)) per[this._headIndex(`options.score['${label}']`, label)] = checkName(`options.score['${label}']`, value);
      scores = per.join(',');
    }
    let ablate = '';
    if (options.ablate !== undefined) {
      if (!Array.isArray(options.ablate)) throw new TypeError(`options.ablate: expected an array of head labels 'L.H', got ${describe(options.ablate)}`);
      const flags = Array(count).fill('0');
      options.ablate.forEach((label, i) => { flags[this._headIndex(`options.ablate[${i}]`, label)] = '1'; });
      ablate = flags.join('');
    }
    const variant = scope._variantOption(options.variant);
    return { scores, ablate, variant };
  }

  /**
   * The model on token ids (numbers in [0, vocabularySize)): as encode(), with tokens the ids' pieces.
   * More than maxTokens ids are cut (truncated: true).
   */
  encodeIds(ids, options = {}) {
    const state = this._live();
    let arr;
    if (typedKind(ids) === 'Int32Array') arr = Int32Array.from(ids);
    else if (Array.isArray(ids)) arr = Int32Array.from(ids, (v, i) => checkInt(`ids[${i}]`, v, 0, this.vocabularySize - 1));
    else throw new TypeError(`ids: expected an Int32Array or an array of token ids, got ${describe(ids)}`);
    if (arr.length === 0) throw new RangeError('ids: expected at least one token id');
    const o = this._surgery(options);
    const m = this._scope._m;
    const ptr = m._malloc(Math.max(4, arr.length * 4));
    if (!ptr) throw new RangeError(`ids: out of wasm memory for ${arr.length} ids`);
    let r;
    try {
      m.HEAP32.set(arr, ptr >> 2);
      r = state.encode(ptr, arr.length, o.scores, o.ablate, this._scope._enum.variant[o.variant]);
    } finally {
      m._free(ptr);
    }
    if (r.error) throw coreError(r.error);
    const n = r.n, size = this.layers * this.heads * n * n;
    const pieces = this.vocabulary;
    const used = arr.subarray(0, n);
    return {
      tokens: Array.from(used, (id) => (id < pieces.length ? pieces[id][0] : `<${id}>`)),
      ids: Int32Array.from(used), n,
      attentions: r.data.slice(0, size), embedding: r.data.slice(size),
      truncated: r.truncated, layers: this.layers, heads: this.heads,
      variant: this._scope._instance.resolvedVariants[o.variant],
    };
  }

  /**
   * The model on text: { tokens, ids, n, attentions [layers, heads, n, n], embedding [dim], truncated,
   * spans }. Tokenised by the model's SentencePiece vocabulary (bindings/sentencepiece.mjs, the reference
   * tokenizer's ids); tokens are the pieces' texts, spans their [start, end) UTF-16 offsets in `text`.
   */
  encode(text, options = {}) {
    if (typeof text !== 'string') throw new TypeError(`text: expected a string, got ${describe(text)}`);
    checkWellFormed('text', text);
    this._live();
    this._surgery(options);  // option errors before any work
    this._tokenizer ??= createSentencePiece(this.vocabulary);
    const t = this._tokenizer.encode(text);
    if (t.ids.length === 0) throw new RangeError("text: expected text with at least one token, got ''");
    const r = this.encodeIds(t.ids, options);
    r.tokens = t.pieces.slice(0, r.n);
    r.spans = t.spans.slice(0, 2 * r.n);
    return r;
  }

  /** Cosine of the embeddings of a and b (texts, or token ids), with the same options for both. */
  similarity(a, b, options = {}) {
    const run = (x, name) => {
      if (typeof x === 'string') return this.encode(x, options).embedding;
      if (Array.isArray(x) || typedKind(x) === 'Int32Array') return this.encodeIds(x, options).embedding;
      throw new TypeError(`${name}: expected a string or token ids, got ${describe(x)}`);
    };
    const ea = run(a, 'a'), eb = run(b, 'b');
    let dot = 0, na = 0, nb = 0;
    for (let i = 0; i < ea.length; i++) { dot += ea[i] * eb[i]; na += ea[i] * ea[i]; nb += eb[i] * eb[i]; }
    return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
  }

  /** Frees the model's weights in the wasm instance; the scope stays usable. */
  dispose() {
    if (this._state) { this._state.delete(); this._state = null; }
  }
}

class Trainer {
  constructor(scope, options) {
    checkKnownKeys('options', options, TRAINER_KEYS);
    const lists = scope._lists;
    const o = {
      dIn: checkInt('options.dIn', options.dIn, 1, 4096),
      dHead: options.dHead === undefined ? 16 : checkInt('options.dHead', options.dHead, 1, 1024),
      positions: options.positions === undefined ? 'none' : options.positions,
      dPos: options.dPos === undefined ? 16 : checkInt('options.dPos', options.dPos, 1, 1024),
      maxLen: options.maxLen === undefined ? 64 : checkInt('options.maxLen', options.maxLen, 1, 1024),
      score: scoreOption('options.score', options.score, lists),
      ...idwOptions('options.', options),
      hidden: options.hidden === undefined ? 16 : checkInt('options.hidden', options.hidden, 1, 1024),
      temperature: temperatureOption('options.temperature', options.temperature),
      mask: maskOption('options.mask', options.mask, lists),
      learningRate: options.learningRate === undefined ? 0.01 : checkNumber('options.learningRate', options.learningRate,
        { min: 0, exclusiveMin: true, max: 1, hint: ' (Adam moves each weight by about this much per step; 0.001 to 0.03 are usual)' }),
      batch: options.batch === undefined ? 32 : checkInt('options.batch', options.batch, 1, 4096),
      seed: options.seed === undefined ? 1 : checkInt('options.seed', options.seed, 0, 0xffffffff),
      variant: scope._variantOption(options.variant),
      output: options.output === undefined ? 'none' : options.output,
    };
    checkEnum('options.positions', o.positions, TRAINER_POSITIONS);
    checkEnum('options.output', o.output, TRAINER_OUTPUTS);
    if (o.positions === 'add' && o.dIn % 2 !== 0) { /* sinusoidal pairs: an odd width keeps its last sine; allowed */ }
    this._scope = scope;
    this._m = scope._m;
    this.options = Object.freeze({ ...o });
    const data = this._data('options.data', options.data);
    const t = new this._m.HeadTrainer();
    try {
      scope._withArrays(this._arrays(data), {}, (ptrs) => {
        const e = scope._enum;
        const err = t.init({ ...o, positions: TRAINER_POSITIONS.indexOf(o.positions), score: e.score[o.score], mask: e.mask[o.mask],
          variant: e.variant[o.variant], output: TRAINER_OUTPUTS.indexOf(o.output) }, ptrs.X, data.tokens, ptrs.L, data.lengths.length, ptrs.T, ptrs.KX, data.keyTokens, ptrs.KL);
        if (err) throw coreError(err.replace(/^(vectors|lengths|targets|keyVectors|keyLengths)/, 'options.data.$1'));
      });
    } catch (err) {
      t.delete();
      throw err;
    }
    this._t = t;
    this.layout = Object.freeze(JSON.parse(t.layoutJson()));
    /** Number of training sentences. */
    this.examples = t.examples();
    /** True when trained on pairs (cross-attention: keys from each sentence's key sentence). */
    this.cross = t.cross();
  }

  // The heap arrays of checked data (KX, KL null for self-attention).
  _arrays(d) {
    return { X: d.vectors, L: bytesOf(d.lengths), T: bytesOf(d.targets), KX: d.keyVectors, KL: d.keyLengths && bytesOf(d.keyLengths) };
  }

  _live() {
    if (!this._t) throw new Error(NO_TRAINER);
    return this._t;
  }

  // { vectors, lengths, targets[, keyVectors, keyLengths] } checked and converted; tokens = the sum of
  // lengths, keyTokens the sum of keyLengths (0 and keyVectors = keyLengths = null for self-attention).
  _data(name, data) {
    if (data === null || typeof data !== 'object') throw new TypeError(`${name}: expected { vectors, lengths, targets } (and keyVectors, keyLengths for cross-attention), got ${describe(data)}`);
    checkKnownKeys(name, data, ['vectors', 'lengths', 'targets', 'keyVectors', 'keyLengths']);
    const lengths = lengthsOption(`${name}.lengths`, data.lengths, this.options.maxLen);
    let tokens = 0;
    for (const n of lengths) tokens += n;
    const vectors = checkMatrix(`${name}.vectors`, data.vectors, tokens * this.options.dIn, `[tokens=${tokens}, dIn=${this.options.dIn}]`);
    const targets = targetsOption(`${name}.targets`, data.targets, tokens);
    let keyVectors = null, keyLengths = null, keyTokens = 0;
    if ((data.keyVectors === undefined) !== (data.keyLengths === undefined)) {
      const missing = data.keyVectors === undefined ? 'keyVectors' : 'keyLengths';
      throw new TypeError(`${name}.${missing}: missing; cross-attention needs both keyVectors and keyLengths (leave both out for self-attention)`);
    }
    if (data.keyLengths !== undefined) {
      keyLengths = lengthsOption(`${name}.keyLengths`, data.keyLengths, this.options.maxLen);
      if (keyLengths.length !== lengths.length) throw new RangeError(`${name}.keyLengths: expected one key sentence per sentence (${lengths.length}), got ${keyLengths.length}`);
      for (const n of keyLengths) keyTokens += n;
      keyVectors = checkMatrix(`${name}.keyVectors`, data.keyVectors, keyTokens * this.options.dIn, `[key tokens=${keyTokens}, dIn=${this.options.dIn}]`);
    }
    return { vectors, lengths, targets, tokens, keyVectors, keyLengths, keyTokens };
  }

  /** Runs `count` optimisation steps (default 1); returns the total number of steps taken so far. */
  step(count = 1) {
    const t = this._live();
    checkInt('count', count, 1, 1 << 20);
    const cost = t.stepCost(count);
    if (cost) throw coreError(cost);
    const err = t.step(count);
    if (err) throw coreError(err);
    return this.steps;
  }

  /** The batch loss of every step so far (a copy). */
  get losses() { return this._live().losses(); }
  /** Steps taken since creation or the last reset(). */
  get steps() { return this._live().losses().length; }

  /**
   * Copies of the trained matrices: Wq, Wk [dFeat, dHead], the score's (W; W1, W2, v; Wa) and the
   * output's (Wv [dFeat, dIn] with output 'value' or 'scaled'; Wextra [dIn, dIn] with 'scaled').
   */
  weights() {
    const t = this._live();
    const n = t.paramCount();
    const all = this._scope._withArrays({}, { out: n }, (ptrs) => { t.readParams(ptrs.out); return this._scope._read(ptrs.out, n); });
    return this._split(all);
  }

  _split(flat) {
    const L = this.layout, o = this.options, out = {};
    const take = (name, at, size) => { out[name] = flat.slice(at, at + size); };
    take('Wq', L.Wq, L.dFeat * o.dHead);
    take('Wk', L.Wk, L.dFeat * o.dHead);
    if (o.score === 'general') take('W', L.W, o.dHead * o.dHead);
    if (o.score === 'additive') { take('W1', L.W1, o.hidden * o.dHead); take('W2', L.W2, o.hidden * o.dHead); take('v', L.v, o.hidden); }
    if (o.score === 'location') take('Wa', L.Wa, o.maxLen * o.dHead);
    if (o.output !== 'none') take('Wv', L.Wv, L.dFeat * o.dIn);
    if (o.output === 'scaled') take('Wextra', L.Wx, o.dIn * o.dIn);
    return out;
  }

  /**
   * Mean cross-entropy and argmax accuracy on other sentences ({ vectors, lengths, targets }, or pairs
   * with keyVectors and keyLengths). Output modes: loss is the mean ‖O_i − x_target‖² / dIn, and
   * outputHits / outputAccuracy count the rows whose output is nearest (or tied) to the target's vector
   * among its sentence's keys (null for output 'none').
   */
  evaluate(data) {
    const t = this._live();
    const d = this._data('data', data);
    return this._scope._withArrays(this._arrays(d), {}, (ptrs) => {
      const r = t.evaluate(ptrs.X, d.tokens, ptrs.L, d.lengths.length, ptrs.T, ptrs.KX, d.keyTokens, ptrs.KL);
      if (r.error) throw coreError('data.' + r.error);
      const out = this.options.output !== 'none';
      return { loss: r.loss, hits: r.hits, count: r.count, accuracy: r.count ? r.hits / r.count : 0,
        outputHits: out ? r.outputHits : null, outputAccuracy: out ? (r.count ? r.outputHits / r.count : 0) : null };
    });
  }

  /**
   * The attention weights of one sentence under the current parameters: [n, n] over itself (vectors
   * [n, dIn]), or with keyVectors [m, dIn] (cross-attention, e.g. its paraphrase) [n, m].
   */
  attentionWeights(vectors, keyVectors) {
    const t = this._live();
    const rows = (name, v) => {
      const dIn = this.options.dIn;
      const len = checkFloat32(name, v, `[n, dIn=${dIn}]`);
      if (len === 0 || len % dIn !== 0) throw new RangeError(`${name}: expected n rows of dIn=${dIn} numbers, got ${len} numbers`);
      const n = len / dIn;
      if (n > this.options.maxLen) throw new RangeError(`${name}: ${n} tokens, more than maxLen=${this.options.maxLen}; shorten the sentence or create the trainer with a larger maxLen`);
      checkMatrix(name, v, len, `[n=${n}, dIn=${dIn}]`);
      return n;
    };
    const n = rows('vectors', vectors);
    const m = keyVectors === undefined ? n : rows('keyVectors', keyVectors);
    return this._scope._withArrays({ X: vectors, KX: keyVectors === undefined ? null : keyVectors }, { A: n * m }, (ptrs) => {
      const err = t.weightsOf(ptrs.X, n, ptrs.KX, m, ptrs.A);
      if (err) throw coreError(err);
      return this._scope._read(ptrs.A, n * m);
    });
  }

  /**
   * The loss and gradients of the given training sentences as one batch at the current parameters,
   * exactly what step() computes before its update: { loss, count, grads: {Wq, Wk, ...}, rows,
   * features [rows, dFeat], Q, dQ [rows, dHead], keyRows, K, dK [keyRows, dHead], keyFeatures
   * [keyRows, dFeat] (cross-attention; null for self-attention, whose keys are the rows of features),
   * and for output 'value' / 'scaled' V, dV [keyRows, dIn] and dO [rows, dIn] (null for output 'none') }.
   */
  gradients(examples) {
    const t = this._live();
    if (!Array.isArray(examples) || examples.length === 0) throw new TypeError(`examples: expected a non-empty array of training sentence indices, got ${describe(examples)}`);
    const idx = Uint32Array.from(examples, (e, i) => checkInt(`examples[${i}]`, e, 0, this.examples - 1));
    const ptr = this._scope._alloc(idx.length * 4);
    let r;
    try {
      this._m.HEAPU32.set(idx, ptr >> 2);
      r = t.gradients(ptr, idx.length);
    } finally {
      this._m._free(ptr);
    }
    if (r.error) throw coreError(r.error);
    const L = this.layout, rows = r.rows, keyRows = r.keyRows, dh = this.options.dHead;
    let at = L.total;
    const take = (n) => r.data.slice(at, (at += n));
    const grads = this._split(r.data.subarray(0, L.total));
    const features = take(rows * L.dFeat), Q = take(rows * dh), K = take(keyRows * dh), dQ = take(rows * dh), dK = take(keyRows * dh);
    const keyFeatures = this.cross ? take(keyRows * L.dFeat) : null;
    const out = this.options.output !== 'none', dIn = this.options.dIn;
    const V = out ? take(keyRows * dIn) : null, dV = out ? take(keyRows * dIn) : null, dO = out ? take(rows * dIn) : null;
    return { loss: r.loss, count: r.count, rows, keyRows, grads, features, Q, K, dQ, dK, keyFeatures, V, dV, dO };
  }

  /** Back to the initial state, with the parameters drawn from `seed` (default: the trainer's seed). */
  reset(seed = this.options.seed) {
    const t = this._live();
    checkInt('seed', seed, 0, 0xffffffff);
    t.reset(seed);
    this.options = Object.freeze({ ...this.options, seed });
  }

  /** Frees the trainer's memory in the wasm instance; later calls throw. */
  dispose() {
    if (this._t) { this._t.delete(); this._t = null; }
  }
}

// ---- imported attention: input forms handled in JS --------------------------------------------

const IMPORT_FORMATS = ['npy', 'npz', 'safetensors', 'json'];
const MAX_ATTENTION_VALUES = 2 ** 26;  // = kMaxAttentionValues in src/attnscope/imported.hpp
/**
 * The options and shape checks rollout and attentionFlow share; cost(layers, heads, n) is the core's
 * budget check ('' or the refusal), run before the stack is copied into wasm memory.
 */
function stackOptions(attentions, options, cost) {
  checkKnownKeys('options', options, ['layers', 'heads', 'n', 'residual', 'head']);
  const layers = checkInt('options.layers', options.layers, 1, 1024);
  const heads = checkInt('options.heads', options.heads, 1, 1024);
  const n = checkInt('options.n', options.n, 1, 4096);
  if (layers * heads * n * n > MAX_ATTENTION_VALUES) throw new RangeError(`attentions: ${layers}x${heads}x${n}x${n} is over the limit of ${MAX_ATTENTION_VALUES} numbers; use fewer layers, heads or tokens`);
  const refused = cost(layers, heads, n);
  if (refused) throw coreError(refused);
  checkMatrix('attentions', attentions, layers * heads * n * n, `[layers=${layers}, heads=${heads}, n=${n}, n=${n}]`);
  const residual = options.residual === undefined ? 0.5 : checkNumber('options.residual', options.residual, { min: 0 });
  if (residual > 1) throw new RangeError(`options.residual: expected a number from 0 to 1 (the weight of the identity), got ${residual}`);
  const head = options.head === undefined ? 'mean' : options.head;
  let mode = head, index = 0;
  if (typeof head === 'number') { index = checkInt('options.head', head, 0, heads - 1); mode = 'index'; }
  else if (head !== 'mean' && head !== 'max') throw new TypeError(`options.head: expected 'mean', 'max' or a head index from 0 to ${heads - 1}, got ${describe(head)}`);
  return { layers, heads, n, residual, mode, index };
}

/** The format from a file's first bytes. */
function sniffFormat(b) {
  if (b.length >= 6 && b[0] === 0x93 && b[1] === 0x4e && b[2] === 0x55 && b[3] === 0x4d && b[4] === 0x50 && b[5] === 0x59) return 'npy';
  if (b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5) && (b[3] === 4 || b[3] === 6)) return 'npz';
  let i = 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09 || b[i] === 0xef || b[i] === 0xbb || b[i] === 0xbf)) i++;
  if (b[i] === 0x7b) return 'json';  // '{'
  if (b.length >= 9 && b[8] === 0x7b && b[4] === 0 && b[5] === 0 && b[6] === 0 && b[7] === 0) return 'safetensors';
  throw new RangeError("input: not a recognised attention file (.npy, .npz, .safetensors or JSON); pass options.format if it is one");
}

function parseJsonInput(text) {
  try {
    const o = JSON.parse(text);
    if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new Error('not an object');
    return o;
  } catch (e) {
    throw new RangeError(`input: invalid JSON (${e.message}); expected { "tokens": [...], "attentions": [[...]] }`);
  }
}

/** Tokens as string[], or a file's text: a JSON array, or one token per line. */
function tokenList(name, value) {
  let list = value;
  if (typeof value === 'string') {
    // A JSON array when the text is one; otherwise one token per line (a first line '[CLS]' is a token).
    let parsed = null;
    if (value.trim().startsWith('[')) { try { parsed = JSON.parse(value); } catch { parsed = null; } }
    if (Array.isArray(parsed)) list = parsed;
    else {
      list = value.split('\n').map((l) => l.replace(/\r$/, ''));
      if (list.length && list[list.length - 1] === '') list.pop();
    }
  }
  if (!Array.isArray(list)) throw new TypeError(`${name}: expected an array of strings or a file's text (one token per line), got ${describe(value)}`);
  list.forEach((t, i) => {
    if (typeof t !== 'string') throw new TypeError(`${name}[${i}]: expected a string, got ${describe(t)}; convert the tokens with String()`);
    checkWellFormed(`${name}[${i}]`, t);
  });
  if (list.length > 4096) throw new RangeError(`${name}: ${list.length} tokens, over the limit of 4096`);
  return list;
}

/** Nested arrays of numbers (2 to 4 levels) → { shape, values: Float32Array }; ragged arrays refused. */
function flattenNested(name, value) {
  if (value instanceof Float32Array) throw new TypeError(`${name}: expected nested arrays [layers][heads][nq][nk]; for a flat Float32Array write a .npy`);
  const shape = [];
  for (let x = value; Array.isArray(x); x = x[0]) {
    shape.push(x.length);
    if (x.length === 0) break;
  }
  if (shape.length < 2 || shape.length > 4) throw new RangeError(`${name}: expected nested arrays [layers][heads][nq][nk], [heads][n][n] or [n][n], got ${shape.length} level(s)`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (count > MAX_ATTENTION_VALUES) throw new RangeError(`${name}: ${count} numbers, over the limit of ${MAX_ATTENTION_VALUES}`);
  const values = new Float32Array(count);
  let at = 0;
  const walk = (x, depth, path) => {
    if (!Array.isArray(x) || x.length !== shape[depth]) throw new RangeError(`${name}${path}: expected an array of ${shape[depth]} (the arrays are ragged)`);
    if (depth === shape.length - 1) {
      for (let i = 0; i < x.length; i++) {
        if (typeof x[i] !== 'number') throw new TypeError(`${name}${path}[${i}]: expected a number, got ${describe(x[i])}`);
        // float32 holds magnitudes up to 3.4e38: a larger finite number (JSON's 1e39) would become an
        // infinity and be reported as one.
        if (Math.abs(x[i]) > 3.4028234663852886e38)
          throw new RangeError(`${name}${path}[${i}]: ${x[i]} is outside the float32 range (±3.4e38); attention weights lie in [0, 1] (fix the export)`);
        values[at++] = x[i];
      }
    } else {
      for (let i = 0; i < x.length; i++) walk(x[i], depth + 1, `${path}[${i}]`);
    }
  };
  walk(value, 0, '');
  return { shape, values };
}

// Splits the one Float32Array attend() hands back (layout in bindings/embind.cpp, ScopeState::attend)
// into the result's arrays: views of that one copy, no second copy.
function unpackAttend(res, d, score, temperature, variant, timeMs) {
  const data = res.data;
  const nq = data[0], nk = data[1], heads = data[2], dOut = data[3];
  const dHead = Array.from(data.subarray(4, 4 + heads)), dValue = Array.from(data.subarray(4 + heads, 4 + 2 * heads));
  let at = 4 + 2 * heads;
  const take = (n) => data.subarray(at, (at += n));
  const queryEmbeddings = take(nq * d), keyEmbeddings = take(nk * d);
  const scores = take(heads * nq * nk), weights = take(heads * nq * nk);
  const entropy = take(heads * nq), maxWeight = take(heads * nq), argmax = Uint32Array.from(take(heads * nq));
  const output = take(nq * dOut);
  const q = [], k = [], v = [];
  for (let h = 0; h < heads; h++) { q.push(take(nq * dHead[h])); k.push(take(nk * dHead[h])); v.push(take(nk * dValue[h])); }
  const tokens = JSON.parse(res.tokens);
  return {
    queryTokens: tokens.query.map((t) => t.text), keyTokens: tokens.keys.map((t) => t.text),
    queryTokenInfo: tokens.query, keyTokenInfo: tokens.keys, nq, nk, heads, d, dHead, dValue, dOut,
    queryEmbeddings, keyEmbeddings, q, k, v, scores, weights, output, stats: { entropy, maxWeight, argmax },
    score, temperature, variant, timeMs,
  };
}

function now() { return typeof performance !== 'undefined' ? performance.now() : Date.now(); }

/** A new scope (its own ScopeState) on an instance; see createScopeWith for when its vocabulary loads. */
async function scopeOn(instance, vocab, { preload, onProgress } = {}) {
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError(`options.onProgress: expected a function, got ${describe(onProgress)}`);
  const source = vocabularySource(vocab === undefined ? instance.defaultVocabulary : vocab, instance);
  const scope = new Scope(instance, new instance.module.ScopeState(), source.name);
  scope._vocabLoader = vocabularyLoader(scope, instance.module, source, onProgress);
  try {
    // Bytes at hand (the caller's, or the single-file build's inlined ones) are loaded, and checked, now.
    if (source.bytes) scope._vocabLoader.requireNow('createAttnScope');
    if (preload) await scope.loadVocabulary();
  } catch (e) {
    scope.dispose();
    throw e;
  }
  return scope;
}

// Where the vocabulary comes from: { name, bytes?: () => Uint8Array, url?: () => Promise<URL>, file?, fix? }.
function vocabularySource(v, instance) {
  if (v === 'default' || v === 'small') {
    const file = v === 'small' ? 'glove-10k.bin' : 'glove-50k.bin';
    if (v === 'small' && instance.smallVocabulary) return { name: file, bytes: instance.smallVocabulary };
    if (!instance.canLocate(file)) {
      throw new TypeError(`options.vocabulary: the single-file build carries only the 10,000-word vocabulary ('small'); for '${v}' ` +
        `pass the URL of ${file} as vocabulary, or locateFile, or import 'attnscope' (the split build) instead`);
    }
    return { name: file, file, url: () => instance.locate(file) };
  }
  if (v instanceof Uint8Array || v instanceof ArrayBuffer) return { name: 'custom', bytes: () => new Uint8Array(v) };
  if ((typeof v === 'string' && v !== '') || v instanceof URL) {
    return { name: String(v), file: 'your vocabulary file', fix: 'check the URL given as options.vocabulary', url: () => toUrl(v, 'options.vocabulary') };
  }
  throw new TypeError(`options.vocabulary: expected 'default', 'small', a Uint8Array or ArrayBuffer of a vocabulary file, or its URL, got ${describe(v)}`);
}

function vocabularyLoader(scope, module, source, onProgress) {
  let pending = null;
  const install = (bytes, label) => {
    const ptr = module._malloc(bytes.length);
    if (!ptr) throw new RangeError(`${label}: out of wasm memory for ${bytes.length} bytes`);
    try {
      module.HEAPU8.set(bytes, ptr);
      const err = scope._live().loadVocabulary(ptr, bytes.length);
      if (err) throw new Error(`${label}: ${err}`);
    } finally {
      module._free(ptr);
    }
  };
  const loaded = () => scope._live().vocabularySize() > 0;
  return {
    // For the synchronous calls: load bytes already in memory, or say how to get the vocabulary.
    requireNow(caller) {
      if (loaded()) return;
      if (source.bytes) { install(source.bytes(), 'options.vocabulary'); return; }
      throw new Error(`${caller}: the vocabulary (${source.name}) is not loaded yet${pending ? ' (its download is under way)' : ''}; ` +
        `await scope.loadVocabulary() once before calling ${caller}(), or create the scope with createAttnScope({ preload: true })`);
    },
    // Fetches (once) and loads the vocabulary; resolves to scope.vocabulary. A failed download can be retried.
    load() {
      if (loaded()) return Promise.resolve(scope.vocabulary);
      pending ??= (async () => {
        if (source.bytes) {
          install(source.bytes(), 'options.vocabulary');
        } else {
          const url = await source.url();
          const bytes = await readUrl(url, { what: source.file, expect: VOCAB_MAGIC, onProgress, fix: source.fix });
          install(bytes, `attnscope: ${url.href}`);
        }
        return scope.vocabulary;
      })().finally(() => { pending = null; });
      return pending;
    },
  };
}

/**
 * Creates an AttnScope: locates, fetches and checks the wasm, instantiates it, and prepares the
 * vocabulary: loaded now only when its bytes are at hand (the caller's, the single-file build's
 * inlined words) or options.preload asks; otherwise by scope.loadVocabulary(), on which the calls
 * that need it (attend, embed, nearest, tokenize) insist. The entry points say where everything comes from:
 *   build.file(name)      → the default URL of a package file (from the entry's literal new URL
 *                           expressions, which bundlers rewrite), or null when that entry has none
 *   build.loadFactory(simd) → Promise<the Emscripten module factory>
 *   build.wasmFile(simd)  → the wasm file's name, or null when the factory has it inlined
 *   build.smallVocabulary → () => Uint8Array of the inlined 10,000-word vocabulary (single-file build)
 */
export async function createScopeWith(build, options = {}) {
  checkKnownKeys('options', options, ['locateFile', 'wasmBinary', 'vocabulary', 'preload', 'simd', 'onProgress', 'sharing']);
  if (options.sharing !== undefined) {
    if (!(options.sharing instanceof Scope)) throw new TypeError(`options.sharing: expected an AttnScope to share a wasm instance with, got ${describe(options.sharing)}`);
    const other = Object.keys(options).filter((k) => !['sharing', 'vocabulary', 'preload', 'onProgress'].includes(k));
    if (other.length) throw new TypeError(`options.${other[0]}: not used with options.sharing (the instance is already loaded); give only vocabulary, preload and onProgress`);
    return options.sharing.newScope({ vocabulary: options.vocabulary, preload: options.preload, onProgress: options.onProgress });
  }
  for (const key of ['locateFile', 'onProgress']) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new TypeError(`options.${key}: expected a function, got ${describe(options[key])}`);
  }
  const simd = options.simd === undefined ? engineHasSimd() : !!options.simd;
  if (simd && !engineHasSimd()) throw new Error('options.simd: this engine has no WebAssembly SIMD; leave simd unset to fall back to scalar');
  const wasmDefault = build.file(build.wasmFile(simd) || 'attnscope.wasm');
  const folder = wasmDefault ? new URL('./', wasmDefault).href : '';
  const locate = async (file) => {
    if (options.locateFile) return toUrl(options.locateFile(file, folder), `locateFile('${file}')`);
    const url = build.file(file);
    if (!url) throw new TypeError(`options.locateFile: this build does not ship ${file}; pass locateFile to say where it is`);
    return url;
  };
  const factory = await build.loadFactory(simd);
  const wasmFile = build.wasmFile(simd);
  const moduleArgs = {};
  if (options.wasmBinary !== undefined) {
    const w = options.wasmBinary;
    if (!(w instanceof ArrayBuffer || w instanceof Uint8Array)) throw new TypeError(`options.wasmBinary: expected an ArrayBuffer or Uint8Array, got ${describe(w)}`);
    if (!startsWith(new Uint8Array(w), WASM_MAGIC.bytes)) throw new TypeError(`options.wasmBinary: expected ${WASM_MAGIC.kind}, got ${describe(w)} starting ${Array.from(new Uint8Array(w).subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ')}`);
    moduleArgs.wasmBinary = w;
  } else if (wasmFile) {
    moduleArgs.wasmBinary = await readUrl(await locate(wasmFile), { what: wasmFile, expect: WASM_MAGIC });
  }
  const module = await factory(moduleArgs);
  const registry = registryOf(module);
  const enums = enumsOf(module, registry);
  const instance = {
    module, registry, enums, lists: listsOf(registry), locate,
    // What each variant name runs as in this build: fixed per instance, so asked once here rather
    // than on every call (each Embind call costs about a microsecond without dynamic code).
    resolvedVariants: Object.freeze(Object.fromEntries(Object.entries(enums.variant).map(([n, e]) => [n, module._resolvedVariant(e)]))),
    defaultVocabulary: build.smallVocabulary ? 'small' : 'default',
    smallVocabulary: build.smallVocabulary ?? null,
    canLocate: (file) => !!options.locateFile || !!build.file(file),
  };
  return scopeOn(instance, options.vocabulary, { preload: options.preload, onProgress: options.onProgress });
}

// ---- for the pool of workers (pool.mjs) ----------------------------------------------------------

// Some scores choose their path for all rows at once by whether every query row lies in the safe
// range (src/score.cpp, row_in_safe_range: 2^-40 to 2^40; the distance family's fused identity or
// its blocked direct distances). A call with a row outside it is not split, whatever its score: the
// registry does not say which scores do this, and such rows are rare enough that one worker is fine.
function rowInSafeRange(Q, i, d) {
  let m = 0;
  for (let t = i * d, end = t + d; t < end; t++) {
    const a = Math.abs(Q[t]);
    if (!Number.isFinite(a)) return true;
    if (a > m) m = a;
  }
  return m === 0 || (m >= 2 ** -40 && m <= 2 ** 40);
}

/**
 * What the pool needs to split a call the way one scope computes it, without a wasm instance:
 * validate(method, args) checks the arguments exactly as Scope[method] does before it touches wasm
 * memory (the same errors, the same order) and returns { nq, d, cost, splittable }: cost is the
 * whole call's _checkCost arguments (each worker checks them), splittable whether the query rows may
 * go to different instances with no number changing: not when a query row lies outside the safe
 * range (a distance score then takes another path for every row). (Under the causal mask a
 * share is run with its first row's index, Scope._attention's queryOffset.)
 * registry: the module's registry; available: scope.variants.available of an instance.
 */
export function callValidator(registry, available) {
  const v = Object.create(Scope.prototype);
  v._lists = listsOf(registry);
  v.variants = { available };
  v._variant = 'auto';
  const splittable = (score, Q, nq, d) => {
    for (let i = 0; i < nq; i++) if (!rowInSafeRange(Q, i, d)) return false;
    return true;
  };
  return {
    scores(Q, K, options) {
      checkKnownKeys('options', options, ['nq', 'nk', 'd', 'dk', ...SCORE_KEYS]);
      const { nq, nk, d, dk } = v._queryKeyShapes(Q, K, options);
      const { score, weights } = v._scoreAndVariant(options, d, dk, nk);
      return { nq, d, cost: [score, nq, nk, d, dk, 0, weights.hidden || 0, false], splittable: splittable(score, Q, nq, d) };
    },
    attention(Q, K, V, options) {
      const a = v._attentionInputs(Q, K, V, options, ['returns']);
      const want = returnsOption('options.returns', options.returns);
      const outputOnly = want.size === 1 && want.has('output');
      return { nq: a.nq, d: a.d, want, cost: [a.score, a.nq, a.nk, a.d, a.dk, a.dv, a.weights.hidden || 0, outputOnly],
        splittable: splittable(a.score, Q, a.nq, a.d) };
    },
    attentionOutput(Q, K, V, options) {
      const a = v._attentionInputs(Q, K, V, options, []);
      return { nq: a.nq, d: a.d, cost: [a.score, a.nq, a.nk, a.d, a.dk, a.dv, a.weights.hidden || 0, true],
        splittable: splittable(a.score, Q, a.nq, a.d) };
    },
  };
}
export { checkKnownKeys as checkOptionKeys, checkInt as checkInteger, describe as describeValue, toUrl as toAbsoluteUrl };
