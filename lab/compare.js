// The lab's part 2: the same task from the same seed trained once per scoring function, and what the
// page says about the result. Comparison runs the trainers (in the lab's worker, or in node for
// bench/lab-compare.mjs) a few steps at a time so its caller can show progress and cancel between
// two slices; the rest are pure functions of its results (the table's rows, their order, the text,
// the CSV), shared by the page, the benchmark and the tests.
import { csvCell, csvNumber } from './csv.js';
import { BOUNDED, maxRatio } from './score-range.js';

// The temperature every head of the lab trains with (lab/session.js HEAD): the comparison's text names it.
export const LAB_TEMPERATURE = 1;

export const THRESHOLD = 0.9;     // "steps to 90%": the first evaluation at or above this accuracy
export const COMPARE_EVAL_EVERY = 10;
export const COMPARE_STEPS = [100, 200, 300, 500];
export const COMPARE_DEFAULT_STEPS = 300;
/**
 * What each head outputs and is trained on (the trainer's `output` option): attention only (the
 * cross-entropy of A's target entries), or an output trained to copy the target word's vector
 * (squared error; A then learns only from the output): O = A V, or the experimental "more symmetric"
 * O = A V W / √d.
 */
export const OUTPUTS = ['none', 'value', 'scaled'];
export const OUTPUT_LABELS = { none: 'attention only', value: '+ value output', scaled: '+ symmetric output' };

/** A run's name in the plot, the table and the CSV: the scoring function, and its output if any. */
export function runLabel(score, output = 'none') {
  return output === 'value' ? `${score} + value` : output === 'scaled' ? `${score} + symmetric` : score;
}

/** The first evaluated step whose accuracy is at least `threshold`, or null when none is. */
export function stepsTo(evals, threshold = THRESHOLD) {
  for (const e of evals) if (e.accuracy >= threshold) return e.step;
  return null;
}

/** Mean of the last `n` entries of a list of numbers (NaN when it is empty). */
function tailMean(xs, n) {
  const from = Math.max(0, xs.length - n);
  let s = 0;
  for (let i = from; i < xs.length; i++) s += xs[i];
  return xs.length ? s / (xs.length - from) : NaN;
}

/**
 * Trains one head per scoring function of `scores` (and per output of `outputs`, default attention
 * only) on the same data from the same seed, `steps` steps each, evaluating the held-out set every
 * `evalEvery` steps (and at step 0). advance() runs
 * until a time budget is spent (at least one slice of evalEvery steps), so the caller can report
 * progress and stop between calls; the result does not depend on how the work was sliced.
 */
export class Comparison {
  /**
   * @param {object} scope  an AttnScope
   * @param {{ train: object, heldOut: object, trainer: object, scores: string[], outputs?: string[], steps: number, evalEvery?: number }} o
   *   train / heldOut: TrainerData; trainer: createTrainer options without data, score and output.
   */
  constructor(scope, { train, heldOut, trainer, scores, outputs = ['none'], steps, evalEvery = COMPARE_EVAL_EVERY }) {
    if (!Array.isArray(scores) || scores.length === 0) throw new RangeError('scores: pick at least one scoring function');
    if (!Array.isArray(outputs) || outputs.length === 0) throw new RangeError('outputs: pick at least one of none, value, scaled');
    for (const o of outputs) if (!OUTPUTS.includes(o)) throw new RangeError(`outputs: expected none, value or scaled, got ${String(o).slice(0, 40)}`);
    if (!Number.isInteger(steps) || steps < 1) throw new RangeError(`steps: expected a whole number of at least 1, got ${steps}`);
    this.scope = scope;
    this.train = train;
    this.heldOut = heldOut;
    this.trainer = trainer;
    this.scores = [...scores];
    this.outputs = OUTPUTS.filter((o) => outputs.includes(o));
    // One run per scoring function and output, the outputs of one function side by side.
    this.runs = this.scores.flatMap((score) => this.outputs.map((output) => ({ score, output, label: runLabel(score, output) })));
    this.steps = steps;
    this.evalEvery = evalEvery;
    this.index = 0;        // the run being trained
    this.current = null;   // its trainer
    this.evals = [];
    this.results = [];     // finished: [{ score (the run's label), baseScore, output, losses, evals }]
  }

  get done() { return this.index >= this.runs.length; }

  /** Steps done over all runs, and the total; score: the label of the run in training. */
  progress() {
    const done = this.index * this.steps + (this.current ? this.current.steps : 0);
    return { done, total: this.runs.length * this.steps, score: this.done ? null : this.runs[this.index].label, index: this.index, count: this.runs.length };
  }

  /** Trains for about `budgetMs` (at least one slice); returns progress(). */
  advance(budgetMs = 20) {
    const t0 = performance.now();
    while (!this.done) {
      const run = this.runs[this.index];
      if (!this.current) {
        this.current = this.scope.createTrainer({ data: this.train, ...this.trainer, score: run.score, output: run.output });
        this.evals = [{ step: 0, ...this.current.evaluate(this.heldOut) }];
      }
      const t = this.current;
      t.step(Math.min(this.evalEvery, this.steps - t.steps));
      this.evals.push({ step: t.steps, ...t.evaluate(this.heldOut) });
      if (t.steps >= this.steps) {
        this.results.push({ score: run.label, baseScore: run.score, output: run.output, losses: t.losses, evals: this.evals });
        t.dispose();
        this.current = null;
        this.index++;
      }
      if (performance.now() - t0 >= budgetMs) break;
    }
    return this.progress();
  }

  /** The finished functions' curves, and the one in training so far (partial: true). */
  curves() {
    const out = this.results.map((r) => ({ ...r, partial: false }));
    if (this.current) {
      const run = this.runs[this.index];
      out.push({ score: run.label, baseScore: run.score, output: run.output, losses: this.current.losses, evals: this.evals, partial: true });
    }
    return out;
  }

  /** Frees the trainer in progress (a cancelled comparison). */
  dispose() {
    if (this.current) this.current.dispose();
    this.current = null;
  }
}

/**
 * One row per finished run: final held-out accuracy (argmax of A) and loss, the mean batch loss of
 * the last evalEvery steps, and the steps to 90% (null: not reached); with an output also the final
 * output accuracy (the output nearest the target word's vector; null for attention only). score is
 * the run's label (runLabel), baseScore the scoring function, output its output.
 */
export function summaryRows(results, { evalEvery = COMPARE_EVAL_EVERY } = {}) {
  return results.map((r) => {
    const last = r.evals[r.evals.length - 1];
    return {
      score: r.score, baseScore: r.baseScore ?? r.score, output: r.output ?? 'none', steps: last.step, accuracy: last.accuracy,
      outputAccuracy: last.outputAccuracy ?? null, heldOutLoss: last.loss, rows: last.count,
      trainLoss: tailMean(Array.from(r.losses), evalEvery), stepsTo90: stepsTo(r.evals),
    };
  });
}

/**
 * The rows in the table's order. key 'stepsTo90' (default; not reached last, ties by accuracy),
 * 'accuracy' (highest first), 'heldOutLoss' / 'trainLoss' (lowest first) or 'score' (the order of
 * `order`, the registry's); `reverse` flips it. Sorting is stable: ties keep the registry's order.
 */
export function sortRows(rows, key = 'stepsTo90', reverse = false, order = []) {
  const rank = (s) => { const i = order.indexOf(s); return i < 0 ? order.length : i; };
  const by = {
    score: (a, b) => rank(a.score) - rank(b.score) || a.score.localeCompare(b.score),
    accuracy: (a, b) => b.accuracy - a.accuracy,
    outputAccuracy: (a, b) => (b.outputAccuracy ?? -1) - (a.outputAccuracy ?? -1),
    heldOutLoss: (a, b) => a.heldOutLoss - b.heldOutLoss,
    trainLoss: (a, b) => a.trainLoss - b.trainLoss,
    stepsTo90: (a, b) => (a.stepsTo90 ?? Infinity) - (b.stepsTo90 ?? Infinity) || b.accuracy - a.accuracy,
  }[key];
  if (!by) throw new RangeError(`key: expected score, accuracy, outputAccuracy, heldOutLoss, trainLoss or stepsTo90, got ${key}`);
  const base = [...rows].sort((a, b) => rank(a.score) - rank(b.score));
  const sorted = base.sort(by);
  return reverse ? sorted.reverse() : sorted;
}

/** "step 40" or "not reached in 300 steps". */
export function stepsText(row) {
  return row.stepsTo90 === null ? `not reached in ${row.steps} steps` : `step ${row.stepsTo90}`;
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

/**
 * The two families the lab's question "distance or dot?" compares, read from the registry's formulas
 * (scope.scoreFunctions: [{ name, formula }]), not kept by hand: a product of q and k (q·k, qᵀ W k)
 * or a distance between them (‖q − k‖ in any form). Other functions (additive, location) are in neither.
 */
export function scoreFamilies(scoreFunctions) {
  const dot = [], distance = [];
  for (const f of scoreFunctions) {
    if (/q\s*[−-]\s*k/.test(f.formula)) distance.push(f.name);
    else if (/q\s*·\s*k|qᵀ\s*W\s*k/.test(f.formula)) dot.push(f.name);
  }
  return { dot, distance };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * How row a compares with row b, in words: by steps to 90% when either reached it (a difference of
 * one evaluation interval or less is "about as fast"), else by final accuracy (a difference of two
 * held-out rows or less is "about the same"); then by held-out loss, which the text always names, and
 * says so when the loss points the other way (a head can put the most weight on the right word while
 * its weights stay flat: right by accuracy, poor by loss).
 */
export function versus(a, b, { evalEvery = COMPARE_EVAL_EVERY } = {}) {
  const by = byAccuracy(a, b, evalEvery);
  const la = a.heldOutLoss, lb = b.heldOutLoss;
  if (!(Number.isFinite(la) && Number.isFinite(lb))) return by;
  const loss = `held-out loss ${lossText(la)} against ${lossText(lb)}`;
  // Loss against the accuracy: a gap of at least 0.1 and a factor of 2 is named as a contradiction.
  const apart = Math.abs(la - lb) >= 0.1 && Math.max(la, lb) >= 2 * Math.min(la, lb);
  if (by.sign > 0 && apart && la > lb) return { ...by, lossAgainst: true, text: `${by.text}, but its ${loss} stayed higher: by loss it did worse` };
  if (by.sign < 0 && apart && la < lb) return { ...by, lossAgainst: true, text: `${by.text}, but its ${loss} ended lower: by loss it did better` };
  return { ...by, text: `${by.text}; ${loss}` };
}
const lossText = (x) => (x < 0.01 ? x.toPrecision(2) : x.toFixed(2));

function byAccuracy(a, b, evalEvery) {
  if (a.stepsTo90 !== null && b.stepsTo90 !== null) {
    const d = a.stepsTo90 - b.stepsTo90;
    if (Math.abs(d) <= evalEvery) return { sign: 0, text: `about as fast as ${b.score} (90% accuracy at step ${a.stepsTo90} against ${b.stepsTo90})` };
    return { sign: d < 0 ? 1 : -1, text: `${d < 0 ? 'faster' : 'slower'} than ${b.score} (90% accuracy at step ${a.stepsTo90} against ${b.stepsTo90})` };
  }
  if (a.stepsTo90 !== null) return { sign: 1, text: `reached 90% accuracy (step ${a.stepsTo90}) where ${b.score} did not in ${b.steps} steps` };
  if (b.stepsTo90 !== null) return { sign: -1, text: `did not reach 90% accuracy in ${a.steps} steps where ${b.score} did (step ${b.stepsTo90})` };
  const d = a.accuracy - b.accuracy;
  const row = a.rows > 0 ? 1 / a.rows : 0;
  if (Math.abs(d) <= 2 * row + 1e-9) return { sign: 0, text: `ended about level with ${b.score} (accuracy ${pct(a.accuracy)} against ${pct(b.accuracy)}; neither reached 90%)` };
  return { sign: d > 0 ? 1 : -1, text: `ended ${d > 0 ? 'above' : 'below'} ${b.score} (accuracy ${pct(a.accuracy)} against ${pct(b.accuracy)}; neither reached 90%)` };
}

/**
 * For each bounded scoring function of the rows (cosine) whose held-out loss ended well above the best
 * run's, why: at the lab's τ its weights cannot get sharp. temperature: the τ the runs trained with.
 */
function readBounded(rows, temperature) {
  const out = [];
  const best = sortRows(rows, 'heldOutLoss')[0];
  for (const r of rows) {
    const range = BOUNDED[r.baseScore ?? r.score];
    if (!range || !Number.isFinite(r.heldOutLoss)) continue;
    const ratio = maxRatio(r.baseScore ?? r.score, temperature);
    if (r === best || r.heldOutLoss < 0.1 + 2 * best.heldOutLoss) continue;
    const lo = String(range[0]).replace('-', '−');
    out.push(`Why ${r.score}'s loss stays high (${lossText(r.heldOutLoss)} against ${lossText(best.heldOutLoss)} for ${best.score}, ` +
      `at accuracy ${pct(r.accuracy)} against ${pct(best.accuracy)}): its scores lie in [${lo}, ${range[1]}], so at the lab's τ = ${temperature} ` +
      `no weight can be more than e^(${range[1] - range[0]}/τ) ≈ ${ratio.toFixed(2)} times another in its row; with n keys the target's weight is at most ` +
      `${ratio.toFixed(2)}/(${ratio.toFixed(2)} + n − 1). It can point at the right word (accuracy) but cannot get sharp (loss) ` +
      'without a temperature: τ = 0.1 would allow a ratio of e^20 (part 1’s “learn the temperature τ” trains one with the head).');
  }
  return out;
}

/**
 * Short paragraphs that read a comparison's rows against the questions of the lab (1/√d or cosine?
 * distance or dot?), computed from the rows: only what they show, with the caveat that one seed of a
 * toy task is an anecdote. ctx: { steps, evalEvery, seed, rule (its label), dHead, families (scoreFamilies()) }.
 */
export function readComparison(allRows, { steps, evalEvery = COMPARE_EVAL_EVERY, seed, rule, dHead = 16, families = { dot: [], distance: [] }, temperature = LAB_TEMPERATURE }) {
  const out = [];
  if (!allRows.length) return out;
  // The scoring functions are compared on the attention-only runs (when there are any); the outputs
  // in a paragraph of their own.
  const plain = allRows.filter((r) => (r.output ?? 'none') === 'none');
  const withOutputs = plain.length < allRows.length;
  const rows = plain.length ? plain : [];
  if (rows.length) out.push(...readScores(rows, { steps, evalEvery, dHead, families }), ...readBounded(rows, temperature));
  if (withOutputs) out.push(...readOutputs(allRows, { evalEvery }));
  out.push(`One seed (${seed}) of one small task (${rule}): a difference of a step interval or a few held-out words can change with the seed, ` +
    'so try other seeds before reading a ranking into it; and a toy head with 16 dimensions says little about a large model. ' +
    (withOutputs ? 'The symmetric output is an experiment of this project, not a published design; one copying task cannot settle whether it would help a real model.'
      : 'The experimental symmetric output is not part of this comparison (tick it under “What each head outputs”).'));
  return out;
}

function readScores(rows, { steps, evalEvery, dHead, families }) {
  const out = [];
  const by = new Map(rows.map((r) => [r.score, r]));
  const reached = sortRows(rows.filter((r) => r.stepsTo90 !== null), 'stepsTo90');
  const missed = rows.filter((r) => r.stepsTo90 === null);
  const heldRows = rows[0].rows;
  if (reached.length) {
    const first = reached[0];
    const tied = reached.filter((r) => r.stepsTo90 === first.stepsTo90).map((r) => r.score);
    let s = `${reached.length} of the ${rows.length} scoring functions reached ${THRESHOLD * 100}% held-out accuracy within ${steps} steps ` +
      `(checked every ${evalEvery}): first ${tied.join(', ')} at step ${first.stepsTo90}`;
    const last = reached[reached.length - 1];
    if (last.stepsTo90 !== first.stepsTo90) s += `, last ${last.score} at step ${last.stepsTo90}`;
    s += missed.length ? `; not reached by ${missed.map((r) => r.score).join(', ')}.` : '.';
    out.push(s);
  } else {
    out.push(`None of the ${rows.length} scoring functions reached ${THRESHOLD * 100}% held-out accuracy within ${steps} steps.`);
  }
  const byAcc = sortRows(rows, 'accuracy');
  const hi = byAcc[0], lo = byAcc[byAcc.length - 1];
  if (rows.length > 1) {
    const spread = 100 * (hi.accuracy - lo.accuracy);
    out.push(`Final held-out accuracy runs from ${pct(lo.accuracy)} (${lo.score}) to ${pct(hi.accuracy)} (${hi.score}), ` +
      `a spread of ${spread.toFixed(1)} points over ${heldRows} held-out target words` +
      (heldRows > 0 ? ` (one word is ${(100 / heldRows).toFixed(1)} points).` : '.'));
  }
  // 1/√d or cosine?
  const sq = [];
  if (by.has('scaled-dot') && by.has('dot')) sq.push(`Dividing the dot product by √d (√${dHead} = ${Math.sqrt(dHead).toFixed(0)} here), scaled-dot ${versus(by.get('scaled-dot'), by.get('dot'), { evalEvery }).text}`);
  if (by.has('cosine') && by.has('scaled-dot')) sq.push(`Normalising both vectors instead, cosine ${versus(by.get('cosine'), by.get('scaled-dot'), { evalEvery }).text}`);
  if (sq.length) out.push(`√d or cosine? On this run: ${sq.join('. ')}.`);
  // Distance or dot?
  const dots = rows.filter((r) => families.dot.includes(r.score));
  const dists = rows.filter((r) => families.distance.includes(r.score));
  if (dots.length && dists.length) {
    const family = (list) => {
      const hit = list.filter((r) => r.stepsTo90 !== null);
      const names = list.map((r) => r.score).join(', ');
      const acc = pct(median(list.map((r) => r.accuracy)));
      if (!hit.length) return `none of ${list.length} (${names}) reached 90%, median final accuracy ${acc}`;
      return `${hit.length} of ${list.length} (${names}) reached 90%, at a median step of ${median(hit.map((r) => r.stepsTo90))}, median final accuracy ${acc}`;
    };
    let s = `Distance or dot? Of the dot-product family ${family(dots)}; of the distance family ${family(dists)}.`;
    if (by.has('idw') && by.has('neg-euclidean')) s += ` McCarter (2023) reports that −log distance trains better than −distance: here idw (−log distance) ${versus(by.get('idw'), by.get('neg-euclidean'), { evalEvery }).text}.`;
    out.push(s);
  }
  return out;
}

/** Where the symmetric output's attention (a) ended against the value output's (b), in words. */
function attentionVersus(a, b, evalEvery) {
  const sign = versus(a, b, { evalEvery }).sign;
  const how = sign === 0 ? 'about as fast' : sign > 0 ? 'faster' : 'slower';
  if (a.stepsTo90 !== null && b.stepsTo90 !== null) return `its attention reached 90% at step ${a.stepsTo90} against the value output's ${b.stepsTo90} (${how})`;
  if (a.stepsTo90 !== null) return `only its attention reached 90% (step ${a.stepsTo90}), the value output's did not in ${b.steps} steps`;
  if (b.stepsTo90 !== null) return `only the value output's attention reached 90% (step ${b.stepsTo90}), its own did not in ${a.steps} steps`;
  const level = sign === 0 ? 'about level' : sign > 0 ? 'above' : 'below';
  return `neither attention reached 90%; its ended ${level} (${pct(a.accuracy)} against ${pct(b.accuracy)})`;
}

/**
 * The outputs, in one paragraph computed from the rows: for each scoring function with an output run,
 * the share of held-out outputs nearest the target word's vector (and of rows whose largest attention
 * weight is on the target, which no loss supervised), the symmetric output against the value output,
 * a tally of where the symmetric output came out higher, level or lower, and the attention-only runs
 * for reference.
 */
function readOutputs(rows, { evalEvery }) {
  const scores = [...new Set(rows.filter((r) => r.output !== 'none').map((r) => r.baseScore))];
  const of = (score, o) => rows.find((r) => r.baseScore === score && r.output === o);
  const one = (r) => `${pct(r.outputAccuracy)} (${pct(r.accuracy)})`;
  const tally = { higher: [], level: [], lower: [] };
  const parts = scores.map((score) => {
    const value = of(score, 'value'), scaled = of(score, 'scaled');
    if (!value || !scaled) return `${score} ${one(value || scaled)}`;
    const d = 100 * (scaled.outputAccuracy - value.outputAccuracy);
    const row = scaled.rows > 0 ? 100 / scaled.rows : 0;
    const level = Math.abs(d) <= 2 * row + 1e-9;
    tally[level ? 'level' : d > 0 ? 'higher' : 'lower'].push(score);
    const diff = level ? `within two held-out words (${Math.abs(d).toFixed(1)} points)` : `${Math.abs(d).toFixed(1)} points ${d > 0 ? 'higher' : 'lower'}`;
    return `${score} ${one(value)} against ${one(scaled)}, ${diff}; ${attentionVersus(scaled, value, evalEvery)}`;
  });
  const both = scores.some((score) => of(score, 'value') && of(score, 'scaled'));
  const what = both ? 'the value output O = A V against the symmetric output O = A V W / √d'
    : of(scores[0], 'value') ? 'the value output O = A V' : 'the symmetric output O = A V W / √d';
  let s = 'The symmetric output? Trained only to copy the target word\'s vector (squared error, nothing telling A where to look), ' +
    `${what} put this share of held-out outputs nearest the target word's vector (in brackets: rows whose largest attention weight is on the target): ` +
    `${parts.join('. With ')}.`;
  s = s.replace('(in brackets: rows whose largest attention weight is on the target): ', '(in brackets: rows whose largest attention weight is on the target): with ');
  if (both) {
    const said = Object.entries(tally).filter(([, list]) => list.length).map(([k, list]) => `${k === 'level' ? 'level' : k} with ${list.join(', ')}`);
    if (scores.length > 1) s += ` On this run the symmetric output's output accuracy came out ${said.join('; ')}.`;
    s += ' Its rows are no longer averages of the values (they can leave their convex hull), and its extra d × d matrix is more to learn.';
  }
  const none = scores.map((score) => of(score, 'none')).filter(Boolean);
  if (none.length) s += ` For reference, trained on the attention itself (cross-entropy), the largest weight was on the target in ${none.map((r) => `${pct(r.accuracy)} of rows (${r.baseScore})`).join(', ')}.`;
  return [s];
}

/**
 * The loss curves as CSV, one line per (series, step): the series' settings, the step, its batch
 * loss (empty at step 0) and the held-out loss and accuracy where they were measured (else empty).
 * series: [{ rule, score, output?, learningRate, seed, losses, evals: [{ step, loss, accuracy, outputAccuracy? }] }].
 */
export function curvesCSV(series) {
  // With an output among the series: two more columns, the output and the held-out output accuracy.
  const outputs = series.some((s) => (s.output ?? 'none') !== 'none');
  const lines = ['rule,score,learning_rate,seed,step,batch_loss,held_out_loss,held_out_accuracy' + (outputs ? ',output,held_out_output_accuracy' : '')];
  for (const s of series) {
    const at = new Map(s.evals.map((e) => [e.step, e]));
    const last = Math.max(s.losses.length, ...s.evals.map((e) => e.step));
    for (let step = 0; step <= last; step++) {
      const e = at.get(step);
      const batch = step >= 1 && step <= s.losses.length ? csvNumber(s.losses[step - 1]) : '';
      const cells = [csvCell(s.rule), csvCell(s.score), csvNumber(s.learningRate), s.seed, step, batch,
        e ? csvNumber(e.loss) : '', e ? csvNumber(e.accuracy) : ''];
      if (outputs) cells.push(csvCell(s.output ?? 'none'), e && e.outputAccuracy !== null && e.outputAccuracy !== undefined ? csvNumber(e.outputAccuracy) : '');
      lines.push(cells.join(','));
    }
  }
  return lines.join('\n') + '\n';
}
