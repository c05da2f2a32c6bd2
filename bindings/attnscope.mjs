// attnscope, split build: attnscope-relaxed.wasm (relaxed SIMD), attnscope.wasm (SIMD) or attnscope-scalar.wasm (engines without wasm SIMD),
// and the vocabulary, fetched when asked for (createAttnScope({ preload: true }) or scope.loadVocabulary()).
// Where the files are found: split-build.mjs.
import { createScopeWith, engineHasRelaxedSimd, engineHasSimd } from './scope.mjs';
import { splitBuild } from './split-build.mjs';

/** @type {typeof import('./attnscope.js').createAttnScope} */
export function createAttnScope(options) {
  return createScopeWith(splitBuild, options);
}
export { engineHasRelaxedSimd, engineHasSimd };
// The pool of workers (pool.mjs): the same calls on every core.
export { createAttnPool } from './pool.mjs';
export default createAttnScope;
