// Types of 'attnscope/pool' (dist/pool.mjs): the pool of workers, the scope's calls on every core.
import type { AttnPool, PoolOptions } from './attnscope.js';
export type { AttnPool, PoolCallOptions, PoolOptions } from './attnscope.js';

/**
 * Starts `workers` workers (worker_threads in Node, module workers in browsers; no
 * SharedArrayBuffer, no cross-origin isolation needed), each with one wasm instance, and resolves
 * to an {@link AttnPool} once all are ready. The workers find the assets the app opted into
 * (`import 'attnscope/vocab-50k'`) where the app's bundler put them.
 * @example
 * import { createAttnPool } from 'attnscope/pool';
 * const pool = await createAttnPool();
 * const O = await pool.attentionOutput(Q, K, V, { nq: 4096, nk: 4096, d: 64, dv: 64, signal });
 * await pool.dispose();
 */
export function createAttnPool(options?: PoolOptions): Promise<AttnPool>;
