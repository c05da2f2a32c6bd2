// What the lab's worker (web/pages/lab/lab-worker.js) holds and does: the task built from the corpus, part 1's
// trainer with its saved weights (every SNAP_EVERY steps) and held-out evaluations, the heatmaps' weights
// of any sentence at any saved step, and part 2's comparison. Plain JS over an AttnScope, so the page
// keeps no wasm on its own thread and node can run the same code (tests, benchmarks).
import { buildTask, chanceAccuracy, wordTokens, paraphraseTargets, isCross, positionBaseline, positionalShortcut, RULES } from './rules.js';
import { headTemperature, headWeights } from './head-model.js';
import { Comparison, LAB_TEMPERATURE } from './compare.js';

export const SNAP_EVERY = 5;      // steps between saved weights (the slider's unit)
export const EVAL_EVERY = 25;     // steps between held-out evaluations
export const MAX_STEPS = 500;     // a run stops here (Start over for another)
export const HEAD = { dHead: 16, positions: 'concat', dPos: 16, maxLen: 24, batch: 32, temperature: LAB_TEMPERATURE, mask: 'none' };

export class LabSession {
  constructor(scope, corpus) {
    this.scope = scope;
    this.corpus = corpus;
    this.embedCache = new Map();
    this.tasks = new Map();
    this.trainer = null;
    this.comparison = null;
  }

  embed(w) {
    let v = this.embedCache.get(w.lookup);
    if (!v) { v = this.scope.embed(w.lookup).vector; this.embedCache.set(w.lookup, v); }
    return v;
  }

  task(rule) {
    let t = this.tasks.get(rule);
    if (!t) {
      t = buildTask(this.corpus, rule, { tokenize: (x) => this.scope.tokenize(x), embed: (w) => this.embed(w), dIn: this.scope.vocabulary.dim, maxLen: HEAD.maxLen });
      t.chance = chanceAccuracy(t.heldOut.data);
      // What position alone gets right: a head that matches it from every word has learnt the position.
      t.baseline = positionBaseline(t.train.sentences, t.heldOut.sentences, { cross: isCross(rule) });
      this.tasks.set(rule, t);
    }
    return t;
  }

  /** The head's trainer options; learnTau: its temperature learnt (from τ = 1) instead of the lab's fixed τ. */
  trainerOptions({ learningRate, seed, learnTau = false }) {
    return { ...HEAD, dIn: this.scope.vocabulary.dim, learningRate, seed, ...(learnTau ? { temperature: 'learned' } : {}) };
  }

  /** A new run of part 1: { rule, score, learningRate, seed, learnTau } → what the page shows of it. */
  setup({ rule, score, learningRate, seed, learnTau = false }) {
    if (this.trainer) this.trainer.dispose();
    this.rule = rule;
    this.t = this.task(rule);
    this.trainer = this.scope.createTrainer({ data: this.t.train.data, ...this.trainerOptions({ learningRate, seed, learnTau }), score });
    this.snapshots = [{ step: 0, weights: this.trainer.weights() }];
    this.evals = [{ step: 0, ...this.trainer.evaluate(this.t.heldOut.data) }];
    this.shortcut = this.measureShortcut();
    const cross = isCross(rule);
    return {
      rule, score, learningRate, seed: this.trainer.options.seed, cross, learnTau,
      train: this.t.train.sentences.length, chance: this.t.chance,
      heldOut: this.t.heldOut.sentences.map((s) => (cross ? `${s.text} → ${s.paraphrase}` : s.text)),
      ...this.state(),
    };
  }

  /**
   * Trains a throwaway head (rule, score: the reader's) for about `ms`, then drops it. The page asks
   * for this once, after loading: the engine then compiles the hot training code with its optimising
   * tier (on background threads, ~0.3 s of CPU) before the reader presses Train, instead of during
   * the first run, where on a two-core machine that compiling competed with the page's frames.
   * Touches nothing of the current run. Returns the steps taken.
   */
  warmUp({ rule, score, ms = 150 }) {
    const t = this.task(rule);
    const trainer = this.scope.createTrainer({ data: t.train.data, ...this.trainerOptions({ learningRate: 0.01, seed: 1 }), score });
    const t0 = performance.now();
    try {
      while (performance.now() - t0 < ms) {
        trainer.step(SNAP_EVERY);
        trainer.weights();
      }
      trainer.evaluate(t.heldOut.data);
      return trainer.steps;
    } finally {
      trainer.dispose();
    }
  }

  /** Steps, losses, evaluations and saved steps of part 1 so far. */
  state() {
    const w = this.snapshots[this.snapshots.length - 1].weights;
    return { steps: this.trainer.steps, losses: this.trainer.losses, evals: this.evals, snaps: this.snapshots.length, maxSteps: MAX_STEPS,
      baseline: this.t.baseline, shortcut: this.shortcut, tau: headTemperature(w, this.trainer.options) };
  }

  /**
   * The head now against position alone (rules.js positionalShortcut) on the held-out sentences, with
   * the step it was measured at; null for a rule that is a position (previous, next, first).
   */
  measureShortcut() {
    const b = this.t.baseline;
    if (!b || b.train >= 0.99) return null;
    const o = this.trainer.options, w = this.snapshots[this.snapshots.length - 1].weights;
    const list = this.t.heldOut.sentences;
    const weights = list.map((_, i) => {
      const s = this.sentence({ held: i });
      return headWeights(this.scope, w, o, s.vectors, s.keyVectors);
    });
    return { step: this.trainer.steps, ...positionalShortcut(list, weights, b) };
  }

  /**
   * Trains part 1's head by SNAP_EVERY steps at a time: `count` steps (a multiple of SNAP_EVERY), or
   * for about `budgetMs` when count is not given; never past MAX_STEPS.
   */
  train({ count, budgetMs = 16 } = {}) {
    const t = this.trainer, t0 = performance.now();
    const until = count ? Math.min(MAX_STEPS, t.steps + count) : MAX_STEPS;
    while (t.steps < until) {
      t.step(Math.min(SNAP_EVERY, until - t.steps));
      this.snapshots.push({ step: t.steps, weights: t.weights() });
      if (t.steps % EVAL_EVERY === 0) {
        this.evals.push({ step: t.steps, ...t.evaluate(this.t.heldOut.data) });
        this.shortcut = this.measureShortcut();
      }
      if (!count && performance.now() - t0 >= budgetMs) break;
    }
    return this.state();
  }

  /**
   * Word tokens and vectors of a held-out sentence (index) or of the user's text; for the paraphrase
   * rule also of its paraphrase (keyTokens, keyVectors: the held-out one's, or the user's `keyText`),
   * with the rule's targets.
   */
  sentence({ held, text, keyText }) {
    const dIn = this.scope.vocabulary.dim;
    const cross = isCross(this.rule);
    if (text !== undefined) {
      const words = (t) => wordTokens(this.scope.tokenize(String(t).slice(0, 300))).slice(0, HEAD.maxLen);
      const vecs = (ws) => {
        const v = new Float32Array(ws.length * dIn);
        ws.forEach((w, i) => v.set(this.embed(w), i * dIn));
        return v;
      };
      const q = words(text);
      if (!q.length) return null;
      if (!cross) return { tokens: q.map((w) => w.text), vectors: vecs(q) };
      const k = words(keyText ?? '');
      if (!k.length) return null;
      return { tokens: q.map((w) => w.text), vectors: vecs(q), keyTokens: k.map((w) => w.text), keyVectors: vecs(k), targets: paraphraseTargets(q, k) };
    }
    const h = this.t.heldOut;
    const s = Math.max(0, Math.min(h.sentences.length - 1, held | 0));
    let at = 0, kat = 0;
    for (let i = 0; i < s; i++) {
      at += h.data.lengths[i];
      if (cross) kat += h.data.keyLengths[i];
    }
    const n = h.data.lengths[s];
    const out = { tokens: h.sentences[s].words, vectors: h.data.vectors.slice(at * dIn, (at + n) * dIn), targets: h.sentences[s].targets };
    if (cross) {
      const m = h.data.keyLengths[s];
      Object.assign(out, { keyTokens: h.sentences[s].keyWords, keyVectors: h.data.keyVectors.slice(kat * dIn, (kat + m) * dIn) });
    }
    return out;
  }

  /**
   * The heatmaps at saved step `snap` (an index; default the newest) for held-out sentence `held` and
   * the user's `own` text (and, for the paraphrase rule, `ownKey`, its paraphrase): { step, held:
   * { tokens, keyTokens, targets, before, after }, own: {…} | null }. keyTokens (the columns) are the
   * paraphrase's words for the paraphrase rule, else the sentence's own; before/after are
   * [tokens × keyTokens] row-major.
   */
  view({ snap, held = 0, own = '', ownKey = '' } = {}) {
    const i = snap === undefined ? this.snapshots.length - 1 : Math.max(0, Math.min(this.snapshots.length - 1, snap | 0));
    const o = this.trainer.options;
    const pair = (s) => s && {
      tokens: s.tokens, keyTokens: s.keyTokens || s.tokens, targets: s.targets || null,
      before: headWeights(this.scope, this.snapshots[0].weights, o, s.vectors, s.keyVectors),
      after: headWeights(this.scope, this.snapshots[i].weights, o, s.vectors, s.keyVectors),
    };
    return { snap: i, step: this.snapshots[i].step, held: pair(this.sentence({ held })), own: pair(this.sentence({ text: own, keyText: ownKey })) };
  }

  // ---- part 2 ----
  /**
   * Starts a comparison of `scores` (each with every output of `outputs`, default attention only) on
   * the current rule, learning rate and seed ({ rule, learningRate, seed, scores, outputs, steps }).
   */
  compareStart({ rule, learningRate, seed, scores, outputs = ['none'], steps }) {
    this.compareCancel();
    const t = this.task(rule);
    this.comparison = new Comparison(this.scope, {
      train: t.train.data, heldOut: t.heldOut.data, trainer: this.trainerOptions({ learningRate, seed }), scores, outputs, steps,
    });
    this.comparison.info = { rule, ruleLabel: RULES.find((r) => r.id === rule).label, learningRate, seed, steps, chance: t.chance,
      outputs: this.comparison.outputs };
    return this.comparison.progress();
  }

  /** Trains the comparison for about budgetMs: { progress, curves, done }. */
  compareAdvance(budgetMs = 30) {
    const c = this.comparison;
    if (!c) return null;
    const progress = c.advance(budgetMs);
    return { progress, curves: c.curves(), done: c.done, info: c.info };
  }

  compareCancel() {
    if (this.comparison) this.comparison.dispose();
    this.comparison = null;
  }
}
