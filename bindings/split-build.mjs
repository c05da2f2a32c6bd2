// The split build's files, for the entry (attnscope.mjs) and the pool's workers (pool-worker.mjs):
// attnscope-relaxed.wasm (engines with relaxed SIMD), attnscope.wasm (SIMD) or attnscope-scalar.wasm
// (engines without wasm SIMD). The trained model and the vocabularies are assets an app opts into
// (scope-files.mjs): this module names none of them.
// The workers import this rather than the entry: a worker module that imported the pool would make
// bundlers that follow new Worker(new URL(...)) bundle it in itself.
import glue from './attnscope-wasm.mjs';
import { ASSET_MODULES, optedInUrl } from './scope-files.mjs';

// Every wasm this module loads, each named literally in new URL('./file', import.meta.url): the pattern
// Vite and webpack 5 (and Parcel 2) recognise, so they copy the file into the app's output and put its
// final URL here, with no configuration. Keep it literal: a computed name is invisible to them.
// (esbuild and plain Rollup leave the expression as it is: the files must then sit next to the bundle.)
const WASM = {
  'attnscope.wasm': () => new URL('./attnscope.wasm', import.meta.url),
  'attnscope-relaxed.wasm': () => new URL('./attnscope-relaxed.wasm', import.meta.url),
  'attnscope-scalar.wasm': () => new URL('./attnscope-scalar.wasm', import.meta.url),
};

/** What createScopeWith (scope.mjs) needs to know of the split build. */
// kind: 'relaxed' (relaxed SIMD: the SIMD build with its products' multiply-adds fused), 'simd' or 'scalar'.
// The three builds share one glue: they differ only in their wasm, which the JS layer always hands the
// glue as bytes (build-dist.mjs checks that the glues are the same). It is imported statically: a
// dynamic import() would split an app's bundle into chunks, and Vite 5 to 7 build a worker as a classic
// script (worker.format 'iife'), which cannot split, so an app whose own worker imported attnscope failed its `vite build`.
export const splitBuild = {
  file: (name) => (WASM[name] ? WASM[name]() : optedInUrl(name)),
  // The data files an app opts into: when it has not, they are looked for beside the wasm (where the
  // package's files are in Node, on a CDN, or copied next to a bundle), else the error names the import.
  optional: (name) => name in ASSET_MODULES,
  loadFactory: async () => glue,
  wasmFile: (kind) => ({ relaxed: 'attnscope-relaxed.wasm', simd: 'attnscope.wasm', scalar: 'attnscope-scalar.wasm' })[kind],
  relaxed: true,
};
