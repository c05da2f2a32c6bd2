// Lab part 3's data (web/pages/lab-prototypes/lab-prototypes.html): 2-D points in classes, generated in the page from a
// seed — blobs, two moons, two spirals, XOR — and split into a training and a test set with every
// class split in the same proportion. Pure JS, no DOM: the page's worker, the tests and the
// benchmark all use it. Same options → same points, bit for bit.

import { mulberry32 } from './random.js';

/** The data sets: id, label (for the page's menu), classes. */
export const DATASETS = [
  { id: 'blobs', label: 'Blobs (3 classes)', classes: 3 },
  { id: 'moons', label: 'Two moons', classes: 2 },
  { id: 'spirals', label: 'Two spirals', classes: 2 },
  { id: 'xor', label: 'XOR (four quadrants)', classes: 2 },
];
export const DATASET_IDS = DATASETS.map((d) => d.id);
/** Every point lies in [-BOX, BOX]² before noise; the page draws [-VIEW, VIEW]². */
export const BOX = 1.5;
export const VIEW = 2.2;

/**
 * A small seeded generator of uniform numbers in [0, 1): mulberry32 (lab/random.js) from the seed mixed
 * with 0x9e3779b9, so the lab's streams are not the pages' for the same seed. Deterministic for a seed,
 * plenty for drawing points.
 */
export function uniformRng(seed) {
  return mulberry32((seed >>> 0) ^ 0x9e3779b9);
}

/** Standard normal numbers from a uniform generator (Box–Muller, both values used). */
export function normalRng(uniform) {
  let spare = null;
  return () => {
    if (spare !== null) { const s = spare; spare = null; return s; }
    let u = 0;
    while (u === 0) u = uniform();
    const v = uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

function check(o) {
  const { dataset, n, noise, testFraction, seed } = o;
  if (!DATASET_IDS.includes(dataset)) throw new RangeError(`dataset: expected one of ${DATASET_IDS.join(', ')}, got ${JSON.stringify(dataset)}`);
  if (!Number.isInteger(n) || n < 20 || n > 5000) throw new RangeError(`n: expected a whole number of points from 20 to 5000, got ${n}`);
  if (!(noise >= 0 && noise <= 1)) throw new RangeError(`noise: expected a number from 0 to 1, got ${noise}`);
  if (!(testFraction > 0 && testFraction < 1)) throw new RangeError(`testFraction: expected a number between 0 and 1, got ${testFraction}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`seed: expected a whole number from 0 to 4294967295, got ${seed}`);
}

/** One point of class c of the data set (before noise), from the uniform generator u. */
function shape(dataset, c, u, classes) {
  switch (dataset) {
    case 'blobs': {
      // Centres on a circle of radius 1, a Gaussian cloud (σ = 0.3) round each.
      const a = Math.PI / 2 + (2 * Math.PI * c) / classes;
      return [Math.cos(a), Math.sin(a), 0.3];
    }
    case 'moons': {
      // Two interleaved half circles of radius 1, centred on the origin.
      const t = Math.PI * u();
      return c === 0 ? [Math.cos(t) - 0.5, Math.sin(t) - 0.25, 0] : [0.5 - Math.cos(t), 0.25 - Math.sin(t), 0];
    }
    case 'spirals': {
      // Two arms, one and a half turns each, the second the first turned by π.
      const t = 0.15 + 0.85 * Math.sqrt(u());   // denser far out, where the arm is longer
      const a = 3 * Math.PI * t + c * Math.PI;
      return [BOX * t * Math.cos(a), BOX * t * Math.sin(a), 0];
    }
    case 'xor': {
      // Uniform in a quadrant: class 0 where x and y have the same sign.
      const sx = u() < 0.5 ? -1 : 1;
      const sy = c === 0 ? sx : -sx;
      return [sx * BOX * u(), sy * BOX * u(), 0];
    }
    default: throw new RangeError(`dataset: ${dataset}`);
  }
}

/**
 * Generates a data set. o: { dataset, n (points, 20–5000), noise (σ of the Gaussian added to every
 * point, 0–1), testFraction (0–1), seed }. Point i has class i mod C, so the classes differ in size
 * by at most one; within each class the points are shuffled and the first round((1 − testFraction)·n_c)
 * go to training. Returns { dataset, classes, X: Float32Array [n, 2], y: Uint8Array [n],
 * train: { X, y, n }, test: { X, y, n } }.
 */
export function makeData(o) {
  const opts = { testFraction: 0.3, noise: 0.1, ...o };
  check(opts);
  const { dataset, n, noise, testFraction, seed } = opts;
  const classes = DATASETS.find((d) => d.id === dataset).classes;
  const u = uniformRng(seed);
  const g = normalRng(u);
  const X = new Float32Array(2 * n), y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const c = i % classes;
    const [x0, x1, spread] = shape(dataset, c, u, classes);
    const s = Math.hypot(spread, noise);
    X[2 * i] = x0 + s * g();
    X[2 * i + 1] = x1 + s * g();
    y[i] = c;
  }
  // The split, class by class (a Fisher–Yates shuffle of each class's indices).
  const trainIdx = [], testIdx = [];
  for (let c = 0; c < classes; c++) {
    const idx = [];
    for (let i = c; i < n; i += classes) idx.push(i);
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(u() * (i + 1));
      [idx[i], idx[j]] = [idx[j], idx[i]];
    }
    const nTrain = Math.round((1 - testFraction) * idx.length);
    trainIdx.push(...idx.slice(0, nTrain));
    testIdx.push(...idx.slice(nTrain));
  }
  const pick = (idx) => {
    idx.sort((a, b) => a - b);
    const Xs = new Float32Array(2 * idx.length), ys = new Uint8Array(idx.length);
    idx.forEach((i, k) => { Xs[2 * k] = X[2 * i]; Xs[2 * k + 1] = X[2 * i + 1]; ys[k] = y[i]; });
    return { X: Xs, y: ys, n: idx.length };
  };
  return { dataset, classes, n, noise, seed, testFraction, X, y, train: pick(trainIdx), test: pick(testIdx) };
}
