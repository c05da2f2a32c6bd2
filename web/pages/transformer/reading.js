// The transformer page's sentences, computed from a run's numbers (no DOM: tests/js/transformer-page.test.mjs
// checks them against runs in node). Every conclusion names what it measures, with its step.
// A run's evaluations: [{ step, loss, accuracy, measure: { metric, heads: { label: value } | null } }];
// its target: { metric, value, text, heads } (heads: what the per-head number is called).

/** How the page names each task's numbers (the per-head figure, the readout, the target in short). */
export const TASK_VIEWS = {
  induction: {
    metricName: 'prefix matching (best head of layer 1)', short: 'a layer-1 head with prefix matching ≥ 0.5',
    headsTitle: 'Prefix-matching score of each head', headsAxis: 'prefix matching', headsTarget: 0.5, targetText: 'target 0.5',
    headsCaption: 'The share of a head\'s attention that goes, from each token of a repeated held-out sequence, to the token after that token\'s earlier occurrence: the lower of two probes, the repeat in order and backwards, so that a head looking a fixed distance back does not score. Dashed: the target. Only a head of layer 1 can do it by content: layer 0 sees only tokens and positions.',
  },
  reversal: {
    metricName: null, short: 'held-out accuracy ≥ 95%',
    headsTitle: 'Alignment of each cross-attention head', headsAxis: 'weight on the aligned letter', headsTarget: null, targetText: '',
    headsCaption: 'For each letter the decoder writes, the weight its cross-attention head puts on the input letter it mirrors (output i ↔ input m − 1 − i), averaged over 32 held-out words. A head that lines up output and input gets near 1.',
  },
  characters: { metricName: 'bits per character (held-out)', short: '≤ 2.5 bits per character' },
};

const pct = (x) => `${(100 * x).toFixed(x >= 0.995 && x < 1 ? 1 : 0)}%`;
const n2 = (x) => x.toFixed(2);
const steps = (s) => s.toLocaleString('en-US');

/** The first evaluation at which `reached(e)` holds, or null. */
export function firstReached(evals, reached) {
  for (const e of evals) if (reached(e)) return e;
  return null;
}

/** The head with the largest per-head number at evaluation `e`: { head, value } or null. */
export function bestHead(e) {
  const h = e && e.measure && e.measure.heads;
  if (!h) return null;
  let best = null;
  for (const [head, value] of Object.entries(h)) if (!best || value > best.value) best = { head, value };
  return best;
}

/**
 * What the run shows so far, as sentences: { text, reached } (reached: the task's target met, at its step).
 * info: the session's info (task, target, scores, evalEvery); evals as above.
 */
export function readTraining(info, evals) {
  if (!evals.length) return { text: '', reached: null };
  const last = evals[evals.length - 1];
  const t = info.target;
  const hit = firstReached(evals, (e) => e.measure.reached);
  const parts = [];
  if (info.task === 'induction') {
    const pick = (e) => (e.measure.best ? { head: e.measure.best, value: e.measure.metric } : bestHead(e));
    const b = pick(last);
    if (hit) {
      const bh = pick(hit);
      const before = [...evals].reverse().find((e) => e.step <= hit.step - 2 * info.evalEvery) ?? evals[0];
      const after = evals.find((e) => e.step >= hit.step + 2 * info.evalEvery) ?? last;
      parts.push(`Head ${bh.head} (${info.scores[bh.head]}) became an induction head at step ${steps(hit.step)}: its prefix-matching score reached ${n2(bh.value)} (the target is ${n2(t.value)}).`);
      parts.push(`Around it the held-out loss went from ${n2(before.loss)} at step ${steps(before.step)} to ${n2(after.loss)} at step ${steps(after.step)}, and held-out accuracy from ${pct(before.accuracy)} to ${pct(after.accuracy)}.`);
      if (b && last.step !== hit.step) parts.push(`Now, at step ${steps(last.step)}, the best head is ${b.head} with ${n2(b.value)}.`);
    } else if (b) {
      parts.push(`No head of layer 1 has reached a prefix-matching score of ${n2(t.value)} yet: the best at step ${steps(last.step)} is ${b.head} with ${n2(b.value)}; held-out loss ${n2(last.loss)}, accuracy ${pct(last.accuracy)}.`);
    }
    parts.push('A head\'s prefix-matching score is the share of its attention that goes, from each token of a repeat, to the token after that token\'s earlier occurrence, on random tokens the model never trained on, repeated once in order and once backwards (the lower of the two counts, so that a head looking a fixed distance back does not score).');
  } else if (info.task === 'reversal') {
    if (hit) parts.push(`Held-out token accuracy reached ${pct(hit.accuracy)} at step ${steps(hit.step)} (the target is ${pct(t.value)}); at step ${steps(last.step)} it is ${pct(last.accuracy)}, held-out loss ${n2(last.loss)}.`);
    else parts.push(`Held-out token accuracy is ${pct(last.accuracy)} at step ${steps(last.step)} (the target is ${pct(t.value)}); held-out loss ${n2(last.loss)}.`);
    const h = last.measure.heads;
    if (h) {
      const list = Object.entries(h).map(([head, v]) => `${head} (${info.scores[head]}) ${pct(v)}`).join(', ');
      parts.push(`Weight each cross-attention head puts on the input letter its output position mirrors: ${list}.`);
    }
  } else {
    const bits = last.loss / Math.LN2;
    parts.push(`Held-out loss ${n2(last.loss)} nats per character (${n2(bits)} bits) at step ${steps(last.step)}; the next character is guessed right ${pct(last.accuracy)} of the time.`);
    if (hit) parts.push(`It first got to ${n2(t.value)} bits per character or less at step ${steps(hit.step)}.`);
  }
  return { text: parts.join(' '), reached: hit ? hit.step : null };
}

/** The first step at which a comparison series met the task's target, or null. */
export function stepsToTarget(series) {
  const e = firstReached(series.evals, (x) => x.reached);
  return e ? e.step : null;
}

/**
 * The comparison's rows and its conclusion: rows [{ score, final: { loss, accuracy, metric }, reached }],
 * text: sentences naming loss and accuracy, and why cosine stays flat when it does.
 */
export function readComparison(series, target, { learned = false, temperature = 1 } = {}) {
  const done = series.filter((s) => !s.partial && s.evals.length);
  const rows = done.map((s) => {
    const last = s.evals[s.evals.length - 1];
    return { score: s.score, final: { loss: last.loss, accuracy: last.accuracy, metric: last.metric, step: last.step }, reached: stepsToTarget(s) };
  });
  if (rows.length < 2) return { rows, text: rows.length ? `One run so far: ${rows[0].score}.` : '' };
  const byLoss = [...rows].sort((a, b) => a.final.loss - b.final.loss);
  const fastest = rows.filter((r) => r.reached !== null).sort((a, b) => a.reached - b.reached);
  const parts = [];
  const best = byLoss[0], worst = byLoss[byLoss.length - 1];
  parts.push(`Lowest held-out loss: ${best.score}, ${n2(best.final.loss)} (accuracy ${pct(best.final.accuracy)}); highest: ${worst.score}, ${n2(worst.final.loss)} (accuracy ${pct(worst.final.accuracy)}).`);
  if (fastest.length) {
    const f = fastest[0];
    const missed = rows.filter((r) => r.reached === null).map((r) => r.score);
    parts.push(`${f.score} met the target (${target.short ?? target.text}) first, at step ${steps(f.reached)}${fastest.length > 1 ? `; then ${fastest.slice(1).map((r) => `${r.score} at ${steps(r.reached)}`).join(', ')}` : ''}.` +
      (missed.length ? ` Not met within the steps: ${missed.join(', ')}.` : ''));
    const byAcc = [...rows].sort((a, b) => b.final.accuracy - a.final.accuracy)[0];
    if (byAcc.score !== best.score) parts.push(`By accuracy ${byAcc.score} ends ahead (${pct(byAcc.final.accuracy)} against ${pct(best.final.accuracy)}), by loss ${best.score}: the two measures disagree here.`);
  } else {
    parts.push(`No function met the target (${target.short ?? target.text}) within the steps.`);
  }
  const cos = rows.find((r) => r.score === 'cosine');
  if (cos && !learned && cos.final.loss > 1.5 * best.final.loss && cos !== best) {
    const ratio = Math.exp(2 / temperature);
    parts.push(`cosine's held-out loss stayed at ${n2(cos.final.loss)}: its scores lie in [−1, 1], so at τ = ${temperature} no weight can be more than e^(2/τ) = ${ratio.toFixed(2)} times another in its row, and a head cannot become sharp. Tick "with a learnt τ" to let each head learn its temperature.`);
  }
  return { rows, text: parts.join(' ') };
}
