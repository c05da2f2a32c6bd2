// The attention lab (web/lab.html): train one head's W_q, W_k on a rule over the built-in corpus and
// watch its weights change. Training runs on this thread in slices of at most ~12 ms per animation
// frame (a step of the default task takes well under a millisecond in wasm), so the page never
// freezes; every 5 steps the head's weights are saved, and the slider redraws any saved step.
import { createAttnScope } from 'attnscope';
import { Heatmap } from './figures/Heatmap.js';
import { LossCurve } from './figures/LossCurve.js';
import { download } from './export.js';
import { keepForOffline } from './offline.js';
import { RULES, buildTask, chanceAccuracy, wordTokens } from './lab/rules.js';
import { headWeights } from './lab/model.js';
import corpus from './lab/corpus.json';

const SNAP_EVERY = 5;      // steps between saved weights (the slider's unit)
const EVAL_EVERY = 25;     // steps between held-out evaluations
const MAX_STEPS = 500;     // a run stops here (Start over for another)
const FRAME_MS = 12;       // training time per animation frame
const HEAD = { dHead: 16, positions: 'concat', dPos: 16, maxLen: 24, batch: 32, temperature: 1, mask: 'none' };

const $ = (id) => document.getElementById(id);
const ui = {
  rule: $('rule'), score: $('score'), lr: $('lr'), seed: $('seed'), play: $('play'), step: $('step'), reset: $('reset'),
  stepCount: $('step-count'), accuracy: $('accuracy'), view: $('view-step'), viewLabel: $('view-label'),
  held: $('held-sentence'), own: $('own-sentence'), taskInfo: $('task-info'), loadText: $('load-text'),
  progress: $('load-progress'), status: $('status'), notice: $('notice'), noticeText: $('notice-text'),
};

let scope = null, trainer = null, task = null, chance = 0;
let snapshots = [];   // [{ step, weights }]
let evals = [];       // [{ step, loss, accuracy }]
let playing = false, following = true;
const embedCache = new Map();

function notice(text) {
  ui.noticeText.textContent = text;
  ui.notice.hidden = !text;
}

// ---- figures ----
// Heatmap is the demo's figure; the lab has four, so each gets its own ids and title.
function heatmap(slotId, title) {
  const f = new Heatmap($(slotId));
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
  curve: new LossCurve($('curve-slot')),
  heldBefore: heatmap('held-before', 'Before training (step 0)'),
  heldAfter: heatmap('held-after', 'At step 0'),
  ownBefore: heatmap('own-before', 'Before training (step 0)'),
  ownAfter: heatmap('own-after', 'At step 0'),
};
for (const f of Object.values(fig)) {
  f.addEventListener('export', async (ev) => {
    try { download(await f.toBlob(ev.detail.format), `${f.fileStem()}.${ev.detail.format}`); } catch (e) { notice(`The download failed: ${e.message}.`); }
  });
}

// ---- the task ----
function embed(w) {
  let v = embedCache.get(w.lookup);
  if (!v) { v = scope.embed(w.lookup).vector; embedCache.set(w.lookup, v); }
  return v;
}

function trainerOptions() {
  const seed = Number(ui.seed.value);
  return {
    ...HEAD, dIn: scope.vocabulary.dim, score: ui.score.value, learningRate: Number(ui.lr.value),
    seed: Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : 1,
  };
}

function setup() {
  stop();
  if (trainer) trainer.dispose();
  const rule = ui.rule.value;
  task = buildTask(corpus, rule, { tokenize: (t) => scope.tokenize(t), embed, dIn: scope.vocabulary.dim, maxLen: HEAD.maxLen });
  chance = chanceAccuracy(task.heldOut.data);
  trainer = scope.createTrainer({ data: task.train.data, ...trainerOptions() });
  ui.seed.value = trainer.options.seed;
  ui.taskInfo.textContent = `${task.train.sentences.length} training sentences, ${task.heldOut.sentences.length} held out; ` +
    `chance accuracy on the held-out ones ${(100 * chance).toFixed(0)}% (the target is one of a sentence's words).`;
  ui.held.replaceChildren(...task.heldOut.sentences.map((s, i) => {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = s.text;
    return o;
  }));
  run++;
  snapshots = [{ step: 0, weights: trainer.weights() }];
  evals = [{ step: 0, ...trainer.evaluate(task.heldOut.data) }];
  following = true;
  render();
}

// ---- training ----
function trainSlice() {
  const t0 = performance.now();
  do {
    trainer.step(SNAP_EVERY);
    snapshots.push({ step: trainer.steps, weights: trainer.weights() });
    if (trainer.steps % EVAL_EVERY === 0) evals.push({ step: trainer.steps, ...trainer.evaluate(task.heldOut.data) });
  } while (playing && trainer.steps < MAX_STEPS && performance.now() - t0 < FRAME_MS);
  if (trainer.steps >= MAX_STEPS) stop();
}
function frame() {
  if (!playing) return;
  trainSlice();
  render();
  if (playing) requestAnimationFrame(frame);
}
function play() {
  if (trainer.steps >= MAX_STEPS) return;
  playing = true;
  following = true;
  ui.play.textContent = 'Pause';
  ui.play.setAttribute('aria-pressed', 'true');
  requestAnimationFrame(frame);
}
function stop() {
  playing = false;
  ui.play.textContent = 'Train';
  ui.play.setAttribute('aria-pressed', 'false');
}

// ---- drawing ----
function heatData(tokens, weights) {
  const n = tokens.length;
  return { qTokens: tokens, kTokens: tokens, nq: n, nk: n, weights, scores: weights, masked: () => false, head: 0, heads: 1,
    scoreName: trainer.options.score, temperature: trainer.options.temperature };
}
// The "before" picture changes only with the sentence or a new run: redrawn only then (a frame of
// training redraws just the "after" ones). Heatmap.draw() writes its own title: the lab's goes on after it.
let run = 0;
function drawPair(before, after, tokens, vectors, snap) {
  const caption = `Each row is one query word; its ${tokens.length} cells (one per key word) sum to 1. Brighter = more attention. Hover for values.`;
  const key = `${run}\u0000${tokens.map((t) => t.text).join('\u0000')}`;
  if (before.labKey !== key) {
    before.labKey = key;
    before.setData(heatData(tokens, headWeights(scope, snapshots[0].weights, trainer.options, vectors)));
    before.schedule(() => { before.draw(); before.titleEl.text('Before training (step 0)'); before.captionEl.text(caption); }, true);
  }
  after.setData(heatData(tokens, headWeights(scope, snap.weights, trainer.options, vectors)));
  after.schedule(() => { after.draw(); after.titleEl.text(`At step ${snap.step}`); after.captionEl.text(caption); }, true);
}
function ownSentence() {
  const words = wordTokens(scope.tokenize(ui.own.value)).slice(0, HEAD.maxLen);
  if (!words.length) return null;
  const vectors = new Float32Array(words.length * scope.vocabulary.dim);
  words.forEach((w, i) => vectors.set(embed(w), i * scope.vocabulary.dim));
  return { tokens: words.map((w) => ({ text: w.text })), vectors };
}

function render() {
  const last = snapshots.length - 1;
  ui.view.max = String(last);
  if (following) ui.view.value = String(last);
  const snap = snapshots[Number(ui.view.value)];
  ui.viewLabel.textContent = String(snap.step);
  ui.view.dataset.step = String(snap.step);
  ui.stepCount.textContent = `step ${trainer.steps} of ${MAX_STEPS}`;
  ui.stepCount.dataset.steps = String(trainer.steps);
  const e = evals[evals.length - 1];
  ui.accuracy.textContent = `held-out accuracy ${(100 * e.accuracy).toFixed(0)}% at step ${e.step} (chance ${(100 * chance).toFixed(0)}%)`;
  ui.accuracy.dataset.accuracy = String(e.accuracy);
  ui.accuracy.dataset.chance = String(chance);
  ui.step.disabled = playing || trainer.steps >= MAX_STEPS;
  ui.play.disabled = trainer.steps >= MAX_STEPS;
  fig.curve.setData({ losses: trainer.losses, evals, chance, maxSteps: MAX_STEPS, marker: snap.step });
  fig.curve.schedule(() => fig.curve.draw(), true);
  const h = task.heldOut;
  const s = Number(ui.held.value) || 0;
  let at = 0;
  for (let i = 0; i < s; i++) at += h.data.lengths[i];
  const n = h.data.lengths[s], dIn = scope.vocabulary.dim;
  drawPair(fig.heldBefore, fig.heldAfter, h.sentences[s].words.map((text) => ({ text })), h.data.vectors.subarray(at * dIn, (at + n) * dIn), snap);
  const own = ownSentence();
  if (own) drawPair(fig.ownBefore, fig.ownAfter, own.tokens, own.vectors, snap);
}

// ---- start ----
async function main() {
  try {
    scope = await createAttnScope({
      preload: true,
      locateFile: (path) => new URL(path, import.meta.url).href,
      onProgress: (loaded, total) => {
        if (total > 0) { ui.progress.max = total; ui.progress.value = loaded; }
        ui.loadText.textContent = `Loading the vocabulary… ${(loaded / 1e6).toFixed(1)} MB`;
      },
    });
  } catch (e) {
    ui.loadText.textContent = `Could not load attnscope: ${e.message}`;
    return;
  }
  ui.rule.replaceChildren(...RULES.map((r) => new Option(r.label, r.id)));
  ui.score.replaceChildren(...scope.scoreFunctions.map((s) => new Option(s.name, s.name)));
  ui.score.value = 'scaled-dot';
  setup();
  ui.progress.hidden = true;
  ui.loadText.textContent = `Ready (${scope.variants.isa}).`;
  ui.status.dataset.ready = 'true';
  for (const b of [ui.play, ui.step, ui.reset, ui.view]) b.disabled = false;
  ui.play.addEventListener('click', () => (playing ? (stop(), render()) : play()));
  ui.step.addEventListener('click', () => { if (!playing) { following = true; trainSlice(); render(); } });
  ui.reset.addEventListener('click', setup);
  for (const el of [ui.rule, ui.score, ui.lr, ui.seed]) el.addEventListener('change', setup);
  ui.view.addEventListener('input', () => { following = Number(ui.view.value) === snapshots.length - 1; render(); });
  ui.held.addEventListener('change', render);
  ui.own.addEventListener('input', () => { if (!playing) render(); });
  keepForOffline($('offline-status'));
}
main();
