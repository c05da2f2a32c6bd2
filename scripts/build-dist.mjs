// Assembles the npm package's dist/ from the wasm build (build/wasm/bindings), the JS layer
// (bindings/) and the vocabulary (build/vocab), and bundles the single-file build with esbuild.
// First it regenerates the unions of names in bindings/attnscope.d.ts from the module's registry
// (src/attnscope/registry.hpp), so a new scoring function reaches the types with no edit by hand.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync, statSync, existsSync } from 'node:fs';
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

const dtsPath = join(root, 'bindings/attnscope.d.ts');
const dts = readFileSync(dtsPath, 'utf8');
const generated = withBlock(dts, dtsBlock(await loadBuiltRegistry(root)));
if (generated !== dts) {
  writeFileSync(dtsPath, generated);
  console.log('dist: regenerated the registry unions in bindings/attnscope.d.ts');
}

const copies = [
  [join(wasmDir, 'attnscope-wasm.mjs'), 'attnscope-wasm.mjs'],
  [join(wasmDir, 'attnscope-wasm.wasm'), 'attnscope.wasm'],
  [join(wasmDir, 'attnscope-scalar-wasm.mjs'), 'attnscope-scalar-wasm.mjs'],
  [join(wasmDir, 'attnscope-scalar-wasm.wasm'), 'attnscope-scalar.wasm'],
  [join(root, 'bindings/attnscope.mjs'), 'attnscope.mjs'],
  [join(root, 'bindings/scope.mjs'), 'scope.mjs'],
  [join(root, 'bindings/attnscope.d.ts'), 'attnscope.d.ts'],
  [join(root, 'bindings/attnscope.d.ts'), 'attnscope.single.d.ts'],
  [join(vocabDir, 'glove-50k.bin'), 'glove-50k.bin'],
  [join(vocabDir, 'glove-10k.bin'), 'glove-10k.bin'],
];
for (const [from, to] of copies) {
  if (!existsSync(from)) throw new Error(`build-dist: missing ${from}; run scripts/build.sh`);
  copyFileSync(from, join(dist, to));
}

// Single file: the SIMD glue with the wasm inlined, the small vocabulary as base64, one ES module.
const b64 = join(stage, 'glove-10k.base64.mjs');
const vocab = join(vocabDir, 'glove-10k.bin');
if (!existsSync(b64) || statSync(b64).mtimeMs < statSync(vocab).mtimeMs) {
  writeFileSync(b64, `export const vocabularyBase64 = '${readFileSync(vocab).toString('base64')}';\n`);
}
copyFileSync(join(wasmDir, 'attnscope-single-wasm.mjs'), join(stage, 'attnscope-single-wasm.mjs'));
copyFileSync(join(root, 'bindings/single.mjs'), join(stage, 'single.mjs'));
copyFileSync(join(root, 'bindings/scope.mjs'), join(stage, 'scope.mjs'));
await build({
  entryPoints: [join(stage, 'single.mjs')],
  outfile: join(dist, 'attnscope.single.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2020',
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: '// attnscope single-file build: wasm (SIMD) and a 10,000-word GloVe vocabulary inlined.' },
});
console.log('dist: ' + copies.map(([, to]) => to).concat('attnscope.single.mjs').join(', '));
