// Scoring functions whose scores are bounded to a range. softmax(score / τ) then gives no weight more
// than e^((max − min)/τ) times another in its row: such a function cannot get sharp at τ = 1 (cosine:
// e² ≈ 7.4). Read by the lab's comparison text (lab/compare.js) and the pages' temperature rule
// (web/shared/temperature.js).
export const BOUNDED = Object.freeze({ cosine: Object.freeze([-1, 1]) });

/** The largest ratio of two weights in a row of a bounded score at τ, or null for an unbounded one. */
export function maxRatio(score, t) {
  const r = BOUNDED[score];
  return r ? Math.exp((r[1] - r[0]) / t) : null;
}
