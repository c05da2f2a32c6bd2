#!/usr/bin/env node
// The lab's part 2 in node, with the page's own code (lab/session.js, lab/compare.js) and the
// same wasm build: every scoring function trained on the same task from the same seed, 300 steps each,
// held-out accuracy measured every 10 steps, as the page's Compare button does. Two tables for the
// docs/benchmarks.md ("The lab's comparison"): every rule from seed 1, and the previous-word rule from seeds 1 to 5 (how much a
// ranking moves with the seed), plus the text the page writes for seed 1; and the output comparison
// (attention only, + value output, + symmetric output) for a few functions, rules and seeds, with the
// page's text for seed 1. Not a timing benchmark: the numbers are deterministic for a build (the page
// shows the same ones).
// Writes bench/results/lab-compare.json (and prints it).   node bench/lab-compare.mjs
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lab = (f) => import(pathToFileURL(join(root, 'lab', f)).href);
const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.mjs')).href);
const { LabSession } = await lab('session.js');
const { Comparison, summaryRows, readComparison, scoreFamilies, OUTPUTS, COMPARE_DEFAULT_STEPS, COMPARE_EVAL_EVERY } = await lab('compare.js');
const { RULES } = await lab('rules.js');
const corpus = JSON.parse(readFileSync(join(root, 'lab/corpus.json'), 'utf8'));

const scope = await createAttnScope({ preload: true });
const session = new LabSession(scope, corpus);
const scores = scope.scoreFunctions.map((s) => s.name);
const LR = 0.01, STEPS = COMPARE_DEFAULT_STEPS, SEEDS = [1, 2, 3, 4, 5];

function compare(rule, seed, runScores = scores, outputs = ['none']) {
  const t = session.task(rule);
  const c = new Comparison(scope, { train: t.train.data, heldOut: t.heldOut.data, trainer: session.trainerOptions({ learningRate: LR, seed }), scores: runScores, outputs, steps: STEPS });
  while (!c.done) c.advance(1e9);
  const withOutputs = outputs.some((o) => o !== 'none');
  return { rule, seed, chance: +t.chance.toFixed(4), held_out_rows: c.results[0].evals.at(-1).count,
    rows: summaryRows(c.results).map((r) => ({ score: r.score, accuracy: +r.accuracy.toFixed(4), steps_to_90: r.stepsTo90, held_out_loss: +r.heldOutLoss.toFixed(4),
      ...(withOutputs ? { base_score: r.baseScore, output: r.output, output_accuracy: r.outputAccuracy === null ? null : +r.outputAccuracy.toFixed(4) } : {}) })) };
}
// The output comparison: these functions, each attention only, + value output, + symmetric output.
const OUTPUT_SCORES = ['dot', 'scaled-dot', 'cosine', 'idw'], OUTPUT_SEEDS = [1, 2, 3], OUTPUT_RULES = ['previous', 'paraphrase'];

const t0 = performance.now();
const byRule = RULES.map((r) => compare(r.id, 1));
const bySeed = SEEDS.map((seed) => (seed === 1 ? byRule.find((x) => x.rule === 'previous') : compare('previous', seed)));
const first = byRule.find((x) => x.rule === 'previous');
const reading = readComparison(first.rows.map((r) => ({ score: r.score, accuracy: r.accuracy, stepsTo90: r.steps_to_90, steps: STEPS, rows: first.held_out_rows })),
  { steps: STEPS, seed: 1, rule: RULES.find((r) => r.id === 'previous').label, dHead: 16, families: scoreFamilies(scope.scoreFunctions) });
const outputs = [];
for (const rule of OUTPUT_RULES) for (const seed of OUTPUT_SEEDS) outputs.push(compare(rule, seed, OUTPUT_SCORES, OUTPUTS));
const outFirst = outputs[0];
const readingOutputs = readComparison(outFirst.rows.map((r) => ({ score: r.score, baseScore: r.base_score, output: r.output, accuracy: r.accuracy,
  outputAccuracy: r.output_accuracy, stepsTo90: r.steps_to_90, steps: STEPS, rows: outFirst.held_out_rows })),
{ steps: STEPS, seed: outFirst.seed, rule: RULES.find((r) => r.id === outFirst.rule).label, dHead: 16, families: scoreFamilies(scope.scoreFunctions) });
const out = {
  date: new Date().toISOString(), node: process.version, isa: scope.variants.isa, learning_rate: LR, steps: STEPS, eval_every: COMPARE_EVAL_EVERY,
  seconds: +((performance.now() - t0) / 1000).toFixed(1), by_rule: byRule, by_seed: bySeed, reading_seed_1_previous: reading,
  outputs, reading_outputs_seed_1_previous: readingOutputs,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/lab-compare.json'), JSON.stringify(out, null, 1) + '\n');
console.log(JSON.stringify(out, null, 1));
