// Lab part 3's classifier, McCarter's setting: one layer of attention as a whole network. The input
// point x ∈ R² is the query; the network has m learned keys K [m, 2] and values V [m, C], one row of
// class logits per key; its logits are softmax(score(x, K)/τ)·V — scope.attentionOutput() with x as
// the only query — and it is trained by Adam on the mean cross-entropy of the whole training set
// (one full batch per step). The gradient comes from scope.attentionBackward() given
// dL/dlogits = (softmax(logits) − onehot(y)) / n. Pure JS on top of a scope, no DOM: the page's
// worker, the tests and the benchmark share it. Deterministic for a seed.
import { Adam } from './prototypes-adam.js';
import { BOX, VIEW, normalRng, uniformRng } from './prototypes-data.js';

/** The scoring functions this part compares. */
export const SCORES = ['dot', 'scaled-dot', 'cosine', 'neg-euclidean', 'idw'];

/**
 * The starting parameters for a seed: keys uniform in the square the data lie in ([-BOX, BOX]²),
 * values N(0, 0.1²). Independent of the scoring function, so a comparison starts every function from
 * the same keys.
 */
export function initParams({ m, classes, seed }) {
  const u = uniformRng((seed ^ 0x5bd1e995) >>> 0);   // a stream of its own (not the data's)
  const g = normalRng(u);
  const K = new Float32Array(2 * m), V = new Float32Array(m * classes);
  for (let i = 0; i < K.length; i++) K[i] = BOX * (2 * u() - 1);
  for (let i = 0; i < V.length; i++) V[i] = 0.1 * g();
  return { K, V };
}

/** The attention options for n query points. */
export function attentionOptions(o, n) {
  return { nq: n, nk: o.m, d: 2, dv: o.classes, score: o.score, temperature: o.temperature ?? 1 };
}

/** The network's logits [n, C] for points X [n, 2]. */
export function logits(scope, X, n, K, V, o) {
  return scope.attentionOutput(X, K, V, attentionOptions(o, n));
}

/**
 * Mean cross-entropy of logits Z [n, C] against classes y, in float64; with `gradient`, also
 * dZ = (softmax(Z) − onehot(y)) / n as a Float32Array. Returns { loss, accuracy, hits, dZ? }.
 */
export function crossEntropy(Z, y, n, C, gradient = false) {
  let loss = 0, hits = 0;
  const dZ = gradient ? new Float32Array(n * C) : null;
  const p = new Float64Array(C);
  for (let i = 0; i < n; i++) {
    let max = -Infinity, arg = 0;
    for (let c = 0; c < C; c++) if (Z[i * C + c] > max) { max = Z[i * C + c]; arg = c; }
    let sum = 0;
    for (let c = 0; c < C; c++) { p[c] = Math.exp(Z[i * C + c] - max); sum += p[c]; }
    loss -= Z[i * C + y[i]] - max - Math.log(sum);
    if (arg === y[i]) hits++;
    if (dZ) for (let c = 0; c < C; c++) dZ[i * C + c] = (p[c] / sum - (c === y[i] ? 1 : 0)) / n;
  }
  return { loss: loss / n, accuracy: hits / n, hits, dZ };
}

/** Loss, accuracy and the gradients dK [m, 2], dV [m, C] of the mean cross-entropy on (X, y). */
export function lossAndGradient(scope, X, y, n, K, V, o) {
  const Z = logits(scope, X, n, K, V, o);
  const ce = crossEntropy(Z, y, n, o.classes, true);
  const g = scope.attentionBackward(X, K, V, ce.dZ, attentionOptions(o, n));
  return { loss: ce.loss, accuracy: ce.accuracy, dK: g.dK, dV: g.dV };
}

/** For each of the m keys, the Euclidean distance to the nearest of the n points X [n, 2], and which. */
export function nearestPoints(K, m, X, n) {
  const dist = new Float64Array(m), index = new Int32Array(m);
  for (let j = 0; j < m; j++) {
    let best = Infinity, at = -1;
    for (let i = 0; i < n; i++) {
      const dx = K[2 * j] - X[2 * i], dy = K[2 * j + 1] - X[2 * i + 1];
      const d2 = dx * dx + dy * dy;
      if (d2 < best) { best = d2; at = i; }
    }
    dist[j] = Math.sqrt(best);
    index[j] = at;
  }
  return { dist, index };
}

function median(xs) {
  const s = Array.from(xs).sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

/**
 * The data's own scale: the median, over the n points X [n, 2], of the distance from a point to its
 * nearest other point. A key this close to a training point sits on the data.
 */
const spacings = new WeakMap();
export function spacing(X, n) {
  let s = spacings.get(X);
  if (s !== undefined) return s;
  const nearest = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let best = Infinity;
    for (let k = 0; k < n; k++) {
      if (k === i) continue;
      const dx = X[2 * i] - X[2 * k], dy = X[2 * i + 1] - X[2 * k + 1];
      best = Math.min(best, dx * dx + dy * dy);
    }
    nearest[i] = Math.sqrt(best);
  }
  s = median(nearest);
  spacings.set(X, s);
  return s;
}

/** A key within ON_DATA × the data's spacing of a training point counts as on the data. */
export const ON_DATA = 2;

/**
 * How prototype-like the keys are, against the training set: the distance from each key to its
 * nearest training point (each, mean, median), the share of keys on the data (within ON_DATA × the
 * points' own spacing of one), and the share of keys whose own class (the argmax of its value row) is
 * the class of that nearest point.
 */
export function keyStats(K, V, o, train) {
  const { m, classes: C } = o;
  const { dist, index } = nearestPoints(K, m, train.X, train.n);
  const gap = spacing(train.X, train.n);
  let agree = 0, sum = 0, on = 0;
  const keyClass = new Uint8Array(m);
  for (let j = 0; j < m; j++) {
    let arg = 0;
    for (let c = 1; c < C; c++) if (V[j * C + c] > V[j * C + arg]) arg = c;
    keyClass[j] = arg;
    if (train.y[index[j]] === arg) agree++;
    if (dist[j] <= ON_DATA * gap) on++;
    sum += dist[j];
  }
  return { mean: sum / m, median: median(dist), dist, keyClass, agree: agree / m, onData: on / m, spacing: gap };
}

/**
 * Class and confidence over a res × res grid of cell centres covering [-view, view]² (row 0 at the
 * top, y = +view): { res, view, cls: Uint8Array, conf: Float32Array (the largest class probability) }.
 */
export function decisionGrid(scope, K, V, o, res = 60, view = VIEW) {
  const n = res * res, C = o.classes;
  const X = new Float32Array(2 * n);
  for (let r = 0; r < res; r++) {
    for (let c = 0; c < res; c++) {
      X[2 * (r * res + c)] = -view + ((c + 0.5) * 2 * view) / res;
      X[2 * (r * res + c) + 1] = view - ((r + 0.5) * 2 * view) / res;
    }
  }
  const Z = logits(scope, X, n, K, V, o);
  const cls = new Uint8Array(n), conf = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let max = -Infinity, arg = 0;
    for (let c = 0; c < C; c++) if (Z[i * C + c] > max) { max = Z[i * C + c]; arg = c; }
    let sum = 0;
    for (let c = 0; c < C; c++) sum += Math.exp(Z[i * C + c] - max);
    cls[i] = arg;
    conf[i] = 1 / sum;
  }
  return { res, view, cls, conf };
}

function checkOptions(o) {
  if (!SCORES.includes(o.score)) throw new RangeError(`score: expected one of ${SCORES.join(', ')}, got ${JSON.stringify(o.score)}`);
  if (!Number.isInteger(o.m) || o.m < 1 || o.m > 256) throw new RangeError(`m: expected a whole number of keys from 1 to 256, got ${o.m}`);
  if (!Number.isInteger(o.classes) || o.classes < 2 || o.classes > 8) throw new RangeError(`classes: expected 2 to 8, got ${o.classes}`);
  if (!(o.temperature > 0 && Number.isFinite(o.temperature))) throw new RangeError(`temperature: expected a positive number, got ${o.temperature}`);
}

/** The classifier and its optimiser. o: { score, m, classes, temperature, learningRate, seed }. */
export class PrototypeClassifier {
  /** @param {{ X: Float32Array, y: Uint8Array, n: number }} train */
  constructor(scope, train, o) {
    const opts = { temperature: 1, learningRate: 0.05, seed: 1, ...o };
    checkOptions(opts);
    this.scope = scope;
    this.train = train;
    this.options = opts;
    const { K, V } = initParams(opts);
    this.K = K;
    this.V = V;
    this.K0 = K.slice();
    this.adam = new Adam([this.K, this.V], { learningRate: opts.learningRate });
    this.losses = [];   // the training loss before each step
    this.steps = 0;
  }

  /** `count` Adam steps on the whole training set; returns their losses. */
  step(count = 1) {
    const t = this.train, out = [];
    for (let s = 0; s < count; s++) {
      const g = lossAndGradient(this.scope, t.X, t.y, t.n, this.K, this.V, this.options);
      this.adam.step([g.dK, g.dV]);
      this.losses.push(g.loss);
      out.push(g.loss);
      this.steps++;
    }
    return out;
  }

  /** { loss, accuracy } on a set { X, y, n } under the current parameters. */
  evaluate(set) {
    const Z = logits(this.scope, set.X, set.n, this.K, this.V, this.options);
    const { loss, accuracy } = crossEntropy(Z, set.y, set.n, this.options.classes);
    return { loss, accuracy };
  }

  keyStats() { return keyStats(this.K, this.V, this.options, this.train); }

  grid(res, view) { return decisionGrid(this.scope, this.K, this.V, this.options, res, view); }
}
