// The demo page: wires its controls, the URL and the notices to one state, and the figures' events back
// to it. Its figures, what each needs, how it is fed and when it is drawn are listed in the figures'
// registry (web/shared/figures/registry.js, shared with the <attn-scope> element); the computation runs in
// the page's worker (web/pages/demo/demo-worker.js, web/shared/compute/); each figure owns its size, its redraw scheduling and
// its export (figures/base.js). Scores, weights, outputs and vectors come from the attnscope module; the page
// derives only a few display values from them (the cosine panel's key norms, the medians of the timings).
import {
  defaultState, fromHash, toHash, roundT, PRESETS, SCORE_NAMES, HEAD_CHOICES, T_MIN, T_MAX, MAX_TOKENS, MAX_TEXT,
} from './state.js';
import { MODEL_NAME } from '../../shared/compute/use-lite.js';
import { ComputeClient } from '../../shared/compute-client.js';
import { LARGE_FROM, SMALL_TOKENS, LINES_TOP, LONG_MS, MAX_LINKS, EXTRAS_AFTER_MS } from '../../shared/scale.js';
import { FIGURES, makeFigure, stepsFor } from '../../shared/figures/registry.js';
import { STEPS } from '../../shared/compute/teaching.js';
import { applySelect } from '../../shared/selection.js';
import { fmt } from '../../shared/figures/base.js';
import { context } from '../../shared/compute/attention.js';
import { weightsCSV, weightsJSON, download } from '../../shared/downloads.js';
import { $, noticeBar, wireExports, hashWriter, copyLinkButton } from '../../shared/page.js';
import { tokenChips, clearChips, wireChipStrip } from './token-strip.js';
import { renderLatex, renderTeaching } from '../../shared/formulas.js';
import { keepForOffline } from '../../shared/offline.js';
import { naturalT, temperatureNote } from '../../shared/temperature.js';

const ui = {
  query: $('query'), keys: $('keys'), queryTokens: $('query-tokens'), keyTokens: $('key-tokens'),
  presets: $('preset-buttons'), score: $('score'), formula: $('score-formula'), explain: $('score-explain'),
  temperature: $('temperature'), temperatureOut: $('temperature-out'), temperatureNote: $('temperature-note'),
  temperatureOwn: $('temperature-own'), heads: $('heads'),
  projection: $('projection'), seed: $('seed'), mask: $('mask'), positional: $('positional'),
  variant: $('variant'), ranVariant: $('ran-variant'), timeWasm: $('time-wasm'), timeUpdate: $('time-update'),
  timePaint: $('time-paint'), computePool: $('compute-pool'),
  status: $('status'), loadText: $('load-text'), progress: $('load-progress'),
  copyLink: $('copy-link'), csv: $('export-csv'), json: $('export-json'), reset: $('reset'),
  oovHint: $('oov-hint'), empty: $('empty'), modelEmpty: $('model-empty'), modelViews: $('model-views'),
  modelLoading: $('model-loading'), modelLoadingText: $('model-loading-text'), modelLoadingBar: $('model-loading-bar'),
  engineScores: $('engine-scores'), engineModel: $('engine-model'), views: $('views'), moreViews: $('more-views'), moreSettings: $('more-settings'), buildInfo: $('build-info'), offline: $('offline-status'),
};

let client = null;                 // the compute worker's client (web/shared/compute-client.js)
let ready = false;
let vocabularyFailed = false;   // the 50,000 words could not be loaded: the first vocabulary stays
let scopeInfo = null;              // what the worker's module says about itself (score functions, variants, vocabulary)
let state = defaultState();
let scoreInfo = new Map();         // name → ScoreInfo, from the module
let last = null;                   // the last computation, for exports and re-renders
const updateTimes = [], mainTimes = [], paintTimes = [];
let lastError;             // the notice of the last failed computation, cleared by the next success

// ---------------------------------------------------------------------------------- notices ----
const notices = noticeBar();
const notice = (text) => notices.add(text);
const clearNotice = (text) => notices.remove(text);

// ---------------------------------------------------------------------------------- figures ----
// The registry's figures that have a slot on this page, each made in its slot; their events change the state.
const DEMO = Object.entries(FIGURES).filter(([, e]) => e.slot);
const host = { formula: (el, key) => renderTeaching(el, key), set: (patch) => setState(patch), tooltip: $('tooltip'), selectable: true };
const fig = Object.fromEntries(DEMO.map(([name, e]) => [name, makeFigure(name, $(e.slot), host)]));
// The computations the worker runs for them (web/shared/compute/teaching.js); those of figures that depend only
// on the kernels chosen (teaching panel 1) only when the kernels change.
const NEEDS = stepsFor(DEMO.map(([name]) => name));
// The trained model's figures (when: 'model'): drawn by renderModel only; the explorer's loops skip them.
const MODEL_FIGS = DEMO.filter(([, e]) => e.when === 'model');
const VARIANT_NEEDS = stepsFor(DEMO.filter(([, e]) => e.only === 'variant').map(([name]) => name));
/** Whether figure entry e counts the result r as a long document (see the registry's `long`). */
const isLong = (e, r) => (e.isLong ? e.isLong(r) : Math.max(r.nq, r.nk) >= LARGE_FROM);
// On a phone a long sentence's heatmap keeps legible labels and scrolls sideways (style.css).
fig.heatmap.sayWhenScrolling('Wider than the screen: scroll the heatmap sideways to see every key word.');
for (const [name, f] of Object.entries(fig)) f.measureName = name;
wireExports(Object.values(fig), { before: (f) => { flushJobs(); return !!f.exportNode(); }, failed: notice });
for (const hm of [fig.heatmap, fig.heatmapLarge]) {
  hm.addEventListener('select', (ev) => {
    const d = ev.detail;
    if (d.kind === 'col') selectTokens('cols', d.j, d);
    else if (d.kind === 'row' || d.shift || d.toggle) selectTokens('rows', d.i, d);   // a row label, or shift/ctrl-click: its row
    else {
      setState({ cell: [d.i, d.j], row: d.i });
      // "Why this weight?" is far below: once it shows this cell it is scrolled into view and takes
      // the focus; Escape there (or its "Back to the heatmap") returns to this cell.
      fig.why.revealWhenShowing([d.i, d.j], hm.detail ? hm.detail.node() : hm.svg.node());
    }
  });
}

// ------------------------------------------------------------------------------- selections ----
// state.rows (query rows) and state.cols (key columns); the anchor of a range lives here, beside them.
const selections = { rows: { list: [], anchor: null, base: [] }, cols: { list: [], anchor: null, base: [] } };
const sameList = (a, b) => a.length === b.length && a.every((v, k) => v === b[k]);
/**
 * One gesture on token `index` of `field` ('rows' or 'cols'): { shift, toggle, from? } as in a figure's
 * `select` event (from: where a keyboard range starts when nothing is anchored there yet).
 */
function selectTokens(field, index, { shift = false, toggle = false, from } = {}) {
  if (index === null || index === undefined) return;
  let sel = selections[field];
  if (!sameList(sel.list, state[field])) sel = { list: state[field], anchor: null, base: state[field] };
  if (shift && from !== undefined && (sel.anchor === null || !sel.list.includes(from))) {
    sel = { list: sel.list, anchor: from, base: sel.list };
  }
  sel = applySelect(sel, index, { shift, toggle });
  selections[field] = sel;
  setState({ [field]: sel.list });
}

// --------------------------------------------------------------------------------- controls ----
function option(select, value, text) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = text;
  select.appendChild(o);
}
for (const h of HEAD_CHOICES) option(ui.heads, h, String(h));
for (const name of SCORE_NAMES) option(ui.score, name, name);
for (const p of PRESETS) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'preset';
  b.textContent = p.label;
  b.addEventListener('click', () => setState({ q: p.q, k: p.k, cell: null, row: null, rows: [], cols: [] }));
  ui.presets.appendChild(b);
}

/** Puts the state into the controls (without firing their events). */
function syncControls() {
  if (ui.query.value !== state.q) ui.query.value = state.q;
  if (ui.keys.value !== state.k) ui.keys.value = state.k;
  ui.score.value = state.score;
  ui.temperature.value = String(Math.log10(state.t));
  const tOut = `= ${fmt(state.t)}`;
  if (ui.temperatureOut.textContent !== tOut) ui.temperatureOut.textContent = tOut;
  // A τ the visitor kept from another scoring function: say what it does to this one (web/shared/temperature.js).
  const note = state.tset ? temperatureNote(state.score, state.t, { heads: state.heads }) : '';
  if (ui.temperatureNote.textContent !== note) ui.temperatureNote.textContent = note;
  ui.temperatureOwn.hidden = !note;
  const own = `Use ${state.score}’s own τ = ${naturalT(state.score)}`;
  if (ui.temperatureOwn.textContent !== own) ui.temperatureOwn.textContent = own;
  ui.heads.value = String(state.heads);
  ui.projection.value = state.proj;
  if (Number(ui.seed.value) !== state.seed || ui.seed.value === '') ui.seed.value = String(state.seed);
  ui.seed.disabled = state.proj !== 'random' && !(scoreInfo.get(state.score) || {}).needsWeights;
  ui.mask.value = state.mask;
  ui.positional.checked = state.pos;
  ui.variant.value = state.variant;
  ui.engineScores.checked = state.engine !== 'model';
  ui.engineModel.checked = state.engine === 'model';
  document.body.classList.toggle('engine-model', state.engine === 'model');
  const info = scoreInfo.get(state.score);
  // Only when the scoring function changes: rewriting the formula's MathML on every keystroke made
  // the browser restyle and lay it out again each time.
  if (info && info !== shownInfo) {
    shownInfo = info;
    renderLatex(ui.formula, info.latex, info.formula);
    ui.explain.textContent = `${info.description} (${info.source})`;
  }
}
let shownInfo = null;   // the ScoreInfo whose formula and explanation the controls show

// New text, new tokens: a selection of the old ones would point at other words.
for (const radio of [ui.engineScores, ui.engineModel]) {
  radio.addEventListener('change', (ev) => { if (radio.checked) setState({ engine: radio.value }, ev); });
}
ui.query.addEventListener('input', (ev) => setState({ q: ui.query.value, cell: null, row: null, rows: [], cols: state.k.trim() ? state.cols : [] }, ev));
ui.keys.addEventListener('input', (ev) => setState({ k: ui.keys.value, cell: null, cols: [] }, ev));
// τ follows the scoring function until the visitor moves it; a τ they chose is kept.
ui.score.addEventListener('change', (ev) => setState({ score: ui.score.value, ...(state.tset ? {} : { t: naturalT(ui.score.value) }) }, ev));
ui.temperature.addEventListener('input', (ev) => {
  const t = roundT(Math.min(T_MAX, Math.max(T_MIN, 10 ** Number(ui.temperature.value))));
  setState({ t, tset: true }, ev);
});
ui.temperatureOwn.addEventListener('click', (ev) => setState({ t: naturalT(state.score), tset: false }, ev));
ui.heads.addEventListener('change', (ev) => {
  const heads = Number(ui.heads.value);
  setState({ heads, head: Math.min(state.head, heads - 1) }, ev);
});
ui.projection.addEventListener('change', (ev) => setState({ proj: ui.projection.value }, ev));
ui.seed.addEventListener('change', (ev) => {
  const s = Number(ui.seed.value);
  if (Number.isInteger(s) && s >= 0 && s <= 0xffffffff) { clearNotice(SEED_NOTICE); setState({ seed: s }, ev); }
  else { notice(SEED_NOTICE); ui.seed.value = String(state.seed); }
});
const SEED_NOTICE = 'The seed must be a whole number from 0 to 4294967295; it was left unchanged.';
ui.mask.addEventListener('change', (ev) => setState({ mask: ui.mask.value }, ev));
ui.positional.addEventListener('change', (ev) => setState({ pos: ui.positional.checked }, ev));
ui.variant.addEventListener('change', (ev) => setState({ variant: ui.variant.value }, ev));
ui.reset.addEventListener('click', () => { clearNotice(); setState(defaultState()); });
ui.csv.addEventListener('click', () => {
  if (last && last.main) download(new Blob([weightsCSV(last.main)], { type: 'text/csv' }), 'attnscope-weights.csv');
});
ui.json.addEventListener('click', () => {
  if (last && last.main) {
    download(new Blob([weightsJSON(last.main, publicSettings())], { type: 'application/json' }), 'attnscope-weights.json');
  }
});
copyLinkButton(ui.copyLink, () => writeURL(true), { ms: 1800 });

function publicSettings() {
  const { q, k, score, t, heads, proj, seed, pos, mask, variant } = state;
  return { query: q, keys: k, score, temperature: t, heads, projection: proj, seed, positional: pos, mask, variant };
}

// -------------------------------------------------------------------------------- the URL ----
// A write due from an earlier change never replaces a hash the page has not read yet (web/shared/page.js).
const url = hashWriter(() => toHash(state), { delay: 150 });
const writeURL = (now = false) => url.write(now);
function readURL() {
  const { state: s, problems } = fromHash(location.hash);
  // A link that changes a setting kept under "More" shows it.
  const d = defaultState();
  if (['proj', 'seed', 'pos', 'variant'].some((f) => s[f] !== d[f])) ui.moreSettings.open = true;
  if (problems.length) {
    notice(`Some settings in the link were not understood and were reset to their defaults: ${problems.join('; ')}.`);
  }
  return s;
}
window.addEventListener('hashchange', () => {
  if (location.hash === toHash(state)) return;
  state = readURL();
  syncControls();
  update('url');
});

// ---------------------------------------------------------------------------------- state ----
function setState(patch, ev) {
  state = { ...state, ...patch };
  syncControls();
  update('input', ev);
  writeURL();
}

// ---------------------------------------------------------------------------------- compute ----
let lastKey = null;        // the worker's key of the main result the page holds
let variantDrawn = null;   // the kernels the figures that depend only on them were last drawn with
/** The worker's answer as the computation the figures' feeds expect (see web/shared/compute/attention.js compute). */
function fromWorker(res) {
  if (res.empty) return { empty: true, q: res.q, k: res.k };
  const main = res.main || (last && last.key === res.key ? last.main : null);
  if (!main) throw new Error('the worker sent no result for this state');
  return { key: res.key, main, q: res.q, k: res.k, base: res.base, large: res.large, pool: res.pool, pre: null };
}
/** Adds the second answer (comparison, "Why", teaching panels) to a computation. */
function withExtras(c, res) {
  const all = res.all;
  c.all = { get: (n) => all[n] };
  // What the first answer left out: a long document's head pictures, the key vectors (cosine panel).
  if (res.headImages) c.main.headImages = res.headImages;
  if (res.keyVectors) c.main.k = res.keyVectors;
  c.pre = res;
  // At large n the comparison and teaching panels were computed on the first SMALL_TOKENS tokens.
  c.small = res.small ? { ...res.small, all: c.all } : c;
  return c;
}
const cutNotice = `Texts are cut at ${MAX_TOKENS.toLocaleString('en')} tokens.`;
const smallNotice = `This document is long: the comparison of scoring functions, the head summary and the teaching panels show its first ${SMALL_TOKENS} tokens.`;

// ---------------------------------------------------------------------------------- render ----
wireChipStrip(ui.queryTokens, { select: selectTokens, set: (field, list) => setState({ [field]: list }) });
wireChipStrip(ui.keyTokens, { select: selectTokens, set: (field, list) => setState({ [field]: list }) });

/** Runs fn and records its duration as the performance measure "attnscope:<name>". */
function timed(name, fn) {
  const t0 = performance.now();
  const out = fn();
  performance.measure(`attnscope:${name}`, { start: t0, end: performance.now() });
  return out;
}

/** Runs every figure's pending drawing job now (before an export). */
function flushJobs() {
  for (const f of Object.values(fig)) f.runJob();
}

let firstRender = true, firstExtras = true;
/** The query rows whose links the line view draws at large n: the selection, else the open cell's row. */
function focusRows(x) {
  if (Array.isArray(x.st.rows) && x.st.rows.length) return x.st.rows.filter((i) => i < x.nq);
  return [x.cell ? x.cell[0] : x.row];
}
function render(c) {
  const empty = !c || !!c.empty;
  ui.empty.hidden = !empty;
  ui.views.classList.toggle('is-empty', empty);
  ui.moreViews.classList.toggle('is-empty', empty);
  document.body.classList.toggle('no-result', empty);
  // Nothing computed, nothing to download: the buttons say so instead of saving an empty file.
  const why = 'Nothing to download yet: type a sentence first.';
  for (const f of Object.values(fig)) f.setExportEnabled(!empty, why);
  for (const b of [ui.csv, ui.json]) { b.disabled = empty; b.title = empty ? why : ''; }
  if (empty) {
    for (const [name, e] of DEMO) if (e.only !== 'variant' && e.when !== 'model') fig[name].cancel();
    clearChips(ui.queryTokens);
    clearChips(ui.keyTokens);
    ui.empty.textContent = state.q.trim() ? 'The key sentence has no tokens: type a word, or leave it empty for self-attention.' : 'Type a sentence above to see its attention weights.';
    return;
  }
  const now = firstRender;
  firstRender = false;
  const r = c.main;
  const opts = { scoreNames: SCORE_NAMES, scoreInfo, nearest: () => [], pre: c.pre };
  const x = context(null, c, { ...state }, opts);
  const large = Math.max(r.nq, r.nk) >= LARGE_FROM;
  if (c.q.total > MAX_TOKENS || (c.k && c.k.total > MAX_TOKENS)) notice(cutNotice); else clearNotice(cutNotice);
  // The page's selection (state.rows / state.cols, from the selection UI) highlighted in a long document's canvas now.
  if (large) fig.heatmapLarge.setSelection({ rows: x.rows, cols: x.cols });
  const manyLinks = r.heads * r.nq * r.nk > MAX_LINKS;
  fig.lines.setFocusRows(large || manyLinks ? focusRows(x) : null, LINES_TOP);

  // The figures of the first answer: 'first' ones now (the heatmap first, before the token strips
  // change the page: drawing it reads the theme and the canvas font, which would otherwise make the
  // browser restyle the changed strips mid-task), 'after-frame' ones in a task of their own after the
  // next frame, so that a change paints the heatmap first. A long document's figures marked
  // long: 'extras' wait for the second answer (c.late: renderExtras).
  c.late = new Set();
  for (const [name, e] of DEMO) {
    if (e.when !== 'first' && e.when !== 'after-frame') continue;
    const f = fig[name], long = isLong(e, r);
    if (e.long === 'hide' || e.short === 'hide') $(e.slot).hidden = e.long === 'hide' ? long : !long;
    if ((e.long === 'hide' && long) || (e.short === 'hide' && !long)) { f.cancel(); continue; }
    if (e.long === 'extras' && long) { c.late.add(name); continue; }
    if (e.when === 'first') f.schedule(() => e.feed(f, x), now); else f.scheduleAfterFrame(() => e.feed(f, x), now);
  }
  tokenChips(ui.queryTokens, r.queryTokenInfo, c.q.total, 'rows', x.rows);
  if (c.k) tokenChips(ui.keyTokens, r.keyTokenInfo, c.k.total, 'cols', x.cols); else clearChips(ui.keyTokens);
  // The "word?" legend, when a word is out of the vocabulary.
  ui.oovHint.hidden = !r.queryTokenInfo.some((t) => t.oov) && !(c.k && r.keyTokenInfo.some((t) => t.oov));
  // The vocabulary that drew them: the first one (10,000 words and the examples') until the 50,000 are in.
  if (!ui.oovHint.hidden && scopeInfo) {
    const size = scopeInfo.vocabulary.size;
    $('oov-vocab').textContent = `${size.toLocaleString('en')}-word`;
    $('oov-loading').textContent = size < 50000 && !vocabularyFailed ? ' loaded so far (the 50,000 words are on their way)' : '';
  }
  const ran = `ran: ${r.variant === 'simd' ? 'SIMD' : 'scalar'} kernels`;
  if (ui.ranVariant.textContent !== ran) ui.ranVariant.textContent = ran;
}

/**
 * The figures drawn from the second answer: the registry's 'extras' and 'idle' ones, and those a long
 * document left for it (c.late). A figure whose computations the worker did not run this time (panel
 * 1's, which depend only on the kernels) keeps its picture.
 */
function renderExtras(c) {
  const now = firstExtras;
  firstExtras = false;
  const opts = { scoreNames: SCORE_NAMES, scoreInfo, nearest: () => [], pre: c.pre };
  const x = context(null, c, { ...state }, opts);
  // At large n the comparison and teaching computations were made on the first SMALL_TOKENS tokens.
  const xs = c.large ? context(null, c.small, { ...state }, opts) : x;
  if (c.large) notice(smallNotice); else clearNotice(smallNotice);
  for (const [name, e] of DEMO) {
    if (e.when !== 'extras' && e.when !== 'idle' && !c.late.has(name)) continue;
    if ((e.needs || []).some((n) => n in STEPS && !(n in c.pre.teach))) continue;
    const f = fig[name], at = e.whole ? x : xs;
    f.schedule(() => e.feed(f, at), e.when === 'idle' ? false : now);
  }
  if (VARIANT_NEEDS.every((n) => n in c.pre.teach)) variantDrawn = x.st.variant;
}

// ---------------------------------------------------------------------------------- update ----
function median(a) {
  const s = [...a].sort((x, y) => x - y);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

// Progress and Cancel: shown once a computation has run for LONG_MS; Cancel stops it (the worker is
// terminated and respawned) and leaves the previous picture.
const progressUI = { box: $('compute-progress'), bar: $('compute-bar'), text: $('compute-text'), cancel: $('compute-cancel') };
let progressTimer = 0;
function showProgress(on) {
  clearTimeout(progressTimer);
  if (!on) { progressUI.box.hidden = true; return; }
  // Until the worker reports a step (it does not before the main attention call, one call that
  // cannot be split): what it is doing first.
  lastProgress = { fraction: 0, text: 'Computing the attention weights…' };
  progressTimer = setTimeout(() => {
    // Not while the model's first load is shown where the model will appear (it has its own bar and Cancel).
    if (client && client.busy && ui.modelLoading.hidden) { showProgressStep(); progressUI.box.hidden = false; }
  }, LONG_MS);
}
let lastProgress = null;   // the running computation's last step { fraction, text }
function showProgressStep() {
  if (!lastProgress) return;
  progressUI.bar.value = lastProgress.fraction;
  progressUI.text.textContent = lastProgress.text;
}
progressUI.cancel.addEventListener('click', () => {
  if (!client) return;
  client.cancel();
  showProgress(false);
  document.body.classList.remove('computing');
  notice(CANCEL_NOTICE);
});
const CANCEL_NOTICE = 'Computation cancelled: the plots show the previous text.';

/** Says how many workers computed a long document's attention (web/pages/demo/demo-worker.js: its pool), and how long it took. */
function showPool(c) {
  const p = c && !c.empty ? c.pool : null;
  ui.computePool.hidden = !p;
  ui.computePool.textContent = p ? `Computed on ${p.workers} workers in ${Math.round(p.ms).toLocaleString('en')} ms.` : '';
}

/**
 * Asks the worker for everything the plots need, then redraws them. Timing: from the input event (its
 * timeStamp) to the end of the DOM update is measured as "attnscope:update"; to the end of the next
 * frame as "attnscope:frame"; the worker's share as "attnscope:compute". A newer update supersedes
 * this one: its result is then dropped (compute-client.js).
 */
async function update(reason, ev) {
  if (!ready) return;
  if (state.engine === 'model') { await updateModel(reason, ev); return; }
  showCutNotice(0);
  if (readyText && ui.loadText.textContent !== readyText) ui.loadText.textContent = readyText;
  const start = ev && ev.timeStamp > 0 && ev.timeStamp <= performance.now() ? ev.timeStamp : performance.now();
  document.body.classList.add('computing');
  showProgress(true);
  clearNotice(CANCEL_NOTICE);
  const variant = state.variant;
  const t0 = performance.now();
  const st = { ...state };
  const answer = await client.request(st, { phase: 'main', limit: MAX_TOKENS, scoreNames: SCORE_NAMES, haveMain: lastKey });
  if (answer.stale || answer.cancelled) {   // a newer request (or Cancel) owns the page now
    performance.mark(answer.stale ? 'attnscope:superseded' : 'attnscope:cancelled');
    return;
  }
  performance.measure('attnscope:compute', { start: t0, end: performance.now(), detail: answer.result && answer.result.laps });
  let c;
  try {
    if (answer.error) throw answer.error;
    c = fromWorker(answer.result);
    if (lastError) { clearNotice(lastError); lastError = undefined; }
  } catch (e) {
    lastError = `The module could not compute this: ${e.message}`;
    notice(lastError);
    c = null;
  }
  if (c && !c.empty) { last = c; lastKey = c.key; } else { last = null; lastKey = null; }
  render(c);
  showPool(c);
  const end = performance.now();
  performance.measure('attnscope:update', { start, end, detail: { reason } });
  if (c && !c.empty) {
    updateTimes.push(end - start);
    if (updateTimes.length > 20) updateTimes.shift();
    mainTimes.push(c.main.timeMs);
    if (mainTimes.length > 20) mainTimes.shift();
    ui.timeWasm.textContent = `${fmt(median(mainTimes), 2)} ms`;
    ui.timeUpdate.textContent = `${fmt(median(updateTimes), 2)} ms`;
  }
  // After the next paint: "attnscope:frame" spans input → painted (including the wait for the
  // display's next frame), "attnscope:paint" only the browser's style, layout and paint work.
  requestAnimationFrame(() => {
    const frameStart = performance.now();
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      const t = performance.now();
      performance.measure('attnscope:frame', { start, end: t, detail: { reason } });
      performance.measure('attnscope:paint', { start: frameStart, end: t, detail: { reason } });
      if (c && !c.empty) {
        paintTimes.push(t - frameStart);
        if (paintTimes.length > 20) paintTimes.shift();
        ui.timePaint.textContent = `${fmt(median(paintTimes), 2)} ms`;
      }
      document.dispatchEvent(new CustomEvent('attnscope:drawn', { detail: { reason } }));
    };
    ch.port2.postMessage(0);
  });
  if (performance.getEntriesByType('measure').length > 400) performance.clearMeasures();
  // Second answer: the figures below the heatmap (a newer change supersedes it like the first),
  // asked for once no newer change has come for EXTRAS_AFTER_MS (that change's update owns the page).
  if (c && !c.empty) {
    await new Promise((resolve) => setTimeout(resolve, EXTRAS_AFTER_MS));
    if (client.gen !== answer.gen) return;
    const more = await client.request(st, {
      phase: 'extras', limit: MAX_TOKENS, scoreNames: SCORE_NAMES, haveMain: c.key,
      needs: variant !== variantDrawn ? NEEDS : NEEDS.filter((n) => !VARIANT_NEEDS.includes(n)),
    });
    if (more.stale || more.cancelled) return;
    if (more.error) notice(`The module could not compute this: ${more.error.message}`);
    else if (more.result.key === c.key) renderExtras(withExtras(c, more.result));
  }
  showProgress(false);
  document.body.classList.remove('computing');
  document.dispatchEvent(new CustomEvent('attnscope:settled'));
}

// ----------------------------------------------------------------------- the trained model ----
// The "trained model" choice: the worker loads the model's file on the first request (web/pages/demo/demo-worker.js
// model) and computes every view (web/shared/compute/use-lite.js modelViews); the registry's 'model' figures
// draw it. The state's q is the sentence, k the optional second one.
// The model's notice that it cut the text, its limit taken from the model (the view's maxTokens).
let modelCut = null;
function showCutNotice(maxTokens) {
  if (modelCut) clearNotice(modelCut);
  modelCut = maxTokens ? `The trained model reads at most ${maxTokens} tokens: the text was cut after token ${maxTokens} (the plots show the first ${maxTokens}).` : null;
  if (modelCut) notice(modelCut);
}
let lastModel = null;   // the last views drawn (for re-renders)
let readyText = '';     // the status line of the explorer (the model's replaces it while chosen)
async function updateModel(reason, ev) {
  const start = ev && ev.timeStamp > 0 && ev.timeStamp <= performance.now() ? ev.timeStamp : performance.now();
  document.body.classList.add('computing');
  showProgress(true);
  clearNotice(CANCEL_NOTICE);
  clearNotice(cutNotice);
  clearNotice(smallNotice);
  const st = { ...state };
  // The first time: the model's file (14 MB) loads where the model will appear, and the header says
  // so (not "Ready" over a blank page with a bar under "Share").
  if (!modelShown) showModelLoading({ fraction: 0, text: 'Loading the trained model…' });
  const answer = await client.request(st, { method: 'model' });
  if (answer.cancelled) hideModelLoading();
  if (answer.stale || answer.cancelled) return;
  hideModelLoading();
  showProgress(false);
  document.body.classList.remove('computing');
  if (answer.error) {
    lastError = `The trained model could not compute this: ${answer.error.message}`;
    notice(lastError);
    document.dispatchEvent(new CustomEvent('attnscope:settled'));
    return;
  }
  if (lastError) { clearNotice(lastError); lastError = undefined; }
  const v = answer.result;
  renderModel(v);
  performance.measure('attnscope:model-update', { start, end: performance.now(), detail: { reason, timings: v.timings } });
  requestAnimationFrame(() => setTimeout(() => {
    performance.measure('attnscope:model-frame', { start, end: performance.now(), detail: { reason } });
    document.dispatchEvent(new CustomEvent('attnscope:drawn', { detail: { reason } }));
    document.dispatchEvent(new CustomEvent('attnscope:settled'));
  }, 0));
}
let modelShown = false;   // whether the model's views have been drawn once (its file is loaded)
function showModelLoading({ fraction, text }) {
  if (ui.modelLoading.hidden) {
    ui.modelLoading.hidden = false;
    for (const [, e] of MODEL_FIGS) $(e.slot).hidden = true;
    ui.modelLoadingBar.removeAttribute('value');
  }
  if (fraction > 0) ui.modelLoadingBar.value = fraction;
  const t = /^Loading the trained model/.test(text) ? text : 'Loading the trained model…';
  ui.modelLoadingText.textContent = t;
  ui.loadText.textContent = t;
}
$('model-loading-cancel').addEventListener('click', () => progressUI.cancel.click());
function hideModelLoading() {
  if (ui.modelLoading.hidden) return;
  ui.modelLoading.hidden = true;
  for (const [, e] of MODEL_FIGS) $(e.slot).hidden = false;
}
function renderModel(v) {
  modelShown = true;
  const empty = !!v.empty;
  ui.modelEmpty.hidden = !empty;
  for (const [name, e] of MODEL_FIGS) { $(e.slot).hidden = empty; fig[name].setExportEnabled(!empty, 'Nothing to download yet: type a sentence first.'); }
  if (empty) {
    clearChips(ui.queryTokens);
    clearChips(ui.keyTokens);
    showCutNotice(0);
    lastModel = null;
    return;
  }
  lastModel = v;
  showCutNotice(v.truncated || (v.second && v.second.truncated) ? v.maxTokens : 0);
  const x = { v, st: { ...state }, scoreFunctions: scopeInfo.scoreFunctions };
  for (const [name, e] of MODEL_FIGS) fig[name].schedule(() => e.feed(fig[name], x), true);
  tokenChips(ui.queryTokens, v.tokens.map((text) => ({ text, kind: 'word' })), v.n, 'rows', []);
  if (v.second) tokenChips(ui.keyTokens, v.second.tokens.map((text) => ({ text, kind: 'word' })), v.second.n, 'cols', []);
  else clearChips(ui.keyTokens);
  ui.loadText.textContent = `Ready: ${MODEL_NAME} (${v.layers} layers × ${v.heads} heads) run by the ${scopeInfo.variants.isa} kernels; last sentence in ${fmt(v.timings.totalMs, 2)} ms.`;
}

// ------------------------------------------------------------------------- .txt files ----
// A .txt file dropped on the page (on the key box: as the keys) or picked with the file input
// becomes the query's text. Its content is only ever put into a textarea's value (text, never HTML).
const FILE_NOTICE = (name, why) => `The file “${name.length > 40 ? `${name.slice(0, 40)}…` : name}” was not loaded: ${why}.`;
async function loadFile(file, field) {
  const name = file.name || 'file';
  if (!/\.txt$/i.test(name) && file.type && file.type !== 'text/plain') {
    notice(FILE_NOTICE(name, 'only plain-text .txt files can be loaded'));
    return;
  }
  // A text of MAX_TEXT characters takes at most 4 bytes each in UTF-8.
  if (file.size > MAX_TEXT * 4) {
    notice(FILE_NOTICE(name, `it is ${(file.size / 1e6).toFixed(1)} MB; the page takes up to ${MAX_TEXT.toLocaleString('en')} characters (about ${MAX_TOKENS.toLocaleString('en')} tokens) per text`));
    return;
  }
  let text = await file.text();
  if (text.length > MAX_TEXT) {
    notice(FILE_NOTICE(name, `it has ${text.length.toLocaleString('en')} characters; the page takes up to ${MAX_TEXT.toLocaleString('en')} (about ${MAX_TOKENS.toLocaleString('en')} tokens) per text`));
    return;
  }
  text = text.replace(/\r\n?/g, '\n');
  if (field === 'k') setState({ k: text, cell: null });
  else setState({ q: text, cell: null, row: null });
}
$('file-query').addEventListener('change', (ev) => {
  const f = ev.target.files && ev.target.files[0];
  if (f) loadFile(f, 'q');
  ev.target.value = '';
});
document.addEventListener('dragover', (ev) => {
  if (![...(ev.dataTransfer?.types || [])].includes('Files')) return;
  ev.preventDefault();
  ev.dataTransfer.dropEffect = 'copy';
  ui.keys.classList.toggle('drop-target', ev.target === ui.keys);
  ui.query.classList.toggle('drop-target', ev.target !== ui.keys);
});
const clearDrop = () => { ui.keys.classList.remove('drop-target'); ui.query.classList.remove('drop-target'); };
document.addEventListener('dragleave', (ev) => { if (!ev.relatedTarget) clearDrop(); });
document.addEventListener('drop', (ev) => {
  const f = ev.dataTransfer && ev.dataTransfer.files && ev.dataTransfer.files[0];
  clearDrop();
  if (!f) return;
  ev.preventDefault();
  loadFile(f, ev.target === ui.keys ? 'k' : 'q');
});

// ---------------------------------------------------------------------------------- start ----
async function start() {
  state = readURL();
  syncControls();
  ui.query.maxLength = MAX_TEXT;
  ui.keys.maxLength = MAX_TEXT;
  ui.progress.removeAttribute('value');
  const t0 = performance.now();
  // The worker draws the first plots with the first vocabulary (the 10,000 most frequent words and the
  // examples') and loads the 50,000 words behind
  // them (demo-worker.js init); `full` settles when they are in (or could not be loaded: null).
  let fullLoaded = null;
  let shownTenth = -1;
  const full = new Promise((resolve) => { fullLoaded = resolve; });
  try {
    client = new ComputeClient(new URL('demo-worker.js', import.meta.url), {
      onLoadProgress: (loaded, total) => {
        if (ready) return;
        if (total > 0) { ui.progress.max = total; ui.progress.value = loaded; }
        ui.loadText.textContent = `Loading the vocabulary… ${(loaded / 1e6).toFixed(1)}${total > 0 ? ` of ${(total / 1e6).toFixed(1)}` : ''} MB`;
      },
      onVocabulary: (loaded, total, info, error) => {
        if (error) {
          vocabularyFailed = true;
          fullLoaded(null);
          notice(`The 50,000-word vocabulary could not be loaded (${error}); the plots use the first one, the ${scopeInfo ? scopeInfo.vocabulary.size.toLocaleString('en') : '10,000'} most frequent words and the examples'.`);
        } else if (info) {
          fullLoaded(info);
          // A worker started again (after a cancelled computation) loads it again: the plots follow.
          if (document.body.classList.contains('ready')) { scopeInfo.vocabulary = info; readyText = readyLine(); update('vocabulary'); }
        } else if (ready && !document.body.classList.contains('ready') && total > 0) {
          // Said in tenths, not at every chunk: the status line is read out to screen readers.
          const tenth = Math.floor((10 * loaded) / total);
          if (tenth === shownTenth) return;
          shownTenth = tenth;
          readyText = readyLine(`the full 50,000 words are loading: ${(loaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`);
          if (state.engine !== 'model') ui.loadText.textContent = readyText;
        }
      },
    });
    client.addEventListener('progress', (ev) => {
      // A computation reports about ten steps; the bar is only written while it shows (from LONG_MS),
      // so a quick change does not restyle a hidden bar ten times.
      lastProgress = ev.detail;
      if (!progressUI.box.hidden) showProgressStep();
      if (!ui.modelLoading.hidden) showModelLoading(ev.detail);
    });
    scopeInfo = await client.ready;
  } catch (e) {
    ui.loadText.textContent = `The attention module could not be loaded: ${e.message}`;
    ui.progress.hidden = true;
    ui.status.classList.add('failed');
    return;
  }
  const loadMs = performance.now() - t0;
  for (const info of scopeInfo.scoreFunctions) scoreInfo.set(info.name, info);
  ui.score.textContent = '';
  for (const name of SCORE_NAMES) {
    const info = scoreInfo.get(name);
    option(ui.score, name, info ? `${name}   ${info.formula}` : name);
  }
  for (const o of ui.variant.options) o.disabled = !scopeInfo.variants.available.includes(o.value);
  if (!scopeInfo.variants.available.includes(state.variant)) {
    notice(`The ${state.variant} kernels are not available in this browser; using auto.`);
    state.variant = 'auto';
  }
  ui.progress.hidden = true;
  const readyLine = (loading) => {
    const v = scopeInfo.vocabulary;
    return `Ready: ${v.size.toLocaleString('en')} words × ${v.dim} dimensions${loading ? ` (${loading})` : ''}; kernels: ${scopeInfo.variants.isa}; loaded in ${Math.round(loadMs)} ms.`;
  };
  readyText = readyLine('the full 50,000 words are loading');
  ui.loadText.textContent = readyText;
  ready = true;
  syncControls();
  await update('load');
  const first = performance.now();
  performance.measure('attnscope:first-render', { start: 0, end: first });
  ui.buildInfo.textContent = `First render ${Math.round(first)} ms after navigation (module and first vocabulary ${Math.round(loadMs)} ms, in a worker).`;
  const info = await full;
  if (info) {
    scopeInfo.vocabulary = info;
    readyText = readyLine();
    await update('vocabulary');
    const at = performance.now();
    performance.measure('attnscope:full-vocabulary', { start: 0, end: at });
    ui.buildInfo.textContent += ` The 50,000 words in use ${Math.round(at)} ms after navigation.`;
  } else {
    readyText = readyLine();
    if (state.engine !== 'model') ui.loadText.textContent = readyText;
  }
  document.body.classList.add('ready');
  writeURL(true);
  // Only now, so that saving the files for offline use does not compete with the first load.
  keepForOffline(ui.offline);
}

start();
