// nanoGPT's GPT written op by op in TensorFlow.js, for the training benchmarks against attnscope's trainer
// (bench/train-node.mjs in node, bench/train-chromium.mjs in a page): learned positions, pre-LayerNorm
// (ε 1e-5), causal softmax(q·k/√dh), GELU (exact, through erf), lm_head tied to the token embedding, mean
// cross-entropy over the targets ≥ 0, the gradient's global norm clipped to 1, Adam (β 0.9, 0.95, ε 1e-8;
// no weight decay: TF.js has no AdamW). The token embedding is a one-hot matMul (TF.js's wasm backend has
// no gradient for gather). Only tf's functions, no chained methods (a bundle may leave those out). Plain ES module with no import: `tf` is passed in (node's require, or the
// page's global), so the same file runs in both.

/**
 * The model from attnscope's parameters (model.parameters(), model.shapes): one batch of B rows of T
 * tokens, `ids` and `targets` (Int32Array, −1 = not counted). Returns { loss() (before any step, from
 * the same parameters: a check that both models agree), step() (one Adam step; its loss), dispose() }.
 */
export function tfjsGpt(tf, { params, shapes, ids, targets, layers: L, heads: H, dModel: D, vocab: V, tokens: T, rows: B, learningRate }) {
  const P = {};
  for (const [name, value] of Object.entries(params)) P[name] = tf.variable(tf.tensor(value, shapes[name]), true, name);
  const dh = D / H;
  const linear = (x, w, b) => tf.add(tf.matMul(x, w, false, true), b);  // x [n, in], w [out, in]
  const layerNorm = (x, g, b) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b);
  };
  const gelu = (x) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.erf(tf.div(x, Math.SQRT2))));
  const causal = tf.tensor2d(Array.from({ length: T * T }, (_, k) => (k % T > Math.floor(k / T) ? -1e9 : 0)), [T, T]);
  const xIds = tf.tensor1d(ids, 'int32'), yIds = tf.tensor1d(Int32Array.from(targets, (t) => Math.max(t, 0)), 'int32');
  const mask = tf.tensor1d(Float32Array.from(targets, (t) => (t >= 0 ? 1 : 0)));
  const counted = tf.sum(mask).dataSync()[0];
  const oneHotX = tf.cast(tf.oneHot(xIds, V), 'float32'), oneHotY = tf.cast(tf.oneHot(yIds, V), 'float32');
  const positions = tf.tensor1d(Int32Array.from({ length: B * T }, (_, i) => i % T), 'int32');
  const oneHotPos = tf.cast(tf.oneHot(positions, T), 'float32');
  const constants = [causal, xIds, yIds, mask, oneHotX, oneHotY, positions, oneHotPos];
  function loss() {
    const wte = P['transformer.wte.weight'];
    let x = tf.add(tf.matMul(oneHotX, wte), tf.matMul(oneHotPos, P['transformer.wpe.weight']));  // [B*T, D]
    for (let l = 0; l < L; l++) {
      const p = (k) => P[`transformer.h.${l}.${k}`];
      const h = layerNorm(x, p('ln_1.weight'), p('ln_1.bias'));
      const qkv = linear(h, p('attn.c_attn.weight'), p('attn.c_attn.bias'));         // [B*T, 3D]
      const [q, k, v] = tf.split(qkv, 3, 1).map((t) => tf.transpose(tf.reshape(t, [B, T, H, dh]), [0, 2, 1, 3]));  // [B, H, T, dh]
      const att = tf.softmax(tf.add(tf.div(tf.matMul(q, k, false, true), Math.sqrt(dh)), causal));
      const y = tf.reshape(tf.transpose(tf.matMul(att, v), [0, 2, 1, 3]), [B * T, D]);
      x = tf.add(x, linear(y, p('attn.c_proj.weight'), p('attn.c_proj.bias')));
      const m = layerNorm(x, p('ln_2.weight'), p('ln_2.bias'));
      x = tf.add(x, linear(gelu(linear(m, p('mlp.c_fc.weight'), p('mlp.c_fc.bias'))), p('mlp.c_proj.weight'), p('mlp.c_proj.bias')));
    }
    const logits = tf.matMul(layerNorm(x, P['transformer.ln_f.weight'], P['transformer.ln_f.bias']), wte, false, true);  // [B*T, V]
    const nll = tf.neg(tf.sum(tf.mul(oneHotY, tf.logSoftmax(logits)), 1));
    return tf.div(tf.sum(tf.mul(nll, mask)), counted);
  }
  const optimizer = tf.train.adam(learningRate, 0.9, 0.95, 1e-8);
  return {
    loss: () => tf.tidy(() => loss().dataSync()[0]),
    step: () => tf.tidy(() => {
      const { value, grads } = tf.variableGrads(loss);
      const norm = tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g))))).dataSync()[0];
      const scale = norm > 1 ? 1 / norm : 1;
      optimizer.applyGradients(Object.fromEntries(Object.entries(grads).map(([n, g]) => [n, tf.mul(g, scale)])));
      return value.dataSync()[0];
    }),
    dispose: () => {
      for (const t of [...Object.values(P), ...constants]) t.dispose();
      optimizer.dispose();
    },
  };
}

/** The benchmark's batch: B rows of T random tokens below V (a fixed LCG), targets the next token (the last of each row −1). */
export function trainingBatch({ rows: B, tokens: T, vocab: V }) {
  let seed = 7;
  const next = () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed; };
  const ids = Int32Array.from({ length: B * T }, () => next() % V);
  const targets = Int32Array.from(ids, (_, i) => ((i + 1) % T === 0 ? -1 : ids[i + 1]));
  return { ids, targets };
}
