// Types of the asset entries 'attnscope/model', 'attnscope/vocab-50k' and 'attnscope/vocab-10k'
// (dist/model.mjs, dist/vocab-50k.mjs, dist/vocab-10k.mjs). Importing one opts the app into its file:
// the app's bundler copies the file and its licence, and the scope's defaults find it.

/** Where an opted-in file and its licence are, once the app's bundler has put them in place. */
export interface AttnScopeAsset {
  /** The package's name of the file: 'use-lite.bin', 'glove-50k.bin' or 'glove-10k.bin'. */
  readonly file: string;
  /** Its URL (as rewritten by the app's bundler): pass it as `loadModel({ model })` or `vocabulary`, or let the defaults find it. */
  readonly url: URL;
  /** The URL of its licence file (use-lite.LICENSE, glove.LICENSE): ship it, link it. */
  readonly license: URL;
  /** The licence's SPDX identifier: 'Apache-2.0' (the model) or 'PDDL-1.0' (the word vectors). */
  readonly licenseName: string;
}
declare const asset: AttnScopeAsset;
export default asset;
