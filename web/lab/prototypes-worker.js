// Lab part 3's computation, off the page's thread (web/lab-prototypes.js is its only caller, through
// comlink): a module worker holding the attnscope module (no vocabulary: this part needs none), the
// data set and the classifier being trained. Every answer carries what the page draws — keys, values,
// the decision regions, losses and accuracies — with its typed arrays transferred, not copied.
import * as Comlink from 'comlink';
import { createAttnScope } from 'attnscope';
import { makeData } from './prototypes-data.js';
import { PrototypeClassifier, SCORES, keyStats } from './prototypes-model.js';
import { compareScores } from './prototypes-compare.js';

const GRID = 60;   // cells a side of the decision-region picture
let scope = null, data = null, model = null, lossesSent = 0;
const channel = new MessageChannel();
/** Lets the worker read its messages between two parts of a long request. */
const breathe = () => new Promise((resolve) => { channel.port1.onmessage = () => resolve(); channel.port2.postMessage(0); });

function transferable(value) {
  const list = [];
  const walk = (v) => {
    if (ArrayBuffer.isView(v)) { list.push(v.buffer); return; }
    if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(value);
  return Comlink.transfer(value, [...new Set(list)]);
}

/** What the page draws for the current model. */
function snapshot(withData) {
  const losses = Float32Array.from(model.losses.slice(lossesSent));
  lossesSent = model.losses.length;
  return {
    step: model.steps,
    losses,
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

  /** `n` more training steps, then the picture. */
  advance(n) {
    model.step(n);
    return transferable(snapshot(false));
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
