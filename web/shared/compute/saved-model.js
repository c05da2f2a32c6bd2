// A transformer saved by model.save() (a decoder trained in transformer.html, or made in code), shown by
// <attn-scope model="transformer">: its text read into ids with the tokens saved beside its weights,
// every head's attention as it was trained and with a surgery (one head re-scored, heads knocked out),
// how far that moves its prediction of the next token, and the stack's rollout and attention flow.
// The same answer as USE-Lite's modelViews (web/shared/compute/use-lite.js), so the same figures draw
// it; what differs is said by `kind: 'decoder'`, `own` (each head's own scoring function), `ownTau`
// and `prediction`. DOM-free. Every number the figures show or explain comes from here.
import { parseHead } from '../head-label.js';
import { rowTV, stackPaths, surgeryOptions } from './use-lite.js';

/** A token as the figures draw it: whitespace made visible (a space ␣, a newline ↵, a tab ⇥). */
export const shownToken = (t) => t.replace(/ /g, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥');

const clipped = (s) => (s.length > 24 ? `${s.slice(0, 24)}…` : s);

// Each token list's index (text → its first id) and longest token, made once: model.tokens is one
// frozen array for the model's life, and the text is read again at every keystroke.
const indexes = new WeakMap();
function tokenIndex(tokens) {
  if (!indexes.has(tokens)) {
    const index = new Map();
    let longest = 0;
    tokens.forEach((t, id) => { if (!index.has(t)) index.set(t, id); longest = Math.max(longest, t.length); });
    indexes.set(tokens, { index, longest });
  }
  return indexes.get(tokens);
}

/**
 * Text as a model's ids. With `tokens` (the text of each id, model.tokens): the longest token that
 * starts at each place, left to right; whitespace that no token covers separates tokens. Without:
 * the ids themselves, written as whole numbers separated by spaces or commas. At most `maxTokens` ids
 * (the rest cut: truncated). Returns { ids, tokens (as drawn), truncated }, or { expected, error }: what
 * the text may be and what in it could not be read (the text is never run when any of it could not be).
 */
export function readText(text, { tokens, vocab, maxTokens }) {
  const ids = [];
  let truncated = false;
  if (!tokens) {
    const parts = String(text).trim().split(/[\s,]+/).filter(Boolean);
    const bad = parts.find((p) => !/^\d{1,9}$/.test(p) || Number(p) >= vocab);
    if (bad !== undefined) return { expected: `token ids, whole numbers from 0 to ${vocab - 1} separated by spaces (this model's file names no tokens)`, error: `“${clipped(bad)}” is not one` };
    for (const p of parts) {
      if (ids.length === maxTokens) { truncated = true; break; }
      ids.push(Number(p));
    }
    return { ids: Int32Array.from(ids), tokens: ids.map(String), truncated };
  }
  const { index, longest } = tokenIndex(tokens);
  const unknown = new Set();
  const s = String(text);
  for (let i = 0; i < s.length;) {
    let id = -1, len = 0;
    for (let k = Math.min(longest, s.length - i); k > 0; k--) {
      const hit = index.get(s.slice(i, i + k));
      if (hit !== undefined) { id = hit; len = k; break; }
    }
    if (id >= 0) {
      if (ids.length === maxTokens) { truncated = true; break; }
      ids.push(id);
      i += len;
      continue;
    }
    const c = String.fromCodePoint(s.codePointAt(i));
    if (!/\s/.test(c)) unknown.add(c);
    i += c.length;
  }
  if (unknown.size) {
    const list = [...unknown].slice(0, 8).map((c) => `“${c}”`).join(', ');
    return {
      expected: `text made of the model's tokens (${tokens.length <= 80 ? tokens.map((t) => `“${shownToken(t)}”`).join(' ') : `${tokens.length} of them, saved with it`})`,
      error: `${list}${unknown.size > 8 ? ` and ${unknown.size - 8} more` : ''} ${unknown.size === 1 ? 'is' : 'are'} not among them`,
    };
  }
  return { ids: Int32Array.from(ids), tokens: ids.map((id) => shownToken(tokens[id])), truncated };
}

/** The softmax of a row of logits (float64) and its argmax. */
function prediction(logits, vocab, row) {
  const p = new Float64Array(vocab);
  let max = -Infinity, best = 0;
  for (let v = 0; v < vocab; v++) {
    const x = logits[row * vocab + v];
    if (x > max) { max = x; best = v; }
  }
  let sum = 0;
  for (let v = 0; v < vocab; v++) { p[v] = Math.exp(logits[row * vocab + v] - max); sum += p[v]; }
  for (let v = 0; v < vocab; v++) p[v] /= sum;
  return { p, best };
}

// Each model's heads' own τ (read once: model.parameters() copies every weight).
const ownTaus = new WeakMap();
function headTaus(model) {
  if (!ownTaus.has(model)) {
    const out = [];
    if (model.temperature === 'learned') {
      const params = model.parameters();
      for (let l = 0; l < model.layers; l++) for (const x of params[`transformer.h.${l}.attn.log_tau`]) out.push(Math.exp(x));
    } else {
      for (let k = 0; k < model.layers * model.heads; k++) out.push(model.temperature);
    }
    ownTaus.set(model, out);
  }
  return ownTaus.get(model);
}

/**
 * Everything the model figures draw for a decoder and one state st: { text, head ('L.H'), swap ('' or
 * a name: the head's own changes nothing), knock (labels), residual (rollout's, default 0.5) }. Returns
 * modelViews' fields (web/shared/compute/use-lite.js: name, layers, heads, headDims, n, tokens,
 * truncated, head, swap, tau 1, knock, changed, original, surgery, tv, second null, residual, rollout,
 * flow, timings) and kind 'decoder', own (each head's scoring function), ownTau (each head's τ),
 * temperature (the model's: a number or 'learned'), ids, and prediction: the next token after the last,
 * { before: { id, token, p }, after: { id, token, p }, tv } (tv: the total variation between the two
 * distributions). Throws a RangeError naming the text when it cannot be read.
 */
export function decoderViews(scope, model, st) {
  const t0 = performance.now();
  if (model.kind !== 'decoder') throw new RangeError(`model: an ${model.kind} is not shown here yet (only decoders are); transformer.html shows it`);
  const layers = model.layers, heads = model.heads;
  const labels = Array.from({ length: layers * heads }, (_, k) => `${Math.floor(k / heads)}.${k % heads}`);
  const own = labels.map((l) => model.scores[l]);
  const head = parseHead(st.head, layers, heads) ? st.head : '0.0';
  const knock = (st.knock || []).filter((k) => parseHead(k, layers, heads));
  const swap = st.swap || '';
  const [hl, hh] = parseHead(head);
  const read = readText(st.text, { tokens: model.tokens, vocab: model.vocab, maxTokens: model.maxTokens });
  if (read.error) throw new RangeError(`text: expected ${read.expected}; ${read.error}`);
  if (read.ids.length === 0) throw new RangeError('text: expected at least one of the model\'s tokens; there is none in it');
  const surgery = surgeryOptions({ head, swap, knock, own: own[hl * heads + hh] });
  const changed = Object.keys(surgery).length > 0;
  const base = model.encodeIds(read.ids);
  const t1 = performance.now();
  const cut = changed ? model.encodeIds(read.ids, surgery) : base;
  const t2 = performance.now();
  const n = base.n, vocab = model.vocab;
  const tv = changed ? rowTV(base.attentions, cut.attentions, layers, heads, n) : new Float64Array(layers * heads);
  const a = prediction(base.logits, vocab, n - 1), b = changed ? prediction(cut.logits, vocab, n - 1) : a;
  let ptv = 0;
  for (let v = 0; v < vocab; v++) ptv += Math.abs(a.p[v] - b.p[v]);
  const name = (id) => (model.tokens ? shownToken(model.tokens[id]) : String(id));
  const residual = st.residual === undefined ? 0.5 : st.residual;
  const { rollout, flow, flowMs } = stackPaths(scope, base.attentions, changed ? cut.attentions : null, { layers, heads, n, residual });
  return {
    kind: 'decoder', name: st.name || 'transformer', layers, heads, headDims: Array(layers).fill(model.dModel / heads), n,
    ids: read.ids, tokens: read.tokens, spans: null, truncated: read.truncated, maxTokens: model.maxTokens,
    head, swap, tau: 1, knock, changed, own, ownTau: headTaus(model), temperature: model.temperature,
    original: base.attentions, surgery: cut.attentions, tv, second: null, residual, rollout, flow,
    prediction: {
      before: { id: a.best, token: name(a.best), p: a.p[a.best] },
      after: { id: b.best, token: name(b.best), p: b.p[b.best] },
      tv: ptv / 2,
    },
    timings: { encodeMs: t1 - t0, surgeryMs: t2 - t1, flowMs, totalMs: performance.now() - t0 },
  };
}
