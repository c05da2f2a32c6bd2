// Lab part 3's computation, off the page's thread (web/pages/lab-prototypes/lab-prototypes.js is its only caller, through
// comlink): a module worker holding the attnscope module (no vocabulary: this part needs none), the
// data set and the classifier being trained. Every answer carries what the page draws — keys, values,
// the decision regions, losses and accuracies — with its typed arrays transferred, not copied.
import * as Comlink from 'comlink';
import { transferable } from '../../shared/transfer.js';
import { createAttnScope } from 'attnscope';
import { makeData } from '../../../lab/prototypes-data.js';
import { PrototypeClassifier, SCORES, keyStats } from '../../../lab/prototypes-model.js';
import { compareScores } from '../../../lab/prototypes-compare.js';

const GRID = 60;         // cells a side of the decision-region picture
const TRAIL_EVERY = 5;   // steps between two saved key positions (the keys' trails)
const EVAL_EVERY = 25;   // steps between two test-set evaluations (the dots on the curves)
let scope = null, data = null, model = null, lossesSent = 0;
const channel = new MessageChannel();
/** Lets the worker read its messages between two parts of a long request. */
const breathe = () => new Promise((resolve) => { channel.port1.onmessage = () => resolve(); channel.port2.postMessage(0); });

/**
 * What the page draws for the current model; `trail`: the keys at each TRAIL_EVERY-th step since the
 * last answer, `evals`: the test set's { step, loss, accuracy } at each EVAL_EVERY-th step since then.
 */
function snapshot(withData, trail = [], evals = []) {
  const losses = Float32Array.from(model.losses.slice(lossesSent));
  lossesSent = model.losses.length;
  return {
    step: model.steps,
    losses,
    trail,
    evals,
    K: model.K.slice(),
    V: model.V.slice(),
    train: model.evaluate(data.train),
    test: model.evaluate(data.test),
    keys: { ...keyStats(model.K, model.V, model.options, data.train), median0: keyStats(model.K0, model.V, model.options, data.train).median },
    grid: model.grid(GRID),
    data: withData ? { classes: data.classes, train: { X: data.train.X.slice(), y: data.train.y.slice(), n: data.train.n },
      test: { X: data.test.X.slice(), y: data.test.y.slice(), n: data.test.n } } : null,
  };
}

const api = {
  async init() {
    scope = await createAttnScope({ locateFile: (path) => new URL(path, import.meta.url).href });
    return { isa: scope.variants.isa, scores: SCORES };
  },

  /** A new data set and a new classifier from cfg = { data: makeData's options, model: the classifier's }. */
  configure(cfg) {
    data = makeData(cfg.data);
    model = new PrototypeClassifier(scope, data.train, { ...cfg.model, classes: data.classes });
    lossesSent = 0;
    return transferable(snapshot(true));
  },

  /**
   * Trains a throwaway copy of the current classifier (same data and settings) for about `ms`, with
   * the pictures the page asks for between steps. The page asks once, after loading, so the engine
   * compiles the hot code with its optimising tier before the reader presses Train rather than while
   * the first run plays. The current run is left as it is. Returns the steps taken.
   */
  warmUp(ms = 120) {
    const copy = new PrototypeClassifier(scope, data.train, { ...model.options });
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      copy.step(TRAIL_EVERY);
      copy.evaluate(data.test);
      copy.grid(GRID);
    }
    return copy.steps;
  },

  /**
   * More training, then the picture: `n` more steps, or (an object { budgetMs, until }) as many as
   * fit in about budgetMs (at least TRAIL_EVERY), never past step `until`. Steps go in chunks that end
   * on multiples of TRAIL_EVERY, so the trails and the test evaluations fall on the same steps however
   * the page slices the run.
   */
  advance(arg) {
    const t0 = performance.now();
    const budget = typeof arg === 'number' ? Infinity : arg.budgetMs;
    const until = typeof arg === 'number' ? model.steps + arg : arg.until;
    const trail = [], evals = [];
    while (model.steps < until) {
      model.step(Math.min(TRAIL_EVERY - (model.steps % TRAIL_EVERY), until - model.steps));
      if (model.steps % TRAIL_EVERY === 0) trail.push(model.K.slice());
      if (model.steps % EVAL_EVERY === 0) { const t = model.evaluate(data.test); evals.push({ step: model.steps, loss: t.loss, accuracy: t.accuracy }); }
      if (performance.now() - t0 >= budget) break;
    }
    return transferable(snapshot(false, trail, evals));
  },

  /**
   * Every scoring function of SCORES trained from the same seed on the same data for `steps` steps;
   * progress(done, total, score) between chunks of steps.
   */
  async compare(cfg, steps, progress) {
    const d = makeData(cfg.data);
    const out = await compareScores(scope, d, { ...cfg.model, classes: d.classes }, steps, {
      grid: GRID,
      between: async (done, total, score) => { if (progress) await progress(done, total, score); await breathe(); },
    });
    out.data = { train: d.train, test: d.test };
    return transferable(out);
  },
};

Comlink.expose(api);
