// The attention lab (web/pages/lab/lab.html). Part 1: train one head's W_q, W_k on a rule over the built-in
// corpus and watch its weights change. Part 2: train the same task from the same seed once per
// scoring function and compare the curves. All training runs in a module worker (web/pages/lab/lab-worker.js,
// lab/session.js) in slices of ~16–30 ms; this thread only draws what the worker sends back, so
// no task of the page's own thread grows with the training. The page's settings live in the URL hash
// (web/pages/lab/lab-state.js).
import * as Comlink from 'comlink';
import * as figures from '../../shared/figures/registry.js';
import { LossCurve } from '../../shared/figures/LossCurve.js';
import { CompareCurves, scoreClass, seriesClass } from '../../shared/figures/CompareCurves.js';
import { $, noticeBar, wireExports, hashWriter } from '../../shared/page.js';
import { fmt } from '../../shared/figures/base.js';
import { keepForOffline } from '../../shared/offline.js';
import { latestRequest, workerClient } from '../../shared/worker-client.js';
import { RULES, RULE_IDS, shortcutReading } from '../../../lab/rules.js';
import { COMPARE_EVAL_EVERY, COMPARE_STEPS, LAB_TEMPERATURE, OUTPUTS, curvesCSV, readComparison, runLabel, scoreFamilies, sortRows, stepsText, summaryRows } from '../../../lab/compare.js';
import { labDefaults, labFromHash, labToHash } from './lab-state.js';

const SNAP_EVERY = 5;   // lab/session.js: the worker saves the weights every 5 steps
const DHEAD = 16;

const ui = {
  rule: $('rule'), score: $('score'), lr: $('lr'), seed: $('seed'), learnTau: $('learn-tau'), play: $('play'), step: $('step'), reset: $('reset'),
  stepCount: $('step-count'), accuracy: $('accuracy'), shortcut: $('shortcut'), view: $('view-step'), viewLabel: $('view-label'),
  held: $('held-sentence'), own: $('own-sentence'), ownKey: $('own-paraphrase'), ownKeyRow: $('own-key-row'), taskInfo: $('task-info'), loadText: $('load-text'),
  progress: $('load-progress'), status: $('status'),
  cmpScores: $('compare-scores'), cmpOutputs: $('compare-outputs'), cmpAll: $('compare-all'), cmpNone: $('compare-none'), cmpSteps: $('compare-steps'),
  cmpRun: $('compare-run'), cmpCancel: $('compare-cancel'), cmpProgress: $('compare-progress'), cmpStatus: $('compare-status'),
  cmpTable: $('compare-table'), cmpSummary: $('compare-summary'), cmpReading: $('compare-reading'), cmpTask: $('compare-task'),
};

// The worker and body.computing while the page waits for it (web/shared/worker-client.js).
const { api, busy, call } = workerClient(new Worker(new URL('lab-worker.js', import.meta.url), { type: 'module' }),
  { alsoBusy: () => pumping });
let scoreNames = [], families = { dot: [], distance: [] };

const notices = noticeBar();
const notice = (text) => notices.set(text);


// ---- figures ----
// The heatmap is the demo's figure (its registry entry's class); the lab has four, so each gets its own
// ids and title.
function heatmap(slotId, title) {
  const f = new figures.heatmap.figure($(slotId));
  const name = `lab-${slotId}`;
  f.id = name;
  f.measureName = name;
  f.root.attr('id', `figure-${name}`).attr('aria-labelledby', `figure-${name}-title`);
  f.titleEl.attr('id', `figure-${name}-title`).text(title);
  f.live.attr('id', `figure-${name}-live`);
  f.svg.attr('aria-describedby', `figure-${name}-live`);
  f.tools.select('.values-choice').remove();   // the lab shows weights only
  return f;
}
const fig = {
  curve: new LossCurve($('curve-slot'), { csv: (d) => curvesCSV([{ ...d.settings, losses: d.losses, evals: d.evals }]) }),
  heldBefore: heatmap('held-before', 'Before training (step 0)'),
  heldAfter: heatmap('held-after', 'At step 0'),
  ownBefore: heatmap('own-before', 'Before training (step 0)'),
  ownAfter: heatmap('own-after', 'At step 0'),
  compare: new CompareCurves($('compare-slot'), {
    csv: (d) => curvesCSV(d.series.filter((s) => !s.partial).map((s) => ({ ...d.settings, score: s.score, output: s.output, losses: s.losses, evals: s.evals }))),
  }),
};
fig.compare.setExportEnabled(false, 'Run a comparison first.');
wireExports(Object.values(fig), {
  stem: (f) => (f === fig.curve && info ? `attnscope-lab-curves-${info.rule}-${info.score}`
    : f === fig.compare && compare.info ? `attnscope-lab-compare-${compare.info.rule}` : f.fileStem()),
  failed: notice,
});

// ---- settings and the URL ----
function settings() {
  const seed = Number(ui.seed.value);
  return {
    rule: ui.rule.value, score: ui.score.value, lr: Number(ui.lr.value),
    seed: ui.seed.value.trim() !== '' && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : 1,
    learnTau: ui.learnTau.checked,
    cmp: [...ui.cmpScores.querySelectorAll('input[type=checkbox]:checked')].map((c) => c.value),
    out: [...ui.cmpOutputs.querySelectorAll('input[type=checkbox]:checked')].map((c) => c.value),
    steps: Number(ui.cmpSteps.value),
  };
}
const url = hashWriter(() => labToHash(settings(), { scores: scoreNames }));
const writeURL = () => url.write();
function applyState(s) {
  ui.rule.value = s.rule;
  ui.score.value = s.score;
  ui.lr.value = String(s.lr);
  ui.seed.value = String(s.seed);
  ui.learnTau.checked = s.learnTau;
  ui.cmpSteps.value = String(s.steps);
  for (const c of ui.cmpScores.querySelectorAll('input[type=checkbox]')) c.checked = s.cmp.includes(c.value);
  for (const c of ui.cmpOutputs.querySelectorAll('input[type=checkbox]')) c.checked = s.out.includes(c.value);
  updateCompareButton();
}
function readURL() {
  const { state, problems } = labFromHash(location.hash, { scores: scoreNames, rules: RULE_IDS });
  applyState(state);
  notice(problems.length ? `Some settings of the link were not understood and keep their defaults: ${problems.join('; ')}.` : '');
}

// ---- part 1: one run ----
let runId = 0;
let info = null;          // the run's task: { rule, score, learningRate, seed, train, heldOut: [text], chance }
let run = null;           // { steps, losses, evals, snaps, maxSteps }
let shown = null;         // the newest view from the worker: { snap, step, held, own }
let playing = false, pumping = false, following = true;

async function setup() {
  stop();
  const s = settings();
  const id = ++runId;
  let r;
  try {
    r = await call('setup', { rule: s.rule, score: s.score, learningRate: s.lr, seed: s.seed, learnTau: s.learnTau });
  } catch (e) { notice(`Could not start training: ${e.message}`); return; }
  if (id !== runId) return;
  info = r;
  run = r;
  ui.seed.value = String(r.seed);
  ui.taskInfo.textContent = r.cross
    ? `${r.train} training pairs (a sentence and its paraphrase), ${r.heldOut.length} held out; ` +
      `chance accuracy on the held-out ones ${(100 * r.chance).toFixed(0)}% (the target is one of the paraphrase's words; ` +
      'a word that occurs twice in either sentence has no target).'
    : `${r.train} training sentences, ${r.heldOut.length} held out; ` +
      `chance accuracy on the held-out ones ${(100 * r.chance).toFixed(0)}% (the target is one of a sentence's words).`;
  ui.ownKeyRow.hidden = !r.cross;
  ui.held.replaceChildren(...r.heldOut.map((text, i) => new Option(text, String(i))));
  following = true;
  if (heatPending) { heatJobs = []; heatPending = false; busy(-1); }   // the last run's pictures
  fig.heldBefore.labKey = fig.ownBefore.labKey = null;
  writeURL();
  render();
  requestView();
}

/** Trains slice after slice while playing (the worker answers each within ~16 ms of training). */
async function pump() {
  if (pumping) return;
  pumping = true;
  busy(0);
  try {
    while (playing && run.steps < run.maxSteps) {
      const id = runId;
      const r = await api.train({ budgetMs: 16 });
      if (id !== runId) continue;
      run = r;
      // The step count's data attribute follows every slice at once (its text waits for a frame): what
      // watches it (a test pausing at a given step) need not wait for frames a busy machine delays.
      ui.stepCount.dataset.steps = String(run.steps);
      if (run.steps >= run.maxSteps) stop();
      scheduleRender();
      // The heatmaps follow at most every VIEW_EVERY_MS while training (the curve every slice):
      // a frame then draws one figure or two, not five, which keeps each of this thread's tasks short.
      if (following && performance.now() - requestView.lastAt >= VIEW_EVERY_MS) requestView();
    }
  } catch (e) {
    stop();
    notice(`Training stopped: ${e.message}`);
  } finally {
    pumping = false;
    busy(0);
    render();
    if (following) requestView();   // the last slice's heatmaps
  }
}
function play() {
  if (!run || run.steps >= run.maxSteps) return;
  playing = true;
  following = true;
  ui.play.textContent = 'Pause';
  ui.play.setAttribute('aria-pressed', 'true');
  render();
  pump();
}
function stop() {
  playing = false;
  ui.play.textContent = 'Train';
  ui.play.setAttribute('aria-pressed', 'false');
}
async function stepFive() {
  if (playing || pumping || !run) return;
  const id = runId;
  following = true;
  try {
    const r = await call('train', { count: SNAP_EVERY });
    if (id !== runId) return;
    run = r;
  } catch (e) { notice(`Training stopped: ${e.message}`); }
  render();
  requestView();
}

// ---- the heatmaps: asked of the worker (it holds every saved step), one request at a time ----
const VIEW_EVERY_MS = 120;
const requestView = latestRequest({
  busy, token: () => runId,
  ask: () => api.view({ snap: following ? undefined : Number(ui.view.value), held: Number(ui.held.value) || 0, own: ui.own.value, ownKey: ui.ownKey.value }),
  take: (v) => { shown = v; drawHeatmaps(); },
  fail: (e) => notice(`Could not draw the heatmaps: ${e.message}`),
});

function heatData(tokens, keyTokens, weights) {
  return { qTokens: tokens, kTokens: keyTokens, nq: tokens.length, nk: keyTokens.length, weights, scores: weights, masked: () => false,
    head: 0, heads: 1, scoreName: info.score, temperature: 1 };
}
// The "before" picture changes only with the sentence or a new run: redrawn only then. The heatmap's
// draw() writes its own title: the lab's goes on after it.
function drawPair(before, after, pair, step) {
  if (!pair) return;
  const tokens = pair.tokens.map((text) => ({ text }));
  const keyTokens = pair.keyTokens.map((text) => ({ text }));
  const caption = info.cross
    ? `Each row is one word of the sentence (a query); its ${keyTokens.length} cells, one per word of the paraphrase (the keys), sum to 1. Brighter = more attention. Hover for values.`
    : `Each row is one query word; its ${tokens.length} cells (one per key word) sum to 1. Brighter = more attention. Hover for values.`;
  const key = `${runId}\u0000${pair.tokens.join('\u0000')}\u0001${pair.keyTokens.join('\u0000')}`;
  if (before.labKey !== key) {
    before.labKey = key;
    before.setData(heatData(tokens, keyTokens, pair.before));
    before.schedule(() => { before.draw(); before.titleEl.text('Before training (step 0)'); before.captionEl.text(caption); }, true);
  }
  after.setData(heatData(tokens, keyTokens, pair.after));
  after.schedule(() => { after.draw(); after.titleEl.text(`At step ${step}`); after.captionEl.text(caption); }, true);
}
// The two pairs in two animation frames (frame() below): a frame then holds one pair's drawing and
// layout besides the curve's. A newer view replaces the pairs still waiting.
let heatJobs = [], heatPending = false;
function drawHeatmaps() {
  if (!shown) return;
  const v = shown;
  if (!heatPending) { heatPending = true; busy(1); }
  heatJobs = [
    () => drawPair(fig.heldBefore, fig.heldAfter, v.held, v.step),
    () => {
      drawPair(fig.ownBefore, fig.ownAfter, v.own, v.step);
      ui.view.dataset.step = String(v.step);
      heatPending = false;
      busy(-1);
    },
  ];
  queueFrame();
}

// ---- drawing: at most once per animation frame ----
// While training plays, slices and views arrive faster than frames; each frame brings the curve and
// the readouts up to date once (if anything changed) and draws at most one heatmap pair, so no task
// of this thread holds more than about one figure's drawing, style and layout.
let renderQueued = false, frameQueued = false;
function scheduleRender() {
  renderQueued = true;
  queueFrame();
}
function queueFrame() {
  if (frameQueued) return;
  frameQueued = true;
  requestAnimationFrame(frame);
}
function frame() {
  frameQueued = false;
  if (renderQueued) { renderQueued = false; render(); }
  const job = heatJobs.shift();
  if (job) job();
  if (heatJobs.length) queueFrame();
}
const setText = (el, text) => { if (el.textContent !== text) el.textContent = text; };
function render() {
  if (!run) return;
  const last = run.snaps - 1;
  ui.view.max = String(last);
  if (following) ui.view.value = String(last);
  const snap = Number(ui.view.value);
  const step = Math.min(snap * SNAP_EVERY, run.steps);
  setText(ui.viewLabel, String(step));
  setText(ui.stepCount, `step ${run.steps} of ${run.maxSteps}`);
  ui.stepCount.dataset.steps = String(run.steps);
  const e = run.evals[run.evals.length - 1];
  setText(ui.accuracy, `held-out accuracy ${(100 * e.accuracy).toFixed(0)}% at step ${e.step} (chance ${(100 * info.chance).toFixed(0)}%)`
    + (info.learnTau ? `; learnt τ = ${fmt(run.tau, 3)} at step ${run.steps}` : ''));
  ui.accuracy.dataset.tau = String(run.tau);
  ui.accuracy.dataset.accuracy = String(e.accuracy);
  ui.accuracy.dataset.chance = String(info.chance);
  // Position alone against the head, and the shortcut if it took one (lab/rules.js). A live region: while
  // training plays it is rewritten only when the verdict changes, so a screen reader hears the change
  // and not every evaluation's numbers.
  const sc = run.shortcut;
  const verdict = !sc ? '' : sc.positional ? 'positional' : sc.queryBlind ? 'query-blind' : 'none';
  if (!playing || verdict !== ui.shortcut.dataset.verdict) {
    const at = sc ? run.evals.find((x) => x.step === sc.step) || e : e;
    const text = shortcutReading(info.rule, run.baseline, sc, at.accuracy);
    setText(ui.shortcut, text);
    ui.shortcut.hidden = !text;
    ui.shortcut.dataset.verdict = verdict;
  }
  ui.step.disabled = playing || pumping || run.steps >= run.maxSteps;
  ui.play.disabled = run.steps >= run.maxSteps;
  fig.curve.setData({ losses: run.losses, evals: run.evals, chance: info.chance, maxSteps: run.maxSteps, marker: step,
    settings: { rule: info.rule, score: info.score, learningRate: info.learningRate, seed: info.seed } });
  fig.curve.schedule(() => fig.curve.draw(), true);
}

// ---- part 2: compare ----
let compareId = 0;
let compare = { series: [], info: null, rows: [], sort: { key: 'stepsTo90', reverse: false } };

function updateCompareButton() {
  const n = ui.cmpScores.querySelectorAll('input[type=checkbox]:checked').length;
  const outs = ui.cmpOutputs.querySelectorAll('input[type=checkbox]:checked').length;
  ui.cmpRun.disabled = n === 0 || outs === 0 || !scoreNames.length || ui.cmpStatus.dataset.state === 'running';
  const only = outs === 1 && ui.cmpOutputs.querySelector('input[value=none]').checked;
  ui.cmpRun.textContent = only || outs === 0 ? `Compare ${n} scoring function${n === 1 ? '' : 's'}`
    : `Compare ${n * outs} run${n * outs === 1 ? '' : 's'} (${n} function${n === 1 ? '' : 's'} × ${outs} output${outs === 1 ? '' : 's'})`;
}
function compareTaskText() {
  const s = settings();
  const rule = RULES.find((r) => r.id === s.rule);
  ui.cmpTask.textContent = `Trains the rule above (${rule ? rule.label : s.rule}) with learning rate ${s.lr} from seed ${s.seed}: ` +
    `the same initial matrices (where the functions share them) and the same batches for every function, ${s.steps} steps each, ` +
    `held-out accuracy measured every ${COMPARE_EVAL_EVERY} steps.` +
    (s.out.some((o) => o !== 'none') ? ' With an output, the target word is the one whose vector the output must copy; held-out accuracy is still ' +
      'where the head puts its largest weight, and the output accuracy how often its output is nearest the target word\'s vector.' : '');
}

async function compareRun() {
  const s = settings();
  if (!s.cmp.length) return;
  const id = ++compareId;
  ui.cmpStatus.dataset.state = 'running';
  ui.cmpCancel.disabled = false;
  ui.cmpProgress.hidden = false;
  ui.cmpProgress.value = 0;
  updateCompareButton();
  compare.rows = [];
  drawCompareTable();
  ui.cmpReading.replaceChildren();
  try {
    await api.compareStart({ rule: s.rule, learningRate: s.lr, seed: s.seed, scores: s.cmp, outputs: s.out, steps: s.steps });
    for (;;) {
      const r = await api.compareAdvance(30);
      if (id !== compareId) return;
      compare.series = r.curves;
      compare.info = r.info;
      const p = r.progress;
      ui.cmpProgress.max = p.total;
      ui.cmpProgress.value = p.done;
      ui.cmpStatus.textContent = r.done ? '' : `Training ${p.score} (${p.index + 1} of ${p.count}): ${p.done} of ${p.total} steps…`;
      drawCompareCurves();
      if (r.done) break;
    }
  } catch (e) {
    if (id !== compareId) return;
    notice(`The comparison stopped: ${e.message}`);
    ui.cmpStatus.dataset.state = 'error';
    finishCompare();
    return;
  }
  ui.cmpStatus.dataset.state = 'done';
  finishCompare();
  ui.cmpStatus.textContent = `Done: ${compare.rows.length} ${compare.info.outputs.length > 1 || compare.info.outputs[0] !== 'none' ? 'runs' : 'scoring functions'}, ${compare.info.steps} steps each.`;
}
function compareCancel() {
  if (ui.cmpStatus.dataset.state !== 'running') return;
  compareId++;
  api.compareCancel().catch(() => {});
  compare.series = compare.series.filter((x) => !x.partial);
  ui.cmpStatus.dataset.state = 'cancelled';
  finishCompare();
  ui.cmpStatus.textContent = `Cancelled: ${compare.rows.length} of ${settings().cmp.length * Math.max(1, settings().out.length)} runs finished (their rows are below).`;
  drawCompareCurves();
}
function finishCompare() {
  ui.cmpCancel.disabled = true;
  ui.cmpProgress.hidden = true;
  updateCompareButton();
  const done = compare.series.filter((x) => !x.partial);
  compare.rows = summaryRows(done);
  drawCompareTable();
  const i = compare.info;
  const paragraphs = i && compare.rows.length
    ? readComparison(compare.rows, { steps: i.steps, seed: i.seed, rule: i.ruleLabel, dHead: DHEAD, families, temperature: LAB_TEMPERATURE }) : [];
  ui.cmpReading.replaceChildren(...paragraphs.map((t) => { const p = document.createElement('p'); p.textContent = t; return p; }));
}
function drawCompareCurves() {
  const i = compare.info;
  if (!i) return;
  fig.compare.setData({ series: compare.series, order: scoreNames, steps: i.steps, evalEvery: COMPARE_EVAL_EVERY, chance: i.chance,
    settings: { rule: i.rule, learningRate: i.learningRate, seed: i.seed } });
  fig.compare.schedule(() => fig.compare.draw(), true);
  fig.compare.setExportEnabled(compare.series.some((x) => !x.partial), 'Wait until a scoring function has finished.');
}

const COLUMNS = [
  { key: 'score', label: 'Scoring function' },
  { key: 'accuracy', label: 'Held-out accuracy' },
  { key: 'outputAccuracy', label: 'Output accuracy', outputs: true },
  { key: 'stepsTo90', label: 'Steps to 90%' },
  { key: 'heldOutLoss', label: 'Held-out loss' },
  { key: 'trainLoss', label: `Training loss (last ${COMPARE_EVAL_EVERY} steps)` },
];
function drawCompareTable() {
  const t = ui.cmpTable;
  const { key, reverse } = compare.sort;
  const head = document.createElement('tr');
  // The output accuracy column only when a row has an output.
  const outputs = compare.rows.some((r) => r.output !== 'none');
  const columns = COLUMNS.filter((c) => !c.outputs || outputs);
  for (const c of columns) {
    const th = document.createElement('th');
    th.scope = 'col';
    // Natural orders (lab/compare.js sortRows): accuracy highest first, the rest lowest first.
    const natural = c.key === 'accuracy' || c.key === 'outputAccuracy' ? 'descending' : 'ascending';
    if (c.key === key) th.setAttribute('aria-sort', reverse ? (natural === 'ascending' ? 'descending' : 'ascending') : natural);
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'sort';
    b.dataset.key = c.key;
    b.textContent = c.label;
    b.addEventListener('click', () => {
      compare.sort = { key: c.key, reverse: compare.sort.key === c.key ? !compare.sort.reverse : false };
      drawCompareTable();
    });
    th.append(b);
    head.append(th);
  }
  t.tHead.replaceChildren(head);
  // Rows ordered by the registry's function order, then attention only, value, symmetric.
  const order = scoreNames.flatMap((name) => OUTPUTS.map((o) => runLabel(name, o)));
  const rows = sortRows(compare.rows, key, reverse, order);
  t.tBodies[0].replaceChildren(...rows.map((r) => {
    const tr = document.createElement('tr');
    tr.dataset.score = r.score;
    tr.dataset.accuracy = String(r.accuracy);
    tr.dataset.stepsTo90 = r.stepsTo90 === null ? '' : String(r.stepsTo90);
    tr.dataset.output = r.output;
    if (r.outputAccuracy !== null) tr.dataset.outputAccuracy = String(r.outputAccuracy);
    const name = document.createElement('th');
    name.scope = 'row';
    const sw = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    sw.setAttribute('class', 'swatch');
    sw.setAttribute('width', '20');
    sw.setAttribute('height', '8');
    sw.setAttribute('aria-hidden', 'true');
    const ln = document.createElementNS('http://www.w3.org/2000/svg', 'line');
    ln.setAttribute('x1', '0'); ln.setAttribute('x2', '20'); ln.setAttribute('y1', '4'); ln.setAttribute('y2', '4');
    ln.setAttribute('class', `series ${seriesClass(r, scoreNames)}`);
    sw.append(ln);
    name.append(sw, document.createTextNode(` ${r.score}`));
    const cells = [`${(100 * r.accuracy).toFixed(1)}%`, ...(outputs ? [r.outputAccuracy === null ? '—' : `${(100 * r.outputAccuracy).toFixed(1)}%`] : []),
      stepsText(r), r.heldOutLoss.toFixed(3), r.trainLoss.toFixed(3)];
    tr.append(name, ...cells.map((text) => { const td = document.createElement('td'); td.textContent = text; return td; }));
    return tr;
  }));
  const i = compare.info;
  t.caption.textContent = compare.rows.length ? 'Results (click a column to sort)' : 'Results';
  ui.cmpSummary.textContent = i && compare.rows.length
    ? `${RULES.find((r) => r.id === i.rule).label}, learning rate ${i.learningRate}, seed ${i.seed}, ${i.steps} steps; ` +
      `held-out accuracy after the last step (chance ${(100 * i.chance).toFixed(0)}%) and the first step (of every ${COMPARE_EVAL_EVERY}) at which it reached 90%.` +
      (outputs ? ' Output accuracy: how often the output was nearest the target word\'s vector (— for attention only). ' +
        'The loss is cross-entropy (nats) for attention only and squared error per dimension with an output: compare losses within a kind only.' : '')
    : 'No comparison yet: pick scoring functions and press Compare.';
}

// ---- start ----
async function main() {
  let init;
  try {
    init = await api.init(Comlink.proxy((loaded, total) => {
      if (total > 0) { ui.progress.max = total; ui.progress.value = loaded; }
      ui.loadText.textContent = `Loading the vocabulary… ${(loaded / 1e6).toFixed(1)} MB`;
    }));
  } catch (e) {
    ui.loadText.textContent = `Could not load attnscope: ${e.message}`;
    return;
  }
  scoreNames = init.scoreFunctions.map((s) => s.name);
  families = scoreFamilies(init.scoreFunctions);
  ui.rule.replaceChildren(...RULES.map((r) => new Option(r.label, r.id)));
  ui.score.replaceChildren(...scoreNames.map((s) => new Option(s, s)));
  ui.cmpSteps.replaceChildren(...COMPARE_STEPS.map((n) => new Option(String(n), String(n))));
  ui.cmpScores.replaceChildren(...scoreNames.map((name, i) => {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = name;
    box.checked = true;
    const sw = document.createElement('span');
    sw.className = `swatch ${scoreClass(name, scoreNames)}`;
    sw.setAttribute('aria-hidden', 'true');
    label.append(box, sw, document.createTextNode(name));
    return label;
  }));
  applyState(labDefaults(scoreNames));
  readURL();
  await setup();
  ui.progress.hidden = true;
  ui.loadText.textContent = `Ready (${init.isa}). Training runs in a background worker.`;
  ui.status.dataset.ready = 'true';
  document.body.classList.add('ready');
  for (const b of [ui.play, ui.reset, ui.view]) b.disabled = false;
  // In the background (not "computing"): a few steps of a throwaway head, so the first run does not
  // share the cores with the engine's compiling of the training code (lab/session.js warmUp).
  api.warmUp({ rule: info.rule, score: info.score }).catch(() => {});
  render();
  compareTaskText();
  drawCompareTable();
  updateCompareButton();
  ui.play.addEventListener('click', () => (playing ? (stop(), render()) : play()));
  ui.step.addEventListener('click', stepFive);
  ui.reset.addEventListener('click', setup);
  for (const el of [ui.rule, ui.score, ui.lr, ui.seed, ui.learnTau]) el.addEventListener('change', () => { setup(); compareTaskText(); });
  ui.view.addEventListener('input', () => { following = Number(ui.view.value) === run.snaps - 1; render(); requestView(); });
  ui.held.addEventListener('change', requestView);
  ui.own.addEventListener('input', requestView);
  ui.ownKey.addEventListener('input', requestView);
  ui.cmpScores.addEventListener('change', () => { updateCompareButton(); writeURL(); });
  ui.cmpOutputs.addEventListener('change', () => { updateCompareButton(); compareTaskText(); writeURL(); });
  ui.cmpSteps.addEventListener('change', () => { compareTaskText(); writeURL(); });
  ui.cmpAll.addEventListener('click', () => { for (const c of ui.cmpScores.querySelectorAll('input')) c.checked = true; updateCompareButton(); writeURL(); });
  ui.cmpNone.addEventListener('click', () => { for (const c of ui.cmpScores.querySelectorAll('input')) c.checked = false; updateCompareButton(); writeURL(); });
  ui.cmpRun.addEventListener('click', compareRun);
  // The comparison's plot has a narrow layout (key below): a rotated phone gets the other one.
  window.addEventListener('resize', () => { if (compare.info) fig.compare.schedule(() => fig.compare.draw()); });
  ui.cmpCancel.addEventListener('click', compareCancel);
  // A link pasted or followed on the page: its settings, and a new run when part 1's changed.
  window.addEventListener('hashchange', () => {
    const before = JSON.stringify([info.rule, info.score, info.learningRate, info.seed, info.learnTau]);
    readURL();
    compareTaskText();
    const s = settings();
    if (JSON.stringify([s.rule, s.score, s.lr, s.seed, s.learnTau]) !== before) setup();
    else writeURL();
  });
  keepForOffline($('offline-status'));
}
main();
