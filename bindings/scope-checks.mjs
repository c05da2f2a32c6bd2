// Argument validation shared by every call of the JS layer: numbers, enums, typed arrays (measured by
// the engine's own getters), text, option objects; and the core's refusals turned into RangeErrors.
// Every message names the argument and what was expected.
import { parseHeadLabel } from './scope-labels.mjs';

// The core's per-call memory limit (src/attnscope/limits.hpp, limits::kMaxFloats = 2^27 floats).
const MAX_CALL_BYTES = 4 * 2 ** 27;
/** One array of a call, in bytes: within the per-array limit (so no size can wrap a 32-bit malloc). */
function checkBlock(bytes) {
  if (!(Number.isSafeInteger(bytes) && bytes >= 0 && bytes <= MAX_CALL_BYTES))
    throw new RangeError(`memory: ${bytes} bytes in one array is more than the limit of ${MAX_CALL_BYTES} (512 MiB per call, so it fits in the wasm heap); use smaller inputs`);
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
// The details of the errors raised with a code (the pool rebuilds them across a worker: scope-plan.mjs,
// errorRecord), kept beside the error rather than on it: the errors users see are unchanged.
const DETAILS = new WeakMap();
/** The code and subject of an error this layer raised with one, or undefined. */
function errorDetails(e) {
  return e !== null && typeof e === 'object' ? DETAILS.get(e) : undefined;
}
/** A non-finite element `value` at index i of the array `name` (code 'non-finite'). */
function nonFiniteElement(name, i, value) {
  const e = new RangeError(`${name}: element ${i} is ${value}; every element must be a finite number`);
  DETAILS.set(e, { code: 'non-finite', argument: name, index: i, value });
  return e;
}
function nonFinite(name, value, i) {
  return nonFiniteElement(name, i, value[i]);
}
function checkMatrix(name, value, length, shape) {
  const n = checkFloat32(name, value, shape);
  if (n !== length) throw new RangeError(`${name}: expected ${length} numbers ${shape}, got ${n}`);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(value[i])) throw nonFinite(name, value, i);
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
/**
 * A new Embind object `state` set up by init(state): returned when init succeeds, deleted (its wasm
 * memory freed) when init throws, so a call the core refuses leaves nothing behind.
 */
function initOrDelete(state, init) {
  try {
    init(state);
    return state;
  } catch (e) {
    state.delete();
    throw e;
  }
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

// The longest text a call tokenizes, in UTF-8 bytes (limits::kMaxTextBytes in src/attnscope/limits.hpp).
const MAX_TEXT_BYTES = 2 ** 20;
/** `text` within MAX_TEXT_BYTES of UTF-8, checked before any work on it (normalising, tokenizing). */
function checkTextBytes(name, text, fix) {
  let bytes = text.length;  // every UTF-16 code unit is at least one byte
  if (bytes <= MAX_TEXT_BYTES) {
    bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (i++, 4) : 3;
    }
  }
  if (bytes > MAX_TEXT_BYTES) throw new RangeError(`${name}: ${text.length <= MAX_TEXT_BYTES ? `${bytes} bytes` : `${text.length} characters`} is more than the limit of ${MAX_TEXT_BYTES} bytes (1 MiB) of UTF-8; ${fix}`);
  return text;
}

/**
 * An object used as a map from keys to values (e.g. { 'L.H': name }): a plain object whose own
 * enumerable keys are the entries. A Map, a class instance, an inherited key, or no key at all would be
 * read as nothing and silently ignored: each is refused, naming the fix. Returns its [key, value] pairs.
 */
function checkPlainEntries(name, value, what) {
  const proto = value === null || typeof value !== 'object' ? undefined : Object.getPrototypeOf(value);
  if (value instanceof Map) throw new TypeError(`${name}: expected a plain object ${what}, got a Map; pass Object.fromEntries(${name})`);
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key))
      throw new TypeError(`${name}.${clip(key)}: inherited through the prototype chain, not an own property; pass a plain object (e.g. { ...${name} })`);
  }
  if (proto !== Object.prototype && proto !== null) throw new TypeError(`${name}: expected a plain object ${what}, got ${describe(value)}`);
  const entries = Object.entries(value);
  if (entries.length === 0) throw new TypeError(`${name}: an empty object changes nothing; expected ${what}`);
  return entries;
}

/**
 * The one parser of head labels 'L.H' (layer and head counted from 0, any number of digits) for a model
 * of `layers` x `heads`: the layer-major index, or a TypeError / RangeError naming the argument and the
 * labels it takes.
 */
function headIndex(name, label, layers, heads) {
  const at = parseHeadLabel(label);
  const valid = `'L.H' with layer L from 0 to ${layers - 1} and head H from 0 to ${heads - 1} (e.g. '${layers - 1}.${heads - 1}')`;
  if (!at) throw new (typeof label === 'string' ? RangeError : TypeError)(`${name}: expected a head label ${valid}, got ${typeof label === 'string' ? `'${clip(label)}'` : describe(label)}`);
  const [l, h] = at;
  if (l >= layers || h >= heads) throw new RangeError(`${name}: head '${clip(label)}' is out of range; expected ${valid}`);
  return l * heads + h;
}

export {
  MAX_CALL_BYTES, MAX_TEXT_BYTES, headIndex, checkPlainEntries, checkTextBytes, clip, checkBlock, checkInt, checkNumber, checkEnum, typedKind, typedLength, checkFloat32, checkShape, nonFinite,
  nonFiniteElement, errorDetails,
  checkMatrix, checkText, checkWellFormed, describe, coreError, initOrDelete, checkKnownKeys,
};
