// The transformer page's training, as the worker holds it (web/pages/transformer/transformer-worker.js):
// one task (web/pages/transformer/tasks.js) and one model trained in slices of a few tens of
// milliseconds, its parameters saved at every evaluation so the slider can show any of those steps,
// and a comparison that trains the same task once per scoring function. No DOM: tests run it in node
// (tests/js/transformer-session.test.mjs).
import { makeTask, generate } from './tasks.js';
import { TASK_VIEWS } from './reading.js';

/** Steps between two evaluations (held-out loss and accuracy, the task's measure) and saved parameters. */
export const EVAL_EVERY = 50;
/** Steps a run may take when its task names no number (the page's Train stops there). */
export const DEFAULT_MAX_STEPS = 10000;
/** Saved parameter sets kept at most; beyond, every other one is dropped (the slider's steps get coarser). */
export const MAX_SNAPS = 120;

const now = () => performance.now();

/** The labels of every head of a model config, as the API writes them ('L.H', or 'encoder.L.H' …). */
export function headLabels(config) {
  const { layers, heads, kind } = config;
  const out = [];
  const stacks = kind === 'encoder-decoder' ? ['encoder', 'decoder', 'cross'] : [''];
  for (const s of stacks) {
    for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) out.push(s ? `${s}.${l}.${h}` : `${l}.${h}`);
  }
  return out;
}

/** { label: name } for every head from `scores` (one name, or a map over some heads) over `fallback`. */
export function scoreMap(config, scores, fallback) {
  const labels = headLabels(config);
  const out = {};
  for (const label of labels) {
    const f = typeof fallback === 'string' ? fallback : (fallback && fallback[label]) || 'scaled-dot';
    out[label] = typeof scores === 'string' ? scores : (scores && scores[label]) || f;
  }
  return out;
}

/**
 * A task's measure as the page reads it: { metric, heads, reached } — metric: the number the target is
 * about (the best layer-1 head's prefix-matching score, the held-out words' accuracy, bits per
 * character), heads: one number per head where the task has one (prefix matching; the cross-attention
 * heads' weight on the aligned letter), reached: the task's target met.
 */
export function readMeasure(task, m) {
  if (task.name === 'induction') return { metric: m.best.score, best: m.best.head, heads: m.prefixMatching, reached: !!m.reached, plain: m.plain, reversed: m.reversed };
  if (task.name === 'reversal') return { metric: m.accuracy, heads: m.alignment, reached: !!m.reached };
  return { metric: m.bitsPerChar, heads: null, reached: !!m.reached };
}

class Run {
  constructor(scope, task, { scores, temperature, learningRate, seed }) {
    this.task = task;
    this.scores = scoreMap(task.config, scores, task.defaultScores);
    this.temperature = temperature;
    this.learningRate = learningRate;
    this.seed = seed;
    this.model = scope.createModel({ ...task.config, score: this.scores, temperature, seed });
    try {
      this.model.setTokens(task.tokens);   // saved with it: <attn-scope> reads text into ids with them
      this.trainer = scope.createModelTrainer(this.model, {
        data: task.train, batch: task.training.batch, learningRate, weightDecay: task.training.weightDecay, seed,
      });
    } catch (e) {
      this.model.dispose();
      throw e;
    }
    this.losses = [];
    this.evals = [];
    this.snaps = [];
    this.evaluate();
  }

  get steps() { return this.losses.length; }

  /** Held-out loss and accuracy and the task's measure, at this step; the parameters saved with them. */
  evaluate() {
    const e = this.trainer.evaluate(this.task.held);
    const m = readMeasure(this.task, this.task.measure(this.model));
    // A target of held-out accuracy is read on every held-out example (the trainer's evaluation), not on
    // the measure's sample: the number the page prints is the one the target is about.
    if (this.task.target.metric === 'accuracy') Object.assign(m, { metric: e.accuracy, reached: e.accuracy >= this.task.target.value });
    if (this.task.target.metric === 'bitsPerChar') {
      const bits = e.loss / Math.LN2;
      Object.assign(m, { metric: bits, reached: bits <= this.task.target.value });
    }
    const entry = { step: this.steps, loss: e.loss, accuracy: e.accuracy, measure: m };
    this.evals.push(entry);
    this.snaps.push({ step: this.steps, params: this.model.parameters() });
    if (this.snaps.length > MAX_SNAPS) this.snaps = this.snaps.filter((s, i) => i % 2 === 0 || i === this.snaps.length - 1);
    return entry;
  }

  /** Trains until `budgetMs` have passed or `maxSteps` are reached, evaluating every EVAL_EVERY steps. */
  train(budgetMs, maxSteps) {
    const t0 = now();
    const per = this.task.training.stepsPerSlice;
    while (this.steps < maxSteps && now() - t0 < budgetMs) {
      const toEval = EVAL_EVERY - (this.steps % EVAL_EVERY);
      const k = Math.min(per, toEval, maxSteps - this.steps);
      this.trainer.step(k);
      const all = this.trainer.losses;
      for (let i = this.losses.length; i < all.length; i++) this.losses.push(all[i]);
      if (this.steps % EVAL_EVERY === 0 || this.steps === this.maxSteps) this.evaluate();
    }
  }

  dispose() {
    this.trainer.dispose();
    this.model.dispose();
  }
}

export class TransformerSession {
  /** @param scope an attnscope scope; text: the characters task's corpus (the worker fetches it). */
  constructor(scope, { text = null } = {}) {
    this.scope = scope;
    this.text = text;
    this.run = null;
    this.viewer = null;   // a second model of the run's config, for a saved step
    this.cmp = null;
    this.made = null;   // the last task made (task())
  }

  /**
   * The task `name` made from `seed`, kept for the next call: the page asks for a task's defaults and then
   * sets it up, and a comparison trains the task shown, each of which made its data again. A task is not
   * changed by its runs (the trainer copies the data), so one made is reused.
   */
  task(name, seed) {
    if (!this.made || this.made.name !== name || this.made.seed !== seed || this.made.text !== this.text) {
      this.made = { name, seed, text: this.text, task: makeTask(name, { seed, text: this.text }) };
    }
    return this.made.task;
  }

  /** A task's own settings: every head's scoring function and the learning rate it trains with by default. */
  taskDefaults(task, seed = 1) {
    const t = this.task(task, seed);
    return { scores: scoreMap(t.config, null, t.defaultScores), learningRate: t.training.learningRate, heads: headLabels(t.config) };
  }

  /** Starts a run: { task, scores, temperature, learningRate, seed, maxSteps } → what the page shows of it. */
  setup({ task = 'induction', scores = null, temperature = 1, learningRate = null, seed = 1, maxSteps = null } = {}) {
    const t = this.task(task, seed);
    const run = new Run(this.scope, t, { scores, temperature, learningRate: learningRate ?? t.training.learningRate, seed });
    this.dropRun();
    this.run = run;
    run.maxSteps = maxSteps ?? t.training.maxSteps ?? DEFAULT_MAX_STEPS;
    return this.info();
  }

  info() {
    const r = this.run;
    const t = r.task;
    const shapes = r.model.shapes;
    let params = 0;
    for (const k of Object.keys(shapes)) params += shapes[k].reduce((a, b) => a * b, 1);
    return {
      task: t.name, title: t.title, kind: t.kind, config: t.config, scores: r.scores, heads: headLabels(t.config),
      temperature: r.temperature, learningRate: r.learningRate, seed: r.seed, batch: t.training.batch, maxSteps: r.maxSteps,
      params, target: { ...t.target, ...TASK_VIEWS[t.name] }, trainRows: t.train.rows, heldRows: t.held.rows, evalEvery: EVAL_EVERY,
      description: t.description ?? '',
    };
  }

  /**
   * One slice of training, of `budgetMs` or until step `until` (at most the run's maxSteps): → the losses
   * from index `from` on, the evaluations from `evalsFrom` on.
   */
  train({ budgetMs = 30, until = Infinity, from = 0, evalsFrom = 0 } = {}) {
    const r = this.requireRun();
    r.train(budgetMs, Math.min(r.maxSteps, until));
    return this.progress(from, evalsFrom);
  }

  progress(from = 0, evalsFrom = 0) {
    const r = this.requireRun();
    return { steps: r.steps, maxSteps: r.maxSteps, losses: Float32Array.from(r.losses.slice(from)), from, evals: r.evals.slice(evalsFrom), evalsFrom };
  }

  /**
   * The model at the saved step nearest below `step` (the newest when omitted): the probe's attentions and
   * predictions; with `explain`, gradient × attention; with `paths`, rollout and flow (asked only when shown:
   * a view is made every ~250 ms while training).
   */
  view({ step, score = null, ablate = null, explain = null, paths = false } = {}) {
    const r = this.requireRun();
    const snap = step === undefined ? r.snaps[r.snaps.length - 1] : [...r.snaps].reverse().find((s) => s.step <= step) ?? r.snaps[0];
    let model = r.model;
    if (snap.step !== r.steps) {
      if (!this.viewer) this.viewer = this.scope.createModel({ ...r.task.config, score: r.scores, temperature: r.temperature, seed: r.seed });
      this.viewer.setParameters(snap.params);
      model = this.viewer;
    }
    const surgery = {};
    if (score && Object.keys(score).length) surgery.score = score;
    if (ablate && ablate.length) surgery.ablate = ablate;
    const base = probeView(r.task, model);
    const out = { step: snap.step, ...base, measure: r.evals.find((e) => e.step === snap.step)?.measure ?? readMeasure(r.task, r.task.measure(model)), surgery: null };
    if (surgery.score || surgery.ablate) {
      const cut = probeView(r.task, model, surgery);
      out.surgery = { ...surgery, right: cut.right, predicted: cut.predicted };
      Object.assign(out, { attentions: cut.attentions, cross: cut.cross, encoderAttentions: cut.encoderAttentions });
    }
    // Gradient × attention for one prediction: ∂ logit[position, predicted token] / ∂ A, times A, every head.
    if (explain) out.explained = explainPrediction(r.task, model, explain.position, surgery);
    // Rollout and attention flow (Abnar & Zuidema 2020) of each self-attention stack, heads averaged,
    // the residual counted as 0.5 of each layer: how much each token of the last layer draws on each input token.
    const ro = (att, n) => {
      const o = { layers: out.layers, heads: out.heads, n, residual: 0.5 };
      let flow = null;
      try { flow = this.scope.attentionFlow(att, o); } catch { flow = null; }   // over the flow's work limit: rollout only
      return { rollout: this.scope.rollout(att, o), flow };
    };
    if (paths) {
      out.paths = out.kind === 'encoder-decoder'
        ? { encoder: ro(out.encoderAttentions, out.nSource), decoder: ro(out.attentions, out.n) }
        : { '': ro(out.attentions, out.n) };
    }
    return out;
  }

  /** Text from the characters task's model: { prompt, count, temperature, topK, seed } → its ids, characters and attentions. */
  generate({ prompt = '', count = 120, temperature = 0.8, topK = 5, seed = 1 } = {}) {
    const r = this.requireRun();
    const t = r.task;
    if (!t.encode) throw new TypeError('generate: only the characters task generates text; choose it first');
    const promptIds = Array.from(t.encode(prompt));
    const room = t.config.maxTokens;
    const start = promptIds.length ? promptIds : Array.from(t.encode('\n'));
    const ids = [...start, ...generate(r.model, start, { count: Math.max(0, Math.min(count, 400)), temperature, topK, seed })];
    const last = ids.slice(-room);
    const enc = r.model.encodeIds(last);
    return {
      ids: Int32Array.from(ids), text: t.text(ids), promptLength: promptIds.length,
      window: last.map((id) => t.token(id)), attentions: enc.attentions, layers: enc.layers, heads: enc.heads, n: enc.n,
    };
  }

  /** The run's model as a safetensors file. */
  save() { return this.requireRun().model.save(); }

  /**
   * How a saved file is shown in lecture notes: { query } — the probe's text, written with the file's
   * tokens (what <attn-scope model="transformer"> reads) — for a decoder; { query: null } for an
   * encoder-decoder, which the element does not show yet.
   */
  noteExample() {
    const r = this.requireRun();
    if (r.task.kind !== 'decoder') return { query: null };
    const ids = Array.from(r.task.probe.ids);
    // Tokens of one character each read back as written; longer ones are kept apart by a space.
    const join = r.task.tokens.every((t) => [...t].length === 1) ? '' : ' ';
    return { query: ids.map((id) => r.task.tokens[id]).join(join) };
  }

  // ---- the comparison: the same task, one run per scoring function, trained in turn ----
  compareStart({ task, scores, learned = false, steps = 1500, learningRate = null, seed = 1 }) {
    this.compareCancel();
    if (!Array.isArray(scores) || scores.length === 0) throw new TypeError('scores: pick at least one scoring function to compare');
    const t = this.task(task, seed);
    this.cmp = {
      task: t, steps, seed, learningRate: learningRate ?? t.training.learningRate, learned, queue: [...scores], current: null,
      series: [],
    };
    return { task: t.name, title: t.title, target: { ...t.target, ...TASK_VIEWS[t.name] }, steps, evalEvery: EVAL_EVERY, runs: scores.length };
  }

  compareAdvance(budgetMs = 30) {
    const c = this.cmp;
    if (!c) return { finished: true, series: [] };
    const t0 = now();
    while (now() - t0 < budgetMs) {
      if (!c.current) {
        if (!c.queue.length) break;
        const score = c.queue.shift();
        const run = new Run(this.scope, c.task, { scores: score, temperature: c.learned ? 'learned' : 1, learningRate: c.learningRate, seed: c.seed });
        run.maxSteps = c.steps;
        c.current = { score, run };
      }
      const { run } = c.current;
      run.train(budgetMs - (now() - t0), c.steps);
      if (run.steps >= c.steps) {
        c.series.push(seriesOf(c.current.score, run, false));
        run.dispose();
        c.current = null;
      }
    }
    const series = c.current ? [...c.series, seriesOf(c.current.score, c.current.run, true)] : c.series;
    return { finished: !c.current && !c.queue.length, series };
  }

  compareCancel() {
    if (this.cmp && this.cmp.current) this.cmp.current.run.dispose();
    this.cmp = null;
  }

  requireRun() {
    if (!this.run) throw new Error('no run: call setup() first');
    return this.run;
  }

  dropRun() {
    if (this.viewer) { this.viewer.dispose(); this.viewer = null; }
    if (this.run) { this.run.dispose(); this.run = null; }
  }

  dispose() {
    this.compareCancel();
    this.dropRun();
  }
}

function seriesOf(score, run, partial) {
  return { score, losses: Float32Array.from(run.losses), evals: run.evals.map(({ step, loss, accuracy, measure }) => ({ step, loss, accuracy, metric: measure.metric, reached: measure.reached })), partial };
}

/** What the views draw of the task's probe for `model`: tokens, attentions, predictions. */
export function probeView(task, model, surgery = {}) {
  const p = task.probe;
  if (task.kind === 'encoder-decoder') {
    // The example's target without its padding (−1): the letters and the end mark the decoder writes.
    const target = Array.from(p.target).filter((id) => id >= 0);
    const r = model.encodeIds(Array.from(p.source), { target, ...surgery });
    const best = argmaxRows(r.logits, r.n, r.vocab);
    return {
      right: best.filter((id, i) => id === target[i]).length, counted: r.n,
      kind: task.kind, layers: r.layers, heads: r.heads, n: r.n, nSource: r.nSource,
      source: Array.from(p.source, (id) => task.token(id)), target: target.map((id) => task.token(id)),
      predicted: best.map((id) => task.token(id)),
      encoderAttentions: r.encoderAttentions, attentions: r.attentions, cross: r.cross,
    };
  }
  const r = model.encodeIds(Array.from(p.ids), surgery);
  const best = argmaxRows(r.logits, r.n, r.vocab);
  const from = p.from ?? 0;   // the first position whose next token can be known (the induction probe's repeat)
  let right = 0;
  for (let i = from; i < r.n - 1; i++) if (best[i] === p.ids[i + 1]) right++;
  return {
    kind: task.kind, layers: r.layers, heads: r.heads, n: r.n, tokens: Array.from(p.ids, (id) => task.token(id)),
    right, counted: r.n - 1 - from, from,
    predicted: best.map((id) => task.token(id)), attentions: r.attentions,
  };
}

/**
 * Gradient × attention (the product, weight by weight, of each attention weight and the derivative of one
 * logit with respect to it) for the model's prediction at `position` of the task's probe:
 * { position, token (its label), logit, products: { '': [L,H,n,n] } or { encoder, decoder, cross } }.
 */
export function explainPrediction(task, model, position, surgery = {}) {
  const p = task.probe;
  const pairs = task.kind === 'encoder-decoder';
  const target = pairs ? Array.from(p.target).filter((id) => id >= 0) : null;
  const n = pairs ? target.length : p.ids.length;
  const at = Math.max(0, Math.min(n - 1, Math.trunc(Number.isFinite(position) ? position : n - 1)));
  const r = pairs
    ? model.attentionGradients(Array.from(p.source), { target, position: at, ...surgery })
    : model.attentionGradients(Array.from(p.ids), { position: at, ...surgery });
  const times = (g, a) => { const out = new Float32Array(g.length); for (let i = 0; i < g.length; i++) out[i] = g[i] * a[i]; return out; };
  const products = pairs
    ? { encoder: times(r.encoderGradients, r.encoderAttentions), decoder: times(r.gradients, r.attentions), cross: times(r.crossGradients, r.cross) }
    : { '': times(r.gradients, r.attentions) };
  return { position: r.position, token: task.token(r.token), logit: r.logit, products };
}

function argmaxRows(logits, n, vocab) {
  const out = [];
  for (let i = 0; i < n; i++) {
    let best = 0;
    for (let v = 1; v < vocab; v++) if (logits[i * vocab + v] > logits[i * vocab + best]) best = v;
    out.push(best);
  }
  return out;
}
