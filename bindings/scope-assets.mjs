// Locating and loading the package's files: the wasm, the vocabularies and the model, fetched (or read
// from disk in Node) and checked by their first bytes before anything uses them, with messages that say
// where the file was looked for and how to point the package at it (locateFile).
import { describe } from './scope-checks.mjs';

// A tiny module that uses one SIMD instruction: WebAssembly.validate() says whether the engine has SIMD.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0,
  65, 0, 253, 15, 253, 98, 11]);
export function engineHasSimd() {
  try { return WebAssembly.validate(SIMD_PROBE); } catch { return false; }
}
// A tiny module whose one function is f32x4.relaxed_madd of its three v128 arguments (relaxed SIMD's
// final opcode, 0xfd 0x85 0x02): whether the engine has relaxed SIMD (Chromium, node 22; node 20 only
// with --experimental-wasm-relaxed-simd).
const RELAXED_SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0,
  10, 13, 1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11]);
export function engineHasRelaxedSimd() {
  try { return WebAssembly.validate(RELAXED_SIMD_PROBE); } catch { return false; }
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

// ---- a scope's vocabulary: where it comes from, and loading it into the scope's state ---------------

// Where the vocabulary comes from: { name, bytes?: () => Uint8Array, url?: () => Promise<URL>, file?, fix? }.
function vocabularySource(v, instance) {
  if (v === 'default' || v === 'small') {
    const file = v === 'small' ? 'glove-10k.bin' : 'glove-50k.bin';
    if (v === 'small' && instance.smallVocabulary) return { name: file, bytes: instance.smallVocabulary };
    if (!instance.canLocate(file)) {
      throw new TypeError(`options.vocabulary: the single-file build carries only the 10,000-word vocabulary ('small'); for '${v}' ` +
        `pass the URL of ${file} as vocabulary, or locateFile, or import 'attnscope' (the split build) instead`);
    }
    return { name: file, file, url: () => instance.locate(file), fix: instance.fixFor?.(file) };
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

export { readUrl, startsWith, toUrl, vocabularySource, vocabularyLoader, WASM_MAGIC };
