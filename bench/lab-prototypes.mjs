#!/usr/bin/env node
// Lab part 3 (web/lab-prototypes.html): what a training step costs, what the comparison finds, and
// how the page behaves while it trains.
//   ms per step: one full-batch step (attentionOutput forward, cross-entropy, attentionBackward, Adam)
//   on the page's default data (two moons, 400 points → 280 training points, 16 keys), every score,
//   SIMD wasm in node; median over 21 batches of 20 steps after >= 1 s of warm-up (wall and CPU time).
//   The comparison: every data set × the five scoring functions × seeds 1–5, 1000 steps each, the
//   page's defaults otherwise (400 points, noise 0.1, 16 keys, τ = 1, learning rate 0.05): test
//   accuracy and the mean distance from a key to its nearest training point (and at the start).
//   The page: in headless Chromium, from a click on Train to 500 steps, the longest main-thread task
//   (PerformanceObserver long tasks, > 50 ms; 0 = none) and the time taken; 3 runs.
// Writes bench/results/lab-prototypes.json (node bench/tables.mjs renders its table in docs/benchmarks.md). --page-only
// measures only the page and prints it (writes nothing); --web DIR serves another build's dist/web.
//   node bench/lab-prototypes.mjs [--quick] [--no-page]
//   node bench/lab-prototypes.mjs --page-only [--web DIR]
import { loadavg } from 'node:os';
import { existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const resultFile = join(root, 'bench/results/lab-prototypes.json');
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

// ---- the page ----
/** In headless Chromium: 3 runs from a click on Train to 500 steps (Start over in between). */
async function measurePage(folder) {
  const { startServer } = await import(pathToFileURL(join(root, 'scripts/browser-harness.mjs')).href);
  const { launch, observeLongTasks, openPage, trainUntil } = await import('./browser.mjs');
  const server = await startServer(folder);
  const browser = await launch();
  const runs = [];
  try {
    const p = await openPage(browser, server.url + 'lab-prototypes.html', 'body.ready');
    await observeLongTasks(p);
    for (let r = 0; r < 3; r++) {
      await p.click('#reset');
      await p.waitForFunction(() => Number(document.getElementById('step-count').dataset.steps) === 0 && !document.body.classList.contains('computing'));
      runs.push(await trainUntil(p, { pause: true, round: true }));
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  return { runs, median_ms_to_500_steps: median(runs.map((r) => r.ms_to_500_steps)), median_longest_task_ms: median(runs.map((r) => r.longest_task_ms)) };
}

const webDir = process.argv.includes('--web') ? process.argv[process.argv.indexOf('--web') + 1] : undefined;
if (process.argv.includes('--page-only')) {
  const { header } = await import('./browser.mjs');
  const load = loadavg();
  const page = await measurePage(webDir);
  console.log(JSON.stringify({ ...header({ load }), build: webDir || 'dist/web', page }, null, 1));
  process.exit(0);
}

const quick = process.argv.includes('--quick');
const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.mjs')).href);
const { makeData, DATASET_IDS } = await import(pathToFileURL(join(root, 'lab/prototypes-data.js')).href);
const { PrototypeClassifier, SCORES } = await import(pathToFileURL(join(root, 'lab/prototypes-model.js')).href);
const { compareScores } = await import(pathToFileURL(join(root, 'lab/prototypes-compare.js')).href);
const scope = await createAttnScope();

const DATA = { n: 400, noise: 0.1, testFraction: 0.3 };
const MODEL = { m: 16, temperature: 1, learningRate: 0.05 };
const STEPS = 1000, SEEDS = quick ? [1, 2] : [1, 2, 3, 4, 5];
const WARMUP_MS = quick ? 300 : 1000, BATCHES = quick ? 7 : 21, PER_BATCH = 20;

// ---- ms per step ----
const def = makeData({ dataset: 'moons', ...DATA, seed: 1 });
const perScore = [];
for (const score of SCORES) {
  let model = new PrototypeClassifier(scope, def.train, { ...MODEL, classes: def.classes, score, seed: 1 });
  const until = performance.now() + WARMUP_MS;
  while (performance.now() < until) model.step(PER_BATCH);
  const wall = [], cpu = [];
  for (let b = 0; b < BATCHES; b++) {
    if (model.steps > 5000) model = new PrototypeClassifier(scope, def.train, { ...MODEL, classes: def.classes, score, seed: 1 });
    const t0 = performance.now(), c0 = process.cpuUsage();
    model.step(PER_BATCH);
    const c = process.cpuUsage(c0);
    wall.push((performance.now() - t0) / PER_BATCH);
    cpu.push((c.user + c.system) / 1000 / PER_BATCH);
  }
  perScore.push({ score, ms_per_step: +median(wall).toFixed(4), cpu_ms_per_step: +median(cpu).toFixed(4) });
}
// What the worker adds per frame while the page trains: the 60 × 60 decision grid and both evaluations.
const gridModel = new PrototypeClassifier(scope, def.train, { ...MODEL, classes: def.classes, score: 'idw', seed: 1 });
const gridMs = [];
for (let b = 0; b < BATCHES; b++) {
  const t0 = performance.now();
  gridModel.grid(60);
  gridModel.evaluate(def.train);
  gridModel.evaluate(def.test);
  gridMs.push(performance.now() - t0);
}

// ---- the comparison ----
const rows = [];
let startMean = 0, starts = 0;
for (const dataset of DATASET_IDS) {
  for (const seed of SEEDS) {
    const d = makeData({ dataset, ...DATA, seed });
    const c = await compareScores(scope, d, { ...MODEL, classes: d.classes, seed }, STEPS);
    for (const r of c.results) {
      rows.push({ dataset, seed, score: r.score, test_accuracy: +r.test.accuracy.toFixed(4), train_accuracy: +r.train.accuracy.toFixed(4),
        final_train_loss: +r.finalLoss.toFixed(4), key_to_nearest_mean: +r.keys.mean.toFixed(4), key_to_nearest_median: +r.keys.median.toFixed(4),
        key_to_nearest_mean_at_start: +r.keys.mean0.toFixed(4),
        key_to_nearest_median_at_start: +r.keys.median0.toFixed(4), keys_on_data: +r.keys.onData.toFixed(4), data_spacing: +r.keys.spacing.toFixed(4), keys_class_agrees: +r.keys.agree.toFixed(4), key_norm_mean: +r.keys.norm.toFixed(4) });
    }
    startMean += c.results[0].keys.mean0;
    starts++;
  }
}

// ---- the page ----
const page = !process.argv.includes('--no-page') && (webDir || existsSync(join(root, 'dist/web/lab-prototypes.html'))) ? await measurePage(webDir) : null;

const { header } = await import('./browser.mjs');
const out = {
  ...header(), node: process.version, isa: scope.variants.isa,
  step: { data: 'moons', train_points: def.train.n, keys: MODEL.m, warmup_ms: WARMUP_MS, batches: BATCHES, steps_per_batch: PER_BATCH, per_score: perScore,
    worker_frame_extra_ms: +median(gridMs).toFixed(3) },
  comparison: { settings: { ...DATA, ...MODEL, steps: STEPS }, seeds: SEEDS, start_mean: +(startMean / starts).toFixed(4), rows },
  page,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(resultFile, JSON.stringify(out, null, 1) + '\n');
console.log(JSON.stringify({ ...out, comparison: { ...out.comparison, rows: `${rows.length} rows (see ${resultFile})` } }, null, 1));
