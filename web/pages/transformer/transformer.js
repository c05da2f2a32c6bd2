// The transformer page (web/pages/transformer/transformer.html): pick a task and each head's scoring
// function, train in slices in a module worker (transformer-worker.js, session.js), watch the loss, the
// task's per-head measure and every head's attention on one example; scrub back through saved steps;
// generate text with the characters task; compare scoring functions by training each. The sentences
// the page prints are computed from the run (reading.js). Settings live in the URL hash.
import * as figures from '../../shared/figures/registry.js';
import { LossCurve } from '../../shared/figures/LossCurve.js';
import { CompareCurves } from '../../shared/figures/CompareCurves.js';
import { ModelGrid } from '../../shared/figures/ModelGrid.js';
import { $, noticeBar, wireExports, hashWriter } from '../../shared/page.js';
import { download } from '../../shared/downloads.js';
import { keepForOffline } from '../../shared/offline.js';
import { latestRequest, workerClient } from '../../shared/worker-client.js';
import { HeadCurves } from './HeadCurves.js';
import { readTraining, readComparison } from './reading.js';

const SLICE_MS = 40;

const ui = {
  task: $('task'), lr: $('lr'), seed: $('seed'), learned: $('learned'), taskInfo: $('task-info'),
  allScores: $('all-scores'), allApply: $('all-apply'), headScores: $('head-scores'),
  play: $('play'), step: $('step'), reset: $('reset'), save: $('save'), saveNote: $('save-note'), stepCount: $('step-count'), readout: $('readout'),
  view: $('view-step'), viewLabel: $('view-label'), reading: $('reading'), probeInfo: $('probe-info'),
  stackRow: $('stack-row'), stack: $('stack'), prediction: $('prediction'), loadText: $('load-text'), status: $('status'),
  generation: $('generation'), prompt: $('prompt'), genTemp: $('gen-temp'), genTopK: $('gen-topk'), genRun: $('gen-run'),
  generated: $('generated'), genInfo: $('gen-info'), announce: $('announce'),
  cmpScores: $('compare-scores'), cmpSteps: $('compare-steps'), cmpLearned: $('compare-learned'), cmpRun: $('compare-run'),
  cmpCancel: $('compare-cancel'), cmpProgress: $('compare-progress'), cmpStatus: $('compare-status'), cmpTable: $('compare-table'),
  cmpReading: $('compare-reading'), bigView: $('big-view'), position: $('position'), positionRow: $('position-row'), rescore: $('rescore'), knock: $('knock'), surgeryClear: $('surgery-clear'),
  surgeryHead: $('surgery-head'), surgeryInfo: $('surgery-info'),
};

// The worker and body.computing while the page waits for it (web/shared/worker-client.js).
const { api, busy, call } = workerClient(new Worker(new URL('transformer-worker.js', import.meta.url), { type: 'module' }),
  { alsoBusy: () => playing });
const notices = noticeBar();
const notice = (text) => notices.set(text);
let scoreNames = [], tasks = [];


// ---- figures ----
function heatmap(slotId, id) {
  const f = new figures.heatmap.figure($(slotId), { id });
  f.tools.select('.values-choice').remove();   // weights only
  return f;
}
const fig = {
  curve: new LossCurve($('curve-slot')),
  heads: new HeadCurves($('measure-slot')),
  grid: new ModelGrid($('grid-slot')),
  head: heatmap('head-slot', 'tf-head'),
  gen: heatmap('gen-slot', 'tf-gen'),
  compare: new CompareCurves($('compare-slot')),
};
wireExports(Object.values(fig), { failed: notice });
fig.compare.root.style('display', 'none');   // until a comparison runs

// ---- settings and the URL ----
function settings() {
  const seed = Number(ui.seed.value);
  const scores = {};
  for (const sel of ui.headScores.querySelectorAll('select')) scores[sel.dataset.head] = sel.value;
  return {
    task: ui.task.value, lr: Number(ui.lr.value), learned: ui.learned.checked, scores,
    seed: ui.seed.value.trim() !== '' && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : 1,
  };
}
function toHash(s) {
  const p = new URLSearchParams();
  p.set('task', s.task);
  p.set('lr', String(s.lr));
  p.set('seed', String(s.seed));
  if (s.learned) p.set('tau', 'learned');
  const changed = Object.entries(s.scores).filter(([h, n]) => defaults[h] !== undefined && defaults[h] !== n);
  if (changed.length) p.set('scores', changed.map(([h, n]) => `${h}:${n}`).join(','));
  return `#${p}`;
}
let defaults = {};
const url = hashWriter(() => toHash(settings()));
function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const problems = [];
  const task = p.get('task');
  if (task !== null) {
    if (tasks.some((t) => t.name === task)) ui.task.value = task; else problems.push(`task "${task}" is not one of ${tasks.map((t) => t.name).join(', ')}`);
  }
  const lr = p.get('lr');
  lrFromHash = false;
  if (lr !== null) {
    if ([...ui.lr.options].some((o) => o.value === lr)) { ui.lr.value = lr; lrFromHash = true; } else problems.push(`learning rate "${lr}" is not one of the list's`);
  }
  const seed = p.get('seed');
  if (seed !== null) {
    if (/^\d{1,10}$/.test(seed) && Number(seed) <= 0xffffffff) ui.seed.value = seed; else problems.push(`seed "${seed}" is not a whole number from 0 to 4294967295`);
  }
  ui.learned.checked = p.get('tau') === 'learned';
  const wanted = {};
  for (const part of (p.get('scores') || '').split(',').filter(Boolean)) {
    const [h, n] = part.split(':');
    if (scoreNames.includes(n)) wanted[h] = n; else problems.push(`scoring function "${n}" is not one of the registry's`);
  }
  notice(problems.length ? `Some settings of the link were not understood and keep their defaults: ${problems.join('; ')}.` : '');
  return wanted;
}

// ---- the run ----
let runId = 0, info = null, run = null, shown = null;
let playing = false, following = true;

function fillHeadScores(heads, scores) {
  ui.headScores.replaceChildren();
  for (const h of heads) {
    const label = document.createElement('label');
    label.append(`${h} `);
    const sel = document.createElement('select');
    sel.dataset.head = h;
    for (const n of scoreNames) sel.add(new Option(n, n));
    sel.value = scores[h];
    sel.addEventListener('change', () => { writeURL(); setup(); });
    label.append(sel);
    ui.headScores.append(label);
  }
}
const writeURL = () => url.write();

/** Starts over with the current settings (taskChanged: the heads and the learning rate come from the task's defaults, then `wanted`). */
let lrFromHash = false;
async function setup({ taskChanged = false, wanted = null } = {}) {
  ui.saveNote.hidden = true;   // it named the last run's file
  stop();
  const id = ++runId;
  let r;
  try {
    if (taskChanged) {
      const d = await call('defaults', ui.task.value, settings().seed);
      if (id !== runId) return;
      defaults = d.scores;
      if (!lrFromHash) ui.lr.value = String(d.learningRate);
      if (!ui.lr.value) { ui.lr.add(new Option(String(d.learningRate), String(d.learningRate))); ui.lr.value = String(d.learningRate); }
      fillHeadScores(d.heads, { ...d.scores, ...(wanted || {}) });
    }
    const s = settings();
    r = await call('setup', { task: s.task, scores: s.scores, temperature: s.learned ? 'learned' : 1, learningRate: s.lr, seed: s.seed });
  } catch (e) { notice(`Could not start training: ${e.message}`); return; }
  if (id !== runId) return;
  info = r;
  run = { steps: 0, losses: new Float32Array(0), evals: [] };
  surgery = { score: {}, ablate: [] };
  current = { layer: 0, head: 0 };
  ui.position.value = '';
  following = true;
  const c = r.config;
  ui.taskInfo.textContent = `${r.description} Model: ${r.kind === 'encoder-decoder' ? 'an encoder–decoder' : 'a decoder'}, ` +
    `${c.layers} layer${c.layers > 1 ? 's' : ''}${r.kind === 'encoder-decoder' ? ' in each stack' : ''} of ${c.heads} heads, d_model ${c.dModel}, ` +
    `${c.dFF ? `MLP ${c.dFF}` : 'no MLP (attention only)'}, ${r.params.toLocaleString('en-US')} parameters; ${r.trainRows.toLocaleString('en-US')} training examples, ` +
    `${r.heldRows.toLocaleString('en-US')} held out; batch ${r.batch}, AdamW at ${r.learningRate}, τ ${r.temperature === 'learned' ? 'learnt per head' : r.temperature}.`;
  ui.stackRow.hidden = r.kind !== 'encoder-decoder';
  ui.generation.hidden = r.task !== 'characters';
  writeURL();
  await pull();
  requestView();
  ui.play.disabled = ui.step.disabled = ui.reset.disabled = ui.save.disabled = false;
  ui.genRun.disabled = false;
  updateCompareButton();
}

/** Appends what the worker has trained since the page last asked. */
function absorb(p) {
  if (p.from !== run.losses.length) return;
  const all = new Float32Array(run.losses.length + p.losses.length);
  all.set(run.losses);
  all.set(p.losses, run.losses.length);
  run.losses = all;
  run.evals.push(...p.evals.slice(run.evals.length - p.evalsFrom));
  run.steps = p.steps;
  run.maxSteps = p.maxSteps;
}
async function pull() {
  const id = runId;
  const p = await call('progress', run.losses.length, run.evals.length);
  if (id === runId) { absorb(p); render(); }
}

async function pump(limit = Infinity) {
  const id = runId;
  const target = Math.min(run.steps + limit, info.maxSteps);
  while (id === runId && (playing || limit !== Infinity) && run.steps < target) {
    let p;
    try {
      p = await api.train({ budgetMs: SLICE_MS, until: target, from: run.losses.length, evalsFrom: run.evals.length });
    } catch (e) { notice(`Training stopped: ${e.message}`); stop(); return; }
    if (id !== runId) return;
    absorb(p);
    scheduleRender();
    if (following && performance.now() - requestView.lastAt > 250) requestView();
    if (limit !== Infinity && run.steps >= target) break;
  }
  if (id === runId && run.steps >= info.maxSteps) stop();
  if (id === runId && limit !== Infinity && run.evals.length) {
    const e = run.evals[run.evals.length - 1];
    announce(`Step ${run.steps}: held-out loss ${e.loss.toFixed(2)}, accuracy ${(100 * e.accuracy).toFixed(0)}%.`);
  }
  if (id === runId) requestView();
}

function play() {
  if (playing) { stop(); return; }
  playing = true;
  busy(0);
  ui.play.textContent = 'Pause';
  ui.play.setAttribute('aria-pressed', 'true');
  pump();
}
/** Says `text` to a screen reader once (the readout and the reading change every evaluation: they are not live). */
function announce(text) { ui.announce.textContent = text; }
function stop() {
  if (playing && run && run.evals.length) {
    const e = run.evals[run.evals.length - 1];
    announce(`Paused at step ${run.steps}${run.steps >= info.maxSteps ? ' (the last)' : ''}: held-out loss ${e.loss.toFixed(2)}, accuracy ${(100 * e.accuracy).toFixed(0)}%.`);
  }
  playing = false;
  busy(0);
  ui.play.textContent = 'Train';
  ui.play.setAttribute('aria-pressed', 'false');
}

// ---- the views: asked of the worker one at a time ----
const requestView = latestRequest({
  busy, token: () => runId,
  ask: () => {
    const at = following ? {} : { step: Number(ui.view.value) };
    if (ui.bigView.value === 'gxa') at.explain = { position: ui.position.value === '' ? undefined : Number(ui.position.value) };
    if (ui.bigView.value === 'rollout' || ui.bigView.value === 'flow') at.paths = true;
    return api.view(surgeryActive() ? { ...at, score: surgery.score, ablate: surgery.ablate } : at);
  },
  take: (v) => { shown = v; drawViews(); },
  fail: (e) => notice(`Could not draw the heads: ${e.message}`),
});

let current = { layer: 0, head: 0 };
// Surgery on the trained model (the API's encodeIds options): { label: name } re-scored heads, knocked-out labels.
let surgery = { score: {}, ablate: [] };
const surgeryActive = () => Object.keys(surgery.score).length > 0 || surgery.ablate.length > 0;
function surgeryText() {
  const parts = [];
  for (const [h, n] of Object.entries(surgery.score)) parts.push(`head ${h} re-scored with ${n}${surgery.ablate.includes(h) ? ' (and knocked out: its output is 0, so the re-scoring changes nothing downstream)' : ''}`);
  for (const h of surgery.ablate) if (!surgery.score[h]) parts.push(`head ${h} knocked out`);
  return parts.length ? `Changed: ${parts.join('; ')}. The pictures above show the changed model.` : 'No change: the model as trained.';
}
function stackOf(v) {
  if (v.kind !== 'encoder-decoder') return { name: '', attentions: v.attentions, q: v.tokens, k: v.tokens };
  const s = ui.stack.value;
  if (s === 'cross') return { name: 'cross', attentions: v.cross, q: v.target, k: v.source };
  if (s === 'decoder') return { name: 'decoder', attentions: v.attentions, q: v.target, k: v.target };
  return { name: 'encoder', attentions: v.encoderAttentions, q: v.source, k: v.source };
}
const headLabel = (stack, l, h) => (stack ? `${stack}.${l}.${h}` : `${l}.${h}`);
function drawViews() {
  const v = shown;
  if (!v) return;
  const st = stackOf(v);
  const nq = st.q.length, nk = st.k.length;
  fig.grid.setData({ layers: v.layers, heads: v.heads, nq, nk, attentions: st.attentions });
  fig.grid.setCurrent(current.layer, current.head);
  fig.grid.schedule(() => {
    fig.grid.draw();
    fig.grid.titleEl.text(`Every head at step ${v.step}${st.name ? ` (${ui.stack.selectedOptions[0].text})` : ''}`);
    fig.grid.captionEl.text(`Rows: layers; columns: heads (L1 H1 here is head ${headLabel(st.name, 0, 0)} in the API, which counts from 0). ` +
      'Each small matrix: rows are query tokens, columns key tokens, coloured from 0 to its own largest weight. Click a head, or use the arrow keys, to open it below.');
  }, true);
  const label = headLabel(st.name, current.layer, current.head);
  const nn = nq * nk, off = (current.layer * v.heads + current.head) * nn;
  const causal = v.kind === 'decoder' || st.name === 'decoder';
  const paths = v.paths ? v.paths[st.name] : null;
  const big = ui.bigView.value;
  // Rollout and flow are of a self-attention stack (the cross-attention has none); flow also needs its work under the limit.
  for (const o of ui.bigView.options) if (o.value === 'rollout' || o.value === 'flow') o.disabled = st.name === 'cross' || (!!paths && !paths[o.value]);
  if ((big === 'rollout' || big === 'flow') && (st.name === 'cross' || (paths && !paths[big]))) ui.bigView.value = 'head';
  else if ((big === 'rollout' || big === 'flow') && !paths) { requestView(); return; }   // this view was asked before the choice
  ui.positionRow.hidden = ui.bigView.value !== 'gxa';
  if (ui.bigView.value === 'rollout' || ui.bigView.value === 'flow') { drawPaths(v, st, paths, ui.bigView.value, causal); setSurgeryText(v, label); return; }
  const weights = st.attentions.subarray(off, off + nn);
  if (ui.bigView.value === 'gxa' && v.explained) {
    const e = v.explained;
    ui.position.max = String((v.kind === 'encoder-decoder' ? v.target.length : v.n) - 1);
    ui.position.value = String(e.position);
    // The positive part (Chefer et al. 2021 keep it too): dark = no push towards this prediction (or against it), bright = the most.
    const prod = e.products[st.name].subarray(off, off + nn).map((x) => Math.max(0, x));
    fig.head.setData({
      qTokens: st.q.map((text) => ({ text })), kTokens: st.k.map((text) => ({ text })), nq, nk, weights, scores: prod,
      masked: causal ? (i, j) => j > i : () => false, head: 0, heads: 1, scoreName: info.scores[label], temperature: 1,
    });
    fig.head.setValueKind('scores');
    fig.head.schedule(() => {
      fig.head.draw();
      fig.head.titleEl.text(`Gradient × attention of head ${label} for the prediction "${e.token}" at position ${e.position} (step ${v.step})`);
      fig.head.captionEl.text(`Each cell: an attention weight times the derivative of the logit of "${e.token}" at position ${e.position} (the model's likeliest token there, logit ${e.logit.toFixed(2)}) with respect to that weight. ` +
        'Shown: the positive part, 0 (dark) to the largest (bright): the weights through which the head pushes towards this prediction; a weight that pushes against it is shown as 0. Rows after the position do not reach it.');
    }, true);
    setSurgeryText(v, label);
    return;
  }
  fig.head.setValueKind('weights');
  fig.head.setData({
    qTokens: st.q.map((text) => ({ text })), kTokens: st.k.map((text) => ({ text })), nq, nk, weights, scores: weights,
    masked: causal ? (i, j) => j > i : () => false, head: 0, heads: 1, scoreName: info.scores[label], temperature: 1,
  });
  fig.head.schedule(() => {
    fig.head.draw();
    fig.head.titleEl.text(`Head ${label} (${info.scores[label]}) at step ${v.step}`);
    fig.head.captionEl.text(`Each row is one query token; its cells, one per key token${causal ? ' it may see (a decoder sees only earlier tokens)' : ''}, sum to 1. Brighter = more attention. Hover or use the arrow keys for values.`);
  }, true);
  setSurgeryText(v, label);
}
function drawPaths(v, st, paths, which, causal) {
  const m = paths[which];
  const n = st.q.length;
  fig.head.setData({
    qTokens: st.q.map((text) => ({ text })), kTokens: st.k.map((text) => ({ text })), nq: n, nk: n, weights: m, scores: m,
    masked: causal ? (i, j) => j > i : () => false, head: 0, heads: 1, scoreName: which, temperature: 1,
  });
  fig.head.schedule(() => {
    fig.head.draw();
    fig.head.titleEl.text(`Attention ${which}${st.name ? ` of the ${st.name}` : ''} at step ${v.step}`);
    fig.head.captionEl.text(`How much each token after the last layer (rows) draws on each input token (columns) through every layer, heads averaged, the residual connection counted as 0.5 of each layer (each layer's matrix becomes 0.5·I + 0.5·A). ` +
      (which === 'rollout' ? 'Rollout multiplies the layers\' matrices (Abnar & Zuidema 2020).' : 'Attention flow is the maximum flow through the same graph of layers and tokens (Abnar & Zuidema 2020).'));
  }, true);
}
function setSurgeryText(v, label) {
  ui.surgeryHead.textContent = label;
  ui.rescore.value = surgery.score[label] || '';
  ui.knock.checked = surgery.ablate.includes(label);
  ui.surgeryInfo.textContent = surgeryText();
  const changed = v.surgery ? ` With the changes: ${v.surgery.right} of ${v.counted} right.` : '';
  if (v.kind === 'encoder-decoder') {
    ui.probeInfo.textContent = `The example: input "${v.source.join('')}", output "${v.target.join('')}". Each row of a cross-attention matrix is an output position, each column an input letter: a reversal aligns along the anti-diagonal.`;
    ui.prediction.textContent = `The model's output for it at step ${v.step}: "${v.predicted.join('')}" (${v.right} of ${v.counted} right).` +
      (v.surgery ? ` With the changes: "${v.surgery.predicted.join('')}" (${v.surgery.right} of ${v.counted} right).` : '');
  } else {
    ui.probeInfo.textContent = info.task === 'induction'
      ? `The example: random tokens, then the same tokens again (never seen in training). An induction head looks, from each token of the repeat, at the token after its earlier occurrence: a diagonal ${Math.floor(v.n / 2) - 1} cells below the main one.`
      : 'The example: a piece of held-out text.';
    ui.prediction.textContent = `Next-token guesses at step ${v.step}${v.from ? ` in the repeat (the first half cannot be guessed)` : ''}: ${v.right} of ${v.counted} right.${changed}`;
  }
  ui.view.dataset.step = String(v.step);
}

// ---- drawing: at most once per animation frame ----
let frameQueued = false;
function scheduleRender() {
  if (frameQueued) return;
  frameQueued = true;
  requestAnimationFrame(() => { frameQueued = false; render(); });
}
const setText = (el, text) => { if (el.textContent !== text) el.textContent = text; };
function render() {
  if (!run || !info) return;
  const lastEval = run.evals[run.evals.length - 1];
  ui.view.max = String(lastEval ? lastEval.step : 0);
  ui.view.step = String(info.evalEvery);
  ui.view.disabled = !lastEval;   // a step to show once the first evaluation is saved
  if (following) ui.view.value = ui.view.max;
  const marker = Number(ui.view.value);
  setText(ui.viewLabel, String(marker));
  setText(ui.stepCount, `step ${run.steps} of ${info.maxSteps}`);
  ui.stepCount.dataset.steps = String(run.steps);
  if (lastEval) {
    const m = lastEval.measure;
    setText(ui.readout, `held-out loss ${lastEval.loss.toFixed(2)}, accuracy ${(100 * lastEval.accuracy).toFixed(0)}%` +
      (info.target.metricName ? `, ${info.target.metricName} ${m.metric.toFixed(2)}` : '') + ` at step ${lastEval.step}`);
    ui.readout.dataset.metric = String(m.metric);
    ui.readout.dataset.accuracy = String(lastEval.accuracy);
  }
  ui.step.disabled = playing || run.steps >= info.maxSteps;
  ui.play.disabled = run.steps >= info.maxSteps;
  // The step axis grows with the run (in 500s), not to the run's limit, so a short run fills the plot.
  const axisSteps = Math.min(info.maxSteps, Math.max(500, Math.ceil((run.steps * 1.15) / 500) * 500));
  fig.curve.setData({ losses: run.losses, evals: run.evals, chance: info.target.chance ?? 0, maxSteps: axisSteps, marker });
  fig.curve.schedule(() => fig.curve.draw(), true);
  if (run.evals.length && run.evals[0].measure.heads) {
    fig.heads.setData({
      title: info.target.headsTitle, caption: info.target.headsCaption, axis: info.target.headsAxis,
      heads: Object.keys(run.evals[0].measure.heads), evals: run.evals.map((e) => ({ step: e.step, values: e.measure.heads })),
      target: info.target.headsTarget, targetText: info.target.targetText, maxSteps: axisSteps, marker,
    });
    fig.heads.root.style('display', null);
    fig.heads.schedule(() => fig.heads.draw(), true);
  } else {
    fig.heads.root.style('display', 'none');
  }
  const r = readTraining(info, run.evals);
  setText(ui.reading, r.text);
  // The target met: said once, when it happens.
  if (r.reached !== null && ui.reading.dataset.reached === '') announce(r.text);
  ui.reading.dataset.reached = r.reached === null ? '' : String(r.reached);
}

// ---- generation (the characters task) ----
async function generateText() {
  const id = runId;
  let g;
  try {
    g = await call('generate', {
      prompt: ui.prompt.value, count: 200, temperature: clampNumber(ui.genTemp, 0, 2, 0.8), topK: Math.round(clampNumber(ui.genTopK, 0, 100, 5)), seed: settings().seed,
    });
  } catch (e) { notice(`Could not generate: ${e.message}`); return; }
  if (id !== runId) return;
  ui.generated.textContent = g.text;
  ui.genInfo.textContent = `Written at step ${run.steps}, one character at a time from the model's probabilities${Number(ui.genTemp.value) === 0 ? ' (temperature 0: always the likeliest)' : `, divided by temperature ${ui.genTemp.value}, among the ${ui.genTopK.value || 'all'} likeliest`}. Below: head 0.0's attention over the last ${g.n} characters.`;
  const off = 0, nn = g.n * g.n;
  const weights = g.attentions.subarray(off, off + nn);
  const toks = g.window.map((text) => ({ text: text === ' ' ? '␣' : text === '\n' ? '↵' : text }));
  fig.gen.setData({ qTokens: toks, kTokens: toks, nq: g.n, nk: g.n, weights, scores: weights, masked: (i, j) => j > i, head: 0, heads: 1, scoreName: info.scores['0.0'], temperature: 1 });
  fig.gen.schedule(() => {
    fig.gen.draw();
    fig.gen.titleEl.text('Head 0.0 over the generated text');
    fig.gen.captionEl.text(`Each row is one character of the last ${g.n} (␣ a space, ↵ a new line); its cells, one per character it may see (itself and the ones before), sum to 1. Brighter = more attention.`);
  }, true);
}
function clampNumber(input, lo, hi, fallback) {
  const x = Number(input.value);
  return Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : fallback;
}

// ---- the comparison ----
let compareId = 0, compareInfo = null;
function updateCompareButton() {
  const n = ui.cmpScores.querySelectorAll('input:checked').length;
  ui.cmpRun.disabled = n === 0 || !info || ui.cmpStatus.dataset.state === 'running';
  ui.cmpRun.textContent = `Compare ${n} scoring function${n === 1 ? '' : 's'}`;
}
async function compareRun() {
  const s = settings();
  const scores = [...ui.cmpScores.querySelectorAll('input:checked')].map((c) => c.value);
  const id = ++compareId;
  stop();
  try {
    compareInfo = await call('compareStart', { task: s.task, scores, learned: ui.cmpLearned.checked, steps: Number(ui.cmpSteps.value), learningRate: s.lr, seed: s.seed });
  } catch (e) { notice(`Could not start the comparison: ${e.message}`); return; }
  compareInfo.learned = ui.cmpLearned.checked;
  ui.cmpStatus.dataset.state = 'running';
  ui.cmpCancel.disabled = false;
  ui.cmpProgress.hidden = false;
  updateCompareButton();
  for (;;) {
    let r;
    try { r = await api.compareAdvance(SLICE_MS); } catch (e) { notice(`The comparison stopped: ${e.message}`); break; }
    if (id !== compareId) return;
    drawCompare(r.series);
    const done = r.series.filter((x) => !x.partial).length;
    const cur = r.series.find((x) => x.partial);
    const frac = (done + (cur ? cur.losses.length / compareInfo.steps : 0)) / compareInfo.runs;
    ui.cmpProgress.value = frac;
    setText(ui.cmpStatus, r.finished ? `Done: ${done} runs of ${compareInfo.steps} steps.` : `Training ${cur ? cur.score : ''} (${done + 1} of ${compareInfo.runs})…`);
    if (r.finished) break;
  }
  ui.cmpStatus.dataset.state = 'done';
  ui.cmpCancel.disabled = true;
  ui.cmpProgress.hidden = true;
  updateCompareButton();
}
function drawCompare(series) {
  fig.compare.root.style('display', null);
  fig.compare.setData({ series, order: scoreNames, steps: compareInfo.steps, evalEvery: info.evalEvery, chance: NaN });
  fig.compare.schedule(() => fig.compare.draw(), true);
  const r = readComparison(series, compareInfo.target, { learned: compareInfo.learned });
  const t = ui.cmpTable;
  t.caption.textContent = `${compareInfo.title}: every head scored by one function, ${compareInfo.steps} steps each, seed ${settings().seed}. Target: ${compareInfo.target.text}.`;
  const m = compareInfo.target.metricName;   // the task's own number, when it is not the accuracy
  const head = ['scoring function', 'held-out loss', 'held-out accuracy', ...(m ? [m] : []), 'target met at step'];
  t.tHead.replaceChildren(row(head, 'th', 'col'));
  t.tBodies[0].replaceChildren(...r.rows.map((x) => row([x.score, x.final.loss.toFixed(3), `${(100 * x.final.accuracy).toFixed(1)}%`,
    ...(m ? [x.final.metric.toFixed(3)] : []), x.reached === null ? 'not met' : String(x.reached)], 'td')));
  ui.cmpReading.textContent = r.text;
}
function row(cells, tag, scope) {
  const tr = document.createElement('tr');
  cells.forEach((c, i) => {
    const el = document.createElement(i === 0 && tag === 'td' ? 'th' : tag);
    if (i === 0 && tag === 'td') el.scope = 'row';
    if (scope) el.scope = scope;
    el.textContent = c;
    tr.append(el);
  });
  return tr;
}

// ---- wiring ----
ui.play.addEventListener('click', play);
ui.step.addEventListener('click', () => { if (!playing) pump(50); });
ui.reset.addEventListener('click', () => setup());
ui.task.addEventListener('change', () => { lrFromHash = false; setup({ taskChanged: true, wanted: null }); });
for (const el of [ui.lr, ui.learned]) el.addEventListener('change', () => setup());
ui.seed.addEventListener('change', () => setup());
ui.allApply.addEventListener('click', () => {
  for (const sel of ui.headScores.querySelectorAll('select')) sel.value = ui.allScores.value;
  setup();
});
ui.view.addEventListener('input', () => {
  following = Number(ui.view.value) >= Number(ui.view.max);
  render();
  requestView();
});
ui.rescore.addEventListener('change', () => {
  const label = ui.surgeryHead.textContent;
  if (ui.rescore.value) surgery.score[label] = ui.rescore.value; else delete surgery.score[label];
  requestView();
});
ui.knock.addEventListener('change', () => {
  const label = ui.surgeryHead.textContent;
  surgery.ablate = surgery.ablate.filter((h) => h !== label);
  if (ui.knock.checked) surgery.ablate.push(label);
  requestView();
});
ui.surgeryClear.addEventListener('click', () => { surgery = { score: {}, ablate: [] }; requestView(); });
ui.bigView.addEventListener('change', () => { if (ui.bigView.value === 'head') drawViews(); else requestView(); });
ui.position.addEventListener('change', requestView);
ui.stack.addEventListener('change', () => { current = { layer: 0, head: 0 }; drawViews(); });
fig.grid.addEventListener('pick', (ev) => { current = { layer: ev.detail.layer, head: ev.detail.head }; drawViews(); });
ui.save.addEventListener('click', async () => {
  try {
    const bytes = await call('save');
    const name = `attnscope-${info.task}-step${run.steps}.safetensors`;
    download(new Blob([bytes], { type: 'application/octet-stream' }), name);
    // How to show the file in lecture notes (the element reads text with the tokens saved in it).
    const { query } = await call('noteExample');
    ui.saveNote.hidden = false;
    ui.saveNote.textContent = query === null
      ? `Saved as ${name}. This page reads it back; the <attn-scope> element of lecture notes shows decoders, not yet encoder–decoders.`
      : `Saved as ${name}. To show it in lecture notes, put the file beside them with attnscope-element.js and write `
        + `<attn-scope model="transformer" model-src="${name}" query="${query.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\n/g, '&#10;')}"></attn-scope> `
        + '(the query here is the probe drawn above; any text made of the model\'s tokens will do).';
  } catch (e) { notice(`Could not save the model: ${e.message}`); }
});
ui.genRun.addEventListener('click', generateText);
ui.cmpRun.addEventListener('click', compareRun);
ui.cmpCancel.addEventListener('click', async () => {
  compareId++;
  await call('compareCancel').catch(() => {});
  ui.cmpStatus.dataset.state = 'cancelled';
  setText(ui.cmpStatus, 'Cancelled.');
  ui.cmpCancel.disabled = true;
  ui.cmpProgress.hidden = true;
  updateCompareButton();
});
ui.cmpScores.addEventListener('change', updateCompareButton);
window.addEventListener('hashchange', () => { const wanted = readHash(); setup({ taskChanged: true, wanted }); });

async function start() {
  let r;
  try {
    r = await call('init');
  } catch (e) {
    ui.loadText.textContent = `The kernels could not be loaded: ${e.message}`;
    return;
  }
  scoreNames = r.scoreFunctions.map((s) => s.name);
  tasks = r.tasks;
  for (const t of tasks) ui.task.add(new Option(t.title, t.name));
  for (const n of scoreNames) { ui.allScores.add(new Option(n, n)); ui.rescore.add(new Option(n, n)); }
  ui.allScores.value = 'scaled-dot';
  // Ticked at first: the registry's first five (the dot-product family, cosine, and the two scores with
  // matrices of their own); the distances and location can be added. Ten runs would take minutes.
  const defaultsCompare = scoreNames.slice(0, 5);
  for (const n of scoreNames) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = n;
    box.checked = defaultsCompare.includes(n);
    label.append(box, ` ${n}`);
    ui.cmpScores.append(label);
  }
  const wanted = readHash();
  await setup({ taskChanged: true, wanted });
  ui.loadText.textContent = `Ready (${r.isa}).`;
  ui.status.dataset.ready = 'true';
  document.body.classList.add('ready');
  keepForOffline($('offline-status'));
}
start();
