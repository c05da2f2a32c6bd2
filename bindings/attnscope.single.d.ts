// Type declarations for 'attnscope/single' (dist/attnscope.single.mjs): the same API as 'attnscope',
// with the SIMD wasm and the 10,000-word vocabulary inlined in one file. Shipped as
// dist/attnscope.single.d.ts next to dist/attnscope.d.ts, whose types it re-exports.
import type { AttnScope, CreateOptions } from './attnscope.js';

export * from './attnscope.js';

/** Options of the single-file build's {@link createAttnScope}. */
export interface SingleCreateOptions extends Omit<CreateOptions, 'simd' | 'vocabulary'> {
  /**
   * Word vectors:
   * - `'small'` (default): GloVe 6B 100d, the 10,000 most frequent words, inlined in this file, so
   *   `attend()` works at once, with no download and no `preload`
   * - `'default'`: the 50,000-word `glove-50k.bin`, which this file does not carry: pass `locateFile`
   *   to say where it is served (or import `'attnscope'`, the split build)
   * - the bytes or the URL of a vocabulary file of your own (`docs/vocab-format.md`)
   */
  vocabulary?: 'small' | 'default' | ArrayBuffer | Uint8Array | URL | (string & {});
  /** This file holds only the SIMD wasm: `false` is refused (use `'attnscope'` on engines without wasm SIMD). */
  simd?: true;
}

/**
 * Creates an {@link AttnScope} from this one file: the SIMD wasm and the 10,000-word vocabulary are
 * inlined (1.8 MB), so nothing else is fetched. Needs an engine with WebAssembly SIMD.
 * @example
 * import { createAttnScope } from 'attnscope/single';
 * const scope = await createAttnScope();
 * const r = scope.attend({ query: 'The cat sat on the mat.' });
 */
export function createAttnScope(options?: SingleCreateOptions): Promise<AttnScope>;
export default createAttnScope;
