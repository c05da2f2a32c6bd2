// Other data for the induction task, tried in node (the page's task is web/pages/transformer/tasks.js): a
// 2-layer attention-only decoder (nanoGPT's, d_model 64) trained on one design, and every `--every` steps
// the prefix matching of each head (the task's two probes, the repeat in order and backwards; the score
// is the smaller), where the heads of layer 1 attend relative to the earlier occurrence of the query's
// token on the plain probe (one before it, it, one after it — the induction head's key —, two after),
// and where the heads of layer 0 attend relative to the query (itself, one back, two back, three back).
// The end prints the held-out loss and accuracy and, with --dump, three rows of every head's attention.
// Writes nothing: it is for trying designs; docs/transformer-page.md has what each design did.
//   node bench/induction-designs.mjs '{"data":"copy-fresh","heads":2,"steps":8000,"dump":1}'
// Designs (`data`):
//   copy-fresh  filler with a fixed skip-bigram rule on half of it (token i+1 = rule[token i-1]), and a
//               span of fresh random tokens followed at once by its copy; the loss: the rule's tokens and
//               the copy's (the page's task, but the span holds no rule)
//   fill        a random segment of minP … maxP tokens repeated to the end of the row
//   distinct    the same with distinct tokens in the segment
//   successor   a random successor function per row (token i+1 = f[token i]), with random jumps (pJump);
//               the loss: the tokens whose predecessor was seen before with its successor
//   pairs       `pairs` short runs (2 … maxRun tokens) copied from earlier in the row to random places,
//               over a skip-bigram filler; the loss: the rule's tokens and the copied runs'
//   triggers    `triggers` tokens per row, each followed by the same random token at `repeats` places, over
//               a uniform filler without them; the loss: the token after every occurrence of a trigger but its first
// The page's design is copy-fresh with {"skip":0.3,"bigram":0.3}: the filler's rules, a skip-bigram (skip) and
// a bigram (bigram: token i+1 = a fixed permutation of token i), set those shares of its tokens.
// Options: probe (the probes' length, 12), vocab, cols, minP, maxP, rows, layers, heads, dModel, batch, learningRate, weightDecay, steps,
// every, seed, positions ('learned' | 'sinusoidal'), norm ('pre' | 'post'), skip (the skip-bigram's share),
// bigram (the bigram's share), identity (1: the skip-bigram is token i+1 = token i-1), pJump, pairs, maxRun,
// triggers, repeats, noise (copy-fresh: the share of the copy's tokens replaced by random ones), bos (1: a start
// token at position 0, id vocab), dump.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttnScope } from '../dist/attnscope.mjs';
import { prefixMatchingScores } from '../web/pages/transformer/tasks.js';
import { mulberry32 } from '../web/shared/random.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const o = {
  data: 'copy-fresh', vocab: 64, cols: 48, minP: 4, maxP: 20, rows: 20000, layers: 2, heads: 2, dModel: 64,
  batch: 16, learningRate: 3e-3, weightDecay: 0.1, steps: 8000, every: 250, seed: 1, positions: 'learned',
  skip: 0.5, identity: 0, pJump: 0.25, pairs: 8, maxRun: 3, triggers: 4, repeats: 4, noise: 0, bos: 0, norm: 'pre', bigram: 0, probe: 12, dump: 0,
  ...JSON.parse(process.argv[2] || '{}'),
};
const random = mulberry32(o.seed);
const below = (n) => Math.floor(random() * n);
function permutation(n) {
  const f = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) { const j = below(i + 1); [f[i], f[j]] = [f[j], f[i]]; }
  return f;
}
const rule = o.identity ? Array.from({ length: o.vocab }, (_, i) => i) : permutation(o.vocab);
const bigram = permutation(o.vocab);

function makeRows(n) {
  const { cols, vocab } = o;
  const ids = new Int32Array(n * cols), targets = new Int32Array(n * cols).fill(-1);
  for (let r = 0; r < n; r++) {
    const b = r * cols;
    const at = (i) => ids[b + i];
    const set = (i, v) => { ids[b + i] = v; };
    const target = (i) => { targets[b + i] = at(i + 1); };
    for (let i = 0; i < cols; i++) set(i, below(vocab));
    const P = o.minP + below(o.maxP - o.minP + 1);
    // The filler's rules: with probability skip the token after next is rule[token before] (a skip-bigram);
    // with probability bigram the next token is bigram[token] (read from the token itself).
    const ruleFiller = () => {
      for (let i = 1; i + 1 < cols; i++) {
        const u = random();
        if (u < o.skip) set(i + 1, rule[at(i - 1)]);
        else if (u < o.skip + o.bigram) set(i + 1, bigram[at(i)]);
      }
    };
    const ruleTargets = () => {
      for (let i = 1; i + 1 < cols; i++) targets[b + i] = at(i + 1) === rule[at(i - 1)] || (o.bigram > 0 && at(i + 1) === bigram[at(i)]) ? at(i + 1) : -1;
    };
    if (o.data === 'fill' || o.data === 'distinct') {
      if (o.data === 'distinct') { const s = permutation(vocab); for (let i = 0; i < P; i++) set(i, s[i]); }
      for (let i = P; i < cols; i++) set(i, at(i - P));
      for (let i = P - 1; i + 1 < cols; i++) target(i);
    } else if (o.data === 'copy-fresh') {
      ruleFiller();
      const start = below(cols - 2 * P + 1);
      for (let i = 0; i < P; i++) set(start + i, below(vocab));
      for (let i = 0; i < P; i++) set(start + P + i, at(start + i));
      ruleTargets();
      for (let i = Math.max(1, start - 1); i < Math.min(cols - 1, start + 2 * P); i++) targets[b + i] = -1;
      for (let i = start + P; i < start + 2 * P - 1; i++) target(i);
      if (o.noise > 0) {
        // Each token of the copy replaced by a random one with probability `noise`; a token is predictable
        // where it and the one before it are both true copies (then only its own earlier occurrence tells).
        const kept = new Uint8Array(P);
        for (let i = 0; i < P; i++) {
          kept[i] = random() >= o.noise ? 1 : 0;
          if (!kept[i]) set(start + P + i, below(vocab));
        }
        for (let i = 0; i + 1 < P; i++) if (!(kept[i] && kept[i + 1])) targets[b + start + P + i] = -1;
      }
    } else if (o.data === 'successor') {
      const f = permutation(vocab);
      const jump = new Uint8Array(cols).fill(1);
      for (let i = 1; i < cols; i++) if (random() >= o.pJump) { jump[i] = 0; set(i, f[at(i - 1)]); }
      const seen = new Uint8Array(vocab);
      for (let t = 0; t + 1 < cols; t++) {
        if (!jump[t + 1] && seen[at(t)]) target(t);
        if (!jump[t + 1]) seen[at(t)] = 1;
      }
    } else if (o.data === 'pairs') {
      ruleFiller();
      const marks = [];
      for (let k = 0; k < o.pairs; k++) {
        const run = 2 + below(o.maxRun - 1);
        const t = 2 + below(cols - run - 1);
        const s = below(t - 1);
        for (let q = 0; q < run && t + q < cols; q++) set(t + q, at(s + q));
        for (let q = 0; q + 1 < run && t + q + 1 < cols; q++) marks.push(t + q);
      }
      ruleTargets();
      // A copied run's token is predictable when the latest earlier occurrence of the token before it was followed by it.
      for (const t of marks) {
        let s = t - 1;
        while (s >= 0 && at(s) !== at(t)) s--;
        if (s >= 0 && at(s + 1) === at(t + 1)) target(t);
      }
    } else if (o.data === 'triggers') {
      // `triggers` tokens of the row, each followed by the same random token every time it occurs
      // (`repeats` times, at random places); the rest uniform filler without them. The loss: the token
      // after every occurrence of a trigger but its first.
      const kinds = permutation(vocab);
      const trig = kinds.slice(0, o.triggers), out = kinds.slice(o.triggers, 2 * o.triggers);
      const banned = new Set(trig);
      for (let i = 0; i < cols; i++) while (banned.has(at(i))) set(i, below(vocab));
      const free = new Uint8Array(cols).fill(1);
      const placed = [];
      for (let k = 0; k < o.triggers; k++) {
        for (let r = 0, tries = 0; r < o.repeats && tries < 200; tries++) {
          const t = below(cols - 1);
          if (!free[t] || !free[t + 1] || (t > 0 && !free[t - 1])) continue;
          free[t] = free[t + 1] = 0;
          set(t, trig[k]);
          set(t + 1, out[k]);
          placed.push([t, k]);
          r++;
        }
      }
      const seenK = new Uint8Array(o.triggers);
      placed.sort((a, b) => a[0] - b[0]);
      for (const [t, k] of placed) { if (seenK[k]) target(t); seenK[k] = 1; }
    } else throw new RangeError(`data: expected copy-fresh, fill, distinct, successor, pairs or triggers, got ${o.data}`);
    if (o.bos) {
      // A start token (id `vocab`) at position 0: the row moves one place right, its last token dropped.
      ids.copyWithin(b + 1, b, b + cols - 1);
      targets.copyWithin(b + 1, b, b + cols - 1);
      ids[b] = vocab;
      targets[b] = -1;
      targets[b + cols - 1] = -1;
    }
  }
  return { ids, targets, rows: n, cols };
}

function probe(length, reversed) {
  const s = permutation(o.vocab).slice(0, length);
  return Int32Array.from([...(o.bos ? [o.vocab] : []), ...s, ...(reversed ? s.slice().reverse() : s)]);
}

const scope = await createAttnScope({ wasmBinary: readFileSync(join(root, 'dist/attnscope.wasm')) });
const train = makeRows(o.rows);
const held = makeRows(512);
const m = o.probe;   // the probes' length: m random tokens, then again (in order or backwards)
const from = m + (o.bos ? 1 : 0);   // the first query of the repeat
const probes = [probe(m, false), probe(m, true)];
const config = { kind: 'decoder', layers: o.layers, heads: o.heads, dModel: o.dModel, dFF: 0, vocab: o.vocab + (o.bos ? 1 : 0), maxTokens: o.cols, score: 'scaled-dot', temperature: 1, seed: o.seed };
if (o.positions !== 'learned') config.positions = o.positions;
if (o.norm !== 'pre') config.norm = o.norm;
const model = scope.createModel(config);
const trainer = scope.createModelTrainer(model, { data: train, batch: o.batch, learningRate: o.learningRate, weightDecay: o.weightDecay, seed: o.seed });
const fix = (xs) => xs.map((x) => x.toFixed(2)).join('/');
const row = (r, lh, i) => r.attentions.subarray((lh * r.n + i) * r.n, (lh * r.n + i + 1) * r.n);
console.log(JSON.stringify(o));
const t0 = performance.now();
try {
  while (trainer.steps < o.steps) {
    for (let k = 0; k < o.every; k += 5) trainer.step(5);
    const [a, b] = probes.map((p) => { const r = model.encodeIds(p); return { r, s: prefixMatchingScores(r.attentions, p, o.layers, o.heads, r.n, from) }; });
    const prefix = a.s.map((x, k) => Math.min(x, b.s[k]));
    const r = a.r;
    const last = [], first = [];
    for (let h = 0; h < o.heads; h++) {
      const at = [0, 0, 0, 0], back = [0, 0, 0, 0];
      for (let i = from; i < from + m; i++) for (let d = -1; d <= 2; d++) if (i - m + d >= 0) at[d + 1] += row(r, (o.layers - 1) * o.heads + h, i)[i - m + d] / m;
      for (let i = 3; i < r.n; i++) for (let d = 0; d < 4; d++) back[d] += row(r, h, i)[i - d] / (r.n - 3);
      last.push(fix(at));
      first.push(fix(back));
    }
    const losses = trainer.losses.slice(-o.every);
    console.log(`step ${trainer.steps} (${((performance.now() - t0) / 1000).toFixed(0)} s) loss ${(losses.reduce((s, x) => s + x, 0) / losses.length).toFixed(3)}`
      + ` · prefix matching ${prefix.map((x) => x.toFixed(2)).join(' ')} · layer ${o.layers - 1} at occurrence −1/0/+1/+2: ${last.join(' ')}`
      + ` · layer 0 at self/−1/−2/−3: ${first.join(' ')}`);
  }
  if (o.dump) {
    const r = model.encodeIds(probes[0]);
    for (let l = 0; l < o.layers; l++) for (let h = 0; h < o.heads; h++) for (const i of [from + 2, from + 5, from + m - 1]) {
      console.log(`head ${l}.${h} query ${i} (earlier occurrence ${i - m}): ${Array.from(row(r, l * o.heads + h, i)).map((x) => x.toFixed(2)).join(' ')}`);
    }
  }
  const e = trainer.evaluate(held);
  console.log(`held out: loss ${e.loss.toFixed(3)}, accuracy ${e.accuracy.toFixed(3)} on ${e.count} predictable tokens`);
} finally {
  trainer.dispose();
  model.dispose();
}
