// The demo page: reads the controls and the URL into one state, asks the wasm module for the numbers,
// and hands them to the figures, which are linked through their events (pick a head, a score, a cell).
// Scores, weights, outputs and vectors come from the attnscope module. This file derives only a few
// display values from them (the key norms of the cosine panel, the medians of the timings shown),
// and wires the controls, the URL, the notices and the lazy drawing of figures out of view.
import { createAttnScope } from 'attnscope';
import {
  defaultState, fromHash, toHash, roundT, PRESETS, SCORE_NAMES, HEAD_CHOICES, T_MIN, T_MAX, MAX_TOKENS,
} from './state.js';
import { Heatmap } from './figures/Heatmap.js';
import { LineView } from './figures/LineView.js';
import { HeadGrid } from './figures/HeadGrid.js';
import { ScoreComparison } from './figures/ScoreComparison.js';
import { WhyPanel } from './figures/WhyPanel.js';
import { ScalingPanel, scalingExperiment } from './figures/ScalingPanel.js';
import { CosineDotPanel } from './figures/CosineDotPanel.js';
import { DistancePanel } from './figures/DistancePanel.js';
import { HullPanel } from './figures/HullPanel.js';
import { fmt } from './figures/base.js';
import { exportSVG, exportPNG, weightsCSV, weightsJSON, download } from './export.js';
import { renderLatex, renderTeaching } from './formulas.js';
import { keepForOffline } from './offline.js';

const $ = (id) => document.getElementById(id);
const ui = {
  query: $('query'), keys: $('keys'), queryTokens: $('query-tokens'), keyTokens: $('key-tokens'),
  presets: $('preset-buttons'), score: $('score'), formula: $('score-formula'), explain: $('score-explain'),
  temperature: $('temperature'), temperatureOut: $('temperature-out'), heads: $('heads'),
  projection: $('projection'), seed: $('seed'), mask: $('mask'), positional: $('positional'),
  variant: $('variant'), ranVariant: $('ran-variant'), timeWasm: $('time-wasm'), timeUpdate: $('time-update'),
  timePaint: $('time-paint'),
  status: $('status'), loadText: $('load-text'), progress: $('load-progress'),
  notice: $('notice'), noticeText: $('notice-text'), noticeClose: $('notice-close'),
  copyLink: $('copy-link'), csv: $('export-csv'), json: $('export-json'), reset: $('reset'),
  empty: $('empty'), views: $('views'), buildInfo: $('build-info'), offline: $('offline-status'),
};

let scope = null;
let state = defaultState();
let scoreInfo = new Map();         // name → ScoreInfo, from the module
let last = null;                   // the last computation, for exports and re-renders
const nearestCache = new Map();
const updateTimes = [], mainTimes = [], paintTimes = [];
let lastError;             // the notice of the last failed computation, cleared by the next success

// ---------------------------------------------------------------------------------- notices ----
const notices = new Set();
function notice(text) {
  notices.add(text);
  ui.noticeText.textContent = [...notices].join(' ');
  ui.notice.hidden = false;
}
function clearNotice(text) {
  if (text === undefined) notices.clear(); else notices.delete(text);
  ui.noticeText.textContent = [...notices].join(' ');
  ui.notice.hidden = notices.size === 0;
}
ui.noticeClose.addEventListener('click', () => clearNotice());

// ---------------------------------------------------------------------------------- figures ----
const formula = (el, key) => renderTeaching(el, key);
const fig = {
  heatmap: new Heatmap($('fig-heatmap')),
  why: new WhyPanel($('fig-why')),
  lines: new LineView($('fig-lines')),
  heads: new HeadGrid($('fig-heads')),
  compare: new ScoreComparison($('fig-compare')),
  scaling: new ScalingPanel($('teach-scaling'), { formula }),
  cosine: new CosineDotPanel($('teach-cosine'), { formula, onRow: (i) => setState({ row: i }) }),
  distance: new DistancePanel($('teach-distance'), {
    formula,
    onRow: (i) => setState({ row: i }),
    onP: (p) => setState({ p }),
  }),
  hull: new HullPanel($('teach-hull'), { formula, onToggle: (on) => setState({ exp: on }) }),
};
for (const f of Object.values(fig)) {
  f.addEventListener('export', async (ev) => {
    flushJobs();
    const node = f.exportNode();
    if (!node) return;
    try {
      if (ev.detail.format === 'svg') exportSVG(node, f.fileStem());
      else await exportPNG(node, f.fileStem());
    } catch (e) {
      notice(`The download failed: ${e.message}.`);
    }
  });
}
fig.heatmap.addEventListener('select', (ev) => {
  setState({ cell: [ev.detail.i, ev.detail.j], row: ev.detail.i });
});
fig.why.addEventListener('close', () => setState({ cell: null }));
fig.heatmap.addEventListener('values', (ev) => setState({ values: ev.detail.kind }));
fig.heads.addEventListener('pick', (ev) => setState({ head: ev.detail.key }));
fig.compare.addEventListener('pick', (ev) => setState({ score: ev.detail.key }));

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
  b.addEventListener('click', () => setState({ q: p.q, k: p.k, cell: null, row: null }));
  ui.presets.appendChild(b);
}

/** Puts the state into the controls (without firing their events). */
function syncControls() {
  if (ui.query.value !== state.q) ui.query.value = state.q;
  if (ui.keys.value !== state.k) ui.keys.value = state.k;
  ui.score.value = state.score;
  ui.temperature.value = String(Math.log10(state.t));
  ui.temperatureOut.textContent = `= ${fmt(state.t)}`;
  ui.heads.value = String(state.heads);
  ui.projection.value = state.proj;
  if (Number(ui.seed.value) !== state.seed || ui.seed.value === '') ui.seed.value = String(state.seed);
  ui.seed.disabled = state.proj !== 'random' && !(scoreInfo.get(state.score) || {}).needsWeights;
  ui.mask.value = state.mask;
  ui.positional.checked = state.pos;
  ui.variant.value = state.variant;
  const info = scoreInfo.get(state.score);
  if (info) {
    renderLatex(ui.formula, info.latex, info.formula);
    ui.explain.textContent = `${info.description} (${info.source})`;
  }
}

ui.query.addEventListener('input', (ev) => setState({ q: ui.query.value, cell: null, row: null }, ev));
ui.keys.addEventListener('input', (ev) => setState({ k: ui.keys.value, cell: null }, ev));
ui.score.addEventListener('change', (ev) => setState({ score: ui.score.value }, ev));
ui.temperature.addEventListener('input', (ev) => {
  const t = roundT(Math.min(T_MAX, Math.max(T_MIN, 10 ** Number(ui.temperature.value))));
  setState({ t }, ev);
});
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
ui.copyLink.addEventListener('click', async () => {
  writeURL(true);
  try {
    await navigator.clipboard.writeText(location.href);
    ui.copyLink.textContent = 'Link copied';
  } catch {
    ui.copyLink.textContent = 'Copy the address bar';
  }
  setTimeout(() => { ui.copyLink.textContent = 'Copy link to this view'; }, 1800);
});

function publicSettings() {
  const { q, k, score, t, heads, proj, seed, pos, mask, variant } = state;
  return { query: q, keys: k, score, temperature: t, heads, projection: proj, seed, positional: pos, mask, variant };
}

// -------------------------------------------------------------------------------- the URL ----
let urlTimer = 0;
function writeURL(now = false) {
  clearTimeout(urlTimer);
  const go = () => {
    const h = toHash(state);
    if (location.hash !== h) history.replaceState(null, '', h);
  };
  if (now) go(); else urlTimer = setTimeout(go, 150);
}
function readURL() {
  const { state: s, problems } = fromHash(location.hash);
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
/** Cuts a text to MAX_TOKENS tokens; returns { text, total } where total is the uncut count. */
function clip(text) {
  let toks;
  try { toks = scope.tokenize(text, { maxTokens: 65536 }); } catch { return { text, total: -1 }; }
  if (toks.length > MAX_TOKENS) return { text: text.slice(0, toks[MAX_TOKENS - 1].end), total: toks.length };
  return { text, total: toks.length };
}

function compute() {
  const q = clip(state.q);
  const k = state.k.trim() ? clip(state.k) : null;
  const cutNotice = `Sentences are cut at ${MAX_TOKENS} tokens to keep the plots readable.`;
  if (q.total > MAX_TOKENS || (k && k.total > MAX_TOKENS)) notice(cutNotice); else clearNotice(cutNotice);
  if (q.total === 0 || (k && k.total === 0)) return { empty: true, q, k };
  const base = {
    query: q.text, temperature: state.t, heads: state.heads, projection: state.proj, seed: state.seed,
    positional: state.pos, mask: state.mask, variant: state.variant, maxTokens: MAX_TOKENS,
  };
  if (k) base.keys = k.text;
  const main = scope.attend({ ...base, score: state.score });
  // The other scoring functions are computed when a figure asks for them (the comparison grid, the
  // "Why" table, panel 2), so a keystroke with those out of view costs one attention call, not nine.
  const cache = new Map([[state.score, main]]);
  const all = {
    get(name) {
      if (!cache.has(name)) cache.set(name, scope.attend({ ...base, score: name }));
      return cache.get(name);
    },
  };
  return { main, all, base, q, k };
}

// ---------------------------------------------------------------------------------- render ----
function tokenChips(el, infos, total) {
  el.textContent = '';
  for (const t of infos) {
    const s = document.createElement('span');
    s.className = t.oov ? 'chip oov' : `chip ${t.kind}`;
    s.textContent = t.text;
    if (t.oov) {
      s.title = 'Not in the vocabulary: this word gets a fixed pseudo-random vector';
      const m = document.createElement('span');
      m.className = 'oov-mark';
      m.textContent = '?';
      m.setAttribute('aria-label', 'not in the vocabulary');
      s.appendChild(m);
    }
    el.appendChild(s);
  }
  const n = document.createElement('span');
  n.className = 'chip-count';
  n.textContent = total > infos.length ? `${infos.length} of ${total} tokens (cut)` : `${infos.length} token${infos.length === 1 ? '' : 's'}`;
  el.appendChild(n);
}

/** Runs fn and records its duration as the performance measure "attnscope:<name>". */
function timed(name, fn) {
  const t0 = performance.now();
  const out = fn();
  performance.measure(`attnscope:${name}`, { start: t0, end: performance.now() });
  return out;
}

// Figures out of view are not redrawn on every keystroke: each render leaves them a job, run when
// they scroll into view or when the page is idle (so an export or a scroll never shows stale plots).
const jobs = new Map();              // figure name → () => void, still to run
const visible = new Set();           // figure names whose slot intersects the viewport
let idleHandle = 0;
const observer = new IntersectionObserver((entries) => {
  for (const e of entries) {
    const name = e.target.dataset.figure;
    if (e.isIntersecting) { visible.add(name); runJob(name); } else visible.delete(name);
  }
}, { rootMargin: '200px 0px' });
for (const [name, f] of Object.entries(fig)) {
  const slot = f.root.node().parentNode;
  slot.dataset.figure = name;
  observer.observe(slot);
}
function runJob(name) {
  const job = jobs.get(name);
  if (!job) return;
  jobs.delete(name);
  timed(name, job);
}
function schedule(name, job, now) {
  jobs.set(name, job);
  if (now || visible.has(name)) runJob(name);
  else if (!idleHandle) {
    const flush = () => { idleHandle = 0; for (const n of [...jobs.keys()]) runJob(n); };
    idleHandle = typeof requestIdleCallback === 'function' ? requestIdleCallback(flush, { timeout: 300 }) : setTimeout(flush, 50);
  }
}
/** Runs every pending drawing job now (before an export, and in tests via the "flush" event). */
function flushJobs() {
  for (const n of [...jobs.keys()]) runJob(n);
}

let firstRender = true;
let scalingVariant = null;     // the kernels panel 1 was last computed with
function render(c) {
  const empty = !c || !!c.empty;
  ui.empty.hidden = !empty;
  ui.views.classList.toggle('is-empty', empty);
  document.body.classList.toggle('no-result', empty);
  if (empty) {
    jobs.clear();
    ui.queryTokens.textContent = '';
    ui.keyTokens.textContent = '';
    ui.empty.textContent = state.q.trim() ? 'The key sentence has no tokens: type a word, or leave it empty for self-attention.' : 'Type a sentence above to see its attention weights.';
    return;
  }
  const now = firstRender;
  firstRender = false;
  const r = c.main;
  const { nq, nk, heads } = r;
  const head = Math.min(state.head, heads - 1);
  const causal = state.mask === 'causal';
  const masked = (i, j) => causal && j > i;
  const slice = (a) => a.subarray(head * nq * nk, (head + 1) * nq * nk);
  const cell = state.cell && state.cell[0] < nq && state.cell[1] < nk ? state.cell : null;
  // The query word of panels 2 and 3: the chosen one, else the open cell's row, else the first word.
  const row = state.row !== null && state.row < nq ? state.row
    : cell ? cell[0] : Math.max(0, r.queryTokenInfo.findIndex((t) => t.kind === 'word' && !t.oov));
  const st = { ...state };

  tokenChips(ui.queryTokens, r.queryTokenInfo, c.q.total);
  if (c.k) tokenChips(ui.keyTokens, r.keyTokenInfo, c.k.total); else ui.keyTokens.textContent = '';
  ui.ranVariant.textContent = `ran: ${r.variant === 'simd' ? 'SIMD' : 'scalar'} kernels`;

  schedule('heatmap', () => {
    fig.heatmap.setValueKind(st.values);
    fig.heatmap.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq, nk, heads, head,
      weights: slice(r.weights), scores: slice(r.scores), masked, selfIdentity: !c.k && st.proj === 'identity' });
    fig.heatmap.setSelected(cell);
    fig.heatmap.draw();
  }, now);
  schedule('lines', () => {
    fig.lines.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, nq, nk, heads, weights: r.weights });
    fig.lines.draw();
  }, now);
  schedule('heads', () => {
    fig.heads.setData({ ...r, masked });
    fig.heads.setCurrent(head);
    fig.heads.draw();
  }, now);
  schedule('compare', () => {
    fig.compare.setData({
      results: SCORE_NAMES.map((name) => ({ info: scoreInfo.get(name) || { name, formula: '' }, result: c.all.get(name) })),
      head, masked, temperature: st.t,
    });
    fig.compare.setCurrent(st.score);
    fig.compare.draw();
  }, now);
  schedule('why', () => {
    fig.why.setModel(cell ? whyModel(c, head, cell[0], cell[1], masked, st) : null);
    fig.why.draw();
  }, now);

  // Teaching panels: their extra attention calls run only when the panel is drawn.
  // Panel 1 does not depend on the sentence, only on the kernels chosen.
  if (st.variant !== scalingVariant) {
    scalingVariant = st.variant;
    schedule('scaling', () => {
      fig.scaling.setRows(scalingExperiment(scope, 7, st.variant));
      fig.scaling.draw();
    }, false);
  }
  schedule('cosine', () => {
    const dh = r.dHead[head];
    const K = r.k[head];
    const keyNorms = Array.from({ length: nk }, (_, j) => {
      let s2 = 0;
      for (let t = 0; t < dh; t++) s2 += K[j * dh + t] ** 2;
      return Math.sqrt(s2);
    });
    fig.cosine.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, row, head, keyNorms,
      dot: c.all.get('dot'), cosine: c.all.get('cosine'), temperature: st.t, maskedKey: masked });
    fig.cosine.draw();
  }, now);
  schedule('distance', () => {
    const atOne = { ...c.base, temperature: 1 };
    fig.distance.setData({ qTokens: r.queryTokenInfo, kTokens: r.keyTokenInfo, row, head, p: st.p, eps: 1e-3,
      negEuclid: scope.attend({ ...atOne, score: 'neg-euclidean' }), idw: scope.attend({ ...atOne, score: 'idw', p: st.p }),
      maskedKey: masked });
    fig.distance.draw();
  }, now);
  schedule('hull', () => {
    // One head of raw word vectors: the values are the key words' vectors themselves.
    const hullBase = { ...c.base, score: st.score, heads: 1, projection: 'identity' };
    const hv = scope.attend(hullBase);
    const ex = st.exp ? scope.attend({ ...hullBase, experimentalScaledOutput: true }) : null;
    fig.hull.setData({ qTokens: hv.queryTokenInfo, kTokens: hv.keyTokenInfo, values: hv.v[0], dv: hv.dValue[0],
      outputs: hv.output, experimental: ex ? ex.output : null, showExperimental: st.exp });
    fig.hull.draw();
  }, now);
}

function whyModel(c, head, i, j, masked, st) {
  const r = c.main;
  const { nq, nk } = r;
  const dh = r.dHead[head];
  const rowOff = head * nq * nk + i * nk;
  const rowScores = r.scores.slice(rowOff, rowOff + nk);
  const keyPadding = new Uint8Array(nk);
  for (let t = 0; t < nk; t++) keyPadding[t] = masked(i, t) ? 1 : 0;
  // The softmax over the row, recomputed by the wasm softmax kernel from the row's raw scores.
  const rowWeights = scope.softmax(rowScores, { rows: 1, cols: nk, temperature: st.t, keyPadding, variant: st.variant });
  const table = SCORE_NAMES.map((name) => {
    const x = c.all.get(name);
    const info = scoreInfo.get(name);
    return { name, formula: info ? info.formula : '', score: x.scores[rowOff + j], weight: x.weights[rowOff + j] };
  });
  const qTok = r.queryTokenInfo[i], kTok = r.keyTokenInfo[j];
  return {
    i, j, head, heads: r.heads, qToken: qTok, kToken: kTok,
    q: r.q[head].subarray(i * dh, (i + 1) * dh), k: r.k[head].subarray(j * dh, (j + 1) * dh),
    rowScores, rowWeights, kTokens: r.keyTokenInfo, masked: masked(i, j), maskedKey: (t) => masked(i, t),
    weight: r.weights[rowOff + j], temperature: st.t, scoreName: st.score, table,
    nearest: { q: nearest(qTok), k: nearest(kTok) },
  };
}

function nearest(tok) {
  if (tok.oov) return [];
  if (!nearestCache.has(tok.lookup)) {
    let list = [];
    try { list = scope.nearest(tok.lookup, 7).filter((x) => x.word !== tok.lookup).slice(0, 5); } catch { /* no neighbours */ }
    nearestCache.set(tok.lookup, list);
  }
  return nearestCache.get(tok.lookup);
}

// ---------------------------------------------------------------------------------- update ----
function median(a) {
  const s = [...a].sort((x, y) => x - y);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

/**
 * Recomputes and redraws everything. Timing: from the input event (its timeStamp) to the end of the
 * DOM update is measured as "attnscope:update"; to the end of the next frame as "attnscope:frame".
 */
function update(reason, ev) {
  if (!scope) return;
  const start = ev && ev.timeStamp > 0 && ev.timeStamp <= performance.now() ? ev.timeStamp : performance.now();
  let c;
  try {
    c = timed('compute', compute);
    if (lastError) { clearNotice(lastError); lastError = undefined; }
  } catch (e) {
    lastError = `The module could not compute this: ${e.message}`;
    notice(lastError);
    c = null;
  }
  if (c && !c.empty) last = c; else last = null;
  render(c);
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
    };
    ch.port2.postMessage(0);
  });
  if (performance.getEntriesByType('measure').length > 400) performance.clearMeasures();
}
// ---------------------------------------------------------------------------------- start ----
async function start() {
  state = readURL();
  syncControls();
  ui.progress.removeAttribute('value');
  const t0 = performance.now();
  try {
    scope = await createAttnScope({
      preload: true,  // the page shows words from the start
      locateFile: (path) => new URL(path, import.meta.url).href,
      onProgress: (loaded, total) => {
        if (total > 0) { ui.progress.max = total; ui.progress.value = loaded; }
        ui.loadText.textContent = `Loading the vocabulary… ${(loaded / 1e6).toFixed(1)}${total > 0 ? ` of ${(total / 1e6).toFixed(1)}` : ''} MB`;
      },
    });
  } catch (e) {
    ui.loadText.textContent = `The attention module could not be loaded: ${e.message}`;
    ui.progress.hidden = true;
    ui.status.classList.add('failed');
    return;
  }
  const loadMs = performance.now() - t0;
  for (const info of scope.scoreFunctions) scoreInfo.set(info.name, info);
  ui.score.textContent = '';
  for (const name of SCORE_NAMES) {
    const info = scoreInfo.get(name);
    option(ui.score, name, info ? `${name}   ${info.formula}` : name);
  }
  for (const o of ui.variant.options) o.disabled = !scope.variants.available.includes(o.value);
  if (!scope.variants.available.includes(state.variant)) {
    notice(`The ${state.variant} kernels are not available in this browser; using auto.`);
    state.variant = 'auto';
  }
  ui.progress.hidden = true;
  const v = scope.vocabulary;
  ui.loadText.textContent = `Ready: ${v.size.toLocaleString('en')} words × ${v.dim} dimensions; kernels: ${scope.variants.isa}; loaded in ${Math.round(loadMs)} ms.`;
  document.body.classList.add('ready');
  syncControls();
  update('load');
  const first = performance.now();
  performance.measure('attnscope:first-render', { start: 0, end: first });
  ui.buildInfo.textContent = `First render ${Math.round(first)} ms after navigation (module and vocabulary ${Math.round(loadMs)} ms).`;
  writeURL(true);
  // Only now, so that saving the files for offline use does not compete with the first load.
  keepForOffline(ui.offline);
}

start();
