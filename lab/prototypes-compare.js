// Lab part 3's comparison: every scoring function trained from the same seed (same data, same
// starting keys and values) for the same number of steps, then measured — test accuracy, and how
// far each key ended from its nearest training point — and the words that read the result. Pure
// JS on top of a scope: the page's worker, the tests and bench/lab-prototypes.mjs share it.
import { ON_DATA, PrototypeClassifier, SCORES } from './prototypes-model.js';

const CHUNK = 100;   // steps between two calls of `between` (the worker reads its messages there)

/**
 * Trains one classifier per score of `scores` on data d (makeData's result) with options o (the
 * classifier's, minus the score) for `steps` steps. opts: { grid (cells a side of each decision
 * picture, 0: none), between: async (stepsDone, stepsTotal, score) => void, scores }.
 * Returns { settings, results: [{ score, train, test, keys: { mean, median, agree, mean0, median0,
 * norm }, finalLoss, K, V, grid? }] }.
 */
export async function compareScores(scope, d, o, steps, { grid = 0, between = null, scores = SCORES } = {}) {
  const results = [];
  const total = steps * scores.length;
  let done = 0;
  for (const score of scores) {
    const model = new PrototypeClassifier(scope, d.train, { ...o, score });
    const start = model.keyStats();
    while (model.steps < steps) {
      model.step(Math.min(CHUNK, steps - model.steps));
      if (between) await between(done + model.steps, total, score);
    }
    done += steps;
    const k = model.keyStats();
    let norm = 0;
    for (let j = 0; j < o.m; j++) norm += Math.hypot(model.K[2 * j], model.K[2 * j + 1]);
    results.push({
      score,
      train: model.evaluate(d.train),
      test: model.evaluate(d.test),
      finalLoss: model.losses[model.losses.length - 1],
      keys: { mean: k.mean, median: k.median, agree: k.agree, onData: k.onData, spacing: k.spacing, mean0: start.mean, median0: start.median,
        onData0: start.onData, norm: norm / o.m, dist: k.dist, keyClass: k.keyClass },
      K: model.K.slice(),
      V: model.V.slice(),
      grid: grid ? model.grid(grid) : null,
    });
  }
  return {
    settings: { dataset: d.dataset, n: d.n, noise: d.noise, testFraction: d.testFraction, seed: o.seed, m: o.m,
      temperature: o.temperature, learningRate: o.learningRate, steps, classes: d.classes, nTrain: d.train.n, nTest: d.test.n },
    results,
  };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const num = (x) => x.toFixed(2);

/** The comparison as CSV: one line per scoring function, with the settings repeated on every line. */
export function comparisonCSV(c) {
  const s = c.settings;
  const head = ['score', 'test_accuracy', 'train_accuracy', 'test_loss', 'final_train_loss', 'key_to_nearest_mean', 'key_to_nearest_median',
    'key_to_nearest_mean_at_start', 'key_to_nearest_median_at_start', 'keys_on_data', 'data_spacing', 'keys_class_agrees', 'key_norm_mean', 'dataset', 'points', 'noise', 'test_fraction', 'seed', 'keys',
    'temperature', 'learning_rate', 'steps'];
  const lines = [head.join(',')];
  const n9 = (x) => String(Number(x.toPrecision(9)));
  for (const r of c.results) {
    lines.push([r.score, n9(r.test.accuracy), n9(r.train.accuracy), n9(r.test.loss), n9(r.finalLoss), n9(r.keys.mean), n9(r.keys.median),
      n9(r.keys.mean0), n9(r.keys.median0), n9(r.keys.onData), n9(r.keys.spacing), n9(r.keys.agree), n9(r.keys.norm), s.dataset, s.n, s.noise, s.testFraction, s.seed, s.m, s.temperature,
      s.learningRate, s.steps].join(','));
  }
  return lines.join('\n') + '\n';
}

/**
 * A few sentences that read this comparison's numbers: which function was most accurate, which
 * left its keys nearest the data, and what that says about McCarter's report that idw keys become
 * prototypes — for this data set and seed only. Cosine is left out of the distance ranking: a cosine
 * key's length gets no gradient, so where it sits says nothing learned. Returns paragraphs (plain text).
 */
export function readComparison(c) {
  const s = c.settings, r = c.results;
  const out = [];
  const acc = [...r].sort((a, b) => b.test.accuracy - a.test.accuracy);
  const best = acc[0].test.accuracy, worst = acc[acc.length - 1];
  const tied = acc.filter((x) => best - x.test.accuracy < 0.005).map((x) => x.score);
  let first;
  if (tied.length === r.length) first = `all ${r.length} functions reach ${pct(best)}`;
  else first = `${tied.length > 1 ? `${tied.join(', ')} tie at ${pct(best)}` : `${acc[0].score} is best at ${pct(best)}`}; ${worst.score} is lowest at ${pct(worst.test.accuracy)}`;
  out.push(`Test accuracy after ${s.steps} steps (${s.nTest} test points): ${first}. ` +
    `With one seed and ${s.nTest} test points, differences of a few points are within what another seed could change.`);
  const gap = r[0].keys.spacing, onLimit = ON_DATA * gap;
  const near = [...r].sort((a, b) => a.keys.median - b.keys.median);
  out.push(`Distance from a key to its nearest training point, median over the ${s.m} keys (mean in brackets): ` +
    near.map((x) => `${x.score} ${num(x.keys.median)} (${num(x.keys.mean)})`).join(', ') + `. For scale: a training point's nearest ` +
    `neighbour is a median ${num(gap)} away, and the keys started at a median ${num(r[0].keys.median0)}.`);
  const idw = r.find((x) => x.score === 'idw');
  if (idw) {
    const learned = near.filter((x) => x.score !== 'cosine');
    const others = learned.filter((x) => x !== idw);
    const rank = learned.indexOf(idw) + 1;
    const next = others[0];
    const nOn = Math.round(idw.keys.onData * s.m);
    const onText = `within ${num(onLimit)} of a training point, ${ON_DATA}× the points' spacing`;
    let verdict;
    if (rank === 1 && 2 * nOn >= s.m) {
      verdict = `Here ${nOn} of the ${s.m} idw keys ended on the data (${onText}), and their median distance, ${num(idw.keys.median)}, ` +
        `is the smallest of the learned keys (${next.score} next at ${num(next.keys.median)}): in line with what McCarter (2023) reports.`;
    } else if (rank === 1) {
      verdict = `Here the idw keys ended nearer the data than the other learned keys (median ${num(idw.keys.median)}; ${next.score} next at ` +
        `${num(next.keys.median)}), but only ${nOn} of the ${s.m} on it (${onText}): a weak sign of what McCarter (2023) reports, not a clear one.`;
    } else {
      verdict = `Here the idw keys did not end nearest the data (median ${num(idw.keys.median)}; ${learned[0].score} is nearer at ` +
        `${num(learned[0].keys.median)}; ${nOn} of the ${s.m} idw keys are ${onText}): this run does not show what McCarter (2023) reports.`;
    }
    const away = s.m - nOn;
    out.push(`${verdict}${away ? ` ${away} idw key${away > 1 ? 's' : ''} ended away from the data, where an inverse-distance weight is small.` : ''} ` +
      `${pct(idw.keys.agree)} of the idw keys carry the class (argmax of their value row) of their nearest training point.`);
  }
  if (r.some((x) => x.score === 'cosine')) {
    out.push('Cosine is left out of that ranking: it sees only a key\'s direction (its gradient is perpendicular to the key), so training does not set a cosine key\'s length, and its distance from the data says little.');
  }
  return out;
}
