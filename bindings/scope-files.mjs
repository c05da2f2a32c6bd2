// The package's data files an app opts into. The core (attnscope.mjs, split-build.mjs) names only its wasm
// in literal new URL('./file', import.meta.url) expressions, so a bundler copies only the wasm into an app
// that never imports anything else. The trained model and the vocabularies are asset modules of their own
// (attnscope/model, attnscope/vocab-50k, attnscope/vocab-10k: model.mjs, vocab-50k.mjs, vocab-10k.mjs),
// each the one module that names its file and the file's licence; importing one registers it here, and
// the scope's defaults (scope.loadModel(), the 'default' and 'small' vocabularies) then find it.
// onnxruntime-web and transformers.js apps know the shape: the library holds the code and the wasm, the
// model is an asset the app asks for.

// Which module opts into which file: what an error says to import.
export const ASSET_MODULES = Object.freeze({
  'use-lite.bin': 'attnscope/model',
  'glove-50k.bin': 'attnscope/vocab-50k',
  'glove-10k.bin': 'attnscope/vocab-10k',
});

const optedIn = new Map();

/**
 * Registers an asset an app imported: { file, url: URL, license: URL, licenseName }. Returns it (frozen).
 * A second registration of the same file (a module evaluated twice by a bundler) keeps the first.
 */
export function optIn(asset) {
  if (!optedIn.has(asset.file)) optedIn.set(asset.file, Object.freeze(asset));
  return optedIn.get(asset.file);
}

/** The URL of `file` when the app opted into it, else null. */
export function optedInUrl(file) {
  const a = optedIn.get(file);
  return a ? a.url : null;
}

/** { file: absolute URL string } of every asset opted into (handed to the pool's workers). */
export function optedInFiles() {
  return Object.fromEntries([...optedIn.values()].map((a) => [a.file, a.url.href]));
}

/** What to do when `file` was not opted into and the package's files are not beside the wasm. */
export function optInHint(file) {
  const from = ASSET_MODULES[file];
  if (!from) return null;
  return `${file} is an asset your app opts into: add import '${from}'; once (your bundler then copies ${file} and its licence), ` +
    'or pass the file\'s URL or bytes yourself';
}
