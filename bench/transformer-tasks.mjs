// The transformer page's tasks (web/pages/transformer/tasks.js) trained with the page's defaults in node:
// per task and seed, the steps and seconds until the task's target is reached (measured every `--every`
// steps, the training paused while it is measured), or the limit. Writes bench/results/transformer-tasks.json.
//   node bench/transformer-tasks.mjs [--tasks induction,reversal,characters] [--seeds 1,2,3,4,5]
//        [--every 100] [--limit 240] [--char-seconds 60 | --char-steps N] [--override JSON] [--max-steps N] [--verbose]
//        [--out bench/results/transformer-tasks.json]
// The characters task reads build/corpus/moby-dick.txt (node scripts/build-corpus.mjs) and also reports, after
// its time, the held-out bits per character and a sample (greedy and at temperature 0.8).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttnScope } from '../dist/attnscope.mjs';
import { makeTask, generate } from '../web/pages/transformer/tasks.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const tasks = arg('tasks', 'induction,reversal,characters').split(',');
const seeds = arg('seeds', '1,2,3,4,5').split(',').map(Number);
const every = Number(arg('every', 100));
const limit = Number(arg('limit', 240));             // seconds of training per run at most
const charSeconds = Number(arg('char-seconds', 60));   // characters: train this long, then sample …
const charSteps = Number(arg('char-steps', 0));        // … or this many steps (0: by time; a loaded machine trains fewer steps a second)
const out = arg('out', join(root, 'bench/results/transformer-tasks.json'));
// Trying other settings: --override '{"training":{"learningRate":0.01}}' (merged into every task's training and config;
// "settings": the induction data's, see makeTask).
const override = JSON.parse(arg('override', '{}'));
const maxSteps = Number(arg('max-steps', 0));          // stop a run here too (0: no cap): steps compare across loads, seconds do not
const verbose = process.argv.includes('--verbose');   // every measurement to stderr

const scope = await createAttnScope({ wasmBinary: readFileSync(join(root, 'dist/attnscope.wasm')) });
const text = tasks.includes('characters') ? readFileSync(join(root, 'build/corpus/moby-dick.txt'), 'utf8') : undefined;
const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

function run(name, seed) {
  const task = makeTask(name, { seed, text, settings: name === 'induction' ? override.settings : undefined });
  Object.assign(task.training, override.training);
  Object.assign(task.config, override.config);
  const model = scope.createModel({ ...task.config, score: task.defaultScores, temperature: 1, seed });
  const { batch, learningRate, weightDecay, stepsPerSlice } = task.training;
  const trainer = scope.createModelTrainer(model, { data: task.train, batch, learningRate, weightDecay, seed });
  const history = [];
  let trained = 0, reached = null, last = null;
  const budget = name === 'characters' ? charSeconds : limit;
  try {
    while ((name === 'characters' && charSteps ? trainer.steps < charSteps : trained / 1000 < budget) && !(maxSteps && trainer.steps >= maxSteps)) {
      const t0 = performance.now();
      for (let k = 0; k < every; k += stepsPerSlice) trainer.step(Math.min(stepsPerSlice, every - k));
      trained += performance.now() - t0;
      const m = task.measure(model, { trainer });
      const losses = trainer.losses.slice(-every);
      last = { step: trainer.steps, seconds: round(trained / 1000, 1), loss: round(losses.reduce((s, x) => s + x, 0) / losses.length), ...summary(name, m) };
      history.push(last);
      if (verbose) console.error(name, seed, JSON.stringify(last));
      if (!reached && m.reached) {
        reached = { step: trainer.steps, seconds: round(trained / 1000, 1) };
        if (name !== 'characters') break;
      }
    }
    const held = trainer.evaluate(task.held);
    const result = { task: name, seed, reached, final: last, heldLoss: round(held.loss), heldAccuracy: round(held.accuracy), history };
    if (name === 'characters') {
      result.bitsPerChar = round(held.loss / Math.LN2);
      const prompt = task.encode('Call me ');
      result.samples = {
        greedy: 'Call me ' + task.text(generate(model, prompt, { count: 160, temperature: 0 })),
        t08: 'Call me ' + task.text(generate(model, prompt, { count: 160, temperature: 0.8, seed })),
      };
    }
    return result;
  } finally {
    trainer.dispose();
    model.dispose();
  }
}

function summary(name, m) {
  if (name === 'induction') return { best: m.best.head, prefixMatching: round(m.best.score), heads: Object.fromEntries(Object.entries(m.prefixMatching).map(([k, v]) => [k, round(v)])) };
  if (name === 'reversal') return { accuracy: round(m.accuracy), alignment: Object.fromEntries(Object.entries(m.alignment).map(([k, v]) => [k, round(v)])) };
  return { bitsPerChar: round(m.bitsPerChar) };
}

const results = [];
for (const name of tasks) {
  for (const seed of seeds) {
    const r = run(name, seed);
    results.push(r);
    const at = r.final;
    console.log(`${name} seed ${seed}: ${r.reached ? `target at step ${r.reached.step}, ${r.reached.seconds} s` : `target not reached in ${at.step} steps, ${at.seconds} s`}`
      + ` | ${JSON.stringify({ ...at, heads: undefined })}${r.samples ? `\n  ${r.bitsPerChar} bits/char held out\n  greedy: ${JSON.stringify(r.samples.greedy)}\n  t=0.8:  ${JSON.stringify(r.samples.t08)}` : ''}`);
  }
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({
  date: new Date().toISOString(), override, node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, loadAverage: loadavg().map((x) => round(x, 1)),
  note: 'seconds are training time only (measuring excluded); the machine was shared, so compare steps across runs',
  results: results.map((r) => ({ ...r, history: r.history.filter((_, i) => i % 5 === 4 || i === r.history.length - 1) })),
}, null, 1)}\n`);
console.log(`wrote ${out}`);
