// attnscope, split build: attnscope.wasm (SIMD) or attnscope-scalar.wasm (engines without wasm SIMD),
// found next to this module (or through options.locateFile), and the vocabulary loaded on creation.
import { createScopeWith, engineHasSimd } from './scope.mjs';

const build = {
  baseUrl: import.meta.url,
  loadFactory: async (simd) => (simd ? await import('./attnscope-wasm.mjs') : await import('./attnscope-scalar-wasm.mjs')).default,
  wasmFile: (simd) => (simd ? 'attnscope.wasm' : 'attnscope-scalar.wasm'),
};

/** @type {typeof import('./attnscope.js').createAttnScope} */
export function createAttnScope(options) {
  return createScopeWith(build, options);
}
export { engineHasSimd };
export default createAttnScope;
