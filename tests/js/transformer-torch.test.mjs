// scope.createModel() against PyTorch float64 autograd: the same parameters (set through
// model.setParameters) run by tests/js/transformer_torch.py, its own float64 implementation of the
// model, with Debian's python3-torch (scripts/bootstrap.sh installs it). Logits, attentions, the loss
// and every parameter's gradient must agree within float32 error, for every scoring function (one per
// head across the models below) with a fixed and with a learned temperature, with and without the MLP,
// for decoders and encoder-decoders (their encoder, decoder and cross-attention heads);
// and a plain decoder saved by model.save(), read in PyTorch and loaded by load_state_dict(strict=True) into
// a module named exactly as nanoGPT's GPT, must give the same logits; five steps of createModelTrainer must follow
// torch.optim.AdamW with clip_grad_norm_. One python process runs every case.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, loadScope, rng } from './helpers.mjs';

const PYTHON = '/usr/bin/python3';
const scope = await loadScope({ preload: false });
const SCORES = scope.scoreFunctions.map((s) => s.name);

// Parameters at a scale where every part of the model matters (the init's σ 0.02 leaves attention
// nearly uniform): weights U(−0.5, 0.5), LayerNorm gains 1 ± 0.3, biases ± 0.1, log_tau ± 0.3.
function randomise(model, seed) {
  const r = rng(seed);
  const params = model.parameters();
  for (const [name, v] of Object.entries(params)) {
    const gain = /ln_.\.weight$|ln_f\.weight$/.test(name), bias = name.endsWith('.bias'), tau = name.endsWith('log_tau');
    for (let i = 0; i < v.length; i++) {
      const u = 2 * r.next() - 1;
      v[i] = gain ? 1 + 0.3 * u : bias ? 0.1 * u : tau ? 0.3 * u : 0.5 * u;
    }
  }
  model.setParameters(params);
  return params;
}

// Every scoring function of the registry gets a head: 2 layers x 5 heads = 10 heads, one score each
// (rotated by `shift` so that each score also sits in the other layer in the second model).
function perHead(shift) {
  const out = {};
  for (let i = 0; i < 10; i++) out[`${Math.floor(i / 5)}.${i % 5}`] = SCORES[(i + shift) % SCORES.length];
  return out;
}

// An encoder-decoder's heads: 'encoder.L.H', 'decoder.L.H', 'cross.L.H', each scoring function on some of each kind.
function perPairHead(layers, heads, shift) {
  const out = {};
  let i = 0;
  for (const stack of ['encoder', 'decoder', 'cross']) {
    for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) out[`${stack}.${l}.${h}`] = SCORES[(i++ + shift) % SCORES.length];
  }
  return out;
}

const CASES = [
  { label: 'every score, learned τ, MLP', config: { layers: 2, heads: 5, dModel: 15, dFF: 20, vocab: 11, maxTokens: 9, score: perHead(0), temperature: 'learned', seed: 3 } },
  { label: 'every score, τ = 0.8, attention-only', config: { layers: 2, heads: 5, dModel: 15, dFF: 0, vocab: 11, maxTokens: 9, score: perHead(5), temperature: 0.8, seed: 4 } },
  { label: 'encoder-decoder, every score, learned τ, MLP', pair: true, config: { kind: 'encoder-decoder', layers: 2, heads: 3, dModel: 12, dFF: 16, vocab: 11, maxTokens: 9, score: perPairHead(2, 3, 0), temperature: 'learned', seed: 6 } },
  { label: 'encoder-decoder, every score, τ = 1.3, attention-only', pair: true, config: { kind: 'encoder-decoder', layers: 1, heads: 5, dModel: 10, dFF: 0, vocab: 11, maxTokens: 9, score: perPairHead(1, 5, 3), temperature: 1.3, seed: 7 } },
  { label: 'nanoGPT decoder', nanogpt: true, config: { layers: 2, heads: 2, dModel: 8, dFF: 32, vocab: 13, maxTokens: 9, seed: 5 } },
];

const ids = [3, 1, 4, 1, 5, 9, 2, 6];
const targets = [1, 4, -1, 5, 9, 2, 6, -1];
// An encoder-decoder's source (ids, 6 of them) and target (targets: the decoder reads them shifted right).
const source = [7, 2, 8, 1, 8, 2];

const runs = CASES.map((c, k) => {
  const model = scope.createModel(c.config);
  const params = randomise(model, 71 + k);
  const enc = c.pair ? model.encodeIds(source, { target: targets }) : model.encodeIds(ids);
  const lg = c.pair ? model.lossAndGradients(source, targets) : model.lossAndGradients(ids, targets);
  const config = { ...model.config, shapes: model.shapes };
  const job = { config, params: Object.fromEntries(Object.entries(params).map(([n, v]) => [n, Array.from(v)])), ids: c.pair ? source : ids, targets };
  if (c.nanogpt) job.safetensors = Buffer.from(model.save()).toString('base64');
  // Gradient × attention: the argmax's logit at position 4, and token 2's at the last position with a head knocked out.
  const labels = Object.keys(model.scores);
  const ag = [{ position: 4 }, { position: targets.length - 1, token: 2, ablate: [labels[1]] }].map((o) => ({
    options: o,
    got: c.pair ? model.attentionGradients(source, { target: targets, ...o }) : model.attentionGradients(ids, o),
  }));
  model.dispose();
  return { ...c, enc, lg, job, ag };
});
// The PyTorch jobs of the gradients of one logit: each run's two, after the runs' own jobs.
const agJobs = runs.flatMap((r) => r.ag.map(({ options, got }) => ({ ...r.job, safetensors: undefined,
  attentionGradients: { position: options.position, token: options.token ?? got.token, ablate: options.ablate ?? [] } })));

// Training: AdamW (weight decay 0.1 on the matrices) with the gradient's norm clipped to 0.5, five
// steps on one sequence (rows 1, batch 1: every batch is that sequence, so PyTorch sees the same ones).
const TRAIN = { steps: 5, learningRate: 0.01, weightDecay: 0.1, clip: 0.5 };
const trainRun = (() => {
  const model = scope.createModel({ layers: 2, heads: 2, dModel: 8, dFF: 16, vocab: 13, maxTokens: 9, score: { '0.0': 'general', '1.1': 'additive' }, temperature: 'learned', seed: 8 });
  const params = randomise(model, 90);
  const { learningRate, weightDecay, clip } = TRAIN;
  const t = scope.createModelTrainer(model, { data: { ids: Int32Array.from(ids), targets: Int32Array.from(targets), rows: 1, cols: ids.length }, batch: 1, learningRate, weightDecay, clip, seed: 1 });
  const norms = [];
  for (let k = 0; k < TRAIN.steps; k++) { t.step(1); norms.push(t.lastGradNorm); }
  const out = { losses: t.losses, norms, params: model.parameters() };
  const job = { config: { ...model.config, shapes: model.shapes }, params: Object.fromEntries(Object.entries(params).map(([n, v]) => [n, Array.from(v)])), ids, targets, train: TRAIN };
  t.dispose();
  model.dispose();
  return { out, job };
})();

let oracle;
try {
  const out = execFileSync(PYTHON, [join(ROOT, 'tests', 'js', 'transformer_torch.py')], {
    input: JSON.stringify({ cases: [...runs.map((r) => r.job), trainRun.job, ...agJobs] }), encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['pipe', 'pipe', 'pipe'],
  });
  oracle = JSON.parse(out);
} catch (e) {
  assert.fail(`${PYTHON} with torch failed (scripts/bootstrap.sh installs python3-torch): ${e.stderr || e.message}`);
}

// The worst |got − want| and |got − want| / (|want| + scale) over arrays, for the record.
function worst(got, want, scale) {
  let abs = 0, rel = 0;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(got[i] - want[i]);
    abs = Math.max(abs, e);
    rel = Math.max(rel, e / (Math.abs(want[i]) + scale));
  }
  return { abs, rel };
}

for (const [k, r] of runs.entries()) {
  const want = oracle.results[k];
  test(`createModel (${r.label}): logits, attentions and loss equal PyTorch float64 (torch ${oracle.torch})`, () => {
    assert.equal(r.enc.logits.length, want.logits.length);
    assert.equal(r.enc.attentions.length, want.attentions.length);
    let maxLogit = 0;
    for (const x of want.logits) maxLogit = Math.max(maxLogit, Math.abs(x));
    // float32 through two blocks: a few hundred roundings of values of size max|logit|.
    for (let i = 0; i < want.logits.length; i++) {
      const tol = 2e-5 * (1 + maxLogit);
      if (!(Math.abs(r.enc.logits[i] - want.logits[i]) <= tol)) assert.fail(`logits[${i}]: ${r.enc.logits[i]}, PyTorch ${want.logits[i]} ± ${tol}`);
    }
    for (const part of r.pair ? ['attentions', 'encoderAttentions', 'cross'] : ['attentions']) {
      assert.equal(r.enc[part].length, want[part].length, `${part}: length`);
      for (let i = 0; i < want[part].length; i++) {
        if (!(Math.abs(r.enc[part][i] - want[part][i]) <= 1e-5)) assert.fail(`${part}[${i}]: ${r.enc[part][i]}, PyTorch ${want[part][i]} ± 1e-5`);
      }
    }
    assert.ok(Math.abs(r.lg.loss - want.loss) <= 1e-5 * Math.max(1, want.loss), `loss ${r.lg.loss}, PyTorch ${want.loss}`);
    assert.equal(r.lg.count, targets.filter((t) => t >= 0).length);
    const l = worst(r.enc.logits, want.logits, 1), a = worst(r.enc.attentions, want.attentions, 1);
    const x = r.pair ? `, cross max |Δ| ${worst(r.enc.cross, want.cross, 1).abs.toExponential(2)}, encoder max |Δ| ${worst(r.enc.encoderAttentions, want.encoderAttentions, 1).abs.toExponential(2)}` : '';
    console.log(`# ${r.label}: logits max |Δ| ${l.abs.toExponential(2)}, attentions max |Δ| ${a.abs.toExponential(2)}${x}, loss |Δ| ${Math.abs(r.lg.loss - want.loss).toExponential(2)}`);
  });

  test(`createModel (${r.label}): every parameter's gradient equals PyTorch float64 autograd`, () => {
    const names = Object.keys(want.gradients).sort();
    assert.deepEqual(Object.keys(r.lg.gradients).sort(), names);
    let scale = 0;
    for (const g of Object.values(want.gradients)) for (const x of g) scale = Math.max(scale, Math.abs(x));
    let worstAll = { abs: 0, rel: 0 };
    for (const name of names) {
      const got = r.lg.gradients[name], ref = want.gradients[name];
      assert.equal(got.length, ref.length, `${name}: length`);
      // float32 rounding through the model: |got − ref| <= 2e-3 |ref| + 2e-4 max|ref| (a wrong term
      // or factor is off by the size of the gradient itself).
      for (let i = 0; i < ref.length; i++) {
        const tol = 2e-3 * Math.abs(ref[i]) + 2e-4 * scale;
        if (!(Math.abs(got[i] - ref[i]) <= tol)) assert.fail(`gradients['${name}'][${i}]: ${got[i]}, PyTorch ${ref[i]} ± ${tol}`);
      }
      const w = worst(got, ref, scale);
      worstAll = { abs: Math.max(worstAll.abs, w.abs), rel: Math.max(worstAll.rel, w.rel) };
    }
    console.log(`# ${r.label}: ${names.length} gradients, max |Δ| ${worstAll.abs.toExponential(2)}, max |Δ| / (|g| + max|g|) ${worstAll.rel.toExponential(2)} (max|g| ${scale.toExponential(2)})`);
  });
}

test('model.save() loads into a nanoGPT-shaped GPT (safetensors read in PyTorch, load_state_dict strict) giving the same logits', () => {
  const k = runs.findIndex((r) => r.nanogpt);
  const got = runs[k].enc.logits, want = oracle.results[k].nanogpt;
  assert.equal(got.length, want.length);
  let maxLogit = 0;
  for (const x of want) maxLogit = Math.max(maxLogit, Math.abs(x));
  const w = worst(got, want, 1);
  assert.ok(w.abs <= 2e-5 * (1 + maxLogit), `logits differ from the nanoGPT module's by ${w.abs}`);
  console.log(`# nanoGPT GPT module: logits max |Δ| ${w.abs.toExponential(2)}`);
});

test('createModelTrainer: five AdamW steps with clipping follow torch.optim.AdamW and clip_grad_norm_', () => {
  // PyTorch's float64 run is the reference; PyTorch's own float32 run of the same steps measures how far
  // float32 drifts along this trajectory (AdamW divides each gradient by its own size, so a gradient
  // that is rounding noise, e.g. of a key bias that softmax ignores, moves its parameter by up to the
  // learning rate in float32 and not at all in float64). Ours must stay within 3x that drift, and within
  // 1e-5 relatively (losses) or 1e-4 (norms) where the drift is smaller.
  const { float64: want, float32: torch32 } = oracle.results[runs.length];
  const got = trainRun.out;
  assert.equal(got.losses.length, TRAIN.steps);
  for (let k = 0; k < TRAIN.steps; k++) {
    const lossTol = Math.max(1e-5 * want.losses[k], 3 * Math.abs(torch32.losses[k] - want.losses[k]));
    const normTol = Math.max(1e-4 * want.norms[k], 3 * Math.abs(torch32.norms[k] - want.norms[k]));
    assert.ok(Math.abs(got.losses[k] - want.losses[k]) <= lossTol, `loss of step ${k + 1}: ${got.losses[k]}, PyTorch ${want.losses[k]} ± ${lossTol}`);
    assert.ok(Math.abs(got.norms[k] - want.norms[k]) <= normTol, `gradient norm of step ${k + 1}: ${got.norms[k]}, PyTorch ${want.norms[k]} ± ${normTol}`);
  }
  assert.ok(want.norms.every((n) => n > TRAIN.clip), 'every step clips (the test must exercise the clipping)');
  const drift = (params) => {
    let abs = 0;
    for (const [name, ref] of Object.entries(want.params)) for (let i = 0; i < ref.length; i++) abs = Math.max(abs, Math.abs(params[name][i] - ref[i]));
    return abs;
  };
  const ours = drift(got.params), theirs = drift(torch32.params);
  assert.ok(ours <= 3 * theirs + 1e-6, `parameters after ${TRAIN.steps} steps differ from PyTorch float64 by up to ${ours}; PyTorch float32 by ${theirs}`);
  console.log(`# trainer: losses ${Array.from(got.losses, (x) => x.toFixed(5)).join(' ')}; max |Δ loss| ${Math.max(...Array.from(got.losses, (x, k) => Math.abs(x - want.losses[k]))).toExponential(2)}; ` +
    `max |Δ parameter| after ${TRAIN.steps} steps ${ours.toExponential(2)} (PyTorch float32: ${theirs.toExponential(2)})`);
});

test('attentionGradients: ∂ logit / ∂ A of every head (decoder self-attention, encoder, cross) equals PyTorch autograd (retain_grad on the softmax)', () => {
  let k = runs.length + 1, worstAll = 0;
  for (const r of runs) {
    for (const { options, got } of r.ag) {
      const want = oracle.results[k++], what = `${r.label}, ${JSON.stringify(options)}`;
      // The default token is the argmax of our logits; PyTorch's argmax must agree unless two logits tie.
      if (options.token === undefined) assert.equal(got.token, Array.from(got.logits.subarray(got.position * got.vocab, (got.position + 1) * got.vocab)).reduce((b, x, j, a) => (x > a[b] ? j : b), 0), what);
      assert.ok(Math.abs(got.logit - want.logit) <= 2e-5 * (1 + Math.abs(want.logit)), `${what}: logit ${got.logit}, PyTorch ${want.logit}`);
      const parts = r.pair ? ['gradients', 'encoderGradients', 'crossGradients'] : ['gradients'];
      let scale = 0;
      for (const part of parts) for (const x of want[part]) scale = Math.max(scale, Math.abs(x));
      assert.ok(scale > 1e-3, `${what}: the logit depends on the attentions`);
      for (const part of parts) {
        assert.equal(got[part].length, want[part].length, `${what}: ${part} length`);
        for (let i = 0; i < want[part].length; i++) {
          const tol = 2e-3 * Math.abs(want[part][i]) + 2e-4 * scale;
          if (!(Math.abs(got[part][i] - want[part][i]) <= tol)) assert.fail(`${what}: ${part}[${i}]: ${got[part][i]}, PyTorch ${want[part][i]} ± ${tol}`);
        }
        worstAll = Math.max(worstAll, worst(got[part], want[part], scale).rel);
      }
    }
  }
  console.log(`# attentionGradients: ${k - runs.length - 1} predictions, max |Δ| / (|g| + max|g|) ${worstAll.toExponential(2)}`);
});
