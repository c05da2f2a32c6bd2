// Source of dist/attnscope.cjs, the package's CommonJS entry: require('attnscope') on Node 18 and on any
// Node without require(esm) (Node < 20.19, or with --no-experimental-require-module).
// It is a thin loader, not a second build of the library: createAttnScope() is asynchronous anyway, so
// it loads the ES module (./attnscope.mjs) with import(), which CommonJS has had since Node 12, and
// hands the call over. One copy of the code runs whichever way it was loaded: a scope made through
// require() and one made through import are the same class (options.sharing accepts either), and the
// wasm and vocabulary are found next to the ES module as always. engineHasSimd() stays synchronous:
// esbuild copies it (and only it) from scope-assets.mjs into the CommonJS file.
export { engineHasRelaxedSimd, engineHasSimd } from './scope-assets.mjs';

/** @type {typeof import('./attnscope.js').createAttnScope} */
export function createAttnScope(options) {
  return import('./attnscope.mjs').then((m) => m.createAttnScope(options));
}
/** @type {typeof import('./attnscope.js').createAttnPool} */
export function createAttnPool(options) {
  // Node bundles nothing: the pool's own entry, loaded only when called.
  return import('./pool.mjs').then((m) => m.createAttnPool(options));
}
export default createAttnScope;
