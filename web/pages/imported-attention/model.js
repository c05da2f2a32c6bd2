// The "Your model's attention" page (model.html): a dropped or chosen file → the page's worker
// (web/pages/imported-attention/model-worker.js: scope.loadAttentions, the C++ parsers and validation; the grid's thumbnails,
// the head summaries (scope.headSummaries) and the attention rollout (scope.rollout)) → the layers ×
// heads grid, one head in the heatmap and line view, the summaries and the rollout. The page's thread
// only draws: while the worker works, a progress line and Cancel (which terminates the worker: the
// previous view stays as it was, and says so). A file that fails leaves the previous view as it was
// and says why in a notice. The URL's hash keeps the view (layer, head, token window, rollout
// settings, chosen token, summary measure), never the file.
import { ModelClient, CancelledError } from '../../shared/imported-client.js';
import { GRID_MAX, gridPage } from '../../shared/compute/imported.js';
import * as figures from '../../shared/figures/registry.js';
import { ModelGrid } from '../../shared/figures/ModelGrid.js';
import { SummaryGrid, SUMMARY_MEASURES } from '../../shared/figures/SummaryGrid.js';
import { TokenFlow } from '../../shared/figures/TokenFlow.js';
import { shortLabel } from '../../shared/figures/base.js';
import { download } from '../../shared/downloads.js';
import { csvCell, csvNumber } from '../../../lab/csv.js';
import { $, noticeBar, wireExports, hashWriter, copyLinkButton } from '../../shared/page.js';
import { keepForOffline } from '../../shared/offline.js';

export const WINDOW = 32;          // tokens shown at once in the heatmaps and the line view
const NOTICE_MAX = 400;            // characters of a notice (a message can quote a long file name)
const ATTENTION_EXT = ['npy', 'npz', 'safetensors'];

const ui = {
  status: $('load-text'),
  warning: $('warning'), warningText: $('warning-text'), applySoftmax: $('apply-softmax'),
  drop: $('drop-zone'), input: $('file-input'), info: $('file-info'), exampleForm: $('example-form'),
  exampleSentence: $('example-sentence'), exampleButton: $('load-example'),
  layer: $('pick-layer'), head: $('pick-head'), windowStart: $('window-start'), windowWrap: $('window-wrap'),
  windowNote: $('window-note'), residual: $('residual'), rolloutHead: $('rollout-head'), token: $('rollout-token'),
  busy: $('busy'), busyText: $('busy-text'), busyBar: $('busy-bar'), cancel: $('cancel'), gridNote: $('grid-note'),
  headCSV: $('export-head-csv'), rolloutCSV: $('export-rollout-csv'), json: $('export-json'), copyLink: $('copy-link'),
};

/** The page's worker (web/shared/imported-client.js); ready once its module has loaded. */
let client = null;
let ready = false;
let isa = '';
/**
 * The loaded file: { name, blob, tokensText, tokensName, softmax, source (what the worker is given:
 * { id, blob, tokensText, softmax }), format, res (loadAttentions' result: meta and the attentions),
 * summaries, thumbs (the grid's block shown), rollouts (settings → { promise, value }) }.
 */
let current = null;
/** The file being analysed: { job, name }, or null. */
let loading = null;
let sources = 0;   // ids of the files handed to the worker, in order
/** The view; 0-based here, 1-based in the URL and on screen. */
const view = { layer: 0, head: 0, window: 0, residual: 0.5, rolloutHead: 'mean', token: 0, measure: 'entropy' };

// ---------------------------------------------------------------------------------- notices ----
const notices = noticeBar({ max: NOTICE_MAX });
const notice = (text) => notices.set(text);
const clearNotice = () => notices.remove();

function showWarnings(res) {
  const w = res.warnings || [];
  ui.warning.hidden = w.length === 0;
  ui.warningText.textContent = w.join(' ').slice(0, NOTICE_MAX * 2);
  ui.applySoftmax.hidden = !w.some((m) => /do not sum to 1/.test(m));
}

// ---------------------------------------------------------------------------------- figures ----
const fig = {
  grid: new ModelGrid($('fig-grid')),
  heatmap: new figures.heatmap.figure($('fig-heatmap'), { tooltip: $('tooltip') }),
  lines: new figures.lines.figure($('fig-lines')),
  summary: new SummaryGrid($('fig-summary')),
  rollout: new figures.heatmap.figure($('fig-rollout'), { tooltip: $('tooltip'), id: 'rollout' }),
  flow: new TokenFlow($('fig-flow')),
};
// Imported attention has weights only: no "raw scores" choice.
for (const h of [fig.heatmap, fig.rollout]) h.kindSelect.node().parentNode.hidden = true;
const figName = new Map(Object.entries(fig).map(([name, f]) => [f, name]));
for (const [name, f] of Object.entries(fig)) f.measureName = `model-${name}`;
wireExports(Object.values(fig), { stem: (f) => `${fileStem()}-${figName.get(f)}`, failed: notice });
fig.grid.addEventListener('pick', (ev) => setView({ layer: ev.detail.layer, head: ev.detail.head }));
fig.summary.addEventListener('pick', (ev) => setView({ layer: ev.detail.layer, head: ev.detail.head }));
fig.summary.addEventListener('measure', (ev) => setView({ measure: ev.detail.measure }));
// A cell of either heatmap chooses its row (an output token) for the rollout.
for (const h of [fig.heatmap, fig.rollout]) h.addEventListener('select', (ev) => setView({ token: view.window + ev.detail.i }));

function fileStem() {
  const base = current ? current.name.replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_').slice(0, 60) : 'attention';
  return `attnscope-${base || 'attention'}`;
}

// ---------------------------------------------------------------------------------- loading ----
/** Reads dropped or chosen files: one attention file, plus optionally a tokens file (.json list or .txt). */
let filesChosen = 0;   // files dropped or picked so far: an example that finishes after one is not shown over it
async function loadFiles(files, t0 = performance.now()) {
  filesChosen++;
  const list = [...files];
  if (!list.length) return;
  // The files stay Blobs here: the worker reads the attention file itself (no copy of its bytes on
  // this thread); only a .json file's first bytes are read, to tell a tokens list from attention.
  const attention = [], tokens = [];
  for (const f of list) {
    const ext = f.name.toLowerCase().split('.').pop();
    if (ext === 'txt') tokens.push(f);
    else if (ext === 'json') {
      // A JSON list is a tokens file; a JSON object is attention.
      const head = new Uint8Array(await f.slice(0, 4096).arrayBuffer());
      let i = 0;
      while (i < head.length && head[i] <= 0x20) i++;
      (head[i] === 0x5b ? tokens : attention).push(f);
    } else attention.push(f);
  }
  performance.measure('attnscope:model-read', { start: t0, end: performance.now() });
  if (attention.length > 1) {
    notice(`Drop one attention file at a time (got ${attention.map((f) => f.name).join(', ')}); the view is unchanged.`);
    return;
  }
  if (tokens.length > 1) {
    notice(`Drop at most one tokens file (got ${tokens.map((f) => f.name).join(', ')}); the view is unchanged.`);
    return;
  }
  const tokensText = tokens.length ? new TextDecoder().decode(await tokens[0].arrayBuffer()) : null;
  if (!attention.length) {
    // Tokens alone: for the attention already shown, when it came without tokens of its own (.npy).
    if (current && current.format === 'npy') {
      load({ ...current, tokensText, tokensName: tokens[0].name }, t0);
    } else {
      notice(`${tokens[0].name} looks like a tokens file: drop it together with its .npy attention file; the view is unchanged.`);
    }
    return;
  }
  const a = attention[0];
  const ext = a.name.toLowerCase().split('.').pop();
  if (!ATTENTION_EXT.includes(ext) && ext !== 'json') {
    notice(`${a.name}: expected a .npy, .npz, .safetensors or .json file; trying it anyway.`);
  }
  load({ name: a.name, blob: a, tokensText, tokensName: tokens.length ? tokens[0].name : null, softmax: false }, t0);
}

// ---------------------------------------------------------------------------------- the worker ----
function showBusy(text, fraction) {
  ui.busy.hidden = false;
  ui.busyText.textContent = text;
  if (fraction === undefined || fraction === null) ui.busyBar.removeAttribute('value');
  else ui.busyBar.value = Math.max(0, Math.min(1, fraction));
  document.body.classList.add('model-busy');
}
function hideBusy() {
  ui.busy.hidden = true;
  document.body.classList.remove('model-busy');
}

/** Cancel: the worker is terminated at once (a fresh one replaces it); the previous view stays. */
function cancelLoad() {
  if (!loading) return;
  const { name } = loading;
  loading = null;
  client.cancel();
  hideBusy();
  notice(`Cancelled: ${name} was not loaded. ${current ? 'The previous view stays as it was.' : 'Drop a file to try again.'}`);
  // A rollout or grid block the previous view was waiting for went with the worker: ask the fresh one.
  if (current) { renderRollout(); followGridPage(); }
}

/**
 * Loads one file { name, blob, tokensText, tokensName, softmax } in the worker; on failure the notice
 * says why and the previous view stays. Resolves true when the file is shown.
 */
async function load(file, t0 = performance.now()) {
  if (loading) { loading = null; client.cancel(); }   // a newer file replaces one still being analysed
  const source = { id: ++sources, blob: file.blob, tokensText: file.tokensText ?? null, softmax: !!file.softmax };
  const job = client.nextJob();
  loading = { job, name: file.name };
  showBusy(`${file.name}: reading the file…`, null);
  let a;
  try {
    const v = { ...view, ...(wish || {}) };   // the view clampView will give this file
    a = await client.call('analyse', job, source, { layer: v.layer, head: v.head, residual: v.residual, rolloutHead: v.rolloutHead });
  } catch (e) {
    if (e instanceof CancelledError) return false;   // Cancel, or a newer file: said there
    if (loading && loading.job === job) { loading = null; hideBusy(); }
    // The library's hint for an unrecognised file speaks to programmers (options.format); on the page
    // the fix is the file itself.
    const why = String(e && e.message).replace(/; pass options\.format if it is one$/, ': save the attention with numpy.save or numpy.savez, as .safetensors, or as JSON { "tokens", "attentions" }');
    notice(`${file.name}${file.tokensName ? ` with ${file.tokensName}` : ''}: ${why}. ${current ? 'The previous view stays.' : ''}`);
    // What the previous view asked the worker for meanwhile was answered "stale": ask again.
    if (current) { renderRollout(); followGridPage(); }
    return false;
  }
  if (!loading || loading.job !== job) return false;
  loading = null;
  hideBusy();
  // Where the worker's time went, as the measures the page has always given (bench/model.mjs).
  const tw = performance.now();
  for (const [name, ms] of [['parse', a.ms.parse], ['thumbnails', a.ms.grid], ['summaries', a.ms.summaries], ['rollout', a.ms.rollout]]) {
    performance.measure(`attnscope:model-${name}`, { start: Math.max(0, tw - ms), duration: ms });
  }
  clearNotice();
  const res = { ...a.meta, attentions: a.attentions };
  const first = { value: a.rollout, promise: Promise.resolve(a.rollout) };
  current = { ...file, source, format: res.format, res, summaries: a.summaries, thumbs: a.thumbs, gridWanted: null, rollouts: new Map([[a.rollout.key, first]]) };
  showWarnings(res);
  const { layers, heads, nq, nk } = res;
  ui.info.textContent = `${file.name}${file.tokensName ? ` + ${file.tokensName}` : ''}: ${layers} layer${layers > 1 ? 's' : ''} × ${heads} head${heads > 1 ? 's' : ''} × ${nq} × ${nk} tokens (${res.format}${file.softmax ? ', softmax applied' : ''}).`;
  clampView();
  fillControls();
  // First the grid (what the benchmark times: file → grid drawn), then the rest.
  drawGrid();
  requestAnimationFrame(() => {
    performance.measure('attnscope:model-file-to-grid', { start: t0, end: performance.now() });
    renderDetail();
    renderSummary();
    renderRollout();
    performance.measure('attnscope:model-file-to-all', { start: t0, end: performance.now() });
    document.body.classList.add('model-ready');
    document.dispatchEvent(new CustomEvent('model-loaded', { detail: { name: file.name } }));
    writeURL();
  });
  return true;
}

/** The grid: the block of thumbnails the worker computed, and what it shows of a big stack. */
function drawGrid() {
  const r = current.res;
  fig.grid.setData({ layers: r.layers, heads: r.heads, nq: r.nq, nk: r.nk, thumbs: current.thumbs });
  fig.grid.setCurrent(view.layer, view.head);
  fig.grid.schedule(() => fig.grid.draw(), true);
  const t = current.thumbs;
  const limited = r.layers > GRID_MAX || r.heads > GRID_MAX;
  ui.gridNote.hidden = !limited;
  ui.gridNote.textContent = limited
    ? `This file has ${r.layers.toLocaleString('en')} layers × ${r.heads.toLocaleString('en')} heads (${(r.layers * r.heads).toLocaleString('en')} heads): `
      + `the grid and the summaries show at most ${GRID_MAX} layers × ${GRID_MAX} heads at a time. Shown: layers ${t.l0 + 1}–${t.l0 + t.layers}, `
      + `heads ${t.h0 + 1}–${t.h0 + t.heads}, the block holding the chosen head. Choose another layer or head in “One head” below `
      + '(or move past the edge with the arrow keys on the grid) to see its block.'
    : '';
}

/** Asks the worker for the grid's block holding the chosen head, when it is not the one shown. */
function followGridPage() {
  const c = current;
  const want = gridPage(c.res, view.layer, view.head);
  if (want.l0 === c.thumbs.l0 && want.h0 === c.thumbs.h0) return;
  const key = `${want.l0}|${want.h0}`;
  if (c.gridWanted === key) return;
  c.gridWanted = key;
  client.call('grid', client.nextJob(), c.source, view.layer, view.head).then((thumbs) => {
    if (current !== c || c.gridWanted !== key) return;
    c.gridWanted = null;
    if (thumbs.stale) return;   // a newer file was being read: asked again if it fails (load)
    c.thumbs = thumbs;
    drawGrid();
    renderSummary();
  }, (e) => {
    if (c.gridWanted === key) c.gridWanted = null;
    if (!(e instanceof CancelledError)) notice(`The grid's block could not be computed: ${e.message}`);
  });
}

// ---------------------------------------------------------------------------------- view state ----
// The view a link asked for, kept until the visitor changes the view: the example the page opens with
// (the trained model: 2 layers × 4 heads) must not cut a link's layer 3 down before the visitor's
// own file, which has it, arrives.
let wish = null;
function clampView() {
  const r = current.res;
  if (wish) Object.assign(view, wish);
  view.layer = Math.min(view.layer, r.layers - 1);
  view.head = Math.min(view.head, r.heads - 1);
  view.token = Math.min(view.token, r.nq - 1);
  view.window = Math.max(0, Math.min(view.window, Math.max(r.nq, r.nk) - WINDOW));
  if (typeof view.rolloutHead === 'number' && view.rolloutHead >= r.heads) view.rolloutHead = 'mean';
}

function option(select, value, text) {
  const o = document.createElement('option');
  o.value = String(value);
  o.textContent = text;
  select.appendChild(o);
}

function fillControls() {
  const r = current.res;
  ui.layer.textContent = '';
  for (let l = 0; l < r.layers; l++) option(ui.layer, l, `${l + 1} of ${r.layers}`);
  ui.head.textContent = '';
  for (let h = 0; h < r.heads; h++) option(ui.head, h, `${h + 1} of ${r.heads}`);
  ui.rolloutHead.textContent = '';
  option(ui.rolloutHead, 'mean', 'mean of the heads');
  option(ui.rolloutHead, 'max', 'largest over the heads');
  for (let h = 0; h < r.heads; h++) option(ui.rolloutHead, h, `head ${h + 1} only`);
  ui.token.textContent = '';
  for (let t = 0; t < r.nq; t++) option(ui.token, t, `${t + 1}: ${shortLabel(r.tokens[t], 24)}`);
  const big = Math.max(r.nq, r.nk) > WINDOW;
  ui.windowWrap.hidden = !big;
  ui.windowStart.max = String(Math.max(r.nq, r.nk) - WINDOW + 1);
  syncControls();
}

function syncControls() {
  ui.layer.value = String(view.layer);
  ui.head.value = String(view.head);
  ui.windowStart.value = String(view.window + 1);
  ui.residual.value = String(view.residual);
  ui.rolloutHead.value = String(view.rolloutHead);
  ui.token.value = String(view.token);
  fig.summary.setMeasure(view.measure);
  if (current) {
    const r = current.res;
    const n = Math.max(r.nq, r.nk);
    ui.windowNote.textContent = n > WINDOW
      ? `The heatmaps and the line view show tokens ${view.window + 1}–${Math.min(n, view.window + WINDOW)} of ${n} (the grid shows all of them).`
      : '';
  }
}

/** Changes the view and redraws what depends on it. */
function setView(patch) {
  wish = null;
  if (!current) { Object.assign(view, patch); return; }
  const before = { ...view };
  Object.assign(view, patch);
  // Choosing a token outside the window moves the window to it.
  if (patch.token !== undefined && (view.token < view.window || view.token >= view.window + WINDOW) && patch.window === undefined) {
    view.window = Math.max(0, view.token - Math.floor(WINDOW / 2));
  }
  clampView();
  syncControls();
  const pickChanged = before.layer !== view.layer || before.head !== view.head;
  if (pickChanged) {
    fig.grid.setCurrent(view.layer, view.head);
    fig.grid.drawCurrent();
    fig.lines.setShownHeads([view.head - gridPage(current.res, view.layer, view.head).h0]);
    followGridPage();
  }
  if (pickChanged || before.window !== view.window) renderDetail();
  if (pickChanged || before.measure !== view.measure) renderSummary();
  if (before.residual !== view.residual || before.rolloutHead !== view.rolloutHead || before.window !== view.window || before.token !== view.token) renderRollout();
  writeURL();
}

ui.layer.addEventListener('change', () => setView({ layer: Number(ui.layer.value) }));
ui.head.addEventListener('change', () => setView({ head: Number(ui.head.value) }));
ui.windowStart.addEventListener('change', () => {
  const w = Math.round(Number(ui.windowStart.value));
  if (Number.isFinite(w)) setView({ window: w - 1 }); else syncControls();
});
ui.residual.addEventListener('change', () => {
  const r = Number(ui.residual.value);
  if (ui.residual.value.trim() !== '' && r >= 0 && r <= 1) setView({ residual: r });
  else { notice(`Residual: expected a number from 0 to 1 (the weight of the identity), got “${ui.residual.value}”.`); syncControls(); }
});
ui.rolloutHead.addEventListener('change', () => {
  const v = ui.rolloutHead.value;
  setView({ rolloutHead: v === 'mean' || v === 'max' ? v : Number(v) });
});
ui.token.addEventListener('change', () => setView({ token: Number(ui.token.value) }));

// ---------------------------------------------------------------------------------- rendering ----
const asTokens = (list) => list.map((text) => ({ text, oov: false }));

/** Rows and columns [w, w + WINDOW) of matrix m (nq × nk, at offset) as a new array. */
function windowOf(m, offset, nq, nk, w) {
  const rows = Math.min(WINDOW, nq - Math.min(w, nq - 1)), cols = Math.min(WINDOW, nk - Math.min(w, nk - 1));
  const r0 = Math.min(w, nq - rows), c0 = Math.min(w, nk - cols);
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) out.set(m.subarray(offset + (r0 + i) * nk + c0, offset + (r0 + i) * nk + c0 + cols), i * cols);
  return { out, rows, cols, r0, c0 };
}

function renderDetail() {
  const r = current.res;
  const { nq, nk, heads } = r;
  const nn = nq * nk;
  const base = (view.layer * heads + view.head) * nn;
  const win = windowOf(r.attentions, base, nq, nk, view.window);
  const q = asTokens(r.tokens.slice(win.r0, win.r0 + win.rows)), k = asTokens(r.keyTokens.slice(win.c0, win.c0 + win.cols));
  fig.heatmap.setData({ qTokens: q, kTokens: k, nq: win.rows, nk: win.cols, heads, head: view.head,
    weights: win.out, scores: win.out, masked: () => false, selfIdentity: false });
  fig.heatmap.setValueKind('weights');
  fig.heatmap.schedule(() => {
    fig.heatmap.draw();
    const part = win.rows < nq || win.cols < nk ? ` (tokens ${win.r0 + 1}–${win.r0 + win.rows} of ${nq})` : '';
    fig.heatmap.titleEl.text(`Layer ${view.layer + 1}, head ${view.head + 1}${part}`);
    fig.heatmap.captionEl.text(`Rows are output (query) tokens, columns input (key) tokens; each full row sums to 1${part ? ', so a row cut by the token window sums to less' : ''}. Hover for values; click a cell to follow its row in the rollout below.`);
  });
  // The line view: every head of the layer over the same window (of a layer of more than GRID_MAX
  // heads, those of the grid's block holding the picked one); the picked head shown first.
  const block = gridPage(r, view.layer, view.head);
  const h0 = block.h0, count = block.heads;
  const all = new Float32Array(count * win.rows * win.cols);
  for (let h = 0; h < count; h++) {
    all.set(windowOf(r.attentions, (view.layer * heads + h0 + h) * nn, nq, nk, view.window).out, h * win.rows * win.cols);
  }
  fig.lines.setData({ qTokens: q, kTokens: k, nq: win.rows, nk: win.cols, heads: count, firstHead: h0, weights: all });
  const mine = view.head - h0;
  if (!fig.lines.shown.has(mine) || fig.lines.shown.size === count) fig.lines.setShownHeads([mine]);
  const part = count < heads ? `, heads ${h0 + 1}–${h0 + count} of ${heads}` : '';
  fig.lines.schedule(() => {
    fig.lines.draw();
    fig.lines.titleEl.text(`Who looks at whom: layer ${view.layer + 1}${part}`);
  });
}

function renderSummary() {
  if (!current.summaries) return;
  const r = current.res;
  const t = current.thumbs;
  fig.summary.setData({ layers: r.layers, heads: r.heads, summaries: current.summaries,
    page: { l0: t.l0, h0: t.h0, layers: t.layers, heads: t.heads } });
  fig.summary.setCurrent(view.layer, view.head);
  fig.summary.setMeasure(view.measure);
  fig.summary.schedule(() => fig.summary.draw());
}

/**
 * The rollout for settings { residual, rolloutHead } (default: the view's), computed by the worker and
 * kept per file (the residual box and the token list change often): { promise, value } where value,
 * once there, is { key, matrix } or { key, error } (the module's refusal).
 */
function rolloutFor(settings = view) {
  const c = current;
  const key = `${settings.residual}|${settings.rolloutHead}`;
  let e = c.rollouts.get(key);
  if (!e) {
    e = { value: null };
    e.promise = client.call('rollout', client.nextJob(), c.source, { residual: settings.residual, rolloutHead: settings.rolloutHead })
      .then((r) => {
        if (r.stale) { c.rollouts.delete(key); return null; }
        e.value = r;
        return r;
      }, (err) => {
        c.rollouts.delete(key);
        if (err instanceof CancelledError) return null;
        e.value = { key, error: err.message };
        return e.value;
      });
    c.rollouts.set(key, e);
  }
  return e;
}

function renderRollout() {
  const r = current.res;
  const self = r.nq === r.nk && r.tokens.every((t, i) => t === r.keyTokens[i]);
  for (const el of [ui.residual, ui.rolloutHead, ui.token]) el.disabled = !self;
  if (!self) {
    fig.rollout.cancel();
    fig.flow.cancel();
    fig.rollout.captionEl.text('Rollout needs self-attention (the same tokens as queries and keys); this file is cross-attention.');
    fig.flow.captionEl.text('');
    return;
  }
  const entry = rolloutFor();
  if (!entry.value) {
    // Computed by the worker; drawn when it answers (if the view still asks for it).
    const c = current, key = `${view.residual}|${view.rolloutHead}`;
    fig.rollout.captionEl.text('Computing the rollout…');
    entry.promise.then((v) => { if (v && current === c && `${view.residual}|${view.rolloutHead}` === key) renderRollout(); });
    return;
  }
  if (entry.value.error) {
    fig.rollout.cancel();
    fig.flow.cancel();
    fig.rollout.titleEl.text('Rollout');
    fig.rollout.captionEl.text(`The rollout was not computed: ${entry.value.error.slice(0, 300)}`);
    fig.flow.titleEl.text('');
    fig.flow.captionEl.text('');
    return;
  }
  const R = entry.value.matrix;
  const n = r.nq;
  const win = windowOf(R, 0, n, n, view.window);
  const q = asTokens(r.tokens.slice(win.r0, win.r0 + win.rows)), k = asTokens(r.tokens.slice(win.c0, win.c0 + win.cols));
  const t = view.token;
  fig.rollout.setData({ qTokens: q, kTokens: k, nq: win.rows, nk: win.cols, heads: 1, head: 0,
    weights: win.out, scores: win.out, masked: () => false, selfIdentity: false });
  fig.rollout.setValueKind('weights');
  fig.rollout.setSelected(t >= win.r0 && t < win.r0 + win.rows ? [t - win.r0, Math.min(win.cols - 1, Math.max(0, t - win.c0))] : null);
  const heads = view.rolloutHead === 'mean' ? 'heads averaged' : view.rolloutHead === 'max' ? 'largest over the heads' : `head ${view.rolloutHead + 1} followed`;
  fig.rollout.schedule(() => {
    fig.rollout.draw();
    const part = win.rows < n ? ` (tokens ${win.r0 + 1}–${win.r0 + win.rows} of ${n})` : '';
    fig.rollout.titleEl.text(`Rollout, r = ${view.residual}, ${heads}${part}`);
    fig.rollout.captionEl.text(`Row i: how much each input token (column) flows into output token i through all ${r.layers} layers. Computed by the rollout C++ kernel. Click a row to show it in the next figure.`);
  });
  fig.flow.setData({ tokens: r.tokens, row: R.subarray(t * n, (t + 1) * n), t });
  fig.flow.schedule(() => fig.flow.draw());
}

// ---------------------------------------------------------------------------------- exports ----

ui.headCSV.addEventListener('click', () => {
  if (!current) return;
  const r = current.res;
  const base = (view.layer * r.heads + view.head) * r.nq * r.nk;
  const lines = ['layer,head,query_index,query_token,key_index,key_token,weight'];
  for (let i = 0; i < r.nq; i++) for (let j = 0; j < r.nk; j++) {
    lines.push([view.layer + 1, view.head + 1, i, csvCell(r.tokens[i]), j, csvCell(r.keyTokens[j]), csvNumber(r.attentions[base + i * r.nk + j])].join(','));
  }
  download(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }), `${fileStem()}-L${view.layer + 1}-H${view.head + 1}.csv`);
});

ui.rolloutCSV.addEventListener('click', async () => {
  if (!current || current.res.nq !== current.res.nk) { notice('Rollout needs self-attention: nothing to export.'); return; }
  const c = current;
  const got = await rolloutFor().promise;
  if (current !== c || !got) return;
  if (got.error) { notice(`The rollout was not computed: ${got.error}`); return; }
  const r = c.res, R = got.matrix, n = r.nq;
  const lines = ['output_index,output_token,input_index,input_token,rollout'];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) lines.push([i, csvCell(r.tokens[i]), j, csvCell(r.tokens[j]), csvNumber(R[i * n + j])].join(','));
  download(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }), `${fileStem()}-rollout.csv`);
});

ui.json.addEventListener('click', async () => {
  if (!current) return;
  const c = current;
  const r = c.res;
  const self = r.nq === r.nk;
  const got = self ? await rolloutFor().promise : null;
  if (current !== c) return;
  const rows = (m, off, nq, nk) => Array.from({ length: nq }, (_, i) => Array.from(m.subarray(off + i * nk, off + (i + 1) * nk), (x) => Number(x.toPrecision(9))));
  const perHead = (a) => Array.from({ length: r.layers }, (_, l) => Array.from(a.subarray(l * r.heads, (l + 1) * r.heads), (x) => Number(x.toPrecision(7))));
  const out = {
    generator: 'attnscope model page',
    file: current.name, format: r.format, layers: r.layers, heads: r.heads, nq: r.nq, nk: r.nk,
    tokens: r.tokens, keyTokens: r.keyTokens,
    head: { layer: view.layer + 1, head: view.head + 1, shape: '[nq][nk]', weights: rows(r.attentions, (view.layer * r.heads + view.head) * r.nq * r.nk, r.nq, r.nk) },
    rollout: got && got.matrix ? { residual: view.residual, heads: view.rolloutHead, shape: '[n][n]', matrix: rows(got.matrix, 0, r.nq, r.nq) } : null,
    summaries: current.summaries ? {
      shape: '[layers][heads]', entropy: perHead(current.summaries.entropy), max: perHead(current.summaries.max), meanMax: perHead(current.summaries.meanMax),
    } : null,
  };
  download(new Blob([JSON.stringify(out) + '\n'], { type: 'application/json' }), `${fileStem()}.json`);
});

copyLinkButton(ui.copyLink, () => writeURL());

// ---------------------------------------------------------------------------------- URL ----
/** The hash for the view: 1-based layer, head, window start and token, as on screen. */
export function viewToHash(v) {
  const p = new URLSearchParams();
  p.set('l', String(v.layer + 1));
  p.set('h', String(v.head + 1));
  p.set('w', String(v.window + 1));
  p.set('r', String(v.residual));
  p.set('rh', typeof v.rolloutHead === 'number' ? String(v.rolloutHead + 1) : v.rolloutHead);
  p.set('t', String(v.token + 1));
  p.set('m', v.measure);
  return '#' + p.toString();
}

/** The view a hash asks for; anything missing or malformed keeps its default (clamped to the file later). */
export function hashToView(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const v = {};
  const int = (key, field) => {
    const s = p.get(key);
    if (s !== null && /^\d{1,5}$/.test(s) && Number(s) >= 1) v[field] = Number(s) - 1;
  };
  int('l', 'layer'); int('h', 'head'); int('w', 'window'); int('t', 'token');
  const r = p.get('r');
  if (r !== null && r.trim() !== '' && Number(r) >= 0 && Number(r) <= 1) v.residual = Number(r);
  const rh = p.get('rh');
  if (rh === 'mean' || rh === 'max') v.rolloutHead = rh;
  else if (rh !== null && /^\d{1,4}$/.test(rh) && Number(rh) >= 1) v.rolloutHead = Number(rh) - 1;
  const m = p.get('m');
  if (SUMMARY_MEASURES.some((x) => x[0] === m)) v.measure = m;
  return v;
}

const url = hashWriter(() => viewToHash(view));
const writeURL = () => url.write();
window.addEventListener('hashchange', () => setView(hashToView(location.hash)));

// ---------------------------------------------------------------------------------- drop ----
const dropTarget = document.body;
dropTarget.addEventListener('dragover', (ev) => {
  ev.preventDefault();
  ui.drop.classList.add('dragging');
});
dropTarget.addEventListener('dragleave', (ev) => {
  if (ev.target === document.body || ev.target === ui.drop) ui.drop.classList.remove('dragging');
});
dropTarget.addEventListener('drop', (ev) => {
  ev.preventDefault();
  ui.drop.classList.remove('dragging');
  const t0 = performance.now();
  if (!ready) { notice('The kernels are still loading; drop the file again in a moment.'); return; }
  if (ev.dataTransfer && ev.dataTransfer.files.length) loadFiles(ev.dataTransfer.files, t0);
});
ui.input.addEventListener('change', () => {
  const t0 = performance.now();
  if (ui.input.files.length) loadFiles(ui.input.files, t0).finally(() => { ui.input.value = ''; });
});
// From the keyboard, the file input (Tab reaches it; its label "choose files" shows its focus ring,
// model.css) opens the picker on Enter or Space by itself: the drop zone around it is no control of its own.
ui.cancel.addEventListener('click', cancelLoad);
ui.applySoftmax.addEventListener('click', () => {
  if (current && !current.softmax) load({ ...current, softmax: true });
});
// The example: the trained model (scope.loadModel(), USE-Lite) on the sentence typed, its attentions
// handed to the page as a file of the JSON format would be ({ tokens, attentions }), so that they go
// through the same reader and views as a dropped file. The model's file is fetched on the first use.
export const EXAMPLE_SENTENCE = 'The animal didn\'t cross the street because it was too tired.';
let exampleJob = 0;
ui.exampleForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  loadExample(ui.exampleSentence.value);
});

async function loadExample(text) {
  const t0 = performance.now();
  if (!text.trim()) { notice('Type a sentence for the trained model first.'); return; }
  ui.exampleButton.disabled = true;
  try {
    exampleJob = client.nextJob();
    const chosenBefore = filesChosen;
    const ex = await client.call('example', exampleJob, text);
    // A file chosen while the model ran (its file may come from the Cache API even offline) wins.
    if (filesChosen !== chosenBefore) return;
    const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    const shownOK = await load({ name: `${ex.model} on “${shown}”`, blob: ex.blob, tokensText: null, softmax: false }, t0);
    if (shownOK) {
      ui.status.textContent = `Ready: kernels ${isa}. The trained model ${ex.model} on your sentence${ex.truncated ? ` (cut at its first ${ex.maxTokens} tokens: the model reads no more)` : ''}; drop a file of your own to see its attention instead.`;
      if (ex.truncated) notice(`The trained model reads at most ${ex.maxTokens} tokens: the sentence was cut after token ${ex.maxTokens}.`);
    }
  } catch (e) {
    if (!(e instanceof CancelledError)) notice(`The trained model could not be run (${e.message}); drop a file of your own.`);
  } finally {
    exampleJob = 0;
    ui.exampleButton.disabled = false;
  }
}

// ---------------------------------------------------------------------------------- start ----
async function start() {
  Object.assign(view, hashToView(location.hash));
  if (location.hash.length > 1) wish = { ...view };
  client = new ModelClient(new URL('model-worker.js', import.meta.url));
  client.addEventListener('progress', (ev) => {
    const { job, text, fraction } = ev.detail;
    if (loading && loading.job === job) showBusy(`${loading.name}: ${text}`, fraction);
    else if (job === exampleJob) ui.status.textContent = text;
  });
  try {
    ({ isa } = await client.ready);
  } catch (e) {
    ui.status.textContent = `The attention module could not be loaded: ${e.message}`;
    return;
  }
  ready = true;
  ui.status.textContent = `Ready: kernels ${isa}. Drop a file, or look at the trained model's attention on a sentence.`;
  document.body.classList.add('ready');
  ui.exampleSentence.value = EXAMPLE_SENTENCE;
  await loadExample(EXAMPLE_SENTENCE);
  keepForOffline($('offline-status'));
}

start();
