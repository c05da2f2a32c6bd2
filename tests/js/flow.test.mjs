// scope.attentionFlow() against networkx, run here: Debian's python3-networkx (scripts/bootstrap.sh
// installs it) computes nx.maximum_flow_value on a DiGraph of the same layered network for random stacks
// of 1 to 6 layers; then the relations flow must keep (two layers: the closed form; bounds), the work
// limit and the errors, and that the instance keeps working after a refusal.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { before, test } from 'node:test';
import { assertClose, assertThrowsNaming, loadScope, rng } from './helpers.mjs';
import { tinyTransformer } from './attention-files.mjs';

const PYTHON = '/usr/bin/python3';
let scope;
before(async () => { scope = await loadScope({ vocabulary: 'small' }); });

/** Random rows (some entries exactly 0, so that cuts through missing edges are met), each summing to 1. */
function sparseStack(layers, heads, n, seed) {
  const r = rng(seed);
  const out = new Float32Array(layers * heads * n * n);
  for (let row = 0; row < layers * heads * n; row++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += (out[row * n + j] = r.next() < 0.35 ? 0 : Math.exp(2 * (r.next() - 0.5) * 2));
    if (s === 0) s = (out[row * n] = 1);
    for (let j = 0; j < n; j++) out[row * n + j] /= s;
  }
  return out;
}

/** Ā_l of every layer exactly as the flow uses it: rollout of that one layer (the same C++ function). */
function bars(att, layers, heads, n, residual, head) {
  return Array.from({ length: layers }, (_, l) =>
    Array.from(scope.rollout(att.subarray(l * heads * n * n, (l + 1) * heads * n * n), { layers: 1, heads, n, residual, head })));
}

const NETWORKX = `
import json, sys
import networkx as nx
out = []
for p in json.load(sys.stdin):
    L, n, bars = p['L'], p['n'], p['bars']
    G = nx.DiGraph()
    for l in range(L):
        for i in range(n):
            for j in range(n):
                G.add_edge((l + 1, i), (l, j), capacity=bars[l][i * n + j])
    out.append([nx.maximum_flow_value(G, (L, i), (0, j)) for i in range(n) for j in range(n)])
json.dump(out, sys.stdout)
`;

test('attentionFlow equals networkx\'s maximum_flow_value on random stacks of 1 to 6 layers (mean, max, one head; residual 0 to 0.8)', () => {
  const cases = [];
  const shapes = [[1, 2, 4], [2, 1, 5], [2, 3, 7], [3, 2, 5], [3, 1, 6], [4, 3, 4], [5, 2, 4], [6, 1, 3]];
  let seed = 1;
  for (const [layers, heads, n] of shapes) {
    for (const kind of ['transformer', 'sparse']) {
      const att = kind === 'transformer' ? tinyTransformer(layers, heads, n, seed++) : sparseStack(layers, heads, n, seed++);
      for (const [residual, head] of [[0, 'mean'], [0.5, 'mean'], [0.8, 'max'], [0.3, heads - 1]]) {
        const got = scope.attentionFlow(att, { layers, heads, n, residual, head });
        cases.push({ label: `L=${layers} H=${heads} n=${n} ${kind} residual=${residual} head=${head}`, got, L: layers, n, bars: bars(att, layers, heads, n, residual, head) });
      }
    }
  }
  const input = JSON.stringify(cases.map(({ L, n, bars: b }) => ({ L, n, bars: b })));
  let out;
  try {
    out = execFileSync(PYTHON, ['-c', NETWORKX], { input, encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    assert.fail(`${PYTHON} with networkx failed (scripts/bootstrap.sh installs python3-networkx): ${e.stderr || e.message}`);
  }
  const want = JSON.parse(out);
  assert.equal(want.length, cases.length);
  cases.forEach((c, k) => assertClose(c.got, want[k], 1e-6, c.label));
  assert.ok(cases.some((c, k) => c.L >= 3 && want[k].some((x) => x > 0.05 && x < 0.95)), 'some deep flows are neither 0 nor 1');
});

test('two layers: flow[i, j] = Σ_k min(Ā_1[i, k], Ā_0[k, j]); every flow in [0, 1] and at most the sink\'s capacity', () => {
  const layers = 2, heads = 4, n = 24;
  const att = tinyTransformer(layers, heads, n, 42);
  const got = scope.attentionFlow(att, { layers, heads, n });
  const [b0, b1] = bars(att, layers, heads, n, 0.5, 'mean');
  const want = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) want[i * n + j] += Math.min(b1[i * n + k], b0[k * n + j]);
  assertClose(got, want, 1e-6, 'closed form');
  const deep = scope.attentionFlow(sparseStack(4, 2, 9, 5), { layers: 4, heads: 2, n: 9, residual: 0.2 });
  const b = bars(sparseStack(4, 2, 9, 5), 4, 2, 9, 0.2, 'mean');
  for (let i = 0; i < 9; i++) {
    for (let j = 0; j < 9; j++) {
      let intoJ = 0;
      for (let k = 0; k < 9; k++) intoJ += b[0][k * 9 + j];
      const x = deep[i * 9 + j];
      assert.ok(x >= 0 && x <= 1 + 1e-6 && x <= intoJ + 1e-6, `flow[${i}, ${j}] = ${x}, sink capacity ${intoJ}`);
    }
  }
  // residual 1: every Ā is the identity, so all of token i's flow reaches input i.
  const id = scope.attentionFlow(att, { layers, heads, n, residual: 1 });
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) assert.equal(id[i * n + j], i === j ? 1 : 0);
});

test('attentionFlow refuses bad arguments and stacks over the work limit, naming them; the instance keeps working', () => {
  const att = tinyTransformer(2, 2, 4, 3);
  const o = { layers: 2, heads: 2, n: 4 };
  assertThrowsNaming(() => scope.attentionFlow(att, { ...o, head: 2 }), RangeError, [/options\.head/, /0 to 1/], 'head index');
  assertThrowsNaming(() => scope.attentionFlow(att, { ...o, head: 'min' }), TypeError, [/options\.head/, /'mean', 'max'/], 'head name');
  assertThrowsNaming(() => scope.attentionFlow(att, { ...o, residual: 1.5 }), RangeError, [/options\.residual/, /0 to 1/], 'residual');
  assertThrowsNaming(() => scope.attentionFlow(att, { ...o, n: 3 }), RangeError, [/attentions: expected 36 numbers/], 'length');
  assertThrowsNaming(() => scope.attentionFlow(Array.from(att), o), TypeError, [/attentions/, /Float32Array/], 'array');
  assertThrowsNaming(() => scope.attentionFlow(att, { layers: 2, heads: 2 }), TypeError, [/options\.n/], 'n missing');
  assertThrowsNaming(() => scope.attentionFlow(att, { ...o, tokens: 4 }), TypeError, [/options\.tokens: unknown option/], 'unknown option');
  assertThrowsNaming(() => scope.attentionFlow(new Float32Array(9).fill(-1), { layers: 1, heads: 1, n: 3, residual: 0 }), RangeError, [/non-negative/], 'negative');
  // the work limit: refused before the stack is copied into wasm memory
  const before = scope.memoryInUse();
  assertThrowsNaming(() => scope.attentionFlow(new Float32Array(3 * 54 * 54), { layers: 3, heads: 1, n: 54 }), RangeError,
    [/attention flow of 3 layers x 54 tokens/, /over the limit of 536870912/, /3: 53/, /rollout/], '3 layers x 54 tokens');
  assertThrowsNaming(() => scope.attentionFlow(new Float32Array(2 * 813 * 813), { layers: 2, heads: 1, n: 813 }), RangeError,
    [/2 layers x 813 tokens/, /2 layers: up to 812 tokens/], '2 layers x 813 tokens');
  assert.equal(scope.memoryInUse(), before);
  const ok = scope.attentionFlow(sparseStack(3, 1, 53, 9), { layers: 3, heads: 1, n: 53 });
  assert.equal(ok.length, 53 * 53);
  assert.equal(scope.memoryInUse(), before, 'nothing leaks');
  const again = scope.attentionFlow(att, o);
  assert.equal(again.length, 16);
});

test('subnormal weights with residual 0: rollout finite, flow ends with the uniform answer (it ran until killed)', async () => {
  // Run in a worker with a deadline, so a build that loops forever fails this test instead of hanging the run.
  const { Worker } = await import('node:worker_threads');
  const { pathToFileURL } = await import('node:url');
  const { DIST } = await import('./helpers.mjs');
  const code = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(pathToFileURL(`${DIST}/attnscope.mjs`).href)}).then(async ({ createAttnScope }) => {
      const scope = await createAttnScope();
      const out = [];
      for (const [tiny, layers] of [[1e-45, 3], [5e-40, 3], [1e-45, 4]]) {
        const o = { layers, heads: 1, n: 3, residual: 0 };
        const att = new Float32Array(layers * 9).fill(tiny);
        out.push({ tiny, layers, rollout: Array.from(scope.rollout(att, o)), flow: Array.from(scope.attentionFlow(att, o)) });
      }
      parentPort.postMessage(out);
    });`;
  const worker = new Worker(code, { eval: true });
  let timer;
  try {
    const results = await Promise.race([
      new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); }),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('attentionFlow of subnormal weights did not return within 60 s')), 60000); }),
    ]);
    for (const r of results) {
      assertClose(Float32Array.from(r.rollout), new Float32Array(9).fill(1 / 3), 1e-6, `rollout ${r.tiny} x ${r.layers} layers`);
      assertClose(Float32Array.from(r.flow), new Float32Array(9).fill(1), 1e-6, `flow ${r.tiny} x ${r.layers} layers`);
    }
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
});

test('a negative weight is refused even where its row sums to more than 0 (rollout gave -2.33, flow -1)', () => {
  const att = Float32Array.of(-1, 2, 1, 0.2, 0.3, 0.5, 0.1, 0.1, 0.8);
  const o = { layers: 1, heads: 1, n: 3, residual: 0 };
  for (const call of ['rollout', 'attentionFlow']) {
    assertThrowsNaming(() => scope[call](att, o), RangeError, [/layer 0, head 0, row 0, column 0 is -1/, /non-negative/], call);
  }
  assert.equal(scope.rollout(Float32Array.of(0.5, 0.5, 0, 1), { layers: 1, heads: 1, n: 2, residual: 0 })[0], 0.5);
});
