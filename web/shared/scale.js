// Sizes at which the page changes how it draws a long document (issue 11). Shared by the page
// (demo.js), its worker (demo-worker.js) and the figures, so the numbers live in one place.

/** Above this many tokens on either side, the comparison of scoring functions, "Why this weight?"'s
 * table and the teaching panels use the first SMALL_TOKENS tokens of each side (a 2,000-token
 * document would otherwise cost every scoring function a full 2,000 × 2,000 call). */
export const SMALL_TOKENS = 64;

/** From this many tokens on either side, the heatmap is the canvas one (overview + zoomed detail)
 * and the line view draws only the selected tokens' strongest links. */
export const LARGE_FROM = 65;

/** Above this many (head, query, key) links, the line view draws only the selected tokens' strongest
 * links even below LARGE_FROM: 10 heads of 64 × 64 tokens were 41,000 <line>s, and every change of
 * the scoring function blocked the page for about 400 ms. */
export const MAX_LINKS = 8192;

/** Links per selected query token the line view draws at large n. */
export const LINES_TOP = 8;

/** A computation still running after this long is terminated (worker respawned) when a newer
 * request comes, instead of being waited for; it also makes the progress bar and Cancel appear. */
export const LONG_MS = 100;

/** The second answer (the comparison, "Why this weight?", the teaching panels) is asked for this
 * long after the first is drawn, unless a newer change came meanwhile: while someone types, the
 * worker computes only what the heatmap needs, and a keystroke never waits for the comparison of
 * the previous one (at 128 tokens it did: keystroke → redraw took 51 ms, issue 11). */
export const EXTRAS_AFTER_MS = 80;

/** From this many cells (heads × n_q × n_k) the heads' pictures are built by the worker and come with
 * the second answer (max-pooling 2,000 × 2,000 weights took the page 40 ms a head); below, the page
 * builds them itself, after the heatmap's frame (10 heads of 64 × 64: about 1 ms), which keeps them
 * off the way from a keystroke to the heatmap. */
export const HEAD_IMAGES_FROM = 1 << 20;

/** From this many cells (heads × n_q × n_k), with at least two heads, the demo's worker computes the
 * main attention call on its pool of workers (createAttnPool: the heads split over every core; the
 * same numbers). Below, one call in the worker is quicker than the messages (10 heads of 64 × 64 is
 * 41,000 cells): small inputs keep the single fast path. */
export const POOL_FROM = 1 << 20;

/** The pool's workers: the machine's cores (the demo's worker and the page wait while it runs), at
 * most this many (each holds a wasm instance and the 6 MB vocabulary). */
export const POOL_MAX_WORKERS = 8;
