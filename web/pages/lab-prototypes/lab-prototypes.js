// Lab part 3 (web/pages/lab-prototypes/lab-prototypes.html): one layer of attention as a classifier of 2-D points, in
// McCarter's setting. All computing happens in a module worker (web/pages/lab-prototypes/lab-prototypes-worker.js): this
// thread asks it for training and draws what comes back (the map, the curves), so no task here waits
// for the wasm. The state
// (data set, size, noise, seed, scoring function, keys, τ, learning rate) lives in the URL's hash.
// While training plays, the worker trains for ~SLICE_MS per request and answers with the picture,
// which the page draws in the next animation frame before it asks for more.
import * as Comlink from 'comlink';
import { LossCurve } from '../../shared/figures/LossCurve.js';
import { PrototypeMap } from '../../shared/figures/PrototypeMap.js';
import { download } from '../../shared/downloads.js';
import { $, noticeBar, wireExports, hashWriter } from '../../shared/page.js';
import { keepForOffline } from '../../shared/offline.js';
import { workerClient } from '../../shared/worker-client.js';
import { DATASETS, DATASET_IDS, VIEW } from '../../../lab/prototypes-data.js';
import { SCORES } from '../../../lab/prototypes-model.js';
import { comparisonCSV, readComparison } from '../../../lab/prototypes-compare.js';

const SLICE_MS = 20;         // training per request of the worker while playing (then the picture)
const STEP_BUTTON = 25;      // steps of "+25 steps"
const MAX_STEPS = 2000;      // a run stops here (Start over for another)
const TRAIL_MAX = 200;       // saved key positions per key (the trail is thinned past that)

const ui = {
  dataset: $('dataset'), points: $('points'), noise: $('noise'), noiseLabel: $('noise-label'), seed: $('seed'),
  score: $('score'), keys: $('keys'), temperature: $('temperature'), lr: $('lr'),
  play: $('play'), step: $('step'), reset: $('reset'), stepCount: $('step-count'), accuracy: $('accuracy'),
  keyDistance: $('key-distance'), taskInfo: $('task-info'), loadText: $('load-text'), status: $('status'),
  compareSteps: $('compare-steps'), compareRun: $('compare-run'), compareProgress: $('compare-progress'),
  compareStatus: $('compare-status'), compareResult: $('compare-result'), compareTable: $('compare-table'),
  compareReading: $('compare-reading'), compareMaps: $('compare-maps'), compareCsv: $('compare-csv'),
};

const notices = noticeBar();
const notice = (text) => notices.set(text);

// ---- state in the URL ----
const DEFAULTS = { data: 'moons', n: '400', noise: '0.1', seed: '1', score: 'idw', m: '16', t: '1', lr: '0.05' };
const FIELDS = { data: 'dataset', n: 'points', noise: 'noise', seed: 'seed', score: 'score', m: 'keys', t: 'temperature', lr: 'lr' };
function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  for (const [k, id] of Object.entries(FIELDS)) {
    ui[id].value = DEFAULTS[k];   // what the hash leaves out is the default
    const v = p.get(k);
    if (v === null) continue;
    const el = ui[id];
    if (el.tagName === 'SELECT') { if ([...el.options].some((o) => o.value === v)) el.value = v; }
    else if (k === 'noise') { const x = Number(v); if (x >= 0 && x <= 0.5) el.value = String(Math.round(x * 20) / 20); }
    else if (k === 'seed') { const x = Number(v); if (Number.isInteger(x) && x >= 0 && x <= 0xffffffff) el.value = String(x); }
  }
}
const url = hashWriter(() => {
  const p = new URLSearchParams();
  for (const [k, id] of Object.entries(FIELDS)) if (String(ui[id].value) !== DEFAULTS[k]) p.set(k, ui[id].value);
  return p.toString();
});
const writeHash = () => url.write();

function config() {
  let seed = Number(ui.seed.value);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) { seed = 1; ui.seed.value = '1'; }
  return {
    data: { dataset: ui.dataset.value, n: Number(ui.points.value), noise: Number(ui.noise.value), testFraction: 0.3, seed },
    model: { score: ui.score.value, m: Number(ui.keys.value), temperature: Number(ui.temperature.value), learningRate: Number(ui.lr.value), seed },
  };
}

// ---- figures ----
const fig = {
  map: new PrototypeMap($('map-slot'), {
    id: 'prototype-map', title: 'The data, the decision regions and the keys',
    caption: 'Dots: training points; rings: test points; colour: class. Background: the class the network picks at each place ' +
      '(stronger where it is surer). Diamonds: the keys, coloured by the class of their value row, with the path each has ' +
      'travelled; a triangle on the edge is a key outside the picture, pointing the way it went. Hover a key for its numbers.',
  }),
  curve: new LossCurve($('curve-slot')),
};
fig.curve.captionEl.text('Line: the cross-entropy (nats) on the training set before each step. Dots: test loss (same scale) and ' +
  'test accuracy (right scale; dashed: chance, one over the number of classes). The vertical line marks the current step.');
const compareMaps = [];
const onExport = (f) => wireExports([f], { failed: notice });
onExport(fig.map);
onExport(fig.curve);

// ---- the run ----
let api = null;
let run = 0;            // configurations so far: an answer for an older one is dropped
let cur = null;         // { data, classes, step, K, V, keys, grid, train, test }
let losses = new Float32Array(0), evals = [], trails = [];
let playing = false;
let client = null;      // the worker (web/shared/worker-client.js): its call() sets body.computing while waiting
let comparison = null;

function take(snap) {
  if (snap.data) {
    cur = { data: snap.data };
    losses = new Float32Array(0);
    evals = [];
    trails = [];
  }
  Object.assign(cur, { step: snap.step, K: snap.K, V: snap.V, keys: snap.keys, grid: snap.grid, train: snap.train, test: snap.test });
  if (snap.losses.length) {
    const all = new Float32Array(losses.length + snap.losses.length);
    all.set(losses);
    all.set(snap.losses, losses.length);
    losses = all;
  }
  if (snap.data) {
    evals.push({ step: 0, loss: snap.test.loss, accuracy: snap.test.accuracy });
    trails.push(snap.K);
  }
  evals.push(...snap.evals);
  trails.push(...snap.trail);
  // The newest keys end the trail even between two of the worker's saved steps.
  if (trails[trails.length - 1] !== snap.K && !snap.trail.length) trails.push(snap.K);
  while (trails.length > TRAIL_MAX) trails = trails.filter((_, i) => i % 2 === 0 || i === trails.length - 1);
}

async function setup() {
  stop();
  writeHash();
  const mine = ++run;
  const cfg = config();
  const snap = await client.call('configure', cfg);
  if (mine !== run) return;
  take(snap);
  const d = DATASETS.find((x) => x.id === cfg.data.dataset);
  ui.taskInfo.textContent = `${d.label}: ${cur.data.train.n} training points, ${cur.data.test.n} test points, ${d.classes} classes ` +
    `(chance accuracy ${(100 / d.classes).toFixed(0)}%). ${cfg.model.m} keys start uniform in the square [−1.5, 1.5]², the same for every scoring function.`;
  render();
}

/** Trains (n steps, or { budgetMs, until }) and takes the answer; false if the run changed meanwhile. */
async function advance(what) {
  const mine = run;
  const snap = await client.call('advance', what);
  if (mine !== run) return false;
  take(snap);
  // While training plays, at most one drawing per frame; a single step (or the first picture of a
  // new run) is drawn now, so that once the page stops "computing" its readouts show the answer
  // (drawn a frame later, the step count was read before it: +25 steps once showed 50 for 75).
  if (playing) scheduleRender(); else render();
  return true;
}

// One request in flight at a time, and a frame between two: the newest picture is drawn before the
// worker trains on, so this thread and the worker do not compete for a core while a frame is made.
const nextFrame = () => new Promise((r) => requestAnimationFrame(() => r()));
async function loop() {
  while (playing && cur.step < MAX_STEPS) {
    if (!(await advance({ budgetMs: SLICE_MS, until: MAX_STEPS }))) return;
    await nextFrame();
  }
  if (cur.step >= MAX_STEPS) stop();
  scheduleRender();
}
function play() {
  if (cur.step >= MAX_STEPS) return;
  playing = true;
  ui.play.textContent = 'Pause';
  ui.play.setAttribute('aria-pressed', 'true');
  loop().catch(failed);
}
function stop() {
  playing = false;
  ui.play.textContent = 'Train';
  ui.play.setAttribute('aria-pressed', 'false');
}
function failed(e) {
  stop();
  notice(`Training failed: ${e.message}`);
}

// ---- drawing: at most once per animation frame ----
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const setText = (el, text) => { if (el.textContent !== text) el.textContent = text; };
let renderQueued = false;
function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => { renderQueued = false; render(); });
}
function render() {
  if (!cur) return;
  setText(ui.stepCount, `step ${cur.step} of ${MAX_STEPS}`);
  ui.stepCount.dataset.steps = String(cur.step);
  setText(ui.accuracy, `Test accuracy ${pct(cur.test.accuracy)}, training accuracy ${pct(cur.train.accuracy)}.`);
  ui.accuracy.dataset.test = String(cur.test.accuracy);
  ui.accuracy.dataset.train = String(cur.train.accuracy);
  const m = cur.K.length / 2;
  setText(ui.keyDistance, `Keys: median distance to their nearest training point ${cur.keys.median.toFixed(2)} ` +
    `(${cur.keys.median0.toFixed(2)} at step 0; the points' own spacing ${cur.keys.spacing.toFixed(2)}); ` +
    `${Math.round(cur.keys.onData * m)} of ${m} on the data; ${pct(cur.keys.agree)} carry their nearest point's class.`);
  ui.keyDistance.dataset.mean = String(cur.keys.mean);
  ui.keyDistance.dataset.median = String(cur.keys.median);
  ui.step.disabled = playing || cur.step >= MAX_STEPS;
  ui.play.disabled = cur.step >= MAX_STEPS;
  fig.map.setData({ view: VIEW, classes: cur.data.classes, train: cur.data.train, test: cur.data.test, K: cur.K, V: cur.V, m,
    grid: cur.grid, trails, keyClass: cur.keys.keyClass, dist: cur.keys.dist });
  fig.map.schedule(() => fig.map.draw(), true);
  // The step axis grows with the run (to MAX_STEPS), so the first hundred steps are not a sliver.
  const axis = Math.min(MAX_STEPS, Math.max(100, Math.ceil((cur.step * 1.25) / 100) * 100));
  fig.curve.setData({ losses, evals, chance: 1 / cur.data.classes, maxSteps: axis, marker: cur.step });
  fig.curve.schedule(() => fig.curve.draw(), true);
}
// ---- the comparison ----
async function runComparison() {
  const cfg = config();
  const steps = Number(ui.compareSteps.value);
  ui.compareRun.disabled = true;
  ui.compareProgress.hidden = false;
  ui.compareProgress.value = 0;
  ui.compareStatus.textContent = 'Training…';
  $('compare').dataset.state = 'running';
  try {
    const c = await api.compare(cfg, steps, Comlink.proxy((done, total, score) => {
      ui.compareProgress.value = done / total;
      ui.compareStatus.textContent = `Training ${score}: ${done} of ${total} steps in all…`;
    }));
    comparison = c;
    showComparison(c);
    ui.compareStatus.textContent = '';
    $('compare').dataset.state = 'done';
  } catch (e) {
    ui.compareStatus.textContent = `The comparison failed: ${e.message}`;
    $('compare').dataset.state = 'failed';
  } finally {
    ui.compareRun.disabled = false;
    ui.compareProgress.hidden = true;
  }
}

function showComparison(c) {
  const s = c.settings;
  const d = DATASETS.find((x) => x.id === s.dataset);
  $('compare-table-h').textContent = `${d.label}, ${s.n} points (noise ${s.noise}), seed ${s.seed}, ${s.m} keys, τ = ${s.temperature}, ` +
    `learning rate ${s.learningRate}, ${s.steps} steps`;
  const body = ui.compareTable.tBodies[0];
  body.replaceChildren(...c.results.map((r) => {
    const tr = document.createElement('tr');
    tr.dataset.score = r.score;
    const cells = [r.score, pct(r.test.accuracy), pct(r.train.accuracy), `${r.keys.median0.toFixed(2)} → ${r.keys.median.toFixed(2)}`,
      r.keys.mean.toFixed(2), `${Math.round(r.keys.onData * s.m)} of ${s.m}`, pct(r.keys.agree), r.keys.norm.toFixed(2)];
    cells.forEach((text, i) => {
      const td = document.createElement(i ? 'td' : 'th');
      if (!i) td.scope = 'row';
      td.textContent = text;
      tr.appendChild(td);
    });
    tr.children[1].dataset.value = String(r.test.accuracy);
    tr.children[3].dataset.value = String(r.keys.median);
    tr.children[4].dataset.value = String(r.keys.mean);
    return tr;
  }));
  ui.compareReading.replaceChildren(...readComparison(c).map((text) => {
    const p = document.createElement('p');
    p.textContent = text;
    return p;
  }));
  // One small map per scoring function, drawn from the same data the worker trained on.
  for (const f of compareMaps) f.dispose();
  compareMaps.length = 0;
  ui.compareMaps.replaceChildren();
  for (const r of c.results) {
    const slot = document.createElement('div');
    ui.compareMaps.appendChild(slot);
    const f = new PrototypeMap(slot, { id: `prototype-map-${r.score}`, title: `${r.score}: ${pct(r.test.accuracy)} test, median key ${r.keys.median.toFixed(2)} from the data`, size: 200, small: true });
    onExport(f);
    compareMaps.push(f);
    f.setData({ view: VIEW, classes: s.classes, train: c.data.train, test: c.data.test, K: r.K, V: r.V, m: s.m, grid: r.grid,
      keyClass: r.keys.keyClass, dist: r.keys.dist });
    f.schedule(() => f.draw(), true);
  }
  ui.compareResult.hidden = false;
}

// ---- start ----
async function main() {
  ui.dataset.replaceChildren(...DATASETS.map((d) => new Option(d.label, d.id)));
  ui.score.replaceChildren(...SCORES.map((s) => new Option(s, s)));
  ui.dataset.value = DEFAULTS.data;
  ui.score.value = DEFAULTS.score;
  readHash();
  ui.noiseLabel.textContent = ui.noise.value;
  try {
    client = workerClient(new Worker(new URL('lab-prototypes-worker.js', import.meta.url), { type: 'module' }));
    api = client.api;
    const info = await api.init();
    await setup();
    ui.loadText.textContent = `Ready (${info.isa}).`;
  } catch (e) {
    ui.loadText.textContent = `Could not load attnscope: ${e.message}`;
    ui.status.classList.add('failed');
    return;
  }
  ui.status.dataset.ready = 'true';
  document.body.classList.add('ready');
  for (const b of [ui.play, ui.step, ui.reset, ui.compareRun]) b.disabled = false;
  // In the background (not "computing"): a throwaway copy trains briefly, so the first run does not
  // share the cores with the engine's compiling of the hot code (web/pages/lab-prototypes/lab-prototypes-worker.js warmUp).
  api.warmUp().catch(() => {});
  render();
  ui.play.addEventListener('click', () => (playing ? (stop(), render()) : play()));
  ui.step.addEventListener('click', () => { if (!playing) advance(Math.min(STEP_BUTTON, MAX_STEPS - cur.step)).catch(failed); });
  ui.reset.addEventListener('click', () => setup().catch(failed));
  for (const el of [ui.dataset, ui.points, ui.seed, ui.score, ui.keys, ui.temperature, ui.lr]) el.addEventListener('change', () => setup().catch(failed));
  ui.noise.addEventListener('input', () => { ui.noiseLabel.textContent = ui.noise.value; });
  ui.noise.addEventListener('change', () => setup().catch(failed));
  ui.compareRun.addEventListener('click', runComparison);
  ui.compareCsv.addEventListener('click', () => {
    if (comparison) download(new Blob([comparisonCSV(comparison)], { type: 'text/csv' }), `attnscope-prototypes-${comparison.settings.dataset}-seed${comparison.settings.seed}.csv`);
  });
  window.addEventListener('hashchange', () => { readHash(); ui.noiseLabel.textContent = ui.noise.value; setup().catch(failed); });
  keepForOffline($('offline-status'));
}
main();
