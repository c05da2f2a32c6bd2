// attnscope, single-file build: the SIMD wasm and the small (10,000-word) vocabulary are inlined, so
// this one file works from a CDN or a page opened from disk, and a bundler has nothing to copy.
// Engines without wasm SIMD need the split build.
import factory from './attnscope-single-wasm.mjs';
import { vocabularyBase64 } from './glove-10k.base64.mjs';
import { createScopeWith, engineHasSimd } from './scope.mjs';

function decodeBase64(b64) {
  if (typeof atob === 'function') {
    // A plain loop: Uint8Array.from(string, mapFn) walks the string's iterator and calls mapFn per
    // character, about 20× slower on the 1.1 MB vocabulary (half a second of every page load).
    const text = atob(b64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

let smallVocabulary;
const build = {
  // No file of its own to locate: other vocabularies come as bytes, a URL, or through locateFile.
  file: () => null,
  loadFactory: async (kind) => {
    if (kind === 'scalar') throw new Error('attnscope.single.mjs needs WebAssembly SIMD; use the split build (attnscope.mjs) on this engine');
    return factory;
  },
  wasmFile: () => null,
  smallVocabulary: () => (smallVocabulary ??= decodeBase64(vocabularyBase64)),
};

/** @type {typeof import('./attnscope.single.js').createAttnScope} */
export function createAttnScope(options) {
  return createScopeWith(build, options);
}
export { engineHasSimd };
export default createAttnScope;
