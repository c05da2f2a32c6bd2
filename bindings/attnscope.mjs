// attnscope, split build: attnscope-relaxed.wasm (relaxed SIMD), attnscope.wasm (SIMD) or attnscope-scalar.wasm
// (engines without wasm SIMD): the only files this entry names, so the only ones a bundler copies for it.
// The vocabularies and the trained model are assets an app opts into (import 'attnscope/vocab-50k',
// 'attnscope/vocab-10k', 'attnscope/model': scope-files.mjs), fetched when asked for
// (createAttnScope({ preload: true }), scope.loadVocabulary(), scope.loadModel()); the pool of workers
// is its own entry (attnscope/pool). Where the files are found: split-build.mjs.
import { createScopeWith, engineHasRelaxedSimd, engineHasSimd } from './scope.mjs';
import { splitBuild } from './split-build.mjs';

/** @type {typeof import('./attnscope.js').createAttnScope} */
export function createAttnScope(options) {
  return createScopeWith(splitBuild, options);
}
export { engineHasRelaxedSimd, engineHasSimd };

// The pool of workers moved to its own entry so that an app that does not use it ships no worker
// (a bundler copies the worker module of every pool it sees imported). Kept here to say so.
/** @type {typeof import('./attnscope.js').createAttnPool} */
export function createAttnPool() {
  return Promise.reject(new Error("createAttnPool: the pool of workers is the package's entry 'attnscope/pool': " +
    "import { createAttnPool } from 'attnscope/pool'; (from this entry, an app that never used the pool shipped its worker)"));
}
export default createAttnScope;
