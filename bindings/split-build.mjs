// The split build's files, for the entry (attnscope.mjs) and the pool's workers (pool-worker.mjs):
// attnscope-relaxed.wasm (engines with relaxed SIMD), attnscope.wasm (SIMD) or attnscope-scalar.wasm
// (engines without wasm SIMD), and the vocabularies.
// The workers import this rather than the entry, which re-exports the pool: a worker module that
// imported the pool would make bundlers that follow new Worker(new URL(...)) bundle it in itself.
import simdGlue from './attnscope-wasm.mjs';
import scalarGlue from './attnscope-scalar-wasm.mjs';

// Every file this module loads, each named literally in new URL('./file', import.meta.url): the pattern
// Vite and webpack 5 (and Parcel 2) recognise, so they copy the file into the app's output and put its
// final URL here, with no configuration. Keep it literal: a computed name is invisible to them.
// (esbuild and plain Rollup leave the expression as it is: the files must then sit next to the bundle.)
const FILES = {
  'attnscope.wasm': () => new URL('./attnscope.wasm', import.meta.url),
  'attnscope-relaxed.wasm': () => new URL('./attnscope-relaxed.wasm', import.meta.url),
  'attnscope-scalar.wasm': () => new URL('./attnscope-scalar.wasm', import.meta.url),
  'glove-50k.bin': () => new URL('./glove-50k.bin', import.meta.url),
  'glove-10k.bin': () => new URL('./glove-10k.bin', import.meta.url),
  'use-lite.bin': () => new URL('./use-lite.bin', import.meta.url),
};

/** What createScopeWith (scope.mjs) needs to know of the split build. */
// kind: 'relaxed' (relaxed SIMD: the SIMD build with its products' multiply-adds fused; same glue as
// the SIMD build), 'simd' or 'scalar'.
// Both glues are imported statically (about 10 kB gzipped each): a dynamic import() would split an
// app's bundle into chunks, and Vite 5 to 7 build a worker as a classic script (worker.format 'iife'),
// which cannot split, so an app whose own worker imported attnscope failed its `vite build`.
export const splitBuild = {
  file: (name) => FILES[name](),
  loadFactory: async (kind) => (kind === 'scalar' ? scalarGlue : simdGlue),
  wasmFile: (kind) => ({ relaxed: 'attnscope-relaxed.wasm', simd: 'attnscope.wasm', scalar: 'attnscope-scalar.wasm' })[kind],
  relaxed: true,
};
