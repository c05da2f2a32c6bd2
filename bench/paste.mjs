// Page benchmark: a 2,000-word paste into the demo's query against a short key sentence ("A kitten
// rested on the rug.", a 2,000 × 7 matrix), in headless Chromium at 1366×768 (launched as the e2e
// tests launch it). Per paste: the main thread's long tasks (PerformanceObserver 'longtask': tasks
// over 50 ms) from the input event until the page is idle, and the page's own per-figure measures
// ("attnscope:<figure>"). Then one first paste under a Chromium trace (devtools.timeline) and the V8
// sampling profiler: the longest task's time split into script, style, layout, paint, and the
// functions with the most self time, so that what to fix next is a measurement, not a guess; and
// each task's CPU time beside its wall time (on a shared machine most of a long task's wall time can
// be time its thread waited for a core).
// Two cases: the first paste into a page just loaded, and a paste into a warm page (after 1 s of
// pastes); medians. Prints JSON (write it with --out FILE, e.g. bench/results/paste.json).
// Never asserted in a test: the machine is shared and noisy.
//   node bench/paste.mjs [--quick] [--web DIR] [--out FILE] [--keys TEXT]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { root, startServer } from '../scripts/browser-harness.mjs';
import { header, launch, median, option } from './browser.mjs';

// Source maps read with source-map-js when it is installed (it comes with the build's tools, not as a
// dependency of its own): without it, functions are named by the bundle's line and column.
let SourceMapConsumer = null;
try { ({ SourceMapConsumer } = createRequire(import.meta.url)('source-map-js')); } catch { /* bundle positions */ }

const quick = process.argv.includes('--quick');
const webDir = option('web');
const out = option('out');
const KEYS = option('keys') ?? 'A kitten rested on the rug.';
const PASTES = quick ? 5 : 11;
const WARMUP_MS = 1000;
const load = loadavg();

if (!existsSync(join(webDir ?? join(root, 'dist/web'), 'index.html'))) throw new Error('dist/web/ is missing: run `npm run build` first');

const words = 'the quick brown fox jumps over a lazy dog while seven small birds sing in the old tree by the river'.split(' ');
/** 2,000 words (each paste a different text, so nothing is reused), and a full stop. */
const doc = (n, offset) => Array.from({ length: n - 1 }, (_, i) => words[(i * 7 + offset) % words.length]).join(' ') + '.';
const round = (x) => (x === null || x === undefined ? null : Math.round(x * 10) / 10);
const settled = (page) => page.waitForFunction(() => document.body.classList.contains('ready') && !document.body.classList.contains('computing'), null, { timeout: 120000 });

/** In the page: starts collecting long tasks and the page's own measures for one paste. */
const watchInPage = () => {
  const w = { longtasks: [], own: [], t0: performance.now() };
  const spans = new Set(['attnscope:update', 'attnscope:frame', 'attnscope:paint', 'attnscope:compute', 'attnscope:first-render']);
  w.obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.entryType === 'longtask') w.longtasks.push(e.duration);
      else if (e.name.startsWith('attnscope:') && !spans.has(e.name)) w.own.push([e.name.slice(10), e.duration]);
    }
  });
  w.obs.observe({ entryTypes: ['longtask', 'measure'] });
  window.__paste = w;
  performance.mark('bench:paste');   // in the trace too: where the paste starts
};
/** In the page: once the page is computed and idle, resolves what watchInPage collected. */
const idleInPage = () => new Promise((resolve) => {
  const w = window.__paste;
  const check = () => {
    if (document.body.classList.contains('computing')) { requestAnimationFrame(check); return; }
    // Figures out of view are drawn afterwards in idle periods, and long tasks are reported a little
    // after they end: collect until three whole idle periods in a row.
    let quiet = 0;
    const idle = (deadline) => {
      quiet = deadline.timeRemaining() >= 40 ? quiet + 1 : 0;
      if (quiet < 3) { requestIdleCallback(idle); return; }
      w.obs.disconnect();
      resolve({ all: performance.now() - w.t0, longtasks: w.longtasks, own: w.own });
    };
    setTimeout(() => requestIdleCallback(idle), 50);
  };
  requestAnimationFrame(check);
});

const TRACE_CATEGORIES = ['toplevel', 'devtools.timeline', 'blink.user_timing'];
/** A trace's events on the page's main thread ('X' events), and its tasks (RunTask) from the paste's mark on, longest first. */
function mainTasks(trace) {
  const events = trace.traceEvents;
  // The page's main thread: where its performance.mark('bench:paste') was made.
  const mark = events.filter((e) => e.name === 'bench:paste').pop();
  if (!mark) return { onMain: [], tasks: [] };
  const onMain = events.filter((e) => e.pid === mark.pid && e.tid === mark.tid && e.ph === 'X');
  // A task: 'ThreadControllerImpl::RunTask' (category toplevel), or 'RunTask' in traces without it.
  const name = onMain.some((e) => e.name === 'ThreadControllerImpl::RunTask') ? 'ThreadControllerImpl::RunTask' : 'RunTask';
  const tasks = onMain.filter((e) => e.name === name && e.ts >= mark.ts).sort((a, b) => b.dur - a.dur);
  return { onMain, tasks };
}

const server = await startServer(webDir);
const browser = await launch();
const result = { ...header({ load }), keys: KEYS, pastes: PASTES };
try {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForSelector('body.ready', { timeout: 60000 });
  await page.fill('#keys', KEYS);
  await settled(page);
  let offset = 0;
  // A paste as the browser delivers it: the text inserted into the focused field by the editor
  // (CDP Input.insertText), which replaces the selection and fires one input event.
  const pasteNow = async () => {
    await page.focus('#query');
    await page.evaluate(() => document.getElementById('query').select());
    await page.evaluate(watchInPage);
    await page.keyboard.insertText(doc(2000, ++offset));
    const r = await page.evaluate(idleInPage);
    await settled(page);
    return r;
  };
  // The first paste into a page just loaded (what a reader does: the long-document figures are
  // built then, and their code runs for the first time), and a paste into a page that has drawn
  // long documents before (warm: after 1 s of pastes).
  const fresh = async () => {
    await page.goto(server.url + '#');
    await page.reload();
    await page.waitForSelector('body.ready', { timeout: 60000 });
    await page.fill('#keys', KEYS);
    await settled(page);
  };
  const warm = async () => {
    await page.fill('#query', 'a');
    await settled(page);
    return pasteNow();
  };
  const summary = (runs) => {
    const longest = runs.map((r) => Math.max(0, ...r.longtasks));
    const names = [...new Set(runs.flatMap((r) => r.own.map((o) => o[0])))].sort();
    const perFigure = {};
    for (const n of names) perFigure[n] = round(median(runs.map((r) => Math.max(0, ...r.own.filter((o) => o[0] === n).map((o) => o[1])))));
    return {
      runs: runs.length, longest_task_median_ms: round(median(longest)), longest_task_max_ms: round(Math.max(...longest)),
      longest_task_per_paste_ms: longest.map(round), long_tasks_per_paste_median: median(runs.map((r) => r.longtasks.length)),
      paste_to_idle_median_ms: round(median(runs.map((r) => r.all))), own_measures_longest_median_ms: perFigure,
      traced_longest_task_wall_median_ms: round(median(runs.map((r) => r.traced.wall))),
      traced_longest_task_cpu_median_ms: round(median(runs.map((r) => r.traced.cpu))),
      traced_longest_task_cpu_max_ms: round(Math.max(...runs.map((r) => r.traced.cpu))),
      traced_longest_task_cpu_per_paste_ms: runs.map((r) => round(r.traced.cpu)),
    };
  };
  // Each measured paste also under a light trace (devtools.timeline): its longest main-thread task by
  // wall time and by CPU time.
  const traced = async (run) => {
    await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    const r = await run();
    const raw = JSON.parse((await browser.stopTracing()).toString('utf8'));
    const t = mainTasks(raw);
    r.traced = { wall: Math.max(0, ...t.tasks.map((e) => e.dur)) / 1000, cpu: Math.max(0, ...t.tasks.map((e) => e.tdur ?? 0)) / 1000 };
    return r;
  };
  const first = [];
  for (let k = 0; k < PASTES; k++) { await fresh(); first.push(await traced(pasteNow)); }
  result.first_paste = summary(first);
  const t0 = Date.now();
  while (Date.now() - t0 < WARMUP_MS) await warm();
  const again = [];
  for (let k = 0; k < PASTES; k++) again.push(await traced(warm));
  result.warm_paste = summary(again);

  // One paste traced: where the longest task's time goes.
  await fresh();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await browser.startTracing(page, { categories: [...TRACE_CATEGORIES, 'disabled-by-default-devtools.timeline'] });
  await page.focus('#query');
  await page.evaluate(() => document.getElementById('query').select());
  await cdp.send('Profiler.start');   // before the mark: starting the profiler is a long task of its own
  await page.evaluate(watchInPage);
  await page.keyboard.insertText(doc(2000, ++offset));
  await page.evaluate(idleInPage);
  const { profile } = await cdp.send('Profiler.stop');
  const traceBytes = await browser.stopTracing();
  if (option('trace')) writeFileSync(option('trace'), traceBytes);
  const trace = JSON.parse(traceBytes.toString('utf8'));
  await settled(page);
  const { onMain, tasks } = mainTasks(trace);
  const KINDS = {
    script: ['FunctionCall', 'EvaluateScript', 'TimerFire', 'FireAnimationFrame', 'EventDispatch', 'RunMicrotasks', 'FireIdleCallback', 'v8.callFunction'],
    style: ['UpdateLayoutTree', 'RecalculateStyles', 'ParseAuthorStyleSheet'], layout: ['Layout'],
    paint: ['Paint', 'PrePaint', 'Layerize', 'UpdateLayer'], commit: ['Commit'], gc: ['MinorGC', 'MajorGC', 'V8.GC_SCAVENGER', 'V8.GC_MARK_COMPACTOR'],
  };
  // The time of the outermost events of a kind (nested events of one kind are not counted twice).
  const covered = (evs) => {
    let sum = 0, end = -Infinity;
    for (const e of [...evs].sort((x, y) => x.ts - y.ts)) {
      const to = e.ts + e.dur;
      if (e.ts >= end) { sum += e.dur; end = to; } else if (to > end) { sum += to - end; end = to; }
    }
    return sum;
  };
  // Where a script's function comes from: the source map of the bundle (dist/web/*.js.map), else the bundle's line:column.
  const maps = new Map();
  const where = (d) => {
    if (!d.url) return "(the benchmark's own code in the page)";
    const file = d.url.split('/').pop();
    const dir = webDir ?? join(root, 'dist/web');
    if (!maps.has(file)) maps.set(file, SourceMapConsumer && existsSync(join(dir, `${file}.map`)) ? new SourceMapConsumer(JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8'))) : null);
    const m = maps.get(file);
    // A trace's FunctionCall gives the line 1-based (as source maps count lines) and the column as the profiler does.
    const o = m ? m.originalPositionFor({ line: d.lineNumber, column: d.columnNumber }) : null;
    return o && o.source ? `${o.source.replace(/^(\.\.\/)+/, '')}:${o.line}${o.name ? ` ${o.name}` : ''}` : `${file}:${d.lineNumber}:${d.columnNumber}`;
  };
  // On a busy machine a task's wall time is mostly time the thread waited for a core: the trace
  // gives each task's CPU time too (tdur). The largest CPU time of a task after the paste:
  const cpu = tasks.filter((e) => e.tdur !== undefined).sort((a, b) => b.tdur - a.tdur);
  result.traced_task_most_cpu = cpu.length ? { cpu_ms: round(cpu[0].tdur / 1000), ms: round(cpu[0].dur / 1000) } : null;
  result.traced_tasks_over_50ms = { wall: tasks.filter((e) => e.dur > 50000).length, cpu: cpu.filter((e) => e.tdur > 50000).length };
  // The three longest tasks after the paste whose time the trace accounts for (a task the
  // benchmark's own driving makes, with no event inside, is left out).
  result.traced_longest_tasks = [];
  for (const task of tasks) {
    if (result.traced_longest_tasks.length === 3) break;
    const inside = onMain.filter((e) => e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur && e !== task);
    const split = {};
    for (const [kind, list] of Object.entries(KINDS)) split[kind] = round(covered(inside.filter((e) => list.includes(e.name))) / 1000);
    const accounted = Object.values(split).reduce((x, y) => x + y, 0);
    if (accounted < 0.25 * task.dur / 1000) continue;
    const calls = {};
    for (const e of inside.filter((x) => x.name === 'FunctionCall' && x.args?.data)) {
      const k = where(e.args.data);
      calls[k] = (calls[k] || 0) + e.dur / 1000;
    }
    result.traced_longest_tasks.push({
      ms: round(task.dur / 1000), cpu_ms: round((task.tdur ?? NaN) / 1000), split_ms: split,
      functions_ms: Object.fromEntries(Object.entries(calls).sort((x, y) => y[1] - x[1]).slice(0, 5).map(([k, v]) => [k, round(v)])),
    });
  }
  // The profile: the longest stretch of busy samples (a main-thread task, as the profiler sees it:
  // samples not idle, with gaps under 2 ms) and, inside it, the self time per function and the time
  // per outermost function (the callback the task ran), the 12 largest of each.
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const label = (f) => `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
  const outermost = (id) => {
    let n = id;
    while (parent.has(n) && byId.get(parent.get(n)).callFrame.functionName !== '(root)') n = parent.get(n);
    return byId.get(n).callFrame;
  };
  let t = profile.startTime, best = null, cur = null;
  const samples = [];
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] || 0;
    const f = byId.get(profile.samples[i]).callFrame;
    const busy = !['(idle)', '(root)'].includes(f.functionName);
    samples.push({ t, id: profile.samples[i], busy });
  }
  for (let i = 0; i < samples.length; i++) {
    if (!samples[i].busy) continue;
    if (cur && samples[i].t - samples[cur.end].t < 2000) cur.end = i; else cur = { start: i, end: i };
    if (!best || samples[cur.end].t - samples[cur.start].t > samples[best.end].t - samples[best.start].t) best = { ...cur };
  }
  if (best) {
    const self = new Map(), outer = new Map();
    for (let i = best.start + 1; i <= best.end; i++) {
      const dt = samples[i].t - samples[i - 1].t;
      if (!samples[i].busy) continue;
      const f = byId.get(samples[i].id).callFrame;
      self.set(label(f), (self.get(label(f)) || 0) + dt);
      const o = label(outermost(samples[i].id));
      outer.set(o, (outer.get(o) || 0) + dt);
    }
    const top = (m) => Object.fromEntries([...m].sort((x, y) => y[1] - x[1]).slice(0, 12).map(([k, v]) => [k, round(v / 1000)]));
    result.profiled_longest_task = {
      ms: round((samples[best.end].t - samples[best.start].t) / 1000), self_ms: top(self), by_outermost_function_ms: top(outer),
    };
  }
  await context.close();
} finally {
  await browser.close();
  await server.stop();
}
const json = JSON.stringify(result, null, 2);
if (out) writeFileSync(out, json + '\n');
console.log(json);
