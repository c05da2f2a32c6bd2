#!/usr/bin/env node
// The attention lab's training step in node (the wasm build the page runs), and the table of what
// one head learns: for every task (rule) of the lab and every scoring function, held-out accuracy
// after 300 steps from seed 1, and the first step (of every 25) at which it reached 90%.
//   ms per step: the page's default task (previous word, batch 32 sentences of <= 24 words, d = 100
//   word vectors + 16 positional features -> 16), after >= 1 s of warm-up steps; the median over 21
//   batches of 20 steps of the wall time and of the process's CPU time (user + system) per step, for
//   the SIMD and the scalar wasm, and for every scoring function (SIMD); and the same task with the
//   head's output trained (output 'value': O = A V; 'scaled': the symmetric O = A V W / √d; the
//   part-2 output comparison), SIMD and scalar.
// Writes bench/results/lab.json (and prints it).   node bench/lab.mjs [--quick] [--out=FILE]
//   --out: write FILE instead (e.g. a run on a loaded machine that should not replace the record).
import { cpus, loadavg } from 'node:os';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const outArg = process.argv.find((a) => a.startsWith('--out='));
const outFile = outArg ? outArg.slice(6) : join(root, 'bench/results/lab.json');
const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.mjs')).href);
const { RULE_IDS, buildTask, chanceAccuracy } = await import(pathToFileURL(join(root, 'lab/rules.js')).href);
const corpus = JSON.parse(readFileSync(join(root, 'lab/corpus.json'), 'utf8'));

const HEAD = { dHead: 16, positions: 'concat', dPos: 16, maxLen: 24, batch: 32, learningRate: 0.01, seed: 1 };
const WARMUP_MS = 1000, BATCHES = quick ? 7 : 21, STEPS = 20, TRAIN_STEPS = 300, EVAL_EVERY = 25;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

async function taskScope(simd) {
  const scope = await createAttnScope({ preload: true, simd });
  const cache = new Map();
  const embed = (w) => { let v = cache.get(w.lookup); if (!v) { v = scope.embed(w.lookup).vector; cache.set(w.lookup, v); } return v; };
  const tasks = Object.fromEntries(RULE_IDS.map((rule) => [rule, buildTask(corpus, rule, { tokenize: (t) => scope.tokenize(t), embed, dIn: scope.vocabulary.dim, maxLen: HEAD.maxLen })]));
  return { scope, tasks };
}

function timeSteps(scope, task, score, output = 'none') {
  const t = scope.createTrainer({ data: task.train.data, dIn: 100, ...HEAD, score, output });
  try {
    const until = performance.now() + (quick ? 300 : WARMUP_MS);
    while (performance.now() < until) { t.step(STEPS); if (t.steps > 400) t.reset(); }
    const wall = [], cpu = [];
    for (let b = 0; b < BATCHES; b++) {
      if (t.steps > 400) t.reset();
      const t0 = performance.now(), c0 = process.cpuUsage();
      t.step(STEPS);
      const c = process.cpuUsage(c0);
      wall.push((performance.now() - t0) / STEPS);
      cpu.push((c.user + c.system) / 1000 / STEPS);
    }
    return { ms_per_step: +median(wall).toFixed(4), cpu_ms_per_step: +median(cpu).toFixed(4) };
  } finally { t.dispose(); }
}

const simd = await taskScope(undefined);
const scalar = await taskScope(false);
const def = simd.tasks.previous;
const tokensPerBatch = Math.round(HEAD.batch * def.train.data.targets.length / def.train.data.lengths.length);
const steps = [
  { case: 'default task (previous word, scaled-dot), SIMD wasm', ...timeSteps(simd.scope, def, 'scaled-dot') },
  { case: 'default task (previous word, scaled-dot), scalar wasm', ...timeSteps(scalar.scope, scalar.tasks.previous, 'scaled-dot') },
  { case: 'paraphrase task (cross-attention, scaled-dot), SIMD wasm', ...timeSteps(simd.scope, simd.tasks.paraphrase, 'scaled-dot') },
  { case: 'default task with a value output (O = A V), SIMD wasm', ...timeSteps(simd.scope, def, 'scaled-dot', 'value') },
  { case: 'default task with the symmetric output (O = A V W / √d), SIMD wasm', ...timeSteps(simd.scope, def, 'scaled-dot', 'scaled') },
  { case: 'default task with a value output (O = A V), scalar wasm', ...timeSteps(scalar.scope, scalar.tasks.previous, 'scaled-dot', 'value') },
  { case: 'default task with the symmetric output (O = A V W / √d), scalar wasm', ...timeSteps(scalar.scope, scalar.tasks.previous, 'scaled-dot', 'scaled') },
];
const perScore = simd.scope.scoreFunctions.map((s) => ({ score: s.name, ...timeSteps(simd.scope, def, s.name) }));

const accuracy = [];
for (const rule of RULE_IDS) {
  const task = simd.tasks[rule];
  for (const s of simd.scope.scoreFunctions) {
    const t = simd.scope.createTrainer({ data: task.train.data, dIn: 100, ...HEAD, score: s.name });
    try {
      let reached = null;
      const before = t.evaluate(task.heldOut.data).accuracy;
      while (t.steps < TRAIN_STEPS) {
        t.step(EVAL_EVERY);
        if (reached === null && t.evaluate(task.heldOut.data).accuracy >= 0.9) reached = t.steps;
      }
      const after = t.evaluate(task.heldOut.data);
      accuracy.push({ rule, score: s.name, seed: HEAD.seed, steps: TRAIN_STEPS, before: +before.toFixed(4), accuracy: +after.accuracy.toFixed(4),
        loss: +after.loss.toFixed(4), steps_to_90: reached, held_out_rows: after.count, chance: +chanceAccuracy(task.heldOut.data).toFixed(4),
        train_sentences: task.train.data.lengths.length, held_out_sentences: task.heldOut.data.lengths.length });
    } finally { t.dispose(); }
  }
}

const out = {
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadavg: loadavg().map((x) => +x.toFixed(2)),
  isa: simd.scope.variants.isa, head: { ...HEAD, dIn: 100, tokens_per_batch: tokensPerBatch }, warmup_ms: WARMUP_MS, batches: BATCHES, steps_per_batch: STEPS,
  steps, per_score: perScore, accuracy,
};
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, JSON.stringify(out, null, 1) + '\n');
console.log(JSON.stringify(out, null, 1));
