// The module's registry as the JS layer uses it (lists of names, the Embind enums by name), and one
// validation function per option kind, shared by scores(), attention(), attend(), the trainer and the
// pool's validator.
import { checkEnum, checkInt, checkMatrix, checkNumber, describe, typedKind, typedLength } from './scope-checks.mjs';

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
  // The same values as integers, for the plain exports of the hot calls (embind-attention.cpp, embind-scope.cpp).
  const ints = (e) => Object.freeze(Object.fromEntries(Object.entries(e).map(([n, v]) => [n, v.value])));
  const projection = pick(module.Projection, registry.projections);
  return {
    score, mask, projection, variant,
    ints: Object.freeze({ score: ints(score), mask: ints(mask), variant: ints(variant), projection: ints(projection) }),
  };
}
// The message a plain export returned: 0 = none, else the address of a NUL-terminated UTF-8 string
// that the core malloc'ed for us (freed here; a static fallback message lies outside the heap's
// allocations and is not freed: embind-shared.hpp, message_or_null).
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
/**
 * Each matrix a score may have (the registry's `matrices` names them): the name of its gradient in
 * attentionBackward()'s result and its size there (s: { d, dk, hidden, maxKeys }), and its size among a
 * Trainer's weights (t: the trainer's options { dHead, hidden, maxLen }; its offset is layout[name]).
 */
const SCORE_MATRICES = {
  W: { grad: 'dW', size: (s) => s.d * s.dk, trained: (t) => t.dHead * t.dHead },
  W1: { grad: 'dW1', size: (s) => s.hidden * s.d, trained: (t) => t.hidden * t.dHead },
  W2: { grad: 'dW2', size: (s) => s.hidden * s.dk, trained: (t) => t.hidden * t.dHead },
  v: { grad: 'dv', size: (s) => s.hidden, trained: (t) => t.hidden },
  Wa: { grad: 'dWa', size: (s) => s.maxKeys * s.d, trained: (t) => t.maxLen * t.dHead },
};
/** The ScoreParams value object Embind hands to C++ (addresses of the matrices copied into wasm memory). */
function scoreParams(idw, weights, ptrs) {
  return { p: idw.p, eps: idw.eps, W: ptrs.W || 0, W1: ptrs.W1 || 0, W2: ptrs.W2 || 0, v: ptrs.v || 0,
    hidden: weights.hidden, Wa: ptrs.Wa || 0, maxKeys: weights.maxKeys };
}

export {
  registryOf, deepFreeze, listsOf, enumsOf, exportMessage, SCORE_KEYS, scoreOption, temperatureOption, maskOption, returnsOption,
  paddingOption, idwOptions, scoreWeights, scoreParams, SCORE_MATRICES,
};
