// The temperature τ a scoring function is meant to be used with, and what a τ kept from another
// function does to it. A page's τ follows the scoring function until the visitor moves it; once moved
// it is kept across functions, and the page says when the kept value changes what a function means
// (scaled-dot at τ = 1/√d is plain dot; cosine, whose scores lie in [−1, 1], cannot get sharp at τ = 1).

// The width of the vocabulary's vectors (GloVe 100d); a head has EMBED_DIM / heads of them.
export const EMBED_DIM = 100;

// Scores bounded to a range (lab/score-range.js): softmax(score / τ) can then give no weight more than
// e^((max − min)/τ) times another in its row, so such a function needs a small τ to single one key out.
import { BOUNDED, maxRatio } from '../../lab/score-range.js';

export { BOUNDED, maxRatio };

/** The τ a scoring function is used with where the visitor has not chosen one: 0.1 for a bounded score, else 1. */
export function naturalT(score) {
  return BOUNDED[score] ? 0.1 : 1;
}

/**
 * The temperatures the trained model's head can be re-scored at (the demo's menu, its link's
 * head-temperature, the element's head-temperature attribute): 1 is the model's own.
 */
export const HEAD_TEMPERATURES = Object.freeze([2, 1, 0.5, 0.2, 0.1, 0.05]);

/** The head width d of `heads` heads over the vocabulary's vectors (what scaled-dot divides by √d). */
export const headDim = (heads) => Math.max(1, Math.floor(EMBED_DIM / heads));

const num = (x) => Number(x.toPrecision(3)).toString();
/** e^x as text with 3 significant digits ("7.39", "4.85e+8"). */
export function expText(x) {
  const v = Math.exp(x);
  return v < 1e6 ? num(v) : v.toExponential(2).replace('e+', ' × 10^');
}

/** Below this largest ratio of two weights in a row, a weighting is not sharp (one key cannot take ~all). */
export const SHARP = 100;


/**
 * A sentence saying what τ = t does to `score` when it differs from the function's own τ in a way
 * that changes its meaning, or '' when it does not. `heads` sets the head width d.
 */
export function temperatureNote(score, t, { heads = 1 } = {}) {
  const own = naturalT(score);
  if (t === own) return '';
  const d = headDim(heads);
  const root = Math.sqrt(d);
  const close = (a, b) => Math.abs(a - b) <= 0.01 * b;
  if (score === 'scaled-dot') {
    const div = t * root;
    const as = close(div, 1) ? ': it behaves as plain dot, its 1/√d scaling undone' : '';
    return `Scaled-dot at τ = ${num(t)} divides q·k by τ·√d = ${num(t)} × √${d} = ${num(div)}${as}. `
      + `Its own temperature is τ = ${own}.`;
  }
  if (score === 'dot' && close(t, root)) {
    return `Dot at τ = ${num(t)} = √d (d = ${d}) divides q·k by √d: it is scaled-dot. Its own temperature is τ = ${own}.`;
  }
  const range = BOUNDED[score];
  // Only where the bound bites: a row whose largest ratio is under SHARP cannot single one key out.
  if (range && maxRatio(score, t) < SHARP) {
    const lo = String(range[0]).replace('-', '−');
    return `${score[0].toUpperCase()}${score.slice(1)} scores lie in [${lo}, ${range[1]}], so at τ = ${num(t)} `
      + `no weight can be more than e^(${range[1] - range[0]}/τ) ≈ ${expText((range[1] - range[0]) / t)} times another in its row: `
      + `it cannot get sharp. Its usual temperature is τ = ${own}.`;
  }
  return '';
}
