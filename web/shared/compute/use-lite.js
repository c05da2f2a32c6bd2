// The trained model's computations for the demo's "trained model" mode and the <attn-scope
// model="use-lite"> element: the sentence through every layer and head (model.encode), the same with
// the surgery the visitor chose (one head re-scored by another scoring function, heads knocked out),
// how far that moves the sentence embedding and a second sentence's similarity, and the stack's
// rollout and attention flow. DOM-free: the demo's worker runs it (web/pages/demo/demo-worker.js), the element
// runs it on its own scope. Every number the figures show or explain comes from here.
import { headLabel, parseHead } from '../head-label.js';
import { BOUNDED, maxRatio } from '../../../lab/score-range.js';

/** The model's name in the page, the attribute and the URL. */
export const MODEL_NAME = 'use-lite';


/** Cosine of two vectors (the model's embeddings are unit length; this does not rely on it). */
export function cosine(a, b) {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { d += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return na > 0 && nb > 0 ? d / Math.sqrt(na * nb) : 0;
}

/**
 * Per head, the mean over rows of the total variation between two attention stacks [layers, heads, n, n]
 * (½ Σ_j |a_ij − b_ij|, 0: the same row, 1: disjoint rows): Float64Array [layers × heads].
 */
export function rowTV(a, b, layers, heads, n) {
  const out = new Float64Array(layers * heads);
  for (let lh = 0; lh < layers * heads; lh++) {
    let s = 0;
    for (let i = 0; i < n; i++) {
      const o = (lh * n + i) * n;
      let t = 0;
      for (let j = 0; j < n; j++) t += Math.abs(a[o + j] - b[o + j]);
      s += t / 2;
    }
    out[lh] = n ? s / n : 0;
  }
  return out;
}

/**
 * A head's own scoring function in a view: USE-Lite's heads all score by scaled-dot; a saved transformer's
 * each by its own (v.own, one name per head, layer-major: web/shared/compute/saved-model.js).
 */
export function ownScore(v, label) {
  if (!v.own) return 'scaled-dot';
  const at = parseHead(label, v.layers, v.heads);
  return at ? v.own[at[0] * v.heads + at[1]] : 'scaled-dot';
}

/** Whether a view re-scores its head: another scoring function than its own, or a temperature other than the model's 1. */
export const rescored = (v) => (!!v.swap && v.swap !== ownScore(v, v.head)) || (v.tau ?? 1) !== 1;

/** One head's [n, n] block of a stack. */
export const headBlock = (att, l, h, heads, n) => att.subarray(((l * heads + h) * n) * n, ((l * heads + h + 1) * n) * n);

/**
 * The options of model.encode for a surgery: swap (a scoring function's name, or '' for none) and
 * temperature tau (1: the model's own) on head `head` ('L.H'), knocked-out heads (labels). own: the
 * head's own scoring function (choosing it changes nothing).
 */
export function surgeryOptions({ head, swap, knock, tau = 1, own = 'scaled-dot' }) {
  const o = {};
  if (swap && swap !== own) o.score = { [head]: swap };
  if (tau !== 1) o.temperature = { [head]: tau };
  if (knock && knock.length) o.ablate = [...knock];
  return o;
}

/**
 * Rollout of a stack as trained (`original`) and with a surgery (`cut`, null without one), and its
 * attention flow where the module has it — of the stack as it runs now only: a flow costs n² max-flows.
 * ro: { layers, heads, n, residual }. Returns { rollout: { original, surgery }, flow: { original,
 * surgery } (the other null) | null, flowMs }.
 */
export function stackPaths(scope, original, cut, ro) {
  const rollout = { original: scope.rollout(original, ro), surgery: cut ? scope.rollout(cut, ro) : null };
  let flow = null, flowMs = 0;
  if (typeof scope.attentionFlow === 'function') {
    const f0 = performance.now();
    flow = cut ? { original: null, surgery: scope.attentionFlow(cut, ro) } : { original: scope.attentionFlow(original, ro), surgery: null };
    flowMs = performance.now() - f0;
  }
  return { rollout, flow, flowMs };
}

/**
 * Everything the model's figures draw for one state. model: scope.loadModel()'s; scope: its scope
 * (rollout, attentionFlow). st: { text, text2, head ('L.H'), swap ('' or a name), tau (that head's
 * temperature, default 1), knock (labels), residual (rollout's, default 0.5) }. Returns
 *   { name, layers, heads, headDims, n, tokens, truncated, maxTokens, total?, head, swap, tau, knock,
 *     original: Float32Array [L, H, n, n] (the trained model), surgery: the same with the surgery
 *     (the trained model's own when there is none), embedding distance 1 − cos, tv (per head, mean
 *     row total variation surgery vs original), second: { text tokens n truncated, before, after }
 *     | null, rollout: { original, surgery } [n, n] (surgery null without one), flow: { original,
 *     surgery } of the stack as it runs now only (the other null), or null without scope.attentionFlow,
 *     flowMs, timings }.
 */
export function modelViews(scope, model, st) {
  const t0 = performance.now();
  const layers = model.layers, heads = model.heads;
  const head = parseHead(st.head, layers, heads) ? st.head : '0.0';
  const knock = (st.knock || []).filter((k) => parseHead(k, layers, heads));
  const swap = st.swap || '';
  const tau = Number.isFinite(st.tau) && st.tau > 0 ? st.tau : 1;
  const surgery = surgeryOptions({ head, swap, knock, tau });
  const changed = Object.keys(surgery).length > 0;
  const base = model.encode(st.text);
  const t1 = performance.now();
  const cut = changed ? model.encode(st.text, surgery) : base;
  const t2 = performance.now();
  const n = base.n;
  const tv = changed ? rowTV(base.attentions, cut.attentions, layers, heads, n) : new Float64Array(layers * heads);
  let second = null;
  if (st.text2 && st.text2.trim()) {
    const b2 = model.encode(st.text2);
    const c2 = changed ? model.encode(st.text2, surgery) : b2;
    second = { tokens: b2.tokens, n: b2.n, truncated: b2.truncated,
      before: cosine(base.embedding, b2.embedding), after: cosine(cut.embedding, c2.embedding) };
  }
  const residual = st.residual === undefined ? 0.5 : st.residual;
  const { rollout, flow, flowMs } = stackPaths(scope, base.attentions, changed ? cut.attentions : null, { layers, heads, n, residual });
  return {
    name: model.name, layers, heads, headDims: [...(model.headDims || [])], n,
    tokens: base.tokens, spans: base.spans || null, truncated: base.truncated, maxTokens: model.maxTokens,
    head, swap, tau, knock, changed,
    original: base.attentions, surgery: cut.attentions,
    embedding: { distance: changed ? 1 - cosine(base.embedding, cut.embedding) : 0 },
    tv, second, residual, rollout, flow,
    timings: { encodeMs: t1 - t0, surgeryMs: t2 - t1, flowMs, totalMs: performance.now() - t0 },
  };
}

/** "«f»": a token in a sentence. */
const quoted = (t) => `«${t}»`;

/**
 * What the model outputs and how far a surgery moves it, in words: USE-Lite's sentence embedding (1 −
 * cosine); a decoder's prediction of the next token (the total variation of its probabilities).
 */
function outputWords(v, fmt) {
  if (v.kind === 'decoder') {
    return {
      moves: (d) => `moves the prediction of the next token by ${fmt(d)} (total variation)`,
      moved: (d) => `the prediction of the next token moves by ${fmt(d)} (total variation)`,
      amount: v.prediction.tv,
      term: 'Total variation of the prediction: half the sum of how much each token\'s probability of coming next changed, from 0 (the same prediction) to 1.',
    };
  }
  return {
    moves: (d) => `moves the sentence embedding by ${fmt(d)} (1 − cosine)`,
    moved: (d) => `the sentence embedding moves by ${fmt(d)} (1 − cosine)`,
    amount: v.embedding.distance,
    term: '1 − cosine of the embeddings: 0 when the sentence\'s 512 numbers point the same way as trained, 1 when at right angles, at most 2.',
  };
}

/** The heads' own scoring functions in words: "every head scores by scaled-dot", or by function, the heads named. */
function ownWords(v) {
  const own = v.own || Array(v.layers * v.heads).fill('scaled-dot');
  const groups = new Map();
  own.forEach((s, k) => {
    if (!groups.has(s)) groups.set(s, []);
    groups.get(s).push(`layer ${Math.floor(k / v.heads) + 1}, head ${(k % v.heads) + 1}`);
  });
  if (groups.size === 1) return `every head scores by ${own[0] === 'scaled-dot' ? 'a scaled dot product' : own[0]}`;
  return `its heads score by ${[...groups].map(([s, heads]) => `${s} (${heads.join('; ')})`).join(', ')}`;
}

/** The explanation of a view, a list of sentences computed from its numbers. fmt: a number formatter. */
export function explain(v, fmt) {
  const out = [];
  const [hl, hh] = parseHead(v.head) || [0, 0];
  const name = (l, h) => `layer ${l + 1}, head ${h + 1}`;
  const idx = (l, h) => l * v.heads + h;
  const words = outputWords(v, fmt);
  const own = ownScore(v, v.head);
  const decoder = v.kind === 'decoder';
  if (!v.changed) {
    out.push(`The model as trained: ${ownWords(v)}. Choose another scoring function${decoder ? '' : ' or temperature'} for ${name(hl, hh)} or knock heads out to see what changes.`);
  } else {
    const knocked = v.knock.map((k) => { const [l, h] = parseHead(k); return name(l, h); }).join(', ');
    const moved = words.moved(words.amount);
    const tau = v.tau ?? 1;
    const swapped = rescored(v);
    // What the head is scored with: "cosine", "cosine at τ = 0.1", "scaled-dot at τ = 0.5".
    const scored = `${v.swap || own}${tau !== 1 ? ` at τ = ${tau}` : ''}`;
    if (swapped && v.knock.includes(v.head)) {
      // The re-scored head is knocked out too: its output is dropped whatever scores it, so every
      // change after it (the heads downstream, the output) is the knock-out's alone.
      out.push(`L${name(hl, hh).slice(1)} is knocked out, so what it passes on is dropped whatever scores it: re-scoring it by ${scored} changes its own rows `
        + `(a total variation of ${fmt(v.tv[idx(hl, hh)])} on average, drawn above) and nothing after it. Knocking out ${knocked} ${words.moves(words.amount)}: all of that move is the knock-out's.`);
    } else if (swapped) {
      const swap = `Scoring ${name(hl, hh)} by ${scored} moves each of that head's rows by a total variation of ${fmt(v.tv[idx(hl, hh)])} on average`;
      out.push(v.knock.length ? `${swap}; with ${knocked} knocked out as well, ${moved}.` : `${swap}; ${moved}.`);
    } else {
      out.push(`Knocking out ${knocked} ${words.moves(words.amount)}.`);
    }
    // The heads downstream of the change: the largest mean row change outside the swapped head.
    let best = -1, at = null;
    for (let l = 0; l < v.layers; l++) {
      for (let h = 0; h < v.heads; h++) {
        const label = headLabel(l, h);
        if ((label === v.head && swapped) || v.knock.includes(label)) continue;
        if (v.tv[idx(l, h)] > best) { best = v.tv[idx(l, h)]; at = [l, h]; }
      }
    }
    if (at && best > 0) out.push(`Downstream, ${name(at[0], at[1])} changes most: its rows move by ${fmt(best)} on average.`);
    else if (at) out.push('No other head\'s attention changes: every head it could reach is in an earlier layer or the same layer.');
  }
  // A decoder's prediction after the last token, as trained and with the surgery.
  if (decoder) {
    const p = v.prediction;
    const last = quoted(v.tokens[v.n - 1]);
    const before = `${quoted(p.before.token)} (probability ${fmt(p.before.p)})`;
    if (!v.changed) out.push(`After ${last}, the last token, the model predicts ${before} next.`);
    else {
      const after = p.after.id === p.before.id ? `still ${quoted(p.after.token)}, with probability ${fmt(p.after.p)}` : `${quoted(p.after.token)} (probability ${fmt(p.after.p)}) instead`;
      out.push(`After ${last}, the last token, the model as trained predicts ${before} next; with the surgery, ${after}.`);
    }
  }
  if (v.second) {
    const d = v.second.after - v.second.before;
    out.push(v.changed
      ? `The two sentences' similarity (cosine of their embeddings) goes from ${fmt(v.second.before)} to ${fmt(v.second.after)} (${d >= 0 ? '+' : '−'}${fmt(Math.abs(d))}).`
      : `The two sentences' similarity (cosine of their embeddings) is ${fmt(v.second.before)}.`);
  }
  // The words the sentences above use, said where they are read.
  if (v.changed) {
    out.push('The surgery: the changes chosen here (one head re-scored, heads knocked out), made while the model runs; its trained weights stay as they are. '
      + 'Total variation (TV) of a row: half the sum of how much each of its weights changed, from 0 (the same row) to 1 (no weight in common). '
      + words.term);
  }
  // Why a bounded score (cosine) flattens the head it re-scores at the head's τ, and what τ allows.
  const range = v.swap && BOUNDED[v.swap];
  if (range) {
    const tau = v.tau ?? 1;
    const lo = String(range[0]).replace('-', '−'), span = range[1] - range[0];
    const shown = (r) => (r < 1e6 ? r.toFixed(2) : r.toExponential(2).replace('e+', ' × 10^'));
    if (decoder) {
      // A saved model's head keeps its own τ (fixed, or learnt): the same bound at that τ.
      const t = v.ownTau[idx(hl, hh)];
      out.push(`${v.swap[0].toUpperCase()}${v.swap.slice(1)}'s scores lie in [${lo}, ${range[1]}]; divided by this head's ${v.temperature === 'learned' ? 'learnt ' : ''}τ = ${Number(t.toPrecision(3))}, `
        + `they let one weight be up to e^${Number((span / t).toPrecision(3))} ≈ ${shown(Math.exp(span / t))} times another in its row.`);
    } else {
      const ratio = maxRatio(v.swap, tau);
      out.push(tau === 1
        ? `Why ${v.swap} flattens the head: its scores lie in [${lo}, ${range[1]}], and the model's heads use τ = 1, so no weight can be more than `
          + `e^${span} ≈ ${shown(ratio)} times another in its row; the trained scaled dot product is not bounded so. A smaller τ for this head (the menu beside its scoring function) lets it get sharp.`
        : `${v.swap[0].toUpperCase()}${v.swap.slice(1)}'s scores lie in [${lo}, ${range[1]}]; divided by τ = ${tau}, they let one weight be up to e^${Number((span / tau).toPrecision(3))} ≈ ${shown(ratio)} times another in its row `
          + `(at the model's τ = 1: e^${span} ≈ ${shown(maxRatio(v.swap, 1))}).`);
    }
  }
  return out;
}
