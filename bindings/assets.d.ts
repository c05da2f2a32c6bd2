// Types of the asset entries 'attnscope/model', 'attnscope/vocab-50k', 'attnscope/vocab-10k' and
// 'attnscope/scalar' (dist/model.mjs, dist/vocab-50k.mjs, dist/vocab-10k.mjs, dist/scalar.mjs). Importing one opts the app into its file:
// the app's bundler copies the file and its licence, and the scope's defaults find it.

/** Where an opted-in file and its licence are, once the app's bundler has put them in place. */
export interface AttnScopeAsset {
  /** The package's name of the file: 'use-lite.bin', 'glove-50k.bin', 'glove-10k.bin' or 'attnscope-scalar.wasm'. */
  readonly file: string;
  /** Its URL (as rewritten by the app's bundler): pass it as `loadModel({ model })` or `vocabulary`, or let the defaults find it. */
  readonly url: URL;
  /** The URL of its licence file (use-lite.LICENSE, glove.LICENSE; attnscope.LICENSE, the package's own, for the scalar build): ship it, link it. */
  readonly license: URL;
  /** The licence's SPDX identifier: 'Apache-2.0' (the model), 'PDDL-1.0' (the word vectors) or 'MIT' (the scalar build). */
  readonly licenseName: string;
}
declare const asset: AttnScopeAsset;
export default asset;
